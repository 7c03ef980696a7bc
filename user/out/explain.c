// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* --explain: one process's story, gathered from the records as they are written. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "explain.h"
#include "format.h"
#include "jsonw.h"
#include "lineage.h"
#include "msg.h"

#define MOVES_MAX   32 /* the first moves kept; more are counted */
#define LINEAGE_MAX 32 /* ancestors shown */

struct move {
	__u64 ts_ns, seq;
	const char *event; /* "escape", "setsid", "setpgid", "reparent" */
	char change[192];  /* "setsid: sid 4100 -> 4242" */
};

struct explain {
	__u32 pid;
	__u64 start_ns; /* 0 until bound */
	char eid[17];	/* by entity id: "" for a pid */
	bool found;
	struct pgt_proc proc;  /* as its latest record showed it */
	struct proc_view view; /* what the model knew then, its references */
	bool born;
	__u64 born_ts, born_seq;
	struct pgt_proc parent; /* the forker */
	struct move moves[MOVES_MAX];
	unsigned int nmoves, more_moves;
	/* Its exit: the record, with the bytes it points to, and its views. */
	bool exited;
	struct record exit;
	struct pgt_exit exit_ev;
	struct fmt_ctx fc, tfc;
};

bool explain__valid(const char *target)
{
	size_t n = target ? strlen(target) : 0, i;

	if (n == 16) {
		for (i = 0; i < n; i++)
			if (!strchr("0123456789abcdef", target[i]))
				return false;
		return true;
	}
	if (n == 0 || n > 10)
		return false;
	for (i = 0; i < n; i++)
		if (target[i] < '0' || target[i] > '9')
			return false;
	return strtoul(target, NULL, 10) > 0 && strtoul(target, NULL, 10) <= 4194304;
}

struct explain *explain__new(const char *target)
{
	struct explain *e;

	if (!explain__valid(target))
		return NULL;
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	if (strlen(target) == 16)
		memcpy(e->eid, target, 17);
	else
		e->pid = (__u32)strtoul(target, NULL, 10);
	return e;
}

void explain__free(struct explain *e)
{
	if (!e)
		return;
	view__put(&e->view);
	if (e->exited) {
		view__put(&e->exit.views[0]);
		view__put(&e->exit.views[1]);
	}
	free(e);
}

int explain__bind(struct explain *e, const struct model *m)
{
	struct mproc *p;
	char eid[17];

	model__for_each_proc(m, p) {
		if (p->zombie || (p->ctx.flags & PGT_F_KTHREAD))
			continue;
		if (e->eid[0]) {
			decode__entity_id(p->ctx.pid, p->ctx.start_ns, eid);
			if (strcmp(eid, e->eid))
				continue;
		} else if (p->ctx.pid != e->pid) {
			continue;
		}
		e->pid = p->ctx.pid;
		e->start_ns = p->ctx.start_ns;
		e->found = true;
		e->proc = p->ctx;
		view__take(&e->view, m, &p->ctx);
		return 0;
	}
	return -ESRCH;
}

bool explain__done(const struct explain *e)
{
	return e->exited;
}

/* Whether (@pid, @start) is the process explained; the first match binds it. */
static bool is_target(struct explain *e, __u32 pid, __u64 start_ns)
{
	char eid[17];

	if (e->start_ns)
		return pid == e->pid && start_ns == e->start_ns;
	if (e->eid[0]) {
		decode__entity_id(pid, start_ns, eid);
		if (strcmp(eid, e->eid))
			return false;
	} else if (pid != e->pid) {
		return false;
	}
	e->pid = pid;
	e->start_ns = start_ns;
	e->found = true;
	return true;
}

static void seen(struct explain *e, const struct pgt_proc *p, const struct proc_view *v)
{
	e->proc = *p;
	if (!v->known)
		return;
	view__put(&e->view);
	view__copy(&e->view, v);
}

static void add_move(struct explain *e, const struct record *r, const char *event,
		     const struct sbuf *text)
{
	struct move *mv;

	if (e->nmoves == MOVES_MAX) {
		e->more_moves++;
		return;
	}
	mv = &e->moves[e->nmoves++];
	mv->ts_ns = r->ts_ns;
	mv->seq = r->seq;
	mv->event = event;
	snprintf(mv->change, sizeof(mv->change), "%s", text->buf ?: "");
}

