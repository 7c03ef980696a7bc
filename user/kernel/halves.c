// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The verifier checks one program at a time, in the loading thread, and
 * libbpf loads an object's programs one after another: on this VM most of a
 * start (30 programs, 40 ms). Two objects of the same programs (the second
 * built without kfuncs, so that it loads without the kernel's BTF), each
 * loading part of them, verify on two CPUs at once. They must share every map,
 * global data included, as one object's programs do; libbpf has no step
 * between creating an object's maps and loading its programs, so the maps
 * are made here first, as libbpf's load would make them, and both objects
 * take them (bpf_map__reuse_fd()) before either loads.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "halves.h"

/* More than the object has: a bigger one is not split. */
#define MAX_PROGS 256

/* A program to load, and where. */
struct weighed {
	struct bpf_program *a; /* in the first object */
	struct bpf_program *b; /* its twin in the second, while it may go there */
	size_t insns;	       /* its length before relocation: its weight */
};

static int heavier_first(const void *x, const void *y)
{
	const struct weighed *p = x, *q = y;

	return p->insns < q->insns ? 1 : p->insns > q->insns ? -1 : 0;
}

/* Programs whose load looks up their target in the kernel's BTF. */
static bool needs_kernel_btf(const struct bpf_program *prog)
{
	switch (bpf_program__type(prog)) {
	case BPF_PROG_TYPE_TRACING:
	case BPF_PROG_TYPE_LSM:
	case BPF_PROG_TYPE_EXT:
	case BPF_PROG_TYPE_STRUCT_OPS:
		return true;
	default:
		return false;
	}
}

/*
 * The verifier's work grows with a program's branches more than with its
 * length, but length is what is known before the load, and the heaviest
 * (signal_generate, the exit, the tty's ioctl) are also the longest.
 */
bool halves__split(struct bpf_object *a, struct bpf_object *b, const struct bpf_program *keep)
{
	struct weighed w[MAX_PROGS];
	struct bpf_program *pa, *pb;
	size_t n = 0, i, wa = 0, wb = 0;
	bool any_b = false;

	bpf_object__for_each_program(pa, a) {
		if (!bpf_program__autoload(pa))
			continue;
		if (n == MAX_PROGS)
			return false;
		pb = bpf_object__find_program_by_name(b, bpf_program__name(pa));
		w[n].a = pa;
		w[n].b = pa != keep && pb && !needs_kernel_btf(pb) ? pb : NULL;
		w[n].insns = bpf_program__insn_cnt(pa);
		n++;
	}
	qsort(w, n, sizeof(w[0]), heavier_first);
	/* Heaviest first, each to the lighter half that can load it. */
	for (i = 0; i < n; i++) {
		if (w[i].b && wb < wa) {
			wb += w[i].insns;
			any_b = true;
		} else {
			wa += w[i].insns;
			w[i].b = NULL;
		}
	}
	if (!any_b)
		return false;
	bpf_object__for_each_program(pb, b)
		bpf_program__set_autoload(pb, false);
	for (i = 0; i < n; i++) {
		if (!w[i].b)
			continue;
		bpf_program__set_autoload(w[i].a, false);
		bpf_program__set_autoload(w[i].b, true);
	}
	return true;
}

void halves__unsplit(struct bpf_object *a, struct bpf_object *b)
{
	struct bpf_program *pb, *pa;

	bpf_object__for_each_program(pb, b) {
		pa = bpf_object__find_program_by_name(a, bpf_program__name(pb));
		if (pa && bpf_program__autoload(pb))
			bpf_program__set_autoload(pa, true);
	}
}

struct bpf_program *halves__loaded(struct bpf_object *b, struct bpf_program *prog)
{
	struct bpf_program *other;

	if (!b || bpf_program__autoload(prog))
		return prog;
	other = bpf_object__find_program_by_name(b, bpf_program__name(prog));
	return other && bpf_program__autoload(other) ? other : prog;
}

/*
 * libbpf's load reads the kernel's BTF first, to find each tracing
 * program's target: here, on the half's own thread, while the other makes
 * the maps. The same targets as the sections name; a target not found is
 * left to the load, which says so.
 */
void halves__resolve(struct bpf_object *obj)
{
	struct bpf_program *prog;
	const char *target;

	bpf_object__for_each_program(prog, obj) {
		/* The type first: a split writes only other programs' autoload. */
		if (!needs_kernel_btf(prog) || !bpf_program__autoload(prog))
			continue;
		target = strchr(bpf_program__section_name(prog), '/');
		if (target && target[1])
			bpf_program__set_attach_target(prog, 0, target + 1);
	}
}

static bool local_storage(enum bpf_map_type type)
{
	return type == BPF_MAP_TYPE_TASK_STORAGE || type == BPF_MAP_TYPE_INODE_STORAGE ||
	       type == BPF_MAP_TYPE_SK_STORAGE;
}

/*
 * The maps made here are the kinds libbpf makes without more than their
 * definition: not maps of maps or programs (filled from their slots), not
 * a perf event array (sized to the CPUs), not .kconfig (filled in the load).
 */
static bool makeable(struct bpf_map *m)
{
	const char *name = bpf_map__name(m);
	size_t len = strlen(name);

	switch (bpf_map__type(m)) {
	case BPF_MAP_TYPE_ARRAY_OF_MAPS:
	case BPF_MAP_TYPE_HASH_OF_MAPS:
	case BPF_MAP_TYPE_PROG_ARRAY:
	case BPF_MAP_TYPE_PERF_EVENT_ARRAY:
	case BPF_MAP_TYPE_STRUCT_OPS:
		return false;
	default:
		break;
	}
	return !(len >= 8 && !strcmp(name + len - 8, ".kconfig"));
}

/*
 * A local storage map needs BTF for its key (an int) and value; the value's
 * layout matters only to its special fields (locks, timers), which ours do
 * not have: a struct of the value's size, in BTF any kernel reads.
 */
static struct btf *storage_btf(__u32 value_size, struct bpf_map_create_opts *o)
{
	struct btf *btf = btf__new_empty();
	int key, val;

	if (!btf)
		return NULL;
	key = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	val = btf__add_struct(btf, "pgt_storage", value_size);
	if (key < 0 || val < 0 || btf__load_into_kernel(btf)) {
		btf__free(btf);
		return NULL;
	}
	o->btf_fd = btf__fd(btf);
	o->btf_key_type_id = key;
	o->btf_value_type_id = val;
	return btf;
}

static int make_map(struct bpf_map *m)
{
	LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = bpf_map__map_flags(m),
		    .map_extra = bpf_map__map_extra(m), .numa_node = bpf_map__numa_node(m));
	enum bpf_map_type type = bpf_map__type(m);
	struct btf *btf = NULL;
	const void *init;
	__u32 zero = 0;
	size_t size;
	int fd, err;

	if (local_storage(type) && !(btf = storage_btf(bpf_map__value_size(m), &o)))
		return -errno ?: -EINVAL;
	fd = bpf_map_create(type, bpf_map__name(m), bpf_map__key_size(m), bpf_map__value_size(m),
			    bpf_map__max_entries(m), &o);
	err = -errno;
	btf__free(btf);
	if (fd < 0)
		return err;
	/* Global data: its starting values, .rodata then read-only for good. */
	init = bpf_map__initial_value(m, &size);
	if (init && (bpf_map_update_elem(fd, &zero, init, 0) ||
		     ((bpf_map__map_flags(m) & BPF_F_RDONLY_PROG) && bpf_map_freeze(fd)))) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

/*
 * Global data laid out alike in both objects: the same variables at the
 * same offsets, and the same bytes where no variable is (constants the
 * compiler placed there). The variables' values are @a's (set before its
 * load); @b's programs only need their places.
 */
static bool same_layout(struct bpf_object *a, struct bpf_object *b, struct bpf_map *ma,
			struct bpf_map *mb)
{
	const struct btf *ba = bpf_object__btf(a), *bb = bpf_object__btf(b);
	const char *sec = strchr(bpf_map__name(ma), '.');
	const struct btf_var_secinfo *va, *vb;
	const struct btf_type *ta, *tb;
	const unsigned char *da, *db;
	size_t sza = 0, szb = 0, at = 0;
	int ia, ib, i;

	da = bpf_map__initial_value(ma, &sza);
	db = bpf_map__initial_value(mb, &szb);
	if (!ba || !bb || !sec || !da || !db || sza != szb)
		return false;
	ia = btf__find_by_name_kind(ba, sec, BTF_KIND_DATASEC);
	ib = btf__find_by_name_kind(bb, sec, BTF_KIND_DATASEC);
	if (ia < 0 || ib < 0)
		return false;
	ta = btf__type_by_id(ba, ia);
	tb = btf__type_by_id(bb, ib);
	if (ta->size != tb->size || ta->size > sza || btf_vlen(ta) != btf_vlen(tb))
		return false;
	va = btf_var_secinfos(ta);
	vb = btf_var_secinfos(tb);
	for (i = 0; i < btf_vlen(ta); i++) {
		if (va[i].offset != vb[i].offset || va[i].size != vb[i].size || va[i].offset < at ||
		    va[i].offset + va[i].size > ta->size ||
		    strcmp(btf__name_by_offset(ba, btf__type_by_id(ba, va[i].type)->name_off),
			   btf__name_by_offset(bb, btf__type_by_id(bb, vb[i].type)->name_off)) ||
		    memcmp(da + at, db + at, va[i].offset - at))
			return false;
		at = va[i].offset + va[i].size;
	}
	return !memcmp(da + at, db + at, sza - at);
}

int halves__make(struct bpf_object *a, struct bpf_object *b, int *fds)
{
	struct bpf_map *ma, *mb = NULL;
	int n = 0, fd;

	bpf_object__for_each_map(ma, a) {
		mb = bpf_object__next_map(b, mb);
		if (!mb || n == HALVES_MAX_MAPS || !makeable(ma) ||
		    strcmp(bpf_map__name(ma), bpf_map__name(mb)) ||
		    bpf_map__key_size(ma) != bpf_map__key_size(mb) ||
		    bpf_map__value_size(ma) != bpf_map__value_size(mb) ||
		    (bpf_map__initial_value(ma, &(size_t){ 0 }) && !same_layout(a, b, ma, mb)))
			return -EOPNOTSUPP;
		n++;
	}
	if (bpf_object__next_map(b, mb))
		return -EOPNOTSUPP;
	n = 0;
	bpf_object__for_each_map(ma, a) {
		fd = make_map(ma);
		if (fd < 0) {
			while (n--)
				close(fds[n]);
			return fd;
		}
		fds[n++] = fd;
	}
	return n;
}

int halves__take(struct bpf_object *obj, const int *fds, int n)
{
	struct bpf_map *m;
	int i = 0;

	bpf_object__for_each_map(m, obj) {
		if (i == n)
			return -EINVAL;
		if (bpf_map__reuse_fd(m, fds[i++]))
			return -errno ?: -EINVAL;
	}
	return i == n ? 0 : -EINVAL;
}
