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
#include <sys/socket.h>
#include <sys/stat.h>
#include "clock.h"
#include "ecs.h"
#include "loss.h"
#include "output.h"

#define OUT_BATCH	(64 * 1024)	/* write once this much is pending */
#define OUT_QUEUE	(8U << 20)	/* --output-queue's default */
#define STALL_SAY_NS	1000000000ULL	/* a stall is said once it lasts this long */
#define RETRY_NS	250000000ULL	/* a full disk, a FIFO's reader: tried this often */
#define DRAIN_NS	2000000000ULL	/* at the end: how long the queues may take to go */

/*
 * A formatted line waiting for its turn: lines are written in the order of
 * the kernel records they come from (key), and a signal cause still being
 * gathered holds back every line after its first record. The lines' bytes
 * are in one buffer (held_bytes), their entries in one array by key: a
 * malloc per line cost a third of a replay's time.
 */
enum line_role {
	LINE_CAUSE,		/* a record of its own, which derived ones may name */
	LINE_DERIVED,		/* made from the record with its key: written after it */
	LINE_LATE,		/* made in user space without a kernel record */
};

struct held_line {
	__u64 key;
	size_t off, len;	/* in held_bytes */
	size_t json_len;	/* a message sink's: the JSON line, before the text line */
	enum line_role role;
};

/*
 * The seqs of the latest records written (LINE_CAUSE lines, JSON), for a
 * derived record to name its cause's: an escape is written up to a second
 * after its event.
 */
#define WRITTEN_MAX	8192

struct written {
	__u64 key, seq;
};

/*
 * What the descriptor of standard output or -o FILE is: how it is written
 * without ever blocking the tracer.
 */
enum fd_kind {
	FD_FILE,	/* a regular file: write(2) (O_NONBLOCK means nothing to it) */
	FD_STREAM,	/* a pipe, FIFO or terminal, on a description of our own, O_NONBLOCK */
	FD_POLLED,	/* one that could not be reopened so: PIPE_BUF at a time, when poll(2) says */
	FD_SOCKET,	/* send(2) with MSG_DONTWAIT */
};

/* One place the records go: a file descriptor, or a message sink. */
struct channel {
	const char *name;	/* for messages: the -o path, "output", or the sink's */
	const char *path;
	int fd;			/* -1: a FIFO with no reader yet (or any more) */
	enum fd_kind kind;
	bool fifo;		/* -o names a FIFO: opened again when a reader comes */
	bool offline;		/* --replay: nothing is lost while the reader is slow, it waits */
	bool json;
	const struct formatter *fmt;	/* json_formatter, ecs_formatter or text_formatter */
	bool ecs;		/* JSON lines as ECS documents */
	bool own_fd;
	int err;		/* the error that ended it, as -errno */
	/* A message sink: each record as its JSON and its text line, one send each. */
	const struct sink_ops *sink;
	void *sink_ctx;
	struct fmt_ctx fc;
	struct fmt_ctx tfc;	/* a message sink's text lines */
	/*
	 * The queue: whole lines from @head on are not yet written (a line
	 * may be partly); at most @qmax bytes wait, records past that are lost.
	 */
	struct sbuf pending;
	size_t head, qmax;
	int stall;		/* why writing waits: EAGAIN, ENOSPC, EDQUOT, ENXIO (no reader) */
	int why;		/* the last reason it waited */
	__u64 busy_since;	/* monotonic ns: since when records have been waiting */
	__u64 retry_at;		/* a full disk, a FIFO with no reader: next try */
	bool stall_said;	/* said on stderr, until the queue is empty again */
	struct loss lost;
	struct held_line *held;	/* by key, oldest first */
	size_t nheld, held_cap;
	struct sbuf held_bytes;	/* the held lines' bytes, formatted in place */
	struct sbuf spare;	/* held_bytes' other half, for compacting */
	__u64 hold_from;	/* lines with a key from here on wait */
	__u64 last_key;		/* the newest key: where keyless records go */
	__u64 next_seq;		/* the seq of the next record written */
	struct written *written;	/* a ring of WRITTEN_MAX, newest at written_at - 1 */
	size_t written_at, nwritten;
};

