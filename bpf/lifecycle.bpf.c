// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Process lifecycle: fork, exec and the exit of a whole process.
 *
 * Each hook exists at three levels: a tp_btf program (typed, trusted
 * arguments), a raw_tp twin for kernels where tp_btf does not attach, and a
 * classic tracepoint twin (tp/sched) that finds its tasks from pids and
 * lists. User space enables one set with bpf_program__set_autoload() after
 * probing (user/loader.c, select_level()).
 */
#include "common.bpf.h"

#include "sigacc.bpf.h"

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
	/* A child shares its forker's css_set unless it was born elsewhere. */
	if (BPF_CORE_READ(child, cgroups) != BPF_CORE_READ(parent, cgroups))
		e->child.flags |= PGT_F_OWN_CGROUP;
	pgt_submit(e);
	return 0;
}

/*
 * What an exec ran, built in a per-CPU map value and copied out at the
 * length it uses (pgt_output()). The slack lets a name be read at any offset
 * below the end of data[] with a constant bound, which is what the verifier
 * of 5.10 can check. Exec runs in process context only: nothing else on the
 * CPU uses this value while it is filled.
 */
#define NAME_READ  256 /* NAME_MAX + 1: one dentry name */
#define PATH_DEPTH 40  /* dentry and mount steps of one path walk */

struct exec_scratch {
	struct pgt_exec e;
	char slack[NAME_READ];
	__u64 root_dentry; /* the task's root, where a path walk ends */
	__u64 root_mnt;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct exec_scratch);
} exec_scratch SEC(".maps");

/*
 * The argument vector, from the new image's stack where exec has just
 * copied it: the bytes of /proc/PID/cmdline, cut at PGT_ARGS_MAX.
 */
static __always_inline void exec_args(struct pgt_exec *e, struct mm_struct *mm)
{
	unsigned long start = BPF_CORE_READ(mm, arg_start);
	unsigned long len = BPF_CORE_READ(mm, arg_end) - start;

	if (!mm || !start)
		return;
	if (len > PGT_ARGS_MAX) {
		len = PGT_ARGS_MAX;
		e->flags |= PGT_EXEC_ARGS_CUT;
	}
	barrier_var(len);
	if (len > PGT_ARGS_MAX)
		return;
	if (bpf_probe_read_user(e->data, len, (void *)start))
		return;
	e->args_len = len;
	e->flags |= PGT_EXEC_HAS_ARGS;
}

/*
 * prepend_path() of fs/d_path.c, bounded, for kernels and hooks where
 * bpf_d_path() is not allowed (every hook here: it is for fentry and LSM
 * programs on an allowlist of functions): the names from @dentry up to the
 * task's root, crossing mounts, leaf first, each NUL-terminated, into data[]
 * from *pos up to @end. Returns false when the walk stopped short (too deep
 * or too long): what was written is the leaf part of the path.
 *
 * Two marks d_path() adds, in *@marks: a leaf unlinked from its directory
 * (d_unlinked(): " (deleted)"), and a leaf with no directory at all, a
 * pseudo file's dentry that d_dname() names (memfd_create()'s:
 * "/memfd:NAME (deleted)"): its name alone is written.
 */
static __always_inline bool at_top(struct dentry *dentry, struct vfsmount *vfsmnt,
				   struct mount *mnt, struct dentry *root_dentry,
				   struct vfsmount *root_mnt)
{
	if (dentry == root_dentry && vfsmnt == root_mnt)
		return true;
	if (dentry == BPF_CORE_READ(vfsmnt, mnt_root))
		return BPF_CORE_READ(mnt, mnt_parent) == mnt; /* the namespace's root */
	return BPF_CORE_READ(dentry, d_parent) == dentry;     /* a root outside any mount */
}

/* A walk up from a dentry: where it is, and how it ended. */
struct path_walk {
	struct pgt_exec *e;
	__u64 dentry, vfsmnt, mnt; /* where the walk is */
	__u64 root_dentry, root_mnt;
	__u64 off; /* of the vfsmount in a struct mount */
	__u32 pos, end;
	__u32 state; /* PATH_WALKING, or how it ended */
};

