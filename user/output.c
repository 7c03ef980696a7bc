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

struct output {
	const char *path;
	int fd;
	bool json;
	const struct formatter *fmt;	/* json_formatter or text_formatter */
	bool ecs;		/* JSON lines as ECS documents */
	bool own_fd;
	int err;		/* first write error, as -errno */
	bool watch_stall;	/* a pipe or terminal: say if its reader stops */
	struct fmt_ctx fc;
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

static void watch_stalls(struct output *o)
{
	struct sigaction sa = { .sa_handler = on_stall, .sa_flags = SA_RESTART };
	struct stat st;

	if (fstat(o->fd, &st) || S_ISREG(st.st_mode))
		return;		/* a file is never "not read" */
	sigemptyset(&sa.sa_mask);
	o->watch_stall = sigaction(SIGALRM, &sa, NULL) == 0;
}

static void stall_timer(bool on)
{
	struct itimerval it = { .it_value = { .tv_sec = on ? 1 : 0 } };

	setitimer(ITIMER_REAL, &it, NULL);
}

static int output__flush_pending(struct output *o);

/* Append-only and private (0600); never through a symlink. */
static int open_log(const char *path)
{
	return open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
}

int output__chown(struct output *o, uid_t uid, gid_t gid)
{
	if (o->own_fd && fchown(o->fd, uid, gid))
		return -errno;
	return 0;
}

int output__reopen(struct output *o)
{
	int fd;

	if (!o->own_fd)
		return 0;
	output__flush_pending(o);
	fd = open_log(o->path);
	if (fd < 0)
		return -errno;
	close(o->fd);
	o->fd = fd;
	return 0;
}

struct output *output__open(const struct output_cfg *cfg)
{
	struct output *o = calloc(1, sizeof(*o));

	if (!o) {
		fprintf(stderr, "pgrptrace: cannot allocate output: %s\n", strerror(errno));
		return NULL;
	}
	o->hold_from = (__u64)-1;
	o->json = cfg->json || cfg->ecs;
	o->fmt = cfg->ecs ? &ecs_formatter : o->json ? &json_formatter : &text_formatter;
	o->ecs = cfg->ecs;
	o->path = cfg->path;
	o->fd = STDOUT_FILENO;
	if (cfg->path) {
		o->fd = open_log(cfg->path);
		if (o->fd < 0) {
			fprintf(stderr, "pgrptrace: cannot open %s: %s\n", cfg->path,
				strerror(errno));
			free(o);
			return NULL;
		}
		o->own_fd = true;
	}
	if (!cfg->offline)	/* a slow reader only slows a replay */
		watch_stalls(o);
	o->fc.boot_to_real_ns = (__s64)(clock_ns(CLOCK_REALTIME) - clock_ns(CLOCK_BOOTTIME));
	o->fc.utc = cfg->utc;
	/* A file is read days later, and --utc is for comparing with other logs. */
	o->fc.dated = cfg->path || cfg->utc;
	/* Colour only for a person: text on a terminal, unless NO_COLOR is set. */
	o->fc.color = !o->json && !cfg->path && isatty(STDOUT_FILENO) &&
		      !(getenv("NO_COLOR") && *getenv("NO_COLOR"));
	return o;
}

void output__set_clock(struct output *o, __s64 boot_to_real_ns)
{
	o->fc.boot_to_real_ns = boot_to_real_ns;
}

void output__set_host(struct output *o, const struct host_id *host)
{
	o->fc.host = host;
}

void output__set_model(struct output *o, const struct model *m)
{
	o->fc.model = m;
}

void output__start(struct output *o)
{
	if (!o->json)
		text__header(&o->pending, &o->fc);
}

/*
 * The line formatted at @off of held_bytes, up to its end, into the queue
 * by key; most lines come in order and go at the tail.
 */
static void output__commit_line(struct output *o, __u64 key, size_t off, enum line_role role)
{
	struct held_line *h;
	size_t i;

	if (o->nheld == o->held_cap) {
		size_t cap = o->held_cap ? o->held_cap * 2 : 256;

		h = realloc(o->held, cap * sizeof(*h));
		if (!h) {
			o->err = o->err ?: -ENOMEM;
			return;
		}
		o->held = h;
		o->held_cap = cap;
	}
	if (o->held_bytes.oom) {
		o->err = o->err ?: -ENOMEM;
		return;
	}
	if (key > o->last_key)
		o->last_key = key;
	/* After the lines of lower keys; a record before the others of its key. */
	for (i = o->nheld; i > 0 && (o->held[i - 1].key > key ||
				     (o->held[i - 1].key == key && role == LINE_CAUSE &&
				      o->held[i - 1].role != LINE_CAUSE)); i--)
		;
	memmove(&o->held[i + 1], &o->held[i], (o->nheld - i) * sizeof(*o->held));
	o->held[i] = (struct held_line){ key, off, o->held_bytes.len - off, role };
	o->nheld++;
}

/* @len bytes into the next write, which goes out first if it would grow past a batch. */
static void output__pend(struct output *o, const char *buf, size_t len)
{
	if (o->pending.len + len > OUT_BATCH)
		output__flush_pending(o);
	sbuf__put(&o->pending, buf, len);
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
			return;		/* derived records then say null */
	}
	o->written[o->written_at] = (struct written){ key, seq };
	o->written_at = (o->written_at + 1) % WRITTEN_MAX;
	if (o->nwritten < WRITTEN_MAX)
		o->nwritten++;
}

