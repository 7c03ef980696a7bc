// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uthash.h>
#include "kernel_defs.h"
#include "model.h"

/* The tables hold nodes: the public struct first, then the hash handle. */
struct proc_node {
	struct mproc p;
	UT_hash_handle hh;
};

struct session_node {
	struct msession s;
	UT_hash_handle hh;
};

struct tty_node {
	struct mtty t;
	UT_hash_handle hh;
};

static inline struct proc_node *proc_node(struct mproc *p)
{
	return (struct proc_node *)p; /* p is its node's first member */
}

/* Every process as @p; the body may remove @p (@tmp holds the next node). */
#define FOR_EACH_PROC_SAFE(m, p, tmp) \
	for ((tmp) = (m)->procs, (p) = NULL; (tmp) && ((p) = &(tmp)->p, (tmp) = (tmp)->hh.next, 1);)

/* The tables' entries (user/model.c): each holds its struct and a hash handle. */
struct proc_node;
struct session_node;
struct tty_node;

struct model {
	struct proc_node *procs;       /* by pid */
	struct session_node *sessions; /* by sid */
	struct tty_node *ttys;	       /* by tty_nr */
	model_note_fn note_fn;
	void *note_ctx;
	struct model_io io;
	model_entry_fn entry_fn;
	void *entry_ctx;
	__u64 generation;     /* bumped by every change */
	bool resyncing;	      /* snapshot records now correct the model */
	__u32 predicted[256]; /* orphans whose new parent awaits confirmation */
	unsigned int npredicted;
};

/* USER_HZ: the clock tick of /proc's times where none is given. */
#define DEFAULT_TICK_NS 10000000L

struct model *model__new(void)
{
	return calloc(1, sizeof(struct model));
}

void model__set_io(struct model *m, const struct model_io *io)
{
	m->io = *io;
}

static int read_stat(const struct model *m, pid_t pid, struct model_stat *st)
{
	return m->io.read_stat ? m->io.read_stat(pid, st) : -ENOSYS;
}

static long tick_ns(const struct model *m)
{
	return m->io.tick_ns ? m->io.tick_ns : DEFAULT_TICK_NS;
}

void model__set_entry_fn(struct model *m, model_entry_fn fn, void *ctx)
{
	m->entry_fn = fn;
	m->entry_ctx = ctx;
}

/* @p's cgroup as /proc says now, or NULL (not tracing, gone, out of memory). */
static struct pcgroup *cgroup_from_proc(struct model *m, const struct mproc *p)
{
	return m->io.read_cgroup ? m->io.read_cgroup((pid_t)p->ctx.pid) : NULL;
}

void model__announce_entries(struct model *m)
{
	struct proc_node *tmp;
	struct mproc *p;

	if (!m->entry_fn)
		return;
	FOR_EACH_PROC_SAFE(m, p, tmp)
		if (model__is_entry_leader(p))
			m->entry_fn(m->entry_ctx, p->entry);
}

void model__set_note_fn(struct model *m, model_note_fn fn, void *ctx)
{
	m->note_fn = fn;
	m->note_ctx = ctx;
}

static void note(struct model *m, enum model_note_kind kind, __u32 pid, __u32 expected,
		 __u32 actual)
{
	struct model_note n = { kind, pid, expected, actual };

	if (m->note_fn)
		m->note_fn(m->note_ctx, &n);
}

static void lineage_of(struct model *m, struct mproc *p);

/* @p's own link of the lineage, below @parent. */
static struct lineage *proc_link(const struct mproc *p, struct lineage *parent)
{
	return lineage__new(p->ctx.pid, p->ctx.start_ns, p->ctx.comm, parent);
}

void model__set_cgroup(struct mproc *p, struct pcgroup *cg)
{
	pcgroup__put(p->cg);
	p->cg = pcgroup__get(cg);
}

/* ---- groups, sessions, ttys: created on first member, freed with the last ---- */

static void join(struct model *m, struct mproc *p)
{
	struct session_node *n;

	HASH_FIND(hh, m->sessions, &p->ctx.sid, sizeof(p->ctx.sid), n);
	if (!n) {
		n = calloc(1, sizeof(*n));
		if (!n)
			return;
		n->s.sid = p->ctx.sid;
		HASH_ADD(hh, m->sessions, s.sid, sizeof(n->s.sid), n);
	}
	n->s.members++;
	if (p->ctx.pid == p->ctx.sid)
		n->s.leader_start_ns = p->ctx.start_ns;
}

