// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Type ids of the kernel's BTF by name, in one pass with one small buffer.
 *
 * libbpf's btf__load_vmlinux_btf() reads the 5 MB of /sys/kernel/btf/vmlinux
 * (4 KiB a read: it is a sysfs file) into one fresh buffer, copies it into
 * another and indexes every type: 46-50 ms here, most of it page faults on
 * the fresh memory. The probes that choose a level want a few function ids;
 * a scan that reuses one 64 KiB buffer takes 2-3 ms. The string section is
 * searched for each name first (a name may start inside a longer string:
 * every match counts), then the type section is walked record by record for
 * a type of the wanted kind whose name is one of those offsets. Where
 * sysfs lets the file be mapped (6.16), the window is the mapping.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <linux/btf.h>
#include "kbtf.h"

#define KBTF_BUF   65536
#define KBTF_CANDS 4   /* offsets of one name in the string section */
#define KBTF_NAME  128 /* the longest name looked up, with its NUL */
#define KBTF_KINDS 19  /* BTF_KIND_ENUM64, the last kind this reader knows */

struct reader {
	int fd;
	__u64 end;	 /* end of the section read, in the file */
	__u64 wpos;	 /* file offset of win[0] */
	size_t len;	 /* bytes in buf */
	const char *win; /* the window: buf, or the mapped file at wpos */
	const char *map; /* the file mapped (sysfs allows it from 6.16), or NULL */
	size_t map_len;
	char buf[KBTF_BUF];
};

/* Fills the window from file offset @at: at least @need bytes, or -errno. */
static int fill(struct reader *r, __u64 at, size_t need)
{
	ssize_t n;

	r->wpos = at;
	r->len = 0;
	r->win = r->buf;
	if (r->map) {
		/* Mapped: the window is the rest of the section, copied nowhere. */
		if (at > r->end || r->end > r->map_len)
			return -EPROTO;
		r->win = r->map + at;
		r->len = r->end - at;
		return r->len >= need ? 0 : -EPROTO;
	}
	while (r->len < sizeof(r->buf) && at + r->len < r->end) {
		size_t want = sizeof(r->buf) - r->len;

		if (want > r->end - at - r->len)
			want = r->end - at - r->len;
		n = pread(r->fd, r->buf + r->len, want, (off_t)(at + r->len));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		r->len += (size_t)n;
	}
	/* Short of the section's end, a window is full: else the file ended early. */
	if (r->len < sizeof(r->buf) && at + r->len < r->end)
		return -EPROTO;
	return r->len >= need ? 0 : -EPROTO;
}

struct cands {
	__u32 off[KBTF_CANDS];
	int n, starts; /* off[0, starts): where a string starts; then tails */
};

/*
 * A match of a name: one where a string starts (the common case: libbpf's
 * string sets do not share tails) goes first; one at another string's tail
 * is kept only while there is room (n_tty_ioctl and hung_up_tty_ioctl end
 * in tty_ioctl). Too many starts of one name: -E2BIG.
 */
static int add_cand(struct cands *c, __u32 off, bool starts)
{
	if (!starts) {
		if (c->n < KBTF_CANDS)
			c->off[c->n++] = off;
		return 0;
	}
	if (c->starts == KBTF_CANDS)
		return -E2BIG;
	if (c->n == KBTF_CANDS)
		c->n--; /* a tail gives way */
	c->off[c->n++] = c->off[c->starts];
	c->off[c->starts++] = off;
	return 0;
}

/* Every offset in the string section [@start, @start + @len) where each name is a whole string's tail. */
static int find_names(struct reader *r, __u64 start, __u32 len, const struct kbtf_query *q, int n,
		      struct cands *c)
{
	/* The byte before every new match is in the window: whether a string starts there. */
	size_t keep = 0, overlap = KBTF_NAME;
	__u64 at = start;
	int i, err;

	r->end = start + len;
	while (at < r->end) {
		err = fill(r, at, 1);
		if (err)
			return err;
		for (i = 0; i < n; i++) {
			size_t l = strlen(q[i].name) + 1; /* with its NUL */
			const char *p = r->win, *hit;

			while ((hit = memmem(p, r->len - (size_t)(p - r->win), q[i].name, l))) {
				size_t s = (size_t)(hit - r->win);

				/* One wholly in the part kept from the last window was counted there. */
				if (s + l > keep) {
					bool starts = s ? !r->win[s - 1] : r->wpos == start;

					err = add_cand(&c[i], (__u32)(r->wpos + s - start), starts);
					if (err)
						return err;
				}
				p = hit + 1;
			}
		}
		if (r->wpos + r->len >= r->end)
			break;
		keep = overlap;
		at = r->wpos + r->len - keep;
	}
	return 0;
}

