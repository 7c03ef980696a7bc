// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Typed records: what the model knew, taken when a record is made. */
#include <stddef.h>
#include <string.h>
#include "record.h"

/* The start of the leader @pid, a session's (@session) or a process's, if @m knows it. */
static bool leader_start(const struct model *m, __u32 pid, bool session, __u64 *start)
{
	const struct msession *s = m && session ? model__session(m, pid) : NULL;
	const struct mproc *mp = m && pid ? model__find(m, pid) : NULL;

	/* A session outlives its leader; the model keeps the leader's start. */
	if (s && s->leader_start_ns) {
		*start = s->leader_start_ns;
		return true;
	}
	if (!mp)
		return false;
	*start = mp->ctx.start_ns;
	return true;
}

static void take_leaders(struct proc_view *v, const struct model *m, const struct pgt_proc *p)
{
	const __u32 pid[LEADER_MAX] = { p->ppid, p->pgid, p->sid };
	int i;

	v->leaders = 0;
	for (i = 0; i < LEADER_MAX; i++)
		if (leader_start(m, pid[i], i == LEADER_SESSION, &v->leader_start[i]))
			v->leaders |= 1U << i;
}

/* A view of @image, @entry and @cg (references taken), and of @p's leaders in @m. */
static void take_view(struct proc_view *v, const struct model *m, const struct pgt_proc *p,
		      const struct image *image, const struct lineage *line,
		      const struct lineage *entry, const struct pcgroup *cg, bool known,
		      bool inferred)
{
	v->image = image__get((struct image *)image);
	v->line = lineage__get((struct lineage *)line);
	v->entry = lineage__get((struct lineage *)entry);
	v->cg = pcgroup__get((struct pcgroup *)cg);
	if (entry) {
		memcpy(v->entry_comm, entry->comm, sizeof(v->entry_comm));
		v->entry_image = image__get(entry->image);
	}
	v->known = known;
	v->entry_inferred = inferred;
	take_leaders(v, m, p);
}

void view__take(struct proc_view *v, const struct model *m, const struct pgt_proc *p)
{
	const struct mproc *mp = m && p ? model__proc_of(m, p) : NULL;

	if (!p)
		return;
	take_view(v, m, p, mp ? model__image(mp) : NULL, mp ? mp->lineage : NULL,
		  mp ? mp->entry : NULL, mp ? mp->cg : NULL, mp != NULL, mp && mp->entry_inferred);
}

void view__copy(struct proc_view *dst, const struct proc_view *src)
{
	*dst = *src;
	image__get(dst->image);
	lineage__get(dst->line);
	lineage__get(dst->entry);
	pcgroup__get(dst->cg);
	image__get(dst->entry_image);
}

void view__put(struct proc_view *v)
{
	if (!v->image && !v->entry && !v->cg && !v->entry_image && !v->line)
		return; /* the common case of a text output: nothing was taken */
	image__put(v->image);
	lineage__put(v->line);
	lineage__put(v->entry);
	pcgroup__put(v->cg);
	image__put(v->entry_image);
}

bool view__leader_id(const struct proc_view *v, const struct pgt_proc *p, enum leader which,
		     char eid[17])
{
	const __u32 pid[LEADER_MAX] = { p->ppid, p->pgid, p->sid };

	if (!(v->leaders & (1U << which)))
		return false;
	decode__entity_id(pid[which], v->leader_start[which], eid);
	return true;
}

static void init(struct record *r, enum record_kind kind, __u64 ts_ns)
{
	memset(r, 0, offsetof(struct record, ev));
	r->kind = kind;
	r->ts_ns = ts_ns;
}

void record__exit_sender(struct record *r, const struct model *m)
{
	const struct pgt_death *d = &r->ev.exit->death;
	const struct mproc *mp = m && d->sender_pid ? model__find(m, d->sender_pid) : NULL;

	/* Its cgroup, for an OOM or cgroup.kill, where the outputs took no view. */
	if (m && (r->ev.exit->status & 0x7f) && !r->views[0].known)
		view__take(&r->views[0], m, &r->ev.exit->proc);

	if (r->death.has_sender || !mp || !model__same_start(mp, d->sender_start))
		return;
	r->death.has_sender = true;
	r->death.sender = mp->ctx;
	view__take(&r->views[1], m, &mp->ctx);
}

void record__event(struct record *r, const struct model *m, const struct pgt_event *ev)
{
	const struct pgt_proc *other = NULL;

	init(r, RECORD_EVENT, ev->hdr->ts_ns);
	r->ev = *ev;
	r->derived = ev->notes & EV_DERIVED;
	if (ev->hdr->type == PGT_FORK)
		other = &ev->fork->child;
	else if (ev->hdr->type == PGT_SETPGID && ev->setpgid->target_found)
		other = &ev->setpgid->target;
	view__take(&r->views[0], m, decode__event_proc(ev));
	view__take(&r->views[1], m, other);
	if (ev->hdr->type == PGT_EXIT)
		memset(&r->death, 0, sizeof(r->death));
}

