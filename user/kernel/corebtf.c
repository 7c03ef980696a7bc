// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The kernel types the object's CO-RE relocations can use, as a small BTF.
 *
 * libbpf resolves a relocation by scanning every type of the kernel's BTF
 * (125,873 on 6.18) for ones named like the relocation's root type, once per
 * root type: 41 roots here, 1.3 ms a scan, some 40-50 ms of a start. With
 * btf_custom_path it scans the BTF it is given instead. The roots are in
 * the object's .BTF.ext; a relocation's access path walks only what its
 * root embeds (members, nested structs and unions, arrays, typedefs and
 * qualifiers), and the compatibility checks look at a pointer's target no
 * further than its kind, name and size. So the subset is the types named
 * like a root, all they embed, and what they point to, a struct or union
 * behind a pointer cut to a stub with no members: the same relocations
 * (t_levels and t_kernels compare every program's tag with libbpf's own
 * search of the whole BTF), a few thousand types, and one pass of ours over the kernel's.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <linux/btf.h>
#include <bpf/btf.h>
#include "corebtf.h"
#include "kbtf.h"

/* .BTF.ext's header (libbpf's btf_ext_header, not exported): offsets after hdr_len. */
struct ext_header {
	__u16 magic;
	__u8 version;
	__u8 flags;
	__u32 hdr_len;
	__u32 func_info_off, func_info_len;
	__u32 line_info_off, line_info_len;
	__u32 core_relo_off, core_relo_len;
};

/* One CO-RE relocation record (struct bpf_core_relo of linux/bpf.h). */
struct core_relo {
	__u32 insn_off, type_id, access_str_off, kind;
};

/* libbpf's essential name: @name up to the last "X___Y" flavor separator. */
static size_t essential_len(const char *name)
{
	size_t n = strlen(name);
	long i;

	for (i = (long)n - 5; i >= 0; i--)
		if (name[i] != '_' && name[i + 1] == '_' && name[i + 2] == '_' &&
		    name[i + 3] == '_' && name[i + 4] != '_')
			return (size_t)i + 1;
	return n;
}

/* Section @want of the ELF object: its bytes, or NULL. */
static const void *elf_section(const void *elf, size_t sz, const char *want, size_t *len)
{
	const unsigned char *b = elf;
	Elf64_Ehdr eh;
	Elf64_Shdr sh, strsh;
	size_t i;

	if (sz < sizeof(eh))
		return NULL;
	memcpy(&eh, b, sizeof(eh));
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_shentsize != sizeof(sh) || eh.e_shstrndx >= eh.e_shnum || eh.e_shoff > sz ||
	    (sz - eh.e_shoff) / sizeof(sh) < eh.e_shnum)
		return NULL;
	memcpy(&strsh, b + eh.e_shoff + eh.e_shstrndx * sizeof(sh), sizeof(sh));
	if (strsh.sh_offset > sz || strsh.sh_size > sz - strsh.sh_offset || !strsh.sh_size ||
	    b[strsh.sh_offset + strsh.sh_size - 1])
		return NULL;
	for (i = 0; i < eh.e_shnum; i++) {
		memcpy(&sh, b + eh.e_shoff + i * sizeof(sh), sizeof(sh));
		if (sh.sh_name >= strsh.sh_size ||
		    strcmp((const char *)b + strsh.sh_offset + sh.sh_name, want))
			continue;
		if (sh.sh_type == SHT_NOBITS || sh.sh_offset > sz || sh.sh_size > sz - sh.sh_offset)
			return NULL;
		*len = sh.sh_size;
		return b + sh.sh_offset;
	}
	return NULL;
}

static int add_root(char *names[COREBTF_ROOTS], int n, const char *name, size_t len)
{
	int i;

	for (i = 0; i < n; i++)
		if (strlen(names[i]) == len && !strncmp(names[i], name, len))
			return n;
	if (n == COREBTF_ROOTS)
		return -E2BIG;
	names[n] = strndup(name, len);
	return names[n] ? n + 1 : -ENOMEM;
}

