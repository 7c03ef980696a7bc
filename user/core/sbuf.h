/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* A growable byte buffer, and the escaping of untrusted strings into it. */
#ifndef __SBUF_H
#define __SBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

struct sbuf {
	char *buf;
	size_t len;
	size_t cap;
	bool oom; /* an allocation failed: the contents are incomplete */
};

void sbuf__reset(struct sbuf *sb);
/* Empties @sb, and gives back what it grew past @keep (> 0) bytes. */
void sbuf__shrink(struct sbuf *sb, size_t keep);
void sbuf__free(struct sbuf *sb);
bool sbuf__grow(struct sbuf *sb, size_t extra);
void sbuf__put_slow(struct sbuf *sb, const void *data, size_t len);

/* Appends keep the buffer NUL-terminated; the room check is inline. */
static inline void sbuf__put(struct sbuf *sb, const void *data, size_t len)
{
	if (sb->len + len + 1 > sb->cap || !len) {
		sbuf__put_slow(sb, data, len);
		return;
	}
	memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
}

static inline void sbuf__putc(struct sbuf *sb, char c)
{
	sbuf__put(sb, &c, 1);
}

static inline void sbuf__puts(struct sbuf *sb, const char *s)
{
	sbuf__put(sb, s, strlen(s));
}
void sbuf__printf(struct sbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Decimal numbers, without printf. */
void sbuf__put_u64(struct sbuf *sb, unsigned long long v);
void sbuf__put_s64(struct sbuf *sb, long long v);

/* Length of the valid UTF-8 sequence at @s (at most @n bytes), 0 if invalid. */
size_t utf8__seq_len(const unsigned char *s, size_t n);
/* Terminal columns of the valid sequence of @len bytes at @s (wcwidth() of UTF-8). */
int utf8__width(const unsigned char *s, size_t len);

/* strnlen() for fixed-size kernel strings that may lack their NUL. */
size_t str__len(const char *s, size_t max);

/*
 * Text mode: one line, never a control byte. Printable ASCII and valid UTF-8
 * pass; a backslash becomes "\\"; control bytes, DEL, C1 controls, invisible
 * and bidi code points (U+202E, U+2028, ...) and invalid UTF-8 become "\xNN"
 * for each byte. The mapping is reversible. Returns the terminal columns
 * written, for padding.
 */
size_t sbuf__put_text(struct sbuf *sb, const char *s, size_t max);

/*
 * JSON: a quoted, valid JSON string. Control characters, and invisible and
 * bidi code points (as "\uXXXX"), are escaped; bytes that are not valid
 * UTF-8 become U+FFFD. Returns true if any byte was
 * replaced, so that the caller can add the raw bytes in hex.
 */
bool sbuf__put_json_str(struct sbuf *sb, const char *s, size_t max);

/* A run of untrusted bytes, not NUL-terminated (an argument of an exec). */
struct span {
	const char *s;
	size_t len;
};

/* The bytes of @s in lowercase hex, quoted. */
/* @len bytes at @data in lower-case hex, two digits a byte. */
void sbuf__put_hex(struct sbuf *sb, const void *data, size_t len);
void sbuf__put_json_hex(struct sbuf *sb, const char *s, size_t max);

#endif /* __SBUF_H */
