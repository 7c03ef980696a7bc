// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Unit tests: record validation and the decoding of raw kernel values. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>
#include "decode.h"

static void test_record_validation(void **state)
{
	struct pgt_exit rec = {};
	struct pgt_event ev;
	unsigned char junk[8] = {};

	rec.hdr.type = PGT_EXIT;
	rec.hdr.size = sizeof(rec);
	assert_int_equal(decode__record(&rec, sizeof(rec), &ev), 0);
	assert_ptr_equal(ev.exit, &rec);

	assert_int_equal(decode__record(junk, sizeof(junk), &ev), -EINVAL);
	assert_int_equal(decode__record(NULL, 0, &ev), -EINVAL);
	/* Truncated: the ring buffer gave fewer bytes than the header claims. */
	assert_int_equal(decode__record(&rec, sizeof(rec) - 1, &ev), -EINVAL);
	/* A size that does not match the type. */
	rec.hdr.size = sizeof(rec) + 8;
	assert_int_equal(decode__record(&rec, sizeof(rec), &ev), -EINVAL);
	rec.hdr.size = sizeof(rec);
	rec.hdr.type = 0;
	assert_int_equal(decode__record(&rec, sizeof(rec), &ev), -EINVAL);
	rec.hdr.type = PGT_TYPE_MAX;
	assert_int_equal(decode__record(&rec, sizeof(rec), &ev), -EINVAL);
}

static void test_every_type_validates(void **state)
{
	static const size_t sizes[PGT_TYPE_MAX] = {
		[PGT_FORK] = sizeof(struct pgt_fork),
		[PGT_EXEC] = sizeof(struct pgt_exec),
		[PGT_EXIT] = sizeof(struct pgt_exit),
		[PGT_SETSID] = sizeof(struct pgt_setsid),
		[PGT_SETPGID] = sizeof(struct pgt_setpgid),
		[PGT_SUBREAPER] = sizeof(struct pgt_subreaper),
		[PGT_REPARENT] = sizeof(struct pgt_reparent),
		[PGT_REAP] = sizeof(struct pgt_reap),
		[PGT_SNAP] = sizeof(struct pgt_snap),
		[PGT_SIGNAL] = sizeof(struct pgt_signal),
		[PGT_TTY] = sizeof(struct pgt_tty),
		[PGT_FOREGROUND] = sizeof(struct pgt_foreground),
		[PGT_CGROUP] = sizeof(struct pgt_cgroup),
	};
	static unsigned char buf[sizeof(struct pgt_exec)];
	struct pgt_hdr *h = (void *)buf;
	struct pgt_event ev;
	unsigned int t;

	for (t = 1; t < PGT_TYPE_MAX; t++) {
		h->type = t;
		h->size = sizes[t];
		assert_int_equal(decode__record(buf, sizes[t], &ev), 0);
		assert_non_null(decode__type_name(t));
	}
	assert_null(decode__type_name(0));
	assert_null(decode__type_name(PGT_TYPE_MAX));
	/* A fork of an older recording, with the clone flags it never used. */
	h->type = PGT_FORK;
	h->size = sizeof(struct pgt_fork) + 8;
	assert_int_equal(decode__record(buf, h->size, &ev), 0);
	h->size = sizeof(struct pgt_fork) + 16;
	assert_int_equal(decode__record(buf, h->size, &ev), -EINVAL);
}

