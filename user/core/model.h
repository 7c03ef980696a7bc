/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The live model: every session, process group and process on the machine,
 * updated by small named transitions, one per event. No output code here.
 *
 * A process is identified by (pid, start time). At any moment a pid names at
 * most one process that is alive or a zombie, so the table is indexed by pid,
 * and a different start time under the same pid means the old process was
 * reaped unseen and the pid reused.
 */
#ifndef __MODEL_H
#define __MODEL_H

#include <stdbool.h>
#include <sys/types.h>
#include <linux/types.h>
#include "decode.h"

#include "lineage.h"

struct mproc {
	/*
	 * The process as its last context showed it (an event's or the
	 * snapshot's): ctx.pid is the hash key, (ctx.pid, ctx.start_ns) its
	 * identity. proc_update() in model.c is the one place that writes it.
	 */
	struct pgt_proc ctx;
	bool zombie;		 /* exited, not yet reaped */
	__u32 start_tick_ns;	 /* start time from /proc, to this clock tick; 0: exact */
	__u32 exit_status;	 /* raw, valid when zombie */
	__u32 adopted_from;	 /* parent before the last reparent, 0 if none */
	__u32 predicted_ppid;	 /* reparent awaiting confirmation, 0 if none */
	__u64 updated_ns;	 /* boot time of the last update */
	struct lineage *lineage; /* this process's own link */
	struct lineage *entry;	 /* its login's entry leader, NULL if none */
	/*
	 * entry was read from the process tree at the snapshot (or after lost
	 * records), or inherited from a parent whose entry was: a process that
	 * had left its login before cannot be tied to it. False when the
	 * login's start, or the process's birth into it, was seen.
	 */
	bool entry_inferred;
	struct pcgroup *cg;	   /* its cgroup, NULL if unknown */
	__u32 born_sid, born_pgid; /* where it was born (or first seen, or put as a job) */
	bool uncertain;		   /* corrected by a resync after lost events */
	bool seen;		   /* in the snapshot being taken */
};

struct msession {
	__u32 sid; /* hash key */
	__u32 members;
	__u32 tty_nr;	    /* controlling tty, 0 if none */
	__u32 released_tty; /* lost for the whole session: contexts still
				   showing it were read before the kernel
				   cleared it */
	char tty[PGT_TTY_LEN];
	__u64 leader_start_ns; /* the leader's start, kept after it exits; 0 if unseen */
};

struct mtty {
	__u32 tty_nr;  /* hash key */
	__u32 sid;     /* session it controls */
	__u32 fg_pgid; /* foreground process group */
	char name[PGT_TTY_LEN];
};

/* Something the model noticed while applying an event. */
enum model_note_kind {
	NOTE_REPARENT_MISMATCH = 1, /* the kernel chose another parent */
	NOTE_RESYNC_ADDED,	    /* a resync found a process the model missed */
	NOTE_RESYNC_CHANGED,	    /* a resync corrected a process */
	NOTE_RESYNC_REMOVED,	    /* a resync found a process gone */
	NOTE_ZOMBIE_GONE,	    /* a zombie /proc no longer has, its reap unseen */
};

struct model_note {
	enum model_note_kind kind;
	__u32 pid;
	__u32 expected; /* predicted ppid */
	__u32 actual;	/* observed ppid */
};

typedef void (*model_note_fn)(void *ctx, const struct model_note *note);
/* A process as /proc/PID/stat shows it: what the model asks of it. */
struct model_stat {
	__u32 ppid;
	__u32 flags;			/* PF_* */
	unsigned long long start_ticks; /* clock ticks since boot */
	char state;			/* R, S, Z, ... */
};

/*
 * What the model may read of the machine, handed in: it does no I/O of its
 * own. A replay reads nothing (the machine is another); the tests fake it.
 */
struct model_io {
	/* /proc/PID/stat: 0 or -errno. NULL: not read (as a process gone). */
	int (*read_stat)(pid_t pid, struct model_stat *st);
	/* A process's cgroup now, a new reference; NULL: cgroups from records only. */
	struct pcgroup *(*read_cgroup)(pid_t pid);
	long tick_ns; /* /proc's clock tick; 0: USER_HZ's 10 ms */
};
/* Told of each new entry leader, while its process is alive (tracing, not replay). */
typedef void (*model_entry_fn)(void *ctx, struct lineage *entry);

struct model;

struct model *model__new(void);
void model__free(struct model *m);
void model__set_note_fn(struct model *m, model_note_fn fn, void *ctx);
void model__set_io(struct model *m, const struct model_io *io);
void model__set_entry_fn(struct model *m, model_entry_fn fn, void *ctx);
/* Tell the entry hook of every entry leader again (once the snapshot knows what they run). */
void model__announce_entries(struct model *m);

