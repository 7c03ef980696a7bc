/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * --replay: a --record file through the same path as the ring buffer's
 * records (the caller's sample function, then the pipeline and the output),
 * with the recording's boot id and clock, so that entity ids and times come
 * out as they did live.
 */
#ifndef __REPLAY_H
#define __REPLAY_H

#include <stdbool.h>
#include <bpf/libbpf.h>
#include "output.h"
#include "pipeline.h"

struct replay_cfg {
	const char *path;
	ring_buffer_sample_fn on_record; /* as the ring buffer would call it */
	void *ctx;
	struct pipeline *pl;
	struct output *out;
	struct host_id *host; /* filled with the recorded machine's, for the output */
	bool verbose;	      /* the rate, on stderr */
	const char *at;	      /* --at TIME: stop before the first record after it */
	bool utc;	      /* ... a time of day in UTC */
};

/* Returns 0, or -1 for a file that is unreadable, cut short or damaged (said). */
int replay__run(const struct replay_cfg *cfg);

#endif /* __REPLAY_H */
