// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include "clock.h"
#include "loss.h"
#include "sbuf.h"
#include "syslog.h"
#include "msg.h"

#define BACKOFF_MIN_MS 100
#define BACKOFF_MAX_MS 5000
#define DRAIN_MS       5000 /* at the end: how long the queue may take to go */
#define SD_NAME_MAX    32   /* RFC 5424: SD-NAME is 1*32PRINTUSASCII */
#define HOST_MAX       255

/* One message waiting, framed as it goes on the wire. */
struct slmsg {
	char *buf;
	size_t len;
	unsigned long long seq;
	bool has_seq;
};

struct syslog {
	enum syslog_kind kind;
	char *target; /* as given, for messages */
	struct sockaddr_storage addr;
	socklen_t addrlen;
	int fd;
	bool connecting; /* a TCP connect in progress */
	int facility;
	char host[HOST_MAX + 1];
	char procid[16];
	/* The queue: a ring of messages, oldest at head. */
	struct slmsg *q;
	size_t qcap, head, n;
	size_t qbytes, qmax;
	/* TCP: the first @wrote messages are on this connection, and @partial bytes of the next. */
	size_t wrote, partial;
	unsigned long long conn_bytes; /* written on this connection */
	unsigned long long head_at;    /* where the head message starts on it */
	/* An outage: since when, and what it has cost. */
	bool down;
	int down_err;
	__u64 next_try_ns;
	unsigned int backoff_ms;
	struct loss lost; /* records the collector never got */
	unsigned long long sent;
	struct sbuf msg; /* the message being built */
};

static const char *const facilities[24] = {
	"kern",	  "user",   "mail",	"daemon", "auth",   "syslog",	"lpr",	   "news",
	"uucp",	  "cron",   "authpriv", "ftp",	  "ntp",    "security", "console", "solaris-cron",
	"local0", "local1", "local2",	"local3", "local4", "local5",	"local6",  "local7",
};

int syslog__facility(const char *name)
{
	int i;

	for (i = 0; i < 24; i++)
		if (!strcmp(name, facilities[i]))
			return i;
	return -1;
}

/* "HOST:PORT" or "[V6]:PORT" split in place: the host and the port. */
static int split_hostport(char *hp, char **host, char **port)
{
	char *colon;

	if (*hp == '[') {
		colon = strchr(hp, ']');
		if (!colon || colon[1] != ':')
			return -EINVAL;
		*colon = '\0';
		*host = hp + 1;
		*port = colon + 2;
	} else {
		colon = strrchr(hp, ':');
		if (!colon)
			return -EINVAL;
		*colon = '\0';
		*host = hp;
		*port = colon + 1;
	}
	return **host && **port ? 0 : -EINVAL;
}

int syslog__parse_target(const char *target, enum syslog_kind *kind, char *err, size_t errlen)
{
	char buf[512], *host, *port, *end;
	long p;

	if (!strncmp(target, "tcp://", 6) || !strncmp(target, "udp://", 6)) {
		*kind = target[0] == 't' ? SYSLOG_TCP : SYSLOG_UDP;
		if (snprintf(buf, sizeof(buf), "%s", target + 6) >= (int)sizeof(buf) ||
		    split_hostport(buf, &host, &port)) {
			snprintf(err, errlen, "'%s': want %.6sHOST:PORT", target, target);
			return -EINVAL;
		}
		p = strtol(port, &end, 10);
		if (*end || p < 1 || p > 65535) {
			snprintf(err, errlen, "'%s': bad port '%s'", target, port);
			return -EINVAL;
		}
		return 0;
	}
	if (!strncmp(target, "unix:", 5))
		target += 5;
	*kind = SYSLOG_UNIX;
	if (*target != '/' || strlen(target) >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
		snprintf(err, errlen,
			 "'%s': want a socket's absolute path, tcp://HOST:PORT or "
			 "udp://HOST:PORT",
			 target);
		return -EINVAL;
	}
	return 0;
}

