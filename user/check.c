// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * --check: what this kernel offers pgrptrace, found by trying rather than by
 * version numbers. Every hook level is loaded, attached and unloaded; the
 * report says which attach point each event kind would use, the fallback
 * below it, and what that fallback loses.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <zlib.h>
#include "check.h"
#include "jsonw.h"
#include "probes.h"
#include "loader.h"
#include "sbuf.h"
#include "msg.h"

#define VMLINUX_BTF "/sys/kernel/btf/vmlinux"
#define TRACEFS	    "/sys/kernel/tracing"

static const char *const config_keys[] = {
	"CONFIG_BPF_SYSCALL",	  "CONFIG_DEBUG_INFO_BTF",
	"CONFIG_BPF_EVENTS",	  "CONFIG_FTRACE_SYSCALLS",
	"CONFIG_UPROBE_EVENTS",	  "CONFIG_KPROBE_EVENTS",
	"CONFIG_FUNCTION_TRACER", "CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS",
	"CONFIG_AUDITSYSCALL",
};
#define NKEYS (sizeof(config_keys) / sizeof(config_keys[0]))

struct facts {
	struct utsname uts;
	long long btf_bytes; /* -1: absent */
	bool tracefs_mounted, tracefs_known, tracefs_mounted_now;
	const char *config_src; /* NULL: not readable */
	char config[NKEYS][8];	/* "y", "m", "n" (unset) */
	bool caps;
	bool level_ok[HOOK_LEVELS];
	char level_why[HOOK_LEVELS][256];
	bool has_iter;
	struct features feat;
	struct hook_row rows[MAX_HOOK_ROWS]; /* from the loader, after the probes */
	int nrows;
	int best; /* -1: none */
};

/* Each probed feature, and what pgrptrace does without it. */
#define FEATURES(f)                                                                 \
	{                                                                           \
		{ "bpf_task_from_pid", (f)->task_from_pid,                          \
		  "kfunc, 6.2: the tracepoint level needs it" },                    \
			{ "bpf_loop", (f)->loop,                                    \
			  "helper, 5.17: else bounded loops walk a dying parent's " \
			  "children" },                                             \
			{ "bpf_snprintf", (f)->snprintf,                            \
			  "helper, 5.13: else the tty's work functions come "       \
			  "from /proc/kallsyms" },                                  \
			{ "task_storage", (f)->task_storage,                        \
			  "map, 5.11: else a hash holds a signalling "              \
			  "syscall's state" },                                      \
			{ "atomic_fetch", (f)->atomic_fetch,                        \
			  "instruction, 5.12: else records are numbered "           \
			  "by the boot clock" },                                    \
			{ "mem_alloc", (f)->mem_alloc,                              \
			  "allocator, 6.1: else the filter's and the syscalls' "    \
			  "hashes are preallocated at start" },                     \
	}

struct feature_row {
	const char *name;
	bool ok;
	const char *about;
};

static bool fs_known(const char *name)
{
	char line[128];
	bool found = false;
	FILE *f = fopen("/proc/filesystems", "r");

	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, name))
			found = true;
	if (f)
		fclose(f);
	return found;
}

/* CONFIG_ values from /proc/config.gz, else /boot/config-RELEASE. */
static void read_config(struct facts *f)
{
	static char boot[300];
	char line[512];
	gzFile gz;
	size_t i;

	for (i = 0; i < NKEYS; i++)
		strcpy(f->config[i], "n");
	snprintf(boot, sizeof(boot), "/boot/config-%s", f->uts.release);
	gz = gzopen("/proc/config.gz", "rb");
	f->config_src = "/proc/config.gz";
	if (!gz) {
		gz = gzopen(boot, "rb"); /* reads plain files too */
		f->config_src = boot;
	}
	if (!gz) {
		f->config_src = NULL;
		return;
	}
	while (gzgets(gz, line, sizeof(line))) {
		for (i = 0; i < NKEYS; i++) {
			size_t n = strlen(config_keys[i]);

			if (!strncmp(line, config_keys[i], n) && line[n] == '=') {
				snprintf(f->config[i], sizeof(f->config[i]), "%.*s",
					 (int)strcspn(line + n + 1, "\n"), line + n + 1);
			}
		}
	}
	gzclose(gz);
}

