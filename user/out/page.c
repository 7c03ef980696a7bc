// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* --html: the records gathered as a page's data, and the page written around them. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>
#include "escape.h"
#include "format.h"
#include "lineage.h"
#include "page.h"
#include "record.h"

/*
 * The page's script and style (user/out/page.html), built in: its text up
 * to the data's place, then the rest.
 */
__asm__(".section .rodata\n"
	".global page_html\n"
	"page_html:\n"
	".incbin \"user/out/page.html\"\n"
	".byte 0\n"
	".previous\n");
extern const char page_html[];
#define PAGE_DATA_MARK "/*@DATA@*/"

/* Where a process stood from @t on. */
struct state {
	__u64 t;
	__u32 ppid, pgid, sid;
};

struct pkey {
	__u32 pid, pad;
	__u64 start_ns;
};

/* A process of the page. */
struct pp {
	struct pkey key;
	__u64 from, to; /* in the model from (its birth, or first seen), to its exit (0: alive) */
	bool born;	/* its fork was seen */
	bool kthread;
	char comm[PGT_COMM_LEN];
	struct image *image; /* what it ran last, a reference */
	int login;	     /* index of its login, -1: none */
	char *exit_text;     /* its exit's record, as a text line */
	struct state *st;
	unsigned int nst, cap;
	unsigned int idx; /* in the page's order */
	bool shown;
	UT_hash_handle hh;
};

/* The latest process with a pid. */
struct by_pid {
	__u32 pid;
	struct pp *cur;
	UT_hash_handle hh;
};

struct login {
	char eid[17];
	__u32 pid;
	char comm[PGT_COMM_LEN];
	char tty[PGT_TTY_LEN];
	const char *type;
	char remote[64];
	int idx;
	UT_hash_handle hh;
};

/* A session's tty, or a tty's foreground group, from @t on. */
struct tstate {
	__u64 t;
	__u32 v; /* tty_nr, or the foreground pgid */
	char name[PGT_TTY_LEN];
};

struct series {
	__u32 key; /* sid, or tty_nr */
	struct tstate *v;
	unsigned int n, cap;
	UT_hash_handle hh;
};

struct mark {
	__u64 t;
	const char *kind; /* the record's event name */
	const char *esc;  /* an escape's kind, or NULL */
	struct pp *p;	  /* its process, NULL if not in the page */
	char *text;	  /* the record, as a text line */
	struct pp **rcpt; /* a signal's recipients in the page */
	unsigned int nrcpt;
};

struct page {
	char target[17]; /* --login: a pid or an entity id; "" for all */
	struct pp *procs;
	struct pp **all; /* in the order met */
	unsigned int nall, cap_all;
	struct by_pid *pids;
	struct login *logins;
	unsigned int nlogins;
	struct series *sessions, *ttys;
	struct mark *marks;
	unsigned int nmarks, cap_marks;
	__u64 first_ns, last_ns;
	bool span, on; /* a span: records count while on */
	__u64 end_ns;  /* where a span ended, 0: not yet */
	struct sbuf line;
	int err;
};

#define GROW(arr, n, cap, err)                                                    \
	({                                                                        \
		bool ok_ = true;                                                  \
		if ((n) == (cap)) {                                               \
			unsigned int c_ = (cap) ? 2 * (cap) : 8;                  \
			__typeof__(arr) a_ = realloc((arr), c_ * sizeof(*(arr))); \
			if (a_) {                                                 \
				(arr) = a_;                                       \
				(cap) = c_;                                       \
			} else {                                                  \
				(err) = -ENOMEM;                                  \
				ok_ = false;                                      \
			}                                                         \
		}                                                                 \
		ok_;                                                              \
	})

struct page *page__new(const char *login)
{
	struct page *pg = calloc(1, sizeof(*pg));

	if (pg && login)
		snprintf(pg->target, sizeof(pg->target), "%s", login);
	return pg;
}

