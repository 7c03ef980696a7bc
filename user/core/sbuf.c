// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include "sbuf.h"

bool sbuf__grow(struct sbuf *sb, size_t extra)
{
	size_t cap = sb->cap ? sb->cap : 512;
	char *nb;

	if (sb->oom)
		return false;
	if (sb->len + extra + 1 <= sb->cap)
		return true;
	while (cap < sb->len + extra + 1)
		cap *= 2;
	nb = realloc(sb->buf, cap);
	if (!nb) {
		sb->oom = true;
		return false;
	}
	sb->buf = nb;
	sb->cap = cap;
	return true;
}

void sbuf__reset(struct sbuf *sb)
{
	sb->len = 0;
	sb->oom = false;
	if (sb->buf)
		sb->buf[0] = '\0';
}

void sbuf__shrink(struct sbuf *sb, size_t keep)
{
	char *nb;

	sbuf__reset(sb);
	if (sb->cap <= keep)
		return;
	nb = realloc(sb->buf, keep);
	if (!nb)
		return; /* it keeps the larger one */
	sb->buf = nb;
	sb->cap = keep;
}

void sbuf__free(struct sbuf *sb)
{
	free(sb->buf);
	memset(sb, 0, sizeof(*sb));
}

void sbuf__put_slow(struct sbuf *sb, const void *data, size_t len)
{
	if (!sbuf__grow(sb, len))
		return;
	if (len) /* an empty buffer's data may be NULL */
		memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
}

