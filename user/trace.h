/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The tracing session: start the BPF side, stream events, stop cleanly. */
#ifndef __TRACE_H
#define __TRACE_H

#include "opts.h"

/* Runs until a signal, the duration, or the command's end. Returns the exit code. */
int trace__run(const struct opts *o);

#endif /* __TRACE_H */