static void leave(struct model *m, struct mproc *p)
{
	struct session_node *n;

	HASH_FIND(hh, m->sessions, &p->ctx.sid, sizeof(p->ctx.sid), n);
	if (n && --n->s.members == 0) {
		HASH_DEL(m->sessions, n);
		free(n);
	}
}

/*
 * A session's tty is its leader's; with the leader gone, any member's.
 * A tty's foreground group is whatever the last process to report it saw.
 */
static void track_tty(struct model *m, const struct mproc *p, __u32 fg_pgid)
{
	struct msession *s = model__session(m, p->ctx.sid);
	struct tty_node *n;
	struct mtty *t;

	if (s &&
	    (p->ctx.flags & PGT_F_SESSION_LEADER || !s->tty_nr || p->ctx.tty_nr == s->tty_nr)) {
		s->tty_nr = p->ctx.tty_nr;
		memcpy(s->tty, p->ctx.tty, sizeof(s->tty));
	}
	if (!p->ctx.tty_nr)
		return;
	HASH_FIND(hh, m->ttys, &p->ctx.tty_nr, sizeof(p->ctx.tty_nr), n);
	if (!n) {
		n = calloc(1, sizeof(*n));
		if (!n)
			return;
		n->t.tty_nr = p->ctx.tty_nr;
		HASH_ADD(hh, m->ttys, t.tty_nr, sizeof(n->t.tty_nr), n);
	}
	t = &n->t;
	memcpy(t->name, p->ctx.tty, sizeof(t->name));
	t->sid = p->ctx.sid;
	t->fg_pgid = fg_pgid;
}

static void proc_remove(struct model *m, struct mproc *p)
{
	leave(m, p);
	HASH_DEL(m->procs, proc_node(p));
	lineage__put(p->lineage);
	lineage__put(p->entry);
	pcgroup__put(p->cg);
	free(proc_node(p));
	m->generation++;
}

/* ---- processes ---- */

struct image *model__image(const struct mproc *p)
{
	return p->lineage ? p->lineage->image : NULL;
}

bool model__is_entry_leader(const struct mproc *p)
{
	return p->entry && p->entry == p->lineage;
}

const struct mproc *model__session_leader(const struct model *m, __u32 sid)
{
	const struct mproc *p = sid ? model__find(m, sid) : NULL;

	return p && p->ctx.sid == sid ? p : NULL;
}

void model__rehome(struct mproc *p, __u32 pgid)
{
	p->born_pgid = pgid;
}

bool model__same_start(const struct mproc *p, __u64 start_ns)
{
	if (!p->start_tick_ns)
		return p->ctx.start_ns == start_ns;
	return p->ctx.start_ns / p->start_tick_ns == start_ns / p->start_tick_ns;
}

const struct mproc *model__proc_of(const struct model *m, const struct pgt_proc *c)
{
	const struct mproc *p = c->pid ? model__find(m, c->pid) : NULL;

	return p && model__same_start(p, c->start_ns) ? p : NULL;
}

struct mproc *model__next_proc(const struct model *m, const struct mproc *p)
{
	struct proc_node *n = p ? proc_node((struct mproc *)p)->hh.next : m->procs;

	return n ? &n->p : NULL;
}

__u64 model__generation(const struct model *m)
{
	return m->generation;
}

bool model__snapshot_has(const struct model *m, __u32 pid)
{
	const struct mproc *p = model__find(m, pid);

	return p && (!m->resyncing || p->seen);
}

struct mproc *model__find(const struct model *m, __u32 pid)
{
	struct proc_node *n;

	HASH_FIND(hh, m->procs, &pid, sizeof(pid), n);
	return n ? &n->p : NULL;
}

/*
 * The process a context describes: found, or created. A different start
 * time under the same pid is another process: the old one was reaped unseen.
 */
static struct mproc *proc_get(struct model *m, __u32 pid, __u64 start_ns, bool *created)
{
	struct mproc *p = model__find(m, pid);
	struct proc_node *n;