#define OUT_CHANNELS	4

/* Every channel gets every record, formatted its own way, in the same order. */
struct output {
	struct channel ch[OUT_CHANNELS];
	unsigned int n;
};

/* The key of a record made in user space: each channel's newest. */
#define KEY_LAST	((__u64)-2)

static int flush_pending(struct channel *c);
static void drain(struct channel *c);

/*
 * Append-only and private (0600); never through a symlink; never waiting: a
 * FIFO with no reader fails with ENXIO (and is opened again later).
 */
static int open_log(const struct channel *c)
{
	return open(c->path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC |
			     (c->offline ? 0 : O_NONBLOCK), 0600);
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
		return;		/* a replay's reader is waited for, like any filter's */
	if (S_ISSOCK(st.st_mode)) {
		c->kind = FD_SOCKET;
		return;
	}
	c->kind = FD_STREAM;
	if (c->path)
		return;		/* opened O_NONBLOCK */
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
	c->hold_from = (__u64)-1;
	c->fc.boot_to_real_ns = (__s64)(clock_ns(CLOCK_REALTIME) - clock_ns(CLOCK_BOOTTIME));
	c->fc.utc = cfg->utc;
	c->tfc = c->fc;
	c->tfc.dated = true;	/* a message is read apart from the others */
}

struct output *output__open(const struct output_cfg *cfg)
{
	struct output *o = calloc(1, sizeof(*o));
	struct channel *c;

	if (!o) {
		fprintf(stderr, "pgrptrace: cannot allocate output: %s\n", strerror(errno));
		return NULL;
	}
	if (cfg->no_stream)
		return o;
	c = &o->ch[o->n++];
	channel_init(c, cfg);
	c->json = cfg->json || cfg->ecs;
	c->fmt = cfg->ecs ? &ecs_formatter : c->json ? &json_formatter : &text_formatter;
	c->ecs = cfg->ecs;
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
			fprintf(stderr, "pgrptrace: cannot open %s: %s\n", cfg->path,
				strerror(errno));
			free(o);
			return NULL;
		}
		c->own_fd = true;
		if (c->fd < 0) {
			fprintf(stderr, "pgrptrace: %s is a FIFO with no reader yet: records wait "
					"in its queue (%zu bytes), and are written once one opens "
					"it\n", cfg->path, c->qmax);
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
	c->fmt = &json_formatter;
	c->sink = ops;
	c->sink_ctx = ctx;
	c->name = ops->name;
	c->fd = -1;
	/* The other channels' model, host and clock. */
	if (o->n > 1) {
		c->fc.host = o->ch[0].fc.host;
		c->fc.model = o->ch[0].fc.model;
		c->fc.boot_to_real_ns = o->ch[0].fc.boot_to_real_ns;
		c->tfc.host = c->fc.host;
		c->tfc.model = c->fc.model;
		c->tfc.boot_to_real_ns = c->fc.boot_to_real_ns;
	}
	return 0;
}

#define FOR_EACH_CHANNEL(o, c)	for ((c) = (o)->ch; (c) < (o)->ch + (o)->n; (c)++)

void output__set_clock(struct output *o, __s64 boot_to_real_ns)
{
	struct channel *c;

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
	struct channel *c;

	FOR_EACH_CHANNEL(o, c)
		c->fc.model = c->tfc.model = m;
}

void output__start(struct output *o)
{
	struct channel *c = fd_channel(o);

	if (c && !c->json)
		text__header(&c->pending, &c->fc);
}

/*
 * The line formatted at @off of held_bytes, up to its end, into the queue
 * by key; most lines come in order and go at the tail.
 */
static void commit_line(struct channel *c, __u64 key, size_t off, size_t json_len,
			enum line_role role)
{
	struct held_line *h;
	size_t i;

