// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/time.h>
#include "clock.h"
#include "ecs.h"
#include "output.h"

#define OUT_BATCH	(64 * 1024)	/* flush once this much is pending */

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

/* One place the records go: a file descriptor, or a message sink. */
struct channel {
	const char *name;	/* for messages: the -o path, "output", or the sink's */
	const char *path;
	int fd;
	bool json;
	const struct formatter *fmt;	/* json_formatter, ecs_formatter or text_formatter */
	bool ecs;		/* JSON lines as ECS documents */
	bool own_fd;
	int err;		/* first write error, as -errno */
	bool watch_stall;	/* a pipe or terminal: say if its reader stops */
	/* A message sink: each record as its JSON and its text line, one send each. */
	const struct sink_ops *sink;
	void *sink_ctx;
	struct fmt_ctx fc;
	struct fmt_ctx tfc;	/* a message sink's text lines */
	struct sbuf pending;	/* whole lines not yet written */
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

/*
 * A reader that stopped reading (a paused pager, a stuck pipeline), or one
 * too slow for the event rate (a serial console): a flush that has waited a
 * second says so once, from SIGALRM (write(2) is async-signal-safe), since
 * meanwhile the kernel side drops, and counts, what does not fit in the
 * ring buffer. The write itself goes on waiting. The timer cannot tell a
 * stopped reader from a slow one, and the message names both.
 */
static volatile sig_atomic_t stall_said;

static void on_stall(int sig)
{
	static const char msg[] = "pgrptrace: the output is not being read, or too slowly: "
				  "writing it has waited a second; events that do not fit in "
				  "the ring buffer meanwhile are counted as lost\n";

	(void)sig;
	if (!stall_said && write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0)
		return;
	stall_said = 1;
}

static void watch_stalls(struct channel *c)
{
	struct sigaction sa = { .sa_handler = on_stall, .sa_flags = SA_RESTART };
	struct stat st;

	if (fstat(c->fd, &st) || S_ISREG(st.st_mode))
		return;		/* a file is never "not read" */
	sigemptyset(&sa.sa_mask);
	c->watch_stall = sigaction(SIGALRM, &sa, NULL) == 0;
}

static void stall_timer(bool on)
{
	struct itimerval it = { .it_value = { .tv_sec = on ? 1 : 0 } };

	setitimer(ITIMER_REAL, &it, NULL);
}

static int flush_pending(struct channel *c);

/* Append-only and private (0600); never through a symlink. */
static int open_log(const char *path)
{
	return open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
}

/* The channel of standard output or -o FILE: the first, if there is one. */
static struct channel *fd_channel(struct output *o)
{
	return o->n && !o->ch[0].sink ? &o->ch[0] : NULL;
}

int output__chown(struct output *o, uid_t uid, gid_t gid)
{
	struct channel *c = fd_channel(o);

	if (c && c->own_fd && fchown(c->fd, uid, gid))
		return -errno;
	return 0;
}

int output__reopen(struct output *o)
{
	struct channel *c = fd_channel(o);
	int fd;

	if (!c || !c->own_fd)
		return 0;
	flush_pending(c);
	fd = open_log(c->path);
	if (fd < 0)
		return -errno;
	close(c->fd);
	c->fd = fd;
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
	if (cfg->path) {
		c->fd = open_log(cfg->path);
		if (c->fd < 0) {
			fprintf(stderr, "pgrptrace: cannot open %s: %s\n", cfg->path,
				strerror(errno));
			free(o);
			return NULL;
		}
		c->own_fd = true;
	}
	if (!cfg->offline)	/* a slow reader only slows a replay */
		watch_stalls(c);
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

/* @len bytes into the next write, which goes out first if it would grow past a batch. */
static void pend(struct channel *c, const char *buf, size_t len)
{
	if (c->pending.len + len > OUT_BATCH)
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

	if (c->json && !c->sink && c->pending.len + len + 60 > OUT_BATCH) /* 60: three numbers */
		flush_pending(c);
	if (!c->json) {
		pend(c, buf, len);
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
 * A write that stops short (a full disk) would leave half a record at the
 * end of a file: cut the file back to the last whole record.
 */
static void trim_partial(struct channel *c, off_t start, size_t written)
{
	const char *nl;

	if (start < 0)
		return;
	nl = memrchr(c->pending.buf, '\n', written);
	if (ftruncate(c->fd, start + (nl ? nl - c->pending.buf + 1 : 0)))
		return;	/* the error being reported already says what went wrong */
}

static int flush_pending(struct channel *c)
{
	bool watch = c->watch_stall && !stall_said && c->pending.len;
	size_t off = 0;
	off_t start = -1;
	struct stat st;
	ssize_t n;

	if (c->err)
		return c->err;
	if (c->sink)
		return c->sink->flush ? (c->err = c->sink->flush(c->sink_ctx)) : 0;
	if (c->own_fd && c->pending.len && !fstat(c->fd, &st) && S_ISREG(st.st_mode))
		start = st.st_size;
	if (watch)
		stall_timer(true);
	while (off < c->pending.len) {
		n = write(c->fd, c->pending.buf + off, c->pending.len - off);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			c->err = -errno;
			if (off)
				trim_partial(c, start, off);
			break;
		}
		off += (size_t)n;
	}
	if (watch)
		stall_timer(false);
	sbuf__reset(&c->pending);
	return c->err;
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

void output__close(struct output *o)
{
	struct channel *c;
	int before;

	if (!o)
		return;
	FOR_EACH_CHANNEL(o, c) {
		before = c->err;
		release(c, (__u64)-1);
		flush_pending(c);
		said_failure(c, before);
		if (c->own_fd)
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
}
