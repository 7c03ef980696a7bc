// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdlib.h>
#include <string.h>
#include "sigmerge.h"

void sigmerge__init(struct sigmerge *sm, sig_cause_fn fn, void *ctx)
{
	memset(sm, 0, sizeof(*sm));
	sm->fn = fn;
	sm->ctx = ctx;
}

static void cause_free(struct sig_cause *c)
{
	image__put(c->image);
	lineage__put(c->line);
	lineage__put(c->entry);
	pcgroup__put(c->cg);
	free(c->rcpt);
	free(c);
}

static void emit(struct sigmerge *sm, struct sig_cause **link)
{
	struct sig_cause *c = *link;

	*link = c->next;
	if (sm->tail == &c->next)
		sm->tail = link;
	HASH_DEL(sm->by_id, c);
	sm->fn(sm->ctx, c);
	cause_free(c);
}

static void copy_rcpts(struct sig_rcpt *to, const struct pgt_signal *rec, unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < nr; i++) {
		to[i].pid = rec->rcpt[i].pid;
		to[i].tid = rec->rcpt[i].tid;
		to[i].result = rec->rcpt[i].result;
		to[i].pgid = rec->rcpt[i].pgid;
	}
}

void sigmerge__add(struct sigmerge *sm, const struct pgt_signal *rec, const struct mproc *sender)
{
	struct image *image = sender ? model__image(sender) : NULL;
	struct lineage *entry = sender ? sender->entry : NULL;
	unsigned int nr = rec->nr < PGT_SIG_RCPTS ? rec->nr : PGT_SIG_RCPTS;
	struct sig_cause **link, *c;
	struct sig_rcpt *grown;

	HASH_FIND(hh, sm->by_id, &rec->group_id, sizeof(rec->group_id), c);
	if (!c && (rec->flags & PGT_SIG_FINAL)) {
		/* The common case, a whole cause in one record: no allocation. */
		struct sig_rcpt rcpt[PGT_SIG_RCPTS];
		struct sig_cause one = {
			.first = *rec,
			.rcpt = rcpt,
			.nr = nr,
			.cap = PGT_SIG_RCPTS,
			.flags = rec->flags,
			.ret = rec->ret,
			.last_ts = rec->hdr.ts_ns,
			.image = image,
			.line = sender ? sender->lineage : NULL,
			.entry = entry, /* borrowed for the call */
			.known = sender != NULL,
			.entry_inferred = sender && sender->entry_inferred,
			.cg = sender ? sender->cg : NULL,
		};

		copy_rcpts(rcpt, rec, nr);
		sm->fn(sm->ctx, &one);
		return;
	}
	if (!c) {
		c = calloc(1, sizeof(*c));
		if (!c)
			return;
		c->first = *rec;
		c->image = image ? image__get(image) : NULL;
		c->line = sender ? lineage__get(sender->lineage) : NULL;
		c->entry = entry ? lineage__get(entry) : NULL;
		c->known = sender != NULL;
		c->entry_inferred = sender && sender->entry_inferred;
		c->cg = sender ? pcgroup__get(sender->cg) : NULL;
		if (!sm->tail)
			sm->tail = &sm->pending;
		*sm->tail = c;
		sm->tail = &c->next;
		HASH_ADD(hh, sm->by_id, first.group_id, sizeof(c->first.group_id), c);
	}
	if (c->nr + nr > c->cap) {
		unsigned int cap = c->cap ? c->cap * 2 : PGT_SIG_RCPTS;

		while (cap < c->nr + nr)
			cap *= 2;
		grown = realloc(c->rcpt, cap * sizeof(*grown));
		if (!grown)
			return;
		c->rcpt = grown;
		c->cap = cap;
	}
	if (nr) { /* a record without recipients leaves rcpt NULL */
		copy_rcpts(c->rcpt + c->nr, rec, nr);
		c->nr += nr;
	}
	c->flags |= rec->flags;
	c->last_ts = rec->hdr.ts_ns;
	if (rec->flags & PGT_SIG_FINAL) {
		c->ret = rec->ret;
		for (link = &sm->pending; *link != c; link = &(*link)->next)
			;
		emit(sm, link);
	}
}

static bool complete(const struct sig_cause *c, __u64 now_ns)
{
	__u64 wait = c->first.expect ? SIGMERGE_COUNTED_NS : SIGMERGE_QUIET_NS;

	return !now_ns || c->last_ts + wait < now_ns;
}

void sigmerge__flush(struct sigmerge *sm, __u64 now_ns)
{
	struct sig_cause **link = &sm->pending;

	while (*link) {
		if (complete(*link, now_ns))
			emit(sm, link);
		else
			link = &(*link)->next;
	}
}

__u64 sigmerge__oldest_seq(const struct sigmerge *sm)
{
	const struct sig_cause *c;
	__u64 oldest = (__u64)-1;

	for (c = sm->pending; c; c = c->next)
		if (c->first.hdr.seq < oldest)
			oldest = c->first.hdr.seq;
	return oldest;
}

void sigmerge__free(struct sigmerge *sm)
{
	struct sig_cause *c, *next;

	HASH_CLEAR(hh, sm->by_id);
	for (c = sm->pending; c; c = next) {
		next = c->next;
		cause_free(c);
	}
	sm->pending = NULL;
	sm->tail = NULL;
}
