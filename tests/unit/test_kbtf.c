// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * kbtf: the streaming lookup of kernel type ids (issue 37) against libbpf's
 * own parse, on BTF written by libbpf (every kind, a string section of many
 * windows, names that end longer names) and on the kernel's when readable.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <bpf/btf.h>
#include "kbtf.h"

static char path[32];

static void write_file(const void *data, size_t len)
{
	int fd;

	snprintf(path, sizeof(path), "/tmp/pgt-kbtf-XXXXXX");
	fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	close(fd);
}

/* Every kind, and filler names enough for a string section of several 64 KiB windows. */
static struct btf *make_btf(void)
{
	struct btf *b = btf__new_empty();
	char name[64];
	int i, in, fp, st;

	assert_non_null(b);
	in = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	btf__add_ptr(b, in);
	btf__add_array(b, in, in, 4);
	st = btf__add_struct(b, "task_struct", 8);
	btf__add_field(b, "pid", in, 0, 0);
	btf__add_field(b, "tgid", in, 32, 0);
	btf__add_union(b, "u", 4);
	btf__add_field(b, "a", in, 0, 0);
	btf__add_enum(b, "e", 4);
	btf__add_enum_value(b, "E_ONE", 1);
	btf__add_fwd(b, "fwd", BTF_FWD_STRUCT);
	btf__add_typedef(b, "pid_t", in);
	btf__add_volatile(b, in);
	btf__add_const(b, in);
	btf__add_restrict(b, btf__add_ptr(b, in));
	fp = btf__add_func_proto(b, in);
	btf__add_func_param(b, "t", st);
	btf__add_float(b, "double", 8);
	btf__add_type_tag(b, "user", in);
	btf__add_decl_tag(b, "tag", st, -1);
	btf__add_enum64(b, "e64", 8, false);
	btf__add_enum64_value(b, "E64_ONE", 1ULL << 40);
	btf__add_var(b, "v", BTF_VAR_GLOBAL_ALLOCATED, in);
	btf__add_datasec(b, ".data", 4);
	/* Thousands of functions: names spread over many windows. */
	for (i = 0; i < 6000; i++) {
		snprintf(name, sizeof(name), "filler_function_number_%d", i);
		btf__add_func(b, name, BTF_FUNC_GLOBAL, fp);
	}
	/* Many names that end in another (drivers' *_tty_ioctl), before it. */
	for (i = 0; i < 12; i++) {
		snprintf(name, sizeof(name), "dev%d_tty_ioctl", i);
		btf__add_func(b, name, BTF_FUNC_STATIC, fp);
	}
	btf__add_func(b, "tty_ioctl", BTF_FUNC_GLOBAL, fp);
	/* A name that is another's tail, and the same name as two kinds. */
	btf__add_func(b, "__x64_sys_setsid", BTF_FUNC_GLOBAL, fp);
	btf__add_func(b, "sys_setsid", BTF_FUNC_GLOBAL, fp);
	btf__add_struct(b, "disassociate_ctty", 0);
	btf__add_func(b, "disassociate_ctty", BTF_FUNC_STATIC, fp);
	btf__add_func(b, "last_function", BTF_FUNC_GLOBAL, fp);
	return b;
}

/* Both ways: read through the window, and mapped (as sysfs allows from 6.16). */
static void same_as_libbpf(const struct btf *b, struct kbtf_query *q, int n)
{
	unsigned int how;
	int i;

	for (how = 0; how < 2; how++) {
		assert_int_equal(kbtf__find_how(path, q, n, how ? 0 : KBTF_READ), 0);
		for (i = 0; i < n; i++) {
			int want = btf__find_by_name_kind(b, q[i].name, q[i].kind);

			if (q[i].id != (want > 0 ? want : -ENOENT))
				fail_msg("%s (kind %u, %s): kbtf %d, libbpf %d", q[i].name,
					 q[i].kind, how ? "mapped" : "read", q[i].id, want);
		}
	}
}

