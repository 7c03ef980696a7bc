/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What /proc says, for the few things read from it. */
#ifndef __PROCFS_H
#define __PROCFS_H

#include <sys/types.h>

/*
 * The descendants of @root (not @root itself) from /proc/PID/stat.
 * Returns their number and a malloc'd array in @out, or -errno.
 */
int procfs__descendants(pid_t root, pid_t **out);

#endif /* __PROCFS_H */
