/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The one path of a decoded record: the kernel's side effects that no
 * record reports (derived tty events), signal merging, escapes and the
 * model, then the outputs, in that order. The live loop, the snapshot
 * queue, --replay, the fuzzer and the unit tests all feed records here.
 */
#ifndef __PIPELINE_H
#define __PIPELINE_H

#include "decode.h"
#include "escape.h"
#include "expect.h"
#include "logout.h"
#include "model.h"
#include "sigmerge.h"

/* Where the pipeline's results go; any may be NULL. */
struct pipeline_ops {
	/* A record (derived ones included), once the model has it. */
	void (*event)(void *ctx, const struct pgt_event *ev);
	/* A whole signal cause. */
	void (*signal)(void *ctx, const struct sig_cause *c);
	void (*escape)(void *ctx, const struct escape *e);
	/* A login's (or the command's) end, reported (logout.h's logout_fn). */
	logout_fn logout;
};

struct pipeline {
	struct model *model;		  /* not owned */
	struct sigmerge sigs;		  /* signal causes being assembled */
	struct escapes escapes;		  /* escape detection */
	struct logouts logouts;		  /* the reports of logins that end */
	unsigned int skip_type;		  /* testing aid: this type skips the model */
	const struct expect_list *expect; /* --expected, or NULL */
	const struct pipeline_ops *ops;
	void *ctx;
	/* Optional: told of each record once the model has it (--html). */
	void (*observe)(void *ctx, const struct model *m, const struct pgt_event *ev);
	void *observe_ctx;
};

void pipeline__init(struct pipeline *pl, struct model *m, const struct pipeline_ops *ops,
		    void *ctx);
void pipeline__free(struct pipeline *pl);

/* One record, and the derived records it implies. */
void pipeline__record(struct pipeline *pl, struct pgt_event *ev);

/* Logins end with a report this long after their leader's exit, unless set. */
#define PIPELINE_LOGOUT_GRACE_NS 1000000000ULL

/* Held escapes and logout reports that fall due by @now_ns. */
void pipeline__tick(struct pipeline *pl, __u64 now_ns);
/* Hand over the signal causes outside a syscall complete at @now_ns (sigmerge.h). */
void pipeline__close_causes(struct pipeline *pl, __u64 now_ns);
/* The end of the stream: every open cause, held escape and logout report. */
void pipeline__finish(struct pipeline *pl);
/* The seq of the first record of the oldest open signal cause, or (__u64)-1. */
__u64 pipeline__oldest_open(const struct pipeline *pl);

/*
 * Where the output holds lines back, with @held bytes held already: the
 * oldest open cause's first record, unless more than PIPELINE_HOLD_MAX bytes
 * wait on it. Then every open cause is handed over as it is, and nothing is
 * held: under a flood the ring buffer may have lost a cause's final record,
 * and waiting for it a second would hold hundreds of megabytes of lines.
 */
#define PIPELINE_HOLD_MAX (8U << 20)
__u64 pipeline__hold_point(struct pipeline *pl, size_t held);

#endif /* __PIPELINE_H */
