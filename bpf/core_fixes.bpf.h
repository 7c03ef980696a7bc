/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Every kernel-drift shim in one place. Each one names the kernel change it
 * papers over; nothing here looks at a kernel version number.
 */
#ifndef __CORE_FIXES_BPF_H
#define __CORE_FIXES_BPF_H

#include <vmlinux.h>
#include <bpf/bpf_core_read.h>

/*
 * Kernel 5.5 (commit cf25e24db61c "time: Rename tsk->real_start_time to
 * ->start_boottime") renamed the field that /proc/PID/stat reports as the
 * start time.
 */
struct task_struct___old_start {
	u64 real_start_time;
} __attribute__((preserve_access_index));

static __always_inline __u64 task_start_boottime(struct task_struct *t)
{
	struct task_struct___old_start *o = (void *)t;

	if (bpf_core_field_exists(t->start_boottime))
		return BPF_CORE_READ(t, start_boottime);
	return BPF_CORE_READ(o, real_start_time);
}

/*
 * sched_process_exit gained a group_dead argument in 2025 (TP_PROTO(p,
 * group_dead)), and its own event record with the field in the same change;
 * before, it shared sched_process_template. The field's existence tells the
 * programs whether ctx[1] exists. Before it, do_exit() had already
 * decremented signal->live when the tracepoint fired, so zero live threads
 * means this is the last one.
 */
struct trace_event_raw_sched_process_exit___gd {
	bool group_dead;
} __attribute__((preserve_access_index));

static __always_inline bool exit_group_dead(struct task_struct *p, unsigned long long *ctx)
{
	if (bpf_core_field_exists(struct trace_event_raw_sched_process_exit___gd, group_dead))
		return ctx[1] & 0xff;
	return BPF_CORE_READ(p, signal, live.counter) == 0;
}

/* The same for the classic tracepoint, from its record. */
static __always_inline bool exit_group_dead_tp(struct task_struct *p, void *ctx)
{
	struct trace_event_raw_sched_process_exit___gd *rec = ctx;

	if (bpf_core_field_exists(rec->group_dead))
		return rec->group_dead;
	return BPF_CORE_READ(p, signal, live.counter) == 0;
}

/*
 * Kernel 5.14 (commit 64d608db38ff "tty: cumulate and document tty_struct::ctrl*
 * members") moved the foreground group and session of a tty into tty->ctrl.
 */
struct tty_struct___old_ctrl {
	struct pid *pgrp;
	struct pid *session;
} __attribute__((preserve_access_index));

static __always_inline struct pid *tty_fg_pgrp(struct tty_struct *tty)
{
	struct tty_struct___old_ctrl *o = (void *)tty;

	if (bpf_core_field_exists(tty->ctrl))
		return BPF_CORE_READ(tty, ctrl.pgrp);
	return BPF_CORE_READ(o, pgrp);
}

/*
 * enum pid_type has kept PIDTYPE_PID 0, PIDTYPE_TGID 1, PIDTYPE_PGID 2,
 * PIDTYPE_SID 3 since 4.19 (commit 6883f81aac6f "pid: Implement PIDTYPE_TGID");
 * read the values through CO-RE anyway so a renumbering cannot go unnoticed.
 */
static __always_inline int pidtype_pgid(void)
{
	return bpf_core_enum_value(enum pid_type, PIDTYPE_PGID);
}

static __always_inline int pidtype_sid(void)
{
	return bpf_core_enum_value(enum pid_type, PIDTYPE_SID);
}

static __always_inline int pidtype_tgid(void)
{
	return bpf_core_enum_value(enum pid_type, PIDTYPE_TGID);
}

/*
 * The audit fields exist only with CONFIG_AUDITSYSCALL; without it the
 * process has no login uid and user space shows null.
 */
static __always_inline bool task_audit(struct task_struct *t, __u32 *auid, __u32 *ses)
{
	if (!bpf_core_field_exists(t->loginuid))
		return false;
	*auid = BPF_CORE_READ(t, loginuid.val);
	*ses = BPF_CORE_READ(t, sessionid);
	return true;
}

/*
 * A kthread's struct kthread: task->worker_private from 5.17 ("kthread:
 * Generalize pf_io_worker so it can point to struct kthread"); before, the
 * kernel kept it in the unused set_child_tid of a kernel thread.
 */
static __always_inline struct kthread *task_kthread(struct task_struct *t)
{
	if (bpf_core_field_exists(t->worker_private))
		return BPF_CORE_READ(t, worker_private);
	return (struct kthread *)BPF_CORE_READ(t, set_child_tid);
}

#endif /* __CORE_FIXES_BPF_H */
