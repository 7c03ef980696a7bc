// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Controlling ttys and foreground groups.
 *
 * - Implicit acquisition: open() of a tty by a session leader without one
 *   (tty_open_proc_set_tty()). Only such a caller can acquire, so only its
 *   opens are followed.
 * - ioctl: TIOCSCTTY (acquire, possibly stealing), TIOCNOTTY (release; by a
 *   session leader, for the whole session), TIOCSPGRP (foreground group).
 *   The ioctls that signal (TIOCSWINSZ, TIOCNOTTY, TIOCSIG, TIOCSPGRP from the
 *   background) also open a signal accumulator (sigacc.bpf.h).
 * The session-wide side effects (a steal, a hangup, the leader's exit) change
 * processes that make no syscall; user space applies them to the model.
 */
#include "sigacc.bpf.h"

static __always_inline struct tty_struct *cur_ctty(void)
{
	struct task_struct *cur = (struct task_struct *)bpf_get_current_task();

	return BPF_CORE_READ(cur, signal, tty);
}

static __always_inline void emit_tty(__u32 how, bool acquire, bool session_wide)
{
	struct task_struct *cur = (struct task_struct *)bpf_get_current_task();
	struct tty_struct *tty = cur_ctty();
	struct pgt_tty *e;

	e = pgt_reserve(PGT_TTY, sizeof(*e));
	if (!e)
		return;
	fill_proc(&e->proc, cur);
	e->how = how;
	e->acquire = acquire;
	e->sid = e->proc.sid;
	e->session_wide = session_wide;
	if (tty) {
		read_tty(tty, &e->tty_nr, e->tty);
		e->fg_pgid = pid_nr0(tty_fg_pgrp(tty));
	}
	pgt_submit(e);
}

/* ---- open: implicit acquisition ---- */

static __always_inline int open_enter(void)
{
	struct task_struct *cur = (struct task_struct *)bpf_get_current_task();
	struct inflight st = {};

	if (!BPF_CORE_READ(cur, signal, leader) || BPF_CORE_READ(cur, signal, tty))
		return 0;
	if (!tgid_wanted(cur_tgid()))
		return 0;
	st.kind = INFLIGHT_OPEN;
	inflight_put(&st);
	return 0;
}

static __always_inline int open_exit(long ret)
{
	struct inflight *st = inflight_get();

	if (!st || st->kind != INFLIGHT_OPEN)
		return 0;
	if (ret >= 0 && cur_ctty())
		emit_tty(PGT_TTY_OPEN, true, false);
	inflight_end();
	return 0;
}

SEC("tp/syscalls/sys_enter_openat")
int sys_enter_openat(void *ctx)
{
	return open_enter();
}

SEC("tp/syscalls/sys_exit_openat")
int sys_exit_openat(struct trace_event_raw_sys_exit *ctx)
{
	return open_exit(ctx->ret);
}

SEC("tp/syscalls/sys_enter_openat2")
int sys_enter_openat2(void *ctx)
{
	return open_enter();
}

SEC("tp/syscalls/sys_exit_openat2")
int sys_exit_openat2(struct trace_event_raw_sys_exit *ctx)
{
	return open_exit(ctx->ret);
}

/* ---- ioctl ---- */

static __always_inline int ioctl_enter(__u32 cmd, __u64 arg)
{
	struct task_struct *cur = (struct task_struct *)bpf_get_current_task();
	struct inflight st = {};
	struct tty_struct *tty;

	if (cmd != TIOCSCTTY && cmd != TIOCNOTTY && cmd != TIOCSPGRP && cmd != TIOCSWINSZ &&
	    cmd != TIOCSIG)
		return 0;
	sig_ioctl_enter(cmd, arg);
	if (cmd == TIOCSWINSZ || cmd == TIOCSIG || !tgid_wanted(cur_tgid()))
		return 0;
	tty = BPF_CORE_READ(cur, signal, tty);
	st.kind = INFLIGHT_IOCTL;
	st.cmd = cmd;
	st.tty_ptr = (__u64)tty;
	st.found = BPF_CORE_READ(cur, signal, leader);
	if (tty)
		st.fg_pgid = pid_nr0(tty_fg_pgrp(tty));
	inflight_put(&st);
	return 0;
}

static __always_inline int ioctl_exit(long ret)
{
	struct task_struct *cur = (struct task_struct *)bpf_get_current_task();
	struct pgt_foreground *f;
	struct inflight *st;
	struct tty_struct *tty;

	sig_ioctl_exit(ret);
	st = inflight_get();
	if (!st || st->kind != INFLIGHT_IOCTL)
		return 0;
	tty = cur_ctty();
	if (st->cmd == TIOCSCTTY && ret == 0 && (__u64)tty != st->tty_ptr) {
		emit_tty(PGT_TTY_TIOCSCTTY, true, false);
	} else if (st->cmd == TIOCNOTTY && ret == 0 && st->tty_ptr) {
		/* By the session leader it is disassociate_ctty(): all lose it. */
		emit_tty(PGT_TTY_TIOCNOTTY, false, st->found);
	} else if (st->cmd == TIOCSPGRP && st->tty_ptr &&
		   (ret != 0 || !tty || pid_nr0(tty_fg_pgrp(tty)) != st->fg_pgid) &&
		   (f = pgt_reserve(PGT_FOREGROUND, sizeof(*f)))) {
		/* Only a change, or a refusal: shells re-assert their group often. */
		fill_proc(&f->proc, cur);
		read_tty((struct tty_struct *)st->tty_ptr, &f->tty_nr, f->tty);
		f->sid = f->proc.sid;
		f->old_pgid = st->fg_pgid;
		f->new_pgid = tty ? pid_nr0(tty_fg_pgrp(tty)) : 0;
		f->ret = ret;
		pgt_submit(f);
	}
	inflight_end();
	return 0;
}

SEC("tp/syscalls/sys_enter_ioctl")
int sys_enter_ioctl(struct trace_event_raw_sys_enter *ctx)
{
	return ioctl_enter((__u32)ctx->args[1], ctx->args[2]);
}

SEC("tp/syscalls/sys_exit_ioctl")
int sys_exit_ioctl(struct trace_event_raw_sys_exit *ctx)
{
	return ioctl_exit(ctx->ret);
}
