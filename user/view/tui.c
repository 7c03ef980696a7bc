// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <curses.h>
#include <uthash.h>
#include "clock.h"
#include "procfs.h"
#include "sbuf.h"
#include "format.h"
#include "tui.h"
#include "view.h"
#include "msg.h"

#define EVENTS_KEPT	 64 /* the event pane's lines, newest last */
#define PANE_LINES	 4
#define MARKS_MAX	 65536	       /* escaped processes remembered; the oldest go first */
#define STATE_REFRESH_NS 1000000000ULL /* a redraw at least this often */

/* An escaped process: where it came from, as its escape record said. */
struct mark_node {
	__u32 pid; /* key */
	__u64 start_ns;
	__u64 added; /* for forgetting the oldest */
	struct view_mark mark;
	UT_hash_handle hh;
};

/* A session or group folded or unfolded by the user, against its default. */
struct fold_node {
	__u64 key; /* kind << 32 | id */
	UT_hash_handle hh;
};

struct pane_line {
	__u32 sid[2]; /* the sessions it concerns (0: none) */
	char *text;
};

enum { C_FG = 1, C_STOPPED, C_ESCAPE, C_SESSION, C_TITLE };

struct tui {
	struct tui_cfg cfg;
	SCREEN *scr;
	struct view view;
	struct view_opts vo;
	struct view_style st;
	struct mark_node *marks;
	__u64 marks_added;
	struct fold_node *toggled;
	struct pane_line pane[EVENTS_KEPT];
	size_t pane_at, pane_n;
	size_t cursor, top;
	/* Following: the row the cursor stays on as rows come and go. */
	bool follow;
	struct view_row followed;
	bool dirty;    /* a key, a resize: draw now */
	bool pane_new; /* a line for the pane: draw once the interval is up */
	__u64 drawn_gen, next_ns, drawn_ns;
	char search[64];
	size_t search_len;
	bool searching;
	char status[160]; /* a message until the next key */
	bool has_uid;
	__u32 uid;
	char tty[32];
	__u32 sid;
	struct lineage *login; /* held */
	bool escapes_only;
	bool kthreads;
	struct sbuf line;
	bool quit;
	__u32 *esc_sids; /* note_escapees() */
	size_t nesc_sids;
	struct sbuf said;	      /* what pgrptrace said while the screen was ours */
	const struct mproc *state_of; /* proc_state()'s last process, this draw */
	char state;
};

/* ---- Escapes and the event pane, from the records ---- */

static const struct view_mark *mark_of(void *ctx, const struct mproc *p)
{
	struct tui *t = ctx;
	struct mark_node *n;

	HASH_FIND(hh, t->marks, &p->ctx.pid, sizeof(p->ctx.pid), n);
	return n && n->start_ns == p->ctx.start_ns ? &n->mark : NULL;
}

static void forget_oldest_mark(struct tui *t)
{
	struct mark_node *n, *tmp, *old = NULL;

	HASH_ITER(hh, t->marks, n, tmp)
		if (!old || n->added < old->added)
			old = n;
	if (old) {
		HASH_DEL(t->marks, old);
		free(old);
	}
}

static void add_mark(struct tui *t, const struct escape *e)
{
	const struct lineage *entry = e->entry;
	__u32 pid = e->proc.pid;
	struct mark_node *n;
	char tty[32];

	if (!pid)
		return;
	HASH_FIND(hh, t->marks, &pid, sizeof(pid), n);
	if (!n) {
		if (HASH_COUNT(t->marks) >= MARKS_MAX)
			forget_oldest_mark(t);
		n = calloc(1, sizeof(*n));
		if (!n)
			return;
		n->pid = pid;
		HASH_ADD(hh, t->marks, pid, sizeof(n->pid), n);
	}
	n->start_ns = e->proc.start_ns;
	n->added = ++t->marks_added;
	snprintf(n->mark.kind, sizeof(n->mark.kind), "%s", escape__kind_name(e->kind));
	n->mark.from_sid = e->from.sid;
	n->mark.login_pid = entry ? entry->pid : 0;
	if (!entry || !decode__tty_name(entry->tty, entry->tty_nr, tty, sizeof(tty)))
		tty[0] = '\0';
	snprintf(n->mark.login_tty, sizeof(n->mark.login_tty), "%s", tty);
}

