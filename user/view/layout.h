/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The one layout of sessions, groups and processes that the printed tree
 * and the full-screen view both draw: the processes sorted, cut into runs
 * of groups and the runs of groups into sessions, each in the order shown.
 */
#ifndef __LAYOUT_H
#define __LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "model.h"

/* A run of processes (a group) or of groups (a session). */
struct layout_run {
	size_t first, count; /* into the processes, or into the groups */
	__u64 key;	     /* the leader's start, else the earliest member's */
	__u32 id;	     /* pgid or sid */
	bool login;	     /* a session a person looks for first (with @logins) */
};

struct layout {
	struct mproc **procs; /* by session, group, start, pid */
	size_t n;
	struct layout_run *groups; /* each session's, sorted */
	size_t ng;
	struct layout_run *sessions; /* sorted: logins first (with @logins), then by key */
	size_t ns;
};

/* Whether @p is drawn. */
typedef bool (*layout_want_fn)(void *ctx, const struct mproc *p);

/*
 * The processes of @m that @want takes, laid out. With @logins, sessions
 * with a tty or led by a login's entry leader come first. 0, or -ENOMEM.
 */
int layout__build(struct layout *l, const struct model *m, layout_want_fn want, void *ctx,
		  bool logins);
void layout__free(struct layout *l);
/* The processes' order: session, group, start, pid (for qsort). */
int layout__cmp_proc(const void *a, const void *b);

#endif /* __LAYOUT_H */
