/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Drawing the model: session -> process group -> process. */
#ifndef __TREE_H
#define __TREE_H

#include <stdbool.h>
#include "filter.h"
#include "model.h"
#include "sbuf.h"

struct tree_opts {
	bool ascii; /* ASCII glyphs instead of UTF-8 box drawing */
	bool json;  /* one JSON document instead of text */
	/* uid, session and comm as filter__proc(); --tty: the sessions on that tty (NULL: all) */
	const struct filter *filter;
	__u32 pid; /* -p PID: that subtree, 0 for all */
};

/*
 * Sessions by their leader's start time, groups by their first member's,
 * processes nested under their parent within the group, siblings by (start
 * time, pid): the same model always draws the same way. Returns the number
 * of processes drawn.
 */
/* Whether @p is drawn under @filter (--tty: whole sessions on it) and -p @pid (0: all). */
bool tree__wanted(const struct model *m, const struct filter *filter, __u32 pid,
		  const struct mproc *p);

/* Whether @pgid is the foreground group of @sid's tty. */
bool tree__is_foreground(const struct model *m, __u32 sid, __u32 pgid);

size_t tree__render(const struct model *m, const struct tree_opts *o, struct sbuf *out);

/*
 * The tree of @m into @out, unless it is what @last (kept) holds: with
 * @clear after the sequence that clears a terminal, with @blank followed by
 * an empty line. @out is left empty when nothing changed. Returns the
 * processes drawn.
 */
size_t tree__redraw(const struct model *m, const struct tree_opts *o, struct sbuf *last, bool clear,
		    bool blank, struct sbuf *out);

#endif /* __TREE_H */