/* A signal record carries only the slots it uses; decode widens it. */
static void test_signal_slots(void **state)
{
	unsigned char buf[sizeof(struct pgt_signal) + 16];
	struct pgt_signal *rec = (void *)buf;
	struct pgt_event ev;

	memset(buf, 0xab, sizeof(buf)); /* what lies past the record is not read */
	memset(rec, 0, PGT_SIGNAL_SIZE(2));
	rec->hdr.type = PGT_SIGNAL;
	rec->hdr.size = PGT_SIGNAL_SIZE(2);
	rec->nr = 2;
	rec->rcpt[0].pid = 10;
	rec->rcpt[1].pid = 11;
	assert_int_equal(decode__record(buf, PGT_SIGNAL_SIZE(2), &ev), 0);
	assert_ptr_not_equal(ev.signal, rec);
	assert_int_equal(ev.signal->nr, 2);
	assert_int_equal(ev.signal->rcpt[1].pid, 11);
	assert_int_equal(ev.signal->rcpt[2].pid, 0);
	assert_int_equal(ev.signal->rcpt[15].pgid, 0);
	assert_int_equal(ev.hdr->size, PGT_SIGNAL_SIZE(2));

	/* No recipients at all: a kill that failed. */
	rec->hdr.size = PGT_SIGNAL_SIZE(0);
	rec->nr = 0;
	assert_int_equal(decode__record(buf, PGT_SIGNAL_SIZE(0), &ev), 0);

	/* More recipients than slots, a partial slot, or more than a whole record. */
	rec->nr = 3;
	rec->hdr.size = PGT_SIGNAL_SIZE(2);
	assert_int_equal(decode__record(buf, PGT_SIGNAL_SIZE(2), &ev), -EINVAL);
	rec->nr = 1;
	rec->hdr.size = PGT_SIGNAL_SIZE(1) + 4;
	assert_int_equal(decode__record(buf, sizeof(buf), &ev), -EINVAL);
	rec->hdr.size = PGT_SIGNAL_SIZE(0) - 16;
	assert_int_equal(decode__record(buf, sizeof(buf), &ev), -EINVAL);
	rec->hdr.size = sizeof(*rec) + 16;
	assert_int_equal(decode__record(buf, sizeof(buf), &ev), -EINVAL);

	/* A whole record is used in place. */
	rec->hdr.size = sizeof(*rec);
	assert_int_equal(decode__record(buf, sizeof(*rec), &ev), 0);
	assert_ptr_equal(ev.signal, rec);
}

/* Put @n bytes at the end of @e's data[] as part @which (0 args, 1 cwd, 2 exe). */
static void exec_part(struct pgt_exec *e, int which, const char *bytes, size_t n)
{
	size_t at = e->args_len + e->cwd_len + e->exe_len;

	memcpy(e->data + at, bytes, n);
	if (which == 0)
		e->args_len = n;
	else if (which == 1)
		e->cwd_len = n;
	else
		e->exe_len = n;
}

