/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Maps, load-time settings and helpers shared by every pgrptrace program. */
#ifndef __COMMON_BPF_H
#define __COMMON_BPF_H

#include <vmlinux.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "pgrptrace.h"

/*
 * Kernel structs are read with BPF_CORE_READ() (bpf_probe_read_kernel() per
 * field, which reads 0 where it faults), on every level and every kernel.
 * Plain loads through bpf_rdonly_cast() would be one instruction a field,
 * but that kfunc came in 6.2: Debian 11's 5.10 and Debian 12's 6.1 lack it,
 * and a program calling it does not load there.
 */
#include "core_fixes.bpf.h"
#include "kernel_defs.h"

/*
 * kfuncs: a task by its pid, for the classic tracepoints, whose records
 * carry a pid where the others pass the task. From 6.2; __weak, so that a
 * kernel without them resolves them to 0 instead of failing the whole
 * object, and the loader leaves the programs that call them unloaded
 * (the tracepoint level's signal and cgroup programs; loader.c).
 * Built without them (PGT_NO_KFUNCS), the object loads without the
 * kernel's BTF: the second half of a split load (user/kernel/halves.c).
 */
#ifndef PGT_NO_KFUNCS
extern struct task_struct *bpf_task_from_pid(s32 pid) __ksym __weak;
extern void bpf_task_release(struct task_struct *p) __ksym __weak;
#endif

/* Load-time settings, written by user space before load. */
const volatile __u32 self_tgid = 0;		  /* the tracer: never reported */
const volatile bool filter_enabled = false;	  /* report only "traced" tgids */
const volatile __u64 wakeup_bytes = 0;		  /* wake user space past this; 0: always */
const volatile __u64 wakeup_idle_ns = 0;	  /* ... or when last woken this long ago */
const volatile bool leader_tty_at_fentry = false; /* fentry level: see fentry.bpf.c */

/* The one channel to user space. Sized by user space before load. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 22);
} events SEC(".maps");

/* Failed ring-buffer reserves, per record type. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PGT_TYPE_MAX);
	__type(key, __u32);
	__type(value, __u64);
} drops SEC(".maps");

/* Counters that are not drops: enum pgt_stat. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PGT_STAT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

/*
 * Processes (tgids) to report when filter_enabled: seeded by user space,
 * grown at fork, shrunk at exit. A plain hash, not an LRU: an evicted entry
 * would silently stop tracing a process.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, __u8);
} traced SEC(".maps");

/* State saved at syscall entry, read back at exit. */
struct inflight {
	struct pgt_grp old; /* target's pgid/sid/tty before the call */
	__s32 arg_pid;	    /* setpgid pid, or prctl arg2 */
	__s32 arg_pgid;	    /* setpgid pgid */
	__u32 found;	    /* target resolved at entry */
	__u32 kind;	    /* enum pgt_type of the syscall in flight */
	__u64 tty_ptr;	    /* open/ioctl: the caller's ctty before */
	__u32 cmd;	    /* ioctl command */
	__u32 fg_pgid;	    /* ioctl: the tty's foreground group before */
	__u32 tty_sid;	    /* ioctl: the session that owned the tty before */
	__u32 __pad2;
};

/*
 * Per-thread syscall state, keyed by tid. A plain preallocated hash: setsid
 * and setpgid are mostly called once by a new child, which task storage
 * would allocate for (1.7 us at entry here, against 0.7), and an LRU's
 * bookkeeping cost 0.3 us more a pair. Every entry is deleted at the
 * syscall's exit; one can outlive it only if the tracer attached between
 * the two, a few threads at most.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct inflight);
} inflight SEC(".maps");

static __always_inline __u32 cur_tid(void)
{
	return (__u32)bpf_get_current_pid_tgid();
}

static __always_inline __u32 cur_tgid(void)
{
	return bpf_get_current_pid_tgid() >> 32;
}

/* inflight.kind values besides enum pgt_type */
#define INFLIGHT_OPEN  100
#define INFLIGHT_IOCTL 101

/* The next sequence number; taken before the reserve so a drop leaves a gap. */
__u64 seq_next = 0;

/* When a record last woke user space (boot ns); racy, and need not be exact. */
__u64 last_wakeup_ns = 0;

static __always_inline void stat_inc(__u32 idx)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &idx);

	if (v)
		*v += 1;
}

/* At a syscall's entry: @st is now the calling thread's state. */
static __always_inline void inflight_put(const struct inflight *st)
{
	__u32 tid = cur_tid();

	if (bpf_map_update_elem(&inflight, &tid, st, BPF_ANY))
		stat_inc(PGT_STAT_NO_STATE); /* full: user space re-reads the machine */
}

