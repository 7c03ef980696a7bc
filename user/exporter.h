/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * --metrics: the run's counters and gauges, gathered by the record loop a
 * few times a second into a page (user/out/metrics.c) that the server
 * (user/serve.c) hands to each scrape.
 */
#ifndef __EXPORTER_H
#define __EXPORTER_H

#include <linux/types.h>
#include "metrics.h"
#include "serve.h"

struct tracer;

struct exporter {
	struct server *srv;
	struct metrics counts; /* counted by the output as records are written */
	const volatile __u64 *consumer, *producer; /* the ring buffer's positions, read-only */
	size_t page_size;
	__u64 ringbuf_size;
	__u64 next_ns; /* monotonic: the next page */
	long tick;
	double boot_time; /* seconds since the epoch */
	char kernel[128];
	struct sbuf page;
};

/* Listening on @where, counting through @s's output. Returns 0, or -1 (said). */
int exporter__start(struct exporter *e, struct tracer *s, const char *where);
/* The ring buffer's fill, once it exists (mapped read-only). */
void exporter__ringbuf(struct exporter *e, int map_fd, __u64 size);
/* A new page, if one is due at @now_ns (monotonic), or always with @now_ns 0. */
void exporter__tick(struct exporter *e, struct tracer *s, __u64 now_ns);
void exporter__stop(struct exporter *e);

#endif /* __EXPORTER_H */
