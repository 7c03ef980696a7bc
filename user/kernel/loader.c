// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>
#include <malloc.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <time.h>
#include <linux/capability.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "clock.h"
#include "corebtf.h"
#include "probes.h"
#include "loader.h"
#include "proglog.h"
#include "halves.h"
#include "pgrptrace.skel.h"
#include "pgrptrace_nofetch.skel.h"
#include "pgrptrace_nokfunc.skel.h"
#include "msg.h"

#define TRACEFS_MAGIC 0x74726163
#define TRACEFS_PATH  "/sys/kernel/tracing"
#define VMLINUX_BTF   "/sys/kernel/btf/vmlinux"

/*
 * -v's level, and the first warning of a load: libbpf's print callback
 * has no context of its own.
 */
static int verbosity;

static __u64 mono_ms(void)
{
	return clock_ns(CLOCK_MONOTONIC) / 1000000;
}
/*
 * The first warning of a load: what failed before any program did (an
 * extern kfunc the kernel lacks, a map type it does not know), which the
 * summaries that follow ("failed to load object") no longer name.
 */
static char first_warn[512];
/* The two halves of a load warn from two threads. */
static pthread_mutex_t first_warn_lock = PTHREAD_MUTEX_INITIALIZER;

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list args)
{
	char line[512];
	va_list copy;

	/* Some 7,000 lines a load (CO-RE, relocations): formatted only for -vv. */
	if (level == LIBBPF_DEBUG && verbosity < 2)
		return 0;
	va_copy(copy, args);
	vsnprintf(line, sizeof(line), fmt, copy);
	va_end(copy);
	if (level == LIBBPF_WARN) {
		pthread_mutex_lock(&first_warn_lock);
		if (!first_warn[0])
			snprintf(first_warn, sizeof(first_warn), "%s",
				 strncmp(line, "libbpf: ", 8) ? line : line + 8);
		pthread_mutex_unlock(&first_warn_lock);
	}
	if (verbosity < 1)
		return 0;
	return vfprintf(stderr, fmt, args);
}

/*
 * The syscall tracepoints attach through perf events, which libbpf finds by
 * their ids in tracefs. Mount it where libbpf looks if nobody has.
 */
