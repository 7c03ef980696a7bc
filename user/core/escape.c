// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdlib.h>
#include <string.h>
#include <uthash.h>
#include "escape.h"

/* How long a login's processes may take to die after its leader did. */
#define OUTLIVE_GRACE_NS    1000000000ULL
/* An orphan this young when its parent died was double-forked away. */
#define DAEMONIZE_WINDOW_NS 1000000000ULL

/*
 * A child's setpgid followed this soon by its parent's on it is job control.
 */
#define HOLD_NS	       200000000ULL
/*
 * A setsid followed this soon by a tty acquisition starts a login. On a
 * machine of its own a login's tty comes within a millisecond of its
 * setsid; a guest starved of CPU (qemu's TCG beside other guests) was seen
 * to take over 200 ms between the two calls, and reported the login of a
 * pty as an escape. The cost is the report's delay, up to this long.
 */
#define SETSID_HOLD_NS 1000000000ULL

struct held {
	struct escape e;
	__u64 due_ns;
	struct held *next;
};

struct outlive_check {
	struct lineage *entry;
	__u64 due_ns;
	__u64 seq;
	struct outlive_check *next;
};

/*
 * What this module has already said about a process, so that it says it
 * once. Kept by (pid, start), apart from the model: a mark whose process the
 * model no longer has is pruned by escapes__tick().
 */
struct mark {
	__u32 pid; /* hash key */
	__u64 start_ns;
	bool left_pgrp; /* reported as leaving its home group */
	bool outlived;	/* reported as outliving its login */
	UT_hash_handle hh;
};

static const char *const kind_names[] = {
	[ESC_SETSID] = "setsid",     [ESC_PGRP] = "pgrp",
	[ESC_REPARENT] = "reparent", [ESC_DAEMONIZE] = "daemonize",
	[ESC_TTY_DROP] = "tty_drop", [ESC_OUTLIVED_LOGIN] = "outlived_login",
	[ESC_CGROUP] = "cgroup",     [ESC_PIDNS] = "pidns",
};

const char *escape__kind_name(enum escape_kind kind)
{
	return kind > 0 && kind <= ESC_PIDNS ? kind_names[kind] : "?";
}

/* @p's mark; created when @create, else NULL if it has none. */
static struct mark *mark_of(struct escapes *es, const struct mproc *p, bool create)
{
	struct mark *k;

	HASH_FIND(hh, es->marks, &p->ctx.pid, sizeof(p->ctx.pid), k);
	if (k && k->start_ns != p->ctx.start_ns) { /* an older process's */
		HASH_DEL(es->marks, k);
		free(k);
		k = NULL;
	}
	if (k || !create)
		return k;
	k = calloc(1, sizeof(*k));
	if (!k)
		return NULL;
	k->pid = p->ctx.pid;
	k->start_ns = p->ctx.start_ns;
	HASH_ADD(hh, es->marks, pid, sizeof(k->pid), k);
	return k;
}

/* Marks of processes the model no longer has; each time their number has doubled. */
static void prune_marks(struct escapes *es, const struct model *m)
{
	struct mark *k, *tmp;
	const struct mproc *p;

	if (HASH_COUNT(es->marks) < 2 * es->marks_kept + 64)
		return;
	HASH_ITER(hh, es->marks, k, tmp) {
		p = model__find(m, k->pid);
		if (!p || p->ctx.start_ns != k->start_ns) {
			HASH_DEL(es->marks, k);
			free(k);
		}
	}
	es->marks_kept = HASH_COUNT(es->marks);
}

void escapes__init(struct escapes *es, escape_fn fn, void *ctx)
{
	memset(es, 0, sizeof(*es));
	es->fn = fn;
	es->ctx = ctx;
}

static void where_of(struct escape_where *w, const struct pgt_proc *c)
{
	w->sid = c->sid;
	w->pgid = c->pgid;
	w->ppid = c->ppid;
	w->tty_nr = c->tty_nr;
	memcpy(w->tty, c->tty, sizeof(w->tty));
}

