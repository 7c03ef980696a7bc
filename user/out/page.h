/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * --html FILE: a recording (or a live run) as one self-contained page: a
 * lane per process from its birth to its exit, grouped by session and
 * process group, with the moves, escapes, signals and foreground changes
 * marked, a time cursor that draws the tree as it was then, and each
 * process's details.
 *
 * Two feeds: page__observe() after each record has changed the model (the
 * processes' parents, groups, sessions, ttys and foreground groups, read
 * from the model itself, so that the tree at a time is --at's), and the
 * page sink, which gets the typed records as they are written (the marks,
 * their words, and each exit's cause). The page holds the data as JSON in
 * a script element of its own type, every '<' escaped; its script puts
 * names on the page as text, never as markup.
 */
#ifndef __PAGE_H
#define __PAGE_H

#include <stdio.h>
#include <linux/types.h>
#include "host.h"
#include "model.h"
#include "sink.h"

struct page;

/* @login: only that login's processes (a pid or an entity id), or NULL. NULL when out of memory. */
struct page *page__new(const char *login);
void page__free(struct page *pg);
/*
 * A span of a recording (--from, --to): records count only from
 * page__begin() to page__stop().
 */
void page__span(struct page *pg);
/* The processes @m holds at @now_ns: where the page starts. */
void page__begin(struct page *pg, const struct model *m, __u64 now_ns);
/* The page ends at @now_ns. */
void page__stop(struct page *pg, __u64 now_ns);
/* After @ev changed @m (a pipeline observer: @ctx is the page). */
void page__observe(void *ctx, const struct model *m, const struct pgt_event *ev);
/*
 * The page, to @f, up to @end_ns (0: the last record's time). Returns 0,
 * -ESRCH when --login names no login the records saw, or -errno.
 */
int page__write(struct page *pg, FILE *f, const struct host_id *host, __s64 boot_to_real_ns,
		__u64 end_ns);

extern const struct sink_ops page_sink;

#endif /* __PAGE_H */