	if (key == KEY_LAST)
		key = c->last_key;
	if (c->nheld == c->held_cap) {
		size_t cap = c->held_cap ? c->held_cap * 2 : 256;

		h = realloc(c->held, cap * sizeof(*h));
		if (!h) {
			c->err = c->err ?: -ENOMEM;
			return;
		}
		c->held = h;
		c->held_cap = cap;
	}
	if (c->held_bytes.oom) {
		c->err = c->err ?: -ENOMEM;
		return;
	}
	if (key > c->last_key)
		c->last_key = key;
	/* After the lines of lower keys; a record before the others of its key. */
	for (i = c->nheld; i > 0 && (c->held[i - 1].key > key ||
				     (c->held[i - 1].key == key && role == LINE_CAUSE &&
				      c->held[i - 1].role != LINE_CAUSE)); i--)
		;
	memmove(&c->held[i + 1], &c->held[i], (c->nheld - i) * sizeof(*c->held));
	c->held[i] = (struct held_line){ key, off, c->held_bytes.len - off, json_len, role };
	c->nheld++;
}

/*
 * One record into every working channel: formatted by the channel's
 * formatter (and, for a message sink, as a text line after it), then queued.
 */
#define FORMAT_ALL(o, key, role, method, ...)						\
	do {										\
		struct channel *c_;							\
		size_t off_, json_len_;							\
											\
		FOR_EACH_CHANNEL(o, c_) {						\
			if (c_->err)							\
				continue;						\
			off_ = c_->held_bytes.len;					\
			c_->fmt->method(&c_->held_bytes, &c_->fc, __VA_ARGS__);	\
			json_len_ = c_->held_bytes.len - off_;				\
			if (c_->sink)							\
				text_formatter.method(&c_->held_bytes, &c_->tfc, __VA_ARGS__); \
			commit_line(c_, key, off_, c_->sink ? json_len_ : 0, role);	\
		}									\
	} while (0)

/* Bytes of whole lines waiting to be written. */
static size_t queued(const struct channel *c)
{
	return c->pending.len - c->head;
}

/* A record with no room in the queue: lost, and counted. */
static void lose(struct channel *c, __u64 seq)
{
	if (!c->lost.said) {
		fprintf(stderr, "pgrptrace: %s: its queue is full (%zu bytes): records are lost "
				"until it takes them again, and counted\n", c->name, c->qmax);
		c->lost.said = true;
	}
	loss__add(&c->lost, true, seq, clock_ns(CLOCK_BOOTTIME));
	c->next_seq++;
}

/* @len bytes into the queue, which is written first if it would grow past a batch. */
static void pend(struct channel *c, const char *buf, size_t len)
{
	if (queued(c) + len > OUT_BATCH)
		flush_pending(c);
	sbuf__put(&c->pending, buf, len);
}

/* One placeholder "0" of a line, at @at, and what replaces it. */
struct splice {
	size_t at;
	__u64 value;
	bool null;
};

/* @len bytes of @buf into @to with the placeholders of @sp (in order) replaced. */
static void put_spliced(struct sbuf *to, const char *buf, size_t len, const struct splice *sp,
			unsigned int n)
{
	size_t from = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		sbuf__put(to, buf + from, sp[i].at - from);
		if (sp[i].null)
			sbuf__puts(to, "null");
		else
			sbuf__put_u64(to, sp[i].value);
		from = sp[i].at + 1;
	}
	sbuf__put(to, buf + from, len - from);
}

/* The seq of the latest record written with @key, if it is still known. */
static bool cause_seq(const struct channel *c, __u64 key, __u64 *seq)
{
	size_t i, at;

	for (i = 0; i < c->nwritten; i++) {
		at = (c->written_at + WRITTEN_MAX - 1 - i) % WRITTEN_MAX;
		if (c->written[at].key == key) {
			*seq = c->written[at].seq;
			return true;
		}
	}
	return false;
}

static void remember(struct channel *c, __u64 key, __u64 seq)
{
	if (!c->written) {
		c->written = calloc(WRITTEN_MAX, sizeof(*c->written));
		if (!c->written)
			return;		/* derived records then say null */
	}
	c->written[c->written_at] = (struct written){ key, seq };
	c->written_at = (c->written_at + 1) % WRITTEN_MAX;
	if (c->nwritten < WRITTEN_MAX)
		c->nwritten++;
}

