// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <signal.h>
#include <string.h>
#include "pipeline.h"

static void on_cause(void *ctx, const struct sig_cause *c)
{
	struct pipeline *pl = ctx;

	logouts__signal(&pl->logouts, pl->model, c);
	if (pl->ops->signal)
		pl->ops->signal(pl->ctx, c);
}

static void on_logout(void *ctx, const struct logout *lo)
{
	struct pipeline *pl = ctx;

	if (pl->ops->logout)
		pl->ops->logout(pl->ctx, lo);
}

static void on_escape(void *ctx, const struct escape *e)
{
	struct pipeline *pl = ctx;
	struct escape named = *e;

	logouts__escape(&pl->logouts, e);
	/* A copy that borrows the escape's references for the call. */
	named.expected = expect__match(pl->expect, e);
	if (pl->ops->escape)
		pl->ops->escape(pl->ctx, &named);
}

void pipeline__init(struct pipeline *pl, struct model *m, const struct pipeline_ops *ops, void *ctx)
{
	memset(pl, 0, sizeof(*pl));
	pl->model = m;
	pl->ops = ops;
	pl->ctx = ctx;
	sigmerge__init(&pl->sigs, on_cause, pl);
	escapes__init(&pl->escapes, on_escape, pl);
	logouts__init(&pl->logouts, on_logout, pl, PIPELINE_LOGOUT_GRACE_NS);
}

void pipeline__free(struct pipeline *pl)
{
	sigmerge__free(&pl->sigs);
	escapes__free(&pl->escapes);
	logouts__free(&pl->logouts);
}

/* Escapes read the model before and after the record; outputs see it in between. */
static void apply(struct pipeline *pl, struct pgt_event *ev)
{
	escapes__classify(&pl->escapes, pl->model, ev);
	if (ev->hdr->type != pl->skip_type)
		model__apply(pl->model, ev);
	if (pl->observe)
		pl->observe(pl->observe_ctx, pl->model, ev);
	if (pl->ops->event)
		pl->ops->event(pl->ctx, ev);
	escapes__report(&pl->escapes, pl->model, ev);
	logouts__event(&pl->logouts, pl->model, ev);
}

/* A tty change the kernel made without a syscall of the processes it hit. */
static void derived_tty(struct pipeline *pl, const struct pgt_hdr *cause,
			const struct pgt_proc *proc, __u32 how, __u32 sid, __u32 tty_nr,
			const char *tty, bool session_wide)
{
	struct pgt_tty t = {};
	struct pgt_event ev = { .hdr = &t.hdr, .tty = &t, .notes = EV_DERIVED };

	t.hdr = *cause;
	t.hdr.type = PGT_TTY;
	t.hdr.size = sizeof(t);
	t.proc = *proc;
	t.how = how;
	t.sid = sid;
	t.tty_nr = tty_nr;
	memcpy(t.tty, tty, sizeof(t.tty));
	t.session_wide = session_wide;
	apply(pl, &ev);
}

/*
 * A hangup's SIGHUP to the session leader: the kernel has already taken the
 * tty from every member of the session (tty_signal_session_leader()). Apply
 * it at the first record, before the members' own events.
 */
static void hangup(struct pipeline *pl, const struct pgt_signal *r)
{
	const struct msession *ms;

	if (r->cause != PGT_CAUSE_HANGUP || r->scope != PGT_SCOPE_SESSION || r->sig != SIGHUP)
		return;
	ms = model__session(pl->model, (__u32)r->target);
	if (ms && ms->tty_nr)
		derived_tty(pl, &r->hdr, &r->proc, PGT_TTY_HANGUP, ms->sid, ms->tty_nr, ms->tty,
			    true);
}

void pipeline__record(struct pipeline *pl, struct pgt_event *ev)
{
	const struct mtty *t;
	const struct pgt_tty *tt;

	switch (ev->hdr->type) {
	case PGT_SIGNAL:
		hangup(pl, ev->signal);
		sigmerge__add(&pl->sigs, ev->signal, model__proc_of(pl->model, &ev->signal->proc));
		return;
	case PGT_TTY:
		/* TIOCSCTTY(1) on a tty of another session steals it from all of them. */
		tt = ev->tty;
		t = tt->acquire ? model__tty(pl->model, tt->tty_nr) : NULL;
		if (t && t->sid && t->sid != tt->sid)
			derived_tty(pl, ev->hdr, &tt->proc, PGT_TTY_STOLEN, t->sid, tt->tty_nr,
				    tt->tty, true);
		break;
	}
	apply(pl, ev);
	/* setsid() drops the caller's tty. */
	if (ev->hdr->type == PGT_SETSID && ev->setsid->ret >= 0 && ev->setsid->old.tty_nr)
		derived_tty(pl, ev->hdr, &ev->setsid->proc, PGT_TTY_SETSID, ev->setsid->old.sid,
			    ev->setsid->old.tty_nr, ev->setsid->old.tty, false);
}

void pipeline__tick(struct pipeline *pl, __u64 now_ns)
{
	escapes__tick(&pl->escapes, pl->model, now_ns);
	logouts__tick(&pl->logouts, pl->model, now_ns);
}

void pipeline__close_causes(struct pipeline *pl, __u64 now_ns)
{
	sigmerge__flush(&pl->sigs, now_ns);
}

void pipeline__finish(struct pipeline *pl)
{
	sigmerge__flush(&pl->sigs, 0);
	escapes__flush(&pl->escapes, pl->model);
	logouts__tick(&pl->logouts, pl->model, 0);
}

__u64 pipeline__oldest_open(const struct pipeline *pl)
{
	return sigmerge__oldest_seq(&pl->sigs);
}

__u64 pipeline__hold_point(struct pipeline *pl, size_t held)
{
	if (held > PIPELINE_HOLD_MAX)
		sigmerge__flush(&pl->sigs, 0);
	return sigmerge__oldest_seq(&pl->sigs);
}
