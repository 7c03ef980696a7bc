// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests: both encoders, above all with hostile process names. Every
 * JSON line is parsed back with jansson; every text line is unescaped back
 * to the original bytes.
 */
#include <locale.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>
#include <jansson.h>
#include "format.h"
#include "output.h"
#include "model.h"
#include "sigmerge.h"
#include "records.h"

static const struct fmt_ctx fc = { .boot_to_real_ns = 1764754200LL * 1000000000LL, .utc = true };

/* What the records the helpers below make know of their processes: NULL, nothing. */
static const struct model *fmt_model;

static void fmt_event(record_fmt fmt, struct sbuf *sb, const struct fmt_ctx *c,
		      const struct pgt_event *ev)
{
	struct record r;

	record__event(&r, fmt_model, ev);
	fmt(sb, c, &r);
	record__release(&r);
}

static void text_signal(struct sbuf *sb, const struct fmt_ctx *c, const struct sig_cause *sc)
{
	struct record r;

	record__signal(&r, fmt_model, sc);
	text__record(sb, c, &r);
	record__release(&r);
}

static void fmt_lost(record_fmt fmt, struct sbuf *sb, const struct fmt_ctx *c,
		     const struct lost_info *li)
{
	struct record r;

	record__lost(&r, li);
	fmt(sb, c, &r);
	record__release(&r);
}

static void json_correction(struct sbuf *sb, const struct fmt_ctx *c, const struct model_note *n,
			    const struct mproc *p, __u64 now_ns)
{
	struct record r;

	record__correction(&r, fmt_model, n, p, now_ns);
	json__record(sb, c, &r);
	record__release(&r);
}

/* Names a process can give itself with prctl(PR_SET_NAME), up to 16 bytes. */
static const char *const hostile[] = {
	"plain",
	"new\nline",
	"\x1b[2J\x1b[H", /* clear the screen */
	"q\"uo'te",
	"back\\slash",
	"\xff\xfe\x80", /* invalid UTF-8 */
	"caf\xc3\xa9",	/* valid UTF-8 */
	"\xc2\x9b"
	"31m", /* C1 CSI */
	"tab\there\r",
	"\xed\xa0\x80",		       /* an encoded surrogate: invalid */
	"0123456789abcdef",	       /* all 16 bytes, no NUL */
	"a\xe2\x80\xaetxt.exe",	       /* U+202E right-to-left override */
	"one\xe2\x80\xa8two",	       /* U+2028 line separator */
	"i\xe2\x81\xa6so\xe2\x81\xa9", /* U+2066, U+2069: an isolate */
};

/* Raw bytes that must never reach a line: RLO, LRE..PDF, LS, PS, the isolates. */
static void assert_no_invisible(const struct sbuf *sb)
{
	static const char *const bad[] = { "\xe2\x80\xae", "\xe2\x80\xa8", "\xe2\x80\xa9",
					   "\xe2\x81\xa6", "\xe2\x81\xa9" };
	size_t k;

	for (k = 0; k < sizeof(bad) / sizeof(bad[0]); k++)
		assert_null(memmem(sb->buf, sb->len, bad[k], 3));
}

static void fill_proc(struct pgt_proc *p, const char *comm)
{
	memset(p, 0, sizeof(*p));
	p->pid = 1234;
	p->tid = 1234;
	p->ppid = 1200;
	p->pgid = 1234;
	p->sid = 1100;
	p->uid = 1000;
	p->auid = PGT_ID_UNSET;
	p->ses = PGT_ID_UNSET;
	p->start_ns = 987654321;
	p->pidns_ino = 4026531836ULL;
	p->ns_pid = 1234;
	p->tty_nr = (136 << 8) | 3;
	strcpy(p->tty, "pts3");
	memcpy(p->comm, comm, strnlen(comm, sizeof(p->comm)));
}

static json_t *parse_line(const struct sbuf *sb)
{
	json_error_t err;
	json_t *j;

	/* Exactly one line. */
	assert_true(sb->len > 0);
	assert_int_equal(sb->buf[sb->len - 1], '\n');
	assert_null(memchr(sb->buf, '\n', sb->len - 1));
	j = json_loadb(sb->buf, sb->len, 0, &err);
	if (!j)
		fail_msg("invalid JSON (%s): %s", err.text, sb->buf);
	return j;
}

static void hex_decode(const char *hex, char *out, size_t *len)
{
	size_t i, n = strlen(hex) / 2;

	for (i = 0; i < n; i++) {
		unsigned int b;

		assert_int_equal(sscanf(hex + 2 * i, "%2x", &b), 1);
		out[i] = (char)b;
	}
	*len = n;
}

