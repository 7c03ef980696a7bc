// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <uthash.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include "clock.h"
#include "loss.h"
#include "metrics.h"
#include "output.h"
#include "msg.h"

#define OUT_BATCH    (64 * 1024)     /* write once this much is pending */
#define OUT_QUEUE    (8U << 20)	     /* --output-queue's default */
#define OUT_KEEP     (4 * OUT_BATCH) /* what an emptied queue keeps of what a stall grew */
#define STALL_SAY_NS 1000000000ULL   /* a stall is said once it lasts this long */
#define RETRY_NS     250000000ULL    /* a full disk, a FIFO's reader: tried this often */
#define DRAIN_NS     2000000000ULL   /* at the end: how long a queue may wait for its reader */
#define DRAIN_MAX_NS 30000000000ULL  /* and how long a slow reader may take in all */

/*
 * A record waiting for its turn: records are written in the order of the
 * kernel records they come from (key), and a signal cause still being
 * gathered holds back every record after its first. The typed records are
 * in one buffer (the arena), their entries in one array by key: a malloc
 * per record cost a third of a replay's time. A record is formatted when
 * its turn comes, its seq known, once per channel.
 */
enum line_role {
	LINE_CAUSE,   /* a record of its own, which derived ones may name */
	LINE_DERIVED, /* made from the record with its key: written after it */
	LINE_LATE,    /* made in user space without a kernel record */
};

struct held_line {
	__u64 key;
	size_t off, len; /* in the arena */
	enum line_role role;
};

/*
 * The seqs of the latest records written (LINE_CAUSE lines, JSON), for a
 * derived record to name its cause's: an escape is written up to a second
 * after its event.
 */
#define WRITTEN_MAX 8192

struct written {
	__u64 key, seq;
};

/* The first escape record written of a process alive: for a logout report to name. */
struct escaped {
	__u32 pid; /* hash key */
	__u64 start_ns, ts_ns, seq;
	enum escape_kind kind;
	UT_hash_handle hh;
};

/*
 * What the descriptor of standard output or -o FILE is: how it is written
 * without ever blocking the tracer.
 */
enum fd_kind {
	FD_FILE,   /* a regular file: write(2) (O_NONBLOCK means nothing to it) */
	FD_STREAM, /* a pipe, FIFO or terminal, on a description of our own, O_NONBLOCK */
	FD_POLLED, /* one that could not be reopened so: PIPE_BUF at a time, when poll(2) says */
	FD_SOCKET, /* send(2) with MSG_DONTWAIT */
};

/* One place the records go: a file descriptor, or a message sink. */
struct channel {
	const char *name; /* for messages: the -o path, "output", or the sink's */
	const char *path;
	int fd; /* -1: a FIFO with no reader yet (or any more) */
	enum fd_kind kind;
	bool fifo;    /* -o names a FIFO: opened again when a reader comes */
	bool offline; /* --replay: nothing is lost while the reader is slow, it waits */
	bool json;
	record_fmt fmt; /* json__record, ecs__record or text__record */
	bool own_fd;
	int err; /* the error that ended it, as -errno */
	/* A message sink: each record, one send each. */
	const struct sink_ops *sink;
	void *sink_ctx;
	struct fmt_ctx fc;
	struct fmt_ctx tfc; /* a message sink's text lines */
	/*
	 * The queue: whole lines from @head on are not yet written (a line
	 * may be partly); at most @qmax bytes wait, records past that are lost.
	 */
	struct sbuf pending;
	size_t head, qmax;
	int stall;	  /* why writing waits: EAGAIN, ENOSPC, EDQUOT, ENXIO (no reader) */
	int why;	  /* the last reason it waited */
	__u64 busy_since; /* monotonic ns: since when records have been waiting */
	__u64 retry_at;	  /* a full disk, a FIFO with no reader: next try */
	bool stall_said;  /* said on stderr, until the queue is empty again */
	struct loss lost;
	bool telling; /* its lost record is held behind earlier records: none lost meanwhile */
	__u64 taken;  /* records it took (queued, or sent) */
};

#define OUT_CHANNELS 4

/*
 * Every channel gets every record, formatted its own way, in the same
 * order, with the same seq.
 */
