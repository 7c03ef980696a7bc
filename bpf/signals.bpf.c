// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Signal generation, one record per cause rather than per recipient.
 *
 * Inside a signal syscall (kill and friends) or a signalling ioctl, the
 * recipients are gathered in a per-thread accumulator and sent as one record
 * at the syscall's exit: a kill(-pgid) to four processes is one record, not
 * four. Outside a syscall (the tty's ^C in a kworker, an exiting session
 * leader, a hangup), the cause is worked out from the context, and records
 * of one cause share a group_id that user space merges.
 */
#include "common.bpf.h"

#include "sigacc.bpf.h"

/*
 * What a kworker's current work function is, by address: its name comes from
 * bpf_snprintf("%ps") the first time it is seen. No __ksym extern: resolving
 * one makes libbpf read all of /proc/kallsyms at load, half of the start-up
 * time.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 256);
	__type(key, __u64);
	__type(value, __u32);
} work_funcs SEC(".maps");

/* The current non-syscall cause of a thread, to share its group_id. */
struct siggrp {
	__u64 id;
	__u64 ts;
	__u32 sig;
	__u32 cause;
	__s32 last;   /* the last recipient's tgid */
	__s32 target; /* the group or session it was aimed at */
	__s32 first;  /* the first recipient's tgid */
	__u32 seen;   /* recipients so far */
	__u32 expect; /* recipients the kernel's loop reaches, 0 if unknown */
	__u32 sent;   /* a record of it went out */
};

/* The longest process group whose kill_pgrp() is counted ahead. */
#define PGRP_COUNT_MAX 256

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct siggrp);
} siggrp SEC(".maps");

/*
 * The number a kill-family call names, where it is a host number: in the
 * initial pid namespace it is one. Elsewhere (0) the target is taken from
 * the first recipient, and a call that reached none (ESRCH, EPERM) leaves
 * it unknown, which user space prints as null.
 */
static __always_inline __s32 host_number(__s32 nr)
{
	struct task_struct *cur = (struct task_struct *)bpf_get_current_task();

	return nr > 0 && BPF_CORE_READ(cur, thread_pid, level) == 0 ? nr : 0;
}

static __always_inline __u32 kill_scope(__s32 pid, __s32 *target)
{
	struct task_struct *cur = (struct task_struct *)bpf_get_current_task();

	if (pid > 0) {
		*target = host_number(pid);
		return PGT_SCOPE_PROCESS;
	}
	if (pid == -1) {
		*target = -1;
		return PGT_SCOPE_ALL;
	}
	if (pid == 0)
		*target = pid_nr0(BPF_CORE_READ(cur, signal, pids[pidtype_pgid()]));
	else
		*target = pid == -2147483647 - 1 ? 0 : host_number(-pid);
	return PGT_SCOPE_GROUP;
}

/*
 * The kill family's entries; each exit is acc_end(ret). The tracepoints
 * below, or fentry/fexit on the syscall functions at the fentry level
 * (fentry.bpf.c).
 */
static __always_inline int kill_enter(__s32 pid, __u32 sig)
{
	__s32 target;
	__u32 scope = kill_scope(pid, &target);

	if (signal_mode && sig)
		acc_start(PGT_CAUSE_KILL, scope, target, sig);
	return 0;
}

static __always_inline int tkill_enter(__u32 sig)
{
	if (signal_mode && sig)
		acc_start(PGT_CAUSE_KILL, PGT_SCOPE_THREAD, 0, sig);
	return 0;
}

static __always_inline int tgkill_enter(__s32 tgid, __u32 sig)
{
	if (signal_mode && sig)
		acc_start(PGT_CAUSE_KILL, PGT_SCOPE_THREAD, host_number(tgid), sig);
	return 0;
}

static __always_inline int sigqueueinfo_enter(__s32 pid, __u32 sig)
{
	if (signal_mode && sig)
		acc_start(PGT_CAUSE_KILL, PGT_SCOPE_PROCESS, host_number(pid), sig);
	return 0;
}

/* A pidfd names no number: the target comes from the first recipient. */
static __always_inline int pidfd_send_signal_enter(__u32 sig)
{
	if (signal_mode && sig)
		acc_start(PGT_CAUSE_KILL, PGT_SCOPE_PROCESS, 0, sig);
	return 0;
}

