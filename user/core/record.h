/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A record as the outputs receive it: typed, and complete. It holds what
 * the model knew of its processes when it was made (counted references),
 * so that it can wait for its turn and be formatted later, by each output
 * its own way, with its seq and its cause's seq already known. Nothing is
 * formatted and read back.
 */
#ifndef __RECORD_H
#define __RECORD_H

#include <stdbool.h>
#include <linux/types.h>
#include "death.h"
#include "decode.h"
#include "escape.h"
#include "logout.h"
#include "model.h"
#include "sbuf.h"
#include "sigmerge.h"

enum record_kind {
	RECORD_EVENT = 1, /* a kernel record (or one user space derived from one) */
	RECORD_SIGNAL,	  /* a signal cause, its records merged */
	RECORD_ESCAPE,
	RECORD_SURVIVOR,   /* a process alive at the end of a command */
	RECORD_CORRECTION, /* a process a resync added, corrected or removed */
	RECORD_LOST,
	RECORD_LOGOUT, /* a login or the command ended: its processes' fates */
};

/* Losses seen since the previous lost record. */
struct lost_info {
	__u64 by_type[PGT_TYPE_MAX]; /* failed reserves per record type */
	__u64 total;		     /* events known to be missing */
	__u64 from_ns, to_ns;	     /* boot-time window of the loss */
	/* Or records one output could not take (its queue was full): */
	const char *output;	   /* its name (-o's path, "output"); NULL: the kernel's loss */
	__u64 first_seq, last_seq; /* the seqs it missed, first and last */
};

/* A process's leaders, as a record names them. */
enum leader {
	LEADER_PARENT,
	LEADER_GROUP,
	LEADER_SESSION,
	LEADER_MAX,
};

/*
 * What the model knew of one process of a record: what it ran, its login,
 * its cgroup, and the start times of its leaders (for their entity ids).
 * The pointers are counted references the record holds.
 */
struct proc_view {
	struct image *image;   /* NULL: unknown */
	struct lineage *line;  /* its own link, up to its ancestors; NULL: unknown */
	struct lineage *entry; /* NULL: none, or unknown */
	bool known;	       /* the model knew the process */
	bool entry_inferred;   /* entry read from the tree, not seen */
	struct pcgroup *cg;    /* NULL: unknown */
	/* The entry leader's name and image then: an exec changes its lineage's. */
	char entry_comm[PGT_COMM_LEN];
	struct image *entry_image;
	unsigned int leaders; /* bit per enum leader: its start is known */
	__u64 leader_start[LEADER_MAX];
};

/* What @m knows of @p now (references taken); nothing when @p is NULL. */
void view__take(struct proc_view *v, const struct model *m, const struct pgt_proc *p);
/* @dst, a copy of @src with references of its own. */
void view__copy(struct proc_view *dst, const struct proc_view *src);
void view__put(struct proc_view *v);

/* The entity id of @p's leader @which, if the model knew it. */
bool view__leader_id(const struct proc_view *v, const struct pgt_proc *p, enum leader which,
		     char eid[17]);

struct record {
	enum record_kind kind;
	bool derived;	    /* made from another record, written after it, naming its seq */
	bool has_cause_seq; /* derived: the seq of its cause is known */
	__u64 seq;	    /* its number in the output: set when its turn comes */
	__u64 cause_seq;    /* derived: its cause's seq, if has_cause_seq */
	__u64 ts_ns;	    /* boot time: the kernel record's, or when it was made */
	/* Held: the bytes of this struct kept (up to its kind's member), then the payload's. */
	size_t head;
	size_t payload; /* the event's bytes, the recipients */
	/*
	 * views[0]: the record's process (a signal's sender, an escape's
	 * process); views[1]: a fork's child, a setpgid's target.
	 */
	struct proc_view views[2];
	union {
		struct {
			struct pgt_event ev; /* RECORD_EVENT */
			/* An exit's: the sender as the model knew it, then deaths__exit()'s. */
			struct death_cause death;
		};
		struct sig_cause sig;	   /* RECORD_SIGNAL: rcpt in the payload when held */
		struct escape esc;	   /* RECORD_ESCAPE */
		struct {		   /* RECORD_SURVIVOR, RECORD_CORRECTION */
			struct mproc proc; /* as it was, with its own references */
			bool has_proc;	   /* a correction's process is shown */
			struct model_note note;
		} mp;
		struct lost_info lost; /* RECORD_LOST */
		/* RECORD_LOGOUT: procs in the payload; the leader's references are the view's. */
		struct logout lo;
	};
};

/*
 * Records made from what the pipeline hands over, with what @m knows now
 * (@m NULL: nothing known). The record refers to @ev's bytes and @c's
 * recipients until record__hold() copies them; every other pointer it
 * holds is a counted reference, released by record__release().
 */
void record__event(struct record *r, const struct model *m, const struct pgt_event *ev);
void record__signal(struct record *r, const struct model *m, const struct sig_cause *c);
/*
 * An exit's (@r from record__event()) sender as @m knows it now, while it
 * is alive: what the exit says if the signal record is not written.
 */
void record__exit_sender(struct record *r, const struct model *m);
void record__escape(struct record *r, const struct model *m, const struct escape *e);
void record__survivor(struct record *r, const struct model *m, const struct mproc *p, __u64 now_ns);
/* @p: the process as it is now, NULL when removed. */
void record__correction(struct record *r, const struct model *m, const struct model_note *n,
			const struct mproc *p, __u64 now_ns);
void record__lost(struct record *r, const struct lost_info *li);
/* A logout report: the leader's view from @lo's references; @lo->procs borrowed until held. */
void record__logout(struct record *r, const struct model *m, const struct logout *lo);

/*
 * @r, moved to the end of @arena, 8-byte aligned, with the bytes it refers
 * to: its offset, or (size_t)-1 when out of memory (@r is then released).
 * Its references go with it.
 */
size_t record__hold(struct record *r, struct sbuf *arena);
/* The record held at @off of @arena, its pointers made to point into it. */
struct record *record__at(struct sbuf *arena, size_t off);
/* The bytes a held record takes in its arena. */
size_t record__held_size(const struct record *r);
void record__release(struct record *r);

/*
 * The kinds of record, as the outputs name them ("event"), in one table:
 * the filter's bit (their index), syslog's severity, ECS's event.type.
 */
struct record_kind_info {
	const char *name;
	int severity;	      /* syslog(3)'s: 3 err, 4 warning, 5 notice, 6 info */
	const char *ecs_type; /* ECS event.type: "start", "end", "change", "info" */
};

/* Kind @i (0, 1, ...), or NULL past the last. */
const struct record_kind_info *record__kind(unsigned int i);
/* The kind named @name (@len bytes), or NULL; its index in *@i. */
const struct record_kind_info *record__kind_by_name(const char *name, size_t len, unsigned int *i);

/* "fork", "tty_acquire", "signal", "escape", ...: the record's "event". */
const char *record__name(const struct record *r);
/* The record's process ("process" in JSON), NULL for none. */
const struct pgt_proc *record__proc(const struct record *r);

#endif /* __RECORD_H */