static void test_json_hostile_comm(void **state)
{
	struct pgt_exec rec;
	struct pgt_event ev = { .hdr = &rec.hdr, .exec = &rec };
	struct sbuf sb = {};
	size_t i;

	for (i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
		size_t want = strnlen(hostile[i], PGT_COMM_LEN), got;
		json_t *j, *proc, *hex;
		char raw[64];

		memset(&rec, 0, sizeof(rec));
		rec.hdr.type = PGT_EXEC;
		rec.hdr.size = sizeof(rec);
		rec.hdr.seq = i;
		fill_proc(&rec.proc, hostile[i]);
		rec.old_tid = 1234;
		memcpy(rec.filename, hostile[i], want);
		sbuf__reset(&sb);
		fmt_event(json__record, &sb, &fc, &ev);
		assert_no_invisible(&sb);
		j = parse_line(&sb);
		proc = json_object_get(j, "process");
		assert_non_null(proc);
		hex = json_object_get(proc, "comm_hex");
		if (hex) {
			/* Not UTF-8: the hex field gives the bytes back exactly. */
			hex_decode(json_string_value(hex), raw, &got);
			assert_int_equal(got, want);
			assert_memory_equal(raw, hostile[i], want);
			assert_non_null(json_object_get(j, "filename_hex"));
		} else {
			const char *s = json_string_value(json_object_get(proc, "comm"));

			assert_non_null(s);
			assert_int_equal(strlen(s), want);
			assert_memory_equal(s, hostile[i], want);
		}
		assert_null(json_object_get(j, "old_tid"));
		json_decref(j);
	}
	sbuf__free(&sb);
}

/*
 * The fields a message sink takes, the old way: the record's JSON parsed
 * back and walked, each scalar "path=text|bytes|exact\n", null left out, a
 * string's bytes from its "_hex" twin (as the journal and syslog sinks did
 * before json__walk()).
 */
static void flat_json(json_t *v, char *path, size_t plen, const char *hex, struct sbuf *out)
{
	const char *key;
	json_t *m, *twin;
	size_t i, n;
	char name[96];

	switch (json_typeof(v)) {
	case JSON_OBJECT:
		json_object_foreach(v, key, m) {
			snprintf(name, sizeof(name), "%s_hex", key);
			twin = json_object_get(v, name);
			n = (size_t)snprintf(path + plen, 512 - plen, "%s%s", plen ? "." : "", key);
			if (json_is_array(m)) {
				for (i = 0; i < json_array_size(m); i++) {
					size_t k = (size_t)snprintf(path + plen + n, 512 - plen - n,
								    ".%zu", i);

					flat_json(json_array_get(m, i), path, plen + n + k,
						  json_string_value(json_array_get(twin, i)), out);
				}
			} else {
				flat_json(m, path, plen + n,
					  json_is_string(m) ? json_string_value(twin) : NULL, out);
			}
			path[plen] = '\0';
		}
		return;
	case JSON_STRING: {
		char raw[8192];
		size_t got = 0;

		if (hex)
			hex_decode(hex, raw, &got);
		sbuf__printf(out, "%.*s=", (int)plen, path);
		sbuf__put(out, json_string_value(v), json_string_length(v));
		sbuf__putc(out, '|');
		if (hex)
			sbuf__put(out, raw, got);
		else
			sbuf__put(out, json_string_value(v), json_string_length(v));
		sbuf__printf(out, "|%d\n", !hex);
		return;
	}
	case JSON_INTEGER:
		sbuf__printf(out, "%.*s=%lld|%lld|1\n", (int)plen, path,
			     (long long)json_integer_value(v), (long long)json_integer_value(v));
		return;
	case JSON_TRUE:
	case JSON_FALSE:
		sbuf__printf(out, "%.*s=%s|%s|1\n", (int)plen, path,
			     json_is_true(v) ? "true" : "false",
			     json_is_true(v) ? "true" : "false");
		return;
	default:
		return;
	}
}

/* The same, from json__walk(). */
static void on_field(void *ctx, const struct field *f)
{
	struct sbuf *out = ctx;
	unsigned int d;

	for (d = 0; d < f->depth; d++)
		sbuf__printf(out, "%s%s", d ? "." : "", f->path[d]);
	sbuf__putc(out, '=');
	sbuf__put(out, f->text, f->text_len);
	sbuf__putc(out, '|');
	sbuf__put(out, f->bytes, f->bytes_len);
	sbuf__printf(out, "|%d\n", f->exact);
}

/* What the sinks send is what the JSON says, field by field, hostile names and all. */
static void test_fields_walk_is_the_json(void **state)
{
	static const char args[] = "sh\0-c\0\xff\xfe\0tab\there\0";
	struct host_id host;
	struct fmt_ctx c = fc;
	struct pgt_exec rec;
	struct pgt_event ev = { .hdr = &rec.hdr, .exec = &rec };
	struct sbuf js = {}, want = {}, got = {};
	char path[512] = "";
	struct record r;
	json_t *j;
	size_t i;

	host__set(&host, "ho\xffst", "0123456789abcdef0123456789abcdef", "b00t");
	c.host = &host;
	for (i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
		memset(&rec, 0, sizeof(rec));
		rec.hdr.type = PGT_EXEC;
		rec.hdr.size = (__u16)PGT_EXEC_SIZE(sizeof(args));
		rec.hdr.seq = i;
		fill_proc(&rec.proc, hostile[i]);
		rec.old_tid = 1234;
		memcpy(rec.filename, hostile[i], strnlen(hostile[i], PGT_COMM_LEN));
		rec.flags = PGT_EXEC_HAS_ARGS;
		rec.args_len = sizeof(args);
		memcpy(rec.data, args, sizeof(args));
		record__event(&r, NULL, &ev);
		r.seq = 40 + i;
		sbuf__reset(&js);
		sbuf__reset(&want);
		sbuf__reset(&got);
		json__record(&js, &c, &r);
		j = parse_line(&js);
		flat_json(j, path, 0, NULL, &want);
		json_decref(j);
		json__walk(&c, &r, on_field, &got);
		record__release(&r);
		assert_non_null(want.buf);
		assert_non_null(got.buf);
		if (strcmp(want.buf, got.buf))
			fail_msg("name %zu: the walk differs from the JSON:\n%s\n--\n%s", i,
				 want.buf, got.buf);
	}
	sbuf__free(&js);
	sbuf__free(&want);
	sbuf__free(&got);
	(void)state;
}

