// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>
#include "checkpoint.h"
#include "decode.h"

#define CK_MAGIC   "PGCK"
#define CK_VERSION 1
#define CK_NONE	   0xffffffffU /* a length or an index: absent */

/* Each table's entries, in this order; an index names an earlier entry. */
struct ck_head {
	char magic[4];
	__u32 version;
	__u32 nimages, nlines, ncgroups, nprocs, nsessions, nttys;
};

struct ck_image {
	__u32 exe_len; /* bytes after this entry, CK_NONE: unknown */
	__u32 args_len;
	__u32 args_cut;
	__u32 has_args;
};

struct ck_line {
	__u64 start_ns;
	__u32 pid;
	__u32 parent; /* a line's index, CK_NONE at the root */
	__u32 image;  /* an image's index, CK_NONE if unknown */
	__u32 tty_nr;
	char tty[PGT_TTY_LEN];
	char comm[PGT_COMM_LEN];
	__u32 has_remote;
	__u32 port;
	char ip[48];
};

struct ck_cgroup {
	__u64 id;
	__u32 v2_len;
	__u32 v1_len; /* CK_NONE: none */
};

struct ck_proc {
	struct pgt_proc ctx;
	__u64 updated_ns;
	__u32 start_tick_ns, exit_status, adopted_from, predicted_ppid;
	__u32 born_sid, born_pgid;
	__u32 lineage, entry, cg; /* indexes, CK_NONE if none */
	__u8 zombie, entry_inferred, uncertain, pad;
};

struct ck_session {
	__u64 leader_start_ns;
	__u32 sid, tty_nr, released_tty, pad;
	char tty[PGT_TTY_LEN];
};

struct ck_tty {
	__u32 tty_nr, sid, fg_pgid, pad;
	char name[PGT_TTY_LEN];
};

/* ---- writing ---- */

/* A value already written, by its address: its index in its table. */
struct ck_seen {
	const void *ptr;
	__u32 idx;
	UT_hash_handle hh;
};

struct ck_writer {
	struct sbuf images, lines, cgroups, procs, rest;
	struct ck_seen *seen; /* one table: images, lines and cgroups are apart by address */
	struct ck_head head;
	int err;
};

static __u32 seen_idx(struct ck_writer *w, const void *ptr)
{
	struct ck_seen *s;

	HASH_FIND_PTR(w->seen, &ptr, s);
	return s ? s->idx : CK_NONE;
}

static void remember(struct ck_writer *w, const void *ptr, __u32 idx)
{
	struct ck_seen *s = malloc(sizeof(*s));

	if (!s) {
		w->err = -ENOMEM;
		return;
	}
	s->ptr = ptr;
	s->idx = idx;
	HASH_ADD_PTR(w->seen, ptr, s);
}

static __u32 put_image(struct ck_writer *w, const struct image *im)
{
	struct ck_image e = {};
	__u32 idx;

	if (!im)
		return CK_NONE;
	idx = seen_idx(w, im);
	if (idx != CK_NONE)
		return idx;
	e.exe_len = im->exe ? (__u32)strlen(im->exe) : CK_NONE;
	e.args_len = im->args ? im->args_len : 0;
	e.has_args = !!im->args;
	e.args_cut = im->args_cut;
	sbuf__put(&w->images, &e, sizeof(e));
	if (im->exe)
		sbuf__put(&w->images, im->exe, e.exe_len);
	if (im->args)
		sbuf__put(&w->images, im->args, e.args_len);
	idx = w->head.nimages++;
	remember(w, im, idx);
	return idx;
}

static void put_one_line(struct ck_writer *w, const struct lineage *l)
{
	struct ck_line e = {
		.start_ns = l->start_ns,
		.pid = l->pid,
		.parent = l->parent ? seen_idx(w, l->parent) : CK_NONE,
		.image = put_image(w, l->image),
		.tty_nr = l->tty_nr,
	};

	memcpy(e.tty, l->tty, sizeof(e.tty));
	memcpy(e.comm, l->comm, sizeof(e.comm));
	if (l->remote) {
		e.has_remote = 1;
		e.port = l->remote->port;
		memcpy(e.ip, l->remote->ip, sizeof(l->remote->ip));
	}
	sbuf__put(&w->lines, &e, sizeof(e));
	remember(w, l, w->head.nlines++);
}

