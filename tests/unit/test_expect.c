// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The expected-escapes rules (--expected): what the parser refuses, and
 * naming it by file and line; which escapes each condition lets through.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "expect.h"

static const char rules[] = "# sshd's own per-connection processes\n"
			    "[sshd-session]\n"
			    "kind = setsid\n"
			    "parent_executable = /usr/sbin/sshd\n"
			    "\n"
			    "  [tmux.server]  \n"
			    "\tkind = daemonize, setsid\n"
			    "executable = /usr/bin/tmux\n"
			    "comm = tmux: *\n"
			    "[backup_1000]\n"
			    "uid = 1000\n"
			    "executable = /opt/*/backup\n";

/* An image of @exe, as the model keeps one. */
static struct image *image(const char *exe)
{
	size_t len = strlen(exe) + 1;
	struct image *img = calloc(1, sizeof(*img) + len);

	assert_non_null(img);
	memcpy(img->data, exe, len);
	img->exe = img->data;
	return img;
}

static struct escape escape(enum escape_kind kind, const char *comm, __u32 uid, struct image *img,
			    struct lineage *self)
{
	struct escape e = { .kind = kind, .image = img, .lineage = self };

	strncpy(e.proc.comm, comm, sizeof(e.proc.comm));
	e.proc.uid = uid;
	return e;
}

static void test_match(void **state)
{
	struct image *sshd = image("/usr/sbin/sshd"), *tmux = image("/usr/bin/tmux");
	struct image *backup = image("/opt/acme/backup"), *deep = image("/opt/a/b/backup");
	struct lineage parent = { .pid = 10, .image = sshd };
	struct lineage self = { .pid = 11, .parent = &parent };
	struct expect_list l;
	struct escape e;
	char err[256];

	assert_int_equal(expect__parse(&l, rules, "rules", err, sizeof(err)), 0);
	assert_int_equal(l.nr, 3);

	e = escape(ESC_SETSID, "sshd", 0, sshd, &self);
	assert_string_equal(expect__match(&l, &e), "sshd-session");
	e.kind = ESC_DAEMONIZE; /* not a kind the rule names */
	assert_null(expect__match(&l, &e));
	e = escape(ESC_SETSID, "sshd", 0, sshd, NULL); /* no parent known */
	assert_null(expect__match(&l, &e));

	e = escape(ESC_DAEMONIZE, "tmux: server", 1000, tmux, NULL);
	assert_string_equal(expect__match(&l, &e), "tmux.server");
	e = escape(ESC_DAEMONIZE, "tmux", 1000, tmux, NULL); /* comm differs */
	assert_null(expect__match(&l, &e));
	e = escape(ESC_DAEMONIZE, "tmux: server", 1000, NULL, NULL); /* no image */
	assert_null(expect__match(&l, &e));

	e = escape(ESC_OUTLIVED_LOGIN, "backup", 1000, backup, NULL); /* any kind */
	assert_string_equal(expect__match(&l, &e), "backup_1000");
	e.proc.uid = 0;
	assert_null(expect__match(&l, &e));
	e = escape(ESC_REPARENT, "backup", 1000, deep, NULL); /* '*' stops at '/' */
	assert_null(expect__match(&l, &e));
	assert_null(expect__match(NULL, &e));

	expect__free(&l);
	free(sshd);
	free(tmux);
	free(backup);
	free(deep);
}

/* Each refusal, and the line it names. */
static void test_refused(void **state)
{
	static const struct {
		const char *text, *msg;
	} bad[] = {
		{ "kind = setsid\n", "x:1: a setting before the first '[name]'" },
		{ "[a]\ncomm = sh\n[a]\ncomm = sh\n", "x:3: rule 'a' named twice" },
		{ "[a b]\n", "x:1: a rule's name has letters, digits, '.', '_' and '-' only" },
		{ "[]\n", "x:1: a rule's name has 1 to 64 characters" },
		{ "[a] x\n", "x:1: a rule's header is '[name]' alone on its line" },
		{ "[a]\nkind = setsid\n\n[b]\ncomm = x\n",
		  "x:1: rule 'a' names no process (comm, executable, parent_executable or uid)" },
		{ "[a]\ncomm = x\nkind = escaped\n", "x:3: unknown escape kind 'escaped'" },
		{ "[a]\ncomm = x\ncomm = y\n", "x:3: 'comm' given twice in one rule" },
		{ "[a]\nuid = -1\n", "x:2: uid '-1' is not a number from 0 to 4294967294" },
		{ "[a]\nuid = 4294967295\n", "x:2: uid '4294967295' is not a number" },
		{ "[a]\nexe = /bin/sh\n", "x:2: unknown key 'exe'" },
		{ "[a]\ncomm =\n", "x:2: 'comm' has no value" },
		{ "[a]\ncomm sh\n", "x:2: expected '[name]' or 'key = value'" },
		{ "[a]\ncomm = x\nkind = ,\n", "x:3: 'kind' names no kind" },
	};
	struct expect_list l;
	char err[256];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(expect__parse(&l, bad[i].text, "x", err, sizeof(err)), -1);
		if (strncmp(err, bad[i].msg, strlen(bad[i].msg)))
			fail_msg("%s: got \"%s\", want \"%s...\"", bad[i].text, err, bad[i].msg);
		assert_int_equal(l.nr, 0);
		assert_null(l.rules);
	}
	assert_int_equal(expect__load(&l, "/nonexistent/rules", err, sizeof(err)), -1);
	assert_string_equal(err, "/nonexistent/rules: No such file or directory");
	assert_int_equal(expect__parse(&l, "# nothing\n\n", "x", err, sizeof(err)), 0);
	assert_int_equal(l.nr, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_match),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
