/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The per-thread signal accumulator, shared by the signal syscalls
 * (signals.bpf.c) and the signalling ioctls (tty.bpf.c): a cause that runs
 * inside one syscall becomes one record, written at the syscall's exit.
 */
#ifndef __SIGACC_BPF_H
#define __SIGACC_BPF_H

#include "common.bpf.h"

/* Bit N-1 of a mask stands for signal N (1..64); 0 for anything else. */
#define SIGBIT(n) ((n) >= 1 && (n) <= 64 ? 1ULL << ((n)-1) : 0)

/* A SIGCHLD from a child's exit, stop or continue (not from kill()). */
#define SIGCHLD_FROM_CHILD(sig, code) \
	((sig) == SIGCHLD && (code) >= CLD_EXITED && (code) <= CLD_CONTINUED)

/* What to report: 0 none, 1 group (wider than a process, or fatal), 2 all. */
const volatile __u32 signal_mode = 1;

/* The next group_id of a signal cause. */
__u64 sig_group_next = 1;

/*
 * The cause in flight on a thread: a signal syscall or ioctl. Task storage,
 * not a hash keyed by tid: it is allocated at a thread's first signal (about
 * 1 us), and each later syscall writes a few fields in place instead of
 * copying a whole record into a map and deleting it at exit. Senders are
 * mostly long-lived (shells, supervisors); setsid and setpgid, mostly called
 * once by a new child, use the hash (inflight) instead.
 */
struct sigacc {
	struct pgt_signal rec; /* the record being gathered */
	__u64 sigs;	       /* the signals this syscall sends (SIGBIT) */
	bool open;	       /* between the syscall's entry and exit */
	bool wanted;	       /* someone involved is traced */
	bool sender;	       /* rec.proc is filled */
	bool flushed;	       /* a record of the cause went out before the syscall's exit */
};

/*
 * Task storage for tracing programs came in 5.11. Before it the loader makes
 * this map an LRU hash keyed by thread id (have_task_storage false), and an
 * entry lives from the syscall's entry to its exit (sigacc_done()).
 */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct sigacc);
} sigacc SEC(".maps");

const volatile bool have_task_storage = true;
static const struct sigacc sigacc_zero;

static __always_inline struct sigacc *sigacc_of_current(__u64 flags)
{
	struct sigacc *a;
	int tid;

	if (have_task_storage)
		return bpf_task_storage_get(&sigacc, bpf_get_current_task_btf(), 0, flags);
	tid = cur_tid();
	a = bpf_map_lookup_elem(&sigacc, &tid);
	if (a || !(flags & BPF_LOCAL_STORAGE_GET_F_CREATE))
		return a;
	bpf_map_update_elem(&sigacc, &tid, &sigacc_zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(&sigacc, &tid);
}

/* The syscall is over: a hash entry goes (task storage stays for the next). */
static __always_inline void sigacc_done(void)
{
	int tid;

	if (have_task_storage)
		return;
	tid = cur_tid();
	bpf_map_delete_elem(&sigacc, &tid);
}

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
	return handler == NULL; /* SIG_DFL */
}

/*
 * The first fatal delivery of each signal to each process, until the
 * process exits: its exit record says which generation its death came from
 * (handle_exit()). A later one of the same signal is "already pending" or
 * "ignored" (the process is dying), so the first is the one. An LRU: an
 * entry of a signal that did not kill (blocked, then ignored) ages out; the
 * start time tells a reused pid apart.
 */
struct death_key {
	__u32 tgid;
	__u32 sig;
};

struct death {
	__u64 start_ns; /* the recipient's identity */
	struct pgt_death d;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 8192);
	__type(key, struct death_key);
	__type(value, struct death);
} deaths SEC(".maps");

/*
 * The memory cgroup of @t, or an ancestor, that is at its memory.max now
 * (usage within a huge page of it): its depth in the high half, with
 * PGT_DEATH_MEMCG (and _V2 in the unified hierarchy); 0 for none.
 */
#define MEMCG_DEPTH_MAX 8
#define MEMCG_SLACK	512 /* pages: the largest charge that fails */

static __always_inline __u64 memcg_at_limit(struct task_struct *t)
{
	int id = bpf_core_enum_value(enum cgroup_subsys_id, memory_cgrp_id);
	struct cgroup_subsys_state *css = NULL;
	struct css_set *cs = BPF_CORE_READ(t, cgroups);
	struct mem_cgroup *mc;
	unsigned long max;
	long usage;
	int i;

	if (!bpf_core_enum_value_exists(enum cgroup_subsys_id, memory_cgrp_id))
		return 0;
	bpf_core_read(&css, sizeof(css), &cs->subsys[id & 15]);
	for (i = 0; i < MEMCG_DEPTH_MAX && css; i++) {
		mc = (void *)css - bpf_core_field_offset(struct mem_cgroup, css);
		max = BPF_CORE_READ(mc, memory.max);
		usage = BPF_CORE_READ(mc, memory.usage.counter);
		if (max < (1UL << 40) && usage + MEMCG_SLACK >= max)
			return (__u64)BPF_CORE_READ(css, cgroup, level) << 32 | PGT_DEATH_MEMCG |
			       (BPF_CORE_READ(css, cgroup, root, hierarchy_id) ?
					0 :
					PGT_DEATH_MEMCG_V2);
		css = BPF_CORE_READ(css, parent);
	}
	return 0;
}

