// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "decode.h"
#include "format.h"
#include "tree.h"
#include "layout.h"
#include "view.h"

bool view__is_kthread(const struct mproc *p)
{
	return p->ctx.flags & PGT_F_KTHREAD || p->ctx.pid == 2 || p->ctx.ppid == 2;
}

static bool same_login(const struct lineage *a, const struct lineage *b)
{
	return a && b && a->pid == b->pid && a->start_ns == b->start_ns;
}

static bool session_tty(const struct model *m, __u32 sid, char *name, size_t len)
{
	const struct msession *s = model__session(m, sid);

	return s && decode__tty_name(s->tty, s->tty_nr, name, len);
}

static bool wanted(const struct model *m, const struct view_opts *o, const struct mproc *p)
{
	char tty[32];

	if (!o->kthreads && view__is_kthread(p))
		return false;
	if (!tree__wanted(m, o->filter, o->pid, p))
		return false;
	if (o->has_uid && p->ctx.uid != o->uid)
		return false;
	if (o->sid && p->ctx.sid != o->sid)
		return false;
	if (o->tty && (!session_tty(m, p->ctx.sid, tty, sizeof(tty)) || strcmp(tty, o->tty)))
		return false;
	if (o->login && !same_login(p->entry, o->login) && !same_login(p->lineage, o->login))
		return false;
	if (o->escapes_only && !(o->mark && o->mark(o->mark_ctx, p)))
		return false;
	return true;
}

static struct view_row *add_row(struct view *v, enum view_kind kind)
{
	struct view_row *r;

	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 256;

		r = realloc(v->rows, cap * sizeof(*r));
		if (!r)
			return NULL;
		v->rows = r;
		v->cap = cap;
	}
	r = &v->rows[v->n++];
	memset(r, 0, sizeof(*r));
	r->kind = kind;
	return r;
}

/* A group's member under its parent: the parent's pid (0 for a root), its index. */
struct kid {
	__u32 ppid;
	size_t idx;
};

