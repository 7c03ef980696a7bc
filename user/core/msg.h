/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What pgrptrace says to a person, one line at a time: "pgrptrace: " and
 * the message, on standard error, as bpftool's p_err(). While the
 * full-screen view owns the terminal it takes the lines instead
 * (msg__redirect()), and says them once the screen is given back.
 */
#ifndef __MSG_H
#define __MSG_H

/* One line: "pgrptrace: " @fmt ... "\n". */
void p_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Where the lines go: @fn(@ctx, the message without "pgrptrace: "); NULL: standard error. */
typedef void (*msg_fn)(void *ctx, const char *line);
void msg__redirect(msg_fn fn, void *ctx);

#endif /* __MSG_H */