/* A message sink's record: its JSON (seq spliced in @c->pending) and its text line. */
static void send_message(struct channel *c, const struct held_line *h)
{
	const char *text = c->held_bytes.buf + h->off + h->json_len;
	size_t tlen = h->len - h->json_len;
	struct sink_msg m = {
		.json = c->pending.buf, .json_len = c->pending.len,
		.text = text, .text_len = tlen,
	};
	int err;

	/* Without their newlines: a message is one record. */
	if (m.json_len && m.json[m.json_len - 1] == '\n')
		m.json_len--;
	if (m.text_len && m.text[m.text_len - 1] == '\n')
		m.text_len--;
	err = c->sink->send(c->sink_ctx, &m);
	if (err)
		c->err = err;
	sbuf__reset(&c->pending);
}

/*
 * A line's turn: its seq spliced in where the placeholder "0" after
 * {"schema":3,"seq": stands (with --ecs, also after "sequence":), a derived
 * record's cause's seq (or null) where its "cause_seq" placeholder stands,
 * then into the next write (or, for a message sink, sent).
 */
static void emit(struct channel *c, const struct held_line *h)
{
	static const char native[] = ECS_NATIVE_KEY PGT_JSON_HEAD;
	const char *buf = c->held_bytes.buf + h->off, *ecs_seq, *rec, *cause;
	struct splice sp[3] = {};
	size_t len = c->sink ? h->json_len : h->len;
	unsigned int n = 0;
	__u64 seq = c->next_seq;

	if (!c->sink && c->offline && queued(c) + len + 60 > c->qmax)
		flush_pending(c);	/* a replay waits for its reader */
	/*
	 * No room: lost. Once losing, every record is, until the loss is told:
	 * a smaller record that would fit must not split the gap in two.
	 */
	if (!c->sink && (c->lost.n || queued(c) + len + 60 > c->qmax)) {	/* 60: numbers */
		lose(c, seq);
		return;
	}
	if (!c->sink && c->pending.len - c->head + len + 60 > OUT_BATCH)
		flush_pending(c);
	if (!c->json) {
		pend(c, buf, len);
		c->next_seq++;		/* the same records as the JSON outputs */
		return;
	}
	if (c->ecs) {
		/* Keys of ours: no escaped string can hold them. */
		ecs_seq = memmem(buf, len, ECS_SEQ_KEY, sizeof(ECS_SEQ_KEY) - 1);
		rec = memmem(buf, len, native, sizeof(native) - 1);
		if (!ecs_seq || !rec || rec < ecs_seq) {
			c->err = c->err ?: -EINVAL;	/* not a document ecs.c wrote */
			return;
		}
		sp[n++] = (struct splice){ (size_t)(ecs_seq - buf) + sizeof(ECS_SEQ_KEY) - 1, seq,
					   false };
		sp[n++] = (struct splice){ (size_t)(rec - buf) + sizeof(ECS_NATIVE_KEY) - 1 +
					   PGT_JSON_SEQ_AT, seq, false };
	} else {
		rec = buf;
		sp[n++] = (struct splice){ PGT_JSON_SEQ_AT, seq, false };
	}
	if (h->role == LINE_DERIVED) {
		cause = memmem(rec, len - (size_t)(rec - buf), PGT_JSON_CAUSE_KEY,
			       sizeof(PGT_JSON_CAUSE_KEY) - 1);
		if (!cause) {
			c->err = c->err ?: -EINVAL;	/* not a record json.c wrote */
			return;
		}
		sp[n].at = (size_t)(cause - buf) + sizeof(PGT_JSON_CAUSE_KEY) - 3;
		sp[n].null = !cause_seq(c, h->key, &sp[n].value);
		n++;
	}
	put_spliced(&c->pending, buf, len, sp, n);
	if (h->role == LINE_CAUSE)
		remember(c, h->key, seq);
	c->next_seq++;
	if (c->sink)
		send_message(c, h);
}

/*
 * Write out, in order, the lines whose turn has come. The bytes of the lines
 * still held move to the front of the buffer once they are the lesser part.
 */