#define PATH_WALKING 0
#define PATH_TOP     1 /* the task's root, or the top of its mounts: whole */
#define PATH_CUT     2 /* no room left, or a name unreadable */

/* One step up: a mount crossed, or a name written. 1 when the walk ended. */
static long path_step(__u64 i, void *data)
{
	struct path_walk *w = data;
	struct dentry *dentry = (struct dentry *)(long)w->dentry, *parent;
	struct vfsmount *vfsmnt = (struct vfsmount *)(long)w->vfsmnt;
	struct mount *mnt = (struct mount *)(long)w->mnt, *mnt_parent;
	const unsigned char *name;
	__u32 p = w->pos;
	long n;

	if (w->dentry == w->root_dentry && w->vfsmnt == w->root_mnt)
		goto top;
	if (dentry == BPF_CORE_READ(vfsmnt, mnt_root)) {
		mnt_parent = BPF_CORE_READ(mnt, mnt_parent);
		if (mnt_parent == mnt) /* the namespace's root */
			goto top;
		w->dentry = (__u64)(long)BPF_CORE_READ(mnt, mnt_mountpoint);
		w->mnt = (__u64)(long)mnt_parent;
		w->vfsmnt = w->mnt + w->off;
		return 0;
	}
	parent = BPF_CORE_READ(dentry, d_parent);
	if (parent == dentry) /* a root outside any mount */
		goto top;
	if (p >= w->end || w->end - p < 2)
		goto cut;
	name = BPF_CORE_READ(dentry, d_name.name);
	barrier_var(p);
	if (p >= PGT_EXEC_DATA_MAX)
		goto cut;
	n = bpf_probe_read_kernel_str(w->e->data + p, NAME_READ, name);
	if (n <= 0 || p + n > w->end)
		goto cut;
	w->pos = p + n;
	w->dentry = (__u64)(long)parent;
	return 0;
top:
	w->state = PATH_TOP;
	return 1;
cut:
	w->state = PATH_CUT;
	return 1;
}

static __always_inline bool walk_path(struct pgt_exec *e, struct dentry *dentry,
				      struct vfsmount *vfsmnt, struct dentry *root_dentry,
				      struct vfsmount *root_mnt, __u32 *pos, __u32 end,
				      __u32 *marks, __u32 deleted, __u32 anon, bool loop)
{
	size_t off = bpf_core_field_offset(struct mount, mnt);
	struct mount *mnt = (void *)vfsmnt - off;
	struct path_walk w = { .e = e, .off = off, .end = end };
	const unsigned char *name;
	struct dentry *parent;
	__u32 p = *pos;
	long n;

	/* The leaf: unlinked (unhashed, not a root), or a pseudo file's. */
	parent = BPF_CORE_READ(dentry, d_parent);
	if (parent != dentry && !BPF_CORE_READ(dentry, d_hash.pprev))
		*marks |= deleted;
	else if (parent == dentry && dentry != BPF_CORE_READ(vfsmnt, mnt_root) &&
		 (dentry != root_dentry || vfsmnt != root_mnt)) {
		if (p >= end || end - p < 2)
			return false;
		name = BPF_CORE_READ(dentry, d_name.name);
		barrier_var(p);
		if (p >= PGT_EXEC_DATA_MAX)
			return false;
		n = bpf_probe_read_kernel_str(e->data + p, NAME_READ, name);
		if (n <= 0 || p + n > end)
			return false;
		*pos = p + n;
		/* Named by its d_dname(); a disconnected dentry is the leaf part only. */
		if (!BPF_CORE_READ(dentry, d_op, d_dname))
			return false;
		*marks |= anon;
		return true;
	}
	w.dentry = (__u64)(long)dentry;
	w.vfsmnt = (__u64)(long)vfsmnt;
	w.mnt = (__u64)(long)mnt;
	w.root_dentry = (__u64)(long)root_dentry;
	w.root_mnt = (__u64)(long)root_mnt;
	w.pos = p;
	if (loop) {
		bpf_loop(PATH_DEPTH, path_step, &w, 0);
	} else {
		for (int i = 0; i < PATH_DEPTH; i++)
			if (path_step(i, &w))
				break;
	}
	*pos = w.pos;
	if (w.state != PATH_WALKING)
		return w.state == PATH_TOP;
	/* A walk of exactly PATH_DEPTH steps ends at the top: whole. */
	return at_top((struct dentry *)(long)w.dentry, (struct vfsmount *)(long)w.vfsmnt,
		      (struct mount *)(long)w.mnt, root_dentry, root_mnt);
}

