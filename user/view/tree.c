// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdlib.h>
#include <string.h>
#include "format.h"
#include "jsonw.h"
#include "layout.h"
#include "tree.h"

struct glyphs {
	const char *tee, *last, *pipe, *blank;
};

static const struct glyphs utf8_glyphs = { "├─ ", "└─ ", "│  ", "   " };
static const struct glyphs ascii_glyphs = { "|- ", "`- ", "|  ", "   " };

/* A run of processes sharing a key (a group, or a session of groups). */
/*
 * Below @root now (by parent links), or born below it (by lineage): a
 * daemon that double-forked away still belongs to the subtree it came from.
 */
static bool in_subtree(const struct model *m, const struct mproc *p, __u32 root)
{
	const struct lineage *l;
	int depth;

	for (l = p->lineage, depth = 0; l && depth < 128; l = l->parent, depth++)
		if (l->pid == root)
			return true;
	for (depth = 0; p && depth < 128; depth++) {
		if (p->ctx.pid == root)
			return true;
		if (!p->ctx.ppid || p->ctx.ppid == p->ctx.pid)
			return false;
		p = model__find(m, p->ctx.ppid);
	}
	return false;
}

bool tree__wanted(const struct model *m, const struct filter *filter, __u32 pid,
		  const struct mproc *p)
{
	struct filter f = filter ? *filter : (struct filter){};
	const char *tty = f.tty;
	char name[32];

	/* A tree shows whole sessions: the one on the tty, its members without one too. */
	f.tty = NULL;
	if (!filter__proc(&f, &p->ctx))
		return false;
	if (tty) {
		const struct msession *s = model__session(m, p->ctx.sid);

		if (!s || !decode__tty_name(s->tty, s->tty_nr, name, sizeof(name)) ||
		    strcmp(name, tty))
			return false;
	}
	if (pid && !in_subtree(m, p, pid))
		return false;
	return true;
}

struct ctx {
	const struct model *m;
	const struct tree_opts *o;
	const struct glyphs *g;
	struct mproc **procs;
	struct sbuf *out;
	struct jsonw w; /* with --json, on out */
	char prefix[512];
};

static bool in_run(struct mproc **procs, const struct layout_run *r, __u32 pid)
{
	size_t i;

	for (i = r->first; i < r->first + r->count; i++)
		if (procs[i]->ctx.pid == pid)
			return true;
	return false;
}

static void proc_line(struct ctx *c, const struct mproc *p, bool under_parent)
{
	struct sbuf *sb = c->out;
	bool leader = p->ctx.flags & PGT_F_SESSION_LEADER;

	sbuf__printf(sb, "%u ", p->ctx.pid);
	sbuf__put_text(sb, p->ctx.comm, sizeof(p->ctx.comm));
	if (leader || p->zombie)
		sbuf__printf(sb, " %s%s", leader ? "s" : "", p->zombie ? "Z" : "");
	if (!under_parent)
		sbuf__printf(sb, "  ppid %u", p->ctx.ppid);
	if (p->adopted_from)
		sbuf__printf(sb, "  adopted from %u", p->adopted_from);
	if (p->uncertain)
		sbuf__puts(sb, "  (uncertain)");
	sbuf__putc(sb, '\n');
}

/* The processes of group run @r whose parent is @ppid, nested. */
static void proc_children(struct ctx *c, const struct layout_run *r, __u32 ppid, bool roots,
			  int depth)
{
	size_t i, last = (size_t)-1, plen = strlen(c->prefix);

	for (i = r->first; i < r->first + r->count; i++) {
		const struct mproc *p = c->procs[i];
		bool root = p->ctx.ppid == p->ctx.pid || !in_run(c->procs, r, p->ctx.ppid);

		if (roots ? root : (!root && p->ctx.ppid == ppid))
			last = i;
	}
	for (i = r->first; i < r->first + r->count && last != (size_t)-1; i++) {
		const struct mproc *p = c->procs[i];
		bool root = p->ctx.ppid == p->ctx.pid || !in_run(c->procs, r, p->ctx.ppid);

		if (!(roots ? root : (!root && p->ctx.ppid == ppid)))
			continue;
		sbuf__printf(c->out, "%s%s", c->prefix, i == last ? c->g->last : c->g->tee);
		proc_line(c, p, !root);
		if (depth < 64 && plen + 8 < sizeof(c->prefix)) {
			strcat(c->prefix, i == last ? c->g->blank : c->g->pipe);
			proc_children(c, r, p->ctx.pid, false, depth + 1);
			c->prefix[plen] = '\0';
		}
	}
}

static void session_line(struct ctx *c, const struct msession *s, __u32 sid,
			 const struct mproc *first)
{
	const struct mproc *leader = model__session_leader(c->m, sid);
	char tty[32];

	if (sid == 0) {
		sbuf__puts(c->out, "session 0 (kernel)\n");
		return;
	}
	sbuf__printf(c->out, "session %u", sid);
	if (leader) {
		sbuf__printf(c->out, "  leader %u ", leader->ctx.pid);
		sbuf__put_text(c->out, leader->ctx.comm, sizeof(leader->ctx.comm));
	} else {
		sbuf__puts(c->out, "  leader gone");
	}
	if (s && decode__tty_name(s->tty, s->tty_nr, tty, sizeof(tty)))
		sbuf__printf(c->out, "  tty %s", tty);
	else
		sbuf__puts(c->out, "  no tty");
	first = leader ? leader : first;
	if (first->ctx.auid != PGT_ID_UNSET)
		sbuf__printf(c->out, "  login uid %u", first->ctx.auid);
	sbuf__printf(c->out, "  uid %u\n", first->ctx.uid);
}