static void release(struct channel *c, __u64 before)
{
	size_t n, i, live = 0;
	struct sbuf keep = {};

	for (n = 0; n < c->nheld && c->held[n].key < before; n++)
		if (!c->err)
			emit(c, &c->held[n]);
	if (!n)
		return;
	c->nheld -= n;
	memmove(c->held, c->held + n, c->nheld * sizeof(*c->held));
	if (!c->nheld) {
		sbuf__reset(&c->held_bytes);
		return;
	}
	for (i = 0; i < c->nheld; i++)
		live += c->held[i].len;
	if (live * 2 > c->held_bytes.len)
		return;
	sbuf__reset(&c->spare);
	for (i = 0; i < c->nheld; i++) {
		struct held_line *h = &c->held[i];

		sbuf__put(&c->spare, c->held_bytes.buf + h->off, h->len);
		h->off = c->spare.len - h->len;
	}
	if (c->spare.oom) {
		c->err = c->err ?: -ENOMEM;
		return;
	}
	keep = c->held_bytes;
	c->held_bytes = c->spare;
	c->spare = keep;
	sbuf__reset(&c->spare);
}

size_t output__held(const struct output *o)
{
	size_t most = 0, i;

	for (i = 0; i < o->n; i++)
		if (o->ch[i].held_bytes.len > most)
			most = o->ch[i].held_bytes.len;
	return most;
}

void output__hold(struct output *o, __u64 kseq)
{
	struct channel *c;

	FOR_EACH_CHANNEL(o, c)
		c->hold_from = kseq;
}

void output__event(struct output *o, const struct pgt_event *ev)
{
	/* Reaps and snapshot records feed the model; they are not events. */
	if (ev->hdr->type == PGT_REAP || ev->hdr->type == PGT_SNAP ||
	    ev->hdr->type == PGT_SIGNAL)
		return;
	FORMAT_ALL(o, ev->hdr->seq, ev->notes & EV_DERIVED ? LINE_DERIVED : LINE_CAUSE, event, ev);
}

void output__signal(struct output *o, const struct sig_cause *c)
{
	FORMAT_ALL(o, c->first.hdr.seq, LINE_CAUSE, signal, c);
}

void output__escape(struct output *o, const struct escape *e)
{
	FORMAT_ALL(o, e->seq, LINE_DERIVED, escape, e);
}

void output__survivor(struct output *o, const struct mproc *p, __u64 now_ns)
{
	FORMAT_ALL(o, KEY_LAST, LINE_LATE, survivor, p, now_ns);
}

void output__correction(struct output *o, const struct model_note *n, const struct mproc *p,
			__u64 now_ns)
{
	FORMAT_ALL(o, KEY_LAST, LINE_LATE, correction, n, p, now_ns);
}

void output__lost(struct output *o, const struct lost_info *li)
{
	FORMAT_ALL(o, KEY_LAST, LINE_LATE, lost, li);
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
		if (c->fd < 0 || ((c->stall == ENOSPC || c->stall == EDQUOT) && now < c->retry_at)) {
			if (c->fd < 0 && now >= c->retry_at) {
				c->fd = open_log(c);	/* a FIFO's reader came? */
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

			poll(&p, 1, -1);	/* O_NONBLOCK set by someone else */
			continue;
		}
		if (!c->offline && (n == -EAGAIN || n == -ENOSPC || n == -EDQUOT ||
				    (n == -EPIPE && c->fifo))) {
			/* A reader that is slow has the line's start: the rest follows. */
			if (n != -EAGAIN)
				take_back(c);
			if (n == -EPIPE) {	/* the FIFO's reader went: wait for another */
				close(c->fd);
				c->fd = -1;
				n = -ENXIO;
			}
			c->stall = c->why = (int)-n;
			c->retry_at = now + RETRY_NS;
			break;
		}
		take_back(c);
		c->err = n ?: -EIO;	/* 0 bytes for a write of some: nothing will take them */
		break;
	}
	if (!queued(c)) {
		sbuf__reset(&c->pending);
		c->head = 0;
		if (c->stall_said && c->fd >= 0)
			fprintf(stderr, "pgrptrace: %s: written again\n", c->name);
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
		fprintf(stderr, "pgrptrace: %s: %s: records wait in its queue (%zu bytes), then "
				"are counted as lost\n", c->name,
			c->why == EAGAIN ? "it is not being read, or too slowly"
			: c->why == ENXIO ? "a FIFO with no reader"
					  : strerror(c->why), c->qmax);
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
		c->lost.said = false;	/* a new overflow is said again */
		FORMAT_ALL(o, KEY_LAST, LINE_LATE, lost, &li);
	}
}

