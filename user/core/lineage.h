/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The values a process shares and records hold after it is gone: what it
 * runs (image), where it runs (pcgroup), and its birth lineage up to its
 * login. Each is counted: shared while referenced, freed with the last.
 */
#ifndef __LINEAGE_H
#define __LINEAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "pgrptrace.h"

/* The one refcount: take a reference of @x (NULL stays NULL). */
#define REF_GET(x)                      \
	({                              \
		__typeof__(x) x_ = (x); \
		if (x_)                 \
			x_->refs++;     \
		x_;                     \
	})
/* Drop a reference of @x: true when it was the last (free it). */
#define REF_PUT(x)                      \
	({                              \
		__typeof__(x) x_ = (x); \
		x_ && --x_->refs == 0;  \
	})

/*
 * What a process runs: from its last exec record, or /proc at the snapshot.
 * Shared by a forker and the children that have not exec'd since.
 */
struct image {
	unsigned int refs;
	__u32 args_len;	  /* bytes at args */
	bool args_cut;	  /* the vector was longer than PGT_ARGS_MAX bytes */
	const char *exe;  /* the executable's path, NULL if unknown */
	const char *args; /* the argument vector, NUL-separated, NULL if unknown */
	char data[];
};

/*
 * Where a process runs: its cgroup in the unified hierarchy, and the
 * container its cgroups name. Shared by a process and the children born
 * into it, replaced when it moves.
 */
struct pcgroup {
	unsigned int refs;
	__u64 id;	     /* unified-hierarchy cgroup id, 0 if unknown */
	const char *runtime; /* the container's runtime, NULL if none or unknown */
	char container[65];  /* the container id, "" if none */
	const char *v1;	     /* a v1 hierarchy's path, NULL if none known */
	char v2[];	     /* the unified hierarchy's path, "" if unknown */
};

/* Where an sshd login came from, as its entry leader's environment says. */
struct login_remote {
	char ip[46]; /* INET6_ADDRSTRLEN, checked by inet_pton() */
	__u16 port;
};

/* One link of a process's birth lineage; shared, and kept while referenced. */
struct lineage {
	__u32 pid;
	__u64 start_ns;
	__u32 tty_nr; /* as an entry leader: its session's tty */
	char tty[PGT_TTY_LEN];
	char comm[PGT_COMM_LEN];
	struct image *image;	     /* what it runs as last seen, NULL if unknown */
	struct lineage *parent;	     /* the parent at birth, NULL at the root */
	struct login_remote *remote; /* as an sshd login's entry leader: its client */
	unsigned int refs;
};

/*
 * @exe (NULL if unknown) and @len bytes of an argument vector at @args
 * (NULL if unknown), copied; NULL when out of memory.
 */
struct image *image__new(const char *exe, const char *args, size_t len, bool cut);
struct image *image__get(struct image *im);
void image__put(struct image *im);
/*
 * A cgroup record: @v2 (the unified hierarchy's path) and @v1 (a v1
 * hierarchy's), either NULL where unknown; the container comes from v2's,
 * else v1's. NULL when out of memory.
 */
struct pcgroup *pcgroup__new(const char *v2, size_t v2_len, __u64 id, const char *v1,
			     size_t v1_len);
struct pcgroup *pcgroup__get(struct pcgroup *cg);
void pcgroup__put(struct pcgroup *cg);
/* A link for process @pid started at @start_ns, named @comm, below @parent (referenced). */
struct lineage *lineage__new(__u32 pid, __u64 start_ns, const char *comm, struct lineage *parent);
struct lineage *lineage__get(struct lineage *l);
/* Drops @l, and the links above it that no one else holds. */
void lineage__put(struct lineage *l);

#endif /* __LINEAGE_H */