/* Formats once into the spare room; only a line that does not fit is formatted twice. */
void sbuf__printf(struct sbuf *sb, const char *fmt, ...)
{
	size_t room;
	va_list ap;
	int n;

	if (!sbuf__grow(sb, 128))
		return;
	room = sb->cap - sb->len;
	va_start(ap, fmt);
	n = vsnprintf(sb->buf + sb->len, room, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= room) {
		if (!sbuf__grow(sb, (size_t)n))
			return;
		va_start(ap, fmt);
		vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	sb->len += (size_t)n;
}

void sbuf__put_u64(struct sbuf *sb, unsigned long long v)
{
	static const char pairs[] = "00010203040506070809101112131415161718192021222324"
				    "25262728293031323334353637383940414243444546474849"
				    "50515253545556575859606162636465666768697071727374"
				    "75767778798081828384858687888990919293949596979899";
	char tmp[20];
	size_t i = sizeof(tmp);

	while (v >= 100) {
		unsigned int d = (unsigned int)(v % 100) * 2;

		v /= 100;
		tmp[--i] = pairs[d + 1];
		tmp[--i] = pairs[d];
	}
	if (v >= 10) {
		tmp[--i] = pairs[v * 2 + 1];
		tmp[--i] = pairs[v * 2];
	} else {
		tmp[--i] = (char)('0' + v);
	}
	sbuf__put(sb, tmp + i, sizeof(tmp) - i);
}

void sbuf__put_s64(struct sbuf *sb, long long v)
{
	if (v < 0) {
		sbuf__putc(sb, '-');
		sbuf__put_u64(sb, 0ULL - (unsigned long long)v);
		return;
	}
	sbuf__put_u64(sb, (unsigned long long)v);
}

size_t str__len(const char *s, size_t max)
{
	return strnlen(s, max);
}

size_t utf8__seq_len(const unsigned char *s, size_t n)
{
	unsigned int cp;
	size_t len, i;

	if (n == 0)
		return 0;
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	/* Overlong forms, UTF-16 surrogates and code points past U+10FFFF. */
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

/* The code point of a valid sequence of @len bytes. */
static unsigned int utf8_cp(const unsigned char *s, size_t len)
{
	static const unsigned char lead_mask[] = { 0, 0x7f, 0x1f, 0x0f, 0x07 };
	unsigned int cp = s[0] & lead_mask[len];
	size_t i;

	for (i = 1; i < len; i++)
		cp = (cp << 6) | (s[i] & 0x3f);
	return cp;
}

/*
 * Code points that change how a line reads without being seen: bidi
 * marks, embeddings, overrides and isolates (U+202E turns "exe.txt" into
 * "txt.exe"), line and paragraph separators, zero-width and invisible
 * operators, the BOM, interlinear annotations.
 */
static bool cp_invisible(unsigned int cp)
{
	return cp == 0x061c || (cp >= 0x200b && cp <= 0x200f) || (cp >= 0x2028 && cp <= 0x202e) ||
	       (cp >= 0x2060 && cp <= 0x206f) || cp == 0xfeff || (cp >= 0xfff9 && cp <= 0xfffb);
}

/* Terminal columns of a printable code point: wcwidth() of a UTF-8 locale. */
static int cp_width(unsigned int cp)
{
	static locale_t utf8;
	static bool tried;
	locale_t old;
	int w;

	if (!tried) {
		tried = true;
		utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
	}
	if (!utf8)
		return 1;
	old = uselocale(utf8);
	w = wcwidth((wchar_t)cp);
	uselocale(old);
	return w < 0 ? 1 : w;
}

int utf8__width(const unsigned char *s, size_t len)
{
	return len == 1 ? 1 : cp_width(utf8_cp(s, len));
}

size_t sbuf__put_text(struct sbuf *sb, const char *str, size_t max)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = str__len(str, max), i = 0, l, k, cols = 0;

	while (i < n) {
		l = utf8__seq_len(s + i, n - i);
		/* C1 controls (U+0080..U+009F) act as escapes on some terminals. */
		if (l == 2 && s[i] == 0xc2 && s[i + 1] < 0xa0)
			l = 0;
		if (l > 1 && cp_invisible(utf8_cp(s + i, l))) {
			for (k = 0; k < l; k++)
				sbuf__printf(sb, "\\x%02x", s[i + k]);
			cols += 4 * l;
		} else if (l == 1 && s[i] == '\\') {
			sbuf__puts(sb, "\\\\");
			cols += 2;
		} else if (l == 1 && (s[i] < 0x20 || s[i] == 0x7f)) {
			sbuf__printf(sb, "\\x%02x", s[i]);
			cols += 4;
		} else if (l == 0) {
			sbuf__printf(sb, "\\x%02x", s[i]);
			cols += 4;
			l = 1;
		} else {
			sbuf__put(sb, s + i, l);
			cols += l == 1 ? 1 : (size_t)cp_width(utf8_cp(s + i, l));
		}
		i += l;
	}
	return cols;
}

bool sbuf__put_json_str(struct sbuf *sb, const char *str, size_t max)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = str__len(str, max), i = 0, l;
	bool replaced = false;

	sbuf__putc(sb, '"');
	while (i < n) {
		/* Printable ASCII, the common case, in runs. */
		for (l = i; l < n && s[l] >= 0x20 && s[l] < 0x7f && s[l] != '"' && s[l] != '\\';
		     l++)
			;
		if (l > i) {
			sbuf__put(sb, s + i, l - i);
			i = l;
			continue;
		}
		l = utf8__seq_len(s + i, n - i);
		if (l == 0) {
			sbuf__puts(sb, "\xef\xbf\xbd"); /* U+FFFD */
			replaced = true;
			l = 1;
		} else if (l > 1 && cp_invisible(utf8_cp(s + i, l))) {
			/* The same string to a JSON parser; inert on a terminal. */
			sbuf__printf(sb, "\\u%04x", utf8_cp(s + i, l));
		} else if (l > 1) {
			sbuf__put(sb, s + i, l);
		} else if (s[i] == '"' || s[i] == '\\') {
			sbuf__putc(sb, '\\');
			sbuf__putc(sb, (char)s[i]);
		} else if (s[i] == '\n') {
			sbuf__puts(sb, "\\n");
		} else if (s[i] == '\t') {
			sbuf__puts(sb, "\\t");
		} else if (s[i] == '\r') {
			sbuf__puts(sb, "\\r");
		} else if (s[i] < 0x20 || s[i] == 0x7f) {
			sbuf__printf(sb, "\\u%04x", s[i]);
		} else {
			sbuf__putc(sb, (char)s[i]);
		}
		i += l;
	}
	sbuf__putc(sb, '"');
	return replaced;
}

void sbuf__put_hex(struct sbuf *sb, const void *data, size_t len)
{
	static const char digits[] = "0123456789abcdef";
	const unsigned char *s = data;
	size_t i;

	for (i = 0; i < len; i++) {
		sbuf__putc(sb, digits[s[i] >> 4]);
		sbuf__putc(sb, digits[s[i] & 15]);
	}
}

void sbuf__put_json_hex(struct sbuf *sb, const char *str, size_t max)
{
	sbuf__putc(sb, '"');
	sbuf__put_hex(sb, str, str__len(str, max));
	sbuf__putc(sb, '"');
}