/* One event; unknown types are ignored. */
void model__apply(struct model *m, const struct pgt_event *ev);
/* One snapshot record; call model__snapshot_done() after the last. */
void model__snapshot_add(struct model *m, const struct pgt_snap *rec, bool start_approx);
void model__snapshot_done(struct model *m);
/* Forget everything (before a fresh snapshot). */
void model__clear(struct model *m);
/*
 * After lost events: snapshot records between begin and end correct the
 * model (NOTE_RESYNC_* for each difference), and processes the snapshot did
 * not see are removed. Corrected processes stay marked uncertain.
 */
void model__resync_begin(struct model *m);

/*
 * A reparent is predicted just before the kernel does it; a subreaper can
 * exit or change in between. Confirm predictions older than @age_ns against
 * /proc (the child's ppid now), correcting and noting any mismatch. While
 * /proc still names the exiting parent the prediction stays pending, for at
 * most a second after the child's last event, or 30 s while that parent is
 * still in do_exit (PF_EXITING, not a zombie) (@now_ns 0: no time limit).
 */
void model__confirm_reparents(struct model *m, __u64 now_ns, __u64 age_ns);
/* Predicted reparents still waiting for /proc to agree (a parent still exiting). */
unsigned int model__pending_reparents(const struct model *m);
/*
 * A zombie that /proc no longer has, @age_ns after its exit, was reaped: it
 * is removed with a NOTE_ZOMBIE_GONE, so that the model never keeps a dead
 * process without an event or a check. Its reap record may still come: it
 * is written when the task is freed, an RCU grace period after the reap,
 * which lazy RCU can stretch to seconds. Returns how many were removed.
 */
unsigned int model__audit_zombies(struct model *m, __u64 now_ns, __u64 age_ns);

/*
 * The free that reports a reap (sched_process_free) runs after an RCU grace
 * period, which lazy RCU can stretch to seconds. Remove the zombies /proc no
 * longer shows: they were reaped.
 */
void model__drop_reaped(struct model *m);
void model__resync_end(struct model *m);

struct mproc *model__find(const struct model *m, __u32 pid);
/* The process after @p (the first if @p is NULL), in no order; NULL at the end. */
struct mproc *model__next_proc(const struct model *m, const struct mproc *p);
/* Every process; the loop must not remove any. */
#define model__for_each_proc(m, p) \
	for ((p) = model__next_proc((m), NULL); (p); (p) = model__next_proc((m), (p)))
/* Bumped by every change: a view drawn at one generation is still true. */
__u64 model__generation(const struct model *m);
/* Whether the snapshot being taken already has @pid (a resync), or the model does. */
bool model__snapshot_has(const struct model *m, __u32 pid);
struct msession *model__session(const struct model *m, __u32 sid);
struct mtty *model__tty(const struct model *m, __u32 tty_nr);
unsigned int model__count(const struct model *m);

/* What @p runs, as last seen: NULL if unknown. */
struct image *model__image(const struct mproc *p);
/* Whether @p started its login: it is its own entry leader. */
bool model__is_entry_leader(const struct mproc *p);
/* The leader of session @sid while it is still in it; NULL once it left or is gone. */
const struct mproc *model__session_leader(const struct model *m, __u32 sid);
/* Job control put @p in @pgid: that group is now its home (born_pgid). */
void model__rehome(struct mproc *p, __u32 pgid);
/*
 * What @p runs now (an exec record, or the snapshot's /proc): @exe (NULL if
 * unknown) and @len bytes of its argument vector at @args (NULL if unknown).
 */
void model__set_exec(struct mproc *p, const char *exe, const char *args, size_t len, bool cut);

/*
 * Whether @p started at @start_ns: exactly, or to the clock tick where its
 * start came from /proc (a snapshot without the task iterator).
 */
bool model__same_start(const struct mproc *p, __u64 start_ns);
/* The process @c describes (the same pid and start), or NULL. */
const struct mproc *model__proc_of(const struct model *m, const struct pgt_proc *c);

/*
 * A checkpoint's way back (user/core/checkpoint.c): the sessions and ttys
 * in no order, and a process put back as it was. model__restore() takes
 * over the references in @src (lineage, entry, cg) and joins its session;
 * NULL when out of memory (the references are then dropped).
 */
struct msession *model__next_session(const struct model *m, const struct msession *s);
struct mtty *model__next_tty(const struct model *m, const struct mtty *t);
struct mproc *model__restore(struct model *m, const struct mproc *src);
/* A session's tty fields and a tty, as a checkpoint had them (after the processes). */
void model__restore_session(struct model *m, const struct msession *src);
void model__restore_tty(struct model *m, const struct mtty *src);

/* @p now runs in @cg (a reference taken). */
void model__set_cgroup(struct mproc *p, struct pcgroup *cg);

#endif /* __MODEL_H */
