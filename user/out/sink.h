/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A message sink: an output that takes one record at a time (the journal,
 * syslog) rather than a stream of lines. It gets each record typed, and
 * formats what it sends itself.
 */
#ifndef __SINK_H
#define __SINK_H

#include <stdbool.h>
#include <stddef.h>
#include "format.h"

/* One record, and how the sink's channel writes times and names the host. */
struct sink_msg {
	const struct record *rec;  /* seq and cause_seq set */
	const struct fmt_ctx *fc;  /* for its JSON (json__record(), json__walk()) */
	const struct fmt_ctx *tfc; /* for its text line (text__record()) */
};

struct sink_ops {
	const char *name; /* for messages: "journal", "syslog" */
	/* Returns 0, or -errno once the sink cannot go on (its channel stops). */
	int (*send)(void *ctx, const struct sink_msg *m);
	/* Optional: called at each output flush. Returns 0 or -errno. */
	int (*flush)(void *ctx);
	/* Optional: called once, at the end. */
	void (*close)(void *ctx);
};

/* The syslog severity (and journal PRIORITY) of a record of kind @event. */
int sink__severity(const char *event);

/* @m's record as one line of @fmt, without its newline, into @sb (reset first). */
void sink__line(struct sbuf *sb, const struct sink_msg *m, record_fmt fmt, bool text);

#endif /* __SINK_H */
