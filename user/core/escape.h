/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Escapes: a process leaving a group it was born into. Worked out from each
 * event and the model around it; a shell's own job control is not one.
 */
#ifndef __ESCAPE_H
#define __ESCAPE_H

#include "model.h"

enum escape_kind {
	ESC_SETSID = 1,	    /* a new session */
	ESC_PGRP,	    /* left its home group: where it was born or put as a job */
	ESC_REPARENT,	    /* adopted by a subreaper or init */
	ESC_DAEMONIZE,	    /* adopted, after a double fork or a setsid */
	ESC_TTY_DROP,	    /* gave up its controlling tty */
	ESC_OUTLIVED_LOGIN, /* alive after its login's entry leader died */
	ESC_CGROUP,	    /* moved to another cgroup */
	ESC_PIDNS,	    /* born into a new pid namespace */
};

struct escape_where {
	__u32 sid, pgid, ppid, tty_nr;
	char tty[PGT_TTY_LEN];
};

struct escape {
	enum escape_kind kind;
	__u64 seq; /* of the event that showed it */
	__u64 ts_ns;
	struct pgt_proc proc; /* the process that escaped */
	__u64 parent_start; /* its parent's start then (0: unknown): a held escape's may be gone */
	struct escape_where from, to;
	char detail[PGT_CGROUP_PATH_LEN]; /* cgroup path, pid namespace */
	/*
	 * The ancestors at birth and the login, held by the escape (counted
	 * references): a process that exits while its escape is held keeps
	 * its lineage in the record.
	 */
	struct lineage *lineage; /* the process's own link, NULL if unknown */
	struct lineage *entry;	 /* its entry leader's link, NULL if none */
	bool entry_inferred;	 /* as mproc's */
	struct pcgroup *cg;	 /* its cgroup at the escape, NULL if unknown */
	struct image *image;	 /* what it ran at the escape, NULL if unknown */
	const char *expected;	 /* the --expected rule that names it, or NULL */
};

typedef void (*escape_fn)(void *ctx, const struct escape *e);

struct outlive_check;
struct held;
struct mark;

struct escapes {
	escape_fn fn;
	void *ctx;
	struct outlive_check *checks;
	struct held *held;	 /* setsids that may start a login, moves that may be jobs */
	struct mark *marks;	 /* what was already reported, by process */
	unsigned int marks_kept; /* after the last prune */
};

void escapes__init(struct escapes *es, escape_fn fn, void *ctx);
/* Before the model applies @ev: classify it (EV_JOB_CONTROL). */
void escapes__classify(struct escapes *es, const struct model *m, struct pgt_event *ev);
/* After the model applied @ev: report what escaped. */
void escapes__report(struct escapes *es, struct model *m, const struct pgt_event *ev);
/*
 * Report what has waited long enough: held setsids, and processes still
 * alive a while after their login ended (@now_ns boot time).
 */
void escapes__tick(struct escapes *es, struct model *m, __u64 now_ns);
/* At the end: report the held escapes now. */
void escapes__flush(struct escapes *es, struct model *m);
void escapes__free(struct escapes *es);

const char *escape__kind_name(enum escape_kind kind);

#endif /* __ESCAPE_H */