/* At its exit: the calling thread's state, NULL if none is in flight. */
static __always_inline struct inflight *inflight_get(void)
{
	__u32 tid = cur_tid();

	return bpf_map_lookup_elem(&inflight, &tid);
}

static __always_inline void inflight_end(void)
{
	__u32 tid = cur_tid();

	bpf_map_delete_elem(&inflight, &tid);
}

static __always_inline bool tgid_wanted(__u32 tgid)
{
	if (tgid == self_tgid)
		return false;
	if (!filter_enabled)
		return true;
	return bpf_map_lookup_elem(&traced, &tgid) != NULL;
}

/*
 * Whether a record submitted at @now wakes the consumer. Per-event wakeups
 * cost the traced task an IPI each, so a record wakes user space only when
 * none has for wakeup_idle_ns (20 ms), or for a sixteenth of that once
 * wakeup_bytes (a quarter of the ring) are pending: a quiet machine's events
 * are shown at once, a storm costs at most 50 wakeups a second, and a
 * backlog at most 800. User space's poll timeout bounds the wait for the
 * rest. The wakeup is forced: without BPF_RB_FORCE_WAKEUP the kernel wakes
 * only a reader that has consumed everything before this record.
 * last_wakeup_ns is shared by all CPUs without a lock; a record reserved
 * before another CPU's wakeup compares as negative, not as a huge gap.
 */
static __always_inline __u64 wakeup_flags(__u64 now)
{
	__u64 gap = wakeup_idle_ns;

	if (!wakeup_bytes)
		return 0;
	if (bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= wakeup_bytes)
		gap /= 16;
	if ((__s64)(now - last_wakeup_ns) < (__s64)gap)
		return BPF_RB_NO_WAKEUP;
	last_wakeup_ns = now;
	return BPF_RB_FORCE_WAKEUP;
}

/*
 * Reserve a zeroed record of a constant size and fill its header. The
 * sequence number is consumed even when the reserve fails, so that user space
 * sees the gap as well as the counter.
 */
/*
 * The next number of a counter shared by all CPUs: an atomic fetch-and-add.
 * Kernels before 5.12 reject that instruction anywhere in a program, even
 * where no branch reaches it, so the build makes a second object for them
 * (PGT_NO_ATOMIC_FETCH; the loader picks it by probing) that numbers by the
 * boot clock instead: increasing, unique in practice, with gaps.
 */
#ifdef PGT_NO_ATOMIC_FETCH
#define pgt_next(counter) bpf_ktime_get_boot_ns()
#else
#define pgt_next(counter) __sync_fetch_and_add(counter, 1)
#endif

static __always_inline void *pgt_reserve(__u16 type, __u32 size)
{
	__u64 seq = pgt_next(&seq_next);
	struct pgt_hdr *h;
	__u32 key = type;

	h = bpf_ringbuf_reserve(&events, size, 0);
	if (!h) {
		__u64 *v = bpf_map_lookup_elem(&drops, &key);

		if (v)
			*v += 1;
		return NULL;
	}
	__builtin_memset(h, 0, size);
	h->seq = seq;
	h->type = type;
	h->size = size;
	h->ts_ns = bpf_ktime_get_boot_ns();
	h->cpu = bpf_get_smp_processor_id();
	return h;
}

/*
 * Copy a record built elsewhere (in a map value) into the ring buffer,
 * stamping its header the way pgt_reserve() does.
 */
static __always_inline void pgt_output(struct pgt_hdr *h, __u16 type, __u32 size)
{
	__u32 key = type;
	__u64 *v;

	h->seq = pgt_next(&seq_next);
	h->type = type;
	h->size = size;
	h->ts_ns = bpf_ktime_get_boot_ns();
	h->cpu = bpf_get_smp_processor_id();
	if (bpf_ringbuf_output(&events, h, size, wakeup_flags(h->ts_ns))) {
		v = bpf_map_lookup_elem(&drops, &key);
		if (v)
			*v += 1;
	}
}

/* Submit a record from pgt_reserve(), waking user space as wakeup_flags() says. */
static __always_inline void pgt_submit(void *rec)
{
	bpf_ringbuf_submit(rec, wakeup_flags(((struct pgt_hdr *)rec)->ts_ns));
}

/* pid_nr(): the number of a struct pid in the initial namespace. */
static __always_inline __u32 pid_nr0(struct pid *pid)
{
	if (!pid)
		return 0;
	return BPF_CORE_READ(pid, numbers[0].nr);
}