	*created = false;
	/* An event about an older process that had this pid: long gone. */
	if (p && !model__same_start(p, start_ns) && start_ns < p->ctx.start_ns)
		return NULL;
	if (p && !model__same_start(p, start_ns)) {
		proc_remove(m, p);
		p = NULL;
	}
	if (p)
		return p;
	n = calloc(1, sizeof(*n));
	if (!n)
		return NULL;
	p = &n->p;
	p->ctx.pid = pid;
	p->ctx.start_ns = start_ns;
	HASH_ADD(hh, m->procs, p.ctx.pid, sizeof(p->ctx.pid), n);
	*created = true;
	return p;
}

/* @p has no controlling tty any more. */
static void drop_tty(struct mproc *p)
{
	p->ctx.tty_nr = 0;
	p->ctx.tty[0] = '\0';
	p->ctx.flags &= ~PGT_F_HAS_TTY;
}

/*
 * Transition "update": an event's context is the truth about its process at
 * that moment, whatever the event type. This is also what confirms (or
 * corrects) a predicted reparent.
 */
static struct mproc *proc_update(struct model *m, const struct pgt_proc *c, __u64 ts)
{
	bool created, moved;
	struct mproc *p = proc_get(m, c->pid, c->start_ns, &created);
	struct msession *s;
	__u32 ppid;

	if (!p)
		return NULL;
	if (p->start_tick_ns) {
		/* Now exact; its lineage link too, which names it in every descendant's. */
		p->ctx.start_ns = c->start_ns;
		p->start_tick_ns = 0;
		if (p->lineage)
			p->lineage->start_ns = c->start_ns;
	}
	if (!created && ts && ts < p->updated_ns)
		return p; /* older than what we know */
	/* Left and joined only on a move: a session's last member keeps it. */
	moved = created || c->sid != p->ctx.sid;
	if (!created && moved)
		leave(m, p);
	/* The one conversion: every field, then the parent a prediction keeps. */
	ppid = p->ctx.ppid;
	p->ctx = *c;
	if (!p->predicted_ppid || c->ppid == p->predicted_ppid) {
		p->predicted_ppid = 0;
	} else if (c->ppid == p->adopted_from) {
		p->ctx.ppid = ppid; /* read before exit_notify() moved it: keep the prediction */
	} else {
		/* Neither the old parent nor the predicted one: the kernel chose differently. */
		note(m, NOTE_REPARENT_MISMATCH, p->ctx.pid, p->predicted_ppid, c->ppid);
		p->predicted_ppid = 0;
	}
	if (c->flags & PGT_F_ZOMBIE)
		p->zombie = true;
	p->updated_ns = ts;
	if (moved)
		join(m, p);
	s = model__session(m, p->ctx.sid);
	if (s && p->ctx.pid == p->ctx.sid)
		s->leader_start_ns = p->ctx.start_ns;
	if (s && s->released_tty && s->released_tty == p->ctx.tty_nr) {
		drop_tty(p);
		return p;
	}
	track_tty(m, p, c->tty_fg_pgid);
	m->generation++;
	return p;
}

/*
 * Programs that start a login: the session a child of theirs starts is an
 * entry even without a tty (ssh host cmd). OpenSSH 9.8 and later run each
 * connection as sshd-session.
 */
static bool is_login_program(const char *comm)
{
	static const char *const names[] = { "sshd",   "sshd-session", "login",
					     "agetty", "getty",	       "mingetty",
					     "su",     "sudo",	       "in.telnetd" };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strncmp(comm, names[i], PGT_COMM_LEN))
			return true;
	return false;
}

/*
 * A login is a session that has a controlling tty (a console, a getty, an
 * sshd or su --pty pty, a terminal emulator's or tmux's pane), or that a
 * child of a login program started (sshd's session child running ssh host
 * cmd). sshd's own per-connection sessions are not logins. The leader of a
 * login is an entry leader, as ECS's process.entry_leader; a process's
 * entry leader is the innermost one: a login inside a login (ssh from a
 * shell, tmux, su --pty) is a login of its own. It is decided when the
 * session leader execs, which is when sshd's child becomes the shell; a
 * process that is not a login keeps the one it was born in, whatever it
 * does later (a setsid without a tty is an escape, not a login).
 */