long kbtf__extra_bytes(__u32 kind, __u32 vlen)
{
	switch (kind) {
	case BTF_KIND_INT:
	case BTF_KIND_VAR:
	case 17: /* BTF_KIND_DECL_TAG */
		return 4;
	case BTF_KIND_ARRAY:
		return sizeof(struct btf_array);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return (long)vlen * sizeof(struct btf_member);
	case BTF_KIND_ENUM:
		return (long)vlen * sizeof(struct btf_enum);
	case BTF_KIND_FUNC_PROTO:
		return (long)vlen * sizeof(struct btf_param);
	case BTF_KIND_DATASEC:
		return (long)vlen * sizeof(struct btf_var_secinfo);
	case 19: /* BTF_KIND_ENUM64: name_off, val_lo32, val_hi32 */
		return (long)vlen * 12;
	case BTF_KIND_PTR:
	case BTF_KIND_FWD:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC:
	case 16: /* BTF_KIND_FLOAT */
	case 18: /* BTF_KIND_TYPE_TAG */
		return 0;
	}
	return -1;
}

/* Walks the type section [@start, @start + @len): the first type of each query's kind and name. */
static int find_types(struct reader *r, __u64 start, __u32 len, struct kbtf_query *q, int n,
		      const struct cands *c)
{
	__u64 at = start;
	__s32 id = 1;
	int i, j, left = n, err;

	r->end = start + len;
	r->wpos = start;
	r->len = 0;
	while (at < r->end && left) {
		struct btf_type t;
		long extra;

		if (at + sizeof(t) > r->wpos + r->len) {
			err = fill(r, at, sizeof(t));
			if (err)
				return err;
		}
		memcpy(&t, r->win + (at - r->wpos), sizeof(t));
		extra = kbtf__extra_bytes(BTF_INFO_KIND(t.info), BTF_INFO_VLEN(t.info));
		if (extra < 0)
			return -EPROTO;
		for (i = 0; i < n; i++) {
			if (q[i].id > 0 || q[i].kind != BTF_INFO_KIND(t.info))
				continue;
			for (j = 0; j < c[i].n; j++) {
				if (c[i].off[j] == t.name_off) {
					q[i].id = id;
					left--;
					break;
				}
			}
		}
		at += sizeof(t) + (__u64)extra;
		id++;
	}
	return at > r->end ? -EPROTO : 0;
}

int kbtf__find(const char *path, struct kbtf_query *q, int n)
{
	return kbtf__find_how(path, q, n, 0);
}

int kbtf__find_how(const char *path, struct kbtf_query *q, int n, unsigned int flags)
{
	struct cands c[KBTF_QUERIES];
	struct btf_header h;
	struct reader *r;
	struct stat st;
	__u64 types, strs;
	int i, err = 0;

	if (n < 0 || n > KBTF_QUERIES)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (strlen(q[i].name) + 1 > KBTF_NAME || q[i].kind > KBTF_KINDS)
			return -EINVAL;
	for (i = 0; i < n; i++)
		q[i].id = -ENOENT;
	memset(c, 0, sizeof(c));
	r = malloc(sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->map = NULL;
	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0) {
		err = -errno;
		free(r);
		return err;
	}
	if (pread(r->fd, &h, sizeof(h), 0) != sizeof(h) || fstat(r->fd, &st)) {
		err = -EPROTO;
		goto out;
	}
	types = (__u64)h.hdr_len + h.type_off;
	strs = (__u64)h.hdr_len + h.str_off;
	if (h.magic != BTF_MAGIC || h.version != BTF_VERSION || h.hdr_len < sizeof(h) ||
	    (st.st_size > 0 &&
	     (types + h.type_len > (__u64)st.st_size || strs + h.str_len > (__u64)st.st_size))) {
		err = -EPROTO;
		goto out;
	}
	if (st.st_size > 0 && !(flags & KBTF_READ)) {
		void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, r->fd, 0);

		if (m != MAP_FAILED) {
			r->map = m;
			r->map_len = (size_t)st.st_size;
		}
	}
	err = find_names(r, strs, h.str_len, q, n, c);
	if (!err)
		err = find_types(r, types, h.type_len, q, n, c);
out:
	if (r->map)
		munmap((void *)r->map, r->map_len);
	close(r->fd);
	free(r);
	if (err)
		for (i = 0; i < n; i++)
			q[i].id = -ENOENT;
	return err;
}
