/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * --metrics: what pgrptrace has done, as Prometheus' text exposition
 * format (version 0.0.4). The counters are counted as records are written
 * (metrics__count(), from the output, one place for every channel); the
 * gauges are read when the page is made. No I/O here: the page is text in
 * an sbuf, served by user/serve.c.
 */
#ifndef __METRICS_H
#define __METRICS_H

#include <stdbool.h>
#include <linux/types.h>
#include "pgrptrace.h"
#include "sbuf.h"

#define METRICS_KINDS	  32 /* record kinds (record__kind()) */
#define METRICS_ESCAPES	  16 /* escape kinds */
#define METRICS_CAUSES	  16 /* signal causes (PGT_CAUSE_*) */
#define METRICS_NOTES	  8  /* model notes (corrections) */
#define METRICS_CHANNELS  4
#define METRICS_NAME_SIZE 64

struct record;

/* Counted as records are written; never reset. */
struct metrics {
	__u64 records[METRICS_KINDS];	  /* by kind, as written */
	__u64 kernel_lost[PGT_TYPE_MAX];  /* records the kernel side could not reserve */
	__u64 escapes[METRICS_ESCAPES];	  /* by kind */
	__u64 causes[METRICS_CAUSES];	  /* signal records, by cause */
	__u64 corrections[METRICS_NOTES]; /* by model note kind */
	__u64 resyncs;			  /* the machine read again after losses */
};

/* One output: stdout or -o, the journal, syslog. */
struct metrics_channel {
	char name[METRICS_NAME_SIZE];
	__u64 delivered, lost; /* records taken, records lost (its queue full) */
	__u64 queued_bytes;    /* waiting to be written */
};

/* What is read when the page is made. */
struct metrics_gauges {
	unsigned int processes, groups, sessions, logins; /* in the model */
	__u64 ringbuf_used, ringbuf_size;		  /* bytes */
	struct metrics_channel channels[METRICS_CHANNELS];
	unsigned int nchannels;
	const char *version, *hook_level, *kernel;
	/* This process, from /proc/self: */
	double cpu_seconds, start_time_seconds;
	__u64 resident_bytes, virtual_bytes;
	unsigned int open_fds, max_fds;
};

/* @r was written (its turn came; each channel took it or lost it). */
void metrics__count(struct metrics *m, const struct record *r);
/* The exposition of @m and @g into @out (reset first). */
void metrics__render(const struct metrics *m, const struct metrics_gauges *g, struct sbuf *out);

#endif /* __METRICS_H */