static void maybe_entry(struct model *m, struct mproc *p)
{
	const struct lineage *up;

	if (!p->lineage || p->entry == p->lineage || !(p->ctx.flags & PGT_F_SESSION_LEADER))
		return;
	up = p->lineage->parent;
	if (!p->ctx.tty_nr && (!up || !is_login_program(up->comm) || is_login_program(p->ctx.comm)))
		return;
	lineage__put(p->entry);
	p->entry = lineage__get(p->lineage);
	p->entry->tty_nr = p->ctx.tty_nr;
	memcpy(p->entry->tty, p->ctx.tty, sizeof(p->ctx.tty));
	p->entry_inferred = m->resyncing;
	if (m->entry_fn)
		m->entry_fn(m->entry_ctx, p->entry);
}

/*
 * Transition "cgroup": a move in the unified hierarchy replaces the path
 * and id; a move in a v1 hierarchy (a hybrid machine's container runtime
 * moves it in every v1 hierarchy) replaces the v1 path.
 */
static void on_cgroup(struct model *m, const struct pgt_cgroup *e)
{
	struct mproc *p = proc_update(m, &e->proc, e->hdr.ts_ns);
	const struct pcgroup *old;
	struct pcgroup *cg;

	if (!p)
		return;
	old = p->cg;
	/* A path that fills the record may be cut: /proc has it whole. */
	if (strnlen(e->path, sizeof(e->path)) >= sizeof(e->path) - 1 &&
	    (cg = cgroup_from_proc(m, p))) {
		pcgroup__put(p->cg);
		p->cg = cg;
		return;
	}
	if (e->hierarchy_id == 0)
		cg = pcgroup__new(e->path, sizeof(e->path), e->cgroup_id, old ? old->v1 : NULL,
				  PGT_CGROUP_PATH_LEN * 32);
	else
		cg = pcgroup__new(old ? old->v2 : NULL, PGT_CGROUP_PATH_LEN * 32, old ? old->id : 0,
				  e->path, sizeof(e->path));
	if (cg) {
		pcgroup__put(p->cg);
		p->cg = cg;
	}
}

/* Transition "fork": the child is born into its parent's lineage. */
static void on_proc_fork(struct model *m, const struct pgt_fork *e)
{
	struct mproc *parent, *child, *real_parent, *forker;

	forker = proc_update(m, &e->proc, e->hdr.ts_ns);
	/* First seen forking (a replay of what began before it): its link now. */
	if (forker && !forker->lineage)
		lineage_of(m, forker);
	child = proc_update(m, &e->child, e->hdr.ts_ns);
	/* Looked up again: the child's update may have replaced a reused pid. */
	parent = model__find(m, e->proc.pid);
	if (parent && !model__same_start(parent, e->proc.start_ns))
		parent = NULL;
	real_parent = model__find(m, e->child.ppid);
	if (!child || child->lineage)
		return;
	forker = parent != child ? parent : NULL;
	if (real_parent && real_parent != parent && real_parent != child)
		parent = real_parent; /* CLONE_PARENT */
	if (parent == child)
		parent = NULL;
	child->lineage = proc_link(child, parent ? parent->lineage : NULL);
	/* Until it execs, the child runs what its forker ran. */
	if (forker && forker->lineage && child->lineage)
		child->lineage->image = image__get(forker->lineage->image);
	child->born_sid = child->ctx.sid;
	child->born_pgid = child->ctx.pgid;
	child->entry = parent ? lineage__get(parent->entry) : NULL;
	child->entry_inferred = parent ? parent->entry_inferred : true;
	/* Born into its forker's cgroups, unless clone3's CLONE_INTO_CGROUP put it elsewhere. */
	if (child->cg)
		;
	else if (e->child.flags & PGT_F_OWN_CGROUP)
		child->cg = cgroup_from_proc(m, child);
	else if (forker)
		child->cg = pcgroup__get(forker->cg);
}

void model__set_exec(struct mproc *p, const char *exe, const char *args, size_t len, bool cut)
{
	if (!p->lineage)
		return;
	image__put(p->lineage->image);
	p->lineage->image = image__new(exe, args, len, cut);
}