static void gather(const struct opts *o, struct facts *f)
{
	struct loader_cfg cfg = {
		.self_tgid = (__u32)getpid(),
		.ringbuf_bytes = o->ringbuf_bytes,
		.wakeup_bytes = o->ringbuf_bytes / 4,
		.btf_path = o->btf_path,
		.verbose = o->verbose,
		.signal_mode = o->signal_mode,
	};
	struct loader l = {};
	struct stat st;
	int i;

	uname(&f->uts);
	f->btf_bytes = stat(o->btf_path ?: VMLINUX_BTF, &st) ? -1 : (long long)st.st_size;
	f->tracefs_mounted = !access(TRACEFS "/events", F_OK);
	f->tracefs_known = fs_known("tracefs");
	read_config(f);
	f->caps = probes__caps();
	f->best = -1;
	if (!f->caps || f->btf_bytes < 0)
		return;
	f->feat = *probes__features(false);
	/* The syscall tracepoints need tracefs, as tracing would. */
	if (!f->tracefs_mounted && !loader__tracefs(&l))
		f->tracefs_mounted_now = true;
	for (i = 0; i < HOOK_LEVELS; i++) {
		bool iter = false;

		f->level_ok[i] =
			!loader__probe(&cfg, i, f->level_why[i], sizeof(f->level_why[i]), &iter);
		if (f->level_ok[i] && f->best < 0) {
			f->best = i;
			f->has_iter = iter;
		}
	}
	f->nrows = loader__hook_rows(f->rows, MAX_HOOK_ROWS);
	if (f->nrows < 0)
		f->nrows = 0;
}

/* The first level at or below @from that works, or -1. */
static int next_ok(const struct facts *f, int from)
{
	for (; from < HOOK_LEVELS; from++)
		if (f->level_ok[from])
			return from;
	return -1;
}

/* The level @r falls back to from the best: the next that works with another hook, or -1. */
static int fallback_of(const struct facts *f, const struct hook_row *r)
{
	int fb = next_ok(f, f->best + 1);

	while (fb >= 0 && !strcmp(r->at[fb], r->at[f->best]))
		fb = next_ok(f, fb + 1);
	return fb;
}

/* What falling from @used to @fb loses for @r: the first thing a level lost. */
static const char *fallback_loss(const struct hook_row *r, int used, int fb)
{
	int i;

	for (i = used + 1; i <= fb; i++)
		if (r->loses[i])
			return r->loses[i];
	return NULL;
}