static void free_series(struct series **table)
{
	struct series *s, *tmp;

	HASH_ITER(hh, *table, s, tmp) {
		HASH_DEL(*table, s);
		free(s->v);
		free(s);
	}
}

void page__free(struct page *pg)
{
	struct pp *p, *ptmp;
	struct by_pid *b, *btmp;
	struct login *l, *ltmp;
	unsigned int i;

	if (!pg)
		return;
	HASH_ITER(hh, pg->procs, p, ptmp) {
		HASH_DEL(pg->procs, p);
		image__put(p->image);
		free(p->exit_text);
		free(p->st);
		free(p);
	}
	HASH_ITER(hh, pg->pids, b, btmp) {
		HASH_DEL(pg->pids, b);
		free(b);
	}
	HASH_ITER(hh, pg->logins, l, ltmp) {
		HASH_DEL(pg->logins, l);
		free(l);
	}
	free_series(&pg->sessions);
	free_series(&pg->ttys);
	for (i = 0; i < pg->nmarks; i++) {
		free(pg->marks[i].text);
		free(pg->marks[i].rcpt);
	}
	free(pg->marks);
	free(pg->all);
	sbuf__free(&pg->line);
	free(pg);
}

static struct pp *find(const struct page *pg, __u32 pid, __u64 start_ns)
{
	struct pkey k = { .pid = pid, .start_ns = start_ns };
	struct pp *p;

	HASH_FIND(hh, pg->procs, &k, sizeof(k), p);
	return p;
}

static struct pp *current(const struct page *pg, __u32 pid)
{
	struct by_pid *b;

	HASH_FIND(hh, pg->pids, &pid, sizeof(pid), b);
	return b ? b->cur : NULL;
}

static int login_of(struct page *pg, const struct lineage *e)
{
	const struct login_remote *r;
	struct login *l;
	char eid[17];

	if (!e)
		return -1;
	decode__entity_id(e->pid, e->start_ns, eid);
	HASH_FIND_STR(pg->logins, eid, l);
	if (l)
		return l->idx;
	l = calloc(1, sizeof(*l));
	if (!l) {
		pg->err = -ENOMEM;
		return -1;
	}
	memcpy(l->eid, eid, sizeof(l->eid));
	l->pid = e->pid;
	memcpy(l->comm, e->comm, sizeof(l->comm));
	memcpy(l->tty, e->tty, sizeof(l->tty));
	l->type = fmt__entry_type(e);
	r = fmt__entry_remote(e);
	if (r)
		snprintf(l->remote, sizeof(l->remote), "%s port %u", r->ip, r->port);
	l->idx = (int)pg->nlogins++;
	HASH_ADD_STR(pg->logins, eid, l);
	return l->idx;
}

/* The page's process for @p of the model, made when first met at @ts. */
static struct pp *proc_of(struct page *pg, const struct mproc *p, __u64 ts, bool born)
{
	struct pp *q = find(pg, p->ctx.pid, p->ctx.start_ns), *old;
	struct by_pid *b;

	if (q)
		return q;
	/* Another process had the pid: it is gone, whether or not its end was seen. */
	old = current(pg, p->ctx.pid);
	if (old && !old->to)
		old->to = ts;
	if (!GROW(pg->all, pg->nall, pg->cap_all, pg->err))
		return NULL;
	q = calloc(1, sizeof(*q));
	if (!q) {
		pg->err = -ENOMEM;
		return NULL;
	}
	q->key.pid = p->ctx.pid;
	q->key.start_ns = p->ctx.start_ns;
	q->from = ts;
	q->born = born;
	q->login = -1;
	q->kthread = p->ctx.flags & PGT_F_KTHREAD;
	q->idx = pg->nall;
	pg->all[pg->nall++] = q;
	HASH_ADD(hh, pg->procs, key, sizeof(q->key), q);
	HASH_FIND(hh, pg->pids, &q->key.pid, sizeof(q->key.pid), b);
	if (!b) {
		b = calloc(1, sizeof(*b));
		if (!b) {
			pg->err = -ENOMEM;
			return q;
		}
		b->pid = q->key.pid;
		HASH_ADD(hh, pg->pids, pid, sizeof(b->pid), b);
	}
	b->cur = q;
	return q;
}

