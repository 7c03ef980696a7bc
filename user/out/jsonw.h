/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The one JSON writer: compact JSON into an sbuf, shaped like bpftool's
 * json_writer (jsonw_start_object(), jsonw_name(), jsonw_uint(), ...), and
 * free of printf on its hot path. The writer keeps the commas: a value
 * written after a name is that member's, any other is the next element.
 * Every record format (JSON Lines, ECS), the --tree JSON and --check's
 * JSON are written with it.
 *
 * It has a second backend: a writer made by jsonw_init_fields() writes no
 * bytes, it hands each scalar, with its path, to a callback. The message
 * sinks (the journal's fields, syslog's structured data) take a record
 * that way, from the same walk as its JSON, and nothing is parsed back.
 */
#ifndef __JSONW_H
#define __JSONW_H

#include <stdbool.h>
#include <linux/types.h>
#include "sbuf.h"

#define JSONW_MAX_DEPTH 32

/* One scalar of a JSON value, with its place: what jsonw_init_fields() hands over. */
#define FIELD_DEPTH 8

struct field {
	const char *path[FIELD_DEPTH]; /* its keys from the top, array indexes in decimal */
	unsigned int depth;
	const char *text; /* the value as JSON has it: a string's UTF-8, a number, true, false */
	size_t text_len;
	const char *bytes; /* a string's exact bytes (those of its "_hex" twin, if it has one) */
	size_t bytes_len;
	bool string;
	bool exact; /* text is the exact bytes (no twin) */
};

typedef void (*field_fn)(void *ctx, const struct field *f);

struct jsonw_fields;

struct jsonw {
	struct sbuf *sb;
	unsigned int depth;
	bool after_name;		  /* the next value is a member's */
	bool has_member[JSONW_MAX_DEPTH]; /* a comma before the next */
	struct jsonw_fields *fields;	  /* not NULL: scalars to a callback, no bytes */
};

/* A writer appending to @sb, at the top level. */
void jsonw_init(struct jsonw *w, struct sbuf *sb);
/*
 * A writer that hands every scalar to @fn, in order, null left out: a
 * string with a "_hex" twin (bytes that are not UTF-8) comes with both
 * forms, and the twin as a field of its own too. Deeper than FIELD_DEPTH is
 * left out. jsonw_fini() frees what it holds.
 */
void jsonw_init_fields(struct jsonw *w, field_fn fn, void *ctx);
void jsonw_fini(struct jsonw *w);
/* Whether @w hands scalars over rather than writing bytes. */
static inline bool jsonw_is_fields(const struct jsonw *w)
{
	return w->fields;
}

/* The second backend's side of each call. */
void jsonw__f_name(struct jsonw *w, const char *name);
void jsonw__f_scalar(struct jsonw *w, const char *text, size_t len, bool string);
void jsonw__f_uint(struct jsonw *w, __u64 v);
void jsonw__f_int(struct jsonw *w, __s64 v);
void jsonw__f_null(struct jsonw *w);
void jsonw__f_string(struct jsonw *w, const char *s, size_t max);

/* Before a value or a name: the comma, unless it is the first or a member's value. */
static inline void jsonw__sep(struct jsonw *w)
{
	if (w->after_name) {
		w->after_name = false;
		return;
	}
	if (w->has_member[w->depth])
		sbuf__putc(w->sb, ',');
	w->has_member[w->depth] = true;
}

void jsonw_start_object(struct jsonw *w);
void jsonw_end_object(struct jsonw *w);
void jsonw_start_array(struct jsonw *w);
void jsonw_end_array(struct jsonw *w);
/* A member's name: a trusted key, written as it is (the hottest call: inline). */
static inline void jsonw_name(struct jsonw *w, const char *name)
{
	size_t len = strlen(name);
	struct sbuf *sb = w->sb;
	char *p;

	if (w->fields) {
		jsonw__f_name(w, name);
		return;
	}
	jsonw__sep(w);
	w->after_name = true;
	if (sb->len + len + 4 > sb->cap && !sbuf__grow(sb, len + 3))
		return;
	p = sb->buf + sb->len;
	*p++ = '"';
	memcpy(p, name, len);
	p += len;
	*p++ = '"';
	*p++ = ':';
	*p = '\0';
	sb->len += len + 3;
}