static int cmp_kid(const void *a, const void *b)
{
	const struct kid *x = a, *y = b;

	if (x->ppid != y->ppid)
		return x->ppid < y->ppid ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int cmp_u32(const void *a, const void *b)
{
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;

	return x < y ? -1 : x > y;
}

/* The members whose parent is @ppid, from kids[] sorted by (ppid, idx), nested. */
static int add_kids(struct view *v, struct mproc **procs, const struct kid *kids, size_t n,
		    __u32 ppid, unsigned int depth)
{
	size_t lo = 0, hi = n, i;
	struct view_row *r;

	while (lo < hi) { /* the first kid of @ppid */
		size_t mid = lo + (hi - lo) / 2;

		if (kids[mid].ppid < ppid)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i < n && kids[i].ppid == ppid; i++) {
		const struct mproc *p = procs[kids[i].idx];

		r = add_row(v, VIEW_PROC);
		if (!r)
			return -ENOMEM;
		*r = (struct view_row){ .kind = VIEW_PROC,
					.sid = p->ctx.sid,
					.pgid = p->ctx.pgid,
					.pid = p->ctx.pid,
					.start_ns = p->ctx.start_ns,
					.p = p,
					.depth = depth,
					.under_parent = ppid != 0 };
		if (depth < 64 && p->ctx.pid && add_kids(v, procs, kids, n, p->ctx.pid, depth + 1))
			return -ENOMEM;
	}
	return 0;
}

/*
 * The processes of group @g, each under its parent where the parent is in
 * the group too: sorted by parent once, so that a group of thousands costs
 * n log n, not n squared. @kids and @pids have room for the group.
 */
static int add_procs(struct view *v, struct mproc **procs, const struct layout_run *g,
		     struct kid *kids, __u32 *pids)
{
	size_t i, n = g->count;

	for (i = 0; i < n; i++)
		pids[i] = procs[g->first + i]->ctx.pid;
	qsort(pids, n, sizeof(*pids), cmp_u32);
	for (i = 0; i < n; i++) {
		const struct mproc *p = procs[g->first + i];
		bool root = p->ctx.ppid == p->ctx.pid || !p->ctx.ppid ||
			    !bsearch(&p->ctx.ppid, pids, n, sizeof(*pids), cmp_u32);

		kids[i] = (struct kid){ root ? 0 : p->ctx.ppid, g->first + i };
	}
	qsort(kids, n, sizeof(*kids), cmp_kid);
	return add_kids(v, procs, kids, n, 0, 0);
}

static bool folded(const struct view_opts *o, enum view_kind kind, __u32 id)
{
	return o->folded && o->folded(o->folded_ctx, kind, id);
}

struct want_ctx {
	const struct model *m;
	const struct view_opts *o;
	struct view *v;
};

static bool want(void *ctx, const struct mproc *p)
{
	struct want_ctx *w = ctx;

	if (wanted(w->m, w->o, p))
		return true;
	if (!w->o->kthreads && view__is_kthread(p))
		w->v->hidden_kthreads++;
	return false;
}

/* The rows of session @s: its own, then its groups' and their processes'. */
static int add_session(struct view *v, const struct model *m, const struct view_opts *o,
		       const struct layout *l, const struct layout_run *s, struct kid *kids,
		       __u32 *pids)
{
	struct view_row *r = add_row(v, VIEW_SESSION);
	size_t members = 0, k;

	if (!r)
		return -ENOMEM;
	for (k = s->first; k < s->first + s->count; k++)
		members += l->groups[k].count;
	r->sid = s->id;
	r->members = (unsigned int)members;
	r->login = s->login;
	r->folded = folded(o, VIEW_SESSION, s->id);
	v->procs += members;
	if (r->folded)
		return 0;
	for (k = s->first; k < s->first + s->count; k++) {
		const struct layout_run *g = &l->groups[k];

		r = add_row(v, VIEW_GROUP);
		if (!r)
			return -ENOMEM;
		r->sid = s->id;
		r->pgid = g->id;
		r->members = (unsigned int)g->count;
		r->fg = tree__is_foreground(m, s->id, g->id);
		r->folded = g->count > 1 && folded(o, VIEW_GROUP, g->id);
		if (g->count == 1) {
			/* A job of one process: one line. */
			r->p = l->procs[g->first];
			r->pid = r->p->ctx.pid;
			r->start_ns = r->p->ctx.start_ns;
			continue;
		}
		if (!r->folded && add_procs(v, l->procs, g, kids, pids))
			return -ENOMEM;
	}
	return 0;
}

int view__build(struct view *v, const struct model *m, const struct view_opts *o)
{
	size_t total = model__count(m) + 1, i;
	struct kid *kids = malloc(total * sizeof(*kids));
	__u32 *pids = malloc(total * sizeof(*pids));
	struct want_ctx w = { m, o, v };
	struct layout l = {};
	int err = -ENOMEM;

	v->n = v->procs = v->hidden_kthreads = 0;
	if (!kids || !pids || layout__build(&l, m, want, &w, true))
		goto out;
	for (i = 0; i < l.ns; i++)
		if (add_session(v, m, o, &l, &l.sessions[i], kids, pids))
			goto out;
	err = 0;
out:
	layout__free(&l);
	free(kids);
	free(pids);
	return err;
}

void view__free(struct view *v)
{
	free(v->rows);
	memset(v, 0, sizeof(*v));
}

size_t view__fit(const char *s, size_t len, size_t cols, size_t *used)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, c = 0, l;
	int w;

	while (i < len) {
		l = utf8__seq_len(u + i, len - i);
		if (!l)
			l = 1; /* not from sbuf__put_text(): count it, as a terminal might */
		w = utf8__width(u + i, l);
		if (c + (size_t)w > cols)
			break;
		c += (size_t)w;
		i += l;
	}
	if (used)
		*used = c;
	return i;
}

static size_t cols_of(const struct sbuf *sb, size_t from)
{
	size_t used;

	view__fit(sb->buf + from, sb->len - from, SIZE_MAX, &used);
	return used;
}

/* What a process runs, for a person: its arguments, else its name. */
static void put_args(struct sbuf *sb, const struct mproc *p)
{
	const struct image *im = model__image(p);
	const char *a, *end;

	if (!im || !im->args || !im->args_len) {
		sbuf__put_text(sb, p->ctx.comm, sizeof(p->ctx.comm));
		return;
	}
	for (a = im->args, end = im->args + im->args_len; a < end; a += strnlen(a, end - a) + 1) {
		if (a != im->args)
			sbuf__putc(sb, ' ');
		sbuf__put_text(sb, a, (size_t)(end - a));
	}
}

static void session_text(struct sbuf *sb, const struct model *m, const struct view_row *r,
			 const struct view_style *st)
{
	const struct mproc *leader = model__session_leader(m, r->sid);
	char tty[32];

	sbuf__puts(sb, r->folded ? (st->utf8 ? "\u25b8 " : "> ") : (st->utf8 ? "\u25be " : "v "));
	if (!r->sid) {
		/* Kernel threads, and whatever never left init's first session. */
		sbuf__printf(sb, "session 0 (the kernel's)  (%u)", r->members);
		return;
	}
	sbuf__printf(sb, "session %u", r->sid);
	if (session_tty(m, r->sid, tty, sizeof(tty)))
		sbuf__printf(sb, "  %s", tty);
	else
		sbuf__puts(sb, "  no tty");
	if (leader) {
		sbuf__printf(sb, "  leader %u ", leader->ctx.pid);
		sbuf__put_text(sb, leader->ctx.comm, sizeof(leader->ctx.comm));
		sbuf__printf(sb, "  uid %u", leader->ctx.uid);
		if (model__is_entry_leader(leader)) {
			sbuf__printf(sb, "  login %s", fmt__entry_type(leader->entry));
			if (leader->entry->remote)
				sbuf__printf(sb, " from %s", leader->entry->remote->ip);
		}
	} else {
		sbuf__puts(sb, "  leader gone");
	}
	sbuf__printf(sb, "  (%u)", r->members);
}