static void on_event(struct explain *e, const struct record *r)
{
	const struct pgt_event *ev = &r->ev;
	struct sbuf sb = {};

	switch (ev->hdr->type) {
	case PGT_FORK:
		if (!is_target(e, ev->fork->child.pid, ev->fork->child.start_ns))
			return;
		seen(e, &ev->fork->child, &r->views[1]);
		e->born = true;
		e->born_ts = r->ts_ns;
		e->born_seq = r->seq;
		e->parent = ev->fork->proc;
		return;
	case PGT_EXEC:
		if (is_target(e, ev->exec->proc.pid, ev->exec->proc.start_ns))
			seen(e, &ev->exec->proc, &r->views[0]);
		return;
	case PGT_SETSID:
		if (!is_target(e, ev->setsid->proc.pid, ev->setsid->proc.start_ns) ||
		    ev->setsid->ret < 0)
			return;
		seen(e, &ev->setsid->proc, &r->views[0]);
		sbuf__printf(&sb, "setsid: sid %u -> %u, pgid %u -> %u", ev->setsid->old.sid,
			     ev->setsid->proc.sid, ev->setsid->old.pgid, ev->setsid->proc.pgid);
		add_move(e, r, "setsid", &sb);
		break;
	case PGT_SETPGID:
		if (!ev->setpgid->target_found || ev->setpgid->ret < 0 ||
		    !is_target(e, ev->setpgid->target.pid, ev->setpgid->target.start_ns) ||
		    ev->setpgid->old.pgid == ev->setpgid->target.pgid)
			return;
		seen(e, &ev->setpgid->target, &r->views[1]);
		sbuf__printf(&sb, "setpgid: pgid %u -> %u%s", ev->setpgid->old.pgid,
			     ev->setpgid->target.pgid,
			     ev->notes & EV_JOB_CONTROL ? " (job control)" : "");
		add_move(e, r, "setpgid", &sb);
		break;
	case PGT_REPARENT:
		if (!is_target(e, ev->reparent->child_pid, ev->reparent->child_start_ns) ||
		    (ev->reparent->reason & PGT_REPARENT_REASONS) == PGT_REAPER_THREAD)
			return;
		sbuf__printf(&sb, "reparent: ppid %u -> %u (%s)%s", ev->reparent->proc.pid,
			     ev->reparent->reaper_pid, decode__reason_name(ev->reparent->reason),
			     ev->reparent->reason & PGT_REPARENT_DYING ? ", dying" : "");
		add_move(e, r, "reparent", &sb);
		break;
	case PGT_EXIT:
		if (!is_target(e, ev->exit->proc.pid, ev->exit->proc.start_ns) || e->exited)
			return;
		seen(e, &ev->exit->proc, &r->views[0]);
		e->exited = true;
		/* A held record ends at its kind's member: the exit's, death. */
		memcpy(&e->exit, r, offsetof(struct record, death) + sizeof(r->death));
		e->exit_ev = *ev->exit;
		e->exit.ev.raw = &e->exit_ev;
		e->exit.ev.hdr = &e->exit_ev.hdr;
		view__copy(&e->exit.views[0], &r->views[0]);
		view__copy(&e->exit.views[1], &r->views[1]);
		return;
	}
	sbuf__free(&sb);
}

static int explain_send(void *ctx, const struct sink_msg *m)
{
	struct explain *e = ctx;
	const struct record *r = m->rec;
	struct sbuf sb = {};

	e->fc = *m->fc;
	e->tfc = *m->tfc;
	if (r->kind == RECORD_EVENT) {
		on_event(e, r);
	} else if (r->kind == RECORD_ESCAPE &&
		   is_target(e, r->esc.proc.pid, r->esc.proc.start_ns)) {
		seen(e, &r->esc.proc, &r->views[0]);
		text__escape_change(&sb, &r->esc);
		add_move(e, r, "escape", &sb);
		sbuf__free(&sb);
	}
	return 0;
}

