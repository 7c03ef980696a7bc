/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The kernel's types that an object's CO-RE relocations can use, as a small
 * BTF for libbpf's btf_custom_path: libbpf then searches it, not the
 * kernel's 100k-odd types once per relocated type.
 */
#ifndef __COREBTF_H
#define __COREBTF_H

#include <stddef.h>
#include <linux/types.h>

#define COREBTF_ROOTS 128

struct corebtf_stats {
	__u32 roots;	      /* names the relocations start from */
	__u32 kernel_types;   /* types in the kernel's BTF */
	__u32 types;	      /* of those, in the subset (stubs included) */
	__u32 stubs;	      /* composites behind a pointer: kind, name and size only */
	__u32 bytes;	      /* the subset's size */
	__u32 absent;	      /* roots the kernel has no type of (another version's) */
	char absent_name[64]; /* the first of them */
};

/*
 * The names (libbpf's "essential" names: a ___flavor suffix cut) of the root
 * types of the CO-RE relocations in the BPF ELF object @elf, added to the
 * @n in @names (each a malloc'd string, none twice): their number; -errno
 * for an object this reader cannot take (-E2BIG past COREBTF_ROOTS), all
 * of @names then freed.
 */
int corebtf__roots(const void *elf, size_t elf_sz, char *names[COREBTF_ROOTS], int n);

/*
 * From the raw BTF @kbtf: every type named one of @names (kinds that can be
 * a relocation's root), what they embed (members, arrays, typedefs and
 * qualifiers, to any depth), and what they point to, where a struct or
 * union behind a pointer keeps its kind, name and size only. A malloc'd
 * raw BTF in @out (@out_sz bytes); 0 or -errno (-EPROTO: not BTF this
 * reader knows). A name the kernel has no type of (a type of other
 * versions, its flavor's relocations guarded) is counted in @st: libbpf
 * given the subset does not look for it in modules' BTF, where none of the
 * object's types live.
 */
int corebtf__subset(const void *kbtf, size_t kbtf_sz, char *const *names, int n, void **out,
		    size_t *out_sz, struct corebtf_stats *st);

/*
 * corebtf__subset() of the BTF at @vmlinux for the roots of the @nelfs
 * objects @elfs, written to @fd (a memfd that libbpf opens as
 * /proc/self/fd/N): 0, or -errno.
 */
int corebtf__write(int fd, const void *const *elfs, const size_t *elf_szs, int nelfs,
		   const char *vmlinux, struct corebtf_stats *st);

#endif /* __COREBTF_H */
