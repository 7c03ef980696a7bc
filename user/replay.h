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

#define REPLAY_MOMENTS 2

struct replay_cfg {
	const char *path;
	ring_buffer_sample_fn on_record; /* as the ring buffer would call it */
	void *ctx;
	struct pipeline *pl;
	struct output *out;
	struct host_id *host; /* filled with the recorded machine's, for the output */
	bool verbose;	      /* the rate, on stderr */
	bool from_start;      /* --at, --diff: read from the first record, not a checkpoint */
	/*
	 * --record: the records written again to @record_path by the intake,
	 * with checkpoints, under the recording's host and clock.
	 */
	struct rec_writer *record;
	const char *record_path;
	/*
	 * --at TIME, --diff T1 T2: on_moment() is told as the replay reaches
	 * each (the model then as it was), in order; after the last, it stops.
	 * Between the first and the last, peek() sees each record first.
	 */
	const char *moments[REPLAY_MOMENTS];
	unsigned int nmoments;
	bool utc;	  /* a time of day in UTC */
	void *moment_ctx; /* for on_moment() and peek() */
	bool run_on;	  /* after the last moment, read on to the end */
	bool records_too; /* with moments, the records are written as well */
	void (*on_moment)(void *ctx, unsigned int i, __u64 at_ns, __s64 boot_to_real_ns);
	void (*peek)(void *ctx, const void *data, __u32 len);
};

/* Returns 0, or -1 for a file that is unreadable, cut short or damaged (said). */
int replay__run(const struct replay_cfg *cfg);

#endif /* __REPLAY_H */