/*
 * walk_path() into the exec being built, as a global function: the verifier
 * checks it once per program, where inlined at its two walks it checked the
 * 40 steps twice (with bpf_loop(), the step once). Numbers in and out, as
 * 5.10 requires of a global function, and at most five: the walk's start,
 * its position and end (low and high halves), the marks it may set
 * (deleted, anon); out, the position after it in the low half, the marks
 * above it, and bit 63 when the walk reached the top. The root it stops at
 * is in the scratch value.
 */
static __always_inline __u64 walk_into_exec(__u64 dentry, __u64 vfsmnt, __u64 pos_end,
					    __u64 mark_bits, bool loop)
{
	__u32 zero = 0, marks = 0, pos = (__u32)pos_end;
	struct exec_scratch *s;
	bool whole;

	s = bpf_map_lookup_elem(&exec_scratch, &zero);
	if (!s)
		return pos;
	whole = walk_path(&s->e, (struct dentry *)(long)dentry, (struct vfsmount *)(long)vfsmnt,
			  (struct dentry *)(long)s->root_dentry,
			  (struct vfsmount *)(long)s->root_mnt, &pos, pos_end >> 32, &marks,
			  (__u32)mark_bits, mark_bits >> 32, loop);
	return pos | (__u64)marks << 32 | (__u64)whole << 63;
}

__noinline __u64 walk_path_into_exec(__u64 dentry, __u64 vfsmnt, __u64 pos_end, __u64 mark_bits)
{
	return walk_into_exec(dentry, vfsmnt, pos_end, mark_bits, false);
}

__noinline __u64 walk_path_into_exec_loop(__u64 dentry, __u64 vfsmnt, __u64 pos_end,
					  __u64 mark_bits)
{
	return walk_into_exec(dentry, vfsmnt, pos_end, mark_bits, true);
}

/* One walk: its flags (@has, and @cut if it stopped short), the position and marks updated. */
static __always_inline __u32 walk(__u64 dentry, __u64 vfsmnt, __u32 *pos, __u32 end, __u32 *marks,
				  __u32 deleted, __u32 anon, __u32 has, __u32 cut, bool loop)
{
	__u64 r = loop ? walk_path_into_exec_loop(dentry, vfsmnt, *pos | (__u64)end << 32,
						  deleted | (__u64)anon << 32) :
			 walk_path_into_exec(dentry, vfsmnt, *pos | (__u64)end << 32,
					     deleted | (__u64)anon << 32);

	*pos = (__u32)r;
	*marks |= (__u32)(r >> 32) & ~(1U << 31);
	return r >> 63 ? has : has | cut;
}