struct output {
	struct channel ch[OUT_CHANNELS];
	unsigned int n;
	__s64 boot_to_real_ns; /* output__set_clock()'s */
	bool has_clock;
	const struct model *model; /* what records' processes run; NULL: unknown */
	bool views;		   /* a channel writes what the model knows (not text alone) */
	struct held_line *held;	   /* by key, oldest first */
	size_t nheld, held_cap;
	struct sbuf arena;	 /* the held records */
	struct sbuf spare;	 /* the arena's other half, for compacting */
	__u64 hold_from;	 /* records with a key from here on wait */
	__u64 last_key;		 /* the newest key: where keyless records go */
	__u64 next_seq;		 /* the seq of the next record written */
	struct written *written; /* a ring of WRITTEN_MAX, newest at written_at - 1 */
	struct deaths *deaths;	 /* fatal signals written, for the exits' causes */
	struct escaped *escaped; /* by pid */
	size_t written_at, nwritten;
	struct metrics *metrics; /* --metrics: counted as written, NULL without */
};

/* The key of a record made in user space: each channel's newest. */
#define KEY_LAST ((__u64)-2)

static int flush_pending(struct channel *c);
static size_t queued(const struct channel *c);
static void drain(struct channel *c);

/*
 * Append-only and private (0600); never through a symlink; never waiting: a
 * FIFO with no reader fails with ENXIO (and is opened again later).
 */
static int open_log(const struct channel *c)
{
	return open(c->path,
		    O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC |
			    (c->offline ? 0 : O_NONBLOCK),
		    0600);
}

/*
 * How the channel's descriptor is written without blocking. Standard
 * output's description is shared (with the shell, with the command), so
 * O_NONBLOCK is set on one of our own, opened through /proc/self/fd.
 */
static void set_kind(struct channel *c)
{
	char path[32];
	struct stat st;
	int fd;

	c->kind = FD_FILE;
	if (c->offline || fstat(c->fd, &st) || S_ISREG(st.st_mode))
		return; /* a replay's reader is waited for, like any filter's */
	if (S_ISSOCK(st.st_mode)) {
		c->kind = FD_SOCKET;
		return;
	}
	c->kind = FD_STREAM;
	if (c->path)
		return; /* opened O_NONBLOCK */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", c->fd);
	fd = open(path, O_WRONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		c->kind = FD_POLLED;
		return;
	}
	c->fd = fd;
	c->own_fd = true;
}

/* The channel of standard output or -o FILE: the first, if there is one. */
static struct channel *fd_channel(struct output *o)
{
	return o->n && !o->ch[0].sink ? &o->ch[0] : NULL;
}

int output__chown(struct output *o, uid_t uid, gid_t gid)
{
	struct channel *c = fd_channel(o);

	if (c && c->path && c->fd >= 0 && fchown(c->fd, uid, gid))
		return -errno;
	return 0;
}

int output__reopen(struct output *o)
{
	struct channel *c = fd_channel(o);
	int fd;

	if (!c || !c->path || c->err)
		return 0;
	flush_pending(c);
	fd = open_log(c);
	if (fd < 0 && !(errno == ENXIO && c->fifo))
		return -errno;
	if (c->fd >= 0)
		close(c->fd);
	c->fd = fd;
	if (fd >= 0)
		set_kind(c);
	/* What waited for room goes to the new file at once. */
	c->retry_at = 0;
	drain(c);
	return 0;
}

static void channel_init(struct channel *c, const struct output_cfg *cfg)
{
	c->fc.boot_to_real_ns = (__s64)(clock_ns(CLOCK_REALTIME) - clock_ns(CLOCK_BOOTTIME));
	c->fc.utc = cfg->utc;
	c->fc.ecs8 = cfg->ecs8;
	c->tfc = c->fc;
	c->tfc.dated = true; /* a message is read apart from the others */
}

struct output *output__open(const struct output_cfg *cfg)
{
	struct output *o = calloc(1, sizeof(*o));
	struct channel *c;