void record__signal(struct record *r, const struct model *m, const struct sig_cause *c)
{
	init(r, RECORD_SIGNAL, c->first.hdr.ts_ns);
	take_view(&r->views[0], m, &c->first.proc, c->image, c->line, c->entry, c->cg, c->known,
		  c->entry_inferred);
	/* The sender's image, login and cgroup are the view's: the copy holds none. */
	r->sig = *c;
	r->sig.next = NULL;
	memset(&r->sig.hh, 0, sizeof(r->sig.hh));
	r->sig.image = NULL;
	r->sig.line = NULL;
	r->sig.entry = NULL;
	r->sig.cg = NULL;
}

void record__escape(struct record *r, const struct model *m, const struct escape *e)
{
	init(r, RECORD_ESCAPE, e->ts_ns);
	r->derived = true;
	take_view(&r->views[0], m, &e->proc, e->image, e->lineage, e->entry, e->cg, true,
		  e->entry_inferred);
	/* The parent of the event, not of now: a held setsid's may have exited since. */
	if (e->parent_start) {
		r->views[0].leader_start[LEADER_PARENT] = e->parent_start;
		r->views[0].leaders |= 1U << LEADER_PARENT;
	}
	/* Its lineage for the origin; its image, login and cgroup are the view's. */
	r->esc = *e;
	lineage__get(r->esc.lineage);
	r->esc.entry = NULL;
	r->esc.cg = NULL;
	r->esc.image = NULL;
}

/* @p as it is, its references its own. */
static void take_proc(struct record *r, const struct model *m, const struct mproc *p)
{
	take_view(&r->views[0], m, &p->ctx, model__image(p), p->lineage, p->entry, p->cg, true,
		  p->entry_inferred);
	/* Its lineage for the origin; its login and cgroup are the view's. */
	r->mp.proc = *p;
	lineage__get(r->mp.proc.lineage);
	r->mp.proc.entry = NULL;
	r->mp.proc.cg = NULL;
	r->mp.has_proc = true;
}

void record__survivor(struct record *r, const struct model *m, const struct mproc *p, __u64 now_ns)
{
	init(r, RECORD_SURVIVOR, now_ns);
	memset(&r->mp, 0, sizeof(r->mp));
	take_proc(r, m, p);
}

void record__correction(struct record *r, const struct model *m, const struct model_note *n,
			const struct mproc *p, __u64 now_ns)
{
	init(r, RECORD_CORRECTION, now_ns);
	memset(&r->mp, 0, sizeof(r->mp));
	r->mp.note = *n;
	if (p && n->kind != NOTE_RESYNC_REMOVED)
		take_proc(r, m, p);
}

void record__lost(struct record *r, const struct lost_info *li)
{
	init(r, RECORD_LOST, li->to_ns);
	r->lost = *li;
}

void record__logout(struct record *r, const struct model *m, const struct logout *lo)
{
	unsigned int i;

	init(r, RECORD_LOGOUT, lo->made_ns);
	take_view(&r->views[0], m, &lo->leader, lo->image, lo->line, lo->entry, lo->cg, true,
		  false);
	r->lo = *lo;
	r->lo.line = r->lo.entry = NULL;
	r->lo.image = NULL;
	r->lo.cg = NULL;
	for (i = 0; i < lo->nr; i++)
		image__get(lo->procs[i].image);
}

static void put_procs(const struct logout *lo)
{
	unsigned int i;

	for (i = 0; i < lo->nr; i++)
		image__put(lo->procs[i].image);
}

void record__release(struct record *r)
{
	view__put(&r->views[0]);
	view__put(&r->views[1]);
	if (r->kind == RECORD_ESCAPE)
		lineage__put(r->esc.lineage);
	else if ((r->kind == RECORD_SURVIVOR || r->kind == RECORD_CORRECTION) && r->mp.has_proc)
		lineage__put(r->mp.proc.lineage);
	else if (r->kind == RECORD_LOGOUT)
		put_procs(&r->lo);
	memset(r->views, 0, sizeof(r->views));
	r->kind = 0;
}

/* The bytes a record refers to outside itself: an event's, a signal's recipients. */
static size_t payload_size(const struct record *r)
{
	const struct pgt_exec *e;

	switch (r->kind) {
	case RECORD_EVENT:
		if (r->ev.hdr->type != PGT_EXEC)
			return decode__record_size(r->ev.hdr->type);
		e = r->ev.exec;
		return PGT_EXEC_SIZE((size_t)e->args_len + e->cwd_len + e->exe_len);
	case RECORD_SIGNAL:
		return r->sig.nr * sizeof(*r->sig.rcpt);
	case RECORD_LOGOUT:
		return r->lo.nr * sizeof(*r->lo.procs);
	default:
		return 0;
	}
}

#define ALIGN8(n) (((n) + 7) & ~(size_t)7)

