/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * --metrics ADDR:PORT: GET /metrics over HTTP, served by libmicrohttpd from
 * a thread of its own. The record loop never waits on a client: it hands
 * over a finished page (serve__publish()), which the thread copies under a
 * lock for each request. Bounded: connections, their memory (a long header
 * is refused), their time (a client that never finishes is cut off).
 */
#ifndef __SERVE_H
#define __SERVE_H

#include <stddef.h>

struct server;

/*
 * @where: "PORT", ":PORT" or "HOST:PORT" ("[ADDR]:PORT" for IPv6); a host
 * name must be a numeric address. Loopback (127.0.0.1) unless given.
 * Returns 0, or -1 with why in @why (for the option's check).
 */
int serve__parse(const char *where, char *why, size_t why_len);
/* Listening (bound now: before privileges are dropped), or NULL (said). */
struct server *serve__start(const char *where);
/* The page every request gets from now on: copied. */
void serve__publish(struct server *s, const char *page, size_t len);
void serve__stop(struct server *s);

#endif /* __SERVE_H */
