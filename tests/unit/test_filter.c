// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Unit tests: the stream filters (user/filter.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>
#include "filter.h"

static struct pgt_proc proc(__u32 pid, __u32 uid, __u32 sid, const char *comm)
{
	struct pgt_proc p = { .pid = pid, .tid = pid, .uid = uid, .sid = sid };

	strncpy(p.comm, comm, sizeof(p.comm));
	return p;
}

static void test_parse_events(void **state)
{
	const char *bad = NULL;
	__u32 mask;

	assert_int_equal(filter__parse_events("exec", &mask, &bad), 0);
	assert_int_equal(__builtin_popcount(mask), 1);
	assert_int_equal(filter__parse_events("fork,escape,lost", &mask, &bad), 0);
	assert_int_equal(__builtin_popcount(mask), 3);
	assert_int_equal(filter__parse_events("exec,nope,exit", &mask, &bad), -1);
	assert_string_equal(bad, "nope,exit");
	assert_int_equal(filter__parse_events("", &mask, &bad), -1);
	assert_int_equal(filter__parse_events("exec,", &mask, &bad), -1);
	assert_int_equal(filter__parse_events("exe", &mask, &bad), -1);
	/* The names an error lists are every kind, each of which parses. */
	assert_string_equal(filter__event_names(),
			    "fork, exec, exit, setsid, setpgid, subreaper, reparent, signal, "
			    "tty_acquire, tty_release, foreground, cgroup, escape, survivor, "
			    "logout, correction, lost");
	assert_int_equal(filter__parse_events("fork,exec,exit,setsid,setpgid,subreaper,reparent,"
					      "signal,tty_acquire,tty_release,foreground,cgroup,"
					      "escape,survivor,correction,lost",
					      &mask, &bad),
			 0);
	assert_int_equal(__builtin_popcount(mask), 16);
}

/* The kinds that need the kernel's signal hooks: an exit's cause among them. */
static void test_needs_signals(void **state)
{
	struct filter f = {};
	const char *bad = NULL;

	assert_true(filter__needs_signals(&f));
	assert_int_equal(filter__parse_events("exec,fork", &f.events, &bad), 0);
	assert_false(filter__needs_signals(&f));
	assert_int_equal(filter__parse_events("exec,exit", &f.events, &bad), 0);
	assert_true(filter__needs_signals(&f));
	assert_int_equal(filter__parse_events("escape", &f.events, &bad), 0);
	assert_true(filter__needs_signals(&f));
	(void)state;
}

static void test_proc(void **state)
{
	struct filter f = {};
	struct pgt_proc p = proc(10, 1000, 7, "bash");

	assert_false(filter__active(&f));
	assert_true(filter__proc(&f, &p));
	f.has_uid = true;
	f.uid = 1000;
	assert_true(filter__proc(&f, &p));
	f.uid = 0;
	assert_false(filter__proc(&f, &p));
	f.uid = 1000;
	f.comm = "bas"; /* the whole name, not a prefix */
	assert_false(filter__proc(&f, &p));
	f.comm = "bash";
	f.has_session = true;
	f.session = 7;
	assert_true(filter__proc(&f, &p));
	f.session = 8;
	assert_false(filter__proc(&f, &p));
}

/* A fork matches by either process; the kind must be asked for; lost always passes. */
static void test_event(void **state)
{
	struct model *m = model__new();
	struct pgt_fork rec = { .hdr = { .type = PGT_FORK, .size = sizeof(rec) } };
	struct pgt_event ev = { .hdr = &rec.hdr, .fork = &rec };
	struct filter f = { .has_uid = true, .uid = 65534 };
	const char *bad;

	rec.proc = proc(10, 0, 7, "sh");
	rec.child = proc(11, 65534, 7, "sh");
	assert_true(filter__event(&f, m, &ev));
	rec.child.uid = 0;
	assert_false(filter__event(&f, m, &ev));
	f.has_uid = false;
	assert_int_equal(filter__parse_events("exec", &f.events, &bad), 0);
	assert_false(filter__event(&f, m, &ev));
	assert_true(filter__process(&f, "lost", NULL));
	assert_false(filter__process(&f, "survivor", NULL));
	model__free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_events),
		cmocka_unit_test(test_needs_signals),
		cmocka_unit_test(test_proc),
		cmocka_unit_test(test_event),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