int corebtf__roots(const void *elf, size_t elf_sz, char *names[COREBTF_ROOTS], int n)
{
	const unsigned char *ext, *p, *end;
	size_t btf_sz, ext_sz;
	const void *btf_data;
	struct ext_header h = {};
	struct btf *local;
	__u32 rec_size;
	int i;

	btf_data = elf_section(elf, elf_sz, ".BTF", &btf_sz);
	ext = elf_section(elf, elf_sz, ".BTF.ext", &ext_sz);
	if (!btf_data || !ext || ext_sz < 8)
		goto bad;
	memcpy(&h, ext, ext_sz < sizeof(h) ? ext_sz : sizeof(h));
	if (h.magic != BTF_MAGIC || h.hdr_len > ext_sz)
		goto bad;
	if (h.hdr_len < sizeof(h) || !h.core_relo_len)
		return n;
	if (h.core_relo_off > ext_sz - h.hdr_len ||
	    h.core_relo_len > ext_sz - h.hdr_len - h.core_relo_off || h.core_relo_len < 4)
		goto bad;
	p = ext + h.hdr_len + h.core_relo_off;
	end = p + h.core_relo_len;
	memcpy(&rec_size, p, 4);
	p += 4;
	if (rec_size < sizeof(struct core_relo))
		goto bad;
	local = btf__new(btf_data, (__u32)btf_sz);
	if (!local)
		goto bad;
	while (p < end && n >= 0) {
		__u32 sec[2], k;

		if ((size_t)(end - p) < sizeof(sec)) {
			n = -EPROTO;
			break;
		}
		memcpy(sec, p, sizeof(sec));
		p += sizeof(sec);
		if (sec[1] > (size_t)(end - p) / rec_size) {
			n = -EPROTO;
			break;
		}
		for (k = 0; k < sec[1] && n >= 0; k++, p += rec_size) {
			const struct btf_type *t;
			struct core_relo r;
			const char *name;

			memcpy(&r, p, sizeof(r));
			if (r.kind == 6) /* BPF_CORE_TYPE_ID_LOCAL: no kernel type */
				continue;
			/* BPF_CORE_TYPE_ID_TARGET: a kernel type's id, which the subset renumbers. */
			if (r.kind == 7) {
				n = -ENOTSUP;
				break;
			}
			t = btf__type_by_id(local, r.type_id);
			if (!t) {
				n = -EPROTO;
				break;
			}
			name = btf__name_by_offset(local, t->name_off);
			/* libbpf relocates no anonymous root: it fails the load itself. */
			if (name && *name)
				n = add_root(names, n, name, essential_len(name));
		}
	}
	btf__free(local);
	if (n >= 0)
		return n;
	goto out;
bad:
	n = -EPROTO;
out:
	for (i = 0; i < COREBTF_ROOTS && names[i]; i++) {
		free(names[i]);
		names[i] = NULL;
	}
	return n;
}

/* Old string offsets to new, open addressing; key 0 is the empty name, never stored. */
struct strmap {
	__u32 *key, *val;
	__u32 cap, used;
};

/* The kernel's BTF, indexed, and the subset as it is built. */
struct subset {
	const struct btf_type **type; /* by id; [0] unused */
	__u32 nr;		      /* ids 1 .. nr - 1 */
	const char *strs;
	__u32 str_len;
	unsigned char *mark; /* by id: EMBED and/or BEHIND */
	__u32 *stack, depth, stack_cap;
	__u32 *new_id;
	char *out_str;
	__u32 out_str_len, out_str_cap;
	struct strmap map;
};

#define EMBED  1 /* reached not through a pointer: a composite is whole */
#define BEHIND 2 /* reached through a pointer: a composite alone is a stub */

static int push(struct subset *s, __u32 id, bool behind)
{
	unsigned char bit = behind ? BEHIND : EMBED;

	if (!id)
		return 0;
	if (id >= s->nr)
		return -EPROTO;
	if (s->mark[id] & bit)
		return 0;
	s->mark[id] |= bit;
	if (s->depth == s->stack_cap) {
		__u32 cap = s->stack_cap ? 2 * s->stack_cap : 1024;
		__u32 *st = realloc(s->stack, cap * sizeof(*st));

		if (!st)
			return -ENOMEM;
		s->stack = st;
		s->stack_cap = cap;
	}
	/* The entry's low bit says how it was reached. */
	s->stack[s->depth++] = id << 1 | behind;
	return 0;
}

