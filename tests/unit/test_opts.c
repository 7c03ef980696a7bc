// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The command line: what each option sets, and what is refused (exit 2). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <cmocka.h>
#include "opts.h"

#define ARGV(...) ((char *[]){ "pgrptrace", __VA_ARGS__, NULL })
#define ARGC(v)	  ((int)(sizeof(v) / sizeof(char *)) - 1)

static void parse(int argc, char **argv, struct opts *o)
{
	opts__parse(argc, argv, o);
}

/* The exit status of parsing @argv in a child (argp exits on a usage error). */
static int refused(int argc, char **argv)
{
	struct opts o;
	pid_t pid = fork();
	int st;

	assert_true(pid >= 0);
	if (pid == 0) {
		if (!freopen("/dev/null", "w", stderr))
			_exit(99);
		opts__parse(argc, argv, &o);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* -i sets the full-screen view's interval too (it redrew every 200 ms whatever -i said). */
static void test_interval(void **state)
{
	char **v = ARGV("--tree", "-i", "5");
	struct opts o;

	parse(ARGC(ARGV("--tree", "-i", "5")), v, &o);
	assert_true(o.interval_set);
	assert_int_equal(o.interval_ms, 5000);
	v = ARGV("--tree");
	parse(ARGC(ARGV("--tree")), v, &o);
	assert_false(o.interval_set);
	(void)state;
}

/* --event's kinds add up; any other option with a value is refused twice. */
static void test_repeats(void **state)
{
	char **v = ARGV("--event", "fork", "--event", "exit,exec");
	struct opts o;

	parse(ARGC(ARGV("--event", "fork", "--event", "exit,exec")), v, &o);
	assert_int_equal(__builtin_popcount(o.filter.events), 3);
	v = ARGV("--uid", "0", "--uid", "1");
	assert_int_equal(refused(ARGC(ARGV("--uid", "0", "--uid", "1")), v), 2);
	v = ARGV("--comm", "a", "--comm", "b");
	assert_int_equal(refused(ARGC(ARGV("--comm", "a", "--comm", "b")), v), 2);
	v = ARGV("-v", "-v", "--json", "--json"); /* flags may repeat */
	parse(ARGC(ARGV("-v", "-v", "--json", "--json")), v, &o);
	assert_int_equal(o.verbose, 2);
	(void)state;
}

/* --tty takes what could name a terminal, and nothing else. */
static void test_tty_forms(void **state)
{
	static const char *const
		good[] = { "pts/0",   "/dev/pts/17", "tty1", "ttyS0",
			   "console", "136:3",	     "null" /* a character device in /dev */ };
	static const char *const bad[] = { "foo", "pts/",    "pts/x", "pts/1x", "1:",
					   ":1",  "../tty1", "",      "/dev/" };
	struct opts o;
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		char **v = ARGV("--tty", (char *)good[i]);

		parse(ARGC(ARGV("--tty", "x")), v, &o);
		assert_non_null(o.filter.tty);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char **v = ARGV("--tty", (char *)bad[i]);

		if (refused(ARGC(ARGV("--tty", "x")), v) != 2)
			fail_msg("--tty '%s' was accepted", bad[i]);
	}
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_interval),
		cmocka_unit_test(test_repeats),
		cmocka_unit_test(test_tty_forms),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