static __always_inline int handle_exec(struct task_struct *p, pid_t old_pid, const char *filename,
				       bool loop)
{
	struct mm_struct *mm = BPF_CORE_READ(p, mm);
	struct fs_struct *fs = BPF_CORE_READ(p, fs);
	struct file *exe = BPF_CORE_READ(mm, exe_file);
	struct exec_scratch *s;
	struct pgt_exec *e;
	struct path root;
	__u32 zero = 0, pos, end, size, marks = 0;
	char next = 0;

	if (test_fault_exec)
		return *(volatile int *)(long)old_pid; /* rejected: scalar as pointer */
	if (!tgid_wanted(BPF_CORE_READ(p, tgid)))
		return 0;
	s = bpf_map_lookup_elem(&exec_scratch, &zero);
	if (!s)
		return 0;
	e = &s->e;
	__builtin_memset(e, 0, PGT_EXEC_SIZE(0)); /* no stale bytes from the last exec */
	fill_proc(&e->proc, p);
	e->old_tid = old_pid;
	/* The buffer filled: a byte after it means the name was cut. */
	if (bpf_probe_read_kernel_str(e->filename, sizeof(e->filename), filename) ==
		    sizeof(e->filename) &&
	    !bpf_probe_read_kernel(&next, 1, filename + sizeof(e->filename) - 1) && next)
		e->flags |= PGT_EXEC_FILENAME_CUT;
	exec_args(e, mm);
	pos = e->args_len;
	if (bpf_core_read(&root, sizeof(root), &fs->root))
		goto out;
	s->root_dentry = (__u64)(long)root.dentry;
	s->root_mnt = (__u64)(long)root.mnt;
	/* The working directory, then the executable (/proc/PID/exe: after a
	 * #! line, the interpreter), each with its own share of data[]. */
	end = pos + PGT_EXEC_PATH_MAX;
	if (fs) {
		e->flags |= walk((__u64)(long)BPF_CORE_READ(fs, pwd.dentry),
				 (__u64)(long)BPF_CORE_READ(fs, pwd.mnt), &pos, end, &marks,
				 PGT_EXEC_CWD_DELETED, 0, PGT_EXEC_HAS_CWD, PGT_EXEC_CWD_CUT, loop);
		e->cwd_len = pos - e->args_len;
	}
	end = pos + PGT_EXEC_PATH_MAX;
	if (exe) {
		e->flags |= walk((__u64)(long)BPF_CORE_READ(exe, f_path.dentry),
				 (__u64)(long)BPF_CORE_READ(exe, f_path.mnt), &pos, end, &marks,
				 PGT_EXEC_EXE_DELETED, PGT_EXEC_EXE_ANON, PGT_EXEC_HAS_EXE,
				 PGT_EXEC_EXE_CUT, loop);
		e->exe_len = pos - e->args_len - e->cwd_len;
	}
out:
	e->flags |= marks;
	size = PGT_EXEC_SIZE(e->args_len + e->cwd_len + e->exe_len);
	barrier_var(size);
	if (size > sizeof(*e))
		return 0;
	pgt_output(&e->hdr, PGT_EXEC, size);
	return 0;
}

/*
 * A process ends when its last thread does, which need not be the leader.
 * The status is the one wait(2) will report: the group exit code after
 * exit_group() or a fatal signal, else the leader's own exit code
 * (wait_task_zombie()).
 */
static __always_inline int handle_exit(struct task_struct *task, bool group_dead)
{
	struct task_struct *p = task;
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
	__builtin_memset(&e->death, 0, sizeof(e->death));
	if ((e->status & 0x7f) && (e->status & 0x7f) != 0x7f) {
		struct death_key k = { .tgid = tgid, .sig = e->status & 0x7f };
		struct death *d = bpf_map_lookup_elem(&deaths, &k);

		if (d && d->start_ns == e->proc.start_ns) {
			e->death = d->d;
			bpf_map_delete_elem(&deaths, &k);
		}
	}
	pgt_submit(e);
out:
	/*
	 * A session leader with a tty lets go of it for the whole session in
	 * disassociate_ctty(), right after this tracepoint.
	 */
	if (!leader_tty_at_fentry && BPF_CORE_READ(sig, leader) && BPF_CORE_READ(sig, tty))
		report_leader_tty(p, sig);
	return 0;
}

#define MAX_THREAD_SCAN	 8    /* threads looked at for a live one */
#define MAX_ANCESTORS	 24   /* real_parent steps to a subreaper */
#define MAX_ORPHANS	 64   /* children reported per exiting thread, without bpf_loop() */
#define MAX_ORPHANS_LOOP 8192 /* the same with it */

static __always_inline struct task_struct *task_of_node(struct list_head *pos, size_t off)
{
	return (struct task_struct *)((void *)pos - off);
}

/* find_alive_thread(): a thread of @p's process that is not exiting. */
static __always_inline struct task_struct *alive_thread(struct task_struct *p)
{
	size_t off = bpf_core_field_offset(struct task_struct, thread_node);
	struct signal_struct *sig = BPF_CORE_READ(p, signal);
	struct list_head *head = &sig->thread_head;
	struct list_head *pos = BPF_CORE_READ(sig, thread_head.next);
	struct task_struct *t;
	int i;

	for (i = 0; i < MAX_THREAD_SCAN && pos && pos != head; i++) {
		t = task_of_node(pos, off);
		if (!(BPF_CORE_READ(t, flags) & PF_EXITING))
			return t;
		pos = BPF_CORE_READ(t, thread_node.next);
	}
	return NULL;
}