static struct series *series_of(struct page *pg, struct series **table, __u32 key)
{
	struct series *s;

	HASH_FIND(hh, *table, &key, sizeof(key), s);
	if (s)
		return s;
	s = calloc(1, sizeof(*s));
	if (!s) {
		pg->err = -ENOMEM;
		return NULL;
	}
	s->key = key;
	HASH_ADD(hh, *table, key, sizeof(s->key), s);
	return s;
}

/* @name (a tty's, NUL-terminated or PGT_TTY_LEN bytes) into @dst. */
static void tty_name(char dst[PGT_TTY_LEN], const char *name)
{
	size_t n = strnlen(name, PGT_TTY_LEN);

	memset(dst, 0, PGT_TTY_LEN);
	memcpy(dst, name, n);
}

/* A value of a series from @ts on, when it is not the one it had. */
static void series_put(struct page *pg, struct series **table, __u32 key, __u64 ts, __u32 v,
		       const char *name)
{
	struct series *s = series_of(pg, table, key);
	struct tstate *last;

	if (!s)
		return;
	last = s->n ? &s->v[s->n - 1] : NULL;
	if (last && last->v == v && !strncmp(last->name, name, sizeof(last->name)))
		return;
	if (last && last->t == ts) {
		last->v = v;
		tty_name(last->name, name);
		return;
	}
	if (!GROW(s->v, s->n, s->cap, pg->err))
		return;
	s->v[s->n].t = ts;
	s->v[s->n].v = v;
	tty_name(s->v[s->n].name, name);
	s->n++;
}

/* What the model says of @pid now, after a record at @ts. */
static void look(struct page *pg, const struct model *m, __u32 pid, __u64 ts, bool born)
{
	const struct mproc *p = pid ? model__find(m, pid) : NULL;
	const struct msession *s;
	const struct mtty *t;
	struct state *last;
	struct pp *q;

	if (!p)
		return;
	q = proc_of(pg, p, ts, born);
	if (!q)
		return;
	memcpy(q->comm, p->ctx.comm, sizeof(q->comm));
	if (model__image(p) != q->image) {
		image__put(q->image);
		q->image = image__get(model__image(p));
	}
	q->login = login_of(pg, p->entry);
	if (p->zombie && !q->to)
		q->to = ts;
	last = q->nst ? &q->st[q->nst - 1] : NULL;
	if (!last || last->ppid != p->ctx.ppid || last->pgid != p->ctx.pgid ||
	    last->sid != p->ctx.sid) {
		if (last && last->t == ts) {
			last->ppid = p->ctx.ppid;
			last->pgid = p->ctx.pgid;
			last->sid = p->ctx.sid;
		} else if (GROW(q->st, q->nst, q->cap, pg->err)) {
			q->st[q->nst++] =
				(struct state){ ts, p->ctx.ppid, p->ctx.pgid, p->ctx.sid };
		}
	}
	s = model__session(m, p->ctx.sid);
	if (!s)
		return;
	series_put(pg, &pg->sessions, s->sid, ts, s->tty_nr, s->tty_nr ? s->tty : "");
	t = s->tty_nr ? model__tty(m, s->tty_nr) : NULL;
	if (t)
		series_put(pg, &pg->ttys, t->tty_nr, ts, t->fg_pgid, "");
}

void page__span(struct page *pg)
{
	pg->span = true;
}

void page__stop(struct page *pg, __u64 now_ns)
{
	pg->on = false;
	pg->end_ns = now_ns;
}