static int ensure_tracefs(struct loader *l)
{
	struct statfs st;

	if (access("/sys/kernel/debug/tracing/events", F_OK) == 0)
		return 0;
	if (statfs(TRACEFS_PATH, &st) == 0 && st.f_type == TRACEFS_MAGIC)
		return 0;
	if (mount("tracefs", TRACEFS_PATH, "tracefs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL)) {
		p_err("cannot mount tracefs on %s: %s: the syscall tracepoints "
		      "(setsid, setpgid, prctl) need it; mount it with 'mount -t tracefs "
		      "tracefs %s'",
		      TRACEFS_PATH, strerror(errno), TRACEFS_PATH);
		return -1;
	}
	l->mounted_tracefs = true;
	if (verbosity)
		p_err("mounted tracefs on %s", TRACEFS_PATH);
	return 0;
}

/* Threads in a signalling syscall at once, where sigacc is a hash (before 5.11). */
#define SIGACC_THREADS 4096

/*
 * Testing aid: PGRPTRACE_TEST_FAULT=<level>|all makes the exec programs of
 * that level fail the verifier, as on a kernel that refuses them; "iter"
 * makes the snapshot iterator fail it; "cut" cuts the kernel's BTF for no
 * relocation at all, which every level's load refuses.
 */
static bool fault_injected(const char *what)
{
	const char *f = getenv("PGRPTRACE_TEST_FAULT");

	return f && (!strcmp(f, "all") || !strcmp(f, what));
}

/*
 * One line that names the program that failed, with libbpf's error; the
 * verifier's log with -v. A failure before any program loaded (an extern
 * kfunc the kernel lacks, a map type it does not know) is named by libbpf's
 * first warning.
 */
static void load_failure(struct loader *l, const struct bpf_program *prog, const char *log,
			 enum hook_level level, int err, bool quiet)
{
	if (prog)
		snprintf(l->failure, sizeof(l->failure), "cannot load BPF program %s (%s): %s",
			 bpf_program__name(prog), bpf_program__section_name(prog), strerror(-err));
	else if (first_warn[0])
		snprintf(l->failure, sizeof(l->failure), "cannot load BPF object (%s hooks): %.*s",
			 hooks__level_name(level), (int)strcspn(first_warn, "\n"), first_warn);
	else
		snprintf(l->failure, sizeof(l->failure), "cannot load BPF object (%s hooks): %s",
			 hooks__level_name(level), strerror(-err));
	if (quiet) {
		if (verbosity)
			p_err("%s hooks do not load here (%s), trying the next",
			      hooks__level_name(level), l->failure);
		return;
	}
	p_err("%s", l->failure);
	if (prog && verbosity)
		p_err("the verifier's log of %s:\n%s", bpf_program__name(prog), log);
	else if (!verbosity)
		p_err("run with -v for the verifier log");
}

/*
 * The skeleton, opened from the object this kernel can load. Before 5.12
 * that is the one built without atomic fetch-and-add (bpf/common.bpf.h,
 * pgt_next()): both come from one source with the same maps, programs and
 * variables, so one skeleton struct serves either, as open_opts() would.
 */
static struct pgrptrace_bpf *open_skel(const struct bpf_object_open_opts *opts)
{
	struct pgrptrace_bpf *skel;
	int err;

	if (probes__features(verbosity)->atomic_fetch)
		return pgrptrace_bpf__open_opts(opts);
	skel = calloc(1, sizeof(*skel));
	if (!skel) {
		errno = ENOMEM;
		return NULL;
	}
	err = pgrptrace_bpf__create_skeleton(skel);
	if (!err) {
		skel->skeleton->data =
			(void *)pgrptrace_nofetch_bpf__elf_bytes(&skel->skeleton->data_sz);
		err = bpf_object__open_skeleton(skel->skeleton, opts);
	}
	if (err) {
		pgrptrace_bpf__destroy(skel);
		errno = -err;
		return NULL;
	}
	return skel;
}

/*
 * libbpf's load parses the kernel's BTF (5 MB) into a fresh buffer and copies
 * it into another: on 4 KiB pages some 2,700 page faults, 20-40 ms of a
 * start here. For the load, big allocations come from the heap, grown once
 * and marked for transparent huge pages (where the kernel offers them on
 * request: "madvise" or "always"), which fault 2 MiB at a time. After it the
 * mark is taken off what is left (khugepaged would otherwise fill those huge
 * pages back for the rest of the run), the heap is trimmed, and malloc's
 * thresholds are fixed at their starting values (glibc then no longer
 * raises them as it goes; a user's MALLOC_ settings for them give way).
 * Without huge pages this costs nothing but the marking.
 */
#define LOAD_HEAP (16 << 20)
#define HUGE_PAGE (2UL << 20)

/* The marked ranges: the loading thread's heap, and a split load's second (halves.c). */
static struct {
	uintptr_t from, to;
} heaps[2];
static pthread_mutex_t heaps_lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * The calling thread's heap marked: malloc's heap for the main thread, its
 * own arena for another (glibc's arenas are per thread), grown by one block
 * that is marked and given back to it.
 */
static void load_heap_mark(void)
{
	uintptr_t from, to;
	void *p = malloc(LOAD_HEAP);
	int i;

	if (!p)
		return;
	from = ((uintptr_t)p + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	to = ((uintptr_t)p + LOAD_HEAP) & ~(HUGE_PAGE - 1);
	if (to > from && !madvise((void *)from, to - from, MADV_HUGEPAGE)) {
		pthread_mutex_lock(&heaps_lock);
		for (i = 0; i < 2 && heaps[i].to; i++)
			;
		if (i < 2) {
			heaps[i].from = from;
			heaps[i].to = to;
		}
		pthread_mutex_unlock(&heaps_lock);
	}
	free(p);
}

static void load_heap(bool on)
{
	int i;

	if (!on) {
		for (i = 0; i < 2; i++) {
			if (heaps[i].to > heaps[i].from)
				madvise((void *)heaps[i].from, heaps[i].to - heaps[i].from,
					MADV_NOHUGEPAGE);
			heaps[i].from = heaps[i].to = 0;
		}
		mallopt(M_TRIM_THRESHOLD, 128 * 1024);
		mallopt(M_MMAP_THRESHOLD, 128 * 1024);
		malloc_trim(0);
		return;
	}
	if (!mallopt(M_MMAP_THRESHOLD, 2 * LOAD_HEAP) || !mallopt(M_TRIM_THRESHOLD, 4 * LOAD_HEAP))
		return;
	load_heap_mark();
}

/*
 * With -v, where the load's verification went: the instructions the
 * verifier walked (5.16 and later say), in all and for the three programs
 * that took the most.
 */
static void say_verified(struct bpf_object *obj, struct bpf_object *half)
{
	const struct bpf_program *top[3] = {};
	struct bpf_program *prog;
	__u32 n[3] = {}, total = 0, progs = 0;
	int i, j;

	bpf_object__for_each_program(prog, obj) {
		struct bpf_program *loaded = halves__loaded(half, prog);
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(loaded);

		if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len) || !info.verified_insns)
			continue;
		total += info.verified_insns;
		progs++;
		for (i = 0; i < 3 && info.verified_insns <= n[i]; i++)
			;
		for (j = 2; j > i; j--) {
			n[j] = n[j - 1];
			top[j] = top[j - 1];
		}
		if (i < 3) {
			n[i] = info.verified_insns;
			top[i] = prog;
		}
	}
	if (!progs)
		return;
	p_err("verified %u instructions in %u programs; the most: %s %u, %s %u, %s %u", total,
	      progs, top[0] ? bpf_program__name(top[0]) : "-", n[0],
	      top[1] ? bpf_program__name(top[1]) : "-", n[1],
	      top[2] ? bpf_program__name(top[2]) : "-", n[2]);
}

/*
 * The kernel's types for CO-RE, cut to what the object's relocations can
 * use (corebtf.c): libbpf searched all of them once per relocated type,
 * 40-50 ms of a start, and on kernels that lack a type of another
 * version's (5.10 and 6.1 lack trace_event_raw_sched_process_exit) it
 * loaded every module's BTF to look there too. Where it cannot be cut,
 * libbpf searches the kernel's BTF as before.
 */
static void *core_btf_make(void *arg)
{
	struct loader *l = arg;
	const void *elfs[2];
	size_t szs[2];
	__u64 t0 = mono_ms();

	/* Either object's roots (they are the same): this runs beside the probes. */
	elfs[0] = pgrptrace_bpf__elf_bytes(&szs[0]);
	elfs[1] = pgrptrace_nofetch_bpf__elf_bytes(&szs[1]);
	l->core_btf_err =
		corebtf__write(l->core_btf_fd, elfs, szs,
			       !strcmp(getenv("PGRPTRACE_TEST_FAULT") ?: "", "cut") ? 0 : 2,
			       VMLINUX_BTF, &l->core_btf_st);
	l->core_btf_ms = mono_ms() - t0;
	return NULL;
}

/*
 * Started before the probes, on a thread of its own where one starts,
 * into a memfd made here: its path is known at once, so the objects are
 * opened while the cut is still made (libbpf reads the path in the load).
 */
static void core_btf_start(struct loader *l)
{
	l->core_btf_state = CORE_BTF_SKIP;
	/* Testing aid: libbpf's own search of the whole BTF, modules' included. */
	if (getenv("PGRPTRACE_TEST_WHOLE_BTF"))
		return;
	l->core_btf_fd = memfd_create("pgrptrace-core-btf", MFD_CLOEXEC);
	if (l->core_btf_fd < 0) {
		if (verbosity)
			p_err("CO-RE against the whole kernel BTF: cannot cut it: %s",
			      strerror(errno));
		return;
	}
	snprintf(l->core_btf, sizeof(l->core_btf), "/proc/self/fd/%d", l->core_btf_fd);
	l->core_btf_state = CORE_BTF_RUNNING;
	if (pthread_create(&l->core_btf_thread, NULL, core_btf_make, l)) {
		core_btf_make(l);
		l->core_btf_state = CORE_BTF_DONE;
	}
}

/* The cut's path for the objects' open, its making started if it was not. */
static void core_btf_path(struct loader *l)
{
	if (l->core_btf_state == CORE_BTF_NONE)
		core_btf_start(l);
}

/*
 * The cut made, before a load: false (and the path gone) where it could not
 * be, and libbpf searches the kernel's BTF as before.
 */
static bool core_btf_open(struct loader *l)
{
	const struct corebtf_stats *st = &l->core_btf_st;

	if (l->core_btf_state == CORE_BTF_RUNNING)
		pthread_join(l->core_btf_thread, NULL);
	if (l->core_btf_state == CORE_BTF_SKIP || l->core_btf_state == CORE_BTF_OPEN)
		return l->core_btf[0];
	l->core_btf_state = CORE_BTF_OPEN;
	if (l->core_btf_err) {
		if (verbosity)
			p_err("CO-RE against the whole kernel BTF: cannot cut it: %s",
			      strerror(-l->core_btf_err));
		close(l->core_btf_fd);
		l->core_btf[0] = '\0';
		l->core_btf_state = CORE_BTF_SKIP;
		return false;
	}
	if (verbosity)
		p_err("CO-RE types: %u of the kernel's %u for %u relocated types (%u stubs, "
		      "%u bytes; %u not in this kernel%s%s) in %llu ms",
		      st->types, st->kernel_types, st->roots, st->stubs, st->bytes, st->absent,
		      st->absent ? ", as " : "", st->absent_name,
		      (unsigned long long)l->core_btf_ms);
	return true;
}

static void core_btf_close(struct loader *l)
{
	if (l->core_btf_state == CORE_BTF_RUNNING)
		pthread_join(l->core_btf_thread, NULL);
	if (l->core_btf_state != CORE_BTF_NONE && l->core_btf_state != CORE_BTF_SKIP)
		close(l->core_btf_fd);
	l->core_btf[0] = '\0';
	l->core_btf_state = CORE_BTF_SKIP;
}

/* Everything set before a load: the same for both halves of a split one. */
static void configure(struct pgrptrace_bpf *skel, const struct loader_cfg *cfg,
		      enum hook_level level, bool with_iter)
{
	skel->rodata->self_tgid = cfg->self_tgid;
	skel->rodata->filter_enabled = cfg->filter;
	skel->rodata->wakeup_bytes = cfg->wakeup_bytes;
	skel->rodata->wakeup_idle_ns = cfg->wakeup_idle_ns;
	skel->rodata->signal_mode = cfg->signal_mode;
	if (cfg->ringbuf_bytes)
		bpf_map__set_max_entries(skel->maps.events, cfg->ringbuf_bytes);
	/* Unfiltered, the programs never touch it: a preallocated 64K cost 11 ms. */
	if (!cfg->filter)
		bpf_map__set_max_entries(skel->maps.traced, 1);
	skel->rodata->test_fault_exec = fault_injected(hooks__level_name(level));
	skel->rodata->test_fault_iter = !strcmp(getenv("PGRPTRACE_TEST_FAULT") ?: "", "iter");
	skel->rodata->have_task_storage = probes__features(verbosity)->task_storage;
	skel->rodata->have_snprintf = probes__features(verbosity)->snprintf;
	/*
	 * Allocated as they fill where BPF has an allocator for tracing
	 * programs; preallocated, the filter's 64K entries took 11 ms of a
	 * start, the syscall state's 16K 5 ms.
	 */
	if (probes__features(verbosity)->mem_alloc) {
		bpf_map__set_map_flags(skel->maps.traced, BPF_F_NO_PREALLOC);
		bpf_map__set_map_flags(skel->maps.inflight, BPF_F_NO_PREALLOC);
	}
	if (!probes__features(verbosity)->task_storage) {
		bpf_map__set_type(skel->maps.sigacc, BPF_MAP_TYPE_LRU_HASH);
		bpf_map__set_map_flags(skel->maps.sigacc, 0);
		bpf_map__set_max_entries(skel->maps.sigacc, SIGACC_THREADS);
	}
	hooks__select(skel, level, probes__features(verbosity)->loop, verbosity);
	/* The iterator runs on demand, not at attach. */
	bpf_program__set_autoload(skel->progs.snapshot_task, with_iter);
	bpf_program__set_autoattach(skel->progs.snapshot_task, false);
}

/*
 * Whether to split the load (halves.c): not where fewer than two CPUs are
 * ours (the halves would take turns), nor without a BTF for CO-RE other
 * than the kernel's (each half would read the kernel's whole: the cut, or
 * --btf), nor where the object without atomic fetch is the one that
 * loads. PGRPTRACE_TEST_ONE_OBJECT: never (a testing aid).
 */
static bool split_wanted(const struct loader *l, const struct bpf_object_open_opts *oo)
{
	cpu_set_t cpus;

	return !l->one_object && !getenv("PGRPTRACE_TEST_ONE_OBJECT") && oo->btf_custom_path &&
	       probes__features(verbosity)->atomic_fetch &&
	       !sched_getaffinity(0, sizeof(cpus), &cpus) && CPU_COUNT(&cpus) >= 2;
}

/*
 * The second half: the object built without kfuncs, which loads without
 * the kernel's BTF, takes the programs it can load. NULL where none can go.
 */
static struct pgrptrace_nokfunc_bpf *open_half(struct pgrptrace_bpf *skel,
					       const struct bpf_object_open_opts *oo)
{
	struct pgrptrace_nokfunc_bpf *half = pgrptrace_nokfunc_bpf__open_opts(oo);

	if (half && !halves__split(skel->obj, half->obj, skel->progs.snapshot_task)) {
		pgrptrace_nokfunc_bpf__destroy(half);
		half = NULL;
	}
	return half;
}

/* What the tracing half's thread waits for: maps_ready() with one of these, or a count. */
#define MAPS_WAITING 0
#define MAPS_NONE    (-1) /* no second half: it loads everything, its own maps made as needed */
#define CUT_FAILED   1	  /* load_split(): the objects were opened for a cut that failed */

/*
 * The half that needs the kernel's BTF, on a thread from the start: its
 * targets found while the other half is opened and the maps are made,
 * then its load.
 */
struct half_load {
	struct pgrptrace_bpf *skel; /* the tracing half: all of the object but what moved */
	struct bpf_object *other;   /* the second half, if any, before nfds is set */
	pthread_mutex_t lock;	    /* nfds, made */
	pthread_cond_t made;	    /* nfds set */
	int nfds;		    /* how many maps both took, or MAPS_ */
	int err;		    /* its load's */
};

static void *load_half(void *arg)
{
	struct half_load *h = arg;
	int nfds;

	load_heap_mark();
	halves__resolve(h->skel->obj);
	pthread_mutex_lock(&h->lock);
	while (h->nfds == MAPS_WAITING)
		pthread_cond_wait(&h->made, &h->lock);
	nfds = h->nfds;
	pthread_mutex_unlock(&h->lock);
	if (nfds == MAPS_NONE && h->other)
		halves__unsplit(h->skel->obj, h->other);
	h->err = pgrptrace_bpf__load(h->skel);
	return NULL;
}

static void maps_ready(struct half_load *h, int nfds)
{
	pthread_mutex_lock(&h->lock);
	h->nfds = nfds;
	pthread_cond_signal(&h->made);
	pthread_mutex_unlock(&h->lock);
}

/*
 * Make the maps for both halves and have both take them: how many, or
 * MAPS_NONE (no split: what the first took stays its own, and it makes
 * the rest in its load). The tracing half's thread meanwhile touches
 * only its programs and the kernel's BTF.
 */
static int share_maps(struct pgrptrace_bpf *skel, struct pgrptrace_nokfunc_bpf *half)
{
	int fds[HALVES_MAX_MAPS], n, i, err = 0;

	n = halves__make(skel->obj, half->obj, fds);
	if (n > 0 && !(err = halves__take(skel->obj, fds, n)))
		err = halves__take(half->obj, fds, n);
	for (i = 0; i < n; i++)
		close(fds[i]);
	if (n > 0 && !err)
		return n;
	if (verbosity)
		p_err("one object's load: cannot make the maps for two: %s",
		      strerror(n < 0 ? -n : -err));
	return MAPS_NONE;
}

/*
 * A split load: the tracing half on a thread, the second half opened here,
 * the maps made, this thread loading the second half. 0, an error of
 * either (the caller loads once more as one object to tell which), or
 * CUT_FAILED (nothing loaded: the caller opens again without the cut).
 */
static int load_split(struct loader *l, struct pgrptrace_bpf *skel,
		      const struct bpf_object_open_opts *oo, struct pgrptrace_nokfunc_bpf **halfp)
{
	struct half_load h = { .skel = skel, .nfds = MAPS_WAITING };
	struct pgrptrace_nokfunc_bpf *half;
	pthread_t thread;
	bool threaded;
	int err = 0, n = MAPS_NONE;

	/*
	 * Before the thread: libbpf 1.1 frees the kernel's BTF it reads for
	 * an object only at the end of that object's load.
	 */
	if (oo->btf_custom_path == l->core_btf && !core_btf_open(l))
		return CUT_FAILED;
	pthread_mutex_init(&h.lock, NULL);
	pthread_cond_init(&h.made, NULL);
	threaded = !pthread_create(&thread, NULL, load_half, &h);
	half = open_half(skel, oo);
	h.other = half ? half->obj : NULL;
	if (half)
		n = share_maps(skel, half);
	maps_ready(&h, n);
	if (n > 0)
		err = pgrptrace_nokfunc_bpf__load(half);
	if (threaded)
		pthread_join(thread, NULL);
	else
		load_half(&h);
	pthread_cond_destroy(&h.made);
	pthread_mutex_destroy(&h.lock);
	l->load_halves = n > 0 ? 2 : 1;
	if (n > 0)
		*halfp = half;
	else if (half)
		pgrptrace_nokfunc_bpf__destroy(half);
	return err ?: h.err;
}

static int open_and_load(struct loader *l, const struct loader_cfg *cfg, enum hook_level level,
			 bool with_iter, bool quiet)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo,
		    .btf_custom_path = cfg->btf_path ?: (l->core_btf[0] ? l->core_btf : NULL));
	struct pgrptrace_nokfunc_bpf *half = NULL;
	struct prog_logs logs = {};
	struct bpf_program *failed;
	struct pgrptrace_bpf *skel;
	const char *log = NULL;
	__u64 t0 = mono_ms();
	int err;

	skel = open_skel(&oo);
	if (!skel) {
		p_err("cannot open BPF object: %s", strerror(errno));
		return -1;
	}
	configure(skel, cfg, level, with_iter);
	l->t_open_ms = mono_ms() - t0;

	first_warn[0] = '\0';
	t0 = mono_ms();
	if (split_wanted(l, &oo)) {
		load_heap(true);
		err = load_split(l, skel, &oo, &half);
		load_heap(false);
		l->t_load_ms = mono_ms() - t0;
		if (!err) {
			/* Its programs are attached from it (halves__loaded()). */
			l->half = half;
			goto loaded;
		}
		pgrptrace_nokfunc_bpf__destroy(half);
		pgrptrace_bpf__destroy(skel);
		/* Opened for a cut that could not be made: again, without. */
		if (err == CUT_FAILED)
			return open_and_load(l, cfg, level, with_iter, quiet);
		/*
		 * Either half refused: once more as one object, which names
		 * the program and takes the fallbacks as before.
		 */
		if (verbosity)
			p_err("%s hooks: the split load failed (%s), once more as one object",
			      hooks__level_name(level), strerror(-err));
		l->one_object = true;
		err = open_and_load(l, cfg, level, with_iter, quiet);
		l->one_object = false;
		return err;
	}
	if (oo.btf_custom_path == l->core_btf && !core_btf_open(l)) {
		/* Opened for a cut that could not be made: again, without. */
		pgrptrace_bpf__destroy(skel);
		return open_and_load(l, cfg, level, with_iter, quiet);
	}
	proglog__set(&logs, skel->obj);
	load_heap(true);
	err = pgrptrace_bpf__load(skel);
	load_heap(false);
	l->t_load_ms = mono_ms() - t0;
	l->load_halves = 1;
	failed = err ? proglog__failed(&logs, skel->obj, &log) : NULL;
	if (err && with_iter && (!failed || failed == skel->progs.snapshot_task)) {
		/* Without task iterators, the snapshot comes from /proc. */
		proglog__free(&logs, skel->obj);
		pgrptrace_bpf__destroy(skel);
		return open_and_load(l, cfg, level, false, quiet);
	}
	if (err) {
		load_failure(l, failed, log, level, err, quiet);
		proglog__free(&logs, skel->obj);
		pgrptrace_bpf__destroy(skel);
		return -1;
	}
	proglog__free(&logs, skel->obj);