/* The bytes of @r a held copy keeps: up to the end of its kind's member. */
static size_t head_size(const struct record *r)
{
	size_t m;

	switch (r->kind) {
	case RECORD_EVENT:
		m = r->ev.hdr->type == PGT_EXIT ?
			    offsetof(struct record, death) + sizeof(r->death) -
				    offsetof(struct record, ev) :
			    sizeof(r->ev);
		break;
	case RECORD_SIGNAL:
		m = sizeof(r->sig);
		break;
	case RECORD_ESCAPE:
		m = sizeof(r->esc);
		break;
	case RECORD_SURVIVOR:
	case RECORD_CORRECTION:
		m = sizeof(r->mp);
		break;
	case RECORD_LOGOUT:
		m = sizeof(r->lo);
		break;
	default:
		m = sizeof(r->lost);
		break;
	}
	return ALIGN8(offsetof(struct record, ev) + m);
}

size_t record__held_size(const struct record *r)
{
	return ALIGN8(r->head + r->payload);
}

size_t record__hold(struct record *r, struct sbuf *arena)
{
	size_t pay = payload_size(r), off = ALIGN8(arena->len);
	const void *from = r->kind == RECORD_EVENT  ? r->ev.raw :
			   r->kind == RECORD_LOGOUT ? (const void *)r->lo.procs :
						      r->sig.rcpt;
	struct record *h;

	r->head = head_size(r);
	r->payload = pay;
	if (!sbuf__grow(arena, off + record__held_size(r) - arena->len + 1)) {
		record__release(r);
		return (size_t)-1;
	}
	h = (struct record *)(arena->buf + off);
	memcpy(h, r, r->head);
	if (pay)
		memcpy((char *)h + r->head, from, pay);
	arena->len = off + record__held_size(r);
	r->kind = 0; /* its references are the held copy's now */
	return off;
}

struct record *record__at(struct sbuf *arena, size_t off)
{
	struct record *r = (struct record *)(arena->buf + off);
	char *payload = (char *)r + r->head;

	if (r->kind == RECORD_EVENT) {
		r->ev.raw = payload;
		r->ev.hdr = (const struct pgt_hdr *)payload;
	} else if (r->kind == RECORD_SIGNAL) {
		r->sig.rcpt = r->payload ? (struct sig_rcpt *)payload : NULL;
		r->sig.cap = r->sig.nr;
	} else if (r->kind == RECORD_LOGOUT) {
		r->lo.procs = r->payload ? (struct logout_proc *)payload : NULL;
	}
	return r;
}

static const struct record_kind_info kinds[] = {
	{ "fork", 6, "start" },		{ "exec", 6, "start" },
	{ "exit", 6, "end" },		{ "setsid", 6, "change" },
	{ "setpgid", 6, "change" },	{ "subreaper", 6, "change" },
	{ "reparent", 6, "change" },	{ "signal", 6, "info" },
	{ "tty_acquire", 6, "change" }, { "tty_release", 6, "change" },
	{ "foreground", 6, "change" },	{ "cgroup", 6, "change" },
	{ "escape", 4, "change" },     /* warning */
	{ "survivor", 5, "info" },     /* notice */
	{ "logout", 5, "end" },	       /* notice */
	{ "correction", 5, "change" }, /* notice */
	{ "lost", 3, "info" },	       /* err: what was asked for is incomplete */
};

const struct record_kind_info *record__kind(unsigned int i)
{
	return i < sizeof(kinds) / sizeof(kinds[0]) ? &kinds[i] : NULL;
}

const struct record_kind_info *record__kind_by_name(const char *name, size_t len, unsigned int *i)
{
	unsigned int k;

	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		if (strlen(kinds[k].name) == len && !strncmp(kinds[k].name, name, len)) {
			if (i)
				*i = k;
			return &kinds[k];
		}
	return NULL;
}

const char *record__name(const struct record *r)
{
	switch (r->kind) {
	case RECORD_EVENT:
		return decode__event_name(&r->ev);
	case RECORD_SIGNAL:
		return "signal";
	case RECORD_ESCAPE:
		return "escape";
	case RECORD_SURVIVOR:
		return "survivor";
	case RECORD_CORRECTION:
		return "correction";
	case RECORD_LOST:
		return "lost";
	case RECORD_LOGOUT:
		return "logout";
	}
	return "?";
}

const struct pgt_proc *record__proc(const struct record *r)
{
	switch (r->kind) {
	case RECORD_EVENT:
		return decode__event_proc(&r->ev);
	case RECORD_SIGNAL:
		return &r->sig.first.proc;
	case RECORD_ESCAPE:
		return &r->esc.proc;
	case RECORD_SURVIVOR:
	case RECORD_CORRECTION:
		return r->mp.has_proc ? &r->mp.proc.ctx : NULL;
	case RECORD_LOGOUT:
		return &r->lo.leader;
	default:
		return NULL;
	}
}