/*
 * A line's turn: its seq spliced in where the placeholder "0" after
 * {"schema":3,"seq": stands (with --ecs, also after "sequence":), a derived
 * record's cause's seq (or null) where its "cause_seq" placeholder stands,
 * then into the next write.
 */
static void output__emit(struct output *o, const struct held_line *h)
{
	static const char native[] = ECS_NATIVE_KEY PGT_JSON_HEAD;
	const char *buf = o->held_bytes.buf + h->off, *ecs_seq, *rec, *cause;
	struct splice sp[3] = {};
	size_t len = h->len;
	unsigned int n = 0;
	__u64 seq = o->next_seq;

	if (o->json && o->pending.len + len + 60 > OUT_BATCH)	/* 60: three numbers' digits */
		output__flush_pending(o);
	if (!o->json) {
		output__pend(o, buf, len);
		return;
	}
	if (o->ecs) {
		/* Keys of ours: no escaped string can hold them. */
		ecs_seq = memmem(buf, len, ECS_SEQ_KEY, sizeof(ECS_SEQ_KEY) - 1);
		rec = memmem(buf, len, native, sizeof(native) - 1);
		if (!ecs_seq || !rec || rec < ecs_seq) {
			o->err = o->err ?: -EINVAL;	/* not a document ecs.c wrote */
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
			o->err = o->err ?: -EINVAL;	/* not a record json.c wrote */
			return;
		}
		sp[n].at = (size_t)(cause - buf) + sizeof(PGT_JSON_CAUSE_KEY) - 3;
		sp[n].null = !cause_seq(o, h->key, &sp[n].value);
		n++;
	}
	put_spliced(&o->pending, buf, len, sp, n);
	if (h->role == LINE_CAUSE)
		remember(o, h->key, seq);
	o->next_seq++;
}

/*
 * Write out, in order, the lines whose turn has come. The bytes of the lines
 * still held move to the front of the buffer once they are the lesser part.
 */
static void output__release(struct output *o, __u64 before)
{
	size_t n, i, live = 0;
	struct sbuf keep = {};

	for (n = 0; n < o->nheld && o->held[n].key < before; n++)
		if (!o->err)
			output__emit(o, &o->held[n]);
	if (!n)
		return;
	o->nheld -= n;
	memmove(o->held, o->held + n, o->nheld * sizeof(*o->held));
	if (!o->nheld) {
		sbuf__reset(&o->held_bytes);
		return;
	}
	for (i = 0; i < o->nheld; i++)
		live += o->held[i].len;
	if (live * 2 > o->held_bytes.len)
		return;
	sbuf__reset(&o->spare);
	for (i = 0; i < o->nheld; i++) {
		struct held_line *h = &o->held[i];

		sbuf__put(&o->spare, o->held_bytes.buf + h->off, h->len);
		h->off = o->spare.len - h->len;
	}
	if (o->spare.oom) {
		o->err = o->err ?: -ENOMEM;
		return;
	}
	keep = o->held_bytes;
	o->held_bytes = o->spare;
	o->spare = keep;
	sbuf__reset(&o->spare);
}

