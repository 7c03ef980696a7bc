// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Group-changing syscalls: setsid, setpgid and prctl(PR_SET_CHILD_SUBREAPER).
 *
 * Each is a pair of per-syscall tracepoints: the enter side saves the state
 * before the call (keyed by thread), the exit side reads the state after it
 * and reports both. Per-syscall tracepoints fire only for their syscall,
 * unlike raw_syscalls, which would run for every syscall on the machine.
 * A program may read only the argument slots its syscall has: reading more
 * makes the attach fail with EACCES.
 */
#include "common.bpf.h"

#define PR_SET_CHILD_SUBREAPER	36

SEC("tp/syscalls/sys_enter_setsid")
int sys_enter_setsid(void *ctx)
{
	struct inflight st = {};

	if (!tgid_wanted(cur_tgid()))
		return 0;
	st.kind = PGT_SETSID;
	fill_grp(&st.old, (struct task_struct *)bpf_get_current_task());
	inflight_put(&st);
	return 0;
}

SEC("tp/syscalls/sys_exit_setsid")
int sys_exit_setsid(struct trace_event_raw_sys_exit *ctx)
{
	struct pgt_setsid *e;
	struct inflight *st;

	st = inflight_get();
	if (!st || st->kind != PGT_SETSID)
		return 0;
	e = pgt_reserve(PGT_SETSID, sizeof(*e));
	if (e) {
		fill_proc(&e->proc, (struct task_struct *)bpf_get_current_task());
		e->old = st->old;
		e->ret = ctx->ret;
		pgt_submit(e);
	}
	inflight_end();
	return 0;
}

/*
 * setpgid(pid, pgid) may name a child of the caller. Both numbers are in the
 * caller's pid namespace, so the target is resolved with bpf_task_from_vpid()
 * rather than by comparing numbers.
 */
SEC("tp/syscalls/sys_enter_setpgid")
int sys_enter_setpgid(struct trace_event_raw_sys_enter *ctx)
{
	struct inflight st = {};
	struct task_struct *t;
	__u32 ttgid;

	st.kind = PGT_SETPGID;
	st.arg_pid = (__s32)ctx->args[0];
	st.arg_pgid = (__s32)ctx->args[1];
	if (st.arg_pid == 0) {
		if (!tgid_wanted(cur_tgid()))
			return 0;
		fill_grp(&st.old, (struct task_struct *)bpf_get_current_task());
		st.found = 1;
	} else {
		t = bpf_task_from_vpid(st.arg_pid);
		if (t) {
			ttgid = BPF_CORE_READ(t, tgid);
			fill_grp(&st.old, t);
			bpf_task_release(t);
			st.found = 1;
			if (!tgid_wanted(cur_tgid()) && !tgid_wanted(ttgid))
				return 0;
		} else if (!tgid_wanted(cur_tgid())) {
			return 0;
		}
	}
	inflight_put(&st);
	return 0;
}

SEC("tp/syscalls/sys_exit_setpgid")
int sys_exit_setpgid(struct trace_event_raw_sys_exit *ctx)
{
	struct task_struct *cur = (struct task_struct *)bpf_get_current_task();
	struct pgt_setpgid *e;
	struct inflight *st;
	struct task_struct *t;

	st = inflight_get();
	if (!st || st->kind != PGT_SETPGID)
		return 0;
	e = pgt_reserve(PGT_SETPGID, sizeof(*e));
	if (!e)
		goto out;
	fill_proc(&e->proc, cur);
	e->old = st->old;
	e->ret = ctx->ret;
	e->arg_pid = st->arg_pid;
	e->arg_pgid = st->arg_pgid;
	if (st->arg_pid == 0) {
		fill_proc(&e->target, cur);
		e->target_found = 1;
	} else {
		t = bpf_task_from_vpid(st->arg_pid);
		if (t) {
			fill_proc(&e->target, t);
			bpf_task_release(t);
			e->target_found = 1;
		}
	}
	pgt_submit(e);
out:
	inflight_end();
	return 0;
}

SEC("tp/syscalls/sys_enter_prctl")
int sys_enter_prctl(struct trace_event_raw_sys_enter *ctx)
{
	struct inflight st = {};

	if (ctx->args[0] != PR_SET_CHILD_SUBREAPER)
		return 0;
	if (!tgid_wanted(cur_tgid()))
		return 0;
	st.kind = PGT_SUBREAPER;
	st.arg_pid = ctx->args[1] != 0;
	inflight_put(&st);
	return 0;
}

SEC("tp/syscalls/sys_exit_prctl")
int sys_exit_prctl(struct trace_event_raw_sys_exit *ctx)
{
	struct pgt_subreaper *e;
	struct inflight *st;

	st = inflight_get();
	if (!st || st->kind != PGT_SUBREAPER)
		return 0;
	e = pgt_reserve(PGT_SUBREAPER, sizeof(*e));
	if (e) {
		fill_proc(&e->proc, (struct task_struct *)bpf_get_current_task());
		e->ret = ctx->ret;
		e->enabled = st->arg_pid;
		pgt_submit(e);
	}
	inflight_end();
	return 0;
}
