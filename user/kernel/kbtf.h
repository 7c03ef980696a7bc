/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Type ids of the running kernel's BTF by name, found in one streaming pass
 * over /sys/kernel/btf/vmlinux instead of a parse of the whole of it.
 */
#ifndef __KBTF_H
#define __KBTF_H

#include <linux/types.h>

#define KBTF_VMLINUX "/sys/kernel/btf/vmlinux"
#define KBTF_QUERIES 32

struct kbtf_query {
	const char *name;
	__u32 kind; /* BTF_KIND_* */
	__s32 id;   /* out: the first type of @kind named @name; -ENOENT if none */
};

/*
 * Looks up the @n queries (at most KBTF_QUERIES) in the BTF at @path
 * (KBTF_VMLINUX for the kernel's) in one pass: 0, or -errno if it cannot be
 * read or is not BTF this reader knows (then every id is -ENOENT), or
 * -EINVAL for a bad query (ids untouched).
 */
int kbtf__find(const char *path, struct kbtf_query *q, int n);

/* kbtf__find() read through its 64 KiB window even where the file can be mapped. */
#define KBTF_READ 0x1
int kbtf__find_how(const char *path, struct kbtf_query *q, int n, unsigned int flags);

/* The bytes that follow a type's struct btf_type, by its kind; -1 for a kind unknown here. */
long kbtf__extra_bytes(__u32 kind, __u32 vlen);

#endif /* __KBTF_H */