/* The target's address, resolved once at start: a reconnect needs no DNS. */
static int resolve(struct syslog *sl)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC }, *ai;
	char buf[512], *host, *port;
	const char *path = sl->target;
	struct sockaddr_un *un = (struct sockaddr_un *)&sl->addr;
	int r;

	if (sl->kind == SYSLOG_UNIX) {
		if (!strncmp(path, "unix:", 5))
			path += 5;
		un->sun_family = AF_UNIX;
		strcpy(un->sun_path, path); /* length checked by syslog__parse_target() */
		sl->addrlen = sizeof(*un);
		return 0;
	}
	snprintf(buf, sizeof(buf), "%s", sl->target + 6);
	if (split_hostport(buf, &host, &port))
		return -EINVAL;
	hints.ai_socktype = sl->kind == SYSLOG_TCP ? SOCK_STREAM : SOCK_DGRAM;
	r = getaddrinfo(host, port, &hints, &ai);
	if (r) {
		p_err("--syslog: cannot resolve %s: %s", host, gai_strerror(r));
		return -EINVAL;
	}
	memcpy(&sl->addr, ai->ai_addr, ai->ai_addrlen);
	sl->addrlen = ai->ai_addrlen;
	freeaddrinfo(ai);
	return 0;
}

/* ---- The message ---- */

/* @s as printable US-ASCII, at most @max bytes, "-" if nothing is left (RFC 5424 header fields). */
static void put_header_field(struct sbuf *sb, const char *s, size_t max)
{
	size_t n = 0;

	for (; *s && n < max; s++)
		if (*s > 32 && *s < 127) {
			sbuf__putc(sb, *s);
			n++;
		}
	if (!n)
		sbuf__putc(sb, '-');
}

/* The record's time, "2026-12-06T07:06:37.658645408Z", at RFC 5424's microseconds. */
static void put_timestamp(struct sbuf *sb, const char *t)
{
	struct timespec ts;
	struct tm tm;
	char buf[40];

	if (t && strlen(t) >= 20 && t[strlen(t) - 1] == 'Z' && t[19] == '.' &&
	    strspn(t + 20, "0123456789") == strlen(t) - 21) {
		sbuf__put(sb, t, strlen(t) - 21 > 6 ? 26 : strlen(t) - 1);
		sbuf__putc(sb, 'Z');
		return;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
	sbuf__printf(sb, "%s.%06ldZ", buf, ts.tv_nsec / 1000);
}

static bool is_control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

/*
 * A PARAM-VALUE: '"', '\' and ']' escaped (RFC 5424 6.3.3), and a control
 * character as U+FFFD, so that a value never breaks a collector's line.
 */
static void put_param_value(struct sbuf *sb, const char *v, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)v[i];

		if (c == '"' || c == '\\' || c == ']')
			sbuf__putc(sb, '\\');
		if (is_control(c))
			sbuf__puts(sb, "\xef\xbf\xbd");
		else
			sbuf__putc(sb, (char)c);
	}
}

/* The structured data being built: one SD-ELEMENT per top-level object. */
struct sd_build {
	struct sbuf *main; /* [pgrptrace@PEN ...]: the record's own scalars */
	struct sbuf *rest; /* the elements of its objects, one after another */
	char open[64];	   /* the object whose element is open in rest, "" if none */
};

static bool is_index(const char *s)
{
	return *s && strspn(s, "0123456789") == strlen(s);
}

/* A name's path joined with '.', from component @from; false if longer than an SD-NAME. */
static bool sd_name(char *name, const struct field *s, unsigned int from, const char *suffix)
{
	size_t len = 0, n;
	unsigned int d;

	for (d = from; d < s->depth; d++) {
		n = strlen(s->path[d]);
		if (len + (len ? 1 : 0) + n > SD_NAME_MAX)
			return false;
		if (len)
			name[len++] = '.';
		memcpy(name + len, s->path[d], n);
		len += n;
	}
	n = strlen(suffix);
	if (len + n > SD_NAME_MAX)
		return false;
	memcpy(name + len, suffix, n + 1);
	return true;
}