	if (!o) {
		p_err("cannot allocate output: %s", strerror(errno));
		return NULL;
	}
	o->hold_from = (__u64)-1;
	o->deaths = deaths__new();
	if (cfg->no_stream)
		return o;
	c = &o->ch[o->n++];
	channel_init(c, cfg);
	c->json = cfg->json || cfg->ecs;
	c->fmt = cfg->ecs ? ecs__record : c->json ? json__record : text__record;
	o->views = c->json;
	c->path = cfg->path;
	c->name = cfg->path ?: "output";
	c->fd = STDOUT_FILENO;
	c->qmax = cfg->queue_bytes ?: OUT_QUEUE;
	c->offline = cfg->offline;
	if (cfg->path) {
		struct stat st;

		c->fifo = !stat(cfg->path, &st) && S_ISFIFO(st.st_mode) && !c->offline;
		c->fd = open_log(c);
		if (c->fd < 0 && !(errno == ENXIO && c->fifo)) {
			p_err("cannot open %s: %s", cfg->path, strerror(errno));
			deaths__free(o->deaths);
			free(o);
			return NULL;
		}
		c->own_fd = true;
		if (c->fd < 0) {
			p_err("%s is a FIFO with no reader yet: records wait "
			      "in its queue (%zu bytes), and are written once one opens "
			      "it",
			      cfg->path, c->qmax);
			c->stall = c->why = ENXIO;
			c->busy_since = clock_ns(CLOCK_MONOTONIC);
			c->stall_said = true;
		}
	}
	if (c->fd >= 0)
		set_kind(c);
	/* A file is read days later, and --utc is for comparing with other logs. */
	c->fc.dated = cfg->path || cfg->utc;
	/* Colour only for a person: text on a terminal, unless NO_COLOR is set. */
	c->fc.color = !c->json && !cfg->path && output__color(cfg->color, STDOUT_FILENO);
	return o;
}

bool output__color(int mode, int fd)
{
	const char *no = getenv("NO_COLOR");

	return mode == 1 || (mode == 0 && isatty(fd) && !(no && *no));
}

int output__add_sink(struct output *o, const struct output_cfg *cfg, const struct sink_ops *ops,
		     void *ctx)
{
	struct channel *c;

	if (o->n == OUT_CHANNELS)
		return -ENOSPC;
	c = &o->ch[o->n++];
	channel_init(c, cfg);
	c->json = true;
	c->fmt = json__record;
	o->views = true;
	c->sink = ops;
	c->sink_ctx = ctx;
	c->name = ops->name;
	c->fd = -1;
	/* The other channels' host and clock. */
	if (o->n > 1) {
		c->fc.host = o->ch[0].fc.host;
		c->fc.boot_to_real_ns = o->ch[0].fc.boot_to_real_ns;
		c->tfc.host = c->fc.host;
		c->tfc.boot_to_real_ns = c->fc.boot_to_real_ns;
	}
	return 0;
}

#define FOR_EACH_CHANNEL(o, c) for ((c) = (o)->ch; (c) < (o)->ch + (o)->n; (c)++)

void output__set_metrics(struct output *o, struct metrics *m)
{
	o->metrics = m;
}

unsigned int output__channels(const struct output *o, struct metrics_channel *out, unsigned int max)
{
	const struct channel *c;
	unsigned int n = 0;

	FOR_EACH_CHANNEL(o, c) {
		if (n == max)
			break;
		snprintf(out[n].name, sizeof(out[n].name), "%s",
			 c->sink ? c->sink->name :
			 c->path ? "file" :
				   "stdout");
		out[n].delivered = c->taken;
		out[n].lost = c->lost.total;
		out[n].queued_bytes = c->sink ? 0 : queued(c);
		n++;
	}
	return n;
}

__s64 output__clock(const struct output *o)
{
	return o->has_clock ? o->boot_to_real_ns :
			      (__s64)(clock_ns(CLOCK_REALTIME) - clock_ns(CLOCK_BOOTTIME));
}

void output__set_clock(struct output *o, __s64 boot_to_real_ns)
{
	struct channel *c;

	o->boot_to_real_ns = boot_to_real_ns;
	o->has_clock = true;
	FOR_EACH_CHANNEL(o, c)
		c->fc.boot_to_real_ns = c->tfc.boot_to_real_ns = boot_to_real_ns;
}

void output__set_host(struct output *o, const struct host_id *host)
{
	struct channel *c;

	FOR_EACH_CHANNEL(o, c)
		c->fc.host = c->tfc.host = host;
}

void output__set_model(struct output *o, const struct model *m)
{
	o->model = m;
}

void output__start(struct output *o)
{
	struct channel *c = fd_channel(o);

	if (c && !c->json)
		text__header(&c->pending, &c->fc);
}

/* Whether any channel still takes records. */
static bool any_alive(const struct output *o)
{
	unsigned int i;

	for (i = 0; i < o->n; i++)
		if (!o->ch[i].err)
			return true;
	return false;
}

/* Out of memory: every channel ends. */
static void all_failed(struct output *o, int err)
{
	struct channel *c;

	FOR_EACH_CHANNEL(o, c)
		c->err = c->err ?: err;
}