/* What generated a fatal signal: note_death()'s source. */
struct death_src {
	__u64 group_id;
	__u32 cause;
	__s32 code;
	__u32 tty_nr;
	char tty[PGT_TTY_LEN];
};

/*
 * A subprogram, not inlined: verified at each call like inlined code, but
 * its paths end at its return, so the caller's states after it are one.
 * Inlined, they stayed apart and more than doubled signal_generate's
 * verification.
 */
static __noinline int note_death(struct task_struct *task, int sig, const struct death_src *src)
{
	struct task_struct *t = task;
	struct task_struct *cur = (struct task_struct *)bpf_get_current_task();
	struct death_key k = { .tgid = BPF_CORE_READ(t, tgid), .sig = sig };
	__u64 start = task_start_boottime(BPF_CORE_READ(t, group_leader));
	struct death *old, d = {};

	old = bpf_map_lookup_elem(&deaths, &k);
	if (old && old->start_ns == start)
		return 0;
	d.start_ns = start;
	d.d.group_id = src->group_id;
	d.d.sender_pid = BPF_CORE_READ(cur, tgid);
	d.d.sender_start = task_start_boottime(BPF_CORE_READ(cur, group_leader));
	d.d.sig = sig;
	d.d.cause = src->cause;
	d.d.code = src->code;
	d.d.tty_nr = src->tty_nr;
	__builtin_memcpy(d.d.tty, src->tty, sizeof(d.d.tty));
	bpf_map_update_elem(&deaths, &k, &d, BPF_ANY);
	return 0;
}

/*
 * Whether @t is already dying: exiting, a fatal signal taking the whole
 * process (complete_signal() sets SIGNAL_GROUP_EXIT when it generates one),
 * a core dump under way, or SIGKILL pending.
 */
static __always_inline bool task_dying(struct task_struct *task)
{
	struct task_struct *t = task;
	struct signal_struct *s = BPF_CORE_READ(t, signal);
	__u64 kill = SIGBIT(SIGKILL);

	if (BPF_CORE_READ(t, flags) & PF_EXITING)
		return true;
	if (BPF_CORE_READ(s, flags) & SIGNAL_GROUP_EXIT)
		return true;
	/* In the mm before 5.16: a core dump's threads are PF_EXITING soon enough. */
	if (bpf_core_field_exists(s->core_state) && BPF_CORE_READ(s, core_state))
		return true;
	return (BPF_CORE_READ(s, shared_pending.signal.sig[0]) & kill) ||
	       (BPF_CORE_READ(t, pending.signal.sig[0]) & kill);
}

static __always_inline bool wanted_by_mode(__u32 scope, __u32 flags)
{
	if (signal_mode == 0)
		return false;
	if (signal_mode == 2)
		return true;
	return (scope != PGT_SCOPE_PROCESS && scope != PGT_SCOPE_THREAD) || (flags & PGT_SIG_FATAL);
}

static __always_inline void add_rcpt(struct pgt_signal *e, __u32 i, struct task_struct *task,
				     int result)
{
	struct task_struct *t = task;

	i &= PGT_SIG_RCPTS - 1;
	e->rcpt[i].pid = BPF_CORE_READ(t, tgid);
	e->rcpt[i].tid = BPF_CORE_READ(t, pid);
	e->rcpt[i].result = result;
	e->rcpt[i].pgid = pid_nr0(BPF_CORE_READ(t, signal, pids[pidtype_pgid()]));
}

/* ---- the syscall path: gather, then one record at exit ---- */

static __always_inline void acc_start(__u32 cause, __u32 scope, __s32 target, __u32 sig)
{
	struct sigacc *a = sigacc_of_current(BPF_LOCAL_STORAGE_GET_F_CREATE);
	struct pgt_signal *e;

	if (!a) {
		/* No memory, or the storage busy in a nested call: counted. */
		stat_inc(PGT_STAT_NO_STATE);
		return;
	}
	e = &a->rec;
	e->group_id = pgt_next(&sig_group_next);
	e->cause = cause;
	e->scope = scope;
	e->target = target;
	e->sig = sig;
	e->nr = 0;
	e->flags = 0;
	e->ret = 0;
	e->code = 0;
	e->tty_nr = 0;
	e->tty[0] = '\0';
	a->wanted = tgid_wanted(cur_tgid());
	a->sender = false;
	a->flushed = false;
	a->sigs = SIGBIT(sig);
	a->open = true;
}

