// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdio.h>
#include <string.h>
#include "sbuf.h"
#include "sink.h"

int sink__severity(const char *event)
{
	if (!event)
		return 6;
	if (!strcmp(event, "lost"))
		return 3;	/* err: what was asked for is incomplete */
	if (!strcmp(event, "escape"))
		return 4;	/* warning */
	if (!strcmp(event, "correction") || !strcmp(event, "survivor"))
		return 5;	/* notice */
	return 6;		/* info */
}

struct walk {
	struct sink_scalar s;
	char idx[SINK_DEPTH][24];
	struct sbuf raw;	/* a twin's bytes, decoded */
	void (*fn)(void *ctx, const struct sink_scalar *s);
	void *ctx;
};

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static void hex_decode(struct sbuf *sb, const char *hex)
{
	size_t i, n = strlen(hex) / 2;
	int hi, lo;

	sbuf__reset(sb);
	for (i = 0; i < n; i++) {
		hi = hexval(hex[2 * i]);
		lo = hexval(hex[2 * i + 1]);
		if (hi < 0 || lo < 0)
			break;
		sbuf__putc(sb, (char)(hi << 4 | lo));
	}
}

static void walk(struct walk *w, json_t *v, const char *hex);

/* @m under the path component @key (or index @i when @key is NULL). */
static void walk_member(struct walk *w, const char *key, size_t i, json_t *m, const char *hex)
{
	unsigned int d = w->s.depth;

	if (d == SINK_DEPTH)
		return;
	if (!key) {
		snprintf(w->idx[d], sizeof(w->idx[d]), "%zu", i);
		key = w->idx[d];
	}
	w->s.path[d] = key;
	w->s.depth = d + 1;
	walk(w, m, hex);
	w->s.depth = d;
}

static void walk(struct walk *w, json_t *v, const char *hex)
{
	char buf[32], name[64];
	const char *key;
	json_t *m, *e, *twin;
	size_t i;

	w->s.string = false;
	w->s.exact = true;
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		json_object_foreach(v, key, m) {
			snprintf(name, sizeof(name), "%s_hex", key);
			twin = json_object_get(v, name);
			if (json_is_array(m)) {
				unsigned int d = w->s.depth;

				if (d == SINK_DEPTH)
					continue;
				w->s.path[d] = key;
				w->s.depth = d + 1;
				json_array_foreach(m, i, e)
					walk_member(w, NULL, i, e, json_string_value(json_array_get(twin, i)));
				w->s.depth = d;
				continue;
			}
			walk_member(w, key, 0, m, json_is_string(m) ? json_string_value(twin) : NULL);
		}
		return;
	case JSON_ARRAY:
		json_array_foreach(v, i, m)
			walk_member(w, NULL, i, m, NULL);
		return;
	case JSON_STRING:
		w->s.string = true;
		w->s.text = json_string_value(v);
		w->s.text_len = json_string_length(v);
		w->s.bytes = w->s.text;
		w->s.bytes_len = w->s.text_len;
		if (hex) {
			hex_decode(&w->raw, hex);
			w->s.bytes = w->raw.buf ? w->raw.buf : "";
			w->s.bytes_len = w->raw.len;
			w->s.exact = false;
		}
		break;
	case JSON_INTEGER:
		snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		goto number;
	case JSON_REAL:
		snprintf(buf, sizeof(buf), "%.17g", json_real_value(v));
number:
		w->s.text = w->s.bytes = buf;
		w->s.text_len = w->s.bytes_len = strlen(buf);
		break;
	case JSON_TRUE:
		w->s.text = w->s.bytes = "true";
		w->s.text_len = w->s.bytes_len = 4;
		break;
	case JSON_FALSE:
		w->s.text = w->s.bytes = "false";
		w->s.text_len = w->s.bytes_len = 5;
		break;
	case JSON_NULL:
		return;
	}
	w->fn(w->ctx, &w->s);
}

void sink__walk(json_t *root, void (*fn)(void *ctx, const struct sink_scalar *s), void *ctx)
{
	struct walk w = { .fn = fn, .ctx = ctx };

	if (root)
		walk(&w, root, NULL);
	sbuf__free(&w.raw);
}