SEC("tp/syscalls/sys_enter_kill")
int sys_enter_kill(struct trace_event_raw_sys_enter *ctx)
{
	return kill_enter((__s32)ctx->args[0], (__u32)ctx->args[1]);
}

SEC("tp/syscalls/sys_exit_kill")
int sys_exit_kill(struct trace_event_raw_sys_exit *ctx)
{
	return acc_end(ctx->ret);
}

SEC("tp/syscalls/sys_enter_tkill")
int sys_enter_tkill(struct trace_event_raw_sys_enter *ctx)
{
	return tkill_enter((__u32)ctx->args[1]);
}

SEC("tp/syscalls/sys_exit_tkill")
int sys_exit_tkill(struct trace_event_raw_sys_exit *ctx)
{
	return acc_end(ctx->ret);
}

SEC("tp/syscalls/sys_enter_tgkill")
int sys_enter_tgkill(struct trace_event_raw_sys_enter *ctx)
{
	return tgkill_enter((__s32)ctx->args[0], (__u32)ctx->args[2]);
}

SEC("tp/syscalls/sys_exit_tgkill")
int sys_exit_tgkill(struct trace_event_raw_sys_exit *ctx)
{
	return acc_end(ctx->ret);
}

SEC("tp/syscalls/sys_enter_rt_sigqueueinfo")
int sys_enter_rt_sigqueueinfo(struct trace_event_raw_sys_enter *ctx)
{
	return sigqueueinfo_enter((__s32)ctx->args[0], (__u32)ctx->args[1]);
}

SEC("tp/syscalls/sys_exit_rt_sigqueueinfo")
int sys_exit_rt_sigqueueinfo(struct trace_event_raw_sys_exit *ctx)
{
	return acc_end(ctx->ret);
}

SEC("tp/syscalls/sys_enter_pidfd_send_signal")
int sys_enter_pidfd_send_signal(struct trace_event_raw_sys_enter *ctx)
{
	return pidfd_send_signal_enter((__u32)ctx->args[1]);
}

SEC("tp/syscalls/sys_exit_pidfd_send_signal")
int sys_exit_pidfd_send_signal(struct trace_event_raw_sys_exit *ctx)
{
	return acc_end(ctx->ret);
}

/* ---- outside a syscall: the context says why ---- */

const volatile bool have_snprintf = true;

/* PGT_CAUSE_TTY for flush_to_ldisc, PGT_CAUSE_HANGUP for do_tty_hangup, else 0. */
static __always_inline __u32 work_kind(void *func)
{
	static const char fmt[] = "%ps";
	static const char flush[] = "flush_to_ldisc";
	static const char hangup[] = "do_tty_hangup";
	__u64 key = (__u64)func, args[1] = { key };
	__u32 kind = 0, *known;
	char name[32];

	known = bpf_map_lookup_elem(&work_funcs, &key);
	if (known)
		return *known;
	/* Before 5.13 the loader fills work_funcs from /proc/kallsyms instead. */
	if (!have_snprintf)
		return 0;
	if (bpf_snprintf(name, sizeof(name), fmt, args, sizeof(args)) < 0)
		return 0;
	if (!bpf_strncmp(name, sizeof(flush), flush))
		kind = PGT_CAUSE_TTY;
	else if (!bpf_strncmp(name, sizeof(hangup), hangup))
		kind = PGT_CAUSE_HANGUP;
	bpf_map_update_elem(&work_funcs, &key, &kind, BPF_ANY);
	return kind;
}

/* The tty whose buffer a kworker is flushing (flush_to_ldisc), or NULL. */
static __always_inline struct tty_struct *kworker_tty(struct task_struct *cur, __u32 *cause)
{
	struct kthread *kt = task_kthread(cur);
	struct worker *w = kt ? BPF_CORE_READ(kt, data) : NULL;
	struct work_struct *work;
	struct tty_port *port;
	__u32 kind;
	void *func;

	if (!w)
		return NULL;
	func = BPF_CORE_READ(w, current_func);
	kind = work_kind(func);
	if (kind == PGT_CAUSE_TTY) {
		*cause = PGT_CAUSE_TTY;
		work = BPF_CORE_READ(w, current_work);
		port = (void *)work - bpf_core_field_offset(struct tty_port, buf.work);
		return BPF_CORE_READ(port, itty);
	}
	if (kind == PGT_CAUSE_HANGUP)
		*cause = PGT_CAUSE_HANGUP;
	return NULL;
}