/*
 * The sender, as it is when its first reported signal is generated: read
 * once a record is sure to be due, not at every entry. (Read at the
 * syscall's exit instead, a session leader's TIOCNOTTY would show its tty in
 * the SIGHUP record and none in the SIGCONT one.)
 */
static __always_inline void acc_sender(struct sigacc *a)
{
	struct pgt_signal *e = &a->rec;

	if (a->sender)
		return;
	__builtin_memset(&e->proc, 0, sizeof(e->proc));
	fill_proc(&e->proc, (struct task_struct *)bpf_get_current_task());
	a->sender = true;
}

/*
 * Write the gathered recipients as one record, if the mode wants it: only
 * the slots in use. A subprogram: called from four places, verified as one.
 */
static __noinline int acc_flush(struct sigacc *a, bool final, long ret)
{
	struct pgt_signal *e = &a->rec;
	__u32 n = e->nr;

	if (final) {
		e->flags |= PGT_SIG_FINAL;
		e->ret = ret;
	}
	if (e->sig && a->wanted && wanted_by_mode(e->scope, e->flags)) {
		acc_sender(a); /* a failed call: nothing was generated */
		if (n > PGT_SIG_RCPTS)
			n = PGT_SIG_RCPTS;
		pgt_output(&e->hdr, PGT_SIGNAL, PGT_SIGNAL_SIZE(n));
		a->flushed = true;
	}
	e->nr = 0;
	return 0;
}

static __always_inline void acc_add(struct sigacc *a, struct task_struct *t, int sig, int result,
				    int code)
{
	struct pgt_signal *e = &a->rec;
	__u32 i = e->nr;
	bool fatal;

	if (e->sig && e->sig != (__u32)sig) {
		/* A second signal in the same syscall (TIOCNOTTY: SIGHUP, SIGCONT). */
		acc_flush(a, true, 0);
		e->flags = 0;
		e->group_id = pgt_next(&sig_group_next);
		e->sig = sig;
		a->sender = false;
		a->flushed = false;
		i = 0;
	}
	if (i >= PGT_SIG_RCPTS) {
		acc_flush(a, false, 0);
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
	fatal = is_fatal(t, sig, result);
	if (tgid_wanted(e->rcpt[i & (PGT_SIG_RCPTS - 1)].pid)) {
		a->wanted = true;
		if (fatal) {
			struct death_src src = { .group_id = e->group_id,
						 .cause = e->cause,
						 .code = code,
						 .tty_nr = e->tty_nr };

			__builtin_memcpy(src.tty, e->tty, sizeof(src.tty));
			note_death(t, sig, &src);
		}
	}
	if (fatal)
		e->flags |= PGT_SIG_FATAL;
	e->nr = i + 1;
	if (a->wanted && wanted_by_mode(e->scope, e->flags))
		acc_sender(a);
	/*
	 * A fatal delivery goes out now, not at the syscall's exit: its
	 * recipient's exit names this record, and may come first otherwise
	 * (kill(1) still in the syscall when its victim has died). The
	 * recipient cannot take the signal before this program returns: the
	 * kernel generates it under the siglock that get_signal() needs.
	 */
	if (fatal)
		acc_flush(a, false, 0);
}

static __always_inline int acc_end(long ret)
{
	struct sigacc *a = sigacc_of_current(0);

	if (!a || !a->open)
		return 0;
	/* The end of a cause already written in part: a record without recipients. */
	if (a->rec.nr || ret < 0 || a->flushed)
		acc_flush(a, true, ret);
	a->open = false;
	sigacc_done();
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
		*cause = PGT_CAUSE_JOB_CONTROL; /* SIGTTOU from the background */
		return true;
	}
	return false;
}

/* The signals a tty ioctl sends; @arg is TIOCSIG's signal. */
static __always_inline __u64 ioctl_sigs(__u32 cmd, __u64 arg)
{
	switch (cmd) {
	case TIOCSWINSZ:
		return SIGBIT(SIGWINCH);
	case TIOCNOTTY:
		return SIGBIT(SIGHUP) | SIGBIT(SIGCONT);
	case TIOCSIG:
		return SIGBIT(arg);
	case TIOCSPGRP:
		return SIGBIT(SIGTTOU);
	}
	return 0;
}

/* Called by the tty programs at ioctl entry and exit. */
static __always_inline void sig_ioctl_enter(__u32 cmd, __u64 arg)
{
	struct sigacc *a;
	__u32 cause;

	if (!signal_mode || !ioctl_cause(cmd, &cause))
		return;
	acc_start(cause, PGT_SCOPE_GROUP, 0, 0);
	a = sigacc_of_current(0);
	if (a)
		a->sigs = ioctl_sigs(cmd, arg);
}

static __always_inline void sig_ioctl_exit(long ret)
{
	acc_end(ret);
}

#endif /* __SIGACC_BPF_H */
