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
	free(c->rcpt);
	free(c);
}

static void emit(struct sigmerge *sm, struct sig_cause **link)
{
	struct sig_cause *c = *link;

	*link = c->next;
	sm->fn(sm->ctx, c);
	cause_free(c);
}

void sigmerge__add(struct sigmerge *sm, const struct pgt_signal *rec)
{
	struct sig_cause **link, *c;
	unsigned int i, nr = rec->nr < PGT_SIG_RCPTS ? rec->nr : PGT_SIG_RCPTS;
	struct sig_rcpt *grown;

	for (link = &sm->pending; *link; link = &(*link)->next)
		if ((*link)->first.group_id == rec->group_id)
			break;
	c = *link;
	if (!c) {
		c = calloc(1, sizeof(*c));
		if (!c)
			return;
		c->first = *rec;
		*link = c;
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
	for (i = 0; i < nr; i++) {
		c->rcpt[c->nr].pid = rec->rcpt[i].pid;
		c->rcpt[c->nr].tid = rec->rcpt[i].tid;
		c->rcpt[c->nr].result = rec->rcpt[i].result;
		c->rcpt[c->nr++].pgid = rec->rcpt[i].pgid;
	}
	c->flags |= rec->flags;
	c->last_ts = rec->hdr.ts_ns;
	if (rec->flags & PGT_SIG_FINAL) {
		c->ret = rec->ret;
		emit(sm, link);
	}
}

void sigmerge__flush(struct sigmerge *sm, __u64 before_ns)
{
	struct sig_cause **link = &sm->pending;

	while (*link) {
		if (!before_ns || (*link)->last_ts < before_ns)
			emit(sm, link);
		else
			link = &(*link)->next;
	}
}

void sigmerge__free(struct sigmerge *sm)
{
	struct sig_cause *c, *next;

	for (c = sm->pending; c; c = next) {
		next = c->next;
		cause_free(c);
	}
	sm->pending = NULL;
}
