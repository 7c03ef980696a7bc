/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A message sink: an output that takes one record at a time (the journal,
 * syslog) rather than a stream of lines. It gets each record whole, as
 * JSON (seq and cause_seq filled in) and as its text line.
 */
#ifndef __SINK_H
#define __SINK_H

#include <stddef.h>

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

#endif /* __SINK_H */