static bool is_composite(const struct btf_type *t)
{
	return BTF_INFO_KIND(t->info) == BTF_KIND_STRUCT ||
	       BTF_INFO_KIND(t->info) == BTF_KIND_UNION;
}

/* What @id refers to, pushed: a pointer's target as behind one. */
static int visit(struct subset *s, __u32 id, bool behind)
{
	const struct btf_type *t = s->type[id];
	__u32 i, vlen = BTF_INFO_VLEN(t->info);
	int err = 0;

	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_PTR:
		return push(s, t->type, true);
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case 18: /* BTF_KIND_TYPE_TAG */
	case BTF_KIND_VAR:
		return push(s, t->type, behind);
	case BTF_KIND_ARRAY: {
		const struct btf_array *a = (const void *)(t + 1);

		err = push(s, a->type, behind);
		return err ?: push(s, a->index_type, behind);
	}
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION: {
		const struct btf_member *m = (const void *)(t + 1);

		if (behind)
			return 0;
		for (i = 0; i < vlen && !err; i++)
			err = push(s, m[i].type, false);
		return err;
	}
	case BTF_KIND_FUNC:
		return push(s, t->type, true);
	case BTF_KIND_FUNC_PROTO: {
		const struct btf_param *p = (const void *)(t + 1);

		err = push(s, t->type, true);
		for (i = 0; i < vlen && !err; i++)
			err = push(s, p[i].type, true);
		return err;
	}
	case BTF_KIND_DATASEC: {
		const struct btf_var_secinfo *v = (const void *)(t + 1);

		for (i = 0; i < vlen && !err; i++)
			err = push(s, v[i].type, behind);
		return err;
	}
	case 17: /* BTF_KIND_DECL_TAG: a tag, never a member's or a pointer's type */
		return -EPROTO;
	}
	return 0;
}

/* A kind a relocation's root can be: named, and searched for by libbpf. */
static bool root_kind(__u32 kind)
{
	switch (kind) {
	case BTF_KIND_INT:
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
	case BTF_KIND_ENUM:
	case BTF_KIND_FWD:
	case BTF_KIND_TYPEDEF:
	case 16: /* BTF_KIND_FLOAT */
	case 19: /* BTF_KIND_ENUM64 */
		return true;
	}
	return false;
}

static __u32 hash_name(const char *p, size_t len)
{
	__u32 h = 2166136261u;

	while (len--)
		h = (h ^ (unsigned char)*p++) * 16777619u;
	return h;
}

/* Marks every type named like a root, kind aside (libbpf filters kinds), as embedded; counts roots not found. */
static int mark_roots(struct subset *s, char *const *names, int n, struct corebtf_stats *st)
{
	struct {
		const char *name;
		size_t len;
		bool found;
	} slot[2 * COREBTF_ROOTS] = {};
	__u32 id, h, mask = 2 * COREBTF_ROOTS - 1;
	int i, err;

	for (i = 0; i < n; i++) {
		size_t len = strlen(names[i]);

		for (h = hash_name(names[i], len) & mask; slot[h].name; h = (h + 1) & mask)
			;
		slot[h].name = names[i];
		slot[h].len = len;
	}
	for (id = 1; id < s->nr; id++) {
		const struct btf_type *t = s->type[id];
		const char *name;
		size_t len;

		if (!t->name_off || !root_kind(BTF_INFO_KIND(t->info)))
			continue;
		name = s->strs + t->name_off;
		len = essential_len(name);
		for (h = hash_name(name, len) & mask; slot[h].name; h = (h + 1) & mask) {
			if (slot[h].len != len || memcmp(slot[h].name, name, len))
				continue;
			slot[h].found = true;
			err = push(s, id, false);
			if (err)
				return err;
			break;
		}
	}
	for (h = 0; h <= mask; h++) {
		if (slot[h].name && !slot[h].found && !st->absent++)
			snprintf(st->absent_name, sizeof(st->absent_name), "%s", slot[h].name);
	}
	return 0;
}

