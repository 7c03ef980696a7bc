// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Group-changing syscalls: setsid, setpgid and prctl(PR_SET_CHILD_SUBREAPER).
 *
 * Each is a pair of hooks: the entry saves the state before the call (keyed
 * by thread), the exit reads the state after it and reports both. Below the
 * fentry level the pair is the syscall's own tracepoints, which fire only
 * for their syscall (raw_syscalls would run for every syscall), but while
 * any syscall tracepoint is attached every syscall of every task takes the
 * slow path; at the fentry level it is fentry/fexit on the kernel function
 * (fentry.bpf.c), with the same bodies. A tracepoint program may read only
 * the argument slots its syscall has: reading more makes the attach fail
 * with EACCES.
 */
#include "common.bpf.h"

static __always_inline int setsid_enter(void)
{
	struct inflight st = {};

	if (!tgid_wanted(cur_tgid()))
		return 0;
	st.kind = PGT_SETSID;
	fill_grp(&st.old, (struct task_struct *)bpf_get_current_task());
	inflight_put(&st);
	return 0;
}

static __always_inline int setsid_exit(long ret)
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
		e->ret = ret;
		pgt_submit(e);
	}
	inflight_end();
	return 0;
}

SEC("tp/syscalls/sys_enter_setsid")
int sys_enter_setsid(void *ctx)
{
	return setsid_enter();
}

SEC("tp/syscalls/sys_exit_setsid")
int sys_exit_setsid(struct trace_event_raw_sys_exit *ctx)
{
	return setsid_exit(ctx->ret);
}

#define MAX_CHILD_SCAN 64 /* children of a thread looked at, newest first */

/* The number of @pid in the pid namespace at @level, or 0 if it has none there. */
static __always_inline __s32 pid_nr_at(struct pid *pid, unsigned int level)
{
	struct upid up;

	if (!pid || level >= PGT_MAX_PIDNS_LEVEL || BPF_CORE_READ(pid, level) < level)
		return 0;
	if (bpf_core_read(&up, sizeof(up), &pid->numbers[level]))
		return 0;
	return up.nr;
}

/* A walk of a parent's children list, newest first, for the child numbered @vnr at @level. */
struct child_scan {
	__u64 pos;   /* the list entry to look at next */
	__u64 head;  /* the parent's list head: the end */
	__u64 off;   /* of the sibling entry in a task */
	__u64 found; /* the child, once found */
	__u32 level;
	__s32 vnr;
};

/* One child: 1 when the walk is over (found, or the list's end). */
static long child_step(__u64 i, void *data)
{
	struct child_scan *s = data;
	unsigned int level = s->level; /* ours: no CO-RE relocation of it below */
	struct task_struct *c;
	struct pid *pid;
	struct upid up;

	if (!s->pos || s->pos == s->head)
		return 1;
	c = (struct task_struct *)(long)(s->pos - s->off);
	pid = BPF_CORE_READ(c, thread_pid);
	if (!bpf_core_read(&up, sizeof(up), &pid->numbers[level]) && up.nr == s->vnr) {
		s->found = (__u64)(long)c;
		return 1;
	}
	s->pos = (__u64)(long)BPF_CORE_READ(c, sibling.prev);
	return 0;
}

/*
 * A child's pid is in its parent's namespace or one below: it has a number
 * at @level, checked once here, not per child.
 */
static __always_inline bool child_scan_start(struct child_scan *s, __u64 parent_ptr,
					     unsigned int level, __s32 vnr)
{
	struct task_struct *parent = (struct task_struct *)(long)parent_ptr;

	s->pos = (__u64)(long)BPF_CORE_READ(parent, children.prev);
	s->head = parent_ptr + bpf_core_field_offset(struct task_struct, children);
	s->off = bpf_core_field_offset(struct task_struct, sibling);
	s->found = 0;
	s->level = level;
	s->vnr = vnr;
	return level < PGT_MAX_PIDNS_LEVEL;
}

/*
 * Of @parent's children (the ones this thread forked), the one numbered @vnr
 * at @level. Without bpf_loop(), a global function with a bounded loop: the
 * verifier checks it once per program, not at each call, though each of its
 * steps (4.5k instructions a program); its signature holds numbers only, as
 * 5.10 requires. With it, the step is checked once.
 */
__noinline __u64 child_by_nr(__u64 parent_ptr, unsigned int level, __s32 vnr)
{
	struct child_scan s;
	int i;

	if (!child_scan_start(&s, parent_ptr, level, vnr))
		return 0;
	for (i = 0; i < MAX_CHILD_SCAN; i++)
		if (child_step(i, &s))
			break;
	return s.found;
}

