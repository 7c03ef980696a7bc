// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <jansson.h>
/* No CODE_FILE, CODE_LINE and CODE_FUNC of ours on the entries: they are the records. */
#define SD_JOURNAL_SUPPRESS_LOCATION
#include <systemd/sd-journal.h>
#include "journal.h"
#include "sbuf.h"

#define JOURNAL_SOCKET	"/run/systemd/journal/socket"
#define NAME_MAX_LEN	64	/* journald drops longer field names */

struct journal {
	struct sbuf fields;	/* "NAME=value" after one another */
	size_t *ends;		/* where each field ends in fields */
	size_t nfields, cap;
	struct iovec *iov;
	unsigned long long failed;
	int first_err;
};

int journal__priority(const char *event)
{
	if (!event)
		return 6;
	if (!strcmp(event, "lost"))
		return 3;	/* err: what was asked for is incomplete */
	if (!strcmp(event, "escape"))
		return 4;	/* warning */
	if (!strcmp(event, "correction") || !strcmp(event, "survivor"))
		return 5;	/* notice */
	return 6;		/* info */
}

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

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* A field's exact bytes from its "_hex" twin: the value, decoded in place in @j. */
static void add_hex(struct journal *j, const char *name, const char *hex)
{
	size_t i, n = strlen(hex) / 2;
	int hi, lo;

	sbuf__puts(&j->fields, name);
	sbuf__put(&j->fields, "=", 1);
	for (i = 0; i < n; i++) {
		hi = hexval(hex[2 * i]);
		lo = hexval(hex[2 * i + 1]);
		if (hi < 0 || lo < 0)
			break;
		sbuf__putc(&j->fields, (char)(hi << 4 | lo));
	}
	field_end(j);
}

/* @name with "_KEY" (upper case) appended; false if it would be too long. */
static bool name_append(char *name, size_t *len, const char *key)
{
	size_t n = strlen(key), i;

	if (*len + 1 + n > NAME_MAX_LEN)
		return false;
	name[(*len)++] = '_';
	for (i = 0; i < n; i++) {
		char c = key[i];

		name[(*len)++] = c >= 'a' && c <= 'z' ? (char)(c - 'a' + 'A') :
				 (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ? c : '_';
	}
	name[*len] = '\0';
	return true;
}

/*
 * Every scalar of @v as a field named after its path: PGRPTRACE_PROCESS_PID,
 * PGRPTRACE_ARGS_0. A string with a "_hex" twin (bytes that are not UTF-8)
 * takes its exact bytes from the twin; null is left out.
 */
static void flatten(struct journal *j, json_t *v, char *name, size_t len, const char *hex)
{
	char buf[32];
	const char *key;
	json_t *m, *e, *twin;
	size_t i, at;

	switch (json_typeof(v)) {
	case JSON_OBJECT:
		json_object_foreach(v, key, m) {
			at = len;
			if (!name_append(name, &at, key))
				continue;
			snprintf(buf, sizeof(buf), "%s_hex", key);
			twin = strlen(key) + 5 <= sizeof(buf) - 1 ? json_object_get(v, buf) : NULL;
			if (json_is_array(m) && json_is_array(twin)) {
				json_array_foreach(m, i, e) {
					size_t at2 = at;
					char idx[24];

					snprintf(idx, sizeof(idx), "%zu", i);
					if (name_append(name, &at2, idx))
						flatten(j, e, name, at2,
							json_string_value(json_array_get(twin, i)));
				}
				name[len] = '\0';
				continue;
			}
			flatten(j, m, name, at, json_is_string(m) ? json_string_value(twin) : NULL);
			name[len] = '\0';
		}
		return;
	case JSON_ARRAY:
		json_array_foreach(v, i, m) {
			at = len;
			snprintf(buf, sizeof(buf), "%zu", i);
			if (name_append(name, &at, buf))
				flatten(j, m, name, at, NULL);
			name[len] = '\0';
		}
		return;
	case JSON_STRING:
		if (hex)
			add_hex(j, name, hex);
		else
			add(j, name, json_string_value(v), json_string_length(v));
		return;
	case JSON_INTEGER:
		snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		add(j, name, buf, strlen(buf));
		return;
	case JSON_REAL:
		snprintf(buf, sizeof(buf), "%.17g", json_real_value(v));
		add(j, name, buf, strlen(buf));
		return;
	case JSON_TRUE:
		add(j, name, "true", 4);
		return;
	case JSON_FALSE:
		add(j, name, "false", 5);
		return;
	case JSON_NULL:
		return;
	}
}

static int journal_send(void *ctx, const struct sink_msg *msg)
{
	struct journal *j = ctx;
	char name[NAME_MAX_LEN + 1] = "PGRPTRACE", prio[2];
	json_t *root = json_loadb(msg->json, msg->json_len, 0, NULL);
	struct iovec *iov;
	size_t i, from;
	int r;

	sbuf__reset(&j->fields);
	j->nfields = 0;
	add(j, "MESSAGE", msg->text, msg->text_len);
	add(j, "SYSLOG_IDENTIFIER", "pgrptrace", 9);
	prio[0] = (char)('0' + journal__priority(json_string_value(json_object_get(root, "event"))));
	prio[1] = '\0';
	add(j, "PRIORITY", prio, 1);
	add(j, "PGRPTRACE_JSON", msg->json, msg->json_len);
	if (root)
		flatten(j, root, name, strlen(name), NULL);
	json_decref(root);
	iov = j->fields.oom ? NULL : realloc(j->iov, j->nfields * sizeof(*iov));
	if (!iov) {
		r = -ENOMEM;
	} else {
		j->iov = iov;
		for (i = 0, from = 0; i < j->nfields; from = j->ends[i++]) {
			iov[i].iov_base = j->fields.buf + from;
			iov[i].iov_len = j->ends[i] - from;
		}
		r = sd_journal_sendv(iov, (int)j->nfields);
	}
	/* journald may be restarting: count what it missed, and go on. */
	if (r < 0) {
		if (!j->failed)
			fprintf(stderr, "pgrptrace: journal: cannot send: %s; counting the "
					"records it misses\n", strerror(-r));
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
		fprintf(stderr, "pgrptrace: journal: %llu records could not be sent (%s)\n",
			j->failed, strerror(-j->first_err));
	sbuf__free(&j->fields);
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
	struct sockaddr_un sa = { .sun_family = AF_UNIX, .sun_path = JOURNAL_SOCKET };
	struct journal *j;
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		fprintf(stderr, "pgrptrace: --journal: no journal listens on %s: %s\n",
			JOURNAL_SOCKET, strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	close(fd);
	j = calloc(1, sizeof(*j));
	if (!j)
		fprintf(stderr, "pgrptrace: --journal: %s\n", strerror(errno));
	return j;
}
