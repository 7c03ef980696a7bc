// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * corebtf: the kernel's types cut to what CO-RE relocations can use (issue
 * 37). On BTF written by libbpf: roots whole, what they embed whole, what
 * they point to a stub, the rest left out; the object's own roots; and on
 * the kernel's BTF when readable, every root kept whole. That libbpf makes
 * the same relocations from the subset as from the whole BTF is t_levels'
 * and t_kernels' (every program's tag, both ways).
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
#include "corebtf.h"
#include "kbtf.h"

/*
 * struct outer { const inner_t in; int arr[4]; struct other *p;
 *                int (*fn)(struct other2 *); union { int q; long r; }; }
 * beside struct unrelated, struct holder { struct other o; } and
 * struct outer___old, a flavor libbpf takes as another candidate.
 */
static struct btf *make_btf(void)
{
	struct btf *b = btf__new_empty();
	int i, l, other, other2, p_other, p_other2, fp, p_fp, inner, td, c_td, arr, un;

	assert_non_null(b);
	i = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	l = btf__add_int(b, "long", 8, BTF_INT_SIGNED);
	btf__add_struct(b, "unrelated", 4);
	btf__add_field(b, "u", i, 0, 0);
	other = btf__add_struct(b, "other", 16);
	btf__add_field(b, "x", i, 0, 0);
	btf__add_field(b, "y", l, 64, 0);
	p_other = btf__add_ptr(b, other);
	other2 = btf__add_struct(b, "other2", 4);
	btf__add_field(b, "z", i, 0, 0);
	p_other2 = btf__add_ptr(b, other2);
	fp = btf__add_func_proto(b, i);
	btf__add_func_param(b, "o", p_other2);
	p_fp = btf__add_ptr(b, fp);
	inner = btf__add_struct(b, "inner", 8);
	btf__add_field(b, "a", i, 0, 0);
	btf__add_field(b, "b", i, 32, 0);
	td = btf__add_typedef(b, "inner_t", inner);
	c_td = btf__add_const(b, td);
	arr = btf__add_array(b, i, i, 4);
	btf__add_enum(b, "color", 4);
	btf__add_enum_value(b, "RED", 1);
	un = btf__add_union(b, NULL, 8);
	btf__add_field(b, "q", i, 0, 0);
	btf__add_field(b, "r", l, 0, 0);
	btf__add_struct(b, "outer", 48);
	btf__add_field(b, "in", c_td, 0, 0);
	btf__add_field(b, "arr", arr, 64, 0);
	btf__add_field(b, "p", p_other, 192, 0);
	btf__add_field(b, "fn", p_fp, 256, 0);
	btf__add_field(b, NULL, un, 320, 0);
	btf__add_struct(b, "outer___old", 8);
	btf__add_field(b, "p", p_other, 0, 0);
	btf__add_struct(b, "holder", 16);
	btf__add_field(b, "o", other, 0, 0);
	return b;
}

/* The subset of @b for @names, parsed back by libbpf; NULL with the error in @err. */
static struct btf *cut(const struct btf *b, const char **names, int n, struct corebtf_stats *st,
		       int *err)
{
	__u32 sz;
	const void *raw = btf__raw_data(b, &sz);
	struct btf *out;
	void *sub = NULL;
	size_t sub_sz = 0;

	*err = corebtf__subset(raw, sz, (char *const *)names, n, &sub, &sub_sz, st);
	if (*err)
		return NULL;
	assert_int_equal(st->bytes, sub_sz);
	out = btf__new(sub, (__u32)sub_sz);
	free(sub);
	assert_non_null(out);
	return out;
}

static const struct btf_type *named(const struct btf *b, const char *name, __u32 kind)
{
	int id = btf__find_by_name_kind(b, name, kind);

	if (id <= 0)
		fail_msg("no %s of kind %u in the subset", name, kind);
	return btf__type_by_id(b, id);
}

/* A member's type with qualifiers and typedefs skipped. */
static const struct btf_type *resolved(const struct btf *b, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(b, id);

	while (btf_is_mod(t) || btf_is_typedef(t))
		t = btf__type_by_id(b, t->type);
	return t;
}