static void test_written(void **state)
{
	struct btf *b = make_btf();
	struct kbtf_query q[] = {
		{ .name = "disassociate_ctty", .kind = BTF_KIND_FUNC },
		{ .name = "disassociate_ctty", .kind = BTF_KIND_STRUCT },
		{ .name = "sys_setsid", .kind = BTF_KIND_FUNC },
		{ .name = "__x64_sys_setsid", .kind = BTF_KIND_FUNC },
		{ .name = "filler_function_number_0", .kind = BTF_KIND_FUNC },
		{ .name = "filler_function_number_4321", .kind = BTF_KIND_FUNC },
		{ .name = "filler_function_number_5999", .kind = BTF_KIND_FUNC },
		{ .name = "last_function", .kind = BTF_KIND_FUNC },
		{ .name = "task_struct", .kind = BTF_KIND_STRUCT },
		{ .name = "pid_t", .kind = BTF_KIND_TYPEDEF },
		{ .name = "e64", .kind = BTF_KIND_ENUM64 },
		{ .name = "double", .kind = BTF_KIND_FLOAT },
		{ .name = "pid_t", .kind = BTF_KIND_FUNC },
		{ .name = "no_such_function", .kind = BTF_KIND_FUNC },
		{ .name = "filler_function_number_", .kind = BTF_KIND_FUNC },
		{ .name = "tty_ioctl", .kind = BTF_KIND_FUNC },
	};
	char names[32][64];
	const void *raw;
	__u32 len;
	int i;

	raw = btf__raw_data(b, &len);
	assert_non_null(raw);
	assert_true(len > 3 * 65536);
	write_file(raw, len);
	same_as_libbpf(b, q, sizeof(q) / sizeof(q[0]));
	assert_true(q[0].id > 0 && q[1].id > 0 && q[0].id != q[1].id);
	assert_int_equal(q[13].id, -ENOENT);
	assert_true(q[15].id > 0);
	/* Every filler, 32 a scan: some names straddle two windows. */
	for (i = 0; i < 6000; i += 32) {
		struct kbtf_query f[32];
		int k;

		for (k = 0; k < 32 && i + k < 6000; k++) {
			snprintf(names[k], sizeof(names[k]), "filler_function_number_%d", i + k);
			f[k] = (struct kbtf_query){ .name = names[k], .kind = BTF_KIND_FUNC };
		}
		same_as_libbpf(b, f, k);
	}

	/* Cut short, or not BTF: refused, every id unknown. */
	assert_int_equal(truncate(path, len - 1000), 0);
	assert_int_equal(kbtf__find(path, q, 2), -EPROTO);
	assert_int_equal(q[0].id, -ENOENT);
	assert_int_equal(kbtf__find_how(path, q, 2, KBTF_READ), -EPROTO);
	assert_int_equal(truncate(path, 10), 0);
	assert_int_equal(kbtf__find(path, q, 2), -EPROTO);
	assert_int_equal(kbtf__find_how(path, q, 2, KBTF_READ), -EPROTO);
	unlink(path);
	write_file("not BTF at all, but long enough for a header", 44);
	assert_int_equal(kbtf__find(path, q, 2), -EPROTO);
	unlink(path);
	assert_int_equal(kbtf__find(path, q, 2), -ENOENT);
	btf__free(b);
}

/* The kernel's own BTF, where it can be read: a sample of its names of several kinds. */
static void test_kernel(void **state)
{
	static const __u32 kinds[] = { BTF_KIND_FUNC, BTF_KIND_STRUCT, BTF_KIND_TYPEDEF };
	struct kbtf_query q[32];
	struct btf *b;
	int n = 0, id, total;

	if (access(KBTF_VMLINUX, R_OK))
		skip();
	b = btf__load_vmlinux_btf();
	assert_non_null(b);
	total = (int)btf__type_cnt(b);
	for (id = 1; id < total && n < 31; id += total / 40) {
		const struct btf_type *t = btf__type_by_id(b, id);
		__u32 kind = btf_kind(t);
		const char *name = btf__name_by_offset(b, t->name_off);

		if (name && *name && strlen(name) < 100 &&
		    (kind == kinds[0] || kind == kinds[1] || kind == kinds[2]))
			q[n++] = (struct kbtf_query){ .name = name, .kind = kind };
	}
	q[n++] = (struct kbtf_query){ .name = "disassociate_ctty", .kind = BTF_KIND_FUNC };
	assert_int_equal(kbtf__find(KBTF_VMLINUX, q, n), 0);
	for (id = 0; id < n; id++) {
		int want = btf__find_by_name_kind(b, q[id].name, q[id].kind);

		if (q[id].id != want)
			fail_msg("%s (kind %u): kbtf %d, libbpf %d", q[id].name, q[id].kind,
				 q[id].id, want);
	}
	btf__free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_written),
		cmocka_unit_test(test_kernel),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
