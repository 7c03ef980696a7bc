// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "death.h"
#include "diff.h"
#include "format.h"
#include "jsonw.h"
#include "sbuf.h"

/* A process as the model had it at a moment. */
struct dproc {
	struct pgt_proc ctx;
	bool zombie;
};

struct dstate {
	struct dproc *p;
	unsigned int n;
	__u64 ns;
};

struct dexit {
	struct pgt_proc proc;
	__u32 status;
	enum death_mech mech;
	__u32 sender_pid;
};

struct diff {
	struct dstate at[2];
	struct pgt_proc *births; /* forks between the two: their children */
	unsigned int nbirths, cbirths;
	struct dexit *exits;
	unsigned int nexits, cexits;
};

struct diff *diff__new(void)
{
	return calloc(1, sizeof(struct diff));
}

void diff__free(struct diff *d)
{
	if (!d)
		return;
	free(d->at[0].p);
	free(d->at[1].p);
	free(d->births);
	free(d->exits);
	free(d);
}

int diff__take(struct diff *d, const struct model *m, unsigned int i, __u64 ns)
{
	struct dstate *st = &d->at[i];
	const struct mproc *p;
	unsigned int n = 0;

	model__for_each_proc(m, p)
		n++;
	st->p = calloc(n + 1, sizeof(*st->p));
	if (!st->p)
		return -ENOMEM;
	st->ns = ns;
	model__for_each_proc(m, p)
		if (!(p->ctx.flags & PGT_F_KTHREAD))
			st->p[st->n++] = (struct dproc){ p->ctx, p->zombie };
	return 0;
}

static void *grow(void *a, unsigned int n, unsigned int *cap, size_t size)
{
	void *b;

	if (n < *cap)
		return a;
	b = realloc(a, (*cap ? *cap * 2 : 64) * size);
	if (b)
		*cap = *cap ? *cap * 2 : 64;
	return b;
}

void diff__peek(struct diff *d, const void *data, __u32 len)
{
	struct pgt_event ev;
	void *b;

	if (decode__record(data, len, &ev))
		return;
	/* A new thread is no birth. */
	if (ev.hdr->type == PGT_FORK && ev.fork->child.pid != ev.fork->proc.pid) {
		b = grow(d->births, d->nbirths, &d->cbirths, sizeof(*d->births));
		if (!b)
			return;
		d->births = b;
		d->births[d->nbirths++] = ev.fork->child;
	} else if (ev.hdr->type == PGT_EXIT) {
		b = grow(d->exits, d->nexits, &d->cexits, sizeof(*d->exits));
		if (!b)
			return;
		d->exits = b;
		d->exits[d->nexits].proc = ev.exit->proc;
		d->exits[d->nexits].status = ev.exit->status;
		d->exits[d->nexits].mech = death__kernel_mech(ev.exit);
		d->exits[d->nexits].sender_pid =
			death__sent(d->exits[d->nexits].mech) ? ev.exit->death.sender_pid : 0;
		d->nexits++;
	}
}

static const struct dproc *find(const struct dstate *st, __u32 pid, __u64 start)
{
	unsigned int i;

	for (i = 0; i < st->n; i++)
		if (st->p[i].ctx.pid == pid && st->p[i].ctx.start_ns == start)
			return &st->p[i];
	return NULL;
}

/* One change: "born", "died", "session", "group", "parent", "tty". */
struct change {
	const char *what;
	const struct pgt_proc *p;
	__u32 from, to;	       /* a move's */
	const struct dexit *x; /* died: its exit, NULL if not recorded */
	const char *tty_from, *tty_to;
};

struct writer {
	struct sbuf *sb;
	struct jsonw w;
	bool json;
	unsigned int n;
};

