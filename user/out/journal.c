// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
/* No CODE_FILE, CODE_LINE and CODE_FUNC of ours on the entries: they are the records. */
#define SD_JOURNAL_SUPPRESS_LOCATION
#include <systemd/sd-journal.h>
#include "dlib.h"
#include "journal.h"
#include "sbuf.h"
#include "sink.h"
#include "msg.h"

#define JOURNAL_SOCKET "/run/systemd/journal/socket"
#define NAME_MAX_LEN   64 /* journald drops longer field names */

/* libsystemd, loaded when --journal asks for it (dlib.h). */
static struct {
	typeof(sd_journal_sendv) *sd_journal_sendv;
} sdj;

struct journal {
	struct sbuf line;   /* a record's text line, then its JSON */
	struct sbuf fields; /* "NAME=value" after one another */
	size_t *ends;	    /* where each field ends in fields */
	size_t nfields, cap;
	struct iovec *iov;
	unsigned long long failed;
	int first_err;
};

static void field_end(struct journal *j)
{
	size_t *ends;

	if (j->nfields == j->cap) {
		ends = realloc(j->ends, (j->cap ? j->cap * 2 : 64) * sizeof(*ends));
		if (!ends) {
			j->fields.oom = true;
			return;
		}
		j->ends = ends;
		j->cap = j->cap ? j->cap * 2 : 64;
	}
	j->ends[j->nfields++] = j->fields.len;
}

static void add(struct journal *j, const char *name, const char *val, size_t len)
{
	sbuf__puts(&j->fields, name);
	sbuf__put(&j->fields, "=", 1);
	sbuf__put(&j->fields, val, len);
	field_end(j);
}

/* "PGRPTRACE" and each of @s's path components in upper case, joined by "_". */
static bool field_name(char *name, const struct field *s)
{
	size_t len = strlen("PGRPTRACE"), n, i;
	unsigned int d;

	memcpy(name, "PGRPTRACE", len + 1);
	for (d = 0; d < s->depth; d++) {
		n = strlen(s->path[d]);
		if (len + 1 + n > NAME_MAX_LEN)
			return false;
		name[len++] = '_';
		for (i = 0; i < n; i++) {
			char c = s->path[d][i];

			name[len++] = c >= 'a' && c <= 'z' ? (char)(c - 'a' + 'A') :
				      (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ? c :
											 '_';
		}
	}
	name[len] = '\0';
	return true;
}

/*
 * Every scalar as a field named after its path: PGRPTRACE_PROCESS_PID,
 * PGRPTRACE_ARGS_0. A string with a "_hex" twin (bytes that are not UTF-8)
 * gets its exact bytes from the twin.
 */
static void add_scalar(void *ctx, const struct field *s)
{
	char name[NAME_MAX_LEN + 1];

	if (field_name(name, s))
		add(ctx, name, s->bytes, s->bytes_len);
}

static int journal_send(void *ctx, const struct sink_msg *msg)
{
	struct journal *j = ctx;
	char prio[2];
	struct iovec *iov;
	size_t i, from;
	int r;

	sbuf__reset(&j->fields);
	j->nfields = 0;
	sink__line(&j->line, msg, text__record, true);
	add(j, "MESSAGE", j->line.buf, j->line.len);
	add(j, "SYSLOG_IDENTIFIER", "pgrptrace", 9);
	prio[0] = (char)('0' + sink__severity(record__name(msg->rec)));
	prio[1] = '\0';
	add(j, "PRIORITY", prio, 1);
	sink__line(&j->line, msg, json__record, false);
	add(j, "PGRPTRACE_JSON", j->line.buf, j->line.len);
	json__walk(msg->fc, msg->rec, add_scalar, j);
	iov = j->fields.oom ? NULL : realloc(j->iov, j->nfields * sizeof(*iov));
	if (!iov) {
		r = -ENOMEM;
	} else {
		j->iov = iov;
		for (i = 0, from = 0; i < j->nfields; from = j->ends[i++]) {
			iov[i].iov_base = j->fields.buf + from;
			iov[i].iov_len = j->ends[i] - from;
		}
		r = sdj.sd_journal_sendv(iov, (int)j->nfields);
	}
	/* journald may be restarting: count what it missed, and go on. */
	if (r < 0) {
		if (!j->failed)
			p_err("journal: cannot send: %s; counting the "
			      "records it misses",
			      strerror(-r));
		if (!j->first_err)
			j->first_err = r;
		j->failed++;
	}
	return 0;
}

static void journal_close(void *ctx)
{
	struct journal *j = ctx;

	if (j->failed)
		p_err("journal: %llu records could not be sent (%s)", j->failed,
		      strerror(-j->first_err));
	sbuf__free(&j->fields);
	sbuf__free(&j->line);
	free(j->ends);
	free(j->iov);
	/* The struct stays for journal__failed(): the exit status reads it last. */
}

const struct sink_ops journal_sink = {
	.name = "journal",
	.send = journal_send,
	.close = journal_close,
};

unsigned long long journal__failed(const struct journal *j, int *first_err)
{
	if (first_err)
		*first_err = j ? j->first_err : 0;
	return j ? j->failed : 0;
}

struct journal *journal__open(void)
{
	static const struct dlib_sym syms[] = { DLIB_SYM(sdj, sd_journal_sendv) };
	struct sockaddr_un sa = { .sun_family = AF_UNIX, .sun_path = JOURNAL_SOCKET };
	struct journal *j;
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		p_err("--journal: no journal listens on %s: %s", JOURNAL_SOCKET, strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	close(fd);
	if (!sdj.sd_journal_sendv && dlib__load("libsystemd.so.0", "--journal", syms, 1))
		return NULL;
	j = calloc(1, sizeof(*j));
	if (!j)
		p_err("--journal: %s", strerror(errno));
	return j;
}