void page__begin(struct page *pg, const struct model *m, __u64 now_ns)
{
	const struct mproc *p;

	pg->first_ns = now_ns;
	pg->on = true;
	/* What was alive then: a zombie had ended before. */
	model__for_each_proc(m, p)
		if (!(p->ctx.flags & PGT_F_KTHREAD) && !p->zombie)
			look(pg, m, p->ctx.pid, now_ns, false);
}

void page__observe(void *ctx, const struct model *m, const struct pgt_event *ev)
{
	struct page *pg = ctx;
	__u64 ts = ev->hdr->ts_ns;

	if (pg->span && !pg->on)
		return;
	if (!pg->first_ns)
		pg->first_ns = ts;
	if (ts > pg->last_ns)
		pg->last_ns = ts;
	switch (ev->hdr->type) {
	case PGT_FORK:
		look(pg, m, ev->fork->proc.pid, ts, false);
		look(pg, m, ev->fork->child.pid, ts, true);
		return;
	case PGT_SETPGID:
		look(pg, m, ev->setpgid->proc.pid, ts, false);
		look(pg, m, ev->setpgid->target.pid, ts, false);
		return;
	case PGT_REPARENT:
		look(pg, m, ev->reparent->proc.pid, ts, false);
		look(pg, m, ev->reparent->child_pid, ts, false);
		return;
	case PGT_REAP:
		return;
	case PGT_TTY:
		/* Every member of the session lost it: its series says so. */
		look(pg, m, ev->tty->proc.pid, ts, false);
		if (ev->tty->sid != ev->tty->proc.sid) {
			const struct msession *s = model__session(m, ev->tty->sid);

			if (s)
				series_put(pg, &pg->sessions, s->sid, ts, s->tty_nr,
					   s->tty_nr ? s->tty : "");
		}
		return;
	default:
		/* Every other record has its process's context first. */
		look(pg, m, ((const struct pgt_snap *)ev->raw)->proc.pid, ts, false);
	}
}

/* ---- the sink: marks, and the exits' words ---- */

static char *line_of(struct page *pg, const struct sink_msg *msg)
{
	char *s;

	sink__line(&pg->line, msg, text__record, true);
	s = strdup(pg->line.buf ?: "");
	if (!s)
		pg->err = -ENOMEM;
	return s;
}

static struct mark *add_mark(struct page *pg, const struct sink_msg *msg, const char *kind,
			     const char *esc, struct pp *p)
{
	struct mark *mk;

	if (!GROW(pg->marks, pg->nmarks, pg->cap_marks, pg->err))
		return NULL;
	mk = &pg->marks[pg->nmarks];
	memset(mk, 0, sizeof(*mk));
	mk->t = msg->rec->ts_ns;
	mk->kind = kind;
	mk->esc = esc;
	mk->p = p;
	mk->text = line_of(pg, msg);
	if (!mk->text)
		return NULL;
	pg->nmarks++;
	return mk;
}

/* A signal's recipients: the page's processes with their pids at the signal. */
static void add_rcpt(struct page *pg, struct mark *mk, const struct sig_cause *c)
{
	unsigned int i;
	struct pp *q;

	mk->rcpt = calloc(c->nr ? c->nr : 1, sizeof(*mk->rcpt));
	if (!mk->rcpt) {
		pg->err = -ENOMEM;
		return;
	}
	/*
	 * Not by their ends: a signal record's time can be its syscall's exit,
	 * after a recipient it killed had exited.
	 */
	for (i = 0; i < c->nr; i++) {
		q = current(pg, c->rcpt[i].pid);
		if (q && q->from <= mk->t)
			mk->rcpt[mk->nrcpt++] = q;
	}
}