static inline void jsonw_uint(struct jsonw *w, __u64 v)
{
	if (w->fields) {
		jsonw__f_uint(w, v);
		return;
	}
	jsonw__sep(w);
	sbuf__put_u64(w->sb, v);
}

static inline void jsonw_uint_field(struct jsonw *w, const char *name, __u64 v)
{
	jsonw_name(w, name);
	jsonw_uint(w, v);
}

static inline void jsonw_int(struct jsonw *w, __s64 v)
{
	if (w->fields) {
		jsonw__f_int(w, v);
		return;
	}
	jsonw__sep(w);
	sbuf__put_s64(w->sb, v);
}

static inline void jsonw_bool(struct jsonw *w, bool v)
{
	if (w->fields) {
		jsonw__f_scalar(w, v ? "true" : "false", v ? 4 : 5, false);
		return;
	}
	jsonw__sep(w);
	if (v)
		sbuf__put(w->sb, "true", 4);
	else
		sbuf__put(w->sb, "false", 5);
}

static inline void jsonw_null(struct jsonw *w)
{
	if (w->fields) {
		jsonw__f_null(w);
		return;
	}
	jsonw__sep(w);
	sbuf__put(w->sb, "null", 4);
}

/*
 * A string of ours that needs no escaping: digits, hex, RFC 3339 times, the
 * names of our enums. Written as it is, quoted.
 */
static inline void jsonw_plain(struct jsonw *w, const char *s)
{
	size_t len = strlen(s);
	struct sbuf *sb = w->sb;

	if (w->fields) {
		jsonw__f_scalar(w, s, len, true);
		return;
	}
	jsonw__sep(w);
	if (sb->len + len + 3 > sb->cap && !sbuf__grow(sb, len + 2))
		return;
	sb->buf[sb->len] = '"';
	memcpy(sb->buf + sb->len + 1, s, len);
	sb->buf[sb->len + len + 1] = '"';
	sb->len += len + 2;
	sb->buf[sb->len] = '\0';
}

static inline void jsonw_plain_field(struct jsonw *w, const char *name, const char *s)
{
	jsonw_name(w, name);
	jsonw_plain(w, s);
}

/* A trusted string (a name of ours), escaped all the same. */
static inline void jsonw_string(struct jsonw *w, const char *s)
{
	if (w->fields) {
		jsonw__f_string(w, s, strlen(s) + 1);
		return;
	}
	jsonw__sep(w);
	sbuf__put_json_str(w->sb, s, strlen(s) + 1);
}
/*
 * Untrusted bytes (a comm, a path), at most @max: escaped as
 * sbuf__put_json_str() does; where bytes were not UTF-8, a member
 * "NAME_hex" follows with them in hex. Only as a member (@name).
 */
void jsonw_untrusted(struct jsonw *w, const char *name, const char *s, size_t max);
/* As jsonw_untrusted(), for an array of runs: "name_hex" is an array too. */
void jsonw_untrusted_array(struct jsonw *w, const char *name, const struct span *v, size_t n);
/* Bytes that are already one JSON value; nothing for the second backend. */
void jsonw_raw(struct jsonw *w, const char *json, size_t len);

/* name and value in one call. */
static inline void jsonw_int_field(struct jsonw *w, const char *name, __s64 v)
{
	jsonw_name(w, name);
	jsonw_int(w, v);
}

static inline void jsonw_bool_field(struct jsonw *w, const char *name, bool v)
{
	jsonw_name(w, name);
	jsonw_bool(w, v);
}

static inline void jsonw_null_field(struct jsonw *w, const char *name)
{
	jsonw_name(w, name);
	jsonw_null(w);
}

static inline void jsonw_string_field(struct jsonw *w, const char *name, const char *s)
{
	jsonw_name(w, name);
	jsonw_string(w, s);
}

/* A string, or null for NULL. */
static inline void jsonw_string_or_null_field(struct jsonw *w, const char *name, const char *s)
{
	jsonw_name(w, name);
	if (s)
		jsonw_string(w, s);
	else
		jsonw_null(w);
}

#endif /* __JSONW_H */