static __always_inline __u64 child_by_nr_loop(__u64 parent_ptr, unsigned int level, __s32 vnr)
{
	struct child_scan s;

	if (!child_scan_start(&s, parent_ptr, level, vnr))
		return 0;
	bpf_loop(MAX_CHILD_SCAN, child_step, &s, 0);
	return s.found;
}

static __always_inline struct task_struct *child_of(struct task_struct *parent, unsigned int level,
						    __s32 vnr, bool loop)
{
	__u64 c = loop ? child_by_nr_loop((__u64)(long)parent, level, vnr) :
			 child_by_nr((__u64)(long)parent, level, vnr);

	return (struct task_struct *)(long)c;
}

/*
 * setpgid(pid, pgid) may name the caller or a child of the caller's process
 * (anything else fails with ESRCH), by its number in the caller's pid
 * namespace. The child is looked for on the lists of this thread and of the
 * group leader, newest first, where a shell's just-forked job is: no kfunc
 * is needed (bpf_task_from_vpid() came in 6.13), so every kernel finds it
 * the same way. A caller with more than MAX_CHILD_SCAN newer children on
 * one list leaves the target unknown, as a failed lookup does.
 */
static __always_inline struct task_struct *setpgid_target(__s32 vnr, bool loop)
{
	struct task_struct *cur = (struct task_struct *)bpf_get_current_task();
	struct task_struct *leader = BPF_CORE_READ(cur, group_leader);
	unsigned int level = BPF_CORE_READ(cur, thread_pid, level);
	struct task_struct *c;

	if (vnr <= 0)
		return NULL;
	if (pid_nr_at(BPF_CORE_READ(leader, thread_pid), level) == vnr)
		return leader;
	c = child_of(cur, level, vnr, loop);
	if (!c && leader != cur)
		c = child_of(leader, level, vnr, loop);
	return c;
}

static __always_inline int setpgid_enter(__s32 pid, __s32 pgid, bool loop)
{
	struct inflight st = {};
	struct task_struct *t;
	__u32 ttgid;

	st.kind = PGT_SETPGID;
	st.arg_pid = pid;
	st.arg_pgid = pgid;
	if (st.arg_pid == 0) {
		if (!tgid_wanted(cur_tgid()))
			return 0;
		fill_grp(&st.old, (struct task_struct *)bpf_get_current_task());
		st.found = 1;
	} else {
		t = setpgid_target(st.arg_pid, loop);
		if (t) {
			ttgid = BPF_CORE_READ(t, tgid);
			fill_grp(&st.old, t);
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

static __always_inline int setpgid_exit(long ret, bool loop)
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
	e->ret = ret;
	e->arg_pid = st->arg_pid;
	e->arg_pgid = st->arg_pgid;
	if (st->arg_pid == 0) {
		fill_proc(&e->target, cur);
		e->target_found = 1;
	} else {
		t = setpgid_target(st->arg_pid, loop);
		if (t) {
			fill_proc(&e->target, t);
			e->target_found = 1;
		}
	}
	pgt_submit(e);
out:
	inflight_end();
	return 0;
}

SEC("tp/syscalls/sys_enter_setpgid")
int sys_enter_setpgid(struct trace_event_raw_sys_enter *ctx)
{
	return setpgid_enter((__s32)ctx->args[0], (__s32)ctx->args[1], true);
}

SEC("tp/syscalls/sys_enter_setpgid")
int sys_enter_setpgid_noloop(struct trace_event_raw_sys_enter *ctx)
{
	return setpgid_enter((__s32)ctx->args[0], (__s32)ctx->args[1], false);
}

SEC("tp/syscalls/sys_exit_setpgid")
int sys_exit_setpgid(struct trace_event_raw_sys_exit *ctx)
{
	return setpgid_exit(ctx->ret, true);
}

SEC("tp/syscalls/sys_exit_setpgid")
int sys_exit_setpgid_noloop(struct trace_event_raw_sys_exit *ctx)
{
	return setpgid_exit(ctx->ret, false);
}

/* prctl(PR_SET_CHILD_SUBREAPER, @enabled) returned @ret. */
static __always_inline void report_subreaper(bool enabled, long ret)
{
	struct pgt_subreaper *e;

	e = pgt_reserve(PGT_SUBREAPER, sizeof(*e));
	if (e) {
		fill_proc(&e->proc, (struct task_struct *)bpf_get_current_task());
		e->ret = ret;
		e->enabled = enabled;
		pgt_submit(e);
	}
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
	struct inflight *st;

	st = inflight_get();
	if (!st || st->kind != PGT_SUBREAPER)
		return 0;
	report_subreaper(st->arg_pid, ctx->ret);
	inflight_end();
	return 0;
}