const struct sink_ops explain_sink = {
	.name = "explain",
	.send = explain_send,
};

/* @l and its ancestors, root first: up to LINEAGE_MAX, the nearest kept. */
static unsigned int ancestors(const struct lineage *l, const struct lineage **out)
{
	const struct lineage *chain[LINEAGE_MAX];
	unsigned int n = 0, i;

	for (; l && n < LINEAGE_MAX; l = l->parent)
		chain[n++] = l;
	for (i = 0; i < n; i++)
		out[i] = chain[n - 1 - i];
	return n;
}

/* ---- text ---- */

static void text_args(struct sbuf *sb, const struct image *im)
{
	struct span args[16];
	bool more = false;
	size_t n, i;

	if (!im || !im->args) {
		sbuf__puts(sb, im && im->exe ? im->exe : "unknown");
		return;
	}
	n = decode__split_args(im->args, im->args_len, args, 16, &more);
	if (im->exe) {
		sbuf__put_text(sb, im->exe, strlen(im->exe));
		sbuf__puts(sb, ":");
	}
	for (i = 0; i < n; i++) {
		sbuf__putc(sb, ' ');
		sbuf__put_text(sb, args[i].s, args[i].len);
	}
	if (more || im->args_cut)
		sbuf__puts(sb, " ...");
}

static void text_lineage(struct sbuf *sb, const struct lineage *l)
{
	const struct lineage *chain[LINEAGE_MAX];
	unsigned int n = ancestors(l, chain), i;

	if (!n) {
		sbuf__puts(sb, "unknown");
		return;
	}
	for (i = 0; i < n; i++) {
		if (i)
			sbuf__puts(sb, " > ");
		sbuf__put_text(sb, chain[i]->comm, sizeof(chain[i]->comm));
		sbuf__printf(sb, " %u", chain[i]->pid);
	}
}

static void text_login(struct sbuf *sb, const struct proc_view *v, const char *indent)
{
	const struct lineage *l = v->entry;
	const struct login_remote *rem = l ? fmt__entry_remote(l) : NULL;
	char tty[32];

	sbuf__printf(sb, "%s", indent);
	if (!l) {
		sbuf__puts(sb, v->known ? "none\n" : "unknown\n");
		return;
	}
	sbuf__printf(sb, "%s, ", fmt__entry_type(l));
	sbuf__put_text(sb, v->entry_comm, sizeof(v->entry_comm));
	sbuf__printf(sb, " %u on %s", l->pid,
		     decode__tty_name(l->tty, l->tty_nr, tty, sizeof(tty)) ? tty : "no tty");
	if (rem)
		sbuf__printf(sb, " from %s port %u", rem->ip, rem->port);
	sbuf__puts(sb, v->entry_inferred ? " (read from the tree)\n" : "\n");
}

