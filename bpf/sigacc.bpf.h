/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The per-thread signal accumulator, shared by the signal syscalls
 * (signals.bpf.c) and the signalling ioctls (tty.bpf.c): a cause that runs
 * inside one syscall becomes one record, written at the syscall's exit.
 */
#ifndef __SIGACC_BPF_H
#define __SIGACC_BPF_H

#include "common.bpf.h"

#define SIGHUP		1
#define SIGKILL		9
#define SIGCHLD		17
#define SIGCONT		18
#define SIGSTOP		19
#define SIGTSTP		20
#define SIGTTIN		21
#define SIGTTOU		22
#define SIGURG		23
#define SIGWINCH	28
#define SI_KERNEL	0x80
#define PF_WQ_WORKER	0x00000020

#define TIOCSPGRP	0x5410
#define TIOCSWINSZ	0x5414
#define TIOCNOTTY	0x5422
#define TIOCSIG		0x40045436

/* What to report: 0 none, 1 group (wider than a process, or fatal), 2 all. */
const volatile __u32 signal_mode __weak = 1;

/* The next group_id of a signal cause. */
__u64 sig_group_next __weak = 1;

/* The cause in flight on a thread: a signal syscall or ioctl. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct pgt_signal);
} sigacc __weak SEC(".maps");

/* A zeroed record to start an accumulator from (too big for the stack). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pgt_signal);
} sigzero __weak SEC(".maps");

/* Default action terminates (or dumps core): not SIGCHLD, SIGCONT, stops, URG, WINCH. */
static __always_inline bool sig_kills_by_default(int sig)
{
	const __u64 spare = (1ULL << SIGCHLD) | (1ULL << SIGCONT) | (1ULL << SIGSTOP) |
			    (1ULL << SIGTSTP) | (1ULL << SIGTTIN) | (1ULL << SIGTTOU) |
			    (1ULL << SIGURG) | (1ULL << SIGWINCH);

	return sig >= 1 && sig < 64 && !((1ULL << sig) & spare);
}

/* A delivered signal that the recipient leaves at its default, deadly action. */
static __always_inline bool is_fatal(struct task_struct *t, int sig, int result)
{
	struct sighand_struct *sh;
	void *handler = NULL;
	unsigned int idx;

	if (result != 0)
		return false;
	if (sig == SIGKILL)
		return true;
	if (!sig_kills_by_default(sig))
		return false;
	sh = BPF_CORE_READ(t, sighand);
	idx = (unsigned int)(sig - 1) & 63;
	bpf_core_read(&handler, sizeof(handler), &sh->action[idx].sa.sa_handler);
	return handler == NULL;	/* SIG_DFL */
}

static __always_inline bool wanted_by_mode(__u32 scope, __u32 flags)
{
	if (signal_mode == 0)
		return false;
	if (signal_mode == 2)
		return true;
	return (scope != PGT_SCOPE_PROCESS && scope != PGT_SCOPE_THREAD) ||
	       (flags & PGT_SIG_FATAL);
}

static __always_inline void add_rcpt(struct pgt_signal *e, __u32 i, struct task_struct *t,
				     int result)
{
	i &= PGT_SIG_RCPTS - 1;
	e->rcpt[i].pid = BPF_CORE_READ(t, tgid);
	e->rcpt[i].tid = BPF_CORE_READ(t, pid);
	e->rcpt[i].result = result;
	e->rcpt[i].pgid = pid_nr0(BPF_CORE_READ(t, signal, pids[pidtype_pgid()]));
}

/* ---- the syscall path: gather, then one record at exit ---- */

