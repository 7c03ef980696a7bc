// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>
#include "logout.h"

/* A SIGHUP is remembered this long past the grace, for the logouts it may belong to. */
#define HUP_KEEP_NS    10000000000ULL
#define PRUNE_EVERY_NS 1000000000ULL
/* Exits of processes of logins kept, the latest: a ring. */
#define EXITS_KEPT     1024

struct logout_exit {
	struct pgt_exit ev;
	struct lineage *line; /* the process's own link */
	struct image *image;
};

/* A login (or the command) that ended, its report not yet made. */
struct logout_open {
	struct logout lo;
	unsigned int cap;
	__u64 due_ns;
	__u64 leader_hup_ns;	  /* the leader's own last SIGHUP before its exit, 0: none */
	struct logout_open *next; /* by due time */
};

struct logout_hup {
	__u32 pid; /* hash key */
	__u64 start_ns, ts_ns;
	__u64 first_ns; /* the first of the latest SIGHUPs, none HUP_KEEP_NS apart */
	bool ignored;
	__u32 sender_pid;
	__u64 sender_start;
	UT_hash_handle hh;
};

struct logout_esc {
	__u32 pid; /* hash key */
	__u64 start_ns, ts_ns;
	enum escape_kind kind;
	UT_hash_handle hh;
};

static const char *const fate_names[FATE_MAX] = {
	[FATE_HUNG_UP] = "hung_up",
	[FATE_KILLED] = "killed",
	[FATE_IGNORED_HANGUP] = "ignored_hangup",
	[FATE_ESCAPED] = "escaped",
	[FATE_SURVIVED] = "survived",
	[FATE_EXITED] = "exited",
};

const char *logout__fate_name(enum fate f)
{
	return f < FATE_MAX ? fate_names[f] : "?";
}

void logouts__init(struct logouts *lo, logout_fn fn, void *ctx, __u64 grace_ns)
{
	memset(lo, 0, sizeof(*lo));
	lo->fn = fn;
	lo->ctx = ctx;
	lo->grace_ns = grace_ns;
}

void logouts__watch(struct logouts *lo, struct lineage *command)
{
	lineage__put(lo->command);
	lo->command = lineage__get(command);
}

/* Whether @l is @root or below it. */
static bool descends(const struct lineage *l, const struct lineage *root)
{
	for (; l; l = l->parent)
		if (l == root)
			return true;
	return false;
}

static struct logout_proc *add_proc(struct logout_open *o)
{
	struct logout_proc *p;

	if (o->lo.nr == o->cap) {
		unsigned int cap = o->cap ? o->cap * 2 : 16;

		p = realloc(o->lo.procs, cap * sizeof(*p));
		if (!p)
			return NULL;
		o->lo.procs = p;
		o->cap = cap;
	}
	p = &o->lo.procs[o->lo.nr++];
	memset(p, 0, sizeof(*p));
	return p;
}

static struct logout_hup *hup_of(struct logouts *lo, __u32 pid, __u64 start_ns)
{
	struct logout_hup *h;

	HASH_FIND(hh, lo->hups, &pid, sizeof(pid), h);
	return h && (!h->start_ns || !start_ns || h->start_ns == start_ns) ? h : NULL;
}

static struct logout_esc *esc_of(struct logouts *lo, __u32 pid, __u64 start_ns)
{
	struct logout_esc *e;

	HASH_FIND(hh, lo->escs, &pid, sizeof(pid), e);
	return e && e->start_ns == start_ns ? e : NULL;
}

/* @lp ended as @ev says. */
static void set_exit(struct logout_proc *lp, const struct pgt_exit *ev)
{
	lp->exited = true;
	lp->proc = ev->proc;
	lp->status = ev->status;
	lp->mech = death__kernel_mech(ev);
	lp->sender_pid = death__sent(lp->mech) ? ev->death.sender_pid : 0;
	lp->exit_key = ev->hdr.seq;
	lp->exit_ns = ev->hdr.ts_ns;
}

/* A process of an open report exited: how, as its record says. */
static void proc_exited(struct logouts *lo, const struct pgt_exit *ev)
{
	struct logout_open *o;
	unsigned int i;

	for (o = lo->open; o; o = o->next)
		for (i = 0; i < o->lo.nr; i++) {
			struct logout_proc *lp = &o->lo.procs[i];

			if (lp->exited || lp->proc.pid != ev->proc.pid ||
			    lp->proc.start_ns != ev->proc.start_ns)
				continue;
			set_exit(lp, ev);
			if (ev->hdr.ts_ns > o->lo.made_ns)
				o->lo.made_ns = ev->hdr.ts_ns;
		}
}