static int page_send(void *ctx, const struct sink_msg *msg)
{
	struct page *pg = ctx;
	const struct record *r = msg->rec;
	const struct pgt_event *ev = &r->ev;
	const struct pgt_proc *c;
	struct mark *mk;
	struct pp *p;

	if (pg->span &&
	    (!pg->first_ns || r->ts_ns < pg->first_ns || (pg->end_ns && r->ts_ns > pg->end_ns)))
		return 0;
	switch (r->kind) {
	case RECORD_ESCAPE:
		add_mark(pg, msg, "escape", escape__kind_name(r->esc.kind),
			 find(pg, r->esc.proc.pid, r->esc.proc.start_ns));
		break;
	case RECORD_SIGNAL:
		c = &r->sig.first.proc;
		mk = add_mark(pg, msg, "signal", NULL, find(pg, c->pid, c->start_ns));
		if (mk)
			add_rcpt(pg, mk, &r->sig);
		break;
	case RECORD_LOGOUT:
		add_mark(pg, msg, "logout", NULL, NULL);
		break;
	case RECORD_EVENT:
		switch (ev->hdr->type) {
		case PGT_EXIT:
			p = find(pg, ev->exit->proc.pid, ev->exit->proc.start_ns);
			if (p && !p->exit_text)
				p->exit_text = line_of(pg, msg);
			break;
		case PGT_SETSID:
		case PGT_TTY:
		case PGT_FOREGROUND:
			c = &ev->setsid->proc; /* each has its process's context first */
			add_mark(pg, msg, decode__event_name(ev), NULL,
				 find(pg, c->pid, c->start_ns));
			break;
		case PGT_SETPGID:
			c = &ev->setpgid->target;
			add_mark(pg, msg, "setpgid", NULL, find(pg, c->pid, c->start_ns));
			break;
		case PGT_REPARENT:
			add_mark(pg, msg, "reparent", NULL,
				 find(pg, ev->reparent->child_pid, ev->reparent->child_start_ns));
			break;
		}
		break;
	default:
		break;
	}
	return pg->err;
}

const struct sink_ops page_sink = {
	.name = "html",
	.send = page_send,
};

/* ---- the page ---- */

/* Microseconds from the page's start: what the script counts in. */
static void put_us(struct sbuf *b, const struct page *pg, __u64 ts)
{
	sbuf__put_u64(b, ts > pg->first_ns ? (ts - pg->first_ns) / 1000 : 0);
}

/* Untrusted bytes as the text output writes them (escapes visible), in a JSON string. */
static void put_name(struct page *pg, struct sbuf *b, const char *s, size_t max)
{
	struct sbuf t = {};

	sbuf__put_text(&t, s, max);
	sbuf__put_json_str(b, t.buf ?: "", t.len);
	if (t.oom)
		pg->err = -ENOMEM;
	sbuf__free(&t);
}

static void put_proc(struct page *pg, struct sbuf *b, const struct pp *p, const int *login_idx)
{
	struct span args[PGT_ARGS_SHOWN];
	char eid[17];
	size_t n = 0, i;
	bool more;

	decode__entity_id(p->key.pid, p->key.start_ns, eid);
	sbuf__puts(b, "{\"p\":");
	sbuf__put_u64(b, p->key.pid);
	sbuf__printf(b, ",\"e\":\"%s\",\"c\":", eid);
	put_name(pg, b, p->comm, sizeof(p->comm));
	sbuf__puts(b, ",\"x\":");
	if (p->image && p->image->exe)
		put_name(pg, b, p->image->exe, strlen(p->image->exe));
	else
		sbuf__puts(b, "null");
	sbuf__puts(b, ",\"a\":[");
	if (p->image && p->image->args)
		n = decode__split_args(p->image->args, p->image->args_len, args, PGT_ARGS_SHOWN,
				       &more);
	for (i = 0; i < n; i++) {
		if (i)
			sbuf__putc(b, ',');
		put_name(pg, b, args[i].s, args[i].len);
	}
	sbuf__puts(b, "],\"l\":");
	sbuf__put_s64(b, p->login >= 0 ? login_idx[p->login] : -1);
	sbuf__printf(b, ",\"b\":%s,\"f\":", p->born ? "true" : "false");
	put_us(b, pg, p->from);
	sbuf__puts(b, ",\"t\":");
	if (p->to)
		put_us(b, pg, p->to);
	else
		sbuf__puts(b, "null");
	sbuf__puts(b, ",\"s\":[");
	for (i = 0; i < p->nst; i++) {
		sbuf__puts(b, i ? ",[" : "[");
		put_us(b, pg, p->st[i].t);
		sbuf__printf(b, ",%u,%u,%u]", p->st[i].ppid, p->st[i].pgid, p->st[i].sid);
	}
	sbuf__puts(b, "],\"d\":");
	if (p->exit_text)
		sbuf__put_json_str(b, p->exit_text, strlen(p->exit_text));
	else
		sbuf__puts(b, "null");
	sbuf__putc(b, '}');
}