/*
 * @r into the queue by @key (its references with it); most records come in
 * order and go at the tail.
 */
static void enqueue(struct output *o, __u64 key, enum line_role role, struct record *r)
{
	struct held_line *h;
	size_t i, off;

	if (!any_alive(o)) {
		record__release(r);
		return;
	}
	if (key == KEY_LAST)
		key = o->last_key;
	if (o->nheld == o->held_cap) {
		size_t cap = o->held_cap ? o->held_cap * 2 : 256;

		h = realloc(o->held, cap * sizeof(*h));
		if (!h) {
			record__release(r);
			all_failed(o, -ENOMEM);
			return;
		}
		o->held = h;
		o->held_cap = cap;
	}
	off = record__hold(r, &o->arena);
	if (off == (size_t)-1) {
		all_failed(o, -ENOMEM);
		return;
	}
	if (key > o->last_key)
		o->last_key = key;
	/* After the records of lower keys; a record before the others of its key. */
	for (i = o->nheld; i > 0 && (o->held[i - 1].key > key ||
				     (o->held[i - 1].key == key && role == LINE_CAUSE &&
				      o->held[i - 1].role != LINE_CAUSE));
	     i--)
		;
	memmove(&o->held[i + 1], &o->held[i], (o->nheld - i) * sizeof(*o->held));
	o->held[i] = (struct held_line){ key, off, o->arena.len - off, role };
	o->nheld++;
}

/* Bytes of whole lines waiting to be written. */
static size_t queued(const struct channel *c)
{
	return c->pending.len - c->head;
}

/* A record with no room in the queue: lost, and counted. */
static void lose(struct channel *c, __u64 seq)
{
	if (!c->lost.said) {
		p_err("%s: its queue is full (%zu bytes): records are lost "
		      "until it takes them again, and counted",
		      c->name, c->qmax);
		c->lost.said = true;
	}
	loss__add(&c->lost, true, seq, clock_ns(CLOCK_BOOTTIME));
}

/* The seq of the latest record written with @key, if it is still known. */
static bool cause_seq(const struct output *o, __u64 key, __u64 *seq)
{
	size_t i, at;

	for (i = 0; i < o->nwritten; i++) {
		at = (o->written_at + WRITTEN_MAX - 1 - i) % WRITTEN_MAX;
		if (o->written[at].key == key) {
			*seq = o->written[at].seq;
			return true;
		}
	}
	return false;
}

static void remember(struct output *o, __u64 key, __u64 seq)
{
	if (!o->written) {
		o->written = calloc(WRITTEN_MAX, sizeof(*o->written));
		if (!o->written)
			return; /* derived records then say null */
	}
	o->written[o->written_at] = (struct written){ key, seq };
	o->written_at = (o->written_at + 1) % WRITTEN_MAX;
	if (o->nwritten < WRITTEN_MAX)
		o->nwritten++;
}

/* What a logout report names, by seq: escapes by process, exits by their records' keys. */
static void note_escape(struct output *o, const struct record *r)
{
	const struct pgt_proc *p = &r->esc.proc;
	struct escaped *e;

	HASH_FIND(hh, o->escaped, &p->pid, sizeof(p->pid), e);
	if (e && e->start_ns == p->start_ns && e->ts_ns <= r->esc.ts_ns)
		return; /* its first, by time: a held setsid is written after a reparent */
	if (!e) {
		e = calloc(1, sizeof(*e));
		if (!e)
			return;
		e->pid = p->pid;
		HASH_ADD(hh, o->escaped, pid, sizeof(e->pid), e);
	}
	e->start_ns = p->start_ns;
	e->ts_ns = r->esc.ts_ns;
	e->seq = r->seq;
	e->kind = r->esc.kind;
}

static void forget_escape(struct output *o, const struct pgt_proc *p)
{
	struct escaped *e;

	HASH_FIND(hh, o->escaped, &p->pid, sizeof(p->pid), e);
	if (e && e->start_ns == p->start_ns) {
		HASH_DEL(o->escaped, e);
		free(e);
	}
}

static void logout_seqs(struct output *o, struct record *r)
{
	struct logout *lo = &r->lo;
	struct escaped *e;
	unsigned int i;

	lo->has_exit_seq = cause_seq(o, lo->exit_key, &lo->exit_seq);
	for (i = 0; i < lo->nr; i++) {
		struct logout_proc *lp = &lo->procs[i];

		if (lp->exited)
			lp->has_exit_seq = cause_seq(o, lp->exit_key, &lp->exit_seq);
		if (!lp->escape)
			continue;
		HASH_FIND(hh, o->escaped, &lp->proc.pid, sizeof(lp->proc.pid), e);
		if (e && e->start_ns == lp->proc.start_ns && e->kind == lp->escape) {
			lp->has_escape_seq = true;
			lp->escape_seq = e->seq;
		}
	}
}