/* Undo the text escaping: "\\" and "\xNN". */
static size_t text_unescape(const char *s, size_t n, char *out)
{
	size_t i = 0, o = 0;

	while (i < n) {
		if (s[i] == '\\' && i + 1 < n && s[i + 1] == '\\') {
			out[o++] = '\\';
			i += 2;
		} else if (s[i] == '\\' && i + 3 < n && s[i + 1] == 'x') {
			unsigned int b;

			assert_int_equal(sscanf(s + i + 2, "%2x", &b), 1);
			out[o++] = (char)b;
			i += 4;
		} else {
			out[o++] = s[i++];
		}
	}
	return o;
}

static void test_text_hostile_comm(void **state)
{
	struct sbuf sb = {};
	size_t i, j;

	for (i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
		size_t want = strnlen(hostile[i], PGT_COMM_LEN);
		char back[128];
		size_t n;

		sbuf__reset(&sb);
		sbuf__put_text(&sb, hostile[i], PGT_COMM_LEN);
		assert_no_invisible(&sb);
		for (j = 0; j < sb.len; j++) {
			unsigned char c = (unsigned char)sb.buf[j];

			assert_false(c < 0x20 || c == 0x7f);
			/* No C1 control survives either. */
			if (c == 0xc2 && j + 1 < sb.len)
				assert_true((unsigned char)sb.buf[j + 1] >= 0xa0);
		}
		n = text_unescape(sb.buf, sb.len, back);
		assert_int_equal(n, want);
		assert_memory_equal(back, hostile[i], want);
	}
	sbuf__free(&sb);
}

/* Columns are padded by what a terminal shows: a wide name, a combining mark. */
static void test_text_pads_by_width(void **state)
{
	static const char *const names[] = { "sh", "\xe6\x97\xa5\xe6\x9c\xac", /* 2 wide */
					     "e\xcc\x81t\xc3\xa9" };	       /* e + U+0301, é */
	struct pgt_exit rec = {};
	struct pgt_event ev = { .hdr = &rec.hdr, .exit = &rec };
	struct sbuf sb = {};
	const char *col;
	size_t i, at = 0;

	/* Widths come from the C.UTF-8 locale; without it there is nothing to test. */
	locale_t utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);

	if (!utf8)
		skip();
	freelocale(utf8);
	rec.hdr.type = PGT_EXIT;
	rec.hdr.size = sizeof(rec);
	for (i = 0; i < 3; i++) {
		fill_proc(&rec.proc, names[i]);
		sbuf__reset(&sb);
		fmt_event(text__record, &sb, &fc, &ev);
		/* Where the details start, in columns: the same for every name. */
		col = strstr(sb.buf, "exited") ?: strstr(sb.buf, "code");
		assert_non_null(col);
		{
			size_t cols = 0, k;

			for (k = 0; sb.buf + k < col; k++)
				if (((unsigned char)sb.buf[k] & 0xc0) != 0x80)
					cols++;
			/* wide: 2 columns for each of the 2 characters */
			if (i == 1)
				cols += 2;
			/* the combining mark takes no column */
			if (i == 2)
				cols -= 1;
			if (!at)
				at = cols;
			assert_int_equal(cols, at);
		}
	}
	sbuf__free(&sb);
}

/* ^C from a kworker: the text row names the tty, not the worker (issue 14, item 16). */
static void test_text_tty_signal_row(void **state)
{
	struct sig_rcpt rc[2] = { { 2001, 2001, 0, 2001 }, { 2002, 2002, 0, 2001 } };
	struct sig_cause c = { .rcpt = rc, .nr = 2 };
	struct sbuf sb = {};

	fill_proc(&c.first.proc, "kworker/u8:7");
	c.first.proc.pid = c.first.proc.tid = 77;
	c.first.proc.ppid = 2;
	c.first.proc.pgid = c.first.proc.sid = 0;
	c.first.proc.tty_nr = 0;
	c.first.proc.tty[0] = '\0';
	c.first.proc.flags = PGT_F_KTHREAD;
	c.first.sig = SIGINT;
	c.first.scope = PGT_SCOPE_GROUP;
	c.first.cause = PGT_CAUSE_TTY;
	c.first.target = 2001;
	c.first.tty_nr = (136 << 8) | 3;
	strcpy(c.first.tty, "pts3");
	text_signal(&sb, &fc, &c);
	sbuf__putc(&sb, '\0');
	assert_non_null(strstr(sb.buf, " pts/3    [tty]"));
	assert_null(strstr(sb.buf, "kworker"));
	assert_null(strstr(sb.buf, " 77 "));
	assert_non_null(strstr(sb.buf, "SIGINT tty -> group 2001 on pts/3: 2001 2002 (2)"));
	sbuf__free(&sb);
}

