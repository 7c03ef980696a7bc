/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The records' way in: read from the ring buffer (or a recording), written
 * to --record as they came, validated, and handed to the pipeline; queued
 * instead while the snapshot is being taken.
 */
#ifndef __INTAKE_H
#define __INTAKE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>
#include "pipeline.h"
#include "recording.h"

struct ring_buffer;
struct queued;

struct intake {
	struct pipeline *pl;
	struct rec_writer *record; /* --record, when ->f is set; else NULL */
	const char *record_path;
	__u64 checkpoint_every; /* --checkpoint-every: bytes of records between two, 0: none */
	bool offline;		/* a replay: the records' clock is the time */
	struct ring_buffer *rb;
	/* Called when a round of reading has spent its budget: write what is due. */
	int (*flush)(void *ctx);
	void *ctx;
	bool queueing;	     /* snapshot in progress: hold records */
	unsigned int budget; /* records this poll may still handle */
	struct queued *queue, **queue_tail;
	__u64 bad_records; /* records that failed validation */
	bool wake;	   /* intake__wake_on_exit(): the poll waits on wake_ep */
	int wake_ep, wake_pidfd;
};

/* The ring buffer reader on @fd. Returns 0, or -1 said on stderr. */
int intake__open(struct intake *in, int fd);
/* Makes the next poll return when process @pid ends, once (best effort: else at its timeout). */
void intake__wake_on_exit(struct intake *in, pid_t pid);
/* One record, as the ring buffer (or a replay) hands it over: @ctx is the intake. */
int intake__record(void *ctx, void *data, size_t size);
/*
 * A checkpoint of the model into --record, which must hold every record
 * written (not while the snapshot queues them); nothing without --record or
 * with --checkpoint-every 0. Returns 0 or -errno (said).
 */
int intake__checkpoint(struct intake *in);
/* Wait up to @timeout_ms for records and take them (a budget's worth). Returns 0 or -errno. */
int intake__poll(struct intake *in, int timeout_ms);
/* Read what the ring buffer holds, a budget at a time, bounded. Returns 0 or -errno. */
int intake__drain(struct intake *in);
/* Queue records from now on (the snapshot is being taken). */
void intake__hold(struct intake *in);
/* Hand the queued records to the pipeline, and the next ones as they come. */
void intake__release(struct intake *in);
void intake__free(struct intake *in);

#endif /* __INTAKE_H */