static void put_change(struct writer *wr, const struct change *c)
{
	const struct pgt_proc *p = c->p;
	char eid[17], sig[16];
	size_t cols;

	wr->n++;
	if (wr->json) {
		struct jsonw *w = &wr->w;

		jsonw_start_object(w);
		jsonw_plain_field(w, "change", c->what);
		jsonw_uint_field(w, "pid", p->pid);
		decode__entity_id(p->pid, p->start_ns, eid);
		jsonw_plain_field(w, "entity_id", eid);
		jsonw_untrusted(w, "comm", p->comm, sizeof(p->comm));
		if (!strcmp(c->what, "born")) {
			jsonw_uint_field(w, "ppid", p->ppid);
			jsonw_uint_field(w, "pgid", p->pgid);
			jsonw_uint_field(w, "sid", p->sid);
		} else if (!strcmp(c->what, "died")) {
			if (c->x) {
				json__status(w, c->x->status);
				jsonw_plain_field(w, "mechanism", death__mech_name(c->x->mech));
			} else {
				jsonw_null_field(w, "code");
				jsonw_null_field(w, "signal");
				jsonw_null_field(w, "mechanism");
			}
		} else if (!strcmp(c->what, "tty")) {
			jsonw_untrusted(w, "from", c->tty_from, PGT_TTY_LEN);
			jsonw_untrusted(w, "to", c->tty_to, PGT_TTY_LEN);
		} else {
			jsonw_uint_field(w, "from", c->from);
			jsonw_uint_field(w, "to", c->to);
		}
		jsonw_end_object(w);
		return;
	}
	sbuf__printf(wr->sb, "  %-8s %-7u ", c->what, p->pid);
	cols = sbuf__put_text(wr->sb, p->comm, sizeof(p->comm));
	if (cols < 16)
		sbuf__printf(wr->sb, "%*s", (int)(16 - cols), "");
	if (!strcmp(c->what, "born")) {
		sbuf__printf(wr->sb, " parent %u, group %u, session %u", p->ppid, p->pgid, p->sid);
	} else if (!strcmp(c->what, "died")) {
		struct exit_info xi;

		if (!c->x) {
			sbuf__puts(wr->sb, " (its exit was not recorded)");
		} else {
			decode__exit_status(c->x->status, &xi);
			if (xi.exited)
				sbuf__printf(wr->sb, " exit %d", xi.code);
			else
				sbuf__printf(wr->sb, " %s, %s",
					     decode__signame(xi.signal, sig, sizeof(sig)),
					     death__mech_name(c->x->mech));
			if (c->x->sender_pid)
				sbuf__printf(wr->sb, " from %u", c->x->sender_pid);
		}
	} else if (!strcmp(c->what, "tty")) {
		sbuf__puts(wr->sb, " ");
		sbuf__put_text(wr->sb, c->tty_from[0] ? c->tty_from : "-", PGT_TTY_LEN);
		sbuf__puts(wr->sb, " -> ");
		sbuf__put_text(wr->sb, c->tty_to[0] ? c->tty_to : "-", PGT_TTY_LEN);
	} else {
		sbuf__printf(wr->sb, " %u -> %u", c->from, c->to);
	}
	sbuf__putc(wr->sb, '\n');
}

static const struct dexit *exit_of(const struct diff *d, __u32 pid, __u64 start)
{
	unsigned int i;

	for (i = 0; i < d->nexits; i++)
		if (d->exits[i].proc.pid == pid && d->exits[i].proc.start_ns == start)
			return &d->exits[i];
	return NULL;
}