/*
 * What the kernel's own signal to one process is, outside the kill family
 * (whose signals never get here): a write with no reader's SIGPIPE, a
 * fault's or seccomp's signal (si_code > 0: the kernel's own codes), a
 * resource limit's, cgroup.kill's SIGKILL (__cgroup_kill() sends it with
 * send_sig(SIGKILL, task, 0): SI_USER, from the writer, where the kernel's
 * other SIGKILLs say SI_KERNEL). The OOM killer's SIGKILL is told by
 * mark_victim, after it.
 */
static __always_inline __u32 kernel_cause(struct task_struct *cur, struct task_struct *t, int sig,
					  int code)
{
	bool self = BPF_CORE_READ(cur, tgid) == BPF_CORE_READ(t, tgid);

	switch (sig) {
	case SIGPIPE:
		return self && code == SI_USER ? PGT_CAUSE_BROKEN_PIPE : PGT_CAUSE_KERNEL;
	case SIGSEGV:
	case SIGBUS:
	case SIGILL:
	case SIGFPE:
	case SIGTRAP:
	case SIGSYS:
		return code > 0 ? PGT_CAUSE_FAULT : PGT_CAUSE_KERNEL;
	case SIGXCPU:
	case SIGXFSZ:
		return PGT_CAUSE_RLIMIT;
	case SIGKILL:
		return code == SI_USER && !(BPF_CORE_READ(cur, flags) & PF_KTHREAD) ?
			       PGT_CAUSE_CGROUP_KILL :
			       PGT_CAUSE_KERNEL;
	}
	return PGT_CAUSE_KERNEL;
}

static __always_inline void classify(struct task_struct *current_task, struct task_struct *task,
				     int sig, int code, __u32 *cause, __u32 *scope, __s32 *target,
				     struct tty_struct **tty)
{
	struct task_struct *cur = current_task;
	struct task_struct *t = task;
	struct signal_struct *tsig = BPF_CORE_READ(t, signal);
	struct signal_struct *csig = BPF_CORE_READ(cur, signal);
	unsigned int flags = BPF_CORE_READ(cur, flags);
	struct pid *tpgrp = BPF_CORE_READ(tsig, pids[pidtype_pgid()]);
	bool exiting;

	*cause = PGT_CAUSE_KERNEL;
	*scope = PGT_SCOPE_GROUP;
	*target = pid_nr0(tpgrp);
	*tty = NULL;
	if (flags & PF_WQ_WORKER) {
		__u32 work = PGT_CAUSE_KERNEL;
		struct tty_struct *wtty = kworker_tty(cur, &work);

		/*
		 * The worker's tty sent it only on the path that sends it:
		 * n_tty's isig() sends ^C ^\ ^Z to the tty's foreground group,
		 * a hangup SIGHUP and SIGCONT. Anything else generated while
		 * the worker runs (a timer's SIGALRM, from an interrupt) is
		 * classified as if no worker ran.
		 */
		if (work == PGT_CAUSE_TTY && wtty &&
		    (sig == SIGINT || sig == SIGQUIT || sig == SIGTSTP) &&
		    (void *)tpgrp == (void *)tty_fg_pgrp(wtty)) {
			*cause = PGT_CAUSE_TTY;
			*tty = wtty;
			return;
		}
		if (work == PGT_CAUSE_HANGUP && (sig == SIGHUP || sig == SIGCONT)) {
			*cause = PGT_CAUSE_HANGUP;
			return;
		}
	}
	exiting = (flags & PF_EXITING) && !BPF_CORE_READ(cur, exit_state);
	if (exiting && (sig == SIGHUP || sig == SIGCONT) && BPF_CORE_READ(csig, leader)) {
		/*
		 * disassociate_ctty(1): SIGHUP to the tty's foreground group, or
		 * SIGHUP+SIGCONT to tty_old_pgrp after a hangup (cleared first).
		 */
		*cause = PGT_CAUSE_LEADER_EXIT;
		*tty = BPF_CORE_READ(csig, tty);
		return;
	}
	if ((sig == SIGHUP || sig == SIGCONT) && code == SI_KERNEL && BPF_CORE_READ(tsig, leader) &&
	    !BPF_CORE_READ(tsig, tty)) {
		/* tty_signal_session_leader(): the tty is already gone. */
		*cause = PGT_CAUSE_HANGUP;
		*scope = PGT_SCOPE_SESSION;
		*target = pid_nr0(BPF_CORE_READ(tsig, pids[pidtype_sid()]));
		return;
	}
	if (SIGCHLD_FROM_CHILD(sig, code)) {
		*cause = PGT_CAUSE_CHILD;
		*scope = PGT_SCOPE_PROCESS;
		*target = BPF_CORE_READ(t, tgid);
		return;
	}
	if (exiting) {
		/* kill_orphaned_pgrp() from exit_notify() of a non-leader. */
		if ((sig == SIGHUP || sig == SIGCONT) && code == SI_KERNEL) {
			*cause = PGT_CAUSE_ORPHANED;
			return;
		}
		if (BPF_CORE_READ(t, pdeath_signal) == sig) {
			*cause = PGT_CAUSE_PARENT_DEATH;
			*scope = PGT_SCOPE_PROCESS;
			*target = BPF_CORE_READ(t, tgid);
			return;
		}
	}
	if (sig == SIGTTIN || sig == SIGTTOU) {
		*cause = PGT_CAUSE_JOB_CONTROL;
		return;
	}
	if (sig == SIGWINCH) {
		*cause = PGT_CAUSE_RESIZE;
		return;
	}
	*scope = PGT_SCOPE_PROCESS;
	*target = BPF_CORE_READ(t, tgid);
	*cause = kernel_cause(cur, t, sig, code);
}