static void test_written(void **state)
{
	const char *roots[] = { "outer", "color" };
	const struct btf_type *t, *u;
	const struct btf_member *m;
	struct corebtf_stats st;
	struct btf *b = make_btf(), *s;
	int err;

	s = cut(b, roots, 2, &st, &err);
	assert_int_equal(err, 0);
	assert_int_equal(st.roots, 2);
	assert_int_equal(st.kernel_types, btf__type_cnt(b) - 1);

	/* The root whole, with its members' names, offsets and embedded types. */
	t = named(s, "outer", BTF_KIND_STRUCT);
	assert_int_equal(btf_vlen(t), 5);
	assert_int_equal(t->size, 48);
	m = btf_members(t);
	assert_string_equal(btf__name_by_offset(s, m[0].name_off), "in");
	assert_string_equal(btf__name_by_offset(s, m[3].name_off), "fn");
	assert_int_equal(m[2].offset, 192);
	u = resolved(s, m[0].type);
	assert_true(btf_is_struct(u) && btf_vlen(u) == 2);
	assert_string_equal(btf__name_by_offset(s, u->name_off), "inner");
	assert_true(btf_is_array(btf__type_by_id(s, m[1].type)));
	assert_int_equal(btf_array(btf__type_by_id(s, m[1].type))->nelems, 4);
	u = btf__type_by_id(s, m[4].type);
	assert_true(btf_is_union(u) && btf_vlen(u) == 2 && !u->name_off);

	/* Behind pointers: stubs with their kind, name and size; a function's prototype whole. */
	u = btf__type_by_id(s, btf__type_by_id(s, m[2].type)->type);
	assert_true(btf_is_struct(u) && btf_vlen(u) == 0 && u->size == 16);
	assert_string_equal(btf__name_by_offset(s, u->name_off), "other");
	u = btf__type_by_id(s, btf__type_by_id(s, m[3].type)->type);
	assert_true(btf_is_func_proto(u) && btf_vlen(u) == 1);
	assert_string_equal(btf__name_by_offset(s, btf_params(u)[0].name_off), "o");
	assert_int_equal(btf_vlen(named(s, "other2", BTF_KIND_STRUCT)), 0);
	assert_int_equal(st.stubs, 2);

	/* A kernel-side flavor of a root is a candidate too; what nothing reaches is left out. */
	assert_int_equal(btf_vlen(named(s, "outer___old", BTF_KIND_STRUCT)), 1);
	t = named(s, "color", BTF_KIND_ENUM);
	assert_string_equal(btf__name_by_offset(s, btf_enum(t)[0].name_off), "RED");
	assert_int_equal(btf__find_by_name(s, "unrelated"), -ENOENT);
	assert_int_equal(btf__find_by_name(s, "holder"), -ENOENT);
	assert_int_equal(st.types, btf__type_cnt(s) - 1);
	btf__free(s);

	/* Embedded by one root and pointed to by another: whole. */
	roots[1] = "holder";
	s = cut(b, roots, 2, &st, &err);
	assert_int_equal(err, 0);
	assert_int_equal(btf_vlen(named(s, "other", BTF_KIND_STRUCT)), 2);
	assert_int_equal(st.stubs, 1);
	btf__free(s);

	/* A root the kernel has no type of (another version's): counted, named. */
	roots[1] = "missing";
	s = cut(b, roots, 2, &st, &err);
	assert_int_equal(err, 0);
	assert_int_equal(st.absent, 1);
	assert_string_equal(st.absent_name, "missing");
	assert_int_equal(btf__find_by_name(s, "missing"), -ENOENT);
	assert_int_equal(btf_vlen(named(s, "outer", BTF_KIND_STRUCT)), 5);
	btf__free(s);
	btf__free(b);
}

static void test_bad_input(void **state)
{
	static const char junk[] = "not an ELF object at all, but more than an ELF header's length";
	const char *roots[] = { "outer" };
	struct btf *b = make_btf();
	struct corebtf_stats st;
	size_t sub_sz;
	void *sub;
	__u32 sz;
	const char *raw = btf__raw_data(b, &sz);
	char *cutoff = malloc(sz);

	assert_non_null(cutoff);
	/* Cut inside the type section, the header still saying more: not BTF. */
	memcpy(cutoff, raw, sz);
	assert_int_equal(corebtf__subset(cutoff, sz / 2, (char *const *)roots, 1, &sub, &sub_sz,
					 &st),
			 -EPROTO);
	memset(cutoff, 'x', sz);
	assert_int_equal(corebtf__subset(cutoff, sz, (char *const *)roots, 1, &sub, &sub_sz, &st),
			 -EPROTO);
	free(cutoff);
	assert_int_equal(corebtf__roots(junk, sizeof(junk), (char *[COREBTF_ROOTS]){}, 0), -EPROTO);
	btf__free(b);
}

/*
 * struct outer { int a; } last, its one member's type at the type section's
 * last 12 bytes (name_off, type, offset): set to @type, or its name to @name_off.
 */