/* ---- The pane: a short line of its own for what concerns sessions ---- */

/* "HH:MM:SS " of a boot-time stamp, in local time or UTC as the text output. */
static void pane_time(struct sbuf *sb, const struct tui *t, __u64 boot_ns)
{
	struct fmt_ctx fc = { .boot_to_real_ns = t->cfg.boot_to_real_ns };
	struct tm tm;
	time_t secs;
	long nsec;

	fmt__split_time(&fc, boot_ns, &secs, &nsec);
	if (t->cfg.utc ? !gmtime_r(&secs, &tm) : !localtime_r(&secs, &tm))
		memset(&tm, 0, sizeof(tm));
	sbuf__printf(sb, "%02d:%02d:%02d ", tm.tm_hour, tm.tm_min, tm.tm_sec);
}

/* "PID COMM" of a process, its name made safe for the screen. */
static void pane_proc(struct sbuf *sb, const struct pgt_proc *p)
{
	sbuf__printf(sb, "%u ", p->pid);
	sbuf__put_text(sb, p->comm, sizeof(p->comm));
}

/* A line into the pane, about sessions @sid0 and @sid1 (0: none). */
static void pane_add(struct tui *t, const struct sbuf *sb, __u32 sid0, __u32 sid1)
{
	struct pane_line *pl = &t->pane[t->pane_at];

	free(pl->text);
	pl->text = sb->buf ? strdup(sb->buf) : NULL;
	pl->sid[0] = sid0;
	pl->sid[1] = sid1;
	t->pane_at = (t->pane_at + 1) % EVENTS_KEPT;
	if (t->pane_n < EVENTS_KEPT)
		t->pane_n++;
	t->pane_new = true;
}

void tui__event(struct tui *t, const struct pgt_event *ev)
{
	struct sbuf sb = {};
	char tty[32];

	if (ev->hdr->type == PGT_TTY) {
		const struct pgt_tty *r = ev->tty;

		pane_time(&sb, t, ev->hdr->ts_ns);
		if (!decode__tty_name(r->tty, r->tty_nr, tty, sizeof(tty)))
			snprintf(tty, sizeof(tty), "-");
		sbuf__printf(&sb, "%s %s by ", tty, r->acquire ? "acquired" : "released");
		pane_proc(&sb, &r->proc);
		sbuf__printf(&sb, " (%s)", decode__tty_how_name(r->how));
		pane_add(t, &sb, r->proc.sid, r->sid);
	} else if (ev->hdr->type == PGT_FOREGROUND && ev->fg->ret >= 0) {
		const struct pgt_foreground *f = ev->fg;

		pane_time(&sb, t, ev->hdr->ts_ns);
		if (!decode__tty_name(f->tty, f->tty_nr, tty, sizeof(tty)))
			snprintf(tty, sizeof(tty), "-");
		sbuf__printf(&sb, "%s foreground %u -> %u by ", tty, f->old_pgid, f->new_pgid);
		pane_proc(&sb, &f->proc);
		pane_add(t, &sb, f->proc.sid, f->sid);
	}
	sbuf__free(&sb);
}

void tui__signal(struct tui *t, const struct sig_cause *c)
{
	const struct pgt_signal *r = &c->first;
	struct sbuf sb = {};
	char sig[16];

	/* A signal to one process is not the pane's: those to groups, sessions, all. */
	if (r->scope != PGT_SCOPE_GROUP && r->scope != PGT_SCOPE_SESSION &&
	    r->scope != PGT_SCOPE_ALL)
		return;
	pane_time(&sb, t, r->hdr.ts_ns);
	sbuf__printf(&sb, "%s %s -> %s", decode__signame((int)r->sig, sig, sizeof(sig)),
		     decode__cause_name(r->cause), decode__scope_name(r->scope));
	if (r->scope != PGT_SCOPE_ALL)
		sbuf__printf(&sb, " %d", r->target);
	sbuf__puts(&sb, " by ");
	pane_proc(&sb, &r->proc);
	sbuf__printf(&sb, ": %u process%s%s", c->nr, c->nr == 1 ? "" : "es",
		     c->flags & PGT_SIG_FATAL ? ", fatal" : "");
	pane_add(t, &sb, r->proc.sid, r->scope == PGT_SCOPE_SESSION ? (__u32)r->target : 0);
	sbuf__free(&sb);
}

