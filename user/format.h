/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The output formats: aligned text lines, JSON Lines (schema 3), ECS documents. */
#ifndef __FORMAT_H
#define __FORMAT_H

#include <time.h>
#include <linux/types.h>
#include "decode.h"
#include "sbuf.h"
#include "sigmerge.h"
#include "escape.h"
#include "host.h"

#define PGT_SCHEMA_VERSION	3
/*
 * A JSON record starts {"schema":3,"seq":0, the 0 a placeholder that the
 * output replaces with the record's number when its turn comes.
 */
#define PGT_JSON_HEAD		"{\"schema\":3,\"seq\":"
#define PGT_JSON_SEQ_AT		(sizeof(PGT_JSON_HEAD) - 1)
/*
 * A derived record's "cause_seq" placeholder, after "kseq": the first such
 * bytes of the line, since no string member comes before them (and an
 * escaped string cannot hold them).
 */
#define PGT_JSON_CAUSE_KEY	"\"cause_seq\":0,"

struct fmt_ctx {
	__s64 boot_to_real_ns;	/* CLOCK_REALTIME - CLOCK_BOOTTIME at start */
	const struct host_id *host;	/* the traced machine; NULL: "host" is null */
	bool utc;		/* text mode: UTC instead of local time */
	bool dated;		/* text mode: times with the date (-o, --utc) */
	bool color;		/* text mode: ANSI colour for escapes */
	const struct model *model;	/* what records' processes run; NULL: unknown */
};


/*
 * What the model adds to a process object: what it runs and its login.
 * A record that outlives its process in the model (a signal's sender, an
 * escape) holds its own references; others look them up.
 */
struct proc_view {
	const struct image *image;	/* NULL: unknown */
	const struct lineage *entry;	/* NULL: none, or unknown */
	bool known;			/* the model knows the process */
	bool entry_inferred;		/* entry read from the tree, not seen */
	const struct pcgroup *cg;	/* NULL: unknown */
};

/* The view the model has of @p now. */
void fmt__proc_view(const struct fmt_ctx *fc, const struct pgt_proc *p, struct proc_view *v);
/* An sshd login's client, from @entry's environment at its start, or NULL. */
const struct login_remote *fmt__entry_remote(const struct lineage *entry);
/* How the login of @entry came in: "sshd", "terminal", "console", "init" or "unknown". */
const char *fmt__entry_type(const struct lineage *entry);
/*
 * The entity id of the leader @pid of a group, or of a session (@session),
 * if the model knows it: a group's while it lives, a session's while the
 * session does.
 */
bool fmt__leader_id(const struct fmt_ctx *fc, __u32 pid, bool session, char eid[17]);

/* Losses seen since the previous lost record. */
struct lost_info {
	__u64 by_type[PGT_TYPE_MAX];	/* failed reserves per record type */
	__u64 total;			/* events known to be missing */
	__u64 from_ns, to_ns;		/* boot-time window of the loss */
	/* Or records one output could not take (its queue was full): */
	const char *output;		/* its name (-o's path, "output"); NULL: the kernel's loss */
	__u64 first_seq, last_seq;	/* the seqs it missed, first and last */
};

/* Wall-clock seconds and nanoseconds of a boot-time stamp, clamped to years 1970..9999. */
void fmt__split_time(const struct fmt_ctx *fc, __u64 boot_ns, time_t *secs, long *nsec);
/* "2026-12-03T09:40:01.123456789Z" from a boot-time stamp. */
void fmt__rfc3339(const struct fmt_ctx *fc, __u64 boot_ns, char *buf, size_t len);

void json__event(struct sbuf *sb, const struct fmt_ctx *fc, const struct pgt_event *ev);
void json__lost(struct sbuf *sb, const struct fmt_ctx *fc, const struct lost_info *li);

void json__signal(struct sbuf *sb, const struct fmt_ctx *fc, const struct sig_cause *c);
void json__escape(struct sbuf *sb, const struct fmt_ctx *fc, const struct escape *e);
/* A process still alive at the end of a command, and where it is now. */
void json__survivor(struct sbuf *sb, const struct fmt_ctx *fc, const struct mproc *p,
		    __u64 now_ns);

void json__correction(struct sbuf *sb, const struct fmt_ctx *fc, const struct model_note *n,
		      const struct mproc *p, __u64 now_ns);

void text__header(struct sbuf *sb, const struct fmt_ctx *fc);
void text__correction(struct sbuf *sb, const struct fmt_ctx *fc, const struct model_note *n,
		      const struct mproc *p, __u64 now_ns);
void text__signal(struct sbuf *sb, const struct fmt_ctx *fc, const struct sig_cause *c);
void text__escape(struct sbuf *sb, const struct fmt_ctx *fc, const struct escape *e);
void text__survivor(struct sbuf *sb, const struct fmt_ctx *fc, const struct mproc *p,
		    __u64 now_ns);
void text__event(struct sbuf *sb, const struct fmt_ctx *fc, const struct pgt_event *ev);
void text__lost(struct sbuf *sb, const struct fmt_ctx *fc, const struct lost_info *li);

/* One output format: json__* or text__*, chosen once (output__open()). */
struct formatter {
	void (*event)(struct sbuf *sb, const struct fmt_ctx *fc, const struct pgt_event *ev);
	void (*signal)(struct sbuf *sb, const struct fmt_ctx *fc, const struct sig_cause *c);
	void (*escape)(struct sbuf *sb, const struct fmt_ctx *fc, const struct escape *e);
	void (*survivor)(struct sbuf *sb, const struct fmt_ctx *fc, const struct mproc *p,
			 __u64 now_ns);
	void (*correction)(struct sbuf *sb, const struct fmt_ctx *fc, const struct model_note *n,
			   const struct mproc *p, __u64 now_ns);
	void (*lost)(struct sbuf *sb, const struct fmt_ctx *fc, const struct lost_info *li);
};

extern const struct formatter json_formatter, text_formatter;

#endif /* __FORMAT_H */
