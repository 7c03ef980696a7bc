// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * An exit's cause (issue 33): the kernel's death block named, and joined to
 * the signal record written before it, by its group_id; a recording made
 * before the death block, by the recipient's pid and signal; what is left
 * unknown, and why.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include "death.h"
#include "explain.h"
#include "format.h"
#include "sbuf.h"
#include "record.h"
#include "records.h"

#define VICTIM 200
#define SENDER 100

/* A fatal signal record from SENDER to VICTIM, written with @seq. */
static void signal_written(struct deaths *d, __u64 group_id, int sig, __u32 cause, __u64 seq)
{
	struct sig_rcpt rcpt = { .pid = VICTIM, .tid = VICTIM, .result = 0, .pgid = VICTIM };
	struct record r = {};

	r.kind = RECORD_SIGNAL;
	r.seq = seq;
	r.sig.first.proc = ctx(SENDER, 1, SENDER, SENDER, 10, "kill");
	r.sig.first.group_id = group_id;
	r.sig.first.sig = sig;
	r.sig.first.cause = cause;
	r.sig.rcpt = &rcpt;
	r.sig.nr = 1;
	r.sig.flags = PGT_SIG_FATAL | PGT_SIG_FINAL;
	deaths__signal(d, &r);
}

/* VICTIM's exit with @status, its death block @kd (NULL: an old recording's). */
static void exit_of(struct deaths *d, __u32 status, const struct pgt_death *kd, __u64 seq,
		    struct record *r, struct pgt_exit *e)
{
	struct pgt_event ev;

	memset(e, 0, sizeof(*e));
	e->proc = ctx(VICTIM, SENDER, VICTIM, SENDER, 20, "sleep");
	e->status = status;
	if (kd)
		e->death = *kd;
	as_event(e, PGT_EXIT, kd ? sizeof(*e) : PGT_EXIT_V1_SIZE, seq, &ev);
	record__event(r, NULL, &ev);
	r->seq = seq;
	deaths__exit(d, r);
}

static void test_joined_by_group_id(void **state)
{
	struct deaths *d = deaths__new();
	struct pgt_death kd = { .group_id = 7,
				.sender_pid = SENDER,
				.sender_start = 10,
				.sig = SIGTERM,
				.cause = PGT_CAUSE_KILL };
	struct pgt_exit e;
	struct record r;

	/* A handled SIGTERM first (another cause), then the one that killed. */
	signal_written(d, 6, SIGTERM, PGT_CAUSE_KILL, 3);
	signal_written(d, 7, SIGTERM, PGT_CAUSE_KILL, 4);
	exit_of(d, SIGTERM, &kd, 5, &r, &e);
	assert_true(r.death.set);
	assert_int_equal(r.death.mech, DEATH_KILL);
	assert_true(r.death.has_seq);
	assert_int_equal(r.death.signal_seq, 4);
	assert_true(r.death.has_sender);
	assert_false(r.death.sender_partial);
	assert_int_equal(r.death.sender.pid, SENDER);
	assert_string_equal(r.death.sender.comm, "kill");
	record__release(&r);
	deaths__free(d);
	(void)state;
}

static void test_no_signal_record(void **state)
{
	struct deaths *d = deaths__new();
	struct pgt_death kd = { .group_id = 9,
				.sender_pid = SENDER,
				.sender_start = 10,
				.sig = SIGKILL,
				.cause = PGT_CAUSE_KILL };
	struct pgt_exit e;
	struct record r;

	/* Its signal record was never written (lost, filtered): the kernel's sender only. */
	exit_of(d, SIGKILL, &kd, 5, &r, &e);
	assert_int_equal(r.death.mech, DEATH_KILL);
	assert_false(r.death.has_seq);
	assert_non_null(r.death.why);
	assert_true(r.death.has_sender);
	assert_true(r.death.sender_partial);
	assert_int_equal(r.death.sender.pid, SENDER);
	record__release(&r);
	/* The kernel's own: a fault names no sender. */
	kd = (struct pgt_death){ .group_id = 10,
				 .sender_pid = VICTIM,
				 .sender_start = 20,
				 .sig = SIGSEGV,
				 .cause = PGT_CAUSE_FAULT,
				 .code = 1 };
	exit_of(d, SIGSEGV | 0x80, &kd, 6, &r, &e);
	assert_int_equal(r.death.mech, DEATH_FAULT);
	assert_false(r.death.has_sender);
	assert_string_equal(death__code_name(SIGSEGV, r.death.code), "SEGV_MAPERR");
	record__release(&r);
	deaths__free(d);
	(void)state;
}