/* The escape takes its own references to @p's lineage and login. */
static void bind(struct escape *e, const struct mproc *p)
{
	e->lineage = p ? lineage__get(p->lineage) : NULL;
	e->entry = p ? lineage__get(p->entry) : NULL;
	e->entry_inferred = !p || p->entry_inferred;
	e->cg = p ? pcgroup__get(p->cg) : NULL;
	e->image = p ? image__get(model__image(p)) : NULL;
}

static void unbind(struct escape *e)
{
	lineage__put(e->lineage);
	lineage__put(e->entry);
	image__put(e->image);
	pcgroup__put(e->cg);
	e->cg = NULL;
	e->lineage = e->entry = NULL;
	e->image = NULL;
}

static void emit(struct escapes *es, struct escape *e)
{
	es->fn(es->ctx, e);
	unbind(e);
}

/* An escape of @proc shown at @seq and @ts_ns, from and to where @proc is. */
static void escape_at(struct escape *e, const struct model *m, enum escape_kind kind, __u64 seq,
		      __u64 ts_ns, const struct pgt_proc *proc)
{
	const struct mproc *p = model__find(m, proc->pid);
	const struct mproc *pp = proc->ppid ? model__find(m, proc->ppid) : NULL;

	memset(e, 0, sizeof(*e));
	e->kind = kind;
	e->seq = seq;
	e->ts_ns = ts_ns;

	e->proc = *proc;
	e->parent_start = pp ? pp->ctx.start_ns : 0;
	bind(e, p && model__same_start(p, proc->start_ns) ? p : NULL);
	where_of(&e->from, proc);
	where_of(&e->to, proc);
}

/* An escape of @proc shown by the record @h. */
static void escape_init(struct escape *e, const struct model *m, enum escape_kind kind,
			const struct pgt_hdr *h, const struct pgt_proc *proc)
{
	escape_at(e, m, kind, h->seq, h->ts_ns, proc);
}

static void report(struct escapes *es, const struct model *m, enum escape_kind kind,
		   const struct pgt_hdr *h, const struct pgt_proc *proc)
{
	struct escape e;

	escape_init(&e, m, kind, h, proc);
	emit(es, &e);
}

/*
 * Job control, as the kernel shows it: a process placing its child in a
 * group of their session (only a parent may, and only before the child's
 * exec: EACCES after), with or without a tty, as every job-control shell
 * does (`set -m` too); or an interactive shell moving its jobs: the session
 * has a terminal, and the caller leads the session or is its child. A child
 * that places itself is job control too when its parent places it as well
 * (shells make both calls, POSIX's idiom against the race): on_setpgid()
 * holds it for a moment to see.
 */
void escapes__classify(struct escapes *es, const struct model *m, struct pgt_event *ev)
{
	const struct pgt_setpgid *s;
	const struct msession *ms;

	if (ev->hdr->type != PGT_SETPGID)
		return;
	s = ev->setpgid;
	if (!s->target_found || s->target.sid != s->proc.sid)
		return;
	if (s->target.ppid == s->proc.pid && s->target.pid != s->proc.pid) {
		ev->notes |= EV_JOB_CONTROL; /* even when it failed */
		return;
	}
	ms = model__session(m, s->proc.sid);
	if (s->ret < 0 || !ms || !ms->tty_nr)
		return;
	if (s->proc.pid == s->proc.sid || s->proc.ppid == s->proc.sid)
		ev->notes |= EV_JOB_CONTROL;
}

/*
 * A terminal emulator, sshd or tmux starts a login with setsid and then
 * takes a tty: that session is a login's birth, not an escape. So a setsid is
 * held for a moment, and dropped if its process acquires a tty meanwhile;
 * and a child's move to a group of its own, dropped if its parent moves it
 * too.
 */
static void hold(struct escapes *es, struct escape *e)
{
	struct held *h = calloc(1, sizeof(*h));

	if (!h) {
		emit(es, e);
		return;
	}
	h->e = *e;
	h->due_ns = e->ts_ns + (e->kind == ESC_SETSID ? SETSID_HOLD_NS : HOLD_NS);
	h->next = es->held;
	es->held = h;
}

/*
 * Drop the held escape of @kind by @pid (a login starting, a job placed), or
 * with @pid 0, report those due at @now_ns (all with @now_ns 0).
 */
