/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * --fate: what an event would do to each process it reaches, without
 * sending anything. The kernel's rules, step by step as the kernel takes
 * them (a hangup signals the session's leader; the leader's exit signals
 * the foreground group; an exit that orphans a group with stopped members
 * sends it SIGHUP and SIGCONT; each delivery acts by the process's
 * disposition), and apart from them an interactive bash's or zsh's own
 * habit of passing a hangup on to its jobs.
 */
#ifndef __FATE_H
#define __FATE_H

#include <stdbool.h>
#include <linux/types.h>
#include "model.h"

enum fate_kind {
	FATE_WHAT_HANGUP = 1, /* hangup:TTY: the terminal goes away */
	FATE_WHAT_LOGOUT,     /* logout:PID: that (entry) leader exits */
	FATE_WHAT_KILL,	      /* kill:-PGID:SIGNAL */
};

struct fate_what {
	enum fate_kind kind;
	char tty[PGT_TTY_LEN]; /* hangup: "pts/3" */
	__u32 pid;	       /* logout: the leader; kill: the group */
	int sig;	       /* kill */
};

/* "hangup:pts/3", "logout:4242", "kill:-4250:TERM": 0, or -1 with what is wrong in @why. */
int fate__parse(const char *arg, struct fate_what *w, const char **why);

enum fate_outcome {
	OUTCOME_NONE = 0, /* nothing of that kind reaches it */
	OUTCOME_DIES,
	OUTCOME_SURVIVES,
	OUTCOME_STOPS,
	OUTCOME_CONTINUES,
};

const char *fate__outcome_name(enum fate_outcome o);

/* A process's signal state, as /proc/PID/status and stat show it. */
struct fate_sigs {
	__u64 ignored, caught; /* SigIgn, SigCgt: bit N-1 for signal N */
	__u64 blocked;	       /* SigBlk of every thread: blocked in all of them */
	bool stopped;	       /* state T */
};

struct fate_io {
	/* 0, or -errno (a process gone: left out). */
	int (*read_sigs)(pid_t pid, struct fate_sigs *s);
};

/* One step's verdict on a process. */
struct fate_step {
	enum fate_outcome outcome;
	char reason[200];
};

struct fate_proc {
	const struct mproc *p;
	struct fate_sigs sigs;
	bool read;		 /* sigs read */
	bool dying;		 /* a step predicts its death */
	bool exit_done;		 /* its exit's effects are taken */
	struct fate_step kernel; /* what the kernel's rules do (OUTCOME_NONE: nothing) */
	struct fate_step shell;	 /* what a shell's habit does */
	__u32 shell_pid;	 /* the shell whose habit that is */
	char shell_name[PGT_COMM_LEN];
	struct fate_step why_not; /* listed, nothing reaches it: why (escaped, other group) */
};

struct fate_report {
	struct fate_what what;
	__u32 sid, leader, fg_pgid; /* hangup, logout: the session, its leader, its foreground */
	bool pty;		    /* the tty is a pseudo-terminal */
	unsigned int nr;
	struct fate_proc *procs; /* the processes listed: the session's, the group's, escapees */
};

/*
 * The report for @w on @m as it is now; @io reads each process's signal
 * state. Returns 0, or -ESRCH (no such tty, leader or group; said in
 * @why), or -ENOMEM.
 */
int fate__predict(const struct model *m, const struct fate_io *io, const struct fate_what *w,
		  struct fate_report *r, const char **why);
/* The outcome that stands: the kernel's, else the shell's, else survives. */
enum fate_outcome fate__final(const struct fate_proc *fp, const char **reason, const char **by);
void fate__free(struct fate_report *r);

#endif /* __FATE_H */