static void test_unknown_and_exit(void **state)
{
	struct deaths *d = deaths__new();
	struct pgt_death none = {};
	struct pgt_exit e;
	struct record r;

	exit_of(d, 3 << 8, &none, 5, &r, &e);
	assert_int_equal(r.death.mech, DEATH_EXIT);
	assert_false(r.death.has_sender);
	record__release(&r);
	/* Killed, its generation never seen. */
	exit_of(d, SIGKILL, &none, 6, &r, &e);
	assert_int_equal(r.death.mech, DEATH_UNKNOWN);
	assert_non_null(r.death.why);
	assert_false(r.death.has_seq);
	record__release(&r);
	deaths__free(d);
	(void)state;
}

static void test_old_recording(void **state)
{
	struct deaths *d = deaths__new();
	struct pgt_exit e;
	struct record r;

	/* Before the death block: the first fatal SIGHUP record to the pid. */
	signal_written(d, 4, SIGHUP, PGT_CAUSE_LEADER_EXIT, 8);
	exit_of(d, SIGHUP, NULL, 9, &r, &e);
	assert_int_equal(r.death.mech, DEATH_HANGUP);
	assert_true(r.death.has_seq);
	assert_int_equal(r.death.signal_seq, 8);
	record__release(&r);
	/* Its notes went with it: a later process with the pid knows nothing. */
	exit_of(d, SIGHUP, NULL, 10, &r, &e);
	assert_int_equal(r.death.mech, DEATH_UNKNOWN);
	record__release(&r);
	deaths__free(d);
	(void)state;
}

static void test_names(void **state)
{
	char buf[64];

	assert_string_equal(death__mech_name(DEATH_ORPHANED), "orphaned_pgrp");
	assert_string_equal(death__code_name(SIGTERM, -6), "SI_TKILL");
	assert_string_equal(death__code_name(SIGSYS, 1), "SYS_SECCOMP");
	assert_null(death__code_name(SIGTERM, 5));
	assert_string_equal(death__key(SIGQUIT), "^\\");
	assert_null(death__key(SIGTERM));
	assert_string_equal(death__cgroup_prefix("/a/b/c", 2, buf, sizeof(buf)), "/a/b");
	assert_string_equal(death__cgroup_prefix("/a/b/c", 5, buf, sizeof(buf)), "/a/b/c");
	assert_string_equal(death__cgroup_prefix("/a", 0, buf, sizeof(buf)), "/");
	(void)state;
}

/*
 * --explain keeps the exit it is told of, which may be a held copy: a
 * record cut at its kind's member, its payload right after (ASan reads a
 * copy of the whole struct as an overflow of the exact allocation here).
 */
static void test_explain_held_exit(void **state)
{
	static const struct fmt_ctx fc = { .utc = true };
	struct deaths *d = deaths__new();
	struct pgt_death kd = { .group_id = 7,
				.sender_pid = SENDER,
				.sender_start = 10,
				.sig = SIGTERM,
				.cause = PGT_CAUSE_KILL };
	struct explain *x = explain__new("200");
	struct sbuf arena = {}, exact = {};
	struct pgt_exit e;
	struct record r, *held, *at;
	struct sink_msg m = { .fc = &fc, .tfc = &fc };
	char *out = NULL;
	size_t off, len = 0;
	FILE *f;

	signal_written(d, 7, SIGTERM, PGT_CAUSE_KILL, 4);
	exit_of(d, SIGTERM, &kd, 5, &r, &e);
	off = record__hold(&r, &arena);
	assert_true(off != (size_t)-1);
	at = record__at(&arena, off);
	held = malloc(record__held_size(at));
	assert_non_null(held);
	memcpy(held, at, record__held_size(at));
	exact.buf = (char *)held;
	m.rec = record__at(&exact, 0);
	assert_int_equal(explain_sink.send(x, &m), 0);
	assert_true(explain__done(x));
	f = open_memstream(&out, &len);
	assert_int_equal(explain__write(x, f, true), 0);
	fclose(f);
	assert_non_null(strstr(out, "\"mechanism\":\"kill\""));
	assert_non_null(strstr(out, "\"signal_seq\":4"));
	free(out);
	explain__free(x);
	record__release(held);
	free(held);
	sbuf__free(&arena);
	deaths__free(d);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_joined_by_group_id),
		cmocka_unit_test(test_no_signal_record),
		cmocka_unit_test(test_unknown_and_exit),
		cmocka_unit_test(test_old_recording),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_explain_held_exit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
