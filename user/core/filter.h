/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the user asked to see: --uid, --tty, --session, --comm and --event.
 * They filter the event stream (every record whose processes match, of the
 * kinds asked for) and, but for --event, the tree. lost records always pass:
 * no filter hides that events were lost.
 */
#ifndef __FILTER_H
#define __FILTER_H

#include <stdbool.h>
#include <linux/types.h>
#include "escape.h"
#include "logout.h"
#include "model.h"
#include "sigmerge.h"

struct filter {
	bool has_uid;
	__u32 uid;
	const char *tty; /* "pts/3" */
	bool has_session;
	__u32 session;
	const char *comm;   /* the whole comm, as the kernel keeps it */
	__u32 events;	    /* a bit per kind (filter__parse_events()); 0: every kind */
	bool hide_expected; /* --hide-expected: escapes no rule of --expected names */
};

/*
 * Whether the kinds asked for need the kernel's signal records: signal
 * records, the cause of an exit, and the tty_release records and escapes a
 * hangup makes. When
 * they do not, signals are not traced at all (--signals=none in the kernel).
 */
bool filter__needs_signals(const struct filter *f);
/* Any filter on processes (not --event). */
bool filter__on_procs(const struct filter *f);
/* Whether @f leaves anything out. */
bool filter__active(const struct filter *f);

/*
 * "exec,escape" into @mask. Returns 0, or -1 with @bad pointing at the
 * first unknown name in @list.
 */
int filter__parse_events(const char *list, __u32 *mask, const char **bad);
/* The names --event takes, comma-separated, for a usage message. */
const char *filter__event_names(void);

/* A process context: uid, ctty, session and comm as asked. */
bool filter__proc(const struct filter *f, const struct pgt_proc *p);

/* Whether a record, a signal cause or an escape is shown (@m: to look up a recipient). */
bool filter__event(const struct filter *f, const struct model *m, const struct pgt_event *ev);
bool filter__signal(const struct filter *f, const struct model *m, const struct sig_cause *c);
bool filter__escape(const struct filter *f, const struct escape *e);
/* A logout report: its leader, or one of its processes, passes. */
bool filter__logout(const struct filter *f, const struct logout *lo);
/* A survivor or a correction about @p (NULL: a process already gone, shown). */
bool filter__process(const struct filter *f, const char *kind, const struct mproc *p);

#endif /* __FILTER_H */