static void sd_scalar(void *ctx, const struct field *s)
{
	struct sd_build *b = ctx;
	char name[SD_NAME_MAX + 1];
	bool object = s->depth >= 2 && !is_index(s->path[1]);
	struct sbuf *sb = object ? b->rest : b->main;
	unsigned int from = object ? 1 : 0;
	bool control = false;
	size_t i;

	if (object && strcmp(b->open, s->path[0])) {
		if (b->open[0])
			sbuf__putc(b->rest, ']');
		snprintf(b->open, sizeof(b->open), "%s", s->path[0]);
		sbuf__printf(b->rest, "[%s@" SYSLOG_PEN, s->path[0]);
	}
	/* Our schema's names fit; a longer one would be left out (the MSG has the line). */
	if (!sd_name(name, s, from, ""))
		return;
	sbuf__printf(sb, " %s=\"", name);
	put_param_value(sb, s->text, s->text_len);
	sbuf__putc(sb, '"');
	/* A control character's exact bytes, as JSON's twins give those of non-UTF-8. */
	for (i = 0; s->exact && s->string && i < s->text_len; i++)
		control |= is_control((unsigned char)s->text[i]);
	if (control && sd_name(name, s, from, "_hex")) {
		sbuf__printf(sb, " %s=\"", name);
		sbuf__put_hex(sb, s->text, s->text_len);
		sbuf__putc(sb, '"');
	}
}

/* "<PRI>1 TIMESTAMP HOSTNAME pgrptrace PROCID MSGID": @time is the record's, NULL for now. */
static void put_header(struct sbuf *sb, int facility, const char *event, const char *time,
		       const char *host, const char *procid)
{
	sbuf__printf(sb, "<%d>1 ", facility * 8 + sink__severity(event));
	put_timestamp(sb, time);
	sbuf__putc(sb, ' ');
	put_header_field(sb, host, HOST_MAX);
	sbuf__puts(sb, " pgrptrace ");
	put_header_field(sb, procid, 128);
	sbuf__putc(sb, ' ');
	put_header_field(sb, event ? event : "", 32);
}

void syslog__format(struct sbuf *sb, int facility, const char *host, const char *procid,
		    const struct sink_msg *m)
{
	const char *event = record__name(m->rec);
	struct sbuf rest = {}, text = {};
	struct sd_build b = { .main = sb, .rest = &rest };
	char time[64];

	fmt__rfc3339(m->fc, m->rec->ts_ns, time, sizeof(time));
	put_header(sb, facility, event, time, host, procid);
	sbuf__puts(sb, " [pgrptrace@" SYSLOG_PEN);
	json__walk(m->fc, m->rec, sd_scalar, &b);
	sbuf__putc(sb, ']');
	if (b.open[0])
		sbuf__putc(&rest, ']');
	sbuf__put(sb, rest.buf, rest.len);
	sbuf__free(&rest);
	sink__line(&text, m, text__record, true);
	if (text.len) {
		sbuf__putc(sb, ' ');
		sbuf__put(sb, text.buf, text.len);
	}
	sbuf__free(&text);
}

/* ---- The connection ---- */

static void close_conn(struct syslog *sl)
{
	if (sl->fd >= 0)
		close(sl->fd);
	sl->fd = -1;
	sl->connecting = false;
	/* Whatever was not acknowledged goes again, whole, on the next connection. */
	sl->wrote = sl->partial = 0;
	sl->conn_bytes = sl->head_at = 0;
}

/* The collector is away: say so once per outage, and try again later. */
static void conn_failed(struct syslog *sl, int err)
{
	__u64 now = clock_ns(CLOCK_MONOTONIC);

	close_conn(sl);
	if (!sl->down) {
		p_err("syslog: %s: %s; holding up to %zu bytes of records "
		      "and reconnecting",
		      sl->target, strerror(err), sl->qmax);
		sl->down = true;
		sl->down_err = err;
		sl->backoff_ms = BACKOFF_MIN_MS;
	} else if (sl->backoff_ms < BACKOFF_MAX_MS) {
		sl->backoff_ms = sl->backoff_ms * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS :
								       sl->backoff_ms * 2;
	}
	sl->next_try_ns = now + sl->backoff_ms * 1000000ULL;
}

