/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The live view's rows (--tree on a terminal): session -> process group ->
 * process, worked out from the model, and each row's line cut to a width.
 * No terminal code here: user/tui.c draws the rows, the unit tests read them.
 */
#ifndef __VIEW_H
#define __VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include "filter.h"
#include "model.h"
#include "sbuf.h"

enum view_kind { VIEW_SESSION, VIEW_GROUP, VIEW_PROC };

/* Where a process escaped from, as the escape records said (user/tui.c keeps them). */
struct view_mark {
	char kind[16]; /* the escape's kind: "setsid", "daemonize"... */
	__u32 from_sid;
	__u32 login_pid;    /* its login's entry leader, 0 if none */
	char login_tty[32]; /* "pts/1", "" if none */
};

typedef const struct view_mark *(*view_mark_fn)(void *ctx, const struct mproc *p);

struct view_opts {
	const struct filter *filter; /* --uid, --tty, --session, --comm (NULL: none) */
	__u32 pid;		     /* -p PID: that subtree (0: all) */
	bool kthreads;		     /* show kernel threads */
	bool escapes_only;	     /* only escaped processes, under their sessions */
	/* The keys' filters; 0, NULL or false for none. */
	bool has_uid;
	__u32 uid;
	const char *tty; /* "pts/1": the sessions on that tty */
	__u32 sid;
	const struct lineage *login; /* one login: its entry leader's link */
	/* Folded sessions and groups: @folded(ctx, kind, id). NULL: nothing folded. */
	bool (*folded)(void *ctx, enum view_kind kind, __u32 id);
	void *folded_ctx;
	view_mark_fn mark; /* escapes, NULL: none known */
	void *mark_ctx;
};

struct view_row {
	enum view_kind kind;
	__u32 sid, pgid, pid;
	__u64 start_ns;	       /* a process's, for following it */
	const struct mproc *p; /* a process row's, or a one-process group's process */
	unsigned int depth;    /* a process under its parent in the group */
	unsigned int members;  /* a session's or a group's processes */
	bool fg;	       /* the group is its tty's foreground */
	bool folded;
	bool login;	   /* a session with a tty or a login's entry leader */
	bool under_parent; /* drawn under its parent */
};

struct view {
	struct view_row *rows;
	size_t n, cap;
	size_t procs; /* processes shown */
	size_t hidden_kthreads;
};

/*
 * The rows of @m: login sessions first (a tty, or an entry leader), in the
 * order of their leaders' start, then the others; their groups by first
 * member, processes nested under their parents. Returns 0 or -ENOMEM.
 */
int view__build(struct view *v, const struct model *m, const struct view_opts *o);
void view__free(struct view *v);

/* A process's state as ps(1) shows it ('S', 'R', 'T', 't', 'Z'...), 0 if unknown. */
typedef char (*view_state_fn)(void *ctx, const struct mproc *p);

struct view_style {
	bool utf8;
	view_state_fn state;
	void *state_ctx;
	view_mark_fn mark;
	void *mark_ctx;
};

/*
 * @r's line into @sb, at most @cols terminal columns: a process's arguments
 * are cut first, so that its escape mark stays. Returns the columns used.
 * *@mark_at gets the byte offset of the escape mark (or of the end), for
 * colouring.
 */
size_t view__line(struct sbuf *sb, const struct model *m, const struct view_row *r,
		  const struct view_style *st, size_t cols, size_t *mark_at);

/*
 * The bytes of the longest prefix of @s (@len bytes of text, as
 * sbuf__put_text() writes it) within @cols columns; its columns in *@used.
 */
size_t view__fit(const char *s, size_t len, size_t cols, size_t *used);

/* A kernel thread (hidden unless asked for). */
bool view__is_kthread(const struct mproc *p);

#endif /* __VIEW_H */