/* Every change, in a fixed order: births, deaths, then moves. */
static void changes(const struct diff *d, struct writer *wr)
{
	const struct dstate *a = &d->at[0], *b = &d->at[1];
	unsigned int i;

	/* Born: forked between the two (alive or not at T2), or new at T2 unseen. */
	for (i = 0; i < d->nbirths; i++) {
		const struct pgt_proc *p = &d->births[i];
		const struct dproc *q = find(b, p->pid, p->start_ns);

		/* As it is at T2 if it lives then (exec'd, moved), else as it was born. */
		put_change(wr, &(struct change){ .what = "born", .p = q ? &q->ctx : p });
	}
	for (i = 0; i < b->n; i++) {
		const struct pgt_proc *p = &b->p[i].ctx;
		unsigned int k;

		if (find(a, p->pid, p->start_ns))
			continue;
		for (k = 0; k < d->nbirths; k++)
			if (d->births[k].pid == p->pid && d->births[k].start_ns == p->start_ns)
				break;
		if (k == d->nbirths)
			put_change(wr, &(struct change){ .what = "born", .p = p });
	}
	/* Died: an exit between the two, or alive at T1 and gone (or a zombie) at T2. */
	for (i = 0; i < d->nexits; i++)
		put_change(wr, &(struct change){
				       .what = "died", .p = &d->exits[i].proc, .x = &d->exits[i] });
	for (i = 0; i < a->n; i++) {
		const struct pgt_proc *p = &a->p[i].ctx;
		const struct dproc *q = find(b, p->pid, p->start_ns);

		if (a->p[i].zombie || (q && !q->zombie) || exit_of(d, p->pid, p->start_ns))
			continue;
		put_change(wr, &(struct change){ .what = "died", .p = p });
	}
	/* Moved: alive at both, in another session, group, parent or tty. */
	for (i = 0; i < a->n; i++) {
		const struct pgt_proc *p = &a->p[i].ctx;
		const struct dproc *q = find(b, p->pid, p->start_ns);

		if (!q || q->zombie || a->p[i].zombie)
			continue;
		if (q->ctx.sid != p->sid)
			put_change(wr, &(struct change){ .what = "session",
							 .p = &q->ctx,
							 .from = p->sid,
							 .to = q->ctx.sid });
		else if (q->ctx.pgid != p->pgid)
			put_change(wr, &(struct change){ .what = "group",
							 .p = &q->ctx,
							 .from = p->pgid,
							 .to = q->ctx.pgid });
		if (q->ctx.ppid != p->ppid)
			put_change(wr, &(struct change){ .what = "parent",
							 .p = &q->ctx,
							 .from = p->ppid,
							 .to = q->ctx.ppid });
		if (q->ctx.tty_nr != p->tty_nr)
			put_change(wr, &(struct change){ .what = "tty",
							 .p = &q->ctx,
							 .tty_from = p->tty,
							 .tty_to = q->ctx.tty });
	}
}

int diff__write(const struct diff *d, FILE *f, bool json, bool utc, __s64 boot_to_real_ns)
{
	struct fmt_ctx fc = { .boot_to_real_ns = boot_to_real_ns, .utc = utc };
	struct sbuf sb = {}, body = {};
	struct writer wr = { .sb = &body, .json = json };
	char from[64], to[64];
	int err;

	fmt__rfc3339(&fc, d->at[0].ns, from, sizeof(from));
	fmt__rfc3339(&fc, d->at[1].ns, to, sizeof(to));
	if (json) {
		jsonw_init(&wr.w, &sb);
		jsonw_start_object(&wr.w);
		jsonw_uint_field(&wr.w, "schema", PGT_SCHEMA_VERSION);
		jsonw_name(&wr.w, "diff");
		jsonw_start_object(&wr.w);
		jsonw_plain_field(&wr.w, "from", from);
		jsonw_plain_field(&wr.w, "to", to);
		jsonw_name(&wr.w, "changes");
		jsonw_start_array(&wr.w);
		changes(d, &wr);
		jsonw_end_array(&wr.w);
		jsonw_end_object(&wr.w);
		jsonw_end_object(&wr.w);
		jsonw_fini(&wr.w);
		sbuf__putc(&sb, '\n');
	} else {
		changes(d, &wr);
		sbuf__printf(&sb, "from %s to %s (%.3f s): %u changes\n", from, to,
			     (double)(d->at[1].ns - d->at[0].ns) / 1e9, wr.n);
		sbuf__put(&sb, body.buf ?: "", body.len);
	}
	err = fmt__write_file(&sb, f);
	sbuf__free(&sb);
	sbuf__free(&body);
	return err;
}