/*
 * "1301 T sleep 120  ppid 1  ⚑ setsid from login 1270 pts/1": the pid, the
 * state, the arguments, where the parent is not drawn above, and the escape.
 * Short of room, the arguments give way first (to 8 columns), then the
 * adoption and the parent; the escape mark stays.
 */
static void proc_text(struct sbuf *sb, const struct mproc *p, const struct view_row *r,
		      const struct view_style *st, size_t start, size_t cols, size_t *mark_at)
{
	const struct view_mark *mk = st->mark ? st->mark(st->mark_ctx, p) : NULL;
	struct sbuf args = {}, ppid = {}, adopted = {}, mark = {};
	char state = p->zombie ? 'Z' : st->state ? st->state(st->state_ctx, p) : 0;
	size_t head, room, fit, used, need;

	sbuf__printf(sb, "%u %c%s ", p->ctx.pid, state ? state : '?',
		     p->ctx.flags & PGT_F_SESSION_LEADER ? "s" : "");
	put_args(&args, p);
	/* The parent, unless it is drawn above: the process's, or the session's leader. */
	if (!r->under_parent && p->ctx.ppid != p->ctx.sid)
		sbuf__printf(&ppid, "  ppid %u", p->ctx.ppid);
	if (p->adopted_from)
		sbuf__printf(&adopted, "  adopted from %u", p->adopted_from);
	if (mk) {
		sbuf__printf(&mark, "  %s %s", st->utf8 ? "\u2691" : "!", mk->kind);
		if (mk->login_pid)
			sbuf__printf(&mark, " from login %u%s%s", mk->login_pid,
				     mk->login_tty[0] ? " " : "", mk->login_tty);
		else if (mk->from_sid)
			sbuf__printf(&mark, " from session %u", mk->from_sid);
	}
	head = cols_of(sb, start);
	need = head + 8 + cols_of(&mark, 0);
	if (need + cols_of(&ppid, 0) <= cols)
		need += cols_of(&ppid, 0);
	else
		sbuf__reset(&ppid);
	if (need + cols_of(&adopted, 0) > cols)
		sbuf__reset(&adopted);
	room = cols - (cols < head ? cols : head);
	room -= room < cols_of(&mark, 0) + cols_of(&ppid, 0) + cols_of(&adopted, 0) ?
			room :
			cols_of(&mark, 0) + cols_of(&ppid, 0) + cols_of(&adopted, 0);
	if (room < 8)
		room = 8;
	fit = view__fit(args.buf, args.len, room, &used);
	sbuf__put(sb, args.buf, fit);
	sbuf__put(sb, ppid.buf, ppid.len);
	sbuf__put(sb, adopted.buf, adopted.len);
	*mark_at = mk ? sb->len : (size_t)-1;
	sbuf__put(sb, mark.buf, mark.len);
	sbuf__free(&args);
	sbuf__free(&ppid);
	sbuf__free(&adopted);
	sbuf__free(&mark);
}

size_t view__line(struct sbuf *sb, const struct model *m, const struct view_row *r,
		  const struct view_style *st, size_t cols, size_t *mark_at)
{
	size_t start = sb->len, fit, used, at = (size_t)-1;
	unsigned int i;

	switch (r->kind) {
	case VIEW_SESSION:
		session_text(sb, m, r, st);
		break;
	case VIEW_GROUP:
		sbuf__puts(sb, "  ");
		if (!r->p)
			sbuf__puts(sb, r->folded ? (st->utf8 ? "\u25b8 " : "> ") :
						   (st->utf8 ? "\u25be " : "v "));
		sbuf__printf(sb, "group %u%s", r->pgid, r->fg ? " +" : "");
		if (r->folded)
			sbuf__printf(sb, "  (%u)", r->members);
		if (r->p) {
			sbuf__puts(sb, "  ");
			proc_text(sb, r->p, r, st, start, cols, &at);
		}
		break;
	case VIEW_PROC:
		sbuf__puts(sb, "    ");
		for (i = 0; i < r->depth && i < 32; i++)
			sbuf__puts(sb, "  ");
		proc_text(sb, r->p, r, st, start, cols, &at);
		break;
	}
	/* Whatever is still too wide is cut at the width. */
	fit = view__fit(sb->buf + start, sb->len - start, cols, &used);
	sb->len = start + fit;
	if (mark_at)
		*mark_at = at == (size_t)-1 || at > sb->len ? sb->len - start : at - start;
	return used;
}
