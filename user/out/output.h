/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The outputs: standard output or -o FILE, where records are formatted into
 * whole lines, queued, and written in batches without ever blocking: a
 * reader that stalls, a full disk or a FIFO with no reader leaves them
 * queued, up to a bound, then lost and counted; and message sinks (the
 * journal, syslog), which get each record alone. Every output gets every
 * record, in the same order with the same seq; one that fails says so and
 * the others go on.
 */
#ifndef __OUTPUT_H
#define __OUTPUT_H

#include <stdbool.h>
#include <sys/types.h>
#include "format.h"
#include "sink.h"

struct output;

struct output_cfg {
	bool json;
	bool ecs;  /* JSON records as ECS documents (implies json) */
	bool ecs8; /* as ECS 8.11's (--ecs-version 8.11), not 9.4's */
	bool utc;
	bool offline;	    /* --replay: no ring buffer to warn about */
	const char *path;   /* NULL: stdout */
	bool no_stream;	    /* neither stdout nor a file: message sinks only */
	int color;	    /* --color: 0 auto (a terminal, no NO_COLOR), 1 always, 2 never */
	size_t queue_bytes; /* --output-queue: what stdout or -o holds (0: 8M) */
};

/* Returns NULL and prints why on failure. */
struct output *output__open(const struct output_cfg *cfg);
/* --color @mode (0 auto, 1 always, 2 never) for a person reading @fd. */
bool output__color(int mode, int fd);
/*
 * Add a message sink (after output__open, before the first record), with
 * @cfg's time settings. Returns 0 or -errno.
 */
int output__add_sink(struct output *o, const struct output_cfg *cfg, const struct sink_ops *ops,
		     void *ctx);
/* Times of records from another boot (--replay): its realtime - boottime. */
void output__set_clock(struct output *o, __s64 boot_to_real_ns);
struct metrics;
struct metrics_channel;
/* --metrics: count each record as it is written into @m. */
void output__set_metrics(struct output *o, struct metrics *m);
/* Each channel's counts, up to @max: how many. */
unsigned int output__channels(const struct output *o, struct metrics_channel *out,
			      unsigned int max);
/* The clock set, or this machine's now. */
__s64 output__clock(const struct output *o);
/* The machine the records come from, on every JSON record (kept, not copied). */
void output__set_host(struct output *o, const struct host_id *host);
/* The model that says what records' processes run (and their logins). */
void output__set_model(struct output *o, const struct model *m);
/* Tracing has started: the text header goes first. */
void output__start(struct output *o);
void output__event(struct output *o, const struct pgt_event *ev);
void output__lost(struct output *o, const struct lost_info *li);
void output__signal(struct output *o, const struct sig_cause *c);
void output__escape(struct output *o, const struct escape *e);
void output__survivor(struct output *o, const struct mproc *p, __u64 now_ns);
/* A login's (or the command's) end: its processes' fates (logout.h). */
void output__logout(struct output *o, const struct logout *lo);
/* A process a resync added, corrected (@p as it is now) or removed (@p NULL). */
void output__correction(struct output *o, const struct model_note *n, const struct mproc *p,
			__u64 now_ns);
/* Give -o FILE to @uid, who will reopen it. Returns 0 or -errno. */
int output__chown(struct output *o, uid_t uid, gid_t gid);
/* Reopen -o FILE (after logrotate moved it). Returns 0 or -errno. */
int output__reopen(struct output *o);
/* Whole lines formatted elsewhere (a tree, a report). */
void output__raw(struct output *o, const struct sbuf *sb);
/*
 * Records are written in the order of their kernel records (kseq), each
 * given the next seq as it goes. Those from @kseq on wait: the first record
 * of a signal cause still being gathered ((__u64)-1: none wait).
 */
void output__hold(struct output *o, __u64 kseq);
/*
 * How much the lines held back take (output__hold()): the most of any
 * channel's buffer of them, which is compacted once half of it is written.
 */
size_t output__held(const struct output *o);
/* Write what is buffered and due. Returns 0, or -errno once the sink has failed. */
int output__flush(struct output *o);
/* Standard output's or -o FILE's write error, 0 if none (or no such output). */
int output__error(const struct output *o);
/* The first error of a message sink, 0 if none. */
int output__sink_error(const struct output *o);

/* The end: what is queued gets a bounded time to go. Returns the records lost. */
unsigned long long output__close(struct output *o);

#endif /* __OUTPUT_H */
