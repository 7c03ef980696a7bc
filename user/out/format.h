/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The output formats: aligned text lines, JSON Lines (schema 3), ECS documents. */
#ifndef __FORMAT_H
#define __FORMAT_H

#include <stdio.h>
#include <time.h>
#include <linux/types.h>
#include "decode.h"
#include "sbuf.h"
#include "host.h"
#include "jsonw.h"
#include "record.h"

#define PGT_SCHEMA_VERSION 3

struct fmt_ctx {
	__s64 boot_to_real_ns;	    /* CLOCK_REALTIME - CLOCK_BOOTTIME at start */
	const struct host_id *host; /* the traced machine; NULL: "host" is null */
	bool utc;		    /* text mode: UTC instead of local time */
	bool dated;		    /* text mode: times with the date (-o, --utc) */
	bool color;		    /* text mode: ANSI colour for escapes */
	bool ecs8;		    /* --ecs: ECS 8.11's documents, not 9.4's */
};

/* An sshd login's client, from @entry's environment at its start, or NULL. */
const struct login_remote *fmt__entry_remote(const struct lineage *entry);
/* How the login of @entry came in: "sshd", "terminal", "console", "init" or "unknown". */
const char *fmt__entry_type(const struct lineage *entry);

/* A correction record's "correction": "added", "changed" or "removed". */
const char *fmt__correction_name(enum model_note_kind kind);
/* Wall-clock seconds and nanoseconds of a boot-time stamp, clamped to years 1970..9999. */
void fmt__split_time(const struct fmt_ctx *fc, __u64 boot_ns, time_t *secs, long *nsec);
/* "2026-12-03T09:40:01.123456789Z" from a boot-time stamp. */
void fmt__rfc3339(const struct fmt_ctx *fc, __u64 boot_ns, char *buf, size_t len);

/* One record, formatted one way, as a whole line (newline included). */
typedef void (*record_fmt)(struct sbuf *sb, const struct fmt_ctx *fc, const struct record *r);

/* JSON Lines, schema 3 (docs/events.md). */
void json__record(struct sbuf *sb, const struct fmt_ctx *fc, const struct record *r);
/* The aligned text line. */
void text__record(struct sbuf *sb, const struct fmt_ctx *fc, const struct record *r);
/* "09:15:08.374 " (with the date and zone where @fc says), from a boot-time stamp. */
void text__time(struct sbuf *sb, const struct fmt_ctx *fc, __u64 boot_ns);
/* An exit's details: "code 0", "killed by SIGTERM from kill 4242 (uid 1000, sshd pts/3)". */
void text__exit(struct sbuf *sb, const struct record *r);
/* An escape's kind and change: "setsid: sid 4100 -> 4242". */
void text__escape_change(struct sbuf *sb, const struct escape *e);
/* The text header, before the first record. */
void text__header(struct sbuf *sb, const struct fmt_ctx *fc);
/* An Elastic Common Schema document, the JSON record inside (docs/ecs.md). */
void ecs__record(struct sbuf *sb, const struct fmt_ctx *fc, const struct record *r);

/* An exit record's "cause" member (docs/events.md), as its JSON has it. */
void json__cause(struct jsonw *w, const struct fmt_ctx *fc, const struct record *r);
/* An entry leader's object: the process that started a login, and how it came in. */
void json__entry(struct jsonw *w, const struct fmt_ctx *fc, const struct proc_view *v);
/* "code" and "signal" of a raw exit status: one of them null. */
void json__status(struct jsonw *w, __u32 status);
/* A document made in @sb, to @f and flushed: 0, or -errno (-ENOMEM if @sb is incomplete). */
int fmt__write_file(const struct sbuf *sb, FILE *f);

/*
 * Every scalar of the record's JSON in order, null left out, without
 * writing it: a string with a "_hex" twin (bytes that are not UTF-8) comes
 * with both forms, and the twin comes as a field of its own too. Deeper
 * than FIELD_DEPTH is left out.
 */
void json__walk(const struct fmt_ctx *fc, const struct record *r, field_fn fn, void *ctx);

#endif /* __FORMAT_H */