void tui__escape(struct tui *t, const struct escape *e)
{
	struct sbuf sb = {};

	add_mark(t, e);
	pane_time(&sb, t, e->ts_ns);
	sbuf__printf(&sb, "escape %s ", escape__kind_name(e->kind));
	pane_proc(&sb, &e->proc);
	switch (e->kind) {
	case ESC_SETSID:
		sbuf__printf(&sb, ": session %u -> %u", e->from.sid, e->to.sid);
		break;
	case ESC_PGRP:
		sbuf__printf(&sb, ": group %u -> %u", e->from.pgid, e->to.pgid);
		break;
	case ESC_REPARENT:
	case ESC_DAEMONIZE:
		sbuf__printf(&sb, ": parent %u -> %u", e->from.ppid, e->to.ppid);
		break;
	case ESC_CGROUP:
		sbuf__puts(&sb, ": cgroup ");
		sbuf__put_text(&sb, e->detail, sizeof(e->detail));
		break;
	default:
		sbuf__printf(&sb, ": from session %u", e->from.sid);
		break;
	}
	pane_add(t, &sb, e->proc.sid, e->from.sid);
	sbuf__free(&sb);
}

void tui__lost(struct tui *t, const struct lost_info *li)
{
	struct sbuf sb = {};

	pane_time(&sb, t, li->to_ns);
	sbuf__printf(&sb, "lost %llu events: the tree is read again",
		     (unsigned long long)li->total);
	pane_add(t, &sb, 0, 0);
	sbuf__free(&sb);
}

/* ---- Folding ---- */

static bool is_toggled(struct tui *t, enum view_kind kind, __u32 id)
{
	__u64 key = (__u64)kind << 32 | id;
	struct fold_node *n;

	HASH_FIND(hh, t->toggled, &key, sizeof(key), n);
	return n != NULL;
}

static bool filtered(const struct tui *t)
{
	return t->has_uid || t->tty[0] || t->sid || t->login || t->escapes_only || t->cfg.pid ||
	       (t->cfg.filter && filter__active(t->cfg.filter));
}

static int cmp_u32(const void *a, const void *b)
{
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;

	return x < y ? -1 : x > y;
}

/* The sessions that escaped processes are in now, sorted, for is_folded(). */
static void note_escapees(struct tui *t)
{
	struct mark_node *n, *tmp;
	const struct mproc *p;
	size_t cap = HASH_COUNT(t->marks);
	__u32 *sids = cap ? malloc(cap * sizeof(*sids)) : NULL;

	free(t->esc_sids);
	t->esc_sids = sids;
	t->nesc_sids = 0;
	if (!sids)
		return;
	HASH_ITER(hh, t->marks, n, tmp) {
		p = model__find(t->cfg.model, n->pid);
		if (p && p->ctx.start_ns == n->start_ns)
			sids[t->nesc_sids++] = p->ctx.sid;
	}
	qsort(sids, t->nesc_sids, sizeof(*sids), cmp_u32);
}

/* A process of session @sid escaped from somewhere: the session is worth a look. */
static bool has_escapee(const struct tui *t, __u32 sid)
{
	return t->nesc_sids && bsearch(&sid, t->esc_sids, t->nesc_sids, sizeof(sid), cmp_u32);
}

/*
 * Folded by default: on the machine's view, the sessions of no login
 * (daemons) where nobody escaped to; what a filter picked is shown whole.
 */
static bool is_folded(void *ctx, enum view_kind kind, __u32 id)
{
	struct tui *t = ctx;
	const struct msession *s;
	const struct mproc *leader;
	bool dflt = false;

	if (kind == VIEW_SESSION && !filtered(t)) {
		s = model__session(t->cfg.model, id);
		leader = model__session_leader(t->cfg.model, id);
		dflt = !(s && s->tty_nr) && !(leader && model__is_entry_leader(leader)) &&
		       !has_escapee(t, id);
	}
	return dflt != is_toggled(t, kind, id);
}