/* A message sink's record: the sink formats what it sends. */
static void send_message(struct channel *c, const struct record *r)
{
	struct sink_msg m = { .rec = r, .fc = &c->fc, .tfc = &c->tfc };
	int err = c->sink->send(c->sink_ctx, &m);

	if (err)
		c->err = err;
	else
		c->taken++;
}

/*
 * @r formatted at the end of the channel's queue. No room: lost. Once
 * losing, every record is, until the loss is told: a smaller record that
 * would fit must not split the gap in two. The record that tells the
 * channel's loss waits behind the records held before it; until it is out
 * they all go in, over the bound (they are held in memory already): a loss
 * begun meanwhile would take the lost record, and the range it names, with
 * it.
 */
static void emit(struct channel *c, const struct record *r)
{
	size_t before = c->pending.len;
	bool over = c->telling;

	if (c->sink) {
		send_message(c, r);
		return;
	}
	if (r->kind == RECORD_LOST && r->lost.output == c->name)
		c->telling = false;
	if (c->lost.n && !over) {
		lose(c, r->seq);
		return;
	}
	c->fmt(&c->pending, &c->fc, r);
	if (c->pending.oom) {
		c->err = c->err ?: -ENOMEM;
		return;
	}
	if (c->offline && queued(c) > c->qmax)
		flush_pending(c); /* a replay waits for its reader */
	if (queued(c) > c->qmax && !over) {
		c->pending.len = before;
		c->pending.buf[before] = '\0';
		lose(c, r->seq);
		return;
	}
	c->taken++;
	if (queued(c) > OUT_BATCH)
		flush_pending(c);
}

/* A record's turn: its seq, its cause's, then into every channel. */
static void emit_all(struct output *o, const struct held_line *h)
{
	struct record *r = record__at(&o->arena, h->off);
	struct channel *c;

	r->seq = o->next_seq++;
	if (h->role == LINE_DERIVED)
		r->has_cause_seq = cause_seq(o, h->key, &r->cause_seq);
	if (r->kind == RECORD_SIGNAL) {
		deaths__signal(o->deaths, r);
	} else if (r->kind == RECORD_EVENT && r->ev.hdr->type == PGT_EXIT) {
		deaths__exit(o->deaths, r);
		forget_escape(o, &r->ev.exit->proc);
	} else if (r->kind == RECORD_ESCAPE) {
		note_escape(o, r);
	} else if (r->kind == RECORD_LOGOUT) {
		logout_seqs(o, r);
	}
	FOR_EACH_CHANNEL(o, c)
		if (!c->err)
			emit(c, r);
	if (o->metrics)
		metrics__count(o->metrics, r);
	if (h->role == LINE_CAUSE)
		remember(o, h->key, r->seq);
	record__release(r);
}

/*
 * Write out, in order, the records whose turn has come. The records still
 * held move to the front of the arena once they are the lesser part.
 */
static void release(struct output *o, __u64 before)
{
	size_t n, i, live = 0, off;
	struct sbuf keep = {};

	for (n = 0; n < o->nheld && o->held[n].key < before; n++)
		emit_all(o, &o->held[n]);
	if (!n)
		return;
	o->nheld -= n;
	memmove(o->held, o->held + n, o->nheld * sizeof(*o->held));
	if (!o->nheld) {
		sbuf__shrink(&o->arena, OUT_KEEP);
		sbuf__shrink(&o->spare, OUT_KEEP);
		return;
	}
	for (i = 0; i < o->nheld; i++)
		live += o->held[i].len;
	if (live * 2 > o->arena.len)
		return;
	sbuf__reset(&o->spare);
	for (i = 0; i < o->nheld; i++) {
		struct held_line *h = &o->held[i];

		off = (o->spare.len + 7) & ~(size_t)7;
		if (!sbuf__grow(&o->spare, off + h->len - o->spare.len))
			break;
		memcpy(o->spare.buf + off, o->arena.buf + h->off, h->len);
		o->spare.len = off + h->len;
		h->off = off;
	}
	if (o->spare.oom) {
		all_failed(o, -ENOMEM);
		return;
	}
	keep = o->arena;
	o->arena = o->spare;
	o->spare = keep;
	sbuf__reset(&o->spare);
}