static void write_text(const struct explain *e, struct sbuf *sb)
{
	const struct pgt_proc *p = &e->proc;
	const struct record *x = &e->exit;
	const struct death_cause *dc = &x->death;
	char eid[17];
	unsigned int i;

	decode__entity_id(p->pid, p->start_ns, eid);
	sbuf__put_text(sb, p->comm, sizeof(p->comm));
	sbuf__printf(sb, " %u, entity %s, uid %u", p->pid, eid, p->uid);
	if (p->auid != PGT_ID_UNSET)
		sbuf__printf(sb, ", auid %u ses %u", p->auid, p->ses);
	sbuf__puts(sb, "\n  ran      ");
	text_args(sb, e->view.image);
	sbuf__putc(sb, '\n');
	text_login(sb, &e->view, "  login    ");
	sbuf__puts(sb, "  lineage  ");
	text_lineage(sb, e->view.line);
	sbuf__putc(sb, '\n');
	if (e->born) {
		sbuf__puts(sb, "  born     ");
		text__time(sb, &e->tfc, e->born_ts);
		sbuf__puts(sb, "by ");
		sbuf__put_text(sb, e->parent.comm, sizeof(e->parent.comm));
		sbuf__printf(sb, " %u, session %u, group %u (seq %llu)\n", e->parent.pid,
			     e->parent.sid, e->parent.pgid, (unsigned long long)e->born_seq);
	}
	for (i = 0; i < e->nmoves; i++) {
		sbuf__puts(sb, i ? "           " : "  moved    ");
		text__time(sb, &e->tfc, e->moves[i].ts_ns);
		sbuf__puts(sb, e->moves[i].event);
		sbuf__putc(sb, ' ');
		sbuf__put_text(sb, e->moves[i].change, strlen(e->moves[i].change));
		sbuf__printf(sb, " (seq %llu)\n", (unsigned long long)e->moves[i].seq);
	}
	if (e->more_moves)
		sbuf__printf(sb, "           and %u more\n", e->more_moves);
	if (!e->exited) {
		sbuf__puts(sb, "  died     not while traced\n");
		return;
	}
	sbuf__puts(sb, "  died     ");
	text__time(sb, &e->tfc, x->ts_ns);
	text__exit(sb, x);
	sbuf__printf(sb, " (seq %llu", (unsigned long long)x->seq);
	if (dc->has_seq)
		sbuf__printf(sb, ", signal seq %llu", (unsigned long long)dc->signal_seq);
	sbuf__puts(sb, ")\n");
	if (dc->why)
		sbuf__printf(sb, "           %s\n", dc->why);
	if (!dc->has_sender || (dc->sender.pid == p->pid && dc->sender.start_ns == p->start_ns))
		return;
	sbuf__puts(sb, "  sender   ");
	if (dc->sender_partial) {
		sbuf__printf(sb, "pid %u, gone before it was known\n", dc->sender.pid);
		return;
	}
	sbuf__put_text(sb, dc->sender.comm, sizeof(dc->sender.comm));
	sbuf__printf(sb, " %u, uid %u, ran ", dc->sender.pid, dc->sender.uid);
	text_args(sb, x->views[1].image);
	sbuf__putc(sb, '\n');
	text_login(sb, &x->views[1], "           login ");
	sbuf__puts(sb, "           lineage ");
	text_lineage(sb, x->views[1].line);
	sbuf__putc(sb, '\n');
}

/* ---- JSON ---- */