static void toggle(struct tui *t, enum view_kind kind, __u32 id)
{
	__u64 key = (__u64)kind << 32 | id;
	struct fold_node *n;

	HASH_FIND(hh, t->toggled, &key, sizeof(key), n);
	if (n) {
		HASH_DEL(t->toggled, n);
		free(n);
		return;
	}
	n = calloc(1, sizeof(*n));
	if (!n)
		return;
	n->key = key;
	HASH_ADD(hh, t->toggled, key, sizeof(n->key), n);
}

/* ---- Drawing ---- */

/* /proc/PID/stat's state, read once per row drawn (the line, then its colour). */
static char proc_state(void *ctx, const struct mproc *p)
{
	struct tui *t = ctx;
	struct proc_stat st;

	if (t->state_of == p)
		return t->state;
	t->state_of = p;
	t->state = procfs__read_stat((pid_t)p->ctx.pid, &st) ? 0 : st.state;
	return t->state;
}

static void rebuild(struct tui *t)
{
	note_escapees(t);
	t->vo = (struct view_opts){
		.filter = t->cfg.filter,
		.pid = t->cfg.pid,
		.kthreads = t->kthreads,
		.escapes_only = t->escapes_only,
		.has_uid = t->has_uid,
		.uid = t->uid,
		.tty = t->tty[0] ? t->tty : NULL,
		.sid = t->sid,
		.login = t->login,
		.folded = is_folded,
		.folded_ctx = t,
		.mark = mark_of,
		.mark_ctx = t,
	};
	if (view__build(&t->view, t->cfg.model, &t->vo))
		snprintf(t->status, sizeof(t->status), "out of memory");
}

static bool same_row(const struct view_row *a, const struct view_row *b)
{
	if (a->kind != b->kind)
		return false;
	switch (a->kind) {
	case VIEW_SESSION:
		return a->sid == b->sid;
	case VIEW_GROUP:
		return a->sid == b->sid && a->pgid == b->pgid;
	case VIEW_PROC:
		return a->pid == b->pid && a->start_ns == b->start_ns;
	}
	return false;
}

/* The cursor back on the followed row, if it is still there. */
static void refollow(struct tui *t)
{
	size_t i;

	if (!t->follow)
		return;
	for (i = 0; i < t->view.n; i++) {
		/* A process that became a one-process job is still the one followed. */
		if (same_row(&t->view.rows[i], &t->followed) ||
		    (t->followed.kind == VIEW_PROC && t->view.rows[i].kind == VIEW_GROUP &&
		     t->view.rows[i].pid == t->followed.pid &&
		     t->view.rows[i].start_ns == t->followed.start_ns)) {
			t->cursor = i;
			return;
		}
	}
}

/* The session row that @i belongs to. */
static size_t session_of(const struct tui *t, size_t i)
{
	while (i > 0 && t->view.rows[i].kind != VIEW_SESSION)
		i--;
	return i;
}

static void put_line(struct tui *t, int y, const struct view_row *r, int width, bool selected)
{
	size_t mark_at;
	attr_t base = 0;
	int pair = 0;

	sbuf__reset(&t->line);
	view__line(&t->line, t->cfg.model, r, &t->st, (size_t)width, &mark_at);
	if (r->kind == VIEW_SESSION) {
		base = A_BOLD;
		pair = C_SESSION;
	} else if (r->fg) {
		base = A_BOLD;
		pair = C_FG;
	}
	if (r->p && (r->kind == VIEW_PROC || r->kind == VIEW_GROUP)) {
		char s = r->p->zombie ? 'Z' : proc_state(t, r->p);

		if (s == 'T' || s == 't')
			pair = C_STOPPED;
	}
	if (!t->cfg.color)
		pair = 0;
	if (selected)
		base |= A_REVERSE;
	move(y, 0);
	clrtoeol();
	attrset(base | (pair ? COLOR_PAIR(pair) : 0));
	addnstr(t->line.buf, (int)(mark_at < t->line.len ? mark_at : t->line.len));
	if (mark_at < t->line.len) {
		attrset(base | (t->cfg.color ? COLOR_PAIR(C_ESCAPE) : A_BOLD));
		addnstr(t->line.buf + mark_at, (int)(t->line.len - mark_at));
	}
	attrset(A_NORMAL);
}