/* @l and the links above it not yet written, the oldest first. */
static __u32 put_line(struct ck_writer *w, const struct lineage *l)
{
	const struct lineage *top;
	__u32 idx;

	if (!l)
		return CK_NONE;
	while ((idx = seen_idx(w, l)) == CK_NONE && !w->err) {
		/* The highest link not written yet: its parent is, or it has none. */
		for (top = l; top->parent && seen_idx(w, top->parent) == CK_NONE;)
			top = top->parent;
		put_one_line(w, top);
	}
	return idx;
}

static __u32 put_cgroup(struct ck_writer *w, const struct pcgroup *cg)
{
	struct ck_cgroup e = {};
	__u32 idx;

	if (!cg)
		return CK_NONE;
	idx = seen_idx(w, cg);
	if (idx != CK_NONE)
		return idx;
	e.id = cg->id;
	e.v2_len = (__u32)strlen(cg->v2);
	e.v1_len = cg->v1 ? (__u32)strlen(cg->v1) : CK_NONE;
	sbuf__put(&w->cgroups, &e, sizeof(e));
	sbuf__put(&w->cgroups, cg->v2, e.v2_len);
	if (cg->v1)
		sbuf__put(&w->cgroups, cg->v1, e.v1_len);
	idx = w->head.ncgroups++;
	remember(w, cg, idx);
	return idx;
}

int checkpoint__dump(const struct model *m, struct sbuf *out)
{
	struct ck_writer w = { .head = { .magic = CK_MAGIC, .version = CK_VERSION } };
	const struct msession *s;
	struct ck_seen *e, *tmp;
	const struct mtty *t;
	const struct mproc *p;

	model__for_each_proc(m, p) {
		struct ck_proc c = {
			.ctx = p->ctx,
			.updated_ns = p->updated_ns,
			.start_tick_ns = p->start_tick_ns,
			.exit_status = p->exit_status,
			.adopted_from = p->adopted_from,
			.predicted_ppid = p->predicted_ppid,
			.born_sid = p->born_sid,
			.born_pgid = p->born_pgid,
			.lineage = put_line(&w, p->lineage),
			.entry = put_line(&w, p->entry),
			.cg = put_cgroup(&w, p->cg),
			.zombie = p->zombie,
			.entry_inferred = p->entry_inferred,
			.uncertain = p->uncertain,
		};

		sbuf__put(&w.procs, &c, sizeof(c));
		w.head.nprocs++;
	}
	for (s = model__next_session(m, NULL); s; s = model__next_session(m, s)) {
		struct ck_session c = {
			.leader_start_ns = s->leader_start_ns,
			.sid = s->sid,
			.tty_nr = s->tty_nr,
			.released_tty = s->released_tty,
		};

		memcpy(c.tty, s->tty, sizeof(c.tty));
		sbuf__put(&w.rest, &c, sizeof(c));
		w.head.nsessions++;
	}
	for (t = model__next_tty(m, NULL); t; t = model__next_tty(m, t)) {
		struct ck_tty c = { .tty_nr = t->tty_nr, .sid = t->sid, .fg_pgid = t->fg_pgid };

		memcpy(c.name, t->name, sizeof(c.name));
		sbuf__put(&w.rest, &c, sizeof(c));
		w.head.nttys++;
	}
	sbuf__put(out, &w.head, sizeof(w.head));
	sbuf__put(out, w.images.buf, w.images.len);
	sbuf__put(out, w.lines.buf, w.lines.len);
	sbuf__put(out, w.cgroups.buf, w.cgroups.len);
	sbuf__put(out, w.procs.buf, w.procs.len);
	sbuf__put(out, w.rest.buf, w.rest.len);
	if (w.images.oom || w.lines.oom || w.cgroups.oom || w.procs.oom || w.rest.oom || out->oom)
		w.err = -ENOMEM;
	HASH_ITER(hh, w.seen, e, tmp) {
		HASH_DEL(w.seen, e);
		free(e);
	}
	sbuf__free(&w.images);
	sbuf__free(&w.lines);
	sbuf__free(&w.cgroups);
	sbuf__free(&w.procs);
	sbuf__free(&w.rest);
	return w.err;
}

