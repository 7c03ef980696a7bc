/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* A growable byte buffer, and the escaping of untrusted strings into it. */
#ifndef __SBUF_H
#define __SBUF_H

#include <stdbool.h>
#include <stddef.h>

struct sbuf {
	char *buf;
	size_t len;
	size_t cap;
	bool oom;	/* an allocation failed: the contents are incomplete */
};

void sbuf__reset(struct sbuf *sb);
void sbuf__free(struct sbuf *sb);
void sbuf__put(struct sbuf *sb, const void *data, size_t len);
void sbuf__putc(struct sbuf *sb, char c);
void sbuf__puts(struct sbuf *sb, const char *s);
void sbuf__printf(struct sbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Length of the valid UTF-8 sequence at @s (at most @n bytes), 0 if invalid. */
size_t utf8__seq_len(const unsigned char *s, size_t n);

/* strnlen() for fixed-size kernel strings that may lack their NUL. */
size_t str__len(const char *s, size_t max);

/*
 * Text mode: one line, never a control byte. Printable ASCII and valid UTF-8
 * pass; a backslash becomes "\\"; control bytes, DEL, C1 controls and invalid
 * UTF-8 become "\xNN" for each byte. The mapping is reversible.
 */
void sbuf__put_text(struct sbuf *sb, const char *s, size_t max);

/*
 * JSON: a quoted, valid JSON string. Control characters are escaped; bytes
 * that are not valid UTF-8 become U+FFFD. Returns true if any byte was
 * replaced, so that the caller can add the raw bytes in hex.
 */
bool sbuf__put_json_str(struct sbuf *sb, const char *s, size_t max);

/* The bytes of @s in lowercase hex, quoted. */
void sbuf__put_json_hex(struct sbuf *sb, const char *s, size_t max);

#endif /* __SBUF_H */