/* An exec's arguments and paths, as the BPF side lays them out. */
static void test_exec_parts(void **state)
{
	static unsigned char buf[sizeof(struct pgt_exec) + 64];
	struct pgt_exec *e = (void *)buf;
	struct span args[PGT_ARGS_SHOWN];
	struct pgt_event ev;
	char path[DECODE_PATH_SIZE];
	bool cut;
	size_t n;

	memset(buf, 0xab, sizeof(buf)); /* what lies past the record is not read */
	memset(e, 0, PGT_EXEC_SIZE(0));
	e->hdr.type = PGT_EXEC;
	e->flags = PGT_EXEC_HAS_ARGS | PGT_EXEC_HAS_CWD | PGT_EXEC_HAS_EXE;
	exec_part(e, 0, "sleep\0\0a b\0", 11);	  /* an empty argument, one with a blank */
	exec_part(e, 1, "tmp\0", 4);		  /* /tmp */
	exec_part(e, 2, "sleep\0bin\0usr\0", 14); /* /usr/bin/sleep, leaf first */
	e->hdr.size = PGT_EXEC_SIZE(29);
	assert_int_equal(decode__record(e, e->hdr.size, &ev), 0);
	assert_ptr_equal(ev.exec, e);
	n = decode__exec_args(e, args, PGT_ARGS_SHOWN, &cut);
	assert_int_equal(n, 3);
	assert_false(cut);
	assert_int_equal(args[0].len, 5);
	assert_memory_equal(args[0].s, "sleep", 5);
	assert_int_equal(args[1].len, 0);
	assert_int_equal(args[2].len, 3);
	assert_memory_equal(args[2].s, "a b", 3);
	assert_int_equal(decode__exec_path(e, false, path, sizeof(path), &cut), 4);
	assert_string_equal(path, "/tmp");
	assert_int_equal(decode__exec_path(e, true, path, sizeof(path), &cut), 14);
	assert_string_equal(path, "/usr/bin/sleep");
	assert_false(cut);
	/* More arguments than the outputs write: cut there. */
	assert_int_equal(decode__exec_args(e, args, 2, &cut), 2);
	assert_true(cut);

	/* A walk cut short: the leaf part, with no leading '/'. */
	e->flags |= PGT_EXEC_CWD_CUT;
	assert_int_equal(decode__exec_path(e, false, path, sizeof(path), &cut), 3);
	assert_string_equal(path, "tmp");
	assert_true(cut);
	/* The root itself: no names. */
	e->cwd_len = 0;
	e->exe_len = 0;
	e->flags &= ~PGT_EXEC_CWD_CUT;
	e->hdr.size = PGT_EXEC_SIZE(11);
	assert_int_equal(decode__record(e, e->hdr.size, &ev), 0);
	assert_int_equal(decode__exec_path(e, false, path, sizeof(path), &cut), 1);
	assert_string_equal(path, "/");
	/* Deleted, as /proc marks it; a memfd's one name; not on a cut path. */
	exec_part(e, 1, "d\0tmp\0", 6);
	exec_part(e, 2, "memfd:x\0", 8);
	e->hdr.size = PGT_EXEC_SIZE(11 + 6 + 8);
	e->flags |= PGT_EXEC_CWD_DELETED | PGT_EXEC_EXE_ANON;
	assert_int_equal(decode__record(e, e->hdr.size, &ev), 0);
	assert_int_equal(decode__exec_path(e, false, path, sizeof(path), &cut), 16);
	assert_string_equal(path, "/tmp/d (deleted)");
	assert_true(decode__exec_deleted(e, false));
	assert_int_equal(decode__exec_path(e, true, path, sizeof(path), &cut), 18);
	assert_string_equal(path, "/memfd:x (deleted)");
	assert_true(decode__exec_deleted(e, true));
	e->flags = (e->flags & ~PGT_EXEC_EXE_ANON) | PGT_EXEC_CWD_CUT;
	assert_false(decode__exec_deleted(e, true));
	assert_int_equal(decode__exec_path(e, false, path, sizeof(path), &cut), 5);
	assert_string_equal(path, "tmp/d");
	assert_true(cut);
	/* No room for the mark: the path alone. */
	e->flags &= ~PGT_EXEC_CWD_CUT;
	assert_int_equal(decode__exec_path(e, false, path, 8, &cut), 6);
	assert_string_equal(path, "/tmp/d");
	e->flags &= ~PGT_EXEC_CWD_DELETED;
	e->cwd_len = e->exe_len = 0;
	e->hdr.size = PGT_EXEC_SIZE(11);
	/* An argument vector cut by the BPF side: its last argument has no NUL. */
	e->args_len = 8;
	e->flags |= PGT_EXEC_ARGS_CUT;
	n = decode__exec_args(e, args, PGT_ARGS_SHOWN, &cut);
	assert_int_equal(n, 3);
	assert_int_equal(args[2].len, 1);
	assert_true(cut);
	/* Parts longer than the BPF side ever writes: refused, though they fit. */
	e->hdr.size = sizeof(*e);
	e->args_len = PGT_ARGS_MAX + 1;
	assert_int_equal(decode__record(e, e->hdr.size, &ev), -EINVAL);
	e->args_len = PGT_ARGS_MAX;
	e->cwd_len = PGT_EXEC_PATH_MAX + 1;
	assert_int_equal(decode__record(e, e->hdr.size, &ev), -EINVAL);
	e->cwd_len = 0;
	e->exe_len = PGT_EXEC_PATH_MAX + 1;
	assert_int_equal(decode__record(e, e->hdr.size, &ev), -EINVAL);
	e->exe_len = 0;
	e->args_len = 8;
	e->hdr.size = PGT_EXEC_SIZE(11);
	/* Parts longer than the record: refused. */
	e->cwd_len = 4;
	assert_int_equal(decode__record(e, e->hdr.size, &ev), -EINVAL);
	e->cwd_len = 0;

	/* A recording made before args: the record ends at filename, and the
	 * pipeline sees it with none of them, whatever lies past it. */
	e->hdr.size = PGT_EXEC_V1_SIZE;
	e->flags = PGT_EXEC_FILENAME_CUT | PGT_EXEC_HAS_ARGS;
	memcpy(e->filename, "/bin/true", 10);
	assert_int_equal(decode__record(e, e->hdr.size, &ev), 0);
	assert_ptr_not_equal(ev.exec, e);
	assert_int_equal(ev.exec->flags, PGT_EXEC_FILENAME_CUT);
	assert_int_equal(ev.exec->args_len, 0);
	assert_string_equal(ev.exec->filename, "/bin/true");
	assert_int_equal(decode__exec_path(ev.exec, true, path, sizeof(path), &cut), -1);
}