size_t output__held(const struct output *o)
{
	return o->arena.len;
}

void output__hold(struct output *o, __u64 kseq)
{
	o->hold_from = kseq;
}

/* The model's knowledge, for the channels that write it. */
static const struct model *model_for(const struct output *o)
{
	return o->views ? o->model : NULL;
}

void output__event(struct output *o, const struct pgt_event *ev)
{
	struct record r;

	/* Reaps and snapshot records feed the model; they are not events. */
	if (ev->hdr->type == PGT_REAP || ev->hdr->type == PGT_SNAP || ev->hdr->type == PGT_SIGNAL)
		return;
	record__event(&r, model_for(o), ev);
	if (ev->hdr->type == PGT_EXIT)
		record__exit_sender(&r, o->model);
	enqueue(o, ev->hdr->seq, r.derived ? LINE_DERIVED : LINE_CAUSE, &r);
}

void output__signal(struct output *o, const struct sig_cause *c)
{
	struct record r;

	record__signal(&r, model_for(o), c);
	enqueue(o, c->first.hdr.seq, LINE_CAUSE, &r);
}

void output__escape(struct output *o, const struct escape *e)
{
	struct record r;

	record__escape(&r, model_for(o), e);
	enqueue(o, e->seq, LINE_DERIVED, &r);
}

void output__survivor(struct output *o, const struct mproc *p, __u64 now_ns)
{
	struct record r;

	record__survivor(&r, model_for(o), p, now_ns);
	enqueue(o, KEY_LAST, LINE_LATE, &r);
}

void output__logout(struct output *o, const struct logout *lo)
{
	struct record r;

	record__logout(&r, model_for(o), lo);
	enqueue(o, KEY_LAST, LINE_LATE, &r);
}

void output__correction(struct output *o, const struct model_note *n, const struct mproc *p,
			__u64 now_ns)
{
	struct record r;

	record__correction(&r, model_for(o), n, p, now_ns);
	enqueue(o, KEY_LAST, LINE_LATE, &r);
}

void output__lost(struct output *o, const struct lost_info *li)
{
	struct record r;

	record__lost(&r, li);
	enqueue(o, KEY_LAST, LINE_LATE, &r);
}

/*
 * The queue's bytes before @head that end in the middle of a line: a write
 * that stopped there (a full disk, a reader gone) is taken back, so that
 * the line goes whole, later. A regular file is cut back to the last whole
 * record.
 */
static void take_back(struct channel *c)
{
	const char *nl;
	size_t keep;
	struct stat st;

	if (!c->head || c->pending.buf[c->head - 1] == '\n')
		return;
	nl = memrchr(c->pending.buf, '\n', c->head);
	keep = nl ? (size_t)(nl - c->pending.buf) + 1 : 0;
	/* If this fails too, the error being reported already says what went wrong. */
	if (c->kind == FD_FILE && c->fd >= 0 && !fstat(c->fd, &st) &&
	    st.st_size >= (off_t)(c->head - keep))
		(void)!ftruncate(c->fd, st.st_size - (off_t)(c->head - keep));
	c->head = keep;
}

/* One non-blocking write of what is queued: bytes written, or -errno. */
static ssize_t write_some(struct channel *c)
{
	const char *buf = c->pending.buf + c->head;
	size_t len = queued(c);
	struct pollfd p = { .fd = c->fd, .events = POLLOUT };
	ssize_t n;

	switch (c->kind) {
	case FD_SOCKET:
		n = send(c->fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL);
		break;
	case FD_POLLED:
		/* Ready means room for PIPE_BUF bytes: no more, or the write may wait. */
		if (poll(&p, 1, 0) <= 0 || !(p.revents & (POLLOUT | POLLERR | POLLHUP)))
			return -EAGAIN;
		n = write(c->fd, buf, len < PIPE_BUF ? len : PIPE_BUF);
		break;
	default:
		n = write(c->fd, buf, len);
	}
	return n < 0 ? -errno : n;
}

/*
 * What is queued, written as far as the descriptor takes it now. It never
 * waits: a reader that does not read, a full disk or a FIFO with no reader
 * leaves the records queued, tried again on the next call; EPIPE on
 * standard output (| head) and any other error end the channel.
 */
