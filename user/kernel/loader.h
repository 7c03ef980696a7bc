/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The BPF side's lifecycle: checks, tracefs, open, load with fallbacks, attach. */
#ifndef __LOADER_H
#define __LOADER_H

#include <pthread.h>
#include <stdbool.h>
#include <linux/types.h>
#include "corebtf.h"
#include "hooks.h"
#include "pgrptrace.h"

struct loader_cfg {
	__u32 self_tgid;      /* never reported */
	bool filter;	      /* report only tgids added with loader__trace() */
	__u64 wakeup_bytes;   /* batch wakeups below this many pending bytes */
	__u64 wakeup_idle_ns; /* ... unless none for this long; 0: batch */
	__u32 ringbuf_bytes;  /* ring buffer size, a power of two */
	const char *btf_path; /* BTF for CO-RE instead of the kernel's */
	int verbose;	      /* 0 quiet, 1 libbpf info, 2 libbpf debug */
	__u32 signal_mode;    /* 0 none, 1 group, 2 all */
};

struct loader {
	struct pgrptrace_bpf *skel;
	/* The second half of a split load (halves.c), until its programs are attached. */
	struct pgrptrace_nokfunc_bpf *half;
	int load_halves;  /* 2: the programs were verified in two halves at once */
	bool one_object;  /* a split load failed: once more as one object */
	int half_fds[64]; /* the second half's programs, once it is gone */
	int n_half_fds;
	enum hook_level level;
	bool mounted_tracefs;
	bool has_iter;		    /* the iter/task snapshot program loaded */
	struct bpf_link *iter_link; /* its link, made at the first snapshot */
	char failure[256];	    /* why the last level did not start, in one line */
	/*
	 * The CO-RE subset of the kernel's BTF while levels are tried, made
	 * on a thread beside the probes: its memfd (or -errno) and path.
	 */
	enum {
		CORE_BTF_NONE,
		CORE_BTF_SKIP,
		CORE_BTF_RUNNING,
		CORE_BTF_DONE,
		CORE_BTF_OPEN
	} core_btf_state;
	pthread_t core_btf_thread;
	int core_btf_fd;
	int core_btf_err; /* the cut's making: 0, or -errno */
	char core_btf[32];
	struct corebtf_stats core_btf_st;
	__u64 core_btf_ms;
	/* Where start-up time goes, for -v: open, load (verifier included), attach. */
	__u64 t_probe_ms, t_open_ms, t_load_ms, t_attach_ms;
};

/* Everything up to attached programs; prints why and returns -1 on failure. */
int loader__start(struct loader *l, const struct loader_cfg *cfg);
/*
 * The run's end: the links handed to a child that releases them after we
 * exit (their grace periods are not ours to wait for), then loader__stop().
 */
void loader__release(struct loader *l);
void loader__stop(struct loader *l);

int loader__ringbuf_fd(const struct loader *l);
/*
 * Run the iter/task snapshot program: a malloc'd array of struct pgt_snap
 * in @out, their number returned, or -errno.
 */
int loader__snapshot(struct loader *l, struct pgt_snap **out);
/* Add a process to the filter set. */
int loader__trace(struct loader *l, __u32 tgid);
/* Failed reserves per record type, summed over CPUs. */
void loader__drops(const struct loader *l, __u64 out[PGT_TYPE_MAX]);
__u64 loader__stat(const struct loader *l, enum pgt_stat idx);
/*
 * Whether bpf() still reads our maps without capabilities (the loss
 * counters): 0, or -errno (-EPERM where the kernel refuses every bpf()
 * call to a process without capabilities while
 * kernel.unprivileged_bpf_disabled is set, as older kernels do).
 */
int loader__check_unprivileged(const struct loader *l);
/*
 * For --check: load and attach the programs of @level, then unload them.
 * 0, or -1 with the reason in @why. @has_iter says whether iter/task loads.
 */
int loader__probe(const struct loader_cfg *cfg, enum hook_level level, char *why, size_t len,
		  bool *has_iter);
/* hooks__rows(), with the object's section names; their number, or -errno. */
int loader__hook_rows(struct hook_row *rows, int max);
/* Every program of the object, loaded or not: its name and section. Their number, or -errno. */
typedef void (*loader_prog_fn)(void *ctx, const char *name, const char *section);
int loader__for_each_program(loader_prog_fn fn, void *ctx);
/*
 * Before bpf_snprintf(): the tty's work functions that send signals, by
 * their addresses, into @skel's work_funcs map (said with @verbose when
 * /proc/kallsyms hides them).
 */
void loader__fill_work_funcs(struct pgrptrace_bpf *skel, bool verbose);
/* Make tracefs available for the syscall tracepoints (mounting it if needed). */
int loader__tracefs(struct loader *l);

#endif /* __LOADER_H */
