/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * --tree on a terminal: the live session tree as a full-screen program
 * (ncurses, the alternate screen), with keys, escapes marked, and a pane of
 * the latest escapes, group signals and tty changes. It takes them from the
 * pipeline's callbacks as the session passes them on, each with a short
 * line of its own for the pane; the model tells it the rest.
 */
#ifndef __TUI_H
#define __TUI_H

#include <stdbool.h>
#include "filter.h"
#include "model.h"
#include "decode.h"
#include "escape.h"
#include "record.h"
#include "sigmerge.h"

struct tui_cfg {
	const struct model *model;
	const struct filter *filter; /* --uid, --tty, --session, --comm */
	__u32 pid;		     /* -p PID */
	bool kthreads;		     /* --kernel-threads */
	int color;		     /* 1 colours, 0 none */
	bool ascii;		     /* --ascii */
	const char *host;	     /* for the title */
	__u64 interval_ms;	     /* at most one redraw for model changes per interval */
	__s64 boot_to_real_ns;	     /* the pane's times: CLOCK_REALTIME - CLOCK_BOOTTIME */
	bool utc;		     /* --utc */
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

/* What the pipeline passes on (after the filters): marks, and the pane's lines. */
void tui__event(struct tui *t, const struct pgt_event *ev); /* tty changes */
void tui__signal(struct tui *t, const struct sig_cause *c); /* to groups, sessions, all */
void tui__escape(struct tui *t, const struct escape *e);
/* Records the kernel side could not deliver: the model is read again. */
void tui__lost(struct tui *t, const struct lost_info *li);

#endif /* __TUI_H */