/* The exit of a process of a login, kept a while (the oldest goes). */
static void keep_exit(struct logouts *lo, const struct mproc *p, const struct pgt_exit *ev)
{
	struct logout_exit *x;

	if (!lo->exits) {
		lo->exits = calloc(EXITS_KEPT, sizeof(*lo->exits));
		if (!lo->exits)
			return;
	}
	x = &lo->exits[lo->exits_at];
	lineage__put(x->line);
	image__put(x->image);
	x->ev = *ev;
	x->line = lineage__get(p->lineage);
	x->image = image__get(model__image(p));
	lo->exits_at = (lo->exits_at + 1) % EXITS_KEPT;
	if (lo->nexits < EXITS_KEPT)
		lo->nexits++;
}

/* Processes below @leader that exited before it since it started: kept if the hangup took them. */
static void add_exited(struct logouts *lo, struct logout_open *o, const struct mproc *leader)
{
	unsigned int i;

	for (i = 0; i < lo->nexits; i++) {
		const struct logout_exit *x = &lo->exits[i];
		struct logout_proc *lp;

		if (x->line == leader->lineage || x->ev.hdr.ts_ns < o->lo.start_ns ||
		    !descends(x->line, leader->lineage))
			continue;
		lp = add_proc(o);
		if (!lp)
			return;
		set_exit(lp, &x->ev);
		lp->image = image__get(x->image);
	}
}

/* @leader's exit @ev: the report opens with every process below it alive now. */
static void open_report(struct logouts *lo, const struct model *m, const struct mproc *leader,
			const struct pgt_exit *ev, bool command)
{
	struct logout_open *o = calloc(1, sizeof(*o)), **link;
	struct logout_hup *h;
	struct mproc *p;

	if (!o)
		return;
	o->lo.command = command;
	o->lo.leader = ev->proc;
	o->lo.leader_status = ev->status;
	o->lo.start_ns = ev->proc.start_ns;
	o->lo.end_ns = ev->hdr.ts_ns;
	o->lo.exit_key = ev->hdr.seq;
	o->due_ns = ev->hdr.ts_ns + lo->grace_ns;
	o->lo.made_ns = ev->hdr.ts_ns;
	o->lo.line = lineage__get(leader->lineage);
	o->lo.entry = lineage__get(leader->entry);
	o->lo.image = image__get(model__image(leader));
	o->lo.cg = pcgroup__get(leader->cg);
	h = hup_of(lo, ev->proc.pid, ev->proc.start_ns);
	if (h && h->first_ns <= o->lo.end_ns)
		o->leader_hup_ns = h->first_ns;
	model__for_each_proc(m, p) {
		struct logout_proc *lp;

		if (p == leader || p->zombie || (p->ctx.flags & PGT_F_KTHREAD) ||
		    !descends(p->lineage, leader->lineage))
			continue;
		lp = add_proc(o);
		if (!lp)
			break;
		lp->proc = p->ctx;
		lp->image = image__get(model__image(p));
	}
	add_exited(lo, o, leader);
	for (link = &lo->open; *link && (*link)->due_ns <= o->due_ns; link = &(*link)->next)
		;
	o->next = *link;
	*link = o;
}

static void forget(struct logouts *lo, __u32 pid, __u64 start_ns)
{
	struct logout_hup *h = hup_of(lo, pid, start_ns);
	struct logout_esc *e = esc_of(lo, pid, start_ns);

	if (h) {
		HASH_DEL(lo->hups, h);
		free(h);
	}
	if (e) {
		HASH_DEL(lo->escs, e);
		free(e);
	}
}

void logouts__event(struct logouts *lo, const struct model *m, const struct pgt_event *ev)
{
	const struct pgt_exit *x;
	const struct mproc *p;

	if (ev->hdr->type != PGT_EXIT)
		return;
	x = ev->exit;
	proc_exited(lo, x);
	p = model__proc_of(m, &x->proc);
	if (p && p->lineage && p->entry)
		keep_exit(lo, p, x);
	if (p && p->lineage && model__is_entry_leader(p))
		open_report(lo, m, p, x, false);
	else if (p && p->lineage && p->lineage == lo->command)
		open_report(lo, m, p, x, true);
	forget(lo, x->proc.pid, x->proc.start_ns);
}