/* ---- reading ---- */

struct ck_reader {
	const char *p, *end;
	struct image **images;
	struct lineage **lines;
	struct pcgroup **cgroups;
	struct ck_head head;
};

/* The next @n bytes, or NULL past the end. */
static const void *take(struct ck_reader *r, size_t n)
{
	const char *at = r->p;

	if ((size_t)(r->end - r->p) < n)
		return NULL;
	r->p += n;
	return at;
}

static int get_images(struct ck_reader *r)
{
	struct ck_image e;
	const char *exe, *args;
	char *path;
	__u32 i;

	for (i = 0; i < r->head.nimages; i++) {
		const void *raw = take(r, sizeof(e));

		if (!raw)
			return -EINVAL;
		memcpy(&e, raw, sizeof(e));
		exe = e.exe_len == CK_NONE ? NULL : take(r, e.exe_len);
		args = e.has_args ? take(r, e.args_len) : NULL;
		if ((e.exe_len != CK_NONE && !exe) || (e.has_args && !args) ||
		    e.args_len > PGT_ARGS_MAX ||
		    (e.exe_len != CK_NONE && e.exe_len >= DECODE_PATH_SIZE))
			return -EINVAL;
		path = exe ? strndup(exe, e.exe_len) : NULL;
		if (exe && !path)
			return -ENOMEM;
		r->images[i] = image__new(path, args, e.args_len, e.args_cut);
		free(path);
		if (!r->images[i])
			return -ENOMEM;
	}
	return 0;
}

static int get_lines(struct ck_reader *r)
{
	struct ck_line e;
	struct lineage *l;
	__u32 i;

	for (i = 0; i < r->head.nlines; i++) {
		const void *raw = take(r, sizeof(e));

		if (!raw)
			return -EINVAL;
		memcpy(&e, raw, sizeof(e));
		if ((e.parent != CK_NONE && e.parent >= i) ||
		    (e.image != CK_NONE && e.image >= r->head.nimages))
			return -EINVAL;
		l = lineage__new(e.pid, e.start_ns, e.comm,
				 e.parent == CK_NONE ? NULL : r->lines[e.parent]);
		if (!l)
			return -ENOMEM;
		r->lines[i] = l;
		l->tty_nr = e.tty_nr;
		memcpy(l->tty, e.tty, sizeof(l->tty));
		l->image = e.image == CK_NONE ? NULL : image__get(r->images[e.image]);
		if (e.has_remote) {
			l->remote = calloc(1, sizeof(*l->remote));
			if (!l->remote)
				return -ENOMEM;
			memcpy(l->remote->ip, e.ip, sizeof(l->remote->ip));
			l->remote->ip[sizeof(l->remote->ip) - 1] = '\0';
			l->remote->port = (__u16)e.port;
		}
	}
	return 0;
}

static int get_cgroups(struct ck_reader *r)
{
	const char *v2, *v1;
	struct ck_cgroup e;
	__u32 i;

	for (i = 0; i < r->head.ncgroups; i++) {
		const void *raw = take(r, sizeof(e));

		if (!raw)
			return -EINVAL;
		memcpy(&e, raw, sizeof(e));
		v2 = take(r, e.v2_len);
		v1 = e.v1_len == CK_NONE ? NULL : take(r, e.v1_len);
		if (!v2 || (e.v1_len != CK_NONE && !v1))
			return -EINVAL;
		r->cgroups[i] = pcgroup__new(v2, e.v2_len, e.id, v1, v1 ? e.v1_len : 0);
		if (!r->cgroups[i])
			return -ENOMEM;
	}
	return 0;
}

/* A line's reference by index, CK_NONE for none; false for a bad index. */
static bool line_ref(const struct ck_reader *r, __u32 idx, struct lineage **out)
{
	*out = NULL;
	if (idx == CK_NONE)
		return true;
	if (idx >= r->head.nlines)
		return false;
	*out = lineage__get(r->lines[idx]);
	return true;
}

