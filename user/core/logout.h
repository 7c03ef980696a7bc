/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * When a login ends (its entry leader exits) or a command does: what became
 * of every process that descends from it by lineage, wherever it moved, and
 * was alive at that moment. The report is made a grace after the exit, from
 * the records themselves: the exits that came (with the kernel's word on
 * their fatal signal), the SIGHUPs generated for each process, and the
 * escapes each made before.
 */
#ifndef __LOGOUT_H
#define __LOGOUT_H

#include <stdbool.h>
#include <linux/types.h>
#include "death.h"
#include "escape.h"
#include "model.h"
#include "sigmerge.h"

enum fate {
	FATE_HUNG_UP,	     /* a SIGHUP of the logout reached it, and it died of SIGHUP */
	FATE_KILLED,	     /* died of another signal in the window */
	FATE_IGNORED_HANGUP, /* a SIGHUP of the logout reached it; alive (SIG_IGN, handler) */
	FATE_ESCAPED,	     /* escaped before the leader's exit; alive, no SIGHUP */
	FATE_SURVIVED,	     /* alive, no SIGHUP reached it, never escaped */
	FATE_EXITED,	     /* ended on its own in the window */
	FATE_MAX,
};

const char *logout__fate_name(enum fate f);

/* One process of the report. */
struct logout_proc {
	struct pgt_proc proc; /* at the leader's exit; its exit's context if it exited */
	struct image *image;  /* what it ran: a counted reference; NULL if unknown */
	enum fate fate;
	bool exited;		 /* its exit came in the window */
	bool gone;		 /* ... or it left the model without one (a record lost) */
	__u32 status;		 /* the exit's raw status */
	enum death_mech mech;	 /* the exit's mechanism, as the kernel's death block says */
	__u32 sender_pid;	 /* the fatal signal's sender, 0: none or the kernel */
	__u64 exit_key;		 /* the exit record's kernel seq */
	__u64 exit_ns;		 /* ... and its time */
	bool hup, hup_ignored;	 /* a SIGHUP of the logout reached it; the kernel ignored it */
	__u32 hup_sender;	 /* who sent it */
	enum escape_kind escape; /* its first escape before the leader's exit, 0: none */
	/* Set as the report is written: the seqs of its exit and escape records. */
	bool has_exit_seq, has_escape_seq;
	__u64 exit_seq, escape_seq;
};

struct logout {
	bool command;		/* a command's descent (pgrptrace -- CMD), not a login's */
	struct pgt_proc leader; /* the entry leader (or the command) at its exit */
	__u32 leader_status;
	__u64 start_ns, end_ns; /* the leader's start and exit (boot time) */
	__u64 exit_key;		/* the leader's exit record's kernel seq */
	bool has_exit_seq;
	__u64 exit_seq;
	__u64 hup_from_ns; /* SIGHUPs count from here: the leader's own, else its exit */
	__u64 made_ns;	   /* when the report was made */
	unsigned int counts[FATE_MAX];
	unsigned int nr;
	struct logout_proc *procs; /* each with its image reference */
	/* The leader's, borrowed for the callback: its link, its login, what it ran, its cgroup. */
	struct lineage *line, *entry;
	struct image *image;
	struct pcgroup *cg;
};

/* A report, ready; the callee takes references of what it keeps. */
typedef void (*logout_fn)(void *ctx, const struct logout *lo);

struct logout_open;
struct logout_hup;
struct logout_esc;
struct logout_exit;

struct logouts {
	logout_fn fn;
	void *ctx;
	__u64 grace_ns;
	struct lineage *command; /* the command's link, whose exit is reported too; NULL */
	struct logout_open *open;
	struct logout_hup *hups; /* the last SIGHUP generated for each process */
	struct logout_esc *escs; /* the first escape of each process alive */
	/*
	 * The latest exits of processes of a login: a shell passes a hangup on
	 * to its jobs before it exits, and they may die first.
	 */
	struct logout_exit *exits;
	unsigned int exits_at, nexits;
	__u64 pruned_ns;
};

/* Logins end with a report @grace_ns after their leader's exit. */
void logouts__init(struct logouts *lo, logout_fn fn, void *ctx, __u64 grace_ns);
/* The command's link (a reference taken): its exit is reported as a login's. */
void logouts__watch(struct logouts *lo, struct lineage *command);
/* After the model applied @ev. */
void logouts__event(struct logouts *lo, const struct model *m, const struct pgt_event *ev);
/* A whole signal cause (@m: its recipients' start times). */
void logouts__signal(struct logouts *lo, const struct model *m, const struct sig_cause *c);
void logouts__escape(struct logouts *lo, const struct escape *e);
/* The reports due by @now_ns (boot time); all of them if 0. */
void logouts__tick(struct logouts *lo, const struct model *m, __u64 now_ns);
void logouts__free(struct logouts *lo);

#endif /* __LOGOUT_H */