void output__hold(struct output *o, __u64 kseq)
{
	o->hold_from = kseq;
}

void output__event(struct output *o, const struct pgt_event *ev)
{
	size_t off;

	/* Reaps and snapshot records feed the model; they are not events. */
	if (o->err || ev->hdr->type == PGT_REAP || ev->hdr->type == PGT_SNAP ||
	    ev->hdr->type == PGT_SIGNAL)
		return;
	off = o->held_bytes.len;
	o->fmt->event(&o->held_bytes, &o->fc, ev);
	output__commit_line(o, ev->hdr->seq, off,
			    ev->notes & EV_DERIVED ? LINE_DERIVED : LINE_CAUSE);
}

void output__signal(struct output *o, const struct sig_cause *c)
{
	size_t off;

	if (o->err)
		return;
	off = o->held_bytes.len;
	o->fmt->signal(&o->held_bytes, &o->fc, c);
	output__commit_line(o, c->first.hdr.seq, off, LINE_CAUSE);
}

void output__escape(struct output *o, const struct escape *e)
{
	size_t off;

	if (o->err)
		return;
	off = o->held_bytes.len;
	o->fmt->escape(&o->held_bytes, &o->fc, e);
	output__commit_line(o, e->seq, off, LINE_DERIVED);
}

void output__survivor(struct output *o, const struct mproc *p, __u64 now_ns)
{
	size_t off;

	if (o->err)
		return;
	off = o->held_bytes.len;
	o->fmt->survivor(&o->held_bytes, &o->fc, p, now_ns);
	output__commit_line(o, o->last_key, off, LINE_LATE);
}

void output__correction(struct output *o, const struct model_note *n, const struct mproc *p,
			__u64 now_ns)
{
	size_t off;

	if (o->err)
		return;
	off = o->held_bytes.len;
	o->fmt->correction(&o->held_bytes, &o->fc, n, p, now_ns);
	output__commit_line(o, o->last_key, off, LINE_LATE);
}

void output__lost(struct output *o, const struct lost_info *li)
{
	size_t off;

	if (o->err)
		return;
	off = o->held_bytes.len;
	o->fmt->lost(&o->held_bytes, &o->fc, li);
	output__commit_line(o, o->last_key, off, LINE_LATE);
}

/*
 * A write that stops short (a full disk) would leave half a record at the
 * end of a file: cut the file back to the last whole record.
 */
static void trim_partial(struct output *o, off_t start, size_t written)
{
	const char *nl;

	if (start < 0)
		return;
	nl = memrchr(o->pending.buf, '\n', written);
	if (ftruncate(o->fd, start + (nl ? nl - o->pending.buf + 1 : 0)))
		return;	/* the error being reported already says what went wrong */
}

static int output__flush_pending(struct output *o)
{
	bool watch = o->watch_stall && !stall_said && o->pending.len;
	size_t off = 0;
	off_t start = -1;
	struct stat st;
	ssize_t n;

	if (o->err)
		return o->err;
	if (o->own_fd && o->pending.len && !fstat(o->fd, &st) && S_ISREG(st.st_mode))
		start = st.st_size;
	if (watch)
		stall_timer(true);
	while (off < o->pending.len) {
		n = write(o->fd, o->pending.buf + off, o->pending.len - off);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			o->err = -errno;
			if (off)
				trim_partial(o, start, off);
			break;
		}
		off += (size_t)n;
	}
	if (watch)
		stall_timer(false);
	sbuf__reset(&o->pending);
	return o->err;
}

int output__flush(struct output *o)
{
	output__release(o, o->hold_from);
	return output__flush_pending(o);
}

/* Not a record: no seq, and written after every record queued before it. */
void output__raw(struct output *o, const struct sbuf *sb)
{
	if (o->err || !sb->len)
		return;
	output__release(o, (__u64)-1);
	output__pend(o, sb->buf, sb->len);
}

int output__error(const struct output *o)
{
	return o->err;
}

void output__close(struct output *o)
{
	if (!o)
		return;
	output__release(o, (__u64)-1);
	output__flush_pending(o);
	if (o->own_fd)
		close(o->fd);
	sbuf__free(&o->pending);
	sbuf__free(&o->held_bytes);
	sbuf__free(&o->spare);
	free(o->held);
	free(o->written);
	free(o);
}