/* Transition "exec": new name and image; a non-leader exec keeps the process. */
static void on_proc_exec(struct model *m, const struct pgt_exec *e)
{
	struct mproc *p = proc_update(m, &e->proc, e->hdr.ts_ns);
	char exe[DECODE_PATH_SIZE];
	bool cut = false;

	/* First seen at its exec (a replay of what began before it): its link now. */
	if (p && !p->lineage)
		lineage_of(m, p);
	if (p && p->lineage) {
		memcpy(p->lineage->comm, p->ctx.comm, sizeof(p->ctx.comm));
		/* A cut path is not a path: kept only whole. */
		if (decode__exec_path(e, true, exe, sizeof(exe), &cut) < 0 || cut)
			exe[0] = '\0';
		model__set_exec(p, exe[0] ? exe : NULL,
				e->flags & PGT_EXEC_HAS_ARGS ? e->data : NULL, e->args_len,
				e->flags & PGT_EXEC_ARGS_CUT);
		maybe_entry(m, p); /* sshd's session child becomes the shell */
	}
}

/* Transition "exit": a zombie until reaped; it stays in its group. */
static void on_proc_exit(struct model *m, const struct pgt_exit *e)
{
	struct mproc *p = proc_update(m, &e->proc, e->hdr.ts_ns);

	if (!p)
		return;
	p->zombie = true;
	p->exit_status = e->status;
}

/* Transition "reap": gone; its group and session lose a member. */
static void on_reap(struct model *m, const struct pgt_reap *e)
{
	struct mproc *p = model__find(m, e->pid);

	/* Start time 0: the classic tracepoint level, which knows only a pid. */
	if (p && (e->start_ns ? model__same_start(p, e->start_ns) : p->zombie))
		proc_remove(m, p);
}

/* Transition "reparent": the orphan's new parent, to be confirmed. */
static void on_reparent(struct model *m, const struct pgt_reparent *e)
{
	struct mproc *c;

	proc_update(m, &e->proc, e->hdr.ts_ns);
	c = model__find(m, e->child_pid);
	if (!c || !model__same_start(c, e->child_start_ns))
		return;
	if (c->ctx.ppid != e->reaper_pid) {
		c->adopted_from = c->ctx.ppid;
		c->ctx.ppid = e->reaper_pid;
		c->predicted_ppid = e->reaper_pid;
		if (m->npredicted < sizeof(m->predicted) / sizeof(m->predicted[0]))
			m->predicted[m->npredicted++] = c->ctx.pid;
	}
	c->updated_ns = e->hdr.ts_ns;
	m->generation++;
}

/* Transition "setpgid": the target moved; the caller's context as usual. */
static void on_setpgid(struct model *m, const struct pgt_setpgid *e)
{
	proc_update(m, &e->proc, e->hdr.ts_ns);
	if (e->target_found && e->target.pid != e->proc.pid)
		proc_update(m, &e->target, e->hdr.ts_ns);
}

/* Everyone in @sid loses @tty_nr (0: any tty): session_clear_tty(). */
static void clear_session_tty(struct model *m, __u32 sid, __u32 tty_nr)
{
	struct proc_node *tmp;
	struct mproc *p;
	struct msession *s;
	struct mtty *t;

	FOR_EACH_PROC_SAFE(m, p, tmp) {
		if (p->ctx.sid != sid || !p->ctx.tty_nr || (tty_nr && p->ctx.tty_nr != tty_nr))
			continue;
		if (!tty_nr)
			tty_nr = p->ctx.tty_nr;
		drop_tty(p);
	}
	s = model__session(m, sid);
	if (s && (!tty_nr || s->tty_nr == tty_nr)) {
		if (!tty_nr)
			tty_nr = s->tty_nr;
		s->tty_nr = 0;
		s->tty[0] = '\0';
	}
	if (s)
		s->released_tty = tty_nr;
	t = tty_nr ? model__tty(m, tty_nr) : NULL;
	if (t && t->sid == sid) {
		t->sid = 0;
		t->fg_pgid = 0;
	}
	m->generation++;
}

/*
 * Transition "tty": a session gains its controlling tty (the tty's
 * foreground group becomes the acquirer's), or loses it: the caller alone,
 * or, when the kernel clears the whole session, every member.
 */