static void conn_up(struct syslog *sl)
{
	if (sl->down)
		p_err("syslog: %s: connected again; %zu records held "
		      "follow",
		      sl->target, sl->n);
	sl->down = false;
	sl->lost.said = false;
}

static int try_connect(struct syslog *sl)
{
	int type = sl->kind == SYSLOG_TCP ? SOCK_STREAM : SOCK_DGRAM;
	int fd = socket(sl->addr.ss_family, type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	if (fd < 0)
		return -errno;
	sl->fd = fd;
	if (connect(fd, (struct sockaddr *)&sl->addr, sl->addrlen)) {
		if (errno == EINPROGRESS) {
			sl->connecting = true;
			return 0;
		}
		return -errno;
	}
	conn_up(sl);
	return 0;
}

/* TCP: the collector closed the connection (it stopped, or restarts)? */
static int peer_gone(struct syslog *sl)
{
	struct pollfd p = { .fd = sl->fd, .events = POLLIN | POLLRDHUP };
	char buf[256];
	socklen_t len = sizeof(int);
	int err = 0;

	if (poll(&p, 1, 0) <= 0)
		return 0;
	if (p.revents & POLLERR) {
		getsockopt(sl->fd, SOL_SOCKET, SO_ERROR, &err, &len);
		return err ? err : EPIPE;
	}
	if (p.revents & (POLLHUP | POLLRDHUP))
		return ECONNRESET;
	/* A collector says nothing on this protocol: drain, and see whether it closed. */
	if (p.revents & POLLIN && recv(sl->fd, buf, sizeof(buf), MSG_DONTWAIT) == 0)
		return ECONNRESET;
	return 0;
}

static struct slmsg *qat(struct syslog *sl, size_t i)
{
	return &sl->q[(sl->head + i) % sl->qcap];
}

/* The oldest message leaves the queue: @sent, or lost. */
static void pop(struct syslog *sl, bool sent)
{
	struct slmsg *m = qat(sl, 0);

	if (sent)
		sl->sent++;
	else if (m->has_seq)
		loss__add(&sl->lost, true, m->seq, clock_ns(CLOCK_BOOTTIME));
	sl->qbytes -= m->len;
	free(m->buf);
	sl->head = (sl->head + 1) % sl->qcap;
	sl->n--;
}

/* TCP: messages the collector's kernel has acknowledged are delivered. */
static void pop_acked(struct syslog *sl)
{
	int unacked = 0;
	unsigned long long acked;

	if (ioctl(sl->fd, SIOCOUTQ, &unacked))
		return;
	acked = sl->conn_bytes - (unsigned long long)unacked;
	while (sl->wrote && sl->head_at + qat(sl, 0)->len <= acked) {
		sl->head_at += qat(sl, 0)->len;
		pop(sl, true);
		sl->wrote--;
	}
}

/* A datagram too large for the socket: it can never go, so it is lost. */
static void drop_head(struct syslog *sl)
{
	struct slmsg *m = qat(sl, 0);

	p_err("syslog: %s: a message of %zu bytes is too large for a "
	      "datagram; it is lost",
	      sl->target, m->len);
	pop(sl, false);
}

/* Send what the connection takes now, without waiting; connect first if due. */
static void pump(struct syslog *sl)
{
	struct slmsg *m;
	ssize_t w;
	int err;

	if (sl->fd < 0) {
		if (!sl->n || clock_ns(CLOCK_MONOTONIC) < sl->next_try_ns)
			return;
		err = try_connect(sl);
		if (err) {
			conn_failed(sl, -err);
			return;
		}
	}
	if (sl->connecting) {
		struct pollfd p = { .fd = sl->fd, .events = POLLOUT };
		socklen_t len = sizeof(int);

		if (poll(&p, 1, 0) <= 0)
			return;
		err = 0;
		getsockopt(sl->fd, SOL_SOCKET, SO_ERROR, &err, &len);
		if (err) {
			conn_failed(sl, err);
			return;
		}
		sl->connecting = false;
		conn_up(sl);
	}
	if (sl->kind == SYSLOG_TCP) {
		err = peer_gone(sl);
		if (err) {
			pop_acked(sl);
			conn_failed(sl, err);
			return;
		}
	}
	while (sl->kind == SYSLOG_TCP ? sl->wrote < sl->n : sl->n > 0) {
		m = qat(sl, sl->kind == SYSLOG_TCP ? sl->wrote : 0);
		w = send(sl->fd, m->buf + sl->partial, m->len - sl->partial,
			 MSG_DONTWAIT | MSG_NOSIGNAL);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == ENOBUFS)
				break; /* the collector is slow: the rest waits */
			if (errno == EMSGSIZE && sl->kind != SYSLOG_TCP) {
				drop_head(sl);
				continue;
			}
			err = errno;
			if (sl->kind == SYSLOG_TCP)
				pop_acked(sl);
			conn_failed(sl, err);
			return;
		}
		if (sl->kind != SYSLOG_TCP) {
			pop(sl, true);
			continue;
		}
		sl->conn_bytes += (unsigned long long)w;
		sl->partial += (size_t)w;
		if (sl->partial == m->len) {
			sl->partial = 0;
			sl->wrote++;
		}
	}
	if (sl->kind == SYSLOG_TCP)
		pop_acked(sl);
}

