/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The processes below one in /proc's process tree, and a signal that reaches
 * only the process it was meant for: what --contain ends a command's
 * descent with.
 */
#ifndef __DESCENT_H
#define __DESCENT_H

#include <sys/types.h>

/*
 * The processes below @root (children, theirs, ...) into @out, up to @max:
 * their number, or -errno. Read from /proc/PID/task/TID/children, or from
 * every process's parent where the kernel has no such file.
 */
int descent__walk(pid_t root, pid_t *out, int max);

/*
 * @sig to @pid, if @pid is still the process that started at @start_ticks
 * (/proc/PID/stat's clock ticks since boot): the check is made on a pidfd,
 * which the signal then goes through, so a pid reused in between is never
 * hit. Never pid 1 or the caller. Returns 0, -ESRCH when the process is gone
 * or another has its pid, or -errno.
 */
int descent__signal(pid_t pid, unsigned long long start_ticks, int sig);

#endif /* __DESCENT_H */