static void on_tty(struct model *m, const struct pgt_tty *e)
{
	struct mproc *p = proc_update(m, &e->proc, e->hdr.ts_ns);
	struct mtty *t;

	if (e->acquire) {
		struct msession *s = model__session(m, e->sid);

		if (s)
			s->released_tty = 0;
		if (p) {
			/* A context read before a release in this session. */
			p->ctx.tty_nr = e->tty_nr;
			memcpy(p->ctx.tty, e->tty, sizeof(p->ctx.tty));
			p->ctx.flags |= PGT_F_HAS_TTY;
			track_tty(m, p, e->fg_pgid);
			maybe_entry(m, p);
		}
		t = model__tty(m, e->tty_nr);
		if (t) {
			t->sid = e->sid;
			t->fg_pgid = e->fg_pgid;
		}
		return;
	}
	if (e->session_wide) {
		clear_session_tty(m, e->sid, e->tty_nr);
	} else if (p && p->ctx.tty_nr == e->tty_nr) {
		drop_tty(p);
	}
}

/* Transition "foreground": TIOCSPGRP moved the tty to another group. */
static void on_foreground(struct model *m, const struct pgt_foreground *e)
{
	struct mtty *t;

	proc_update(m, &e->proc, e->hdr.ts_ns);
	t = model__tty(m, e->tty_nr);
	if (t && e->ret == 0) {
		t->fg_pgid = e->new_pgid;
		m->generation++;
	}
}

void model__apply(struct model *m, const struct pgt_event *ev)
{
	switch (ev->hdr->type) {
	case PGT_FORK:
		on_proc_fork(m, ev->fork);
		break;
	case PGT_EXEC:
		on_proc_exec(m, ev->exec);
		break;
	case PGT_EXIT:
		on_proc_exit(m, ev->exit);
		break;
	case PGT_REAP:
		on_reap(m, ev->reap);
		break;
	case PGT_REPARENT:
		on_reparent(m, ev->reparent);
		break;
	case PGT_SETPGID:
		on_setpgid(m, ev->setpgid);
		break;
	case PGT_SETSID: {
		struct mproc *p = proc_update(m, &ev->setsid->proc, ev->hdr->ts_ns);

		if (p)
			maybe_entry(m, p);
		break;
	}
	case PGT_CGROUP:
		on_cgroup(m, ev->cgroup);
		break;
	case PGT_SUBREAPER:
		proc_update(m, &ev->subreaper->proc, ev->hdr->ts_ns);
		break;
	case PGT_SNAP:
		model__snapshot_add(m, ev->snap, false);
		break;
	case PGT_TTY:
		on_tty(m, ev->tty);
		break;
	case PGT_FOREGROUND:
		on_foreground(m, ev->fg);
		break;
	}
}

void model__snapshot_add(struct model *m, const struct pgt_snap *rec, bool start_approx)
{
	const struct pgt_proc *c = &rec->proc;
	struct mproc *p = m->resyncing ? model__find(m, c->pid) : NULL;
	bool known = p && model__same_start(p, c->start_ns);
	bool changed = known &&
		       (p->ctx.ppid != c->ppid || p->ctx.pgid != c->pgid || p->ctx.sid != c->sid ||
			p->ctx.tty_nr != c->tty_nr || p->zombie != !!(c->flags & PGT_F_ZOMBIE));

	p = proc_update(m, c, rec->hdr.ts_ns);
	if (!p)
		return;
	if (m->resyncing) {
		p->seen = true;
		if (!known || changed) {
			p->uncertain = true;
			note(m, known ? NOTE_RESYNC_CHANGED : NOTE_RESYNC_ADDED, p->ctx.pid, 0, 0);
		}
	}
	p->zombie = rec->proc.flags & PGT_F_ZOMBIE;
	if (start_approx)
		p->start_tick_ns = (__u32)tick_ns(m);
}

/*
 * Lineage for the processes the snapshot found, parents first: climb to the
 * first ancestor that has one (or the root), then link down. No depth limit;
 * a ppid loop (a resync mid-change) ends at the model's size.
 */
static void lineage_of(struct model *m, struct mproc *p)
{
	size_t n = 0, cap = 0, limit = model__count(m);
	struct mproc **up = NULL, **nu, *q;

	for (q = p; q && !q->lineage && n <= limit;) {
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			nu = realloc(up, cap * sizeof(*up));
			if (!nu)
				break;
			up = nu;
		}
		up[n++] = q;
		q = q->ctx.ppid && q->ctx.ppid != q->ctx.pid ? model__find(m, q->ctx.ppid) : NULL;
	}
	while (n--) {
		if (!up[n]->lineage) /* a loop visits some twice */
			up[n]->lineage = proc_link(up[n], q ? q->lineage : NULL);
		q = up[n];
	}
	free(up);
}

