/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A message sink: an output that takes one record at a time (the journal,
 * syslog) rather than a stream of lines. It gets each record whole, as
 * JSON (seq and cause_seq filled in) and as its text line.
 */
#ifndef __SINK_H
#define __SINK_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

struct sink_msg {
	const char *json;	/* one JSON record, without its newline */
	size_t json_len;
	const char *text;	/* the same record as a text line, without its newline */
	size_t text_len;
};

struct sink_ops {
	const char *name;	/* for messages: "journal", "syslog" */
	/* Returns 0, or -errno once the sink cannot go on (its channel stops). */
	int (*send)(void *ctx, const struct sink_msg *m);
	/* Optional: called at each output flush. Returns 0 or -errno. */
	int (*flush)(void *ctx);
	/* Optional: called once, at the end. */
	void (*close)(void *ctx);
};

/* One scalar of a record, found by sink__walk(). */
#define SINK_DEPTH	8

struct sink_scalar {
	const char *path[SINK_DEPTH];	/* its keys from the top, array indexes in decimal */
	unsigned int depth;
	const char *text;	/* the value as JSON has it: a string's UTF-8, a number, true, false */
	size_t text_len;
	const char *bytes;	/* a string's exact bytes: from its "_hex" twin if it has one */
	size_t bytes_len;
	bool string;
	bool exact;		/* text is the exact bytes (no twin) */
};

/*
 * Every scalar of @root in order, null left out. A string with a "_hex" twin
 * (bytes that are not UTF-8) comes with both forms, and the twin comes as a
 * scalar of its own too. Deeper than SINK_DEPTH is left out.
 */
void sink__walk(json_t *root, void (*fn)(void *ctx, const struct sink_scalar *s), void *ctx);

/* The syslog severity (and journal PRIORITY) of a record of kind @event. */
int sink__severity(const char *event);

#endif /* __SINK_H */
