/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What the kernel offers the BPF side, probed: features, levels, privileges. */
#ifndef __PROBES_H
#define __PROBES_H

#include <stdbool.h>
#include <stddef.h>
#include "hooks.h"

/* What the kernel offers that the programs can do without, as probed. */
struct features {
	bool task_from_pid; /* kfunc bpf_task_from_pid (6.2): the tracepoint level */
	bool loop;	    /* bpf_loop (5.17); else bounded loops */
	bool snprintf;	    /* bpf_snprintf (5.13); else /proc/kallsyms */
	bool task_storage;  /* task storage (5.11); else an LRU hash */
	bool atomic_fetch;  /* atomic fetch-and-add (5.12); else the boot clock numbers */
	bool mem_alloc; /* BPF's allocator (6.1); else the filter's and syscalls' hashes preallocated */
};

/* Probed at the first call (said with @verbose), the same after. */
const struct features *probes__features(bool verbose);
/* Whether privileges allow loading BPF programs. */
bool probes__caps(void);
/* The BTF id of kernel function @name (disassociate_ctty, bpf_task_from_pid,
 * bpf_mem_alloc_init): > 0; -ENOENT if the kernel lacks it; else -errno. */
int probes__kernel_func(const char *name);
/* What @level needs that this kernel lacks, in @why: -1; 0 if nothing. */
int probes__level_missing(enum hook_level level, char *why, size_t len);
/* Whether fentry programs load and attach here: 0, or -1 with the reason in @why. */
int probes__fentry(char *why, size_t len);

#endif /* __PROBES_H */