/* A count of a group's pid list: the next entry, and entries so far. */
struct pgrp_count {
	__u64 node;
	__u32 n;
};

static long pgrp_step(__u64 i, void *data)
{
	struct pgrp_count *c = data;
	struct hlist_node *node = (struct hlist_node *)(long)c->node;

	if (!node)
		return 1;
	c->node = (__u64)(long)BPF_CORE_READ(node, next);
	c->n++;
	return 0;
}

static __always_inline void pgrp_count_start(struct pgrp_count *c, __u64 pgrp_ptr)
{
	struct pid *pgrp = (struct pid *)(long)pgrp_ptr;

	c->node = (__u64)(long)BPF_CORE_READ(pgrp, tasks[pidtype_pgid()].first);
	c->n = 0;
}

/*
 * How many processes a kill_pgrp() of @t's group reaches: one signal per
 * process on the group's pid list, which cannot change while the kernel
 * loops (it holds tasklist_lock). 0 past PGRP_COUNT_MAX. Without bpf_loop(),
 * a global function whose bounded loop the verifier walks step by step
 * (2.8k instructions); with it, the step once.
 */
__noinline __u32 pgrp_size_of(__u64 pgrp_ptr)
{
	struct pgrp_count c;
	__u32 i;

	pgrp_count_start(&c, pgrp_ptr);
	for (i = 0; i < PGRP_COUNT_MAX; i++)
		if (pgrp_step(i, &c))
			break;
	return c.node ? 0 : c.n;
}

static __always_inline __u32 pgrp_size(struct task_struct *t, bool loop)
{
	__u64 pgrp = (__u64)(long)BPF_CORE_READ(t, signal, pids[pidtype_pgid()]);
	struct pgrp_count c;

	if (!loop)
		return pgrp_size_of(pgrp);
	pgrp_count_start(&c, pgrp);
	bpf_loop(PGRP_COUNT_MAX, pgrp_step, &c, 0);
	return c.node ? 0 : c.n;
}

/*
 * The causes outside an exit whose records come from one kill_pgrp() of the
 * recipient's group: a tty's ^C, ^\ and ^Z, and SIGTTIN/SIGTTOU to a background
 * group. An exiting task's loops (an orphaned group's SIGHUP, a leader's
 * tty) are not counted: they are kept together by their target, and one
 * kernel build sends an orphaned group's SIGHUP to its stopped members only
 * (docs/events.md), which a count would wait for in vain.
 */
static __always_inline bool pgrp_loop(__u32 cause, __u32 scope)
{
	return scope == PGT_SCOPE_GROUP &&
	       (cause == PGT_CAUSE_TTY || cause == PGT_CAUSE_JOB_CONTROL);
}