/* A line of text cut to the width (our own, or already made safe). */
static void put_text(int y, const char *s, int width, attr_t attr)
{
	size_t n = view__fit(s, strlen(s), (size_t)width, NULL);

	move(y, 0);
	clrtoeol();
	attrset(attr);
	addnstr(s, (int)n);
	attrset(A_NORMAL);
}

static bool sid_in_view(const struct tui *t, __u32 sid)
{
	size_t i;

	for (i = 0; sid && i < t->view.n; i++)
		if (t->view.rows[i].kind == VIEW_SESSION && t->view.rows[i].sid == sid)
			return true;
	return false;
}

/* "left this login:": where the escapes of the login or tty in view went. */
static void left_footer(struct tui *t, struct sbuf *sb)
{
	const struct model *m = t->cfg.model;
	struct mark_node *n, *tmp;
	const struct mproc *p;
	size_t count = 0;

	if (!t->login && !t->tty[0] && !(t->cfg.filter && t->cfg.filter->tty))
		return;
	HASH_ITER(hh, t->marks, n, tmp) {
		const char *tty = t->tty[0] ? t->tty : t->cfg.filter ? t->cfg.filter->tty : NULL;

		p = model__find(m, n->pid);
		if (!p || p->ctx.start_ns != n->start_ns || sid_in_view(t, p->ctx.sid))
			continue;
		if (t->login ? n->mark.login_pid != t->login->pid :
			       !tty || strcmp(n->mark.login_tty, tty))
			continue;
		sbuf__puts(sb, count++ ? ", " : "left this login: ");
		sbuf__printf(sb, "%u ", p->ctx.pid);
		sbuf__put_text(sb, p->ctx.comm, sizeof(p->ctx.comm));
		sbuf__printf(sb, " (%s, session %u)", n->mark.kind, p->ctx.sid);
	}
}

static void title(struct tui *t, int width)
{
	struct sbuf sb = {};

	sbuf__puts(&sb, " pgrptrace  ");
	sbuf__put_text(&sb, t->cfg.host ? t->cfg.host : "", 64);
	sbuf__printf(&sb, "  %zu processes", t->view.procs);
	if (t->view.hidden_kthreads)
		sbuf__printf(&sb, " (%zu kernel threads hidden)", t->view.hidden_kthreads);
	if (t->has_uid)
		sbuf__printf(&sb, "  uid %u", t->uid);
	if (t->tty[0])
		sbuf__printf(&sb, "  tty %s", t->tty);
	if (t->sid)
		sbuf__printf(&sb, "  session %u", t->sid);
	if (t->login)
		sbuf__printf(&sb, "  login %u", t->login->pid);
	if (t->escapes_only)
		sbuf__puts(&sb, "  escapes only");
	if (t->follow)
		sbuf__puts(&sb, "  following");
	sbuf__putc(&sb, '\0');
	if (!sb.oom)
		put_text(0, sb.buf, width, A_REVERSE | (t->cfg.color ? COLOR_PAIR(C_TITLE) : 0));
	sbuf__free(&sb);
}

static const char help_utf8[] = "q quit  \u2191\u2193 PgUp PgDn  / find  \u23ce fold  "
				"k kernel  e escapes  f follow  u t s l filter  c clear";
static const char help_ascii[] = "q quit  up/down PgUp PgDn  / find  Enter fold  "
				 "k kernel  e escapes  f follow  u t s l filter  c clear";