static void test_text_line_is_one_line(void **state)
{
	struct pgt_fork rec = {};
	struct pgt_event ev = { .hdr = &rec.hdr, .fork = &rec };
	struct sbuf sb = {};

	rec.hdr.type = PGT_FORK;
	rec.hdr.size = sizeof(rec);
	fill_proc(&rec.proc, "evil\n\x1b[2Jname");
	fill_proc(&rec.child, "child");
	rec.child.pid = 1235;
	rec.child.ppid = 1234;
	fmt_event(text__record, &sb, &fc, &ev);
	assert_int_equal(sb.buf[sb.len - 1], '\n');
	assert_null(memchr(sb.buf, '\n', sb.len - 1));
	assert_null(memchr(sb.buf, 0x1b, sb.len));
	assert_non_null(strstr(sb.buf, "evil\\x0a\\x1b[2Jname"));
	assert_non_null(strstr(sb.buf, "child 1235"));
	assert_non_null(strstr(sb.buf, "pts/3"));
	sbuf__free(&sb);
}

static void test_json_exit(void **state)
{
	struct pgt_exit rec = {};
	struct pgt_event ev = { .hdr = &rec.hdr, .exit = &rec };
	struct sbuf sb = {};
	json_t *j, *x;

	rec.hdr.type = PGT_EXIT;
	rec.hdr.size = sizeof(rec);
	rec.hdr.seq = 77;
	rec.hdr.ts_ns = 123456789;
	fill_proc(&rec.proc, "sh");
	rec.status = SIGSEGV | 0x80;
	fmt_event(json__record, &sb, &fc, &ev);
	j = parse_line(&sb);
	assert_int_equal(json_integer_value(json_object_get(j, "schema")), 3);
	/* seq is the output's to give (0 here); kseq is the kernel record's */
	assert_int_equal(json_integer_value(json_object_get(j, "seq")), 0);
	assert_int_equal(json_integer_value(json_object_get(j, "kseq")), 77);
	assert_string_equal(json_string_value(json_object_get(j, "event")), "exit");
	assert_string_equal(json_string_value(json_object_get(j, "time")),
			    "2025-12-03T09:30:00.123456789Z");
	x = json_object_get(j, "exit");
	assert_true(json_is_null(json_object_get(x, "code")));
	assert_string_equal(json_string_value(json_object_get(x, "signal")), "SIGSEGV");
	assert_true(json_is_true(json_object_get(x, "core")));
	x = json_object_get(j, "process");
	assert_string_equal(json_string_value(json_object_get(x, "tty")), "pts/3");
	assert_int_equal(
		json_integer_value(json_object_get(json_object_get(x, "tty_dev"), "minor")), 3);
	assert_true(json_is_null(json_object_get(x, "auid")));
	assert_true(json_is_null(json_object_get(x, "ses")));
	assert_int_equal(strlen(json_string_value(json_object_get(x, "entity_id"))), 16);
	json_decref(j);

	sbuf__reset(&sb);
	rec.status = 3 << 8;
	fmt_event(json__record, &sb, &fc, &ev);
	j = parse_line(&sb);
	x = json_object_get(j, "exit");
	assert_int_equal(json_integer_value(json_object_get(x, "code")), 3);
	assert_true(json_is_null(json_object_get(x, "signal")));
	assert_true(json_is_false(json_object_get(x, "core")));
	json_decref(j);
	sbuf__free(&sb);
}

static void test_json_setsid_and_setpgid(void **state)
{
	struct pgt_setsid ss = {};
	struct pgt_setpgid sp = {};
	struct pgt_event ev = { .hdr = &ss.hdr, .setsid = &ss };
	struct sbuf sb = {};
	json_t *j;

	ss.hdr.type = PGT_SETSID;
	ss.hdr.size = sizeof(ss);
	fill_proc(&ss.proc, "setsid");
	ss.proc.sid = 1234;
	ss.proc.tty_nr = 0;
	ss.proc.tty[0] = '\0';
	ss.old.pgid = 1200;
	ss.old.sid = 1100;
	ss.old.tty_nr = (136 << 8) | 3;
	strcpy(ss.old.tty, "pts3");
	ss.ret = 1234;
	fmt_event(json__record, &sb, &fc, &ev);
	j = parse_line(&sb);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "old"), "sid")),
			 1100);
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "old"), "tty")),
			    "pts/3");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "new"), "sid")),
			 1234);
	assert_true(json_is_null(json_object_get(json_object_get(j, "new"), "tty")));
	assert_null(json_object_get(j, "error"));
	json_decref(j);

	/* A failure has an error and no "new". */
	ss.ret = -EPERM;
	sbuf__reset(&sb);
	fmt_event(json__record, &sb, &fc, &ev);
	j = parse_line(&sb);
	assert_string_equal(json_string_value(json_object_get(j, "error")), "EPERM");
	assert_null(json_object_get(j, "new"));
	json_decref(j);

	sp.hdr.type = PGT_SETPGID;
	sp.hdr.size = sizeof(sp);
	fill_proc(&sp.proc, "bash");
	fill_proc(&sp.target, "job");
	sp.target.pid = 1300;
	sp.target.pgid = 1300;
	sp.old.pgid = 1234;
	sp.arg_pid = 1300;
	sp.arg_pgid = 1300;
	sp.target_found = 1;
	ev.hdr = &sp.hdr;
	ev.setpgid = &sp;
	sbuf__reset(&sb);
	fmt_event(json__record, &sb, &fc, &ev);
	j = parse_line(&sb);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "target"), "pid")),
			 1300);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "old"), "pgid")),
			 1234);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "new"), "pgid")),
			 1300);
	json_decref(j);

	sp.ret = -EACCES;
	sbuf__reset(&sb);
	fmt_event(json__record, &sb, &fc, &ev);
	j = parse_line(&sb);
	assert_string_equal(json_string_value(json_object_get(j, "error")), "EACCES");
	assert_null(json_object_get(j, "new"));
	json_decref(j);
	sbuf__free(&sb);
}