loaded:
	if (verbosity)
		say_verified(skel->obj, l->half ? l->half->obj : NULL);
	if (!probes__features(verbosity)->snprintf)
		loader__fill_work_funcs(skel, verbosity);
	l->skel = skel;
	l->level = level;
	l->has_iter = with_iter;
	return 0;
}

static int parse_level(const char *s, enum hook_level *out)
{
	int i;

	for (i = 0; i < HOOK_LEVELS; i++) {
		if (!strcmp(s, hooks__level_name(i))) {
			*out = i;
			return 0;
		}
	}
	return -1;
}

/*
 * The skeleton's attach, one program at a time, so that a refusal names its
 * program from libbpf's own result. Links go where the skeleton's destroy
 * finds them.
 */
static int attach_all(struct loader *l)
{
	const struct bpf_object_skeleton *s = l->skel->skeleton;
	int i, err;

	for (i = 0; i < s->prog_cnt; i++) {
		struct bpf_program *prog =
			halves__loaded(l->half ? l->half->obj : NULL, *s->progs[i].prog);
		struct bpf_link **link = s->progs[i].link;

		if (!bpf_program__autoload(prog) || !bpf_program__autoattach(prog) || *link)
			continue;
		*link = bpf_program__attach(prog);
		if (!*link) {
			err = -errno;
			snprintf(l->failure, sizeof(l->failure),
				 "cannot attach BPF program %s (%s): %s", bpf_program__name(prog),
				 bpf_program__section_name(prog), strerror(-err));
			return err;
		}
	}
	return 0;
}

