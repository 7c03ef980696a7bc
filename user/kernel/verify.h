/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Check the model against the kernel's own view in /proc. */
#ifndef __VERIFY_H
#define __VERIFY_H

#include "model.h"
#include "sbuf.h"

struct verify_result {
	unsigned int processes; /* processes in /proc */
	unsigned int differences;
};

/*
 * Compare ppid, pgid, sid, tty, zombie state and each tty's foreground group
 * of every process in /proc with the model, both ways. Each difference is
 * one line in @report. Returns 0 or -errno.
 */
int verify__run(const struct model *m, struct sbuf *report, struct verify_result *res);

/*
 * --verify's check at a quiet point: verify__run() until the model agrees,
 * @settle(@ctx) before each try (it takes what is pending), retrying while
 * the frees of reaped processes are still in flight (RCU), and longer while
 * a parent is still exiting, its orphans not yet reparented. The
 * differences of the last try, then "verify: N processes, M differences",
 * into @report. Returns the differences (1 if /proc could not be read).
 */
unsigned int verify__settled(struct model *m, void (*settle)(void *ctx), void *ctx,
			     struct sbuf *report);

#endif /* __VERIFY_H */