void logouts__signal(struct logouts *lo, const struct model *m, const struct sig_cause *c)
{
	struct logout_open *o;
	unsigned int i;

	if (c->first.sig != SIGHUP)
		return;
	for (i = 0; i < c->nr; i++) {
		const struct sig_rcpt *r = &c->rcpt[i];
		const struct mproc *p = model__find(m, r->pid);
		struct logout_hup *h;

		/*
		 * Generated: delivered, ignored (SIG_IGN), or already pending; not
		 * raised by the process itself (a shell passing a hangup on
		 * raises it again once its jobs have theirs).
		 */
		if (r->result < 0 || r->result > 2 || r->pid == c->first.proc.pid)
			continue;
		/* The leader's own: the first of those that came before its exit. */
		for (o = lo->open; o; o = o->next)
			if (o->lo.leader.pid == r->pid && c->first.hdr.ts_ns <= o->lo.end_ns &&
			    (!o->leader_hup_ns || c->first.hdr.ts_ns < o->leader_hup_ns))
				o->leader_hup_ns = c->first.hdr.ts_ns;
		HASH_FIND(hh, lo->hups, &r->pid, sizeof(r->pid), h);
		if (!h) {
			h = calloc(1, sizeof(*h));
			if (!h)
				continue;
			h->pid = r->pid;
			HASH_ADD(hh, lo->hups, pid, sizeof(h->pid), h);
		}
		if (!h->first_ns || h->start_ns != (p ? p->ctx.start_ns : 0) ||
		    c->first.hdr.ts_ns > h->ts_ns + HUP_KEEP_NS)
			h->first_ns = c->first.hdr.ts_ns;
		h->start_ns = p ? p->ctx.start_ns : 0;
		h->ts_ns = c->first.hdr.ts_ns;
		h->ignored = r->result == 1;
		h->sender_pid = c->first.proc.pid;
		h->sender_start = c->first.proc.start_ns;
	}
}

void logouts__escape(struct logouts *lo, const struct escape *e)
{
	struct logout_esc *x;

	HASH_FIND(hh, lo->escs, &e->proc.pid, sizeof(e->proc.pid), x);
	/* Its first is kept: a held setsid may come after the reparent that followed it. */
	if (x && x->start_ns == e->proc.start_ns && x->ts_ns <= e->ts_ns)
		return;
	if (!x) {
		x = calloc(1, sizeof(*x));
		if (!x)
			return;
		x->pid = e->proc.pid;
		HASH_ADD(hh, lo->escs, pid, sizeof(x->pid), x);
	}
	x->start_ns = e->proc.start_ns;
	x->ts_ns = e->ts_ns;
	x->kind = e->kind;
}

/*
 * A SIGHUP is the logout's if it came from the hangup that reached the
 * leader (the leader's own SIGHUP, or later), or from the leader itself:
 * a shell passing it on to its jobs, the kernel's SIGHUP to the
 * foreground group and to newly orphaned groups as the leader exits.
 */
static const struct logout_hup *logout_hup(struct logouts *lo, const struct logout_open *o,
					   const struct logout_proc *lp)
{
	const struct logout_hup *h = hup_of(lo, lp->proc.pid, lp->proc.start_ns);
	if (!h)
		return NULL;
	if (h->ts_ns >= o->lo.hup_from_ns ||
	    (h->sender_pid == o->lo.leader.pid && h->sender_start == o->lo.leader.start_ns))
		return h;
	return NULL;
}

static enum fate exit_fate(const struct logout_proc *lp)
{
	struct exit_info xi;

	decode__exit_status(lp->status, &xi);
	if (xi.exited)
		return FATE_EXITED;
	return xi.signal == SIGHUP ? FATE_HUNG_UP : FATE_KILLED;
}

static void decide(struct logouts *lo, const struct model *m, struct logout_open *o,
		   struct logout_proc *lp)
{
	const struct logout_hup *h = logout_hup(lo, o, lp);
	const struct logout_esc *e;
	const struct mproc *p;

