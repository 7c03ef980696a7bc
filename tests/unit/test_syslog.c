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

/* The message of @json, with @text as its line, NUL-terminated in @sb. */
static const char *format(struct sbuf *sb, const char *json, const char *text,
			  unsigned long long *seq, bool *has_seq)
{
	struct sink_msg m = { json, strlen(json), text, strlen(text) };

	sbuf__reset(sb);
	syslog__format(sb, 3, "host", "42", &m, seq, has_seq);
	sbuf__putc(sb, '\0');
	assert_false(sb->oom);
	return sb->buf;
}

static void test_header(void **state)
{
	struct sbuf sb = {};
	unsigned long long seq;
	bool has;

	/* daemon.info; nanoseconds cut to RFC 5424's microseconds. */
	assert_string_equal(format(&sb, "{\"schema\":3,\"seq\":7,\"time\":"
				   "\"2026-12-06T07:06:37.658645408Z\",\"event\":\"fork\"}",
				   "a line", &seq, &has),
			    "<30>1 2026-12-06T07:06:37.658645Z host pgrptrace 42 fork "
			    "[pgrptrace@32473 schema=\"3\" seq=\"7\" time=\"2026-12-06T07:06:37."
			    "658645408Z\" event=\"fork\"] a line");
	assert_true(has);
	assert_int_equal(seq, 7);
	/* An escape is a warning, a loss an error; no MSG without a line. */
	assert_true(strncmp(format(&sb, "{\"event\":\"escape\"}", "", &seq, &has),
			    "<28>1 ", 6) == 0);
	assert_false(has);
	assert_true(strncmp(format(&sb, "{\"event\":\"lost\"}", "", &seq, &has), "<27>1 ", 6) == 0);
	assert_true(sb.buf[sb.len - 2] == ']');
	sbuf__free(&sb);
	(void)state;
}

static void test_values(void **state)
{
	struct sbuf sb = {};
	unsigned long long seq;
	bool has;
	const char *msg;

	/* One element per object, names by path; '"', '\' and ']' escaped. */
	msg = format(&sb, "{\"event\":\"setsid\",\"process\":{\"pid\":5,\"comm\":\"a\\\"b\\\\c]d\","
			  "\"parent\":{\"pid\":4},\"args\":[\"x\",\"y\"],\"tty\":null,\"subreaper\":"
			  "false}}", "", &seq, &has);
	assert_non_null(strstr(msg, "[pgrptrace@32473 event=\"setsid\"][process@32473 pid=\"5\" "
				    "comm=\"a\\\"b\\\\c\\]d\" parent.pid=\"4\" args.0=\"x\" "
				    "args.1=\"y\" subreaper=\"false\"]"));
	/* A control character: U+FFFD in the value, the exact bytes in NAME_hex. */
	msg = format(&sb, "{\"process\":{\"comm\":\"new\\nline\"}}", "", &seq, &has);
	assert_non_null(strstr(msg, "comm=\"new\xef\xbf\xbdline\" comm_hex=\"6e65770a6c696e65\""));
	/* Bytes that are not UTF-8 keep JSON's twin, and get no second one. */
	msg = format(&sb, "{\"process\":{\"comm\":\"\xef\xbf\xbd\",\"comm_hex\":\"ff\"}}", "", &seq,
		     &has);
	assert_non_null(strstr(msg, "comm=\"\xef\xbf\xbd\" comm_hex=\"ff\"]"));
	/* A top-level array stays in the record's own element. */
	msg = format(&sb, "{\"args\":[\"ls\"],\"args_hex\":null}", "", &seq, &has);
	assert_non_null(strstr(msg, "[pgrptrace@32473 args.0=\"ls\"]"));
	sbuf__free(&sb);
	(void)state;
}

static void test_hostile_header(void **state)
{
	struct sbuf sb = {};
	struct sink_msg m = { "{\"event\":\"a b\\n\"}", 17, "x", 1 };

	/* Header fields are printable US-ASCII without spaces, or "-". */
	syslog__format(&sb, 16, "ho st\n", "", &m, &(unsigned long long){ 0 }, &(bool){ 0 });
	sbuf__putc(&sb, '\0');
	assert_true(strncmp(sb.buf, "<134>1 ", 7) == 0);
	assert_non_null(strstr(sb.buf, "Z host pgrptrace - ab [pgrptrace@32473 event=\"a b"
				       "\xef\xbf\xbd\" event_hex=\"6120620a\"] x"));
	sbuf__free(&sb);
	(void)state;
}

static void test_targets(void **state)
{
	static const struct {
		const char *target;
		int kind;	/* -1: refused */
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
