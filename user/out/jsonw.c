// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jsonw.h"

void jsonw_init(struct jsonw *w, struct sbuf *sb)
{
	memset(w, 0, sizeof(*w));
	w->sb = sb;
}

/* ---- The second backend: scalars with their paths, to a callback ---- */

struct fields_level {
	bool array;
	bool dropped;	    /* deeper than FIELD_DEPTH, or under such */
	unsigned int plen;  /* the path's length at its members */
	unsigned long next; /* an array's next index */
};

struct jsonw_fields {
	field_fn fn;
	void *ctx;
	struct field f;
	char part[FIELD_DEPTH][64]; /* the path's components */
	const char *name;	    /* the member being written */
	char twin[64];		    /* its "_hex" twin's name */
	unsigned int levels;
	struct fields_level level[JSONW_MAX_DEPTH];
	struct sbuf text; /* a string's UTF-8 */
};

void jsonw_init_fields(struct jsonw *w, field_fn fn, void *ctx)
{
	memset(w, 0, sizeof(*w));
	w->fields = calloc(1, sizeof(*w->fields));
	if (!w->fields) {
		w->sb = NULL;
		return;
	}
	w->fields->fn = fn;
	w->fields->ctx = ctx;
}

void jsonw_fini(struct jsonw *w)
{
	if (w->fields)
		sbuf__free(&w->fields->text);
	free(w->fields);
	w->fields = NULL;
}

void jsonw__f_name(struct jsonw *w, const char *name)
{
	w->fields->name = name;
}

/* The next value's place: false when it is left out. */
static bool f_enter(struct jsonw_fields *fw)
{
	struct fields_level *l;
	unsigned int d;

	if (!fw->levels) {
		fw->f.depth = 0;
		return true;
	}
	l = &fw->level[fw->levels - 1];
	d = l->plen;
	if (l->dropped || d == FIELD_DEPTH) {
		l->next++;
		return false;
	}
	if (l->array)
		snprintf(fw->part[d], sizeof(fw->part[d]), "%lu", l->next++);
	else
		snprintf(fw->part[d], sizeof(fw->part[d]), "%s", fw->name ? fw->name : "");
	fw->f.path[d] = fw->part[d];
	fw->f.depth = d + 1;
	return true;
}

static void f_open(struct jsonw *w, bool array)
{
	struct jsonw_fields *fw = w->fields;
	bool in = f_enter(fw);
	struct fields_level *l;

	if (fw->levels == JSONW_MAX_DEPTH)
		return;
	l = &fw->level[fw->levels++];
	l->array = array;
	l->dropped = !in;
	l->plen = fw->f.depth;
	l->next = 0;
}

static void f_close(struct jsonw *w)
{
	if (w->fields->levels)
		w->fields->levels--;
}

/* One scalar: @bytes (@bytes_len) are its exact bytes where they differ from @text. */
static void f_emit(struct jsonw_fields *fw, const char *text, size_t len, bool string,
		   const char *bytes, size_t bytes_len)
{
	if (!f_enter(fw))
		return;
	fw->f.text = text ? text : ""; /* an empty string's buffer may never have been made */
	fw->f.text_len = len;
	fw->f.string = string;
	fw->f.exact = !bytes;
	fw->f.bytes = bytes ? bytes : fw->f.text;
	fw->f.bytes_len = bytes ? bytes_len : len;
	fw->fn(fw->ctx, &fw->f);
}

void jsonw__f_scalar(struct jsonw *w, const char *text, size_t len, bool string)
{
	f_emit(w->fields, text, len, string, NULL, 0);
}

void jsonw__f_uint(struct jsonw *w, __u64 v)
{
	char buf[24];

	jsonw__f_scalar(w, buf, (size_t)snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v),
			false);
}

void jsonw__f_int(struct jsonw *w, __s64 v)
{
	char buf[24];

	jsonw__f_scalar(w, buf, (size_t)snprintf(buf, sizeof(buf), "%lld", (long long)v), false);
}

void jsonw__f_null(struct jsonw *w)
{
	/* Left out, but it takes its place in an array. */
	struct jsonw_fields *fw = w->fields;

	if (fw->levels && fw->level[fw->levels - 1].array)
		fw->level[fw->levels - 1].next++;
}

/*
 * @s (at most @max bytes) as a JSON parser reads back what
 * sbuf__put_json_str() writes: the bytes, each one that is not UTF-8 a
 * U+FFFD. Returns whether any was.
 */
static bool f_utf8(struct sbuf *sb, const char *str, size_t max)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = str__len(str, max), i = 0, l;
	bool replaced = false;

	sbuf__reset(sb);
	while (i < n) {
		l = utf8__seq_len(s + i, n - i);
		if (l == 0) {
			sbuf__puts(sb, "\xef\xbf\xbd");
			replaced = true;
			l = 1;
		} else {
			sbuf__put(sb, s + i, l);
		}
		i += l;
	}
	return replaced;
}

