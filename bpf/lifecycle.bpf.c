// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Process lifecycle: fork, exec and the exit of a whole process.
 *
 * Each hook exists twice: a tp_btf program (typed, trusted arguments) and a
 * raw_tp twin for kernels where tp_btf does not attach. User space enables
 * one set with bpf_program__set_autoload() after probing.
 */
#include "common.bpf.h"

/* sched_process_exit gained its group_dead argument in 2025; set from BTF. */
const volatile bool exit_has_group_dead = false;

/*
 * Testing aid (PGRPTRACE_TEST_FAULT): make the exec programs fail the
 * verifier, so that the load-failure and fallback paths run on a kernel
 * where everything loads. Pruned as dead code when false.
 */
const volatile bool test_fault_exec = false;

static __always_inline int handle_fork(struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = BPF_CORE_READ(parent, tgid);
	__u32 ctgid = BPF_CORE_READ(child, tgid);
	__u32 rtgid;
	struct pgt_fork *e;
	__u8 one = 1;

	/* Threads share the process's groups: count them, report nothing. */
	if (BPF_CORE_READ(child, pid) != ctgid) {
		stat_inc(PGT_STAT_THREADS);
		return 0;
	}
	if (ptgid == self_tgid)
		return 0;
	if (filter_enabled) {
		/* With CLONE_PARENT the new process is a sibling of the caller. */
		rtgid = BPF_CORE_READ(child, real_parent, tgid);
		if (!bpf_map_lookup_elem(&traced, &ptgid) && !bpf_map_lookup_elem(&traced, &rtgid))
			return 0;
		bpf_map_update_elem(&traced, &ctgid, &one, BPF_ANY);
	}
	e = pgt_reserve(PGT_FORK, sizeof(*e));
	if (!e)
		return 0;
	fill_proc(&e->proc, parent);
	fill_proc(&e->child, child);
	pgt_submit(e);
	return 0;
}

static __always_inline int handle_exec(struct task_struct *p, pid_t old_pid,
				       struct linux_binprm *bprm)
{
	struct pgt_exec *e;

	if (test_fault_exec)
		return *(volatile int *)(long)old_pid;	/* rejected: scalar as pointer */
	if (!tgid_wanted(BPF_CORE_READ(p, tgid)))
		return 0;
	e = pgt_reserve(PGT_EXEC, sizeof(*e));
	if (!e)
		return 0;
	fill_proc(&e->proc, p);
	e->old_tid = old_pid;
	bpf_probe_read_kernel_str(e->filename, sizeof(e->filename), BPF_CORE_READ(bprm, filename));
	pgt_submit(e);
	return 0;
}

/*
 * A process ends when its last thread does, which need not be the leader.
 * The status is the one wait(2) will report: the group exit code after
 * exit_group() or a fatal signal, else the leader's own exit code
 * (wait_task_zombie()).
 */
static __always_inline int handle_exit(struct task_struct *p, bool group_dead)
{
	struct signal_struct *sig = BPF_CORE_READ(p, signal);
	__u32 tgid = BPF_CORE_READ(p, tgid);
	struct pgt_exit *e;

	if (!group_dead)
		return 0;
	if (!tgid_wanted(tgid))
		return 0;
	e = pgt_reserve(PGT_EXIT, sizeof(*e));
	if (!e)
		goto out;
	fill_proc(&e->proc, p);
	if (BPF_CORE_READ(sig, flags) & SIGNAL_GROUP_EXIT)
		e->status = BPF_CORE_READ(sig, group_exit_code);
	else
		e->status = BPF_CORE_READ(p, group_leader, exit_code);
	e->nr_threads = BPF_CORE_READ(sig, nr_threads);
	pgt_submit(e);
out:
	if (filter_enabled)
		bpf_map_delete_elem(&traced, &tgid);
	return 0;
}

/*
 * Before the group_dead argument, do_exit() had already decremented
 * signal->live when the tracepoint fired; zero means this is the last thread.
 */
static __always_inline bool group_dead_of(struct task_struct *p, unsigned long long *ctx)
{
	if (exit_has_group_dead)
		return ctx[1] & 0xff;
	return BPF_CORE_READ(p, signal, live.counter) == 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(sched_process_fork, struct task_struct *parent, struct task_struct *child)
{
	return handle_fork(parent, child);
}

SEC("raw_tp/sched_process_fork")
int BPF_PROG(sched_process_fork_raw, struct task_struct *parent, struct task_struct *child)
{
	return handle_fork(parent, child);
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(sched_process_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	return handle_exec(p, old_pid, bprm);
}

SEC("raw_tp/sched_process_exec")
int BPF_PROG(sched_process_exec_raw, struct task_struct *p, pid_t old_pid,
	     struct linux_binprm *bprm)
{
	return handle_exec(p, old_pid, bprm);
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(sched_process_exit, struct task_struct *p)
{
	return handle_exit(p, group_dead_of(p, ctx));
}

SEC("raw_tp/sched_process_exit")
int BPF_PROG(sched_process_exit_raw, struct task_struct *p)
{
	return handle_exit(p, group_dead_of(p, ctx));
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