/* ---- The queue ---- */

static int push(struct syslog *sl, struct sbuf *body, unsigned long long seq, bool has_seq)
{
	struct slmsg *m;
	char frame[24];
	size_t flen = 0;

	if (sl->n == sl->qcap) {
		size_t cap = sl->qcap ? sl->qcap * 2 : 64, i;
		struct slmsg *q = malloc(cap * sizeof(*q));

		if (!q)
			return -ENOMEM;
		for (i = 0; i < sl->n; i++)
			q[i] = *qat(sl, i);
		free(sl->q);
		sl->q = q;
		sl->qcap = cap;
		sl->head = 0;
	}
	/* RFC 6587 octet counting: "LEN SP MSG". */
	if (sl->kind == SYSLOG_TCP)
		flen = (size_t)snprintf(frame, sizeof(frame), "%zu ", body->len);
	m = qat(sl, sl->n);
	m->buf = malloc(flen + body->len);
	if (!m->buf)
		return -ENOMEM;
	memcpy(m->buf, frame, flen);
	memcpy(m->buf + flen, body->buf, body->len);
	m->len = flen + body->len;
	m->seq = seq;
	m->has_seq = has_seq;
	sl->n++;
	sl->qbytes += m->len;
	return 0;
}

/* The records lost since the collector was last told, as a message of their own. */
static int push_lost(struct syslog *sl)
{
	struct sbuf sb = {};
	int r;

	put_header(&sb, sl->facility, "lost", NULL, sl->host, sl->procid);
	sbuf__printf(&sb,
		     " [pgrptrace@" SYSLOG_PEN " event=\"lost\" sink=\"syslog\" records=\"%llu\"",
		     sl->lost.n);
	if (sl->lost.first || sl->lost.last)
		sbuf__printf(&sb, " first_seq=\"%llu\" last_seq=\"%llu\"", sl->lost.first,
			     sl->lost.last);
	sbuf__printf(&sb,
		     "] %llu records could not be sent to this collector "
		     "(the queue was full while it was away)",
		     sl->lost.n);
	r = sb.oom ? -ENOMEM : push(sl, &sb, 0, false);
	sbuf__free(&sb);
	if (!r)
		loss__told(&sl->lost);
	return r;
}

static void count_lost(struct syslog *sl, unsigned long long seq, bool has_seq)
{
	if (!sl->lost.said) {
		p_err("syslog: %s: the queue is full (%zu bytes); records "
		      "are lost until the collector is back, and counted",
		      sl->target, sl->qmax);
		sl->lost.said = true;
	}
	loss__add(&sl->lost, has_seq, seq, clock_ns(CLOCK_BOOTTIME));
}

