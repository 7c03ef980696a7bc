// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "layout.h"

int layout__cmp_proc(const void *a, const void *b)
{
	const struct mproc *x = *(const struct mproc *const *)a;
	const struct mproc *y = *(const struct mproc *const *)b;

	if (x->ctx.sid != y->ctx.sid)
		return x->ctx.sid < y->ctx.sid ? -1 : 1;
	if (x->ctx.pgid != y->ctx.pgid)
		return x->ctx.pgid < y->ctx.pgid ? -1 : 1;
	if (x->ctx.start_ns != y->ctx.start_ns)
		return x->ctx.start_ns < y->ctx.start_ns ? -1 : 1;
	return x->ctx.pid < y->ctx.pid ? -1 : x->ctx.pid > y->ctx.pid;
}

static int cmp_run(const void *a, const void *b)
{
	const struct layout_run *x = a, *y = b;

	if (x->login != y->login)
		return x->login ? -1 : 1;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* A session with a tty, or led by a login's entry leader: what a person looks for first. */
static bool is_login(const struct model *m, __u32 sid)
{
	const struct msession *s = model__session(m, sid);
	const struct mproc *leader = model__session_leader(m, sid);

	if (!sid)
		return false;
	if (s && s->tty_nr)
		return true;
	return leader && model__is_entry_leader(leader);
}

/* Runs of groups; a group's key is its earliest member. */
static void cut_groups(struct layout *l)
{
	size_t i, j;

	for (i = 0; i < l->n; i = j) {
		for (j = i; j < l->n && l->procs[j]->ctx.sid == l->procs[i]->ctx.sid &&
			    l->procs[j]->ctx.pgid == l->procs[i]->ctx.pgid;
		     j++)
			;
		l->groups[l->ng++] = (struct layout_run){ i, j - i, l->procs[i]->ctx.start_ns,
							  l->procs[i]->ctx.pgid, false };
	}
}

/* Runs of sessions over the groups; a session's key is its leader, if still in it. */
static void cut_sessions(struct layout *l, const struct model *m, bool logins)
{
	size_t i, j;

	for (i = 0; i < l->ng; i = j) {
		__u32 sid = l->procs[l->groups[i].first]->ctx.sid;
		const struct mproc *leader = model__session_leader(m, sid);
		__u64 key = l->groups[i].key;

		for (j = i; j < l->ng && l->procs[l->groups[j].first]->ctx.sid == sid; j++)
			if (l->groups[j].key < key)
				key = l->groups[j].key;
		if (leader)
			key = leader->ctx.start_ns;
		l->sessions[l->ns++] =
			(struct layout_run){ i, j - i, key, sid, logins && is_login(m, sid) };
	}
}

int layout__build(struct layout *l, const struct model *m, layout_want_fn want, void *ctx,
		  bool logins)
{
	size_t total = model__count(m) + 1, i;
	struct mproc *p;

	memset(l, 0, sizeof(*l));
	l->procs = malloc(total * sizeof(*l->procs));
	l->groups = malloc(total * sizeof(*l->groups));
	l->sessions = malloc(total * sizeof(*l->sessions));
	if (!l->procs || !l->groups || !l->sessions) {
		layout__free(l);
		return -ENOMEM;
	}
	model__for_each_proc(m, p)
		if (want(ctx, p))
			l->procs[l->n++] = p;
	qsort(l->procs, l->n, sizeof(*l->procs), layout__cmp_proc);
	cut_groups(l);
	cut_sessions(l, m, logins);
	qsort(l->sessions, l->ns, sizeof(*l->sessions), cmp_run);
	for (i = 0; i < l->ns; i++)
		qsort(l->groups + l->sessions[i].first, l->sessions[i].count, sizeof(*l->groups),
		      cmp_run);
	return 0;
}

void layout__free(struct layout *l)
{
	free(l->procs);
	free(l->groups);
	free(l->sessions);
	memset(l, 0, sizeof(*l));
}