static void drain(struct channel *c)
{
	__u64 now = clock_ns(CLOCK_MONOTONIC);
	ssize_t n;

	if (c->err || c->sink)
		return;
	while (queued(c)) {
		if (c->fd < 0 ||
		    ((c->stall == ENOSPC || c->stall == EDQUOT) && now < c->retry_at)) {
			if (c->fd < 0 && now >= c->retry_at) {
				c->fd = open_log(c); /* a FIFO's reader came? */
				c->retry_at = now + RETRY_NS;
				if (c->fd >= 0) {
					set_kind(c);
					continue;
				}
				if (errno != ENXIO) {
					c->err = -errno;
					break;
				}
			}
			break;
		}
		n = write_some(c);
		if (n > 0) {
			c->head += (size_t)n;
			c->stall = 0;
			continue;
		}
		if (n == -EINTR)
			continue;
		if (c->offline && n == -EAGAIN) {
			struct pollfd p = { .fd = c->fd, .events = POLLOUT };

			poll(&p, 1, -1); /* O_NONBLOCK set by someone else */
			continue;
		}
		if (!c->offline &&
		    (n == -EAGAIN || n == -ENOSPC || n == -EDQUOT || (n == -EPIPE && c->fifo))) {
			/* A reader that is slow has the line's start: the rest follows. */
			if (n != -EAGAIN)
				take_back(c);
			if (n == -EPIPE) { /* the FIFO's reader went: wait for another */
				close(c->fd);
				c->fd = -1;
				n = -ENXIO;
			}
			c->stall = c->why = (int)-n;
			c->retry_at = now + RETRY_NS;
			break;
		}
		take_back(c);
		c->err = n ?: -EIO; /* 0 bytes for a write of some: nothing will take them */
		break;
	}
	if (!queued(c)) {
		sbuf__shrink(&c->pending, OUT_KEEP);
		c->head = 0;
		if (c->stall_said && c->fd >= 0)
			p_err("%s: written again", c->name);
		c->stall = c->why = 0;
		c->busy_since = 0;
		c->stall_said = false;
		return;
	}
	if (!c->busy_since)
		c->busy_since = now;
	if (c->head > c->pending.len / 2) {
		/* The written part goes, up to the line being written. */
		const char *nl = memrchr(c->pending.buf, '\n', c->head);
		size_t cut = nl ? (size_t)(nl - c->pending.buf) + 1 : 0;

		memmove(c->pending.buf, c->pending.buf + cut, c->pending.len - cut);
		c->pending.len -= cut;
		c->head -= cut;
	}
	/* Records that have waited a second: said, once until they are all written. */
	if (!c->stall_said && c->why && now - c->busy_since >= STALL_SAY_NS) {
		c->stall_said = true;
		p_err("%s: %s: records wait in its queue (%zu bytes), then "
		      "are counted as lost",
		      c->name,
		      c->why == EAGAIN ? "it is not being read, or too slowly" :
		      c->why == ENXIO  ? "a FIFO with no reader" :
					 strerror(c->why),
		      c->qmax);
	}
}

static int flush_pending(struct channel *c)
{
	if (c->err)
		return c->err;
	if (c->sink)
		return c->sink->flush ? (c->err = c->sink->flush(c->sink_ctx)) : 0;
	drain(c);
	return c->err;
}

/*
 * Records an output lost, told once it takes records again (its queue has
 * gone down to half), or at the end: a lost record, which every output
 * gets, as it gets every record.
 */
static void tell_losses(struct output *o, bool at_end)
{
	struct channel *c;

	FOR_EACH_CHANNEL(o, c) {
		struct lost_info li = {};

		if (c->sink || c->err || !c->lost.n || (!at_end && queued(c) > c->qmax / 2))
			continue;
		li.total = c->lost.n;
		li.from_ns = c->lost.from_ns;
		li.to_ns = clock_ns(CLOCK_BOOTTIME);
		li.output = c->name;
		li.first_seq = c->lost.first;
		li.last_seq = c->lost.last;
		loss__told(&c->lost);
		c->lost.said = false; /* a new overflow is said again */
		c->telling = true;
		output__lost(o, &li);
	}
}

/* A channel that fails says so once, and the others go on. */
static void said_failure(struct channel *c, int before)
{
	if (!before && c->err && c->sink && c->err != -EPIPE)
		p_err("%s: %s; the other outputs go on", c->name, strerror(-c->err));
}