static void put_series(struct page *pg, struct sbuf *b, const char *name, struct series *table,
		       bool names)
{
	struct series *s;
	unsigned int i;
	bool first = true;

	sbuf__printf(b, ",\"%s\":{", name);
	for (s = table; s; s = s->hh.next) {
		sbuf__printf(b, "%s\"%u\":[", first ? "" : ",", s->key);
		first = false;
		for (i = 0; i < s->n; i++) {
			sbuf__puts(b, i ? ",[" : "[");
			put_us(b, pg, s->v[i].t);
			sbuf__printf(b, ",%u", s->v[i].v);
			if (names) {
				sbuf__putc(b, ',');
				put_name(pg, b, s->v[i].name, sizeof(s->v[i].name));
			}
			sbuf__putc(b, ']');
		}
		sbuf__putc(b, ']');
	}
	sbuf__putc(b, '}');
}

/* The login --login names: its index, or -1. */
static int chosen_login(const struct page *pg)
{
	const struct login *l;
	size_t n = strlen(pg->target);

	for (l = pg->logins; l; l = l->hh.next)
		if ((n == 16 && !strcmp(l->eid, pg->target)) ||
		    (n < 16 && l->pid == strtoul(pg->target, NULL, 10)))
			return l->idx;
	return -1;
}