/*
 * Whether the signal to @rtgid continues @g's operation rather than starting
 * a new one. One kernel operation that reaches several processes (a tty's ^C
 * to its foreground group, an orphaned group's SIGHUP) generates one signal
 * per process, back to back on this task. A signal aimed at one process, or
 * a second one to the same recipient, is a new operation however soon it
 * comes (a 1 kHz timer's SIGALRMs, interrupts landing on the same task).
 *
 * A group's loop is counted at its first signal, and lasts until that many
 * have come: a pause between two recipients does not end it, so a vCPU that
 * the host deschedules mid-loop (common under qemu's TCG) does not split it;
 * only a pause of a second does (as user space gives up on it). It ends
 * early at a repeat of its first recipient: the kernel walks the group's list in the
 * same order each time, so that is the next operation, after a recipient
 * this program did not see.
 *
 * Otherwise back to back means within 1 ms, except in a task's own exit: it
 * exits once, and the loop may stall longer.
 */
static __always_inline bool same_operation(const struct siggrp *g, struct task_struct *cur, int sig,
					   __u32 cause, __u32 scope, __s32 target, __s32 rtgid,
					   __u64 now)
{
	if (!g || g->sig != (__u32)sig || g->cause != cause || scope == PGT_SCOPE_PROCESS ||
	    g->last == rtgid)
		return false;
	/* Within a second: a loop that lost a recipient does not swallow the next. */
	if (g->expect)
		return g->target == target && g->seen < g->expect && g->first != rtgid &&
		       now - g->ts <= 1000000000;
	return now - g->ts <= 1000000 ||
	       ((BPF_CORE_READ(cur, flags) & PF_EXITING) && g->target == target);
}

static __always_inline int handle_signal(int sig, int code, struct task_struct *t, int result,
					 bool loop)
{
	struct task_struct *cur = (struct task_struct *)bpf_get_current_task();
	__u32 tid = cur_tid(), cause, scope;
	struct tty_struct *tty;
	struct pgt_signal *e;
	struct sigacc *a;
	struct siggrp *g, ng = {};
	__s32 target, rtgid;
	bool fatal, final, wanted;
	__u64 now;

	if (!signal_mode)
		return 0;
	/*
	 * The commonest signal: a child's SIGCHLD to its parent, from the
	 * kernel in the child's exit or stop, never inside a signalling
	 * syscall. classify() makes it PGT_CAUSE_CHILD, one process, never
	 * fatal: only --signals=all reports it.
	 */
	if (signal_mode == 1 && SIGCHLD_FROM_CHILD(sig, code))
		return 0;
	/*
	 * Inside a signalling syscall, a signal it sends is part of its
	 * record; another (a timer's, from an interrupt that landed on this
	 * task) is classified on its own below.
	 */
	a = sigacc_of_current(0);
	if (a && a->open && (a->sigs & SIGBIT(sig))) {
		acc_add(a, t, sig, result, code);
		return 0;
	}

	classify(cur, t, sig, code, &cause, &scope, &target, &tty);
	fatal = is_fatal(t, sig, result);
	rtgid = BPF_CORE_READ(t, tgid);
	if (!wanted_by_mode(scope, fatal ? PGT_SIG_FATAL : 0))
		return 0;
	/*
	 * The operation is followed even through signals not reported, so
	 * that its count stays right.
	 */
	now = bpf_ktime_get_boot_ns();
	if (scope == PGT_SCOPE_PROCESS) {
		/* Never part of an operation: the one in flight keeps its entry. */
		ng.id = pgt_next(&sig_group_next);
		g = &ng;
	} else {
		g = bpf_map_lookup_elem(&siggrp, &tid);
		if (!same_operation(g, cur, sig, cause, scope, target, rtgid, now)) {
			ng.id = pgt_next(&sig_group_next);
			ng.sig = sig;
			ng.cause = cause;
			ng.target = target;
			ng.first = rtgid;
			ng.expect = pgrp_loop(cause, scope) ? pgrp_size(t, loop) : 0;
			bpf_map_update_elem(&siggrp, &tid, &ng, BPF_ANY);
			g = bpf_map_lookup_elem(&siggrp, &tid);
			if (!g)
				return 0;
		}
		/* Checked before the branches join: not arithmetic on a maybe-NULL. */
		barrier_var(g);
	}
	if (fatal && tgid_wanted(rtgid)) {
		struct death_src src = { .group_id = g->id, .cause = cause, .code = code };

		if (tty)
			read_tty(tty, &src.tty_nr, src.tty);
		note_death(t, sig, &src);
	}
	g->ts = now;
	g->last = rtgid;
	g->seen++;
	final = g->expect && g->seen == g->expect;
	wanted = tgid_wanted(BPF_CORE_READ(cur, tgid)) || tgid_wanted(rtgid);
	/*
	 * The last of a counted operation whose earlier records went out
	 * ends it even when this recipient is not reported (pgrptrace
	 * itself, in the foreground group it runs a command in): a record
	 * without recipients.
	 */
	if (!wanted && !(final && g->sent))
		return 0;
	e = pgt_reserve(PGT_SIGNAL, PGT_SIGNAL_SIZE(1));
	if (!e)
		return 0;
	g->sent = 1;
	fill_proc(&e->proc, cur);
	e->group_id = g->id;
	e->sig = sig;
	e->scope = scope;
	e->cause = cause;
	e->target = target;
	e->code = code;
	e->expect = g->expect;
	if (final)
		e->flags |= PGT_SIG_FINAL;
	if (wanted) {
		e->nr = 1;
		if (fatal)
			e->flags |= PGT_SIG_FATAL;
		add_rcpt(e, 0, t, result);
	}
	if (tty)
		read_tty(tty, &e->tty_nr, e->tty);
	pgt_submit(e);
	return 0;
}