static struct lineage *entry_of(struct model *m, struct mproc *p)
{
	int depth;

	for (depth = 0; p && depth < 128; depth++) {
		maybe_entry(m, p);
		if (p->entry)
			return p->entry;
		if (!p->ctx.ppid || p->ctx.ppid == p->ctx.pid)
			break;
		p = model__find(m, p->ctx.ppid);
	}
	return NULL;
}

void model__snapshot_done(struct model *m)
{
	struct proc_node *tmp;
	struct mproc *p;

	FOR_EACH_PROC_SAFE(m, p, tmp)
		lineage_of(m, p);
	FOR_EACH_PROC_SAFE(m, p, tmp) {
		struct lineage *e = entry_of(m, p);

		if (e != p->entry) {
			lineage__put(p->entry);
			p->entry = lineage__get(e);
			p->entry_inferred = true;
		}
		if (!p->born_sid) {
			p->entry_inferred = true;
			p->born_sid = p->ctx.sid;
			p->born_pgid = p->ctx.pgid;
		}
	}
}

/* How long a reparent may wait for the kernel to catch up with it. */
#define REPARENT_PENDING_NS 1000000000ULL
/*
 * ... unless /proc shows that parent still exiting (PF_EXITING, not yet a
 * zombie): freeing a large address space or closing many files comes before
 * the reparenting (exit_notify), and takes what it takes. Bounded all the same.
 */
#define REPARENT_EXITING_NS 30000000000ULL

/* The old parent is still in do_exit, before exit_notify(). */
static bool still_exiting(struct model *m, __u32 pid)
{
	struct model_stat st;

	return read_stat(m, (pid_t)pid, &st) == 0 && (st.flags & PF_EXITING) && st.state != 'Z' &&
	       st.state != 'X';
}

void model__confirm_reparents(struct model *m, __u64 now_ns, __u64 age_ns)
{
	unsigned int i, kept = 0;
	struct model_stat st;
	struct mproc *p;

	for (i = 0; i < m->npredicted; i++) {
		p = model__find(m, m->predicted[i]);
		if (!p || !p->predicted_ppid)
			continue;
		if (now_ns && now_ns - p->updated_ns < age_ns) {
			m->predicted[kept++] = m->predicted[i];
			continue;
		}
		if (read_stat(m, (pid_t)p->ctx.pid, &st))
			st.ppid = 0;
		/*
		 * /proc still names the exiting parent: the kernel has not
		 * reparented yet (the prediction comes from sched_process_exit,
		 * before exit_notify). Ask again later, for a while: a parent
		 * that still names itself after REPARENT_PENDING_NS, and is not
		 * exiting, did not die (the BPF side saw only some of its
		 * threads), and /proc wins.
		 */
		if (st.ppid > 0 && (__u32)st.ppid == p->adopted_from &&
		    p->adopted_from != p->predicted_ppid &&
		    (!now_ns || now_ns - p->updated_ns < REPARENT_PENDING_NS ||
		     (now_ns - p->updated_ns < REPARENT_EXITING_NS &&
		      still_exiting(m, p->adopted_from)))) {
			m->predicted[kept++] = m->predicted[i];
			continue;
		}
		if ((__u32)st.ppid != p->ctx.ppid && st.ppid > 0) {
			note(m, NOTE_REPARENT_MISMATCH, p->ctx.pid, p->predicted_ppid,
			     (__u32)st.ppid);
			p->ctx.ppid = (__u32)st.ppid;
			m->generation++;
		}
		p->predicted_ppid = 0;
	}
	m->npredicted = kept;
}

unsigned int model__pending_reparents(const struct model *m)
{
	return m->npredicted;
}

/*
 * Zombies that /proc no longer has (or has under a reused pid), @age_ns
 * after their last event, leave the model; with @say, each with a note.
 */