/*
 * Attached, the second half's object goes; its programs are kept as the
 * first half's are, by a descriptor each beside their links (what
 * /proc/PID/fdinfo and bpftool's pids show of pgrptrace).
 */
static void keep_half_fds(struct loader *l)
{
	struct bpf_program *prog;
	int fd;

	l->n_half_fds = 0;
	bpf_object__for_each_program(prog, l->half->obj) {
		if (!bpf_program__autoload(prog) || bpf_program__fd(prog) < 0 ||
		    l->n_half_fds == sizeof(l->half_fds) / sizeof(l->half_fds[0]))
			continue;
		fd = fcntl(bpf_program__fd(prog), F_DUPFD_CLOEXEC, 0);
		if (fd >= 0)
			l->half_fds[l->n_half_fds++] = fd;
	}
}

/* Open, load and attach one level; on failure nothing stays loaded. */
static int start_level(struct loader *l, const struct loader_cfg *cfg, enum hook_level level,
		       bool quiet)
{
	char why[200];
	__u64 t0;
	int err;

	l->failure[0] = '\0';
	if (probes__level_missing(level, why, sizeof(why))) {
		snprintf(l->failure, sizeof(l->failure), "%s", why);
		if (!quiet)
			p_err("cannot use %s hooks here: %s", hooks__level_name(level), why);
		else if (verbosity)
			p_err("%s hooks: %s, trying the next", hooks__level_name(level), why);
		return -1;
	}
	if (!cfg->btf_path)
		core_btf_path(l);
	if (open_and_load(l, cfg, level, !getenv("PGRPTRACE_TEST_NO_ITER"), quiet)) {
		if (!l->core_btf[0])
			return -1;
		/*
		 * Refused with the cut BTF: once more with libbpf's own search
		 * of the whole (and modules'), the cut given up for this run.
		 */
		if (verbosity)
			p_err("%s hooks do not load with the cut BTF, trying the whole of it",
			      hooks__level_name(level));
		core_btf_close(l);
		if (open_and_load(l, cfg, level, !getenv("PGRPTRACE_TEST_NO_ITER"), quiet))
			return -1;
	}
	t0 = mono_ms();
	err = attach_all(l);
	if (!err && l->half)
		keep_half_fds(l);
	pgrptrace_nokfunc_bpf__destroy(l->half);
	l->half = NULL;
	if (!err) {
		l->t_attach_ms = mono_ms() - t0;
		return 0;
	}
	if (!quiet)
		p_err("%s", l->failure);
	else if (verbosity)
		p_err("%s hooks do not attach here (%s), trying the next", hooks__level_name(level),
		      l->failure);
	loader__stop(l);
	return -1;
}