/*
 * The walks below run in bpf_loop() callbacks: the verifier checks a
 * callback once, where an unrolled loop with fill_proc() inside multiplied
 * the exit program's verification to a quarter of a second. bpf_loop() came
 * in 5.17; before it (Debian 11's 5.10, Ubuntu 22.04's 5.15) the exit
 * programs' _noloop twins call the same steps from a bounded loop, and the
 * loader picks the pair by probing for the helper. @loop is a constant at
 * each call site, so each program holds one of the two.
 */
struct ancestor_walk {
	struct task_struct *r;
	struct task_struct *found;
	unsigned int level;
};

/* One real_parent step up, looking for a live subreaper. */
static long subreaper_step(__u64 i, void *data)
{
	struct ancestor_walk *w = data;
	struct task_struct *r = w->r, *t; /* locals: CO-RE reads of kernel types only */
	struct signal_struct *sig;

	if (!r || BPF_CORE_READ(r, thread_pid, level) != w->level || BPF_CORE_READ(r, pid) == 0)
		return 1;
	sig = BPF_CORE_READ(r, signal);
	if (BPF_CORE_READ_BITFIELD_PROBED(sig, is_child_subreaper)) {
		t = alive_thread(r);
		if (t) {
			w->found = t;
			return 1;
		}
	}
	w->r = BPF_CORE_READ(r, real_parent);
	return 0;
}

/*
 * find_child_reaper() + find_new_reaper() of kernel/exit.c: another live
 * thread; else, below a subreaper, the nearest live subreaper ancestor in the
 * same pid namespace; else the namespace's init. Returns 0 when the exiting
 * task is the namespace's init with no thread left: its children are killed
 * (zap_pid_ns_processes()), not reparented.
 */
static __always_inline int find_reaper(struct task_struct *father, struct task_struct **out,
				       bool loop)
{
	struct pid *tp = BPF_CORE_READ(father, thread_pid);
	unsigned int level = BPF_CORE_READ(tp, level);
	struct task_struct *t, *init;
	struct signal_struct *sig;
	struct pid_namespace *ns;
	struct upid up;

	if (level >= PGT_MAX_PIDNS_LEVEL || bpf_core_read(&up, sizeof(up), &tp->numbers[level]))
		return 0;
	ns = up.ns;
	init = BPF_CORE_READ(ns, child_reaper);
	t = alive_thread(father);
	if (t) {
		*out = t;
		return PGT_REAPER_THREAD;
	}
	if (init && BPF_CORE_READ(init, tgid) == BPF_CORE_READ(father, tgid))
		return 0;
	sig = BPF_CORE_READ(father, signal);
	if (BPF_CORE_READ_BITFIELD_PROBED(sig, has_child_subreaper)) {
		struct ancestor_walk w = { .r = BPF_CORE_READ(father, real_parent),
					   .level = level };

		if (loop) {
			bpf_loop(MAX_ANCESTORS, subreaper_step, &w, 0);
		} else {
			for (int i = 0; i < MAX_ANCESTORS; i++)
				if (subreaper_step(i, &w))
					break;
		}
		if (w.found) {
			*out = w.found;
			return PGT_REAPER_SUBREAPER;
		}
	}
	if (!init)
		return 0;
	*out = init;
	return PGT_REAPER_NS_INIT;
}

/* The state of one walk over an exiting thread's children (report_orphans()). */
struct orphan_walk {
	struct task_struct *father, *reaper;
	struct list_head *head, *pos;
	size_t off;
	__u32 ftgid;
	int reason;
};