static unsigned int drop_gone_zombies(struct model *m, __u64 now_ns, __u64 age_ns, bool say)
{
	long tick = tick_ns(m);
	struct proc_node *tmp;
	struct mproc *p;
	struct model_stat st;
	unsigned int n = 0;

	FOR_EACH_PROC_SAFE(m, p, tmp) {
		if (!p->zombie || now_ns - p->updated_ns < age_ns)
			continue;
		/* Still there, and the same process (not a reused pid). */
		if (read_stat(m, (pid_t)p->ctx.pid, &st) == 0 &&
		    st.start_ticks == p->ctx.start_ns / (__u64)tick)
			continue;
		if (say)
			note(m, NOTE_ZOMBIE_GONE, p->ctx.pid, 0, 0);
		proc_remove(m, p);
		n++;
	}
	return n;
}

void model__drop_reaped(struct model *m)
{
	drop_gone_zombies(m, 0, 0, false);
}

unsigned int model__audit_zombies(struct model *m, __u64 now_ns, __u64 age_ns)
{
	return drop_gone_zombies(m, now_ns, age_ns, true);
}

void model__resync_begin(struct model *m)
{
	struct proc_node *tmp;
	struct mproc *p;

	FOR_EACH_PROC_SAFE(m, p, tmp)
		p->seen = false;
	m->resyncing = true;
}

void model__resync_end(struct model *m)
{
	struct proc_node *tmp;
	struct mproc *p;

	m->resyncing = false;
	FOR_EACH_PROC_SAFE(m, p, tmp) {
		if (p->seen)
			continue;
		note(m, NOTE_RESYNC_REMOVED, p->ctx.pid, 0, 0);
		proc_remove(m, p);
	}
}

void model__clear(struct model *m)
{
	struct proc_node *ptmp;
	struct mproc *p;
	struct tty_node *t, *ttmp;

	FOR_EACH_PROC_SAFE(m, p, ptmp)
		proc_remove(m, p);
	HASH_ITER(hh, m->ttys, t, ttmp) {
		HASH_DEL(m->ttys, t);
		free(t);
	}
}

void model__free(struct model *m)
{
	if (!m)
		return;
	model__clear(m);
	free(m);
}

struct msession *model__session(const struct model *m, __u32 sid)
{
	struct session_node *n;

	HASH_FIND(hh, m->sessions, &sid, sizeof(sid), n);
	return n ? &n->s : NULL;
}

struct mtty *model__tty(const struct model *m, __u32 tty_nr)
{
	struct tty_node *n;

	HASH_FIND(hh, m->ttys, &tty_nr, sizeof(tty_nr), n);
	return n ? &n->t : NULL;
}

unsigned int model__count(const struct model *m)
{
	return HASH_COUNT(m->procs);
}

struct msession *model__next_session(const struct model *m, const struct msession *s)
{
	struct session_node *n = s ? ((struct session_node *)s)->hh.next : m->sessions;

	return n ? &n->s : NULL;
}

struct mtty *model__next_tty(const struct model *m, const struct mtty *t)
{
	struct tty_node *n = t ? ((struct tty_node *)t)->hh.next : m->ttys;

	return n ? &n->t : NULL;
}

struct mproc *model__restore(struct model *m, const struct mproc *src)
{
	struct proc_node *n = model__find(m, src->ctx.pid) ? NULL : calloc(1, sizeof(*n));

	if (!n) {
		lineage__put(src->lineage);
		lineage__put(src->entry);
		pcgroup__put(src->cg);
		return NULL;
	}
	n->p = *src;
	n->p.seen = false;
	HASH_ADD(hh, m->procs, p.ctx.pid, sizeof(n->p.ctx.pid), n);
	join(m, &n->p);
	m->generation++;
	return &n->p;
}

void model__restore_session(struct model *m, const struct msession *src)
{
	struct msession *s = model__session(m, src->sid);

	if (!s)
		return; /* a session lives while it has members */
	s->tty_nr = src->tty_nr;
	s->released_tty = src->released_tty;
	memcpy(s->tty, src->tty, sizeof(s->tty));
	s->leader_start_ns = src->leader_start_ns;
}

void model__restore_tty(struct model *m, const struct mtty *src)
{
	struct tty_node *n;

	HASH_FIND(hh, m->ttys, &src->tty_nr, sizeof(src->tty_nr), n);
	if (!n) {
		n = calloc(1, sizeof(*n));
		if (!n)
			return;
		n->t.tty_nr = src->tty_nr;
		HASH_ADD(hh, m->ttys, t.tty_nr, sizeof(n->t.tty_nr), n);
	}
	n->t = *src;
	m->generation++;
}