static void print_text(const struct opts *o, const struct facts *f)
{
	size_t i;
	int l;

	printf("kernel       %s %s %s\n", f->uts.sysname, f->uts.release, f->uts.machine);
	if (f->btf_bytes < 0)
		printf("btf          %s: missing: the kernel needs CONFIG_DEBUG_INFO_BTF=y\n",
		       o->btf_path ?: VMLINUX_BTF);
	else
		printf("btf          %s (%lld bytes)\n", o->btf_path ?: VMLINUX_BTF, f->btf_bytes);
	printf("tracefs      %s: %s\n", TRACEFS,
	       f->tracefs_mounted     ? "mounted" :
	       f->tracefs_mounted_now ? "was not mounted; mounted now, as pgrptrace does" :
	       f->tracefs_known	      ? "not mounted; pgrptrace mounts it" :
					"missing: the kernel has no tracefs");
	if (f->config_src) {
		printf("config       from %s:", f->config_src);
		for (i = 0; i < NKEYS; i++)
			printf("%s%s=%s", i % 3 ? " " : "\n               ", config_keys[i] + 7,
			       f->config[i]);
		printf("\n");
	} else {
		printf("config       not readable (no /proc/config.gz, no /boot/config-%s)\n",
		       f->uts.release);
	}
	printf("privileges   %s\n", f->caps ?
					    "enough (CAP_BPF, CAP_PERFMON, CAP_SYS_ADMIN or root)" :
					    "missing: run as root, or with CAP_BPF, CAP_PERFMON "
					    "and CAP_SYS_ADMIN");
	printf("ring buffer  %u bytes (--ringbuf-size)\n", o->ringbuf_bytes);
	if (f->best >= 0)
		printf("iterators    %s\n", f->has_iter ?
						    "iter/task loads: snapshot from the kernel" :
						    "iter/task does not load: snapshot from /proc");
	if (!f->caps || f->btf_bytes < 0)
		goto verdict;
	{
		const struct feature_row feats[] = FEATURES(&f->feat);

		printf("\nfeatures, probed (each has a fallback):\n");
		for (i = 0; i < sizeof(feats) / sizeof(feats[0]); i++)
			printf("  %-18s %-3s %s\n", feats[i].name, feats[i].ok ? "yes" : "no",
			       feats[i].about);
	}
	printf("\nhook levels, best first:\n");
	for (l = 0; l < HOOK_LEVELS; l++)
		printf("  %-11s %s%s%s\n", hooks__level_name(l),
		       f->level_ok[l] ? "loads and attaches" : "refused",
		       f->level_ok[l] ? "" : ": ", f->level_ok[l] ? "" : f->level_why[l]);
	if (f->best < 0)
		goto verdict;
	printf("\nevents:\n");
	for (i = 0; i < (size_t)f->nrows; i++) {
		const struct hook_row *r = &f->rows[i];
		const char *missing = f->best == HOOK_FENTRY ? r->fentry_missing : NULL;
		int fb = fallback_of(f, r);
		const char *loss;

		printf("  %s\n    uses      %s\n", r->event, r->at[f->best]);
		if (missing)
			printf("    why       fentry would need %s, which this kernel's BTF lacks\n",
			       missing);
		if (fb < 0) {
			printf("    fallback  none\n");
			continue;
		}
		loss = fallback_loss(r, f->best, fb);
		printf("    fallback  %s, losing %s\n", r->at[fb], loss ?: "nothing");
	}
verdict:
	if (f->best >= 0)
		printf("\npgrptrace can trace here, with %s hooks.\n", hooks__level_name(f->best));
	else
		printf("\npgrptrace cannot trace here.\n");
}

static void json_program(void *ctx, const char *name, const char *section)
{
	struct jsonw *w = ctx;

	jsonw_start_object(w);
	jsonw_string_field(w, "name", name);
	jsonw_string_field(w, "section", section);
	jsonw_end_object(w);
}