static long report_orphan(__u64 i, void *data)
{
	struct orphan_walk *w = data;
	struct task_struct *reaper = w->reaper, *child;
	struct pgt_reparent *e;
	__u32 ctgid;

	if (!w->pos || w->pos == w->head)
		return 1;
	child = task_of_node(w->pos, w->off);
	w->pos = BPF_CORE_READ(child, sibling.next);
	ctgid = BPF_CORE_READ(child, tgid);
	if (!tgid_wanted(ctgid) && !tgid_wanted(w->ftgid))
		return 0;
	e = pgt_reserve(PGT_REPARENT, sizeof(*e));
	if (!e)
		return 0;
	fill_proc(&e->proc, w->father);
	e->child_pid = ctgid;
	e->child_start_ns = task_start_boottime(child);
	bpf_probe_read_kernel_str(e->child_comm, sizeof(e->child_comm), &child->comm);
	e->reaper_pid = BPF_CORE_READ(reaper, tgid);
	e->reaper_tid = BPF_CORE_READ(reaper, pid);
	e->reaper_start_ns = task_start_boottime(BPF_CORE_READ(reaper, group_leader));
	bpf_probe_read_kernel_str(e->reaper_comm, sizeof(e->reaper_comm), &reaper->comm);
	e->reason = w->reason;
	if (task_dying(child))
		e->reason |= PGT_REPARENT_DYING;
	pgt_submit(e);
	return 0;
}

/*
 * Any exiting thread with children hands them to a new parent in
 * exit_notify(), right after this tracepoint. Report each orphan with the
 * parent the kernel will pick; user space confirms it at the child's next
 * event and by --verify.
 */
static __always_inline void report_orphans(struct task_struct *father, bool loop)
{
	struct orphan_walk w = {
		.father = father,
		.head = &father->children,
		.pos = BPF_CORE_READ(father, children.next),
		.off = bpf_core_field_offset(struct task_struct, sibling),
		.ftgid = BPF_CORE_READ(father, tgid),
	};

	if (!w.pos || w.pos == w.head)
		return;
	w.reason = find_reaper(father, &w.reaper, loop);
	if (!w.reason || !w.reaper)
		return;
	if (loop) {
		bpf_loop(MAX_ORPHANS_LOOP, report_orphan, &w, 0);
	} else {
		for (int i = 0; i < MAX_ORPHANS; i++)
			if (report_orphan(i, &w))
				break;
	}
	/* Children left unreported: user space re-reads the machine. */
	if (w.pos && w.pos != w.head)
		stat_inc(PGT_STAT_ORPHANS_CUT);
}

/*
 * A process is gone for good when its leader is freed: after the reap, or
 * at once for an auto-reaped child. Threads and an old leader replaced by a
 * non-leader exec have pid != tgid and are skipped.
 */
