/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One run's wiring, live or a --replay: the model, the outputs and their
 * sinks, the pipeline and its callbacks to the outputs, and their ends.
 * trace.c drives it.
 */
#ifndef __SESSION_H
#define __SESSION_H

#include <stdbool.h>
#include <linux/types.h>
#include "command.h"
#include "host.h"
#include "intake.h"
#include "loader.h"
#include "losses.h"
#include "model.h"
#include "opts.h"
#include "output.h"
#include "pipeline.h"
#include "recording.h"

struct explain;
struct exporter;
struct page;
struct journal;
struct syslog;
struct tui;

struct tracer {
	const struct opts *opts;
	struct loader loader;
	struct output *out;
	struct intake in; /* the records' way in */
	struct model *model;
	bool print_events;     /* the event stream is the output */
	bool filtering;	       /* the BPF side reports traced tgids only */
	struct sbuf last_tree; /* the last tree drawn */
	bool utf8;	       /* box glyphs: a UTF-8 terminal, no --ascii */
	struct pipeline pl;    /* every record goes through it */
	bool print_escapes;    /* escapes go to the output */
	struct losses losses;
	unsigned int verify_diffs;  /* differences found by all checks */
	bool need_resync;	    /* events were lost: re-read the machine */
	struct command cmd;	    /* the command; .pid 0 if none */
	struct lineage *child_line; /* with a command: its lineage link (held) */
	struct rec_writer record;   /* --record, when .f is set */
	struct host_id host;	    /* the traced machine (a replay: the recorded one) */
	struct journal *journal;    /* --journal, NULL without */
	struct syslog *syslog;	    /* --syslog, NULL without */
	struct explain *explain;    /* --explain, NULL without */
	struct page *page;	    /* --html, NULL without */
	struct exporter *exporter;  /* --metrics, NULL without */
	bool full_screen;	    /* --tree on a terminal */
	struct tui *tui;	    /* its view, NULL otherwise */
	__u64 zombies_checked_ns;   /* last audit_zombies() */
};

/* What a run needs before its first record: locale, boot id, model, outputs, pipeline. */
int session__open(struct tracer *s, const struct output_cfg *ocfg);
/* Write what is due: every record before the first of a signal cause still open. */
int session__flush(struct tracer *s);
/* --escapes with a command: where every descendant still alive is now. */
void session__survivors(struct tracer *s);
/* The last output, and what went wrong on the way: @ret, or 1 for a partial result. */
int session__end_report(struct tracer *s, int ret);
/*
 * Everything a run holds, released whatever stopped it; @ret, or 1 if the
 * recording or an output lost records. @stop: the stop signal's flag, for
 * reaping the command.
 */
int session__close(struct tracer *s, int ret, const volatile sig_atomic_t *stop);

#endif /* __SESSION_H */