static __always_inline void acc_start(__u32 cause, __u32 scope, __s32 target, __u32 sig)
{
	struct pgt_signal *z;
	__u32 zero = 0, tid = cur_tid();

	z = bpf_map_lookup_elem(&sigzero, &zero);
	if (!z)
		return;
	fill_proc(&z->proc, (struct task_struct *)bpf_get_current_task());
	z->group_id = __sync_fetch_and_add(&sig_group_next, 1);
	z->cause = cause;
	z->scope = scope;
	z->target = target;
	z->sig = sig;
	z->nr = 0;
	z->flags = 0;
	z->__pad = tgid_wanted(cur_tgid());	/* reused: someone involved is traced */
	bpf_map_update_elem(&sigacc, &tid, z, BPF_ANY);
	/* Leave the scratch record zeroed for the next user on this CPU. */
	__builtin_memset(&z->proc, 0, sizeof(z->proc));
}

static __always_inline void acc_flush(struct pgt_signal *e, bool final, long ret)
{
	if (final) {
		e->flags |= PGT_SIG_FINAL;
		e->ret = ret;
	}
	if (e->sig && e->__pad && wanted_by_mode(e->scope, e->flags))
		pgt_output(&e->hdr, PGT_SIGNAL, sizeof(*e));
	e->nr = 0;
}

static __always_inline void acc_add(struct pgt_signal *e, struct task_struct *t, int sig,
				    int result, int code)
{
	__u32 i = e->nr;

	if (e->sig && e->sig != (__u32)sig) {
		/* A second signal in the same syscall (TIOCNOTTY: SIGHUP, SIGCONT). */
		acc_flush(e, true, 0);
		e->flags = 0;
		e->group_id = __sync_fetch_and_add(&sig_group_next, 1);
		e->sig = sig;
		__builtin_memset(e->rcpt, 0, sizeof(e->rcpt));
		i = 0;
	}
	if (i >= PGT_SIG_RCPTS) {
		acc_flush(e, false, 0);
		__builtin_memset(e->rcpt, 0, sizeof(e->rcpt));
		i = 0;
	}
	if (!e->sig)
		e->sig = sig;
	e->code = code;
	add_rcpt(e, i, t, result);
	if (i == 0 && e->target == 0) {
		/* The target in global numbers, from the first recipient. */
		if (e->scope == PGT_SCOPE_GROUP)
			e->target = e->rcpt[0].pgid;
		else if (e->scope == PGT_SCOPE_PROCESS || e->scope == PGT_SCOPE_THREAD)
			e->target = e->rcpt[0].pid;
	}
	if (is_fatal(t, sig, result))
		e->flags |= PGT_SIG_FATAL;
	if (tgid_wanted(e->rcpt[i & (PGT_SIG_RCPTS - 1)].pid))
		e->__pad = 1;
	e->nr = i + 1;
}

static __always_inline int acc_end(long ret)
{
	__u32 tid = cur_tid();
	struct pgt_signal *e = bpf_map_lookup_elem(&sigacc, &tid);

	if (!e)
		return 0;
	if (e->nr || ret < 0)
		acc_flush(e, true, ret);
	bpf_map_delete_elem(&sigacc, &tid);
	return 0;
}

/* ---- ioctls that signal: their signals are one cause too ---- */

static __always_inline bool ioctl_cause(__u32 cmd, __u32 *cause)
{
	switch (cmd) {
	case TIOCSWINSZ:
		*cause = PGT_CAUSE_RESIZE;
		return true;
	case TIOCNOTTY:
		*cause = PGT_CAUSE_HANGUP;
		return true;
	case TIOCSIG:
		*cause = PGT_CAUSE_TTY;
		return true;
	case TIOCSPGRP:
		*cause = PGT_CAUSE_JOB_CONTROL;	/* SIGTTOU from the background */
		return true;
	}
	return false;
}

/* Called by the tty programs at ioctl entry and exit. */
static __always_inline void sig_ioctl_enter(__u32 cmd)
{
	__u32 cause;

	if (signal_mode && ioctl_cause(cmd, &cause))
		acc_start(cause, PGT_SCOPE_GROUP, 0, 0);
}

static __always_inline void sig_ioctl_exit(long ret)
{
	acc_end(ret);
}

#endif /* __SIGACC_BPF_H */