bool tree__is_foreground(const struct model *m, __u32 sid, __u32 pgid)
{
	const struct msession *s = model__session(m, sid);
	const struct mtty *t = s && s->tty_nr ? model__tty(m, s->tty_nr) : NULL;

	return t && t->sid == sid && t->fg_pgid == pgid;
}

static void json_proc(struct jsonw *w, const struct mproc *p)
{
	char eid[17];

	decode__entity_id(p->ctx.pid, p->ctx.start_ns, eid);
	jsonw_start_object(w);
	jsonw_uint_field(w, "pid", p->ctx.pid);
	jsonw_uint_field(w, "ppid", p->ctx.ppid);
	/* Not UTF-8: the bytes too, as in the event records. */
	jsonw_untrusted(w, "comm", p->ctx.comm, sizeof(p->ctx.comm));
	jsonw_uint_field(w, "uid", p->ctx.uid);
	jsonw_uint_field(w, "start_ns", p->ctx.start_ns);
	jsonw_plain_field(w, "entity_id", eid);
	jsonw_bool_field(w, "session_leader", p->ctx.flags & PGT_F_SESSION_LEADER);
	jsonw_bool_field(w, "zombie", p->zombie);
	jsonw_bool_field(w, "uncertain", p->uncertain);
	if (p->adopted_from)
		jsonw_uint_field(w, "adopted_from", p->adopted_from);
	else
		jsonw_null_field(w, "adopted_from");
	jsonw_end_object(w);
}

/* One session @s and its groups (sorted), as JSON. */
static void json_session(struct ctx *c, const struct layout_run *s, const struct layout_run *groups)
{
	const struct msession *ms = model__session(c->m, s->id);
	const struct mproc *leader = model__session_leader(c->m, s->id);
	struct jsonw *w = &c->w;
	char tty[32];
	size_t k, q;

	jsonw_start_object(w);
	jsonw_uint_field(w, "sid", s->id);
	if (leader)
		jsonw_uint_field(w, "leader", leader->ctx.pid);
	else
		jsonw_null_field(w, "leader");
	if (ms && decode__tty_name(ms->tty, ms->tty_nr, tty, sizeof(tty)))
		jsonw_string_field(w, "tty", tty);
	else
		jsonw_null_field(w, "tty");
	jsonw_name(w, "groups");
	jsonw_start_array(w);
	for (k = s->first; k < s->first + s->count; k++) {
		jsonw_start_object(w);
		jsonw_uint_field(w, "pgid", groups[k].id);
		jsonw_bool_field(w, "foreground", tree__is_foreground(c->m, s->id, groups[k].id));
		jsonw_name(w, "processes");
		jsonw_start_array(w);
		for (q = groups[k].first; q < groups[k].first + groups[k].count; q++)
			json_proc(w, c->procs[q]);
		jsonw_end_array(w);
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
	jsonw_end_object(w);
}

static bool want(void *ctx, const struct mproc *p)
{
	const struct ctx *c = ctx;

	return tree__wanted(c->m, c->o->filter, c->o->pid, p);
}

/* One session @s and its groups. */
static void draw_session(struct ctx *c, const struct layout_run *s, const struct layout_run *groups)
{
	const struct model *m = c->m;
	struct sbuf *out = c->out;
	size_t k;

	if (c->o->json) {
		json_session(c, s, groups);
		return;
	}
	session_line(c, model__session(m, s->id), s->id, c->procs[groups[s->first].first]);
	for (k = s->first; k < s->first + s->count; k++) {
		bool last = k == s->first + s->count - 1;

		sbuf__printf(out, "%sgroup %u%s\n", last ? c->g->last : c->g->tee, groups[k].id,
			     tree__is_foreground(m, s->id, groups[k].id) ? " +" : "");
		strcpy(c->prefix, last ? c->g->blank : c->g->pipe);
		proc_children(c, &groups[k], 0, true, 0);
	}
}

size_t tree__render(const struct model *m, const struct tree_opts *o, struct sbuf *out)
{
	struct ctx c = { .m = m, .o = o, .g = o->ascii ? &ascii_glyphs : &utf8_glyphs, .out = out };
	struct layout l;
	size_t i;

	if (layout__build(&l, m, want, &c, false)) {
		out->oom = true;
		return 0;
	}
	c.procs = l.procs;
	if (o->json) {
		jsonw_init(&c.w, out);
		jsonw_start_object(&c.w);
		jsonw_uint_field(&c.w, "schema", PGT_SCHEMA_VERSION);
		jsonw_name(&c.w, "sessions");
		jsonw_start_array(&c.w);
	}
	for (i = 0; i < l.ns; i++)
		draw_session(&c, &l.sessions[i], l.groups);
	if (o->json) {
		jsonw_end_array(&c.w);
		jsonw_end_object(&c.w);
		sbuf__putc(out, '\n');
	}
	i = l.n;
	layout__free(&l);
	return i;
}

size_t tree__redraw(const struct model *m, const struct tree_opts *o, struct sbuf *last, bool clear,
		    bool blank, struct sbuf *out)
{
	size_t n;

	sbuf__reset(out);
	n = tree__render(m, o, out);
	if (last->buf && last->len == out->len && !memcmp(last->buf, out->buf, out->len)) {
		sbuf__reset(out);
		return n;
	}
	sbuf__reset(last);
	sbuf__put(last, out->buf, out->len);
	if (clear) {
		sbuf__reset(out);
		sbuf__puts(out, "\033[H\033[2J");
		sbuf__put(out, last->buf, last->len);
	} else if (blank) {
		sbuf__putc(out, '\n');
	}
	return n;
}