static void test_lost(void **state)
{
	struct lost_info li = { .total = 5, .from_ns = 1, .to_ns = 2 };
	struct sbuf sb = {};
	json_t *j, *l;

	li.by_type[PGT_FORK] = 3;
	li.by_type[PGT_EXIT] = 2;
	fmt_lost(json__record, &sb, &fc, &li);
	j = parse_line(&sb);
	assert_string_equal(json_string_value(json_object_get(j, "event")), "lost");
	assert_true(json_is_integer(json_object_get(j, "seq")));
	assert_true(json_is_null(json_object_get(j, "kseq")));
	assert_true(json_is_null(json_object_get(j, "process")));
	l = json_object_get(j, "lost");
	assert_int_equal(json_integer_value(json_object_get(l, "total")), 5);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(l, "by_type"), "fork")),
			 3);
	json_decref(j);

	sbuf__reset(&sb);
	fmt_lost(text__record, &sb, &fc, &li);
	assert_non_null(strstr(sb.buf, "lost 5 events (fork 3, exit 2)"));
	sbuf__free(&sb);
}

/* An output to a new temporary file, named in @path (a mkstemp() template). */
static struct output *temp_output(char *path, struct output_cfg *cfg)
{
	struct output *o;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	close(fd);
	cfg->path = path;
	cfg->offline = true;
	o = output__open(cfg);
	assert_non_null(o);
	return o;
}

/* The whole of a small file, NUL-terminated, in @buf. */
static size_t slurp(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	assert_true(fd >= 0);
	n = read(fd, buf, len - 1);
	close(fd);
	unlink(path);
	assert_true(n > 0);
	buf[n] = '\0';
	return (size_t)n;
}

/*
 * --ecs: every record is a document, a number JSON parsers of int64 cannot
 * take included; the documents are numbered as --json numbers its records,
 * and each carries that very --json line under "pgrptrace".
 */
static void test_ecs_documents(void **state)
{
	char jpath[] = "/tmp/pgt-json-XXXXXX", epath[] = "/tmp/pgt-ecs-XXXXXX";
	static char jbuf[8192], ebuf[16384];
	struct output_cfg jcfg = { .json = true, .utc = true }, ecfg = { .ecs = true, .utc = true };
	struct output *jo = temp_output(jpath, &jcfg), *eo = temp_output(epath, &ecfg);
	struct pgt_exit rec = {};
	struct pgt_event ev = { .hdr = &rec.hdr, .exit = &rec };
	char *jline, *eline, *jnext, *enext, want[32];
	int i;

	output__set_clock(jo, fc.boot_to_real_ns); /* the same times in both */
	output__set_clock(eo, fc.boot_to_real_ns);
	rec.hdr.type = PGT_EXIT;
	rec.hdr.size = sizeof(rec);
	for (i = 0; i < 3; i++) {
		fill_proc(&rec.proc, hostile[i * 4]);
		rec.hdr.seq = (__u64)i + 7;
		rec.proc.pidns_ino = i == 1 ? 1ULL << 63 : 4026531836ULL;
		output__event(jo, &ev);
		output__event(eo, &ev);
	}
	assert_int_equal(output__flush(jo), 0);
	assert_int_equal(output__flush(eo), 0);
	output__close(jo);
	output__close(eo);
	slurp(jpath, jbuf, sizeof(jbuf));
	slurp(epath, ebuf, sizeof(ebuf));
	for (i = 0, jline = jbuf, eline = ebuf; i < 3; i++, jline = jnext, eline = enext) {
		jnext = strchr(jline, '\n');
		enext = strchr(eline, '\n');
		assert_non_null(jnext);
		assert_non_null(enext);
		*jnext++ = '\0';
		*enext++ = '\0';
		snprintf(want, sizeof(want), "\"sequence\":%d,", i);
		assert_non_null(strstr(eline, want));
		eline = strstr(eline, "\"pgrptrace\":");
		assert_non_null(eline);
		eline += strlen("\"pgrptrace\":");
		/* the --json line, then the document's end */
		assert_int_equal(strncmp(eline, jline, strlen(jline)), 0);
		assert_string_equal(eline + strlen(jline), "}");
	}
	assert_string_equal(jline, "");
	assert_string_equal(eline, "");
}

static struct pgt_exit exit_rec(__u64 kseq)
{
	struct pgt_exit rec = {};

