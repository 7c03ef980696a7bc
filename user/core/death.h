/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Why a process died: an exit record's cause. The kernel side keeps the
 * fatal signal's generation until the exit (struct pgt_death); user space
 * names the mechanism, and joins the exit to the signal record that carried
 * it, written before it, for its seq and for its sender as it was then.
 */
#ifndef __DEATH_H
#define __DEATH_H

#include <stdbool.h>
#include <linux/types.h>
#include "pgrptrace.h"

struct record;
struct model;

enum death_mech {
	DEATH_EXIT = 0,	    /* it ended by itself */
	DEATH_KILL,	    /* a process sent the signal (itself too: abort(3), raise(3)) */
	DEATH_TTY,	    /* ^C, ^\ through the line discipline, or TIOCSIG */
	DEATH_HANGUP,	    /* the tty hung up, or its session leader exited or let go of it */
	DEATH_ORPHANED,	    /* SIGHUP to a newly orphaned group with stopped members */
	DEATH_PARENT_DEATH, /* PR_SET_PDEATHSIG */
	DEATH_OOM,
	DEATH_CGROUP_KILL,
	DEATH_BROKEN_PIPE,
	DEATH_FAULT,
	DEATH_RLIMIT,
	DEATH_KERNEL,  /* the kernel's own signal of no kind above (a pid namespace's end) */
	DEATH_UNKNOWN, /* a fatal signal whose generation was not seen */
	DEATH_MECHS,
};

/* An exit record's cause, filled when its turn comes (deaths__exit()). */
struct death_cause {
	bool set;
	enum death_mech mech;
	int sig;  /* 0 for DEATH_EXIT */
	int code; /* si_code, where the generation was seen */
	bool has_seq;
	__u64 signal_seq;
	const char *why;     /* unknown: why; no signal_seq: why not */
	bool has_sender;     /* the process that sent it; its view is the record's views[1] */
	bool sender_partial; /* gone before it was known: its pid and start only */
	struct pgt_proc sender;
	__u32 tty_nr;
	char tty[PGT_TTY_LEN];
	__u32 memcg_level; /* oom: the memory cgroup at its limit, its depth; 0: global */
	bool memcg_v2;	   /* ... in the unified hierarchy: a prefix of the process's path */
};

const char *death__mech_name(enum death_mech m);
/* The si_code's name for @sig: "SEGV_MAPERR", "SI_USER", "SI_TKILL"; NULL when unnamed. */
const char *death__code_name(int sig, int code);
/* The key a tty's special character is for @sig: "^C", "^\\", "^Z"; NULL for none. */
const char *death__key(int sig);
/* The first @level parts of cgroup @path into @buf: "/a/b" of "/a/b/c" for 2. */
const char *death__cgroup_prefix(const char *path, unsigned int level, char *buf, size_t len);

/*
 * How @e ended, as its own record says (its death block), without the
 * signal record: DEATH_UNKNOWN where the generation was not seen.
 */
enum death_mech death__kernel_mech(const struct pgt_exit *e);
/* Whether a process sent the signal of mechanism @m (kill, tty, hangup, ...). */
bool death__sent(enum death_mech m);

/* The fatal signal records written, for the exits that follow them. */
struct deaths;

struct deaths *deaths__new(void);
void deaths__free(struct deaths *d);
/* A signal record written, @r->seq set: its fatal deliveries are remembered. */
void deaths__signal(struct deaths *d, const struct record *r);
/*
 * An exit record's turn, its seq set: its cause into @r->death, and the
 * signal record's view of the sender into @r->views[1] where it was
 * written.
 */
void deaths__exit(struct deaths *d, struct record *r);

#endif /* __DEATH_H */