static void draw(struct tui *t)
{
	int h, w, body, pane = 0, y, i;
	struct sbuf foot = {};
	size_t visible, row, sess;
	bool pinned;

	getmaxyx(stdscr, h, w);
	rebuild(t);
	t->state_of = NULL; /* states are read anew for each draw */
	refollow(t);
	if (t->cursor >= t->view.n)
		t->cursor = t->view.n ? t->view.n - 1 : 0;
	left_footer(t, &foot);
	sbuf__putc(&foot, '\0');
	if (h >= 16)
		pane = h >= 30 ? PANE_LINES + 2 : PANE_LINES;
	/* The title, the body, the pane under its rule, the footer, the help line. */
	body = h - 2 - (pane ? pane + 1 : 0) - (foot.len > 1 ? 1 : 0);
	if (body < 2) {
		pane = 0;
		body = h - 2 - (foot.len > 1 ? 1 : 0);
	}
	if (body < 1)
		body = 1;
	/* Scroll to the cursor; a session's header stays pinned over its rows. */
	for (i = 0; i < 3; i++) {
		pinned = t->top < t->view.n && t->view.rows[t->top].kind != VIEW_SESSION;
		visible = (size_t)body - (pinned ? 1 : 0);
		if (!visible)
			visible = 1;
		if (t->cursor < t->top)
			t->top = t->cursor;
		else if (t->cursor >= t->top + visible)
			t->top = t->cursor - visible + 1;
	}
	if (t->top > t->view.n)
		t->top = 0;
	pinned = t->top < t->view.n && t->view.rows[t->top].kind != VIEW_SESSION;
	erase();
	title(t, w);
	y = 1;
	if (pinned) {
		sess = session_of(t, t->top);
		put_line(t, y++, &t->view.rows[sess], w, false);
	}
	for (row = t->top; row < t->view.n && y < 1 + body; row++, y++)
		put_line(t, y, &t->view.rows[row], w, row == t->cursor);
	if (!t->view.n)
		put_text(1, "(nothing to show: c clears the filters)", w, A_DIM);
	y = 1 + body;
	if (pane) {
		size_t shown = 0, k;
		const char *rows[PANE_LINES + 2];

		mvhline(y, 0, ACS_HLINE, w);
		mvaddstr(y, 2, " latest ");
		y++;
		/* Newest last; with a filter, only what concerns the sessions in view. */
		for (k = 0; k < t->pane_n && shown < (size_t)pane; k++) {
			const struct pane_line *pl =
				&t->pane[(t->pane_at + EVENTS_KEPT - 1 - k) % EVENTS_KEPT];

			if (!pl->text)
				continue;
			if (filtered(t) && !sid_in_view(t, pl->sid[0]) &&
			    !sid_in_view(t, pl->sid[1]))
				continue;
			rows[shown++] = pl->text;
		}
		for (k = 0; k < (size_t)pane; k++, y++)
			if (k < shown)
				put_text(y, rows[shown - 1 - k], w, A_NORMAL);
	}
	if (foot.len > 1)
		put_text(y++, foot.buf, w, t->cfg.color ? COLOR_PAIR(C_ESCAPE) : A_BOLD);
	sbuf__free(&foot);
	if (t->searching) {
		char prompt[96];

		snprintf(prompt, sizeof(prompt), "/%.*s", (int)t->search_len, t->search);
		put_text(h - 1, prompt, w, A_NORMAL);
	} else if (t->status[0]) {
		put_text(h - 1, t->status, w, A_BOLD);
	} else {
		put_text(h - 1, t->st.utf8 ? help_utf8 : help_ascii, w, A_DIM);
	}
	refresh();
}

void tui__draw(struct tui *t, __u64 now_ns)
{
	__u64 gen = model__generation(t->cfg.model);

	/*
	 * A key: now. The model changed, or the pane has a new line: once the
	 * interval is up. Nothing: once a second anyway, for the states that
	 * /proc shows (a job stopped, or running again) without an event.
	 */
	if (!t->dirty && !((gen != t->drawn_gen || t->pane_new) && now_ns >= t->next_ns) &&
	    now_ns < t->drawn_ns + STATE_REFRESH_NS)
		return;
	draw(t);
	t->dirty = t->pane_new = false;
	t->drawn_gen = gen;
	t->drawn_ns = now_ns;
	t->next_ns = now_ns + t->cfg.interval_ms * 1000000ULL;
}

/* ---- Keys ---- */

static const struct view_row *selected(const struct tui *t)
{
	return t->cursor < t->view.n ? &t->view.rows[t->cursor] : NULL;
}

/* The process a row stands for: its own, a one-process group's, a session's leader. */
static const struct mproc *row_proc(const struct tui *t, const struct view_row *r)
{
	const struct mproc *p;

	if (!r)
		return NULL;
	if (r->p)
		return r->p;
	p = model__find(t->cfg.model, r->kind == VIEW_GROUP ? r->pgid : r->sid);
	return p && p->ctx.sid == r->sid ? p : NULL;
}