/*
 * The OOM killer chose a victim and has just sent it SIGKILL (from
 * __oom_kill_process(), in the task whose allocation failed): its death is
 * the OOM's. The classic tracepoint on every level: its record has had the pid
 * since 4.7, where the raw arguments changed in 6.8.
 */
SEC("tp/oom/mark_victim")
int mark_victim(struct trace_event_raw_mark_victim *ctx)
{
	struct death_key k = { .tgid = ctx->pid, .sig = SIGKILL };
	struct death *d = bpf_map_lookup_elem(&deaths, &k);
	__u64 memcg;

	if (!d || d->d.cause != PGT_CAUSE_KERNEL)
		return 0;
	d->d.cause = PGT_CAUSE_OOM;
	/*
	 * The OOM killer runs in the task whose charge failed: a memory
	 * cgroup's OOM is of the nearest cgroup of that task at its limit,
	 * an ancestor of the victim's too.
	 */
	memcg = memcg_at_limit((struct task_struct *)bpf_get_current_task());
	d->d.flags |= (__u32)memcg;
	d->d.memcg_level = memcg >> 32;
	return 0;
}

/* SEND_SIG_NOINFO (0) is SI_USER, SEND_SIG_PRIV (1) SI_KERNEL. */
static __always_inline int si_code_of(struct kernel_siginfo *info)
{
	if ((unsigned long)info <= 1)
		return (unsigned long)info ? SI_KERNEL : 0;
	return BPF_CORE_READ(info, si_code);
}

SEC("tp_btf/signal_generate")
int BPF_PROG(signal_generate, int sig, struct kernel_siginfo *info, struct task_struct *t,
	     int group, int result)
{
	return handle_signal(sig, si_code_of(info), t, result, true);
}

SEC("tp_btf/signal_generate")
int BPF_PROG(signal_generate_noloop, int sig, struct kernel_siginfo *info, struct task_struct *t,
	     int group, int result)
{
	return handle_signal(sig, si_code_of(info), t, result, false);
}

SEC("raw_tp/signal_generate")
int BPF_PROG(signal_generate_raw, int sig, struct kernel_siginfo *info, struct task_struct *t,
	     int group, int result)
{
	return handle_signal(sig, si_code_of(info), t, result, true);
}

SEC("raw_tp/signal_generate")
int BPF_PROG(signal_generate_raw_noloop, int sig, struct kernel_siginfo *info,
	     struct task_struct *t, int group, int result)
{
	return handle_signal(sig, si_code_of(info), t, result, false);
}

#ifndef PGT_NO_KFUNCS
/* Classic tracepoint: the recipient is found by its pid. */
static __always_inline int signal_generate_of(struct trace_event_raw_signal_generate *ctx,
					      bool loop)
{
	struct task_struct *t = bpf_task_from_pid(ctx->pid);

	if (!t)
		return 0;
	handle_signal(ctx->sig, ctx->code, t, ctx->result, loop);
	bpf_task_release(t);
	return 0;
}

SEC("tp/signal/signal_generate")
int signal_generate_tp(struct trace_event_raw_signal_generate *ctx)
{
	return signal_generate_of(ctx, true);
}

SEC("tp/signal/signal_generate")
int signal_generate_tp_noloop(struct trace_event_raw_signal_generate *ctx)
{
	return signal_generate_of(ctx, false);
}
#endif /* PGT_NO_KFUNCS */