	rec.hdr.type = PGT_EXIT;
	rec.hdr.size = sizeof(rec);
	rec.hdr.seq = kseq;
	fill_proc(&rec.proc, "sh");
	return rec;
}

/* Reads back the (seq, kseq) pairs of the file's records. */
static int read_order(const char *path, long long pairs[][2], int max)
{
	char line[4096];
	FILE *f = fopen(path, "r");
	int n = 0;

	assert_non_null(f);
	while (n < max && fgets(line, sizeof(line), f)) {
		json_error_t err;
		json_t *j = json_loads(line, 0, &err);

		assert_non_null(j);
		pairs[n][0] = json_integer_value(json_object_get(j, "seq"));
		pairs[n][1] = json_integer_value(json_object_get(j, "kseq"));
		json_decref(j);
		n++;
	}
	fclose(f);
	return n;
}

/*
 * Records go out in the kernel's order (kseq), a signal cause still being
 * gathered holds back what came after its first record, and seq numbers
 * what is written: 0, 1, 2, ... (issue 14, items 14 and 15).
 */
/* What the trace's entry hook finds in an sshd login's environment. */
static void give_remote(void *ctx, struct lineage *entry)
{
	struct login_remote *r;

	(void)ctx;
	if (entry->remote) /* told again: read once, as the trace's hook does */
		return;
	r = calloc(1, sizeof(*r));
	assert_non_null(r);
	strcpy(r->ip, "2001:db8::7");
	r->port = 51234;
	entry->remote = r;
}

static void model_rec(struct model *m, void *rec, __u16 type, size_t size, __u64 ts)
{
	struct pgt_event ev;

	as_event(rec, type, size, ts, &ev);
	model__apply(m, &ev);
}

static json_t *json_of(const struct fmt_ctx *c, void *rec, __u16 type, size_t size)
{
	static struct sbuf sb;
	struct pgt_event ev;

	sbuf__reset(&sb);
	as_event(rec, type, size, 5000, &ev);
	fmt_event(json__record, &sb, c, &ev);
	return parse_line(&sb);
}

static const char *str_at(json_t *j, const char *a, const char *b)
{
	return json_string_value(json_object_get(json_object_get(j, a), b));
}

/*
 * Every process object names its parent, leaders and login: an sshd login
 * found by the snapshot is inferred; one seen starting is not, and a child
 * inherits what its parent had.
 */
static void test_json_login(void **state)
{
	struct fmt_ctx c = fc;
	struct model *m = model__new();
	struct pgt_proc sshd = ctx(100, 1, 100, 100, 20, "sshd");
	struct pgt_proc bash = ctx(200, 100, 200, 200, 30, "bash");
	struct pgt_proc job = ctx(300, 200, 300, 200, 40, "sleep");
	struct pgt_proc child = ctx(400, 300, 300, 200, 50, "sleep");
	struct pgt_snap r = {};
	struct pgt_fork f = {};
	struct pgt_exit x = {};
	json_t *j, *p, *e;
	char eid[17];

	assert_non_null(m);
	model__set_entry_fn(m, give_remote, NULL);
	bash.tty_nr = (136 << 8) | 4;
	strcpy(bash.tty, "pts4");
	job.tty_nr = child.tty_nr = bash.tty_nr;
	strcpy(job.tty, "pts4");
	strcpy(child.tty, "pts4");
	r.proc = ctx(1, 0, 1, 1, 10, "init");
	model_rec(m, &r, PGT_SNAP, sizeof(r), 1);
	r.proc = sshd;
	model_rec(m, &r, PGT_SNAP, sizeof(r), 2);
	r.proc = bash;
	model_rec(m, &r, PGT_SNAP, sizeof(r), 3);
	r.proc = job;
	model_rec(m, &r, PGT_SNAP, sizeof(r), 4);
	model__snapshot_done(m);
	/* As the snapshot does: what they run, then the entry hook. */
	model__set_exec(model__find(m, 100), "/usr/sbin/sshd", NULL, 0, false);
	model__announce_entries(m);
	fmt_model = m;

	x.proc = job;
	j = json_of(&c, &x, PGT_EXIT, sizeof(x));
	p = json_object_get(j, "process");
	decode__entity_id(200, 30, eid);
	assert_int_equal(
		json_integer_value(json_object_get(json_object_get(p, "session_leader"), "pid")),
		200);
	assert_string_equal(str_at(p, "session_leader", "entity_id"), eid);
	assert_string_equal(str_at(p, "parent", "entity_id"), eid);
	decode__entity_id(300, 40, eid);
	assert_string_equal(str_at(p, "group_leader", "entity_id"), eid);
	e = json_object_get(p, "entry_leader");
	assert_int_equal(json_integer_value(json_object_get(e, "pid")), 200);
	assert_string_equal(json_string_value(json_object_get(e, "type")), "sshd");
	assert_string_equal(json_string_value(json_object_get(e, "tty")), "pts/4");
	assert_string_equal(str_at(e, "remote", "ip"), "2001:db8::7");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(e, "remote"), "port")),
			 51234);
	assert_true(json_is_true(json_object_get(p, "entry_leader_inferred")));
	json_decref(j);

	/* sshd's process has no login; its parent (init) is known. */
	x.proc = sshd;
	j = json_of(&c, &x, PGT_EXIT, sizeof(x));
	p = json_object_get(j, "process");
	assert_true(json_is_null(json_object_get(p, "entry_leader")));
	decode__entity_id(1, 10, eid);
	assert_string_equal(str_at(p, "parent", "entity_id"), eid);
	json_decref(j);

	/* Born while tracing: inherits the inferred login. */
	f.proc = job;
	f.child = child;
	model_rec(m, &f, PGT_FORK, sizeof(f), 10);
	j = json_of(&c, &f, PGT_FORK, sizeof(f));
	p = json_object_get(j, "child");
	assert_int_equal(
		json_integer_value(json_object_get(json_object_get(p, "entry_leader"), "pid")),
		200);
	assert_true(json_is_true(json_object_get(p, "entry_leader_inferred")));
	json_decref(j);

	/* A login seen starting: sshd's child becomes a session leader. */
	f.proc = sshd;
	f.child = ctx(500, 100, 100, 100, 60, "bash");
	f.child.flags = 0;
	model_rec(m, &f, PGT_FORK, sizeof(f), 11);
	{
		struct pgt_setsid ss = { .proc = ctx(500, 100, 500, 500, 60, "bash"), .ret = 500 };

		model_rec(m, &ss, PGT_SETSID, sizeof(ss), 12);
		j = json_of(&c, &ss, PGT_SETSID, sizeof(ss));
	}
	p = json_object_get(j, "process");
	e = json_object_get(p, "entry_leader");
	assert_int_equal(json_integer_value(json_object_get(e, "pid")), 500);
	assert_string_equal(json_string_value(json_object_get(e, "type")), "sshd");
	assert_true(json_is_null(json_object_get(e, "tty")));
	assert_true(json_is_false(json_object_get(p, "entry_leader_inferred")));
	json_decref(j);

	/* Unknown to the model: the login is unknown, not absent. */
	x.proc = ctx(999, 1, 999, 999, 99, "ghost");
	j = json_of(&c, &x, PGT_EXIT, sizeof(x));
	p = json_object_get(j, "process");
	assert_true(json_is_null(json_object_get(p, "entry_leader")));
	assert_true(json_is_null(json_object_get(p, "entry_leader_inferred")));
	json_decref(j);
	fmt_model = NULL;
	model__free(m);
	(void)state;
}