static void test_exit_status(void **state)
{
	struct exit_info xi;

	decode__exit_status(3 << 8, &xi);
	assert_true(xi.exited);
	assert_int_equal(xi.code, 3);
	assert_int_equal(xi.signal, 0);
	assert_false(xi.core);

	decode__exit_status(0, &xi);
	assert_true(xi.exited);
	assert_int_equal(xi.code, 0);

	decode__exit_status(255 << 8, &xi);
	assert_int_equal(xi.code, 255);

	decode__exit_status(SIGSEGV | 0x80, &xi);
	assert_false(xi.exited);
	assert_int_equal(xi.signal, SIGSEGV);
	assert_true(xi.core);

	decode__exit_status(SIGKILL, &xi);
	assert_false(xi.exited);
	assert_int_equal(xi.signal, SIGKILL);
	assert_false(xi.core);
}

static void test_names(void **state)
{
	char buf[16];

	assert_string_equal(decode__signame(SIGSEGV, buf, sizeof(buf)), "SIGSEGV");
	assert_string_equal(decode__signame(SIGHUP, buf, sizeof(buf)), "SIGHUP");
	assert_string_equal(decode__signame(SIGRTMIN, buf, sizeof(buf)), "SIGRTMIN");
	assert_string_equal(decode__signame(SIGRTMIN + 2, buf, sizeof(buf)), "SIGRTMIN+2");
	assert_string_equal(decode__errname(EPERM, buf, sizeof(buf)), "EPERM");
	assert_string_equal(decode__errname(EACCES, buf, sizeof(buf)), "EACCES");
	assert_string_equal(decode__errname(ESRCH, buf, sizeof(buf)), "ESRCH");
	assert_string_equal(decode__errname(4000, buf, sizeof(buf)), "E4000");
}

/* tty_nr as the kernel encodes it (new_encode_dev). */
static unsigned int tty_nr(unsigned int major, unsigned int minor)
{
	return (minor & 0xff) | (major << 8) | ((minor & ~0xffU) << 12);
}

static void test_tty_names(void **state)
{
	unsigned int maj, min;
	char buf[32];

	assert_true(decode__tty_name("pts3", tty_nr(136, 3), buf, sizeof(buf)));
	assert_string_equal(buf, "pts/3");
	/* pty numbers past 255 spill into the next major. */
	assert_true(decode__tty_name("pts261", tty_nr(137, 5), buf, sizeof(buf)));
	assert_string_equal(buf, "pts/261");
	assert_true(decode__tty_name("tty1", tty_nr(4, 1), buf, sizeof(buf)));
	assert_string_equal(buf, "tty1");
	assert_true(decode__tty_name("ttyS0", tty_nr(4, 64), buf, sizeof(buf)));
	assert_string_equal(buf, "ttyS0");
	assert_false(decode__tty_name("", 0, buf, sizeof(buf)));

	decode__tty_dev(tty_nr(136, 300), &maj, &min);
	assert_int_equal(maj, 136);
	assert_int_equal(min, 300);
}

static void test_entity_id(void **state)
{
	char a[17], b[17], c[17], d[17];

	decode__set_boot_id("6f1c0c8e-0000-4000-8000-000000000001");
	decode__entity_id(100, 5000, a);
	decode__entity_id(100, 5000, b);
	decode__entity_id(100, 5001, c); /* same pid, reused later */
	assert_string_equal(a, b);
	assert_string_not_equal(a, c);
	assert_int_equal(strlen(a), 16);
	decode__set_boot_id("6f1c0c8e-0000-4000-8000-000000000002");
	decode__entity_id(100, 5000, d); /* same pid and start, next boot */
	assert_string_not_equal(a, d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_record_validation),
		cmocka_unit_test(test_exec_parts),
		cmocka_unit_test(test_every_type_validates),
		cmocka_unit_test(test_signal_slots),
		cmocka_unit_test(test_exit_status),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_tty_names),
		cmocka_unit_test(test_entity_id),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