static int cut_patched(__u32 type, __u32 name_off)
{
	const char *roots[] = { "outer" };
	struct btf *b = btf__new_empty();
	struct btf_header h;
	struct corebtf_stats st;
	size_t sub_sz;
	void *sub = NULL;
	const void *data;
	__u32 sz, *m;
	char *raw;
	int i, err;

	i = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	btf__add_decl_tag(b, "tag", i, -1);
	btf__add_struct(b, "outer", 4);
	btf__add_field(b, "a", i, 0, 0);
	data = btf__raw_data(b, &sz);
	raw = malloc(sz);
	assert_non_null(raw);
	memcpy(raw, data, sz);
	memcpy(&h, raw, sizeof(h));
	m = (__u32 *)(raw + h.hdr_len + h.type_off + h.type_len - 12);
	if (type)
		m[1] = type;
	if (name_off)
		m[0] = name_off;
	err = corebtf__subset(raw, sz, (char *const *)roots, 1, &sub, &sub_sz, &st);
	free(sub);
	free(raw);
	btf__free(b);
	return err;
}

/* A type id, a name or a kind no BTF of a kernel has: refused, not read past. */
static void test_hostile(void **state)
{
	assert_int_equal(cut_patched(0, 0), 0);
	assert_int_equal(cut_patched(999, 0), -EPROTO); /* no such type */
	assert_int_equal(cut_patched(2, 0), -EPROTO);	/* a declaration tag as a member's type */
	assert_int_equal(cut_patched(0, 0x7fffffff), -EPROTO); /* a name past the strings */
}

static void *read_all(const char *path, size_t *sz)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*sz = (size_t)n;
	return buf;
}

/* The object's roots: flavors cut, each once; the kernel has each, whole. */
static void test_object(void **state)
{
	char *names[COREBTF_ROOTS] = {};
	struct corebtf_stats st;
	size_t sz, ksz, nsz;
	void *nofetch, *elf = read_all(".output/pgrptrace.bpf.o", &sz), *kern, *sub;
	struct btf *k, *s;
	int n, i, j, seen = 0, absent = 0;

	if (!elf)
		skip();
	n = corebtf__roots(elf, sz, names, 0);
	assert_true(n > 20);
	/* The object for kernels before 5.12, from the same source: the same roots. */
	nofetch = read_all(".output/pgrptrace_nofetch.bpf.o", &nsz);
	assert_non_null(nofetch);
	assert_int_equal(corebtf__roots(nofetch, nsz, names, n), n);
	free(nofetch);
	for (i = 0; i < n; i++) {
		assert_null(strstr(names[i], "___"));
		for (j = 0; j < i; j++)
			assert_string_not_equal(names[i], names[j]);
		seen += !strcmp(names[i], "task_struct") + !strcmp(names[i], "tty_struct") +
			!strcmp(names[i], "trace_event_raw_sched_process_exit");
	}
	assert_int_equal(seen, 3);
	kern = access(KBTF_VMLINUX, R_OK) ? NULL : read_all(KBTF_VMLINUX, &ksz);
	if (kern) {
		assert_int_equal(corebtf__subset(kern, ksz, names, n, &sub, &sz, &st), 0);
		assert_true(st.types < st.kernel_types / 20);
		s = btf__new(sub, (__u32)sz);
		k = btf__new(kern, (__u32)ksz);
		assert_non_null(s);
		assert_non_null(k);
		for (i = 0; i < n; i++) {
			int sid = btf__find_by_name(s, names[i]), kid;
			const struct btf_type *kt, *stt;

			if (sid <= 0) {
				/* Another version's type: the kernel has none either. */
				assert_true(
					btf__find_by_name_kind(k, names[i], BTF_KIND_STRUCT) < 0 &&
					btf__find_by_name_kind(k, names[i], BTF_KIND_UNION) < 0 &&
					btf__find_by_name_kind(k, names[i], BTF_KIND_ENUM) < 0);
				absent++;
				continue;
			}
			stt = btf__type_by_id(s, sid);
			kid = btf__find_by_name_kind(k, names[i], btf_kind(stt));
			assert_true(kid > 0);
			kt = btf__type_by_id(k, kid);
			assert_int_equal(btf_kind(stt), btf_kind(kt));
			assert_int_equal(btf_vlen(stt), btf_vlen(kt));
			assert_int_equal(stt->size, kt->size);
		}
		assert_int_equal(absent, st.absent);
		btf__free(s);
		btf__free(k);
		free(sub);
		free(kern);
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(elf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_written),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_object),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
