// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <string.h>
#include "jsonw.h"

void jsonw_init(struct jsonw *w, struct sbuf *sb)
{
	memset(w, 0, sizeof(*w));
	w->sb = sb;
}

static void open_level(struct jsonw *w, char c)
{
	jsonw__sep(w);
	sbuf__putc(w->sb, c);
	/* Deeper than any record goes: the commas of that level are shared. */
	if (w->depth < JSONW_MAX_DEPTH - 1)
		w->depth++;
	w->has_member[w->depth] = false;
}

static void close_level(struct jsonw *w, char c)
{
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

/* "name_hex", the member that carries the raw bytes of an untrusted string. */
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
	jsonw__sep(w);
	sbuf__put(w->sb, json, len);
}