static void release_held(struct escapes *es, const struct model *m, enum escape_kind kind,
			 __u32 pid, __u64 now_ns)
{
	struct held **link = &es->held, *h;

	while ((h = *link)) {
		if (pid && h->e.proc.pid == pid && h->e.kind == kind) {
			*link = h->next;
			unbind(&h->e);
			free(h);
		} else if (!pid && (!now_ns || h->due_ns <= now_ns)) {
			*link = h->next;
			emit(es, &h->e);
			free(h);
		} else {
			link = &h->next;
		}
	}
}

static void on_setsid(struct escapes *es, const struct model *m, const struct pgt_setsid *s)
{
	struct escape e;

	if (s->ret < 0)
		return;
	escape_init(&e, m, ESC_SETSID, &s->hdr, &s->proc);
	e.from.sid = s->old.sid;
	e.from.pgid = s->old.pgid;
	e.from.tty_nr = s->old.tty_nr;
	memcpy(e.from.tty, s->old.tty, sizeof(e.from.tty));
	hold(es, &e);
}

/*
 * A process that leaves the group it was born into, or that job control put
 * it in (its home group), escapes it; once: moving back home, and moving on
 * from there, are not news (a race test flips 78,000 times).
 */
static void on_setpgid(struct escapes *es, struct model *m, const struct pgt_event *ev)
{
	const struct pgt_setpgid *s = ev->setpgid;
	struct mproc *p;
	struct mark *k;
	struct escape e;

	if (!s->target_found)
		return;
	p = model__find(m, s->target.pid);
	if (p && !model__same_start(p, s->target.start_ns))
		p = NULL;
	if (ev->notes & EV_JOB_CONTROL) {
		release_held(es, m, ESC_PGRP, s->target.pid, 0);
		if (p && s->ret == 0)
			model__rehome(p, s->target.pgid); /* its job is its home */
		else if (p && s->ret < 0 && p->ctx.pgid != p->born_pgid)
			model__rehome(p, p->ctx.pgid); /* it placed itself first */
		else
			return;
		k = mark_of(es, p, false);
		if (k)
			k->left_pgrp = false;
		return;
	}
	if (s->ret < 0 || s->old.pgid == s->target.pgid || !p || s->old.pgid != p->born_pgid)
		return;
	k = mark_of(es, p, true);
	if (!k || k->left_pgrp)
		return;
	k->left_pgrp = true;
	escape_init(&e, m, ESC_PGRP, &s->hdr, &s->target);
	e.from.pgid = s->old.pgid;
	if (s->proc.pid == s->target.pid && s->target.ppid)
		hold(es, &e); /* its parent may place it too */
	else
		emit(es, &e);
}

static void on_reparent(struct escapes *es, const struct model *m, const struct pgt_reparent *r)
{
	const struct mproc *c = model__find(m, r->child_pid);
	enum escape_kind kind = ESC_REPARENT;
	struct escape e;

	/* A zombie adopted escapes nothing: it is already gone. */
	if ((r->reason & PGT_REPARENT_REASONS) == PGT_REAPER_THREAD || !c ||
	    !model__same_start(c, r->child_start_ns) || c->zombie)
		return;
	/*
	 * Nor does an orphan the kernel saw dying (a fatal signal taking it,
	 * SIGKILL pending): a job its shell killed just before it exited.
	 * Nor will it outlive its login.
	 */
	if (r->reason & PGT_REPARENT_DYING) {
		struct mark *k = mark_of(es, c, true);

		if (k)
			k->outlived = true;
		return;
	}
	/*
	 * A daemon: it left its session, or the parent that forked it exited
	 * right away without leading a session (the middle of a double fork;
	 * a login shell's exit is a plain reparent).
	 */
	if (c->ctx.sid != c->born_sid || (r->hdr.ts_ns - c->ctx.start_ns < DAEMONIZE_WINDOW_NS &&
					  !(r->proc.flags & PGT_F_SESSION_LEADER)))
		kind = ESC_DAEMONIZE;
	escape_init(&e, m, kind, &r->hdr, &c->ctx);
	e.from.ppid = r->proc.pid;
	e.to.ppid = r->reaper_pid;
	emit(es, &e);
}