void jsonw__f_string(struct jsonw *w, const char *s, size_t max)
{
	struct jsonw_fields *fw = w->fields;

	f_utf8(&fw->text, s, max);
	f_emit(fw, fw->text.buf, fw->text.len, true, NULL, 0);
}

/* "name_hex", the member that carries the raw bytes of an untrusted string. */
static void f_twin(struct jsonw_fields *fw, const char *name)
{
	snprintf(fw->twin, sizeof(fw->twin), "%.59s_hex", name);
	fw->name = fw->twin;
}

static void f_hex(struct jsonw_fields *fw, const char *str, size_t max)
{
	sbuf__reset(&fw->text);
	sbuf__put_hex(&fw->text, str, str__len(str, max));
	f_emit(fw, fw->text.buf, fw->text.len, true, NULL, 0);
}

static void f_untrusted(struct jsonw *w, const char *name, const char *s, size_t max)
{
	struct jsonw_fields *fw = w->fields;
	bool replaced;

	fw->name = name;
	replaced = f_utf8(&fw->text, s, max);
	f_emit(fw, fw->text.buf, fw->text.len, true, replaced ? s : NULL, str__len(s, max));
	if (!replaced)
		return;
	f_twin(fw, name);
	f_hex(fw, s, max);
}

static void f_untrusted_array(struct jsonw *w, const char *name, const struct span *v, size_t n)
{
	struct jsonw_fields *fw = w->fields;
	bool replaced = false;
	size_t i;

	for (i = 0; i < n && !replaced; i++)
		replaced = f_utf8(&fw->text, v[i].s, v[i].len);
	fw->name = name;
	f_open(w, true);
	for (i = 0; i < n; i++) {
		f_utf8(&fw->text, v[i].s, v[i].len);
		f_emit(fw, fw->text.buf, fw->text.len, true, replaced ? v[i].s : NULL,
		       str__len(v[i].s, v[i].len));
	}
	f_close(w);
	if (!replaced)
		return;
	f_twin(fw, name);
	f_open(w, true);
	for (i = 0; i < n; i++)
		f_hex(fw, v[i].s, v[i].len);
	f_close(w);
}

/* ---- JSON ---- */

static void open_level(struct jsonw *w, char c)
{
	if (w->fields) {
		f_open(w, c == '[');
		return;
	}
	jsonw__sep(w);
	sbuf__putc(w->sb, c);
	/* Deeper than any record goes: the commas of that level are shared. */
	if (w->depth < JSONW_MAX_DEPTH - 1)
		w->depth++;
	w->has_member[w->depth] = false;
}

static void close_level(struct jsonw *w, char c)
{
	if (w->fields) {
		f_close(w);
		return;
	}
	if (w->depth)
		w->depth--;
	sbuf__putc(w->sb, c);
}

void jsonw_start_object(struct jsonw *w)
{
	open_level(w, '{');
}

void jsonw_end_object(struct jsonw *w)
{
	close_level(w, '}');
}

void jsonw_start_array(struct jsonw *w)
{
	open_level(w, '[');
}

void jsonw_end_array(struct jsonw *w)
{
	close_level(w, ']');
}

static void hex_name(struct jsonw *w, const char *name)
{
	char hex[64];
	size_t n = strlen(name);

	if (n + sizeof("_hex") > sizeof(hex))
		n = sizeof(hex) - sizeof("_hex");
	memcpy(hex, name, n);
	memcpy(hex + n, "_hex", sizeof("_hex"));
	jsonw_name(w, hex);
}

void jsonw_untrusted(struct jsonw *w, const char *name, const char *s, size_t max)
{
	if (w->fields) {
		f_untrusted(w, name, s, max);
		return;
	}
	jsonw_name(w, name);
	jsonw__sep(w);
	if (!sbuf__put_json_str(w->sb, s, max))
		return;
	hex_name(w, name);
	jsonw__sep(w);
	sbuf__put_json_hex(w->sb, s, max);
}

void jsonw_untrusted_array(struct jsonw *w, const char *name, const struct span *v, size_t n)
{
	bool replaced = false;
	size_t i;

	if (w->fields) {
		f_untrusted_array(w, name, v, n);
		return;
	}
	jsonw_name(w, name);
	jsonw_start_array(w);
	for (i = 0; i < n; i++) {
		jsonw__sep(w);
		replaced |= sbuf__put_json_str(w->sb, v[i].s, v[i].len);
	}
	jsonw_end_array(w);
	if (!replaced)
		return;
	hex_name(w, name);
	jsonw_start_array(w);
	for (i = 0; i < n; i++) {
		jsonw__sep(w);
		sbuf__put_json_hex(w->sb, v[i].s, v[i].len);
	}
	jsonw_end_array(w);
}

void jsonw_raw(struct jsonw *w, const char *json, size_t len)
{
	if (w->fields) {
		jsonw__f_null(w);
		return;
	}
	jsonw__sep(w);
	sbuf__put(w->sb, json, len);
}