int output__flush(struct output *o)
{
	struct channel *c;
	int before, err = 0, alive = 0;

	tell_losses(o, false);
	release(o, o->hold_from);
	FOR_EACH_CHANNEL(o, c) {
		before = c->err;
		flush_pending(c);
		said_failure(c, before);
		if (!c->err)
			alive++;
		else if (!err)
			err = c->err;
	}
	/* Tracing ends when nothing is left to write to. */
	return alive ? 0 : err;
}

/* Not a record: no seq, and written after every record queued before it. */
void output__raw(struct output *o, const struct sbuf *sb)
{
	struct channel *c = fd_channel(o);

	if (!c || c->err || !sb->len)
		return;
	release(o, (__u64)-1);
	if (queued(c) + sb->len > c->qmax)
		return; /* a tree while the reader is away: the next replaces it */
	if (queued(c) + sb->len > OUT_BATCH)
		flush_pending(c);
	sbuf__put(&c->pending, sb->buf, sb->len);
}

int output__error(const struct output *o)
{
	const struct channel *c = fd_channel((struct output *)o);

	return c ? c->err : 0;
}

int output__sink_error(const struct output *o)
{
	const struct channel *c;

	FOR_EACH_CHANNEL(o, c)
		if (c->sink && c->err)
			return c->err;
	return 0;
}

/*
 * The end: the stream outputs take what is queued while they take it, until
 * DRAIN_NS pass without a byte taken (waiting in poll(2), or for a FIFO's
 * reader or disk space), and DRAIN_MAX_NS at most; what is left then is
 * lost, counted and said. A reader that reads keeps its records, however
 * late it began.
 */
static void drain_all(struct output *o)
{
	__u64 start = clock_ns(CLOCK_MONOTONIC), until = start + DRAIN_NS, now;
	struct channel *c;
	size_t before;
	bool left;

	for (;;) {
		left = false;
		FOR_EACH_CHANNEL(o, c) {
			if (c->sink || c->err)
				continue;
			c->retry_at = 0;
			before = queued(c);
			drain(c);
			left |= queued(c) && !c->err;
			if (queued(c) < before)
				until = clock_ns(CLOCK_MONOTONIC) + DRAIN_NS; /* it reads */
		}
		now = clock_ns(CLOCK_MONOTONIC);
		if (until > start + DRAIN_MAX_NS)
			until = start + DRAIN_MAX_NS;
		if (!left || now >= until)
			break;
		c = fd_channel(o);
		if (c && c->fd >= 0 && c->stall == EAGAIN) {
			struct pollfd p = { .fd = c->fd, .events = POLLOUT };

			/* In steps: a stall is said on time, and a reader it wakes is seen. */
			poll(&p, 1,
			     (int)((until - now) / 1000000) + 1 < 100 ?
				     (int)((until - now) / 1000000) + 1 :
				     100);
		} else {
			usleep(20000);
		}
	}
	FOR_EACH_CHANNEL(o, c) {
		const char *p, *end;

		if (c->sink || c->err || !queued(c))
			continue; /* one that failed (| head) has said so, or ends quietly */
		/* Each whole line left: a record lost (seqs are not kept per line). */
		for (p = c->pending.buf + c->head, end = c->pending.buf + c->pending.len;
		     (p = memchr(p, '\n', end - p)); p++)
			loss__add(&c->lost, false, 0, 0);
		sbuf__reset(&c->pending);
		c->head = 0;
		c->stall_said = false; /* not written again: given up */
	}
}

unsigned long long output__close(struct output *o)
{
	unsigned long long lost = 0;
	struct escaped *e, *etmp;
	struct channel *c;
	int before;

	if (!o)
		return 0;
	/* Losses not yet told: every output gets the record, if it has room. */
	tell_losses(o, true);
	release(o, (__u64)-1);
	drain_all(o);
	FOR_EACH_CHANNEL(o, c) {
		before = c->err;
		flush_pending(c);
		said_failure(c, before);
		if (!c->sink && c->lost.total)
			p_err("%s: %llu records lost (not taken while its queue "
			      "was full, or by the end)",
			      c->name, c->lost.total);
		lost += c->lost.total;
		if (c->own_fd && c->fd >= 0)
			close(c->fd);
		if (c->sink && c->sink->close)
			c->sink->close(c->sink_ctx);
		sbuf__free(&c->pending);
	}
	sbuf__free(&o->arena);
	sbuf__free(&o->spare);
	free(o->held);
	free(o->written);
	deaths__free(o->deaths);
	HASH_ITER(hh, o->escaped, e, etmp) {
		HASH_DEL(o->escaped, e);
		free(e);
	}
	free(o);
	return lost;
}