/* The new offset of old string @off, added at its first use. */
static int new_str(struct subset *s, __u32 off, __u32 *out)
{
	struct strmap *m = &s->map;
	__u32 h, len;

	if (!off) {
		*out = 0;
		return 0;
	}
	if (off >= s->str_len)
		return -EPROTO;
	if (2 * (m->used + 1) > m->cap) {
		struct strmap grown = { .cap = m->cap ? 2 * m->cap : 4096 };
		__u32 i;

		grown.key = calloc(grown.cap, sizeof(__u32));
		grown.val = calloc(grown.cap, sizeof(__u32));
		if (!grown.key || !grown.val) {
			free(grown.key);
			free(grown.val);
			return -ENOMEM;
		}
		for (i = 0; i < m->cap; i++) {
			if (!m->key[i])
				continue;
			for (h = (m->key[i] * 2654435761u) & (grown.cap - 1); grown.key[h];
			     h = (h + 1) & (grown.cap - 1))
				;
			grown.key[h] = m->key[i];
			grown.val[h] = m->val[i];
		}
		grown.used = m->used;
		free(m->key);
		free(m->val);
		*m = grown;
	}
	for (h = (off * 2654435761u) & (m->cap - 1); m->key[h]; h = (h + 1) & (m->cap - 1)) {
		if (m->key[h] == off) {
			*out = m->val[h];
			return 0;
		}
	}
	len = (__u32)strlen(s->strs + off) + 1;
	/* Offsets into one long string could add up past 32 bits. */
	if ((size_t)s->out_str_len + len > UINT32_MAX / 4)
		return -E2BIG;
	if (s->out_str_len + len > s->out_str_cap) {
		size_t cap = 2 * ((size_t)s->out_str_len + len);
		char *p;

		p = realloc(s->out_str, cap);
		if (!p)
			return -ENOMEM;
		s->out_str = p;
		s->out_str_cap = (__u32)cap;
	}
	memcpy(s->out_str + s->out_str_len, s->strs + off, len);
	m->key[h] = off;
	m->val[h] = s->out_str_len;
	m->used++;
	*out = s->out_str_len;
	s->out_str_len += len;
	return 0;
}

/* Type @id written at @p with the subset's ids and strings, @stub cut to no members. */
static int write_type(struct subset *s, __u32 id, bool stub, unsigned char *p, size_t *len)
{
	const struct btf_type *src = s->type[id];
	__u32 kind = BTF_INFO_KIND(src->info), vlen = BTF_INFO_VLEN(src->info), i;
	struct btf_type *t = (void *)p;
	long extra = stub ? 0 : kbtf__extra_bytes(kind, vlen);
	int err;

	memcpy(p, src, sizeof(*t) + (size_t)extra);
	*len = sizeof(*t) + (size_t)extra;
	err = new_str(s, src->name_off, &t->name_off);
	if (err)
		return err;
	if (stub) {
		t->info = kind << 24; /* no members, no kind flag */
		return 0;
	}
	switch (kind) {
	case BTF_KIND_PTR:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC:
	case BTF_KIND_VAR:
	case 17: /* BTF_KIND_DECL_TAG */
	case 18: /* BTF_KIND_TYPE_TAG */
		t->type = s->new_id[t->type];
		break;
	case BTF_KIND_ARRAY: {
		struct btf_array *a = (void *)(t + 1);

		a->type = s->new_id[a->type];
		a->index_type = s->new_id[a->index_type];
		break;
	}
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION: {
		struct btf_member *m = (void *)(t + 1);

		for (i = 0; i < vlen && !err; i++) {
			m[i].type = s->new_id[m[i].type];
			err = new_str(s, m[i].name_off, &m[i].name_off);
		}
		break;
	}
	case BTF_KIND_ENUM: {
		struct btf_enum *e = (void *)(t + 1);

		for (i = 0; i < vlen && !err; i++)
			err = new_str(s, e[i].name_off, &e[i].name_off);
		break;
	}
	case 19: /* BTF_KIND_ENUM64: name_off, val_lo32, val_hi32 */
		for (i = 0; i < vlen && !err; i++) {
			__u32 *e = (__u32 *)(t + 1) + 3 * i;

			err = new_str(s, e[0], &e[0]);
		}
		break;
	case BTF_KIND_FUNC_PROTO: {
		struct btf_param *q = (void *)(t + 1);

		t->type = s->new_id[t->type];
		for (i = 0; i < vlen && !err; i++) {
			q[i].type = s->new_id[q[i].type];
			err = new_str(s, q[i].name_off, &q[i].name_off);
		}
		break;
	}
	case BTF_KIND_DATASEC: {
		struct btf_var_secinfo *v = (void *)(t + 1);

		for (i = 0; i < vlen; i++)
			v[i].type = s->new_id[v[i].type];
		break;
	}
	}
	return err;
}

