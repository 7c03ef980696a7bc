/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What /proc says: the snapshot fallback, -p's subtree, and --verify. */
#ifndef __PROCFS_H
#define __PROCFS_H

#include <stdbool.h>
#include <sys/types.h>
#include <linux/types.h>

/* The fields of /proc/PID/stat that matter here. */
struct proc_stat {
	pid_t pid, ppid, pgid, sid, tpgid;
	__u32 tty_nr;
	__u32 flags;			 /* PF_* */
	__u32 uid;			 /* owner of /proc/PID */
	unsigned long long start_ticks;	 /* clock ticks since boot */
	unsigned long long utime, stime; /* CPU time, in clock ticks */
	unsigned long long vsize;	 /* virtual memory, bytes */
	long long rss;			 /* resident memory, pages */
	char state;			 /* R, S, Z, ... */
	char comm[16];
};

int procfs__read_stat(pid_t pid, struct proc_stat *st);

struct model_stat;
/* procfs__read_stat(), as the model asks (struct model_io's read_stat). */
int procfs__model_stat(pid_t pid, struct model_stat *st);

/*
 * What @pid runs: /proc/PID/exe into @exe (empty if unreadable) and up to
 * @size bytes of /proc/PID/cmdline into @args, their number in *len, *cut if
 * there were more. Returns 0, or -errno when the process is gone.
 */
int procfs__read_exec(pid_t pid, char *exe, size_t exe_size, char *args, size_t size, size_t *len,
		      bool *cut);

/*
 * The client of an sshd login: SSH_CONNECTION ("IP PORT IP PORT") in
 * /proc/PID/environ, the environment sshd gave the process at its exec.
 * @ip gets the address, checked by inet_pton(). Returns 0, or -errno
 * (-ENOENT: no such variable, -EINVAL: not an address and a port).
 */
int procfs__ssh_client(pid_t pid, char *ip, size_t ip_size, __u16 *port);

/* The length of a clock tick (start_ticks' unit), in nanoseconds. */
long procfs__tick_ns(void);

/* The thread group (process) that task @pid belongs to, or -errno. */
int procfs__tgid(pid_t pid);

struct fate_sigs;
/* Its signal dispositions, the signals every thread blocks, whether it is stopped (--fate). */
int procfs__read_sigs(pid_t pid, struct fate_sigs *s);

/* Every process (thread-group leader) now. Returns their number or -errno. */
int procfs__list(struct proc_stat **out);

/*
 * The descendants of @root (not @root itself) from /proc/PID/stat.
 * Returns their number and a malloc'd array in @out, or -errno.
 */
int procfs__descendants(pid_t root, pid_t **out);

#endif /* __PROCFS_H */