static void test_output_in_kernel_order(void **state)
{
	char path[] = "/tmp/pgt-order-XXXXXX";
	struct output_cfg cfg = { .json = true };
	struct sig_rcpt rc = { 300, 300, 0, 300 };
	struct sig_cause c = { .rcpt = &rc, .nr = 1 };
	struct pgt_exit a = exit_rec(8), b = exit_rec(7), d = exit_rec(6);
	struct pgt_event ea = { .hdr = &a.hdr, .exit = &a }, eb = { .hdr = &b.hdr, .exit = &b };
	struct pgt_event ed = { .hdr = &d.hdr, .exit = &d };
	struct output *o = temp_output(path, &cfg);
	long long got[8][2];

	/* A cause opened at kseq 5 is still being gathered: 8 and 7 wait. */
	output__event(o, &ea);
	output__event(o, &eb);
	output__hold(o, 5);
	assert_int_equal(output__flush(o), 0);
	assert_int_equal(read_order(path, got, 8), 0);
	/* It completes; 6 arrives late. Then all, in kernel order. */
	fill_proc(&c.first.proc, "kill");
	c.first.hdr.seq = 5;
	c.first.sig = SIGTERM;
	output__signal(o, &c);
	output__event(o, &ed);
	output__hold(o, (__u64)-1);
	assert_int_equal(output__flush(o), 0);
	output__close(o);
	assert_int_equal(read_order(path, got, 8), 4);
	unlink(path);
	assert_int_equal(got[0][1], 5);
	assert_int_equal(got[1][1], 6);
	assert_int_equal(got[2][1], 7);
	assert_int_equal(got[3][1], 8);
	assert_int_equal(got[0][0], 0);
	assert_int_equal(got[3][0], 3);
}

/* A correction's process carries its cgroup and container, as every process object does. */
static void test_json_correction_cgroup(void **state)
{
	static const char path[] = "/system.slice/docker-0123456789abcdef0123456789abcdef"
				   "0123456789abcdef0123456789abcdef.scope";
	struct fmt_ctx c = fc;
	struct model *m = model__new();
	struct pgt_snap r = {};
	struct model_note n = { .kind = NOTE_RESYNC_CHANGED, .pid = 200 };
	struct pcgroup *cg = pcgroup__new(path, sizeof(path), 42, NULL, 0);
	struct mproc *p;
	struct sbuf sb = {};
	json_t *j, *pr;

	assert_non_null(m);
	assert_non_null(cg);
	r.proc = ctx(200, 1, 200, 200, 30, "app");
	model_rec(m, &r, PGT_SNAP, sizeof(r), 1);
	model__snapshot_done(m);
	p = model__find(m, 200);
	assert_non_null(p);
	model__set_cgroup(p, cg);
	pcgroup__put(cg);
	fmt_model = m;
	json_correction(&sb, &c, &n, p, 1000);
	j = parse_line(&sb);
	pr = json_object_get(j, "process");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(pr, "cgroup"), "id")),
			 42);
	assert_true(json_is_object(json_object_get(pr, "container")));
	json_decref(j);
	sbuf__free(&sb);
	fmt_model = NULL;
	model__free(m);
	(void)state;
}