/* Indexes the kernel's BTF: its types by id, with each record's bounds checked. */
static int index_types(struct subset *s, const unsigned char *kbtf, size_t kbtf_sz)
{
	const unsigned char *types, *at, *end;
	struct btf_header h;
	__u32 cap = 1 << 17;

	if (kbtf_sz < sizeof(h) || (uintptr_t)kbtf % 4)
		return -EPROTO;
	memcpy(&h, kbtf, sizeof(h));
	if (h.magic != BTF_MAGIC || h.version != BTF_VERSION || h.hdr_len < sizeof(h) ||
	    h.hdr_len > kbtf_sz || h.type_off % 4 || h.hdr_len % 4 ||
	    (__u64)h.type_off + h.type_len > kbtf_sz - h.hdr_len ||
	    (__u64)h.str_off + h.str_len > kbtf_sz - h.hdr_len || !h.str_len ||
	    kbtf[h.hdr_len + h.str_off + h.str_len - 1])
		return -EPROTO;
	types = kbtf + h.hdr_len + h.type_off;
	end = types + h.type_len;
	s->strs = (const char *)kbtf + h.hdr_len + h.str_off;
	s->str_len = h.str_len;
	s->type = malloc(cap * sizeof(*s->type));
	if (!s->type)
		return -ENOMEM;
	s->nr = 1;
	for (at = types; at < end;) {
		const struct btf_type *t = (const void *)at;
		long extra;

		if ((size_t)(end - at) < sizeof(*t))
			return -EPROTO;
		extra = kbtf__extra_bytes(BTF_INFO_KIND(t->info), BTF_INFO_VLEN(t->info));
		if (extra < 0 || (size_t)(end - at) - sizeof(*t) < (size_t)extra ||
		    t->name_off >= s->str_len)
			return -EPROTO;
		if (s->nr == cap) {
			const struct btf_type **grown;

			cap *= 2;
			grown = realloc(s->type, cap * sizeof(*s->type));
			if (!grown)
				return -ENOMEM;
			s->type = grown;
		}
		s->type[s->nr++] = t;
		at += sizeof(*t) + (size_t)extra;
	}
	return 0;
}

/* Writes the marked types, with new ids in the old order, and the strings they name. */
static int emit(struct subset *s, void **out, size_t *out_sz, struct corebtf_stats *st)
{
	struct btf_header h = { .magic = BTF_MAGIC, .version = BTF_VERSION, .hdr_len = sizeof(h) };
	unsigned char *types = NULL, *buf;
	size_t types_len = 0, cap = 0, len;
	__u32 id, next = 1;
	int err = 0;

	s->new_id = calloc(s->nr, sizeof(*s->new_id));
	s->out_str = malloc(4096);
	if (!s->new_id || !s->out_str)
		return -ENOMEM;
	s->out_str[0] = '\0';
	s->out_str_len = 1;
	s->out_str_cap = 4096;
	for (id = 1; id < s->nr; id++)
		if (s->mark[id])
			s->new_id[id] = next++;
	for (id = 1; id < s->nr && !err; id++) {
		bool stub = !(s->mark[id] & EMBED) && is_composite(s->type[id]);
		size_t need;

		if (!s->mark[id])
			continue;
		need = sizeof(struct btf_type) +
		       (size_t)kbtf__extra_bytes(BTF_INFO_KIND(s->type[id]->info),
						 BTF_INFO_VLEN(s->type[id]->info));
		if (types_len + need > cap) {
			unsigned char *p;

			cap = 2 * (types_len + need) + 65536;
			p = realloc(types, cap);
			if (!p) {
				err = -ENOMEM;
				break;
			}
			types = p;
		}
		err = write_type(s, id, stub, types + types_len, &len);
		types_len += len;
		st->types++;
		st->stubs += stub;
	}
	if (err) {
		free(types);
		return err;
	}
	h.type_len = (__u32)types_len;
	h.str_off = (__u32)types_len;
	h.str_len = s->out_str_len;
	*out_sz = sizeof(h) + types_len + s->out_str_len;
	buf = malloc(*out_sz);
	if (!buf) {
		free(types);
		return -ENOMEM;
	}
	memcpy(buf, &h, sizeof(h));
	if (types_len)
		memcpy(buf + sizeof(h), types, types_len);
	memcpy(buf + sizeof(h) + types_len, s->out_str, s->out_str_len);
	free(types);
	*out = buf;
	st->bytes = (__u32)*out_sz;
	return 0;
}