/* A channel that fails says so once, and the others go on. */
static void said_failure(struct channel *c, int before)
{
	if (!before && c->err && c->sink && c->err != -EPIPE)
		fprintf(stderr, "pgrptrace: %s: %s; the other outputs go on\n", c->name,
			strerror(-c->err));
}

int output__flush(struct output *o)
{
	struct channel *c;
	int before, err = 0, alive = 0;

	tell_losses(o, false);
	FOR_EACH_CHANNEL(o, c) {
		before = c->err;
		release(c, c->hold_from);
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
	release(c, (__u64)-1);
	if (queued(c) + sb->len > c->qmax)
		return;		/* a tree while the reader is away: the next replaces it */
	pend(c, sb->buf, sb->len);
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
 * The end: the stream outputs get DRAIN_NS in all to take what is queued
 * (waiting in poll(2), or for a FIFO's reader or disk space); what is left
 * then is lost, counted and said.
 */
static void drain_all(struct output *o)
{
	__u64 until = clock_ns(CLOCK_MONOTONIC) + DRAIN_NS, now;
	struct channel *c;
	bool left;

	for (;;) {
		left = false;
		FOR_EACH_CHANNEL(o, c) {
			if (c->sink || c->err)
				continue;
			c->retry_at = 0;
			drain(c);
			left |= queued(c) && !c->err;
		}
		now = clock_ns(CLOCK_MONOTONIC);
		if (!left || now >= until)
			break;
		c = fd_channel(o);
		if (c && c->fd >= 0 && c->stall == EAGAIN) {
			struct pollfd p = { .fd = c->fd, .events = POLLOUT };

			poll(&p, 1, (int)((until - now) / 1000000) + 1);
		} else {
			usleep(20000);
		}
	}
	FOR_EACH_CHANNEL(o, c) {
		const char *p, *end;

		if (c->sink || c->err || !queued(c))
			continue;	/* one that failed (| head) has said so, or ends quietly */
		/* Each whole line left: a record lost (seqs are not kept per line). */
		for (p = c->pending.buf + c->head, end = c->pending.buf + c->pending.len;
		     (p = memchr(p, '\n', end - p)); p++)
			loss__add(&c->lost, false, 0, 0);
		sbuf__reset(&c->pending);
		c->head = 0;
		c->stall_said = false;	/* not written again: given up */
	}
}

unsigned long long output__close(struct output *o)
{
	unsigned long long lost = 0;
	struct channel *c;
	int before;

	if (!o)
		return 0;
	/* Losses not yet told: every output gets the record, if it has room. */
	tell_losses(o, true);
	FOR_EACH_CHANNEL(o, c)
		release(c, (__u64)-1);
	drain_all(o);
	FOR_EACH_CHANNEL(o, c) {
		before = c->err;
		flush_pending(c);
		said_failure(c, before);
		if (!c->sink && c->lost.total)
			fprintf(stderr, "pgrptrace: %s: %llu records lost (not taken while its queue "
					"was full, or by the end)\n", c->name, c->lost.total);
		lost += c->lost.total;
		if (c->own_fd && c->fd >= 0)
			close(c->fd);
		if (c->sink && c->sink->close)
			c->sink->close(c->sink_ctx);
		sbuf__free(&c->pending);
		sbuf__free(&c->held_bytes);
		sbuf__free(&c->spare);
		free(c->held);
		free(c->written);
	}
	free(o);
	return lost;
}
