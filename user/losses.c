// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdio.h>
#include <string.h>
#include "losses.h"
#include "sbuf.h"
#include "msg.h"

void losses__start(struct losses *l, __u64 now_ns)
{
	l->last_check_ns = now_ns;
}

/* A kernel-side counter of events that may be missing: said once. True when it grew. */
static bool stat_missed(const struct loader *ld, unsigned int idx, __u64 *seen, const char *what)
{
	__u64 n = loader__stat(ld, idx);

	if (n <= *seen)
		return false;
	if (!*seen)
		p_err("%s; re-reading the machine", what);
	*seen = n;
	return true;
}

bool losses__check(struct losses *l, const struct loader *ld, struct output *out, __u64 now_ns,
		   struct lost_info *li)
{
	__u64 drops[PGT_TYPE_MAX];
	bool resync = false;
	unsigned int t;

	memset(li, 0, sizeof(*li));
	loader__drops(ld, drops);
	for (t = 1; t < PGT_TYPE_MAX; t++) {
		li->by_type[t] = drops[t] - l->drops_seen[t];
		li->total += li->by_type[t];
		l->drops_seen[t] = drops[t];
	}
	if (li->total) {
		li->from_ns = l->last_check_ns;
		li->to_ns = now_ns;
		output__lost(out, li);
		resync = true;
	}
	/* Tracepoint level: a fork whose child was not found is a fork missed. */
	resync |= stat_missed(ld, PGT_STAT_FORK_UNSEEN, &l->forks_unseen,
			      "a fork's child was not found on its parent's lists");
	resync |= stat_missed(ld, PGT_STAT_NO_STATE, &l->no_state,
			      "a syscall's state could not be kept in the kernel; its event may "
			      "be missing");
	resync |= stat_missed(ld, PGT_STAT_ORPHANS_CUT, &l->orphans_cut,
			      "a process exited with more children than were reported as "
			      "reparented");
	l->last_check_ns = now_ns;
	return resync;
}

void losses__summary(const struct losses *l)
{
	struct sbuf by = {};
	const char *sep = "";
	__u64 total = 0;
	unsigned int t;

	for (t = 1; t < PGT_TYPE_MAX; t++)
		total += l->drops_seen[t];
	if (!total)
		return;
	for (t = 1; t < PGT_TYPE_MAX; t++) {
		if (!l->drops_seen[t])
			continue;
		sbuf__printf(&by, "%s%s %llu", sep, decode__type_name(t),
			     (unsigned long long)l->drops_seen[t]);
		sep = " ";
	}
	p_err("lost %llu events (%s): the ring buffer was full; a larger --ringbuf-size helps",
	      (unsigned long long)total, by.buf ? by.buf : "");
	sbuf__free(&by);
}