static void schedule_outlive_check(struct escapes *es, const struct mproc *p, __u64 ts, __u64 seq)
{
	struct outlive_check *c;

	if (!p || !p->entry || p->entry != p->lineage)
		return;
	c = calloc(1, sizeof(*c));
	if (!c)
		return;
	c->entry = lineage__get(p->entry);
	c->due_ns = ts + OUTLIVE_GRACE_NS;
	c->seq = seq;
	c->next = es->checks;
	es->checks = c;
}

void escapes__report(struct escapes *es, struct model *m, const struct pgt_event *ev)
{
	const struct pgt_tty *t;

	switch (ev->hdr->type) {
	case PGT_SETSID:
		on_setsid(es, m, ev->setsid);
		break;
	case PGT_SETPGID:
		on_setpgid(es, m, ev);
		break;
	case PGT_REPARENT:
		on_reparent(es, m, ev->reparent);
		break;
	case PGT_TTY:
		t = ev->tty;
		if (t->acquire)
			release_held(es, m, ESC_SETSID, t->proc.pid, 0);
		/* A process giving up its own tty; the kernel's sweeps are not choices. */
		if (!t->acquire && t->how == PGT_TTY_TIOCNOTTY) {
			struct escape e;

			escape_init(&e, m, ESC_TTY_DROP, &t->hdr, &t->proc);
			e.from.tty_nr = t->tty_nr;
			memcpy(e.from.tty, t->tty, sizeof(e.from.tty));
			e.to.tty_nr = 0;
			e.to.tty[0] = '\0';
			emit(es, &e);
		}
		break;
	case PGT_CGROUP: {
		struct escape e;

		/* The unified hierarchy only: v1 repeats the move once per controller. */
		if (ev->cgroup->hierarchy_id != 0)
			break;
		escape_init(&e, m, ESC_CGROUP, ev->hdr, &ev->cgroup->proc);
		memcpy(e.detail, ev->cgroup->path, sizeof(e.detail));
		emit(es, &e);
		break;
	}
	case PGT_FORK:
		if (ev->fork->child.pidns_ino != ev->fork->proc.pidns_ino)
			report(es, m, ESC_PIDNS, ev->hdr, &ev->fork->child);
		break;
	case PGT_EXIT:
		schedule_outlive_check(es, model__find(m, ev->exit->proc.pid), ev->hdr->ts_ns,
				       ev->hdr->seq);
		break;
	}
}

void escapes__tick(struct escapes *es, struct model *m, __u64 now_ns)
{
	struct outlive_check **link = &es->checks, *c;
	struct mproc *p;
	struct mark *k;

	release_held(es, m, 0, 0, now_ns);
	prune_marks(es, m);
	while ((c = *link)) {
		if (now_ns && c->due_ns > now_ns) {
			link = &c->next;
			continue;
		}
		model__for_each_proc(m, p) {
			struct escape e;

			if (p->entry != c->entry || p->zombie || p->lineage == c->entry)
				continue;
			k = mark_of(es, p, true);
			if (!k || k->outlived)
				continue;
			k->outlived = true;
			escape_at(&e, m, ESC_OUTLIVED_LOGIN, c->seq, c->due_ns, &p->ctx);
			emit(es, &e);
		}
		*link = c->next;
		lineage__put(c->entry);
		free(c);
	}
}

void escapes__flush(struct escapes *es, struct model *m)
{
	release_held(es, m, 0, 0, 0);
}

void escapes__free(struct escapes *es)
{
	struct outlive_check *c, *next;
	struct held *h, *hnext;
	struct mark *k, *tmp;

	for (c = es->checks; c; c = next) {
		next = c->next;
		lineage__put(c->entry);
		free(c);
	}
	es->checks = NULL;
	for (h = es->held; h; h = hnext) {
		hnext = h->next;
		unbind(&h->e);
		free(h);
	}
	es->held = NULL;
	HASH_ITER(hh, es->marks, k, tmp) {
		HASH_DEL(es->marks, k);
		free(k);
	}
	es->marks_kept = 0;
}