static int syslog_send(void *ctx, const struct sink_msg *m)
{
	struct syslog *sl = ctx;
	unsigned long long seq = m->rec->seq;
	bool has_seq = true;
	size_t need;

	pump(sl);
	sbuf__reset(&sl->msg);
	syslog__format(&sl->msg, sl->facility, sl->host, sl->procid, m);
	if (sl->msg.oom)
		return -ENOMEM;
	need = sl->msg.len + 24;
	/* What was lost is said first, once there is room for that and this record. */
	if (sl->lost.n && sl->qbytes + need + 512 <= sl->qmax && push_lost(sl))
		return -ENOMEM;
	if (sl->qbytes + need > sl->qmax) {
		count_lost(sl, seq, has_seq);
		return 0;
	}
	if (push(sl, &sl->msg, seq, has_seq))
		return -ENOMEM;
	pump(sl);
	return 0;
}

static int syslog_flush(void *ctx)
{
	pump(ctx);
	return 0;
}

/* The end: the queue gets a few seconds to go; what is still held then is lost. */
static void syslog_close(void *ctx)
{
	struct syslog *sl = ctx;
	__u64 until = clock_ns(CLOCK_MONOTONIC) + DRAIN_MS * 1000000ULL;

	if (sl->lost.n)
		push_lost(sl);
	while (sl->n && clock_ns(CLOCK_MONOTONIC) < until) {
		pump(sl);
		if (!sl->n)
			break;
		if (sl->fd >= 0) {
			struct pollfd p = { .fd = sl->fd, .events = POLLOUT | POLLRDHUP };

			poll(&p, 1, 10);
		} else {
			__u64 now = clock_ns(CLOCK_MONOTONIC), wake = sl->next_try_ns;

			if (wake > until)
				wake = until;
			if (wake > now)
				usleep((useconds_t)((wake - now) / 1000));
		}
	}
	while (sl->n)
		pop(sl, false);
	close_conn(sl);
	if (sl->lost.total)
		p_err("syslog: %s: %llu records lost, %llu sent", sl->target, sl->lost.total,
		      sl->sent);
}

const struct sink_ops syslog_sink = {
	.name = "syslog",
	.send = syslog_send,
	.flush = syslog_flush,
	.close = syslog_close,
};

unsigned long long syslog__lost(const struct syslog *sl)
{
	return sl ? sl->lost.total : 0;
}

void syslog__free(struct syslog *sl)
{
	if (!sl)
		return;
	while (sl->n)
		pop(sl, false);
	free(sl->q);
	free(sl->target);
	sbuf__free(&sl->msg);
	free(sl);
}

struct syslog *syslog__open(const struct syslog_cfg *cfg)
{
	struct syslog *sl = calloc(1, sizeof(*sl));
	char err[600];
	int r;

	if (!sl || !(sl->target = strdup(cfg->target ?: SYSLOG_DEFAULT_TARGET))) {
		p_err("--syslog: %s", strerror(ENOMEM));
		free(sl);
		return NULL;
	}
	sl->fd = -1;
	sl->facility = cfg->facility;
	sl->qmax = cfg->queue_bytes ?: SYSLOG_DEFAULT_QUEUE;
	snprintf(sl->procid, sizeof(sl->procid), "%d", (int)getpid());
	if (gethostname(sl->host, sizeof(sl->host) - 1))
		strcpy(sl->host, "-");
	if (syslog__parse_target(sl->target, &sl->kind, err, sizeof(err))) {
		p_err("--syslog: %s", err);
		goto fail;
	}
	if (resolve(sl))
		goto fail;
	/*
	 * A local socket must be there at start, as --journal's; a collector
	 * over the network may come later, and its records wait.
	 */
	r = try_connect(sl);
	if (r && sl->kind == SYSLOG_UNIX) {
		p_err("--syslog: no syslog daemon listens on %s: %s", sl->target, strerror(-r));
		goto fail;
	}
	if (r)
		conn_failed(sl, -r);
	return sl;
fail:
	syslog__free(sl);
	return NULL;
}
