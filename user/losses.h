/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the kernel side could not deliver: records its ring buffer had no
 * room for (a lost record, per interval), and its counters of events that
 * may be missing. Either means the model must read the machine again.
 */
#ifndef __LOSSES_H
#define __LOSSES_H

#include <stdbool.h>
#include <linux/types.h>
#include "loader.h"
#include "output.h"

struct losses {
	__u64 drops_seen[PGT_TYPE_MAX]; /* drop counters already reported */
	__u64 last_check_ns;
	__u64 forks_unseen; /* PGT_STAT_FORK_UNSEEN already acted on */
	__u64 no_state;	    /* PGT_STAT_NO_STATE already acted on */
	__u64 orphans_cut;  /* PGT_STAT_ORPHANS_CUT already acted on */
};

/* From now on (boot time @now_ns). */
void losses__start(struct losses *l, __u64 now_ns);
/*
 * New drops since the last check, as one lost record to @out (and in @li:
 * total 0 when none); the counters said once each. Returns whether the
 * machine must be re-read.
 */
bool losses__check(struct losses *l, const struct loader *ld, struct output *out, __u64 now_ns,
		   struct lost_info *li);
/* At the end, on stderr: the drops in all, by type. */
void losses__summary(const struct losses *l);

#endif /* __LOSSES_H */