static __always_inline int report_reap(__u32 tgid, __u64 start_ns)
{
	struct pgt_reap *e;

	if (tgid_wanted(tgid)) {
		e = pgt_reserve(PGT_REAP, sizeof(*e));
		if (e) {
			e->pid = tgid;
			e->start_ns = start_ns;
			pgt_submit(e);
		}
	}
	if (filter_enabled)
		bpf_map_delete_elem(&traced, &tgid);
	return 0;
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
	return handle_exec(p, old_pid, BPF_CORE_READ(bprm, filename), true);
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(sched_process_exec_noloop, struct task_struct *p, pid_t old_pid,
	     struct linux_binprm *bprm)
{
	return handle_exec(p, old_pid, BPF_CORE_READ(bprm, filename), false);
}

SEC("raw_tp/sched_process_exec")
int BPF_PROG(sched_process_exec_raw, struct task_struct *p, pid_t old_pid,
	     struct linux_binprm *bprm)
{
	return handle_exec(p, old_pid, BPF_CORE_READ(bprm, filename), true);
}

SEC("raw_tp/sched_process_exec")
int BPF_PROG(sched_process_exec_raw_noloop, struct task_struct *p, pid_t old_pid,
	     struct linux_binprm *bprm)
{
	return handle_exec(p, old_pid, BPF_CORE_READ(bprm, filename), false);
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(sched_process_exit, struct task_struct *p)
{
	handle_exit(p, exit_group_dead(p, ctx));
	report_orphans(p, true);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(sched_process_exit_noloop, struct task_struct *p)
{
	handle_exit(p, exit_group_dead(p, ctx));
	report_orphans(p, false);
	return 0;
}

SEC("raw_tp/sched_process_exit")
int BPF_PROG(sched_process_exit_raw, struct task_struct *p)
{
	handle_exit(p, exit_group_dead(p, ctx));
	report_orphans(p, true);
	return 0;
}

SEC("raw_tp/sched_process_exit")
int BPF_PROG(sched_process_exit_raw_noloop, struct task_struct *p)
{
	handle_exit(p, exit_group_dead(p, ctx));
	report_orphans(p, false);
	return 0;
}

static __always_inline int handle_free(struct task_struct *p)
{
	__u32 tgid = BPF_CORE_READ(p, tgid);

	if (BPF_CORE_READ(p, pid) != tgid)
		return 0;
	return report_reap(tgid, task_start_boottime(p));
}

SEC("tp_btf/sched_process_free")
int BPF_PROG(sched_process_free, struct task_struct *p)
{
	return handle_free(p);
}

SEC("raw_tp/sched_process_free")
int BPF_PROG(sched_process_free_raw, struct task_struct *p)
{
	return handle_free(p);
}

/*
 * Classic tracepoints, the lowest level: no task pointer among the
 * arguments, so the task is current (fork's parent, exec, exit) or is found
 * from the pid the event carries.
 */

/*
 * A fork's child, from the parent: the newest entry of the list that
 * copy_process() just added it to (the caller's children; its real
 * parent's with CLONE_PARENT; the thread group's for a thread).
 */
static __always_inline struct task_struct *new_child(struct task_struct *cur, pid_t pid)
{
	size_t sib = bpf_core_field_offset(struct task_struct, sibling);
	size_t thr = bpf_core_field_offset(struct task_struct, thread_node);
	struct task_struct *c;

	c = task_of_node(BPF_CORE_READ(cur, children.prev), sib);
	if (BPF_CORE_READ(c, pid) == pid)
		return c;
	c = task_of_node(BPF_CORE_READ(cur, signal, thread_head.prev), thr);
	if (BPF_CORE_READ(c, pid) == pid)
		return c;
	c = task_of_node(BPF_CORE_READ(cur, real_parent, children.prev), sib);
	if (BPF_CORE_READ(c, pid) == pid)
		return c;
	return NULL;
}

SEC("tp/sched/sched_process_fork")
int sched_process_fork_tp(struct trace_event_raw_sched_process_fork *ctx)
{
	struct task_struct *cur = (struct task_struct *)bpf_get_current_task();
	struct task_struct *child = new_child(cur, ctx->child_pid);

	if (!child) {
		stat_inc(PGT_STAT_FORK_UNSEEN);
		return 0;
	}
	return handle_fork(cur, child);
}

SEC("tp/sched/sched_process_exec")
int sched_process_exec_tp(struct trace_event_raw_sched_process_exec *ctx)
{
	unsigned int loc = ctx->__data_loc_filename & 0xffff;

	return handle_exec((struct task_struct *)bpf_get_current_task(), ctx->old_pid,
			   (const char *)ctx + loc, true);
}

SEC("tp/sched/sched_process_exec")
int sched_process_exec_tp_noloop(struct trace_event_raw_sched_process_exec *ctx)
{
	unsigned int loc = ctx->__data_loc_filename & 0xffff;

	return handle_exec((struct task_struct *)bpf_get_current_task(), ctx->old_pid,
			   (const char *)ctx + loc, false);
}

SEC("tp/sched/sched_process_exit")
int sched_process_exit_tp(struct trace_event_raw_sched_process_template *ctx)
{
	struct task_struct *cur = (struct task_struct *)bpf_get_current_task();

	handle_exit(cur, exit_group_dead_tp(cur, ctx));
	report_orphans(cur, true);
	return 0;
}

SEC("tp/sched/sched_process_exit")
int sched_process_exit_tp_noloop(struct trace_event_raw_sched_process_template *ctx)
{
	struct task_struct *cur = (struct task_struct *)bpf_get_current_task();

	handle_exit(cur, exit_group_dead_tp(cur, ctx));
	report_orphans(cur, false);
	return 0;
}

/*
 * Runs from an RCU callback, with only the pid: a thread's free looks like a
 * process's, and the start time is unknown (0); user space removes only a
 * process it has seen exit.
 */
SEC("tp/sched/sched_process_free")
int sched_process_free_tp(struct trace_event_raw_sched_process_template *ctx)
{
	return report_reap(ctx->pid, 0);
}