static void search_next(struct tui *t)
{
	size_t i, k;

	if (!t->search_len)
		return;
	t->state_of = NULL;
	for (k = 1; k <= t->view.n; k++) {
		i = (t->cursor + k) % t->view.n;
		sbuf__reset(&t->line);
		view__line(&t->line, t->cfg.model, &t->view.rows[i], &t->st, 4096, NULL);
		sbuf__putc(&t->line, '\0');
		if (!t->line.oom && strcasestr(t->line.buf, t->search)) {
			t->cursor = i;
			return;
		}
	}
	snprintf(t->status, sizeof(t->status), "not found: %.*s", (int)t->search_len, t->search);
}

static void search_key(struct tui *t, int c)
{
	if (c == 27) {
		t->searching = false;
	} else if (c == '\n' || c == '\r' || c == KEY_ENTER) {
		t->searching = false;
		search_next(t);
	} else if ((c == KEY_BACKSPACE || c == 127 || c == 8) && t->search_len) {
		t->search_len--;
	} else if (c >= 32 && c < 127 && t->search_len < sizeof(t->search) - 1) {
		t->search[t->search_len++] = (char)c;
	}
	t->search[t->search_len] = '\0';
}

static void filter_key(struct tui *t, int c)
{
	const struct view_row *r = selected(t);
	const struct mproc *p = row_proc(t, r);
	const struct msession *s;

	switch (c) {
	case 'u':
		if (t->has_uid || !p) {
			t->has_uid = false;
		} else {
			t->has_uid = true;
			t->uid = p->ctx.uid;
		}
		break;
	case 't':
		s = r ? model__session(t->cfg.model, r->sid) : NULL;
		if (t->tty[0] || !s || !decode__tty_name(s->tty, s->tty_nr, t->tty, sizeof(t->tty)))
			t->tty[0] = '\0';
		break;
	case 's':
		t->sid = t->sid || !r ? 0 : r->sid;
		break;
	case 'l':
		if (t->login) {
			lineage__put(t->login);
			t->login = NULL;
		} else if (p && (p->entry || p->lineage)) {
			t->login = lineage__get(p->entry ? p->entry : p->lineage);
		}
		break;
	}
	t->cursor = t->top = 0;
}

/* A key that moves the cursor; false for any other. */
static bool move_key(struct tui *t, int c, size_t page)
{
	switch (c) {
	case KEY_UP:
		if (t->cursor)
			t->cursor--;
		return true;
	case KEY_DOWN:
		if (t->cursor + 1 < t->view.n)
			t->cursor++;
		return true;
	case KEY_PPAGE:
		t->cursor = t->cursor > page ? t->cursor - page : 0;
		return true;
	case KEY_NPAGE:
		t->cursor += page;
		if (t->view.n && t->cursor >= t->view.n)
			t->cursor = t->view.n - 1;
		return true;
	case KEY_HOME:
		t->cursor = 0;
		return true;
	case KEY_END:
		t->cursor = t->view.n ? t->view.n - 1 : 0;
		return true;
	default:
		return false;
	}
}

/* Enter or space on @r: fold or unfold; the cursor goes to what was folded. */
static void fold_key(struct tui *t, const struct view_row *r)
{
	if (!r)
		return;
	if (r->kind == VIEW_SESSION) {
		toggle(t, VIEW_SESSION, r->sid);
	} else if (r->kind == VIEW_GROUP && !r->p) {
		toggle(t, VIEW_GROUP, r->pgid);
	} else if (r->kind == VIEW_PROC) {
		toggle(t, VIEW_GROUP, r->pgid);
		while (t->cursor && t->view.rows[t->cursor].kind != VIEW_GROUP)
			t->cursor--;
	} else {
		toggle(t, VIEW_SESSION, r->sid);
		t->cursor = session_of(t, t->cursor);
	}
}

