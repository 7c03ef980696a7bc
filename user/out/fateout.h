/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* --fate's answer, as text a person reads or as one JSON object. */
#ifndef __FATEOUT_H
#define __FATEOUT_H

#include <stdbool.h>
#include <stdio.h>
#include "fate.h"

/* @r to @f. Returns 0, or -errno. */
int fateout__write(const struct fate_report *r, FILE *f, bool json);

#endif /* __FATEOUT_H */
