/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Command-line options. */
#ifndef __OPTS_H
#define __OPTS_H

#include <stdbool.h>
#include <linux/types.h>
#include "expect.h"
#include "fate.h"
#include "filter.h"
#include "privs.h"

/* pgrptrace's own failure when it runs a command (timeout(1)'s and env(1)'s). */
#define PGT_EXIT_OWN_FAILURE 125

struct opts {
	bool json; /* JSON Lines instead of text */
	bool ecs;  /* --ecs: JSON Lines as ECS documents */
	bool ecs8; /* --ecs-version 8.11: ECS 8.11's documents */
	bool ecs_version_set;
	bool utc;		/* text times in UTC */
	bool all;		/* with a command: trace the whole machine */
	int verbose;		/* -v count */
	const char *output;	/* -o FILE, NULL for stdout */
	const char *btf_path;	/* --btf FILE */
	int pid;		/* -p PID, 0 if unset */
	__u64 duration_ms;	/* -d SECS, 0 if unset */
	__u32 ringbuf_bytes;	/* --ringbuf-size */
	char **cmd;		/* -- CMD ARGS..., NULL if unset */
	bool snapshot;		/* print the tree once and exit */
	bool tree;		/* live tree */
	bool verify;		/* compare the model with /proc */
	__u32 signal_mode;	/* --signals: 0 none, 1 group, 2 all */
	bool signals_set;	/* --signals was given */
	bool escapes;		/* --escapes: only escapes, and the survivors */
	bool ascii;		/* tree glyphs in ASCII */
	__u64 interval_ms;	/* live tree refresh */
	bool interval_set;	/* -i given */
	bool kthreads;		/* --kernel-threads */
	int color;		/* --color: 0 auto, 1 always, 2 never */
	struct filter filter;	/* --uid, --tty, --session, --comm, --event */
	bool check;		/* --check: what this kernel offers, no tracing */
	const char *record;	/* --record FILE: the raw records, for --replay */
	const char *metrics;	/* --metrics [ADDR:]PORT */
	__u64 checkpoint_every; /* --checkpoint-every: bytes of records between checkpoints */
	bool has_checkpoint_every;
	const char *replay;	     /* --replay FILE: process a recording, no BPF */
	const char *expected_path;   /* --expected FILE */
	struct expect_list expected; /* its rules, read at parse time */
	bool journal;		     /* --journal */
	bool syslog;		     /* --syslog */
	const char *syslog_target;   /* its TARGET, NULL for /dev/log */
	int syslog_facility;	     /* --syslog-facility, daemon by default */
	bool syslog_facility_set;
	size_t syslog_queue; /* --syslog-queue, 0 for the default */
	size_t output_queue; /* --output-queue, 0 for the default */
	const char *explain; /* --explain PID|ENTITY_ID */
	const char *html;    /* --html FILE: the page */
	const char *login;   /* --login: the page's login, a pid or an entity id */
	const char *fate;    /* --fate WHAT, parsed into fate_what */
	struct fate_what fate_what;
	const char *at;		/* --at TIME, with --replay */
	const char *from, *to;	/* --from, --to: the span of --html's page of a recording */
	const char *diff[2];	/* --diff T1 T2, with --replay */
	bool contain;		/* --contain: end the command's descent at its end */
	__u64 contain_grace_ms; /* --contain-grace: SIGTERM, then SIGKILL after this */
	bool contain_grace_set;
	__u64 logout_grace_ms;	/* --logout-grace: a login's report this long after its end */
	bool has_user;		/* --user USER */
	struct privs_user user; /* who to become once attached */
};

/* Parses argv into @o; exits 2 with a message on a usage error. */
void opts__parse(int argc, char **argv, struct opts *o);

#endif /* __OPTS_H */
