/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Check the model against the kernel's own view in /proc. */
#ifndef __VERIFY_H
#define __VERIFY_H

#include "model.h"
#include "sbuf.h"

struct verify_result {
	unsigned int processes;		/* processes in /proc */
	unsigned int differences;
};

/*
 * Compare ppid, pgid, sid, tty, zombie state and each tty's foreground group
 * of every process in /proc with the model, both ways. Each difference is
 * one line in @report. Returns 0 or -errno.
 */
int verify__run(const struct model *m, struct sbuf *report, struct verify_result *res);

#endif /* __VERIFY_H */