int loader__tracefs(struct loader *l)
{
	return ensure_tracefs(l);
}

int loader__start(struct loader *l, const struct loader_cfg *cfg)
{
	const char *forced = getenv("PGRPTRACE_HOOKS");
	enum hook_level level = HOOK_FENTRY;
	__u64 t0, t_probe;
	char why[256];

	memset(l, 0, sizeof(*l));
	verbosity = cfg->verbose;
	libbpf_set_print(libbpf_print);

	if (!probes__caps()) {
		p_err("cannot trace: permission denied: run as root, or "
		      "with CAP_BPF, CAP_PERFMON and CAP_SYS_ADMIN");
		return -1;
	}
	if (cfg->btf_path && access(cfg->btf_path, R_OK)) {
		p_err("cannot read BTF %s: %s", cfg->btf_path, strerror(errno));
		return -1;
	}
	if (access(VMLINUX_BTF, R_OK)) {
		p_err("cannot read BTF %s: %s: the kernel needs "
		      "CONFIG_DEBUG_INFO_BTF=y",
		      VMLINUX_BTF, strerror(errno));
		return -1;
	}
	if (forced && parse_level(forced, &level)) {
		p_err("bad PGRPTRACE_HOOKS '%s': use fentry, tp_btf, raw_tp "
		      "or tracepoint",
		      forced);
		return -1;
	}
	if (ensure_tracefs(l))
		return -1;

	if (!cfg->btf_path)
		core_btf_start(l);
	/* Try each level, best first, unless one is forced. */
	t0 = mono_ms();
	if (!forced && probes__fentry(why, sizeof(why))) {
		if (verbosity)
			p_err("no fentry here (%s), trying tp_btf", why);
		level = HOOK_TP_BTF;
	}
	probes__features(verbosity);
	t_probe = mono_ms() - t0;
	while (start_level(l, cfg, level, !forced && level < HOOK_LEVELS - 1)) {
		if (forced || level == HOOK_LEVELS - 1) {
			core_btf_close(l);
			return -1;
		}
		level++;
	}
	core_btf_close(l);
	l->t_probe_ms = t_probe;
	if (verbosity)
		p_err("attached with %s hooks (probes %llu ms, open %llu ms, load %llu ms "
		      "in %s, attach %llu ms)",
		      hooks__level_name(l->level), (unsigned long long)l->t_probe_ms,
		      (unsigned long long)l->t_open_ms, (unsigned long long)l->t_load_ms,
		      l->load_halves == 2 ? "two halves at once" : "one object",
		      (unsigned long long)l->t_attach_ms);
	return 0;
}