/* The upid of @pid at its own deepest level: the namespace it lives in. */
static __always_inline void pid_own_level(struct pid *pid, __u32 *nr, __u64 *ns_ino)
{
	unsigned int level;
	struct upid up;

	*nr = 0;
	*ns_ino = 0;
	if (!pid)
		return;
	level = BPF_CORE_READ(pid, level);
	if (level >= PGT_MAX_PIDNS_LEVEL)
		return;
	if (bpf_core_read(&up, sizeof(up), &pid->numbers[level]))
		return;
	*nr = up.nr;
	if (up.ns)
		*ns_ino = BPF_CORE_READ(up.ns, ns.inum);
}

/* new_encode_dev(), the encoding of /proc/PID/stat's tty_nr. */
static __always_inline __u32 encode_dev(__u32 major, __u32 minor)
{
	return (minor & 0xff) | (major << 8) | ((minor & ~0xffU) << 12);
}

static __always_inline void read_tty(struct tty_struct *tty, __u32 *tty_nr, char *name)
{
	struct tty_driver *drv;
	__u32 major, minor;

	if (!tty)
		return;
	drv = BPF_CORE_READ(tty, driver);
	major = BPF_CORE_READ(drv, major);
	minor = BPF_CORE_READ(drv, minor_start) + BPF_CORE_READ(tty, index);
	*tty_nr = encode_dev(major, minor);
	bpf_probe_read_kernel_str(name, PGT_TTY_LEN, &tty->name);
}

static __always_inline void fill_grp(struct pgt_grp *g, struct task_struct *t)
{
	struct signal_struct *sig = BPF_CORE_READ(t, signal);

	g->pgid = pid_nr0(BPF_CORE_READ(sig, pids[pidtype_pgid()]));
	g->sid = pid_nr0(BPF_CORE_READ(sig, pids[pidtype_sid()]));
	read_tty(BPF_CORE_READ(sig, tty), &g->tty_nr, g->tty);
}

/* Everything a record says about one process, read from any of its threads. */
static __always_inline void fill_proc(struct pgt_proc *p, struct task_struct *task)
{
	struct task_struct *t = task;
	struct signal_struct *sig = BPF_CORE_READ(t, signal);
	struct tty_struct *tty;
	unsigned int flags;
	__u64 ns_ino;
	__u32 nr;

	p->pid = BPF_CORE_READ(t, tgid);
	p->tid = BPF_CORE_READ(t, pid);
	p->ppid = BPF_CORE_READ(t, real_parent, tgid);
	p->pgid = pid_nr0(BPF_CORE_READ(sig, pids[pidtype_pgid()]));
	p->sid = pid_nr0(BPF_CORE_READ(sig, pids[pidtype_sid()]));
	p->uid = BPF_CORE_READ(t, real_cred, uid.val);
	p->start_ns = task_start_boottime(BPF_CORE_READ(t, group_leader));
	if (!task_audit(t, &p->auid, &p->ses)) {
		p->auid = PGT_ID_UNSET;
		p->ses = PGT_ID_UNSET;
	}
	pid_own_level(BPF_CORE_READ(sig, pids[pidtype_tgid()]), &nr, &ns_ino);
	p->ns_pid = nr;
	p->pidns_ino = ns_ino;

	tty = BPF_CORE_READ(sig, tty);
	if (tty) {
		p->flags |= PGT_F_HAS_TTY;
		read_tty(tty, &p->tty_nr, p->tty);
		p->tty_fg_pgid = pid_nr0(tty_fg_pgrp(tty));
	}
	if (BPF_CORE_READ(t, exit_state))
		p->flags |= PGT_F_ZOMBIE;
	flags = BPF_CORE_READ(t, flags);
	if (flags & PF_KTHREAD)
		p->flags |= PGT_F_KTHREAD;
	if (BPF_CORE_READ(sig, leader))
		p->flags |= PGT_F_SESSION_LEADER;
	if (BPF_CORE_READ_BITFIELD_PROBED(sig, is_child_subreaper))
		p->flags |= PGT_F_IS_SUBREAPER;
	if (p->pid == p->pgid)
		p->flags |= PGT_F_GROUP_LEADER;
	bpf_probe_read_kernel_str(p->comm, sizeof(p->comm), &t->comm);
}

/* The session's tty goes with its exiting leader (disassociate_ctty(1)). */
static __always_inline void report_leader_tty(struct task_struct *p, struct signal_struct *sig)
{
	struct tty_struct *tty = BPF_CORE_READ(sig, tty);
	struct pgt_tty *e = pgt_reserve(PGT_TTY, sizeof(*e));

	if (!e)
		return;
	fill_proc(&e->proc, p);
	e->how = PGT_TTY_LEADER_EXIT;
	e->sid = e->proc.sid;
	e->session_wide = 1;
	read_tty(tty, &e->tty_nr, e->tty);
	pgt_submit(e);
}

#endif /* __COMMON_BPF_H */