	if (h) {
		lp->hup = true;
		lp->hup_ignored = h->ignored;
		lp->hup_sender = h->sender_pid;
	}
	p = lp->exited ? NULL : model__proc_of(m, &lp->proc);
	if (!lp->exited && (!p || p->zombie)) {
		/* Its exit record was lost; the model knows its status if it saw the zombie. */
		lp->gone = true;
		lp->status = p ? p->exit_status : 0;
		lp->mech = DEATH_UNKNOWN;
	}
	if (lp->exited || lp->gone) {
		lp->fate = exit_fate(lp);
		return;
	}
	lp->proc = p->ctx; /* its groups now */
	if (model__image(p) != lp->image) {
		image__put(lp->image);
		lp->image = image__get(model__image(p));
	}
	e = esc_of(lo, lp->proc.pid, lp->proc.start_ns);
	if (h)
		lp->fate = FATE_IGNORED_HANGUP;
	else if (e && e->ts_ns < o->lo.end_ns)
		lp->fate = FATE_ESCAPED, lp->escape = e->kind;
	else
		lp->fate = FATE_SURVIVED;
}

static void free_open(struct logout_open *o)
{
	unsigned int i;

	for (i = 0; i < o->lo.nr; i++)
		image__put(o->lo.procs[i].image);
	free(o->lo.procs);
	lineage__put(o->lo.line);
	lineage__put(o->lo.entry);
	image__put(o->lo.image);
	pcgroup__put(o->lo.cg);
	free(o);
}

/* Oldest first: the order they were born in. */
static int by_start(const void *a, const void *b)
{
	const struct logout_proc *x = a, *y = b;

	if (x->proc.start_ns != y->proc.start_ns)
		return x->proc.start_ns < y->proc.start_ns ? -1 : 1;
	return x->proc.pid < y->proc.pid ? -1 : x->proc.pid > y->proc.pid;
}

static void close_report(struct logouts *lo, const struct model *m, struct logout_open *o,
			 __u64 now_ns)
{
	unsigned int i, n = 0;

	o->lo.hup_from_ns = o->leader_hup_ns ?: o->lo.end_ns;
	for (i = 0; i < o->lo.nr; i++) {
		struct logout_proc *lp = &o->lo.procs[i];

		/* Dead before the logout began: not one of its fates. */
		if (lp->exited && lp->exit_ns < o->lo.hup_from_ns) {
			image__put(lp->image);
			continue;
		}
		o->lo.procs[n] = *lp;
		decide(lo, m, o, &o->lo.procs[n]);
		o->lo.counts[o->lo.procs[n].fate]++;
		n++;
	}
	o->lo.nr = n;
	if (n)
		qsort(o->lo.procs, n, sizeof(*o->lo.procs), by_start);
	if (now_ns)
		o->lo.made_ns = now_ns;
	/* A command with nothing left behind has nothing to report. */
	if (!o->lo.command || o->lo.nr)
		lo->fn(lo->ctx, &o->lo);
	free_open(o);
}

static void prune(struct logouts *lo, __u64 now_ns)
{
	struct logout_hup *h, *tmp;

	if (!now_ns || now_ns < lo->pruned_ns + PRUNE_EVERY_NS)
		return;
	lo->pruned_ns = now_ns;
	HASH_ITER(hh, lo->hups, h, tmp) {
		if (h->ts_ns + lo->grace_ns + HUP_KEEP_NS < now_ns) {
			HASH_DEL(lo->hups, h);
			free(h);
		}
	}
}

void logouts__tick(struct logouts *lo, const struct model *m, __u64 now_ns)
{
	struct logout_open *o;

	while ((o = lo->open) && (!now_ns || o->due_ns <= now_ns)) {
		lo->open = o->next;
		close_report(lo, m, o, now_ns);
	}
	prune(lo, now_ns);
}

void logouts__free(struct logouts *lo)
{
	struct logout_open *o, *next;
	struct logout_hup *h, *htmp;
	struct logout_esc *e, *etmp;
	unsigned int i;

	for (o = lo->open; o; o = next) {
		next = o->next;
		free_open(o);
	}
	lo->open = NULL;
	HASH_ITER(hh, lo->hups, h, htmp) {
		HASH_DEL(lo->hups, h);
		free(h);
	}
	HASH_ITER(hh, lo->escs, e, etmp) {
		HASH_DEL(lo->escs, e);
		free(e);
	}
	for (i = 0; lo->exits && i < EXITS_KEPT; i++) {
		lineage__put(lo->exits[i].line);
		image__put(lo->exits[i].image);
	}
	free(lo->exits);
	lo->exits = NULL;
	lo->nexits = lo->exits_at = 0;
	lineage__put(lo->command);
	lo->command = NULL;
}