/* A queue emptied gives back what a stall grew, and is usable after. */
static void test_sbuf_shrink(void **state)
{
	static char big[100000];
	struct sbuf sb = {};

	(void)state;
	memset(big, 'a', sizeof(big));
	sbuf__put(&sb, big, sizeof(big));
	assert_true(sb.cap > sizeof(big));
	sbuf__shrink(&sb, 4096);
	assert_int_equal(sb.len, 0);
	assert_int_equal(sb.cap, 4096);
	assert_string_equal(sb.buf, "");
	sbuf__puts(&sb, "x");
	assert_string_equal(sb.buf, "x");
	sbuf__shrink(&sb, 1 << 20); /* never grown by it */
	assert_int_equal(sb.cap, 4096);
	assert_int_equal(sb.len, 0);
	sbuf__free(&sb);
}

/*
 * A FIFO nobody reads: writing never blocks; records wait in the queue
 * (64K), then are lost and counted; once it is read, every record written
 * is whole, and a lost record names the seqs missing.
 */
static void test_output_queue_on_stalled_fifo(void **state)
{
	char dir[] = "/tmp/pgt-fifo-XXXXXX", path[64], *buf, *p, *nl;
	struct output_cfg cfg = { .json = true, .queue_bytes = 65536 };
	struct pgt_exit x = exit_rec(1);
	struct pgt_event ev = { .hdr = &x.hdr, .exit = &x };
	struct output *o;
	size_t len = 0, cap = 8 << 20, lines = 0;
	long long first = -1, last = -1, seq, prev = -1, gap = 0;
	unsigned long long lost;
	int rd, i;
	ssize_t n;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/f", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	rd = open(path, O_RDONLY | O_NONBLOCK);
	assert_true(rd >= 0);
	cfg.path = path;
	o = output__open(&cfg);
	assert_non_null(o);
	/*
	 * Far more than the pipe (64K) and the queue (64K) hold: this returns.
	 * Records of two sizes: a small one that would fit after a large one
	 * was lost must not be written in the middle of the gap.
	 */
	for (i = 0; i < 2000; i++) {
		struct lost_info li = { .total = 1, .from_ns = 1, .to_ns = 2 };

		x.hdr.seq = (__u64)i + 1;
		if (i % 2)
			output__lost(o, &li);
		else
			output__event(o, &ev);
		assert_int_equal(output__flush(o), 0);
	}
	/* Read again: the queue goes, and the loss is told. */
	buf = malloc(cap);
	assert_non_null(buf);
	for (i = 0; i < 200 && !memmem(buf, len, "\"output\":", 9); i++) {
		assert_int_equal(output__flush(o), 0);
		while ((n = read(rd, buf + len, cap - len)) > 0)
			len += (size_t)n;
		usleep(10000);
	}
	lost = output__close(o);
	while ((n = read(rd, buf + len, cap - len)) > 0)
		len += (size_t)n;
	close(rd);
	unlink(path);
	rmdir(dir);
	assert_true(lost > 1000);
	assert_true(len > 0 && buf[len - 1] == '\n');
	for (p = buf; (nl = memchr(p, '\n', buf + len - p)); p = nl + 1) {
		json_t *j = json_loadb(p, (size_t)(nl - p), 0, NULL), *l;

		assert_non_null(j); /* a whole record */
		seq = json_integer_value(json_object_get(j, "seq"));
		l = json_object_get(j, "lost");
		if (l && json_object_get(l, "output")) {
			assert_string_equal(json_string_value(json_object_get(l, "output")), path);
			first = json_integer_value(json_object_get(l, "first_seq"));
			last = json_integer_value(json_object_get(l, "last_seq"));
			assert_int_equal(json_integer_value(json_object_get(l, "total")),
					 last - first + 1);
		}
		if (seq != prev + 1)
			gap += seq - prev - 1;
		prev = seq;
		lines++;
		json_decref(j);
	}
	assert_true(first > 0 && last >= first);
	assert_int_equal(gap, last - first + 1); /* the gap is the one told */
	assert_int_equal((unsigned long long)gap, lost);
	assert_true(lines > 20);
	free(buf);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_hostile_comm),
		cmocka_unit_test(test_text_hostile_comm),
		cmocka_unit_test(test_text_line_is_one_line),
		cmocka_unit_test(test_text_pads_by_width),
		cmocka_unit_test(test_text_tty_signal_row),
		cmocka_unit_test(test_json_exit),
		cmocka_unit_test(test_json_setsid_and_setpgid),
		cmocka_unit_test(test_lost),
		cmocka_unit_test(test_ecs_documents),
		cmocka_unit_test(test_json_login),
		cmocka_unit_test(test_output_in_kernel_order),
		cmocka_unit_test(test_sbuf_shrink),
		cmocka_unit_test(test_output_queue_on_stalled_fifo),
		cmocka_unit_test(test_json_correction_cgroup),
		cmocka_unit_test(test_fields_walk_is_the_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
