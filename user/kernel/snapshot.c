// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <uthash.h>
#include "cgroup.h"
#include "clock.h"
#include "kernel_defs.h"
#include "procfs.h"
#include "snapshot.h"
#include "msg.h"

/*
 * /proc is read one file at a time, so a process can change between two
 * reads, and it cannot show another process's subreaper flag: both are why
 * the iterator is preferred.
 */
static int from_proc(struct model *m, bool only_missing)
{
	long tick_ns = procfs__tick_ns();
	struct proc_stat *all;
	struct pgt_snap rec;
	int n, i;

	n = procfs__list(&all);
	if (n < 0)
		return n;
	for (i = 0; i < n; i++) {
		const struct proc_stat *st = &all[i];
		struct pgt_proc *p = &rec.proc;

		if (only_missing && model__snapshot_has(m, (__u32)st->pid))
			continue;
		unsigned int major = (st->tty_nr >> 8) & 0xfff;
		unsigned int minor = (st->tty_nr & 0xff) | ((st->tty_nr >> 12) & 0xfff00);

		memset(&rec, 0, sizeof(rec));
		rec.hdr.type = PGT_SNAP;
		rec.hdr.size = sizeof(rec);
		rec.hdr.ts_ns = clock_ns(CLOCK_BOOTTIME);
		p->pid = p->tid = p->ns_pid = st->pid;
		p->ppid = st->ppid;
		p->pgid = st->pgid;
		p->sid = st->sid;
		p->uid = st->uid;
		p->auid = p->ses = PGT_ID_UNSET;
		p->tty_nr = st->tty_nr;
		p->tty_fg_pgid = st->tpgid > 0 ? (__u32)st->tpgid : 0;
		p->start_ns = st->start_ticks * tick_ns;
		if (major >= 136 && major <= 143)
			snprintf(p->tty, sizeof(p->tty), "pts%u", (major - 136) * 256 + minor);
		memcpy(p->comm, st->comm, sizeof(p->comm));
		if (st->pid == st->sid)
			p->flags |= PGT_F_SESSION_LEADER;
		if (st->pid == st->pgid)
			p->flags |= PGT_F_GROUP_LEADER;
		if (st->tty_nr)
			p->flags |= PGT_F_HAS_TTY;
		if (st->state == 'Z')
			p->flags |= PGT_F_ZOMBIE;
		if (st->flags & PF_KTHREAD)
			p->flags |= PGT_F_KTHREAD;
		model__snapshot_add(m, &rec, true);
	}
	free(all);
	return n;
}

/*
 * What each process found runs, from /proc/PID/exe and cmdline: the
 * iterator cannot read another task's memory before 5.18
 * (bpf_copy_from_user_task()). Only where the model knows nothing (a resync
 * keeps what exec records said), and only for the process the model has:
 * a pid reused since the snapshot is left unknown.
 */
static void exec_from_proc(struct model *m)
{
	char exe[DECODE_PATH_SIZE], args[PGT_ARGS_MAX];
	long tick_ns = procfs__tick_ns();
	struct proc_stat st;
	struct mproc *p;
	size_t len;
	bool cut;

	model__for_each_proc(m, p) {
		if (!p->lineage || p->lineage->image || p->zombie || (p->ctx.flags & PGT_F_KTHREAD))
			continue;
		if (procfs__read_exec(p->ctx.pid, exe, sizeof(exe), args, sizeof(args), &len,
				      &cut) ||
		    procfs__read_stat(p->ctx.pid, &st) ||
		    p->ctx.start_ns / tick_ns != st.start_ticks)
			continue;
		model__set_exec(p, exe[0] ? exe : NULL, args, len, cut);
	}
}

/* The cgroups met in one snapshot, by their paths: one record and one stat() each. */
struct cg_seen {
	struct pcgroup *cg;
	UT_hash_handle hh;
	char key[]; /* v2 path, '\n', v1 path */
};

/*
 * Where every process runs, from /proc/PID/cgroup; read again at each
 * snapshot, so a resync also corrects moves that lost records hid.
 */
static void cgroups_from_proc(struct model *m)
{
	struct cg_seen *seen = NULL, *c, *tmp;
	struct cgroup_paths *cp = malloc(sizeof(*cp));
	char *key = malloc(sizeof(cp->v2) + sizeof(cp->v1) + 1);
	struct mproc *p;
	size_t len;

	if (!cp || !key)
		goto out;
	model__for_each_proc(m, p) {
		if (p->zombie || (p->ctx.flags & PGT_F_KTHREAD) ||
		    cgroup__read_proc((pid_t)p->ctx.pid, cp))
			continue;
		len = (size_t)snprintf(key, sizeof(cp->v2) + sizeof(cp->v1) + 1, "%s\n%s", cp->v2,
				       cp->v1);
		HASH_FIND(hh, seen, key, len, c);
		if (!c) {
			c = calloc(1, sizeof(*c) + len + 1);
			if (!c)
				break;
			memcpy(c->key, key, len + 1);
			c->cg = pcgroup__new(cp->v2[0] ? cp->v2 : NULL, sizeof(cp->v2),
					     cp->v2[0] ? cgroup__v2_id(cp->v2) : 0,
					     cp->v1[0] ? cp->v1 : NULL, sizeof(cp->v1));
			HASH_ADD_KEYPTR(hh, seen, c->key, len, c);
		}
		if (c->cg)
			model__set_cgroup(p, c->cg);
	}
out:
	HASH_ITER(hh, seen, c, tmp) {
		HASH_DEL(seen, c);
		pcgroup__put(c->cg);
		free(c);
	}
	free(key);
	free(cp);
}

int snapshot__take(struct loader *l, struct model *m)
{
	struct pgt_snap *recs;
	int n, i;

	n = loader__snapshot(l, &recs);
	if (n == -EOPNOTSUPP) {
		p_err("task iterators are not available: taking the "
		      "snapshot from /proc (racy, no subreaper flags)");
		n = from_proc(m, false);
	} else if (n >= 0) {
		for (i = 0; i < n; i++)
			model__snapshot_add(m, &recs[i], false);
		free(recs);
		/*
		 * A process the iterator cannot see (a security policy can hide
		 * one, as with PID 1 on some sandboxes) still has a /proc entry.
		 */
		if (from_proc(m, true) < 0)
			n = -EIO;
	}
	if (n >= 0) {
		model__snapshot_done(m);
		exec_from_proc(m);
		cgroups_from_proc(m);
		model__announce_entries(m);
	}
	return n;
}

int snapshot__seed_filter(struct loader *l, pid_t root, bool filtering)
{
	pid_t *kids;
	int n, i;

	if (kill(root, 0) && errno == ESRCH) {
		p_err("cannot trace pid %d: no such process", root);
		return -1;
	}
	/* A thread's id reaches kill(2) and /proc, but the filter is by process. */
	n = procfs__tgid(root);
	if (n > 0 && n != root) {
		p_err("%d is a thread of process %d: give -p %d", root, n, n);
		return -1;
	}
	if (!filtering)
		return 0;
	loader__trace(l, root);
	n = procfs__descendants(root, &kids);
	if (n < 0) {
		p_err("cannot list the descendants of %d: %s", root, strerror(-n));
		return -1;
	}
	for (i = 0; i < n; i++)
		loader__trace(l, kids[i]);
	free(kids);
	return 0;
}
