/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One signal cause from its records: the kernel gathers up to
 * PGT_SIG_RCPTS recipients per record; a cause with more, or one outside a
 * syscall, spans several records with one group_id, merged here.
 */
#ifndef __SIGMERGE_H
#define __SIGMERGE_H

#include <uthash.h>
#include "decode.h"
#include "model.h"

struct sig_rcpt {
	__u32 pid, tid;
	__s32 result;
	__u32 pgid;
};

struct sig_cause {
	struct pgt_signal first; /* the first record: sender, signal, cause */
	struct sig_rcpt *rcpt;
	unsigned int nr, cap;
	__u32 flags; /* PGT_SIG_* of all records */
	__s32 ret;
	__u64 last_ts; /* boot time of the last record */
	/*
	 * What the sender ran and its login when the first record came,
	 * counted references (an exiting sender is gone from the model by
	 * the time its cause is complete); NULL where unknown.
	 */
	struct image *image;
	struct lineage *line; /* the sender's own link */
	struct lineage *entry;
	bool known;	     /* the model knew the sender */
	bool entry_inferred; /* as mproc's */
	struct pcgroup *cg;  /* the sender's cgroup */
	struct sig_cause *next;
	UT_hash_handle hh; /* by first.group_id */
};

typedef void (*sig_cause_fn)(void *ctx, const struct sig_cause *c);

struct sigmerge {
	struct sig_cause *pending; /* oldest first */
	struct sig_cause **tail;   /* where the next cause goes, NULL when empty */
	struct sig_cause *by_id;   /* the same causes, by group_id */
	sig_cause_fn fn;
	void *ctx;
};

void sigmerge__init(struct sigmerge *sm, sig_cause_fn fn, void *ctx);
/*
 * Add a record, sent by @sender as the model has it (NULL if unknown); a
 * complete cause is handed to the callback.
 */
void sigmerge__add(struct sigmerge *sm, const struct pgt_signal *rec, const struct mproc *sender);
/*
 * A cause whose end the kernel does not know is complete once its records
 * stop: it is handed over SIGMERGE_QUIET_NS after its last one. A cause the
 * kernel counted (a loop over a process group) ends with its final record;
 * SIGMERGE_COUNTED_NS after its last, it is handed over without it (a
 * record lost, or not reported).
 */
#define SIGMERGE_QUIET_NS   10000000ULL
#define SIGMERGE_COUNTED_NS 1000000000ULL

/* Hand over the causes complete at boot time @now_ns (all if 0). */
void sigmerge__flush(struct sigmerge *sm, __u64 now_ns);
/* The kernel seq of the first record of the oldest cause still open, or (__u64)-1. */
__u64 sigmerge__oldest_seq(const struct sigmerge *sm);
void sigmerge__free(struct sigmerge *sm);

#endif /* __SIGMERGE_H */