int corebtf__subset(const void *kbtf, size_t kbtf_sz, char *const *names, int n, void **out,
		    size_t *out_sz, struct corebtf_stats *st)
{
	struct subset s = {};
	int err;

	memset(st, 0, sizeof(*st));
	st->roots = (__u32)n;
	if (n < 0 || n > COREBTF_ROOTS)
		return -EINVAL;
	err = index_types(&s, kbtf, kbtf_sz);
	if (!err) {
		st->kernel_types = s.nr - 1;
		s.mark = calloc(s.nr, 1);
		err = s.mark ? mark_roots(&s, names, n, st) : -ENOMEM;
	}
	while (!err && s.depth) {
		__u32 e = s.stack[--s.depth];

		err = visit(&s, e >> 1, e & 1);
	}
	if (!err)
		err = emit(&s, out, out_sz, st);
	free(s.type);
	free(s.mark);
	free(s.stack);
	free(s.new_id);
	free(s.out_str);
	free(s.map.key);
	free(s.map.val);
	return err;
}

/* The kernel's BTF in memory: mapped where sysfs offers it (6.16), else read. */
static void *map_btf(const char *path, size_t *sz, bool *mapped)
{
	size_t cap, len = 0;
	struct stat stt = {};
	char *buf = NULL;
	ssize_t r;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &stt) == 0 && stt.st_size > 0) {
		buf = mmap(NULL, (size_t)stt.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (buf != MAP_FAILED) {
			close(fd);
			*sz = (size_t)stt.st_size;
			*mapped = true;
			return buf;
		}
		buf = NULL;
	}
	cap = stt.st_size > 0 ? (size_t)stt.st_size : 8 << 20;
	for (;;) {
		if (len == cap || !buf) {
			char *p = realloc(buf, len == cap ? 2 * cap : cap);

			if (!p)
				break;
			cap = len == cap ? 2 * cap : cap;
			buf = p;
		}
		/* sysfs says the size: the read ends there, no end of file needed. */
		r = stt.st_size > 0 && len == (size_t)stt.st_size ? 0 :
								    read(fd, buf + len, cap - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			close(fd);
			if (r < 0) {
				free(buf);
				return NULL;
			}
			*sz = len;
			*mapped = false;
			return buf;
		}
		len += (size_t)r;
	}
	close(fd);
	free(buf);
	errno = ENOMEM;
	return NULL;
}

int corebtf__write(int fd, const void *const *elfs, const size_t *elf_szs, int nelfs,
		   const char *vmlinux, struct corebtf_stats *st)
{
	char *names[COREBTF_ROOTS] = {};
	size_t kbtf_sz = 0, out_sz = 0, done = 0;
	void *kbtf, *out = NULL;
	bool mapped = false;
	int n = 0, i, err;

	memset(st, 0, sizeof(*st));
	for (i = 0; i < nelfs && n >= 0; i++)
		n = corebtf__roots(elfs[i], elf_szs[i], names, n);
	if (n < 0)
		return n;
	kbtf = map_btf(vmlinux, &kbtf_sz, &mapped);
	if (!kbtf) {
		err = -errno;
		goto out;
	}
	err = corebtf__subset(kbtf, kbtf_sz, names, n, &out, &out_sz, st);
	if (mapped)
		munmap(kbtf, kbtf_sz);
	else
		free(kbtf);
	while (!err && done < out_sz) {
		ssize_t w = write(fd, (char *)out + done, out_sz - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			err = w < 0 ? -errno : -EIO;
		else
			done += (size_t)w;
	}
out:
	free(out);
	for (i = 0; i < n; i++)
		free(names[i]);
	return err;
}