/* "events": each kind of event, the hook it uses here and the fallback below. */
static void json_events(struct jsonw *w, const struct facts *f)
{
	size_t i;

	jsonw_name(w, "events");
	jsonw_start_array(w);
	for (i = 0; f->best >= 0 && i < (size_t)f->nrows; i++) {
		const struct hook_row *r = &f->rows[i];
		const char *missing = f->best == HOOK_FENTRY ? r->fentry_missing : NULL;
		int fb = fallback_of(f, r);
		const char *loss = fb >= 0 ? fallback_loss(r, f->best, fb) : NULL;

		jsonw_start_object(w);
		jsonw_string_field(w, "event", r->event);
		jsonw_string_field(w, "hook", r->at[f->best]);
		jsonw_string_field(w, "level", hooks__level_name(f->best));
		jsonw_string_or_null_field(w, "fentry_missing", missing);
		jsonw_string_or_null_field(w, "fallback", fb >= 0 ? r->at[fb] : NULL);
		jsonw_string_or_null_field(w, "fallback_level",
					   fb >= 0 ? hooks__level_name(fb) : NULL);
		jsonw_string_or_null_field(w, "fallback_loses",
					   fb >= 0 ? (loss ?: "nothing") : NULL);
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
}

/* The kernel, its BTF, tracefs and configuration: what was read, not tried. */
static void json_kernel(struct jsonw *w, const struct opts *o, const struct facts *f)
{
	size_t i;

	jsonw_name(w, "kernel");
	jsonw_start_object(w);
	jsonw_string_field(w, "sysname", f->uts.sysname);
	jsonw_string_field(w, "release", f->uts.release);
	jsonw_string_field(w, "machine", f->uts.machine);
	jsonw_end_object(w);
	jsonw_name(w, "btf");
	jsonw_start_object(w);
	jsonw_string_field(w, "path", o->btf_path ?: VMLINUX_BTF);
	jsonw_bool_field(w, "present", f->btf_bytes >= 0);
	jsonw_int_field(w, "bytes", f->btf_bytes < 0 ? 0 : f->btf_bytes);
	jsonw_end_object(w);
	jsonw_name(w, "tracefs");
	jsonw_start_object(w);
	jsonw_string_field(w, "path", TRACEFS);
	jsonw_bool_field(w, "mounted", f->tracefs_mounted || f->tracefs_mounted_now);
	jsonw_bool_field(w, "mounted_by_check", f->tracefs_mounted_now);
	jsonw_bool_field(w, "available", f->tracefs_known);
	jsonw_end_object(w);
	jsonw_name(w, "config");
	if (!f->config_src) {
		jsonw_null(w);
		return;
	}
	jsonw_start_object(w);
	jsonw_string_field(w, "source", f->config_src);
	for (i = 0; i < NKEYS; i++)
		jsonw_string_field(w, config_keys[i], f->config[i]);
	jsonw_end_object(w);
}

static void print_json(const struct opts *o, const struct facts *f)
{
	struct sbuf sb = {};
	struct jsonw w;
	size_t i;
	int l;

	jsonw_init(&w, &sb);
	jsonw_start_object(&w);
	json_kernel(&w, o, f);
	jsonw_bool_field(&w, "privileges", f->caps);
	jsonw_uint_field(&w, "ringbuf_bytes", o->ringbuf_bytes);
	jsonw_bool_field(&w, "iterators", f->has_iter);
	jsonw_name(&w, "levels");
	jsonw_start_array(&w);
	for (l = 0; l < HOOK_LEVELS; l++) {
		jsonw_start_object(&w);
		jsonw_string_field(&w, "name", hooks__level_name(l));
		jsonw_bool_field(&w, "ok", f->level_ok[l]);
		jsonw_string_or_null_field(&w, "reason",
					   f->level_ok[l] || !f->level_why[l][0] ? NULL :
										   f->level_why[l]);
		jsonw_end_object(&w);
	}
	jsonw_end_array(&w);
	jsonw_name(&w, "features");
	if (f->caps && f->btf_bytes >= 0) {
		const struct feature_row feats[] = FEATURES(&f->feat);

		jsonw_start_object(&w);
		for (i = 0; i < sizeof(feats) / sizeof(feats[0]); i++)
			jsonw_bool_field(&w, feats[i].name, feats[i].ok);
		jsonw_end_object(&w);
	} else {
		jsonw_null(&w);
	}
	json_events(&w, f);
	/* Every program in the object, loaded or not: what a test looks for in bpftool. */
	jsonw_name(&w, "programs");
	jsonw_start_array(&w);
	loader__for_each_program(json_program, &w);
	jsonw_end_array(&w);
	jsonw_bool_field(&w, "can_trace", f->best >= 0);
	jsonw_string_or_null_field(&w, "level", f->best >= 0 ? hooks__level_name(f->best) : NULL);
	jsonw_end_object(&w);
	sbuf__putc(&sb, '\n');
	fwrite(sb.buf, 1, sb.len, stdout);
	sbuf__free(&sb);
}

int check__run(const struct opts *o)
{
	struct facts f = {};

	gather(o, &f);
	if (o->json)
		print_json(o, &f);
	else
		print_text(o, &f);
	if (fflush(stdout) || ferror(stdout)) {
		p_err("cannot write the check: %s", strerror(errno));
		return 1;
	}
	return f.best >= 0 ? 0 : 1;
}