static int get_procs(struct ck_reader *r, struct model *m)
{
	struct mproc p;
	struct ck_proc e;
	__u32 i;

	for (i = 0; i < r->head.nprocs; i++) {
		const void *raw = take(r, sizeof(e));

		if (!raw ||
		    (memcpy(&e, raw, sizeof(e)), e.cg != CK_NONE && e.cg >= r->head.ncgroups))
			return -EINVAL;
		memset(&p, 0, sizeof(p));
		p.ctx = e.ctx;
		p.updated_ns = e.updated_ns;
		p.start_tick_ns = e.start_tick_ns;
		p.exit_status = e.exit_status;
		p.adopted_from = e.adopted_from;
		p.predicted_ppid = e.predicted_ppid;
		p.born_sid = e.born_sid;
		p.born_pgid = e.born_pgid;
		p.zombie = e.zombie;
		p.entry_inferred = e.entry_inferred;
		p.uncertain = e.uncertain;
		if (!line_ref(r, e.lineage, &p.lineage) || !line_ref(r, e.entry, &p.entry)) {
			lineage__put(p.lineage);
			return -EINVAL;
		}
		p.cg = e.cg == CK_NONE ? NULL : pcgroup__get(r->cgroups[e.cg]);
		model__restore(m, &p); /* a pid twice is a bad checkpoint's: the first stays */
	}
	return 0;
}

static int get_rest(struct ck_reader *r, struct model *m)
{
	struct msession s;
	struct ck_session cs;
	struct mtty t;
	struct ck_tty ct;
	__u32 i;

	for (i = 0; i < r->head.nsessions; i++) {
		const void *raw = take(r, sizeof(cs));

		if (!raw)
			return -EINVAL;
		memcpy(&cs, raw, sizeof(cs));
		memset(&s, 0, sizeof(s));
		s.sid = cs.sid;
		s.tty_nr = cs.tty_nr;
		s.released_tty = cs.released_tty;
		s.leader_start_ns = cs.leader_start_ns;
		memcpy(s.tty, cs.tty, sizeof(s.tty));
		model__restore_session(m, &s);
	}
	for (i = 0; i < r->head.nttys; i++) {
		const void *raw = take(r, sizeof(ct));

		if (!raw)
			return -EINVAL;
		memcpy(&ct, raw, sizeof(ct));
		memset(&t, 0, sizeof(t));
		t.tty_nr = ct.tty_nr;
		t.sid = ct.sid;
		t.fg_pgid = ct.fg_pgid;
		memcpy(t.name, ct.name, sizeof(t.name));
		model__restore_tty(m, &t);
	}
	return r->p == r->end ? 0 : -EINVAL;
}

int checkpoint__load(struct model *m, const void *data, size_t len)
{
	struct ck_reader r = { .p = data, .end = (const char *)data + len };
	const void *raw = take(&r, sizeof(r.head));
	__u32 i;
	int err;

	if (!raw)
		return -EINVAL;
	memcpy(&r.head, raw, sizeof(r.head));
	if (memcmp(r.head.magic, CK_MAGIC, sizeof(r.head.magic)) || r.head.version != CK_VERSION)
		return -EINVAL;
	/* Every entry takes bytes: counts beyond them are damage, not a reason to allocate. */
	if (r.head.nimages > len / sizeof(struct ck_image) ||
	    r.head.nlines > len / sizeof(struct ck_line) ||
	    r.head.ncgroups > len / sizeof(struct ck_cgroup))
		return -EINVAL;
	r.images = calloc(r.head.nimages + 1, sizeof(*r.images));
	r.lines = calloc(r.head.nlines + 1, sizeof(*r.lines));
	r.cgroups = calloc(r.head.ncgroups + 1, sizeof(*r.cgroups));
	err = !r.images || !r.lines || !r.cgroups ? -ENOMEM : 0;
	err = err ?: get_images(&r);
	err = err ?: get_lines(&r);
	err = err ?: get_cgroups(&r);
	err = err ?: get_procs(&r, m);
	err = err ?: get_rest(&r, m);
	/* The processes hold what they use; the tables' own references go. */
	for (i = 0; r.lines && i < r.head.nlines; i++)
		lineage__put(r.lines[i]);
	for (i = 0; r.images && i < r.head.nimages; i++)
		image__put(r.images[i]);
	for (i = 0; r.cgroups && i < r.head.ncgroups; i++)
		pcgroup__put(r.cgroups[i]);
	free(r.images);
	free(r.lines);
	free(r.cgroups);
	return err;
}