int loader__probe(const struct loader_cfg *cfg, enum hook_level level, char *why, size_t len,
		  bool *has_iter)
{
	struct loader l = {};

	verbosity = cfg->verbose;
	libbpf_set_print(libbpf_print);
	*why = '\0';
	if (level == HOOK_FENTRY && probes__fentry(why, len))
		return -1;
	if (start_level(&l, cfg, level, true)) {
		core_btf_close(&l);
		snprintf(why, len, "%s", l.failure[0] ? l.failure : "refused");
		return -1;
	}
	core_btf_close(&l);
	*has_iter = l.has_iter;
	loader__stop(&l);
	return 0;
}

static void *destroy_link(void *link)
{
	bpf_link__destroy(link);
	return NULL;
}

/*
 * Detaching a syscall tracepoint waits for RCU grace periods: the perf
 * event's release syncs in perf_trace_event_unreg(), under event_mutex, and
 * more waits follow outside it. One link after another, the ~20 links of a
 * level took 1.0-1.3 s to release on 6.18 (55 ms each); a thread per link
 * lets the waits outside the mutex overlap, and the release took about half.
 * A link whose thread cannot start is destroyed here.
 */
static void detach_all(struct loader *l)
{
	const struct bpf_object_skeleton *s = l->skel->skeleton;
	pthread_t *threads = calloc(s->prog_cnt, sizeof(*threads));
	int i, n = 0;

	for (i = 0; i < s->prog_cnt; i++) {
		struct bpf_link *link = *s->progs[i].link;

		if (!link)
			continue;
		*s->progs[i].link = NULL;
		if (!threads || pthread_create(&threads[n], NULL, destroy_link, link))
			bpf_link__destroy(link);
		else
			n++;
	}
	while (n--)
		pthread_join(threads[n], NULL);
	free(threads);
}

