/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The kernel's constants that pgrptrace reads, in one place. vmlinux.h has
 * the kernel's types but none of its macros.
 *
 * The first part is kernel-internal (task and signal_struct flags): user
 * space reads them too, from /proc/PID/stat. The second is the UAPI, which
 * user space takes from the C library's headers (whose TIOCSIG, for one, is
 * spelt differently), so only the BPF side defines it here.
 */
#ifndef __KERNEL_DEFS_H
#define __KERNEL_DEFS_H

/* include/linux/sched.h: task_struct->flags, /proc/PID/stat field 9 */
#define PF_EXITING   0x00000004
#define PF_WQ_WORKER 0x00000020
#define PF_KTHREAD   0x00200000

/* include/linux/sched/signal.h: signal_struct->flags */
#define SIGNAL_GROUP_EXIT 0x00000004

#define PGT_MAX_PIDNS_LEVEL 32 /* MAX_PID_NS_LEVEL */

#ifdef __bpf__
/* asm-generic/signal.h (x86 and arm64 alike) */
#define SIGHUP	 1
#define SIGINT	 2
#define SIGQUIT	 3
#define SIGILL	 4
#define SIGTRAP	 5
#define SIGBUS	 7
#define SIGFPE	 8
#define SIGKILL	 9
#define SIGSEGV	 11
#define SIGPIPE	 13
#define SIGCHLD	 17
#define SIGCONT	 18
#define SIGSTOP	 19
#define SIGTSTP	 20
#define SIGTTIN	 21
#define SIGTTOU	 22
#define SIGURG	 23
#define SIGXCPU	 24
#define SIGXFSZ	 25
#define SIGWINCH 28
#define SIGSYS	 31

/* asm-generic/siginfo.h */
#define SI_USER	      0
#define SI_KERNEL     0x80
#define CLD_EXITED    1 /* the first SIGCHLD si_code ... */
#define CLD_CONTINUED 6 /* ... and the last */

/* asm-generic/ioctls.h */
#define TIOCSCTTY  0x540E
#define TIOCSPGRP  0x5410
#define TIOCSWINSZ 0x5414
#define TIOCNOTTY  0x5422
#define TIOCSIG	   0x40045436 /* _IOW('T', 0x36, int) */

/* linux/prctl.h */
#define PR_SET_CHILD_SUBREAPER 36
#endif /* __bpf__ */

#endif /* __KERNEL_DEFS_H */
