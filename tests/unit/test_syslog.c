// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Unit tests: a record as an RFC 5424 message (--syslog), and its targets. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "sbuf.h"
#include "syslog.h"
#include "records.h"

/* 2026-12-06T07:06:37Z at boot time 0. */
static const struct fmt_ctx fc = { .boot_to_real_ns = 1796540797LL * 1000000000LL, .utc = true };

/* The message of @r, numbered @seq, NUL-terminated in @sb. */
static const char *format(struct sbuf *sb, struct record *r, __u64 seq, const char *host,
			  const char *procid)
{
	struct sink_msg m = { .rec = r, .fc = &fc, .tfc = &fc };

	r->seq = seq;
	sbuf__reset(sb);
	syslog__format(sb, 3, host, procid, &m);
	sbuf__putc(sb, '\0');
	assert_false(sb->oom);
	return sb->buf;
}

/* An exec of @comm with @args (NUL-separated, @len bytes), at boot time @ts. */
static void exec_record(struct record *r, struct pgt_exec *e, const char *comm, const char *args,
			size_t len, __u64 ts)
{
	struct pgt_event ev;

	memset(e, 0, sizeof(*e));
	e->proc = ctx(5, 4, 5, 5, 100, comm);
	e->old_tid = 5;
	e->flags = PGT_EXEC_HAS_ARGS;
	e->args_len = (__u16)len;
	memcpy(e->data, args, len);
	as_event(e, PGT_EXEC, PGT_EXEC_SIZE(len), ts, &ev);
	record__event(r, NULL, &ev);
}

static void test_header(void **state)
{
	static struct pgt_exec e;
	struct sbuf sb = {};
	struct record r;
	struct lost_info li = { .total = 1 };
	const char *msg;

	/* daemon.info; nanoseconds cut to RFC 5424's microseconds. */
	exec_record(&r, &e, "sh", "sh", 3, 658645408);
	msg = format(&sb, &r, 7, "host", "42");
	assert_true(strncmp(msg,
			    "<30>1 2026-12-06T07:06:37.658645Z host pgrptrace 42 exec "
			    "[pgrptrace@32473 schema=\"3\" seq=\"7\" kseq=\"658645408\" "
			    "time=\"2026-12-06T07:06:37.658645408Z\" event=\"exec\" ",
			    155) == 0);
	/* The text line is the MSG. */
	assert_non_null(strstr(msg, "] 07:06:37.658 exec"));
	record__release(&r);
	/* A loss is an error. */
	record__lost(&r, &li);
	assert_true(strncmp(format(&sb, &r, 8, "host", "42"), "<27>1 ", 6) == 0);
	record__release(&r);
	sbuf__free(&sb);
	(void)state;
}

static void test_values(void **state)
{
	static struct pgt_exec e;
	struct sbuf sb = {};
	struct record r;
	const char *msg;

	/* One element per object, names by path; '"', '\' and ']' escaped. */
	exec_record(&r, &e, "a\"b\\c]d", "x\0y", 4, 1000);
	msg = format(&sb, &r, 1, "host", "42");
	assert_non_null(strstr(msg, "[process@32473 pid=\"5\" tid=\"5\" ppid=\"4\" "));
	assert_non_null(strstr(msg, " comm=\"a\\\"b\\\\c\\]d\" "));
	assert_non_null(strstr(msg, " parent.pid=\"4\" "));
	/* A top-level array stays in the record's own element. */
	assert_non_null(strstr(msg, " args.0=\"x\" args.1=\"y\" args_truncated=\"false\""));
	record__release(&r);
	/* A control character: U+FFFD in the value, the exact bytes in NAME_hex. */
	exec_record(&r, &e, "new\nline", "", 0, 1000);
	msg = format(&sb, &r, 1, "host", "42");
	assert_non_null(strstr(msg, "comm=\"new\xef\xbf\xbdline\" comm_hex=\"6e65770a6c696e65\""));
	record__release(&r);
	/* Bytes that are not UTF-8 keep JSON's twin, and get no second one. */
	exec_record(&r, &e, "\xff", "", 0, 1000);
	msg = format(&sb, &r, 1, "host", "42");
	assert_non_null(strstr(msg, "comm=\"\xef\xbf\xbd\" comm_hex=\"ff\" "));
	assert_null(strstr(msg, "comm_hex_hex"));
	record__release(&r);
	sbuf__free(&sb);
	(void)state;
}

static void test_hostile_header(void **state)
{
	static struct pgt_exec e;
	struct sbuf sb = {};
	struct record r;

	/* Header fields are printable US-ASCII without spaces, or "-". */
	exec_record(&r, &e, "sh", "", 0, 1000);
	assert_non_null(strstr(format(&sb, &r, 1, "ho st\n", ""),
			       "Z host pgrptrace - exec [pgrptrace@32473 "));
	record__release(&r);
	sbuf__free(&sb);
	(void)state;
}

static void test_targets(void **state)
{
	static const struct {
		const char *target;
		int kind; /* -1: refused */
	} cases[] = {
		{ "/dev/log", SYSLOG_UNIX },
		{ "unix:/run/x.sock", SYSLOG_UNIX },
		{ "tcp://127.0.0.1:514", SYSLOG_TCP },
		{ "udp://[::1]:514", SYSLOG_UDP },
		{ "tcp://collector.example:6514", SYSLOG_TCP },
		{ "tcp://127.0.0.1", -1 },
		{ "tcp://:514", -1 },
		{ "udp://h:0", -1 },
		{ "udp://h:65536", -1 },
		{ "udp://[::1:514", -1 },
		{ "log.sock", -1 },
		{ "unix:relative", -1 },
	};
	enum syslog_kind kind;
	char err[600];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int r = syslog__parse_target(cases[i].target, &kind, err, sizeof(err));

		if (cases[i].kind < 0 && r != -EINVAL)
			fail_msg("%s: accepted", cases[i].target);
		if (cases[i].kind >= 0 && (r || (int)kind != cases[i].kind))
			fail_msg("%s: %d, kind %d: %s", cases[i].target, r, kind, err);
	}
	assert_int_equal(syslog__facility("daemon"), 3);
	assert_int_equal(syslog__facility("local7"), 23);
	assert_int_equal(syslog__facility("nonsense"), -1);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_header),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_hostile_header),
		cmocka_unit_test(test_targets),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
