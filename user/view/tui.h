/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * --tree on a terminal: the live session tree as a full-screen program
 * (ncurses, the alternate screen), with keys, escapes marked, and a pane of
 * the latest escapes, group signals and tty changes. It takes the records
 * as a message sink (user/sink.h): their JSON tells it the escapes.
 */
#ifndef __TUI_H
#define __TUI_H

#include <stdbool.h>
#include "filter.h"
#include "model.h"
#include "sink.h"

struct tui_cfg {
	const struct model *model;
	const struct filter *filter;	/* --uid, --tty, --session, --comm */
	__u32 pid;			/* -p PID */
	bool kthreads;			/* --kernel-threads */
	int color;			/* 1 colours, 0 none */
	bool ascii;			/* --ascii */
	const char *host;		/* for the title */
	__u64 interval_ms;		/* at most one redraw for model changes per interval */
};

struct tui;

extern const struct sink_ops tui_sink;

/* The view, without the terminal yet (its sink may take records already). */
struct tui *tui__open(const struct tui_cfg *cfg);
/* Takes the terminal (the alternate screen); -1, said why, if it cannot. */
int tui__start(struct tui *t);
/* Gives the terminal back as it was. */
void tui__close(struct tui *t);
void tui__free(struct tui *t);
/* Reads the keys pressed; returns true once the user asked to quit. */
bool tui__keys(struct tui *t);
/* Redraws what changed: the model (at most once per interval), a key, a resize. */
void tui__draw(struct tui *t, __u64 now_ns);

#endif /* __TUI_H */
