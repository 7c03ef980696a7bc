/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* --check: what this kernel offers, and which hook each event would use. */
#ifndef __CHECK_H
#define __CHECK_H

#include "opts.h"

/* Prints the report (text or JSON); 0 if pgrptrace can trace here, else 1. */
int check__run(const struct opts *o);

#endif /* __CHECK_H */