bool tui__keys(struct tui *t)
{
	const struct view_row *r;
	int c, h, w, page;

	while ((c = getch()) != ERR) {
		getmaxyx(stdscr, h, w);
		(void)w;
		page = h > 8 ? h - 8 : 1;
		t->dirty = true;
		if (c != KEY_RESIZE)
			t->status[0] = '\0';
		if (t->searching) {
			search_key(t, c);
			continue;
		}
		r = selected(t);
		if (move_key(t, c, (size_t)page)) {
			/* Moving the cursor moves what is followed. */
			if (t->follow && t->cursor < t->view.n)
				t->followed = t->view.rows[t->cursor];
			continue;
		}
		switch (c) {
		case 'q':
		case 'Q':
			t->quit = true;
			break;
		case '/':
			t->searching = true;
			t->search_len = 0;
			t->search[0] = '\0';
			break;
		case 'n':
			search_next(t);
			break;
		case '\n':
		case '\r':
		case KEY_ENTER:
		case ' ':
			fold_key(t, r);
			break;
		case 'k':
			t->kthreads = !t->kthreads;
			break;
		case 'e':
			t->escapes_only = !t->escapes_only;
			t->cursor = t->top = 0;
			break;
		case 'f':
			t->follow = !t->follow && r;
			if (t->follow)
				t->followed = *r;
			break;
		case 'u':
		case 't':
		case 's':
		case 'l':
			filter_key(t, c);
			break;
		case 'c':
		case 27:
			t->has_uid = t->escapes_only = false;
			t->tty[0] = '\0';
			t->sid = 0;
			lineage__put(t->login);
			t->login = NULL;
			break;
		default:
			break;
		}
		/* Moving the cursor moves what is followed. */
		if (t->follow && c == 'n' && t->cursor < t->view.n)
			t->followed = t->view.rows[t->cursor];
	}
	return t->quit;
}

/* ---- The terminal ---- */

struct tui *tui__open(const struct tui_cfg *cfg)
{
	struct tui *t = calloc(1, sizeof(*t));

	if (!t) {
		p_err("--tree: %s", strerror(ENOMEM));
		return NULL;
	}
	t->cfg = *cfg;
	t->kthreads = cfg->kthreads;
	t->st = (struct view_style){ .utf8 = !cfg->ascii,
				     .state = proc_state,
				     .state_ctx = t,
				     .mark = mark_of,
				     .mark_ctx = t };
	t->dirty = true;
	return t;
}

/*
 * What pgrptrace says while the screen is ours (losses, a re-read) would be
 * written over it: the latest goes on the status line, and all of it is
 * said once the terminal is given back.
 */
static void on_message(void *ctx, const char *text)
{
	struct tui *t = ctx;

	sbuf__puts(&t->said, "pgrptrace: ");
	sbuf__puts(&t->said, text);
	sbuf__putc(&t->said, '\n');
	snprintf(t->status, sizeof(t->status), "%s", text);
	t->dirty = true;
}

int tui__start(struct tui *t)
{
	const char *term = getenv("TERM");

	t->scr = newterm(term && *term ? NULL : "vt100", stdout, stdin);
	if (!t->scr) {
		p_err("--tree: cannot use this terminal (TERM=%s)", term ? term : "");
		return -1;
	}
	set_term(t->scr);
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	if (t->cfg.color && has_colors() && start_color() == OK) {
		use_default_colors();
		init_pair(C_FG, COLOR_GREEN, -1);
		init_pair(C_STOPPED, COLOR_YELLOW, -1);
		init_pair(C_ESCAPE, COLOR_RED, -1);
		init_pair(C_SESSION, COLOR_CYAN, -1);
		init_pair(C_TITLE, COLOR_WHITE, COLOR_BLUE);
	} else {
		t->cfg.color = 0;
	}
	msg__redirect(on_message, t);
	return 0;
}

void tui__close(struct tui *t)
{
	if (!t || !t->scr)
		return;
	endwin();
	delscreen(t->scr);
	t->scr = NULL;
	msg__redirect(NULL, NULL);
	if (t->said.len)
		fputs(t->said.buf, stderr);
	sbuf__reset(&t->said);
}

void tui__free(struct tui *t)
{
	struct mark_node *n, *tmp;
	struct fold_node *f, *ftmp;
	size_t i;

	if (!t)
		return;
	tui__close(t);
	HASH_ITER(hh, t->marks, n, tmp) {
		HASH_DEL(t->marks, n);
		free(n);
	}
	HASH_ITER(hh, t->toggled, f, ftmp) {
		HASH_DEL(t->toggled, f);
		free(f);
	}
	sbuf__free(&t->line);
	sbuf__free(&t->said);
	for (i = 0; i < EVENTS_KEPT; i++)
		free(t->pane[i].text);
	lineage__put(t->login);
	view__free(&t->view);
	free(t->esc_sids);
	free(t);
}