/* The data, as one JSON object. */
static int put_data(struct page *pg, struct sbuf *b, const struct fmt_ctx *fc, __u64 end_ns)
{
	int chosen = pg->target[0] ? chosen_login(pg) : -1;
	int *login_idx = calloc(pg->nlogins + 1, sizeof(int));
	const struct login *l;
	unsigned int i, j, n = 0, k;
	char when[64];

	if (!login_idx)
		return -ENOMEM;
	if (pg->target[0] && chosen < 0) {
		free(login_idx);
		return -ESRCH;
	}
	fmt__rfc3339(fc, pg->first_ns, when, sizeof(when));
	sbuf__puts(b, "{\"v\":1,\"host\":");
	put_name(pg, b, fc->host ? fc->host->name : "", HOST_NAME_LEN);
	sbuf__printf(b, ",\"start\":\"%s\",\"start_real_ns\":\"%lld\",\"end\":", when,
		     (long long)(pg->first_ns + fc->boot_to_real_ns));
	put_us(b, pg, end_ns);
	sbuf__puts(b, ",\"logins\":[");
	/* Logins in the order they were met; with --login, that one only. */
	for (i = 0, k = 0; i < pg->nlogins; i++) {
		for (l = pg->logins; l && l->idx != (int)i; l = l->hh.next)
			;
		login_idx[i] = -1;
		if (!l || (chosen >= 0 && l->idx != chosen))
			continue;
		login_idx[i] = (int)k;
		sbuf__puts(b, k++ ? ",{\"e\":" : "{\"e\":");
		sbuf__printf(b, "\"%s\",\"p\":%u,\"c\":", l->eid, l->pid);
		put_name(pg, b, l->comm, sizeof(l->comm));
		sbuf__printf(b, ",\"type\":\"%s\",\"tty\":", l->type);
		put_name(pg, b, l->tty, sizeof(l->tty));
		sbuf__puts(b, ",\"r\":");
		put_name(pg, b, l->remote, sizeof(l->remote));
		sbuf__putc(b, '}');
	}
	sbuf__puts(b, "],\"procs\":[");
	for (i = 0; i < pg->nall; i++) {
		struct pp *p = pg->all[i];

		p->shown = !p->kthread && (chosen < 0 || p->login == chosen);
		if (!p->shown)
			continue;
		p->idx = n++;
		if (p->idx)
			sbuf__putc(b, ',');
		put_proc(pg, b, p, login_idx);
	}
	sbuf__putc(b, ']');
	put_series(pg, b, "sessions", pg->sessions, true);
	put_series(pg, b, "fg", pg->ttys, false);
	sbuf__puts(b, ",\"marks\":[");
	for (i = 0, k = 0; i < pg->nmarks; i++) {
		const struct mark *mk = &pg->marks[i];
		bool any = mk->p && mk->p->shown;

		for (j = 0; j < mk->nrcpt; j++)
			any |= mk->rcpt[j]->shown;
		if (!any)
			continue;
		sbuf__puts(b, k++ ? ",[" : "[");
		put_us(b, pg, mk->t);
		sbuf__printf(b, ",\"%s\",", mk->kind);
		sbuf__put_s64(b, mk->p && mk->p->shown ? (long long)mk->p->idx : -1);
		sbuf__putc(b, ',');
		sbuf__put_json_str(b, mk->text, strlen(mk->text));
		if (mk->esc)
			sbuf__printf(b, ",\"%s\",[", mk->esc);
		else
			sbuf__puts(b, ",null,[");
		for (j = 0, n = 0; j < mk->nrcpt; j++)
			if (mk->rcpt[j]->shown) {
				if (n++)
					sbuf__putc(b, ',');
				sbuf__put_u64(b, mk->rcpt[j]->idx);
			}
		sbuf__puts(b, "]]");
	}
	sbuf__puts(b, "]}");
	free(login_idx);
	return b->oom ? -ENOMEM : pg->err;
}

/*
 * The data inside the page's script element: '<', '>' and '&' only occur
 * in its strings, where "\u003c" is the same character, so no "</script>"
 * or "<!--" can end or change the element.
 */
static void put_safe(FILE *f, const char *s, size_t n)
{
	size_t i, run = 0;

	for (i = 0; i < n; i++) {
		const char *esc = s[i] == '<' ? "\\u003c" :
				  s[i] == '>' ? "\\u003e" :
				  s[i] == '&' ? "\\u0026" :
						NULL;

		if (!esc)
			continue;
		fwrite(s + run, 1, i - run, f);
		fputs(esc, f);
		run = i + 1;
	}
	fwrite(s + run, 1, n - run, f);
}

int page__write(struct page *pg, FILE *f, const struct host_id *host, __s64 boot_to_real_ns,
		__u64 end_ns)
{
	struct fmt_ctx fc = { .boot_to_real_ns = boot_to_real_ns, .host = host, .utc = true };
	const char *mark = strstr(page_html, PAGE_DATA_MARK);
	struct sbuf b = {};
	int err;

	if (!mark)
		return -EINVAL;
	if (!pg->first_ns)
		pg->first_ns = end_ns;
	err = put_data(pg, &b, &fc, end_ns ?: pg->end_ns ?: pg->last_ns);
	if (!err) {
		fwrite(page_html, 1, (size_t)(mark - page_html), f);
		put_safe(f, b.buf, b.len);
		fputs(mark + strlen(PAGE_DATA_MARK), f);
		if (fflush(f) || ferror(f))
			err = -(errno ?: EIO);
	}
	sbuf__free(&b);
	return err;
}