static void json_lineage(struct jsonw *w, const char *key, const struct lineage *l)
{
	const struct lineage *chain[LINEAGE_MAX];
	unsigned int n = ancestors(l, chain), i;
	char eid[17];

	jsonw_name(w, key);
	if (!n) {
		jsonw_null(w);
		return;
	}
	jsonw_start_array(w);
	for (i = 0; i < n; i++) {
		jsonw_start_object(w);
		jsonw_uint_field(w, "pid", chain[i]->pid);
		decode__entity_id(chain[i]->pid, chain[i]->start_ns, eid);
		jsonw_plain_field(w, "entity_id", eid);
		jsonw_untrusted(w, "comm", chain[i]->comm, sizeof(chain[i]->comm));
		if (chain[i]->image && chain[i]->image->exe)
			jsonw_untrusted(w, "executable", chain[i]->image->exe,
					strlen(chain[i]->image->exe) + 1);
		else
			jsonw_null_field(w, "executable");
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
}

static void json_image(struct jsonw *w, const struct image *im)
{
	struct span args[PGT_ARGS_SHOWN];
	bool more = false;
	size_t n;

	if (im && im->exe)
		jsonw_untrusted(w, "executable", im->exe, strlen(im->exe) + 1);
	else
		jsonw_null_field(w, "executable");
	if (im && im->args) {
		n = decode__split_args(im->args, im->args_len, args, PGT_ARGS_SHOWN, &more);
		jsonw_untrusted_array(w, "args", args, n);
	} else {
		jsonw_null_field(w, "args");
	}
}

static void json_time(struct jsonw *w, const struct fmt_ctx *fc, __u64 ns)
{
	char when[64];

	fmt__rfc3339(fc, ns, when, sizeof(when));
	jsonw_plain_field(w, "time", when);
}

static void json_born(struct jsonw *w, const struct explain *e)
{
	char eid[17];

	jsonw_name(w, "born");
	if (!e->born) {
		jsonw_null(w);
		return;
	}
	jsonw_start_object(w);
	json_time(w, &e->fc, e->born_ts);
	jsonw_uint_field(w, "seq", e->born_seq);
	jsonw_uint_field(w, "parent_pid", e->parent.pid);
	decode__entity_id(e->parent.pid, e->parent.start_ns, eid);
	jsonw_plain_field(w, "parent_entity_id", eid);
	jsonw_uint_field(w, "sid", e->parent.sid);
	jsonw_end_object(w);
}

static void json_moves(struct jsonw *w, const struct explain *e)
{
	unsigned int i;

	jsonw_name(w, "moves");
	jsonw_start_array(w);
	for (i = 0; i < e->nmoves; i++) {
		jsonw_start_object(w);
		json_time(w, &e->fc, e->moves[i].ts_ns);
		jsonw_uint_field(w, "seq", e->moves[i].seq);
		jsonw_plain_field(w, "event", e->moves[i].event);
		jsonw_untrusted(w, "change", e->moves[i].change, strlen(e->moves[i].change) + 1);
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
	jsonw_uint_field(w, "moves_not_shown", e->more_moves);
}

/* Its exit as the exit record has it, "cause" field by field; then what the sender was. */
static void json_death(struct jsonw *w, const struct explain *e)
{
	const struct record *x = &e->exit;
	struct exit_info xi;

	jsonw_name(w, "exit");
	if (!e->exited) {
		jsonw_null(w);
		jsonw_null_field(w, "sender");
		return;
	}
	decode__exit_status(e->exit_ev.status, &xi);
	jsonw_start_object(w);
	json_time(w, &e->fc, x->ts_ns);
	jsonw_uint_field(w, "seq", x->seq);
	json__status(w, e->exit_ev.status);
	jsonw_bool_field(w, "core", xi.core);
	json__cause(w, &e->fc, x);
	jsonw_end_object(w);
	if (!x->death.has_sender) {
		jsonw_null_field(w, "sender");
		return;
	}
	jsonw_name(w, "sender");
	jsonw_start_object(w);
	json_image(w, x->views[1].image);
	jsonw_name(w, "login");
	if (x->views[1].entry)
		json__entry(w, &e->fc, &x->views[1]);
	else
		jsonw_null(w);
	json_lineage(w, "lineage", x->views[1].line);
	jsonw_end_object(w);
}

static void write_json(const struct explain *e, struct sbuf *sb)
{
	const struct pgt_proc *p = &e->proc;
	struct jsonw w;
	char eid[17];

	jsonw_init(&w, sb);
	jsonw_start_object(&w);
	jsonw_uint_field(&w, "schema", PGT_SCHEMA_VERSION);
	jsonw_name(&w, "explain");
	jsonw_start_object(&w);
	jsonw_uint_field(&w, "pid", p->pid);
	decode__entity_id(p->pid, p->start_ns, eid);
	jsonw_plain_field(&w, "entity_id", eid);
	jsonw_untrusted(&w, "comm", p->comm, sizeof(p->comm));
	jsonw_uint_field(&w, "uid", p->uid);
	jsonw_uint_field(&w, "start_ns", p->start_ns);
	json_image(&w, e->view.image);
	jsonw_name(&w, "login");
	if (e->view.entry)
		json__entry(&w, &e->fc, &e->view);
	else
		jsonw_null(&w);
	json_lineage(&w, "lineage", e->view.line);
	json_born(&w, e);
	json_moves(&w, e);
	json_death(&w, e);
	jsonw_end_object(&w);
	jsonw_end_object(&w);
	jsonw_fini(&w);
	sbuf__putc(sb, '\n');
}

int explain__write(const struct explain *e, FILE *f, bool json)
{
	struct sbuf sb = {};
	int err = 0;

	if (!e->found) {
		if (e->eid[0])
			p_err("no process with entity id %s was seen", e->eid);
		else
			p_err("no process %u was seen", e->pid);
		return -ESRCH;
	}
	if (json)
		write_json(e, &sb);
	else
		write_text(e, &sb);
	err = fmt__write_file(&sb, f);
	sbuf__free(&sb);
	return err;
}
