/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * --replay FILE --diff T1 T2: what changed between two moments of a
 * recording. The model at each (every process, its parent, group, session
 * and tty), and the forks and exits recorded between them: births, deaths
 * (with how, as the exit's record says), and each process's moves of
 * session, group, parent and tty, as a short text or one JSON object.
 */
#ifndef __DIFF_H
#define __DIFF_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>
#include "model.h"

struct diff;

struct diff *diff__new(void);
void diff__free(struct diff *d);
/* The model at moment @i (0: T1, 1: T2), at boot time @ns. */
int diff__take(struct diff *d, const struct model *m, unsigned int i, __u64 ns);
/* A record between the two (forks and exits are kept). */
void diff__peek(struct diff *d, const void *data, __u32 len);
/* The changes to @f, times with @boot_to_real_ns. Returns 0, or -errno. */
int diff__write(const struct diff *d, FILE *f, bool json, bool utc, __s64 boot_to_real_ns);

#endif /* __DIFF_H */