static int by_value(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/*
 * The last stop: a child takes the links over and releases them (its exit
 * closes them), so that pgrptrace's own closes only drop a reference and it
 * exits at once, its records all written, rather than 0.6 s of grace periods
 * later. The child keeps nothing but the links (not the terminal, not an
 * output: a reader of ours sees its end when we end), takes the signals as
 * they come (killed, it releases them the same way) and is gone when the
 * kernel has released them (docs/design.md: about a second). Returns true
 * when a child holds them; false (fork failed): the caller releases them.
 */
static void *close_fd(void *fd)
{
	close((int)(long)fd);
	return NULL;
}

static bool hand_over(struct loader *l)
{
	const struct bpf_object_skeleton *s = l->skel->skeleton;
	pthread_t threads[128];
	int keep[128], n = 0, i, fd;
	char name[17] = "";
	unsigned int from = 0;
	pid_t pid;

	for (i = 0; i < s->prog_cnt && n < 127; i++)
		if (*s->progs[i].link && (fd = bpf_link__fd(*s->progs[i].link)) >= 0)
			keep[n++] = fd;
	if (l->iter_link && (fd = bpf_link__fd(l->iter_link)) >= 0)
		keep[n++] = fd;
	qsort(keep, (size_t)n, sizeof(keep[0]), by_value);
	/* Born with its name: a tracer that sees it adopted names it so. */
	prctl(PR_GET_NAME, name, 0, 0, 0);
	prctl(PR_SET_NAME, "pgrptrace-links", 0, 0, 0);
	pid = fork();
	if (pid != 0) {
		prctl(PR_SET_NAME, name, 0, 0, 0);
		return pid > 0;
	}
	/* The child: async-signal-safe calls only (the parent has threads). */
	for (i = 0; i < n; i++) {
		if ((unsigned int)keep[i] > from)
			syscall(SYS_close_range, from, (unsigned int)keep[i] - 1, 0);
		from = (unsigned int)keep[i] + 1;
	}
	syscall(SYS_close_range, from, ~0U, 0);
	/*
	 * One after another the releases take twice as long as at once: a
	 * thread each. glibc makes its thread machinery whole again in a
	 * forked child (its stacks and their lock), and the child has nothing
	 * else to do; a thread that cannot start leaves its link to the exit.
	 */
	for (i = 0; i < n; i++)
		if (pthread_create(&threads[i], NULL, close_fd, (void *)(long)keep[i]))
			threads[i] = 0;
	for (i = 0; i < n; i++)
		if (threads[i])
			pthread_join(threads[i], NULL);
	_exit(0);
}

void loader__release(struct loader *l)
{
	const struct bpf_object_skeleton *s;
	int i;

	if (!l->skel || !hand_over(l)) {
		loader__stop(l);
		return;
	}
	/* Ours are the last-but-one references now: closing them is quick. */
	s = l->skel->skeleton;
	for (i = 0; i < s->prog_cnt; i++) {
		bpf_link__destroy(*s->progs[i].link);
		*s->progs[i].link = NULL;
	}
	loader__stop(l);
}

void loader__stop(struct loader *l)
{
	__u64 t0 = mono_ms();

	if (l->skel)
		detach_all(l);
	if (verbosity > 1 && l->skel)
		p_err("detached in %llu ms", (unsigned long long)(mono_ms() - t0));
	bpf_link__destroy(l->iter_link);
	l->iter_link = NULL;
	pgrptrace_nokfunc_bpf__destroy(l->half);
	l->half = NULL;
	while (l->n_half_fds > 0)
		close(l->half_fds[--l->n_half_fds]);
	pgrptrace_bpf__destroy(l->skel);
	l->skel = NULL;
}

int loader__for_each_program(loader_prog_fn fn, void *ctx)
{
	struct pgrptrace_bpf *skel = pgrptrace_bpf__open();
	struct bpf_program *prog;
	int n = 0;

	if (!skel)
		return -errno;
	bpf_object__for_each_program(prog, skel->obj) {
		fn(ctx, bpf_program__name(prog), bpf_program__section_name(prog));
		n++;
	}
	pgrptrace_bpf__destroy(skel);
	return n;
}

int loader__hook_rows(struct hook_row *rows, int max)
{
	struct pgrptrace_bpf *skel = pgrptrace_bpf__open();
	int n;

	if (!skel)
		return -errno;
	n = hooks__rows(skel, rows, max);
	pgrptrace_bpf__destroy(skel);
	return n;
}
