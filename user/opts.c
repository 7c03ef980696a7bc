// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <argp.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "explain.h"
#include "fate.h"
#include "opts.h"
#include "serve.h"
#include "syslog.h"

#define DEFAULT_RINGBUF		 (4U << 20)
#define DEFAULT_CHECKPOINT_EVERY (64ULL << 20)

#ifndef PGRPTRACE_VERSION
#define PGRPTRACE_VERSION "unknown"
#endif
const char *argp_program_version = "pgrptrace " PGRPTRACE_VERSION;
const char *argp_program_bug_address = "the project's issue tracker";

static const char doc[] =
	"Trace the lifecycle of process groups and sessions.\n"
	"\n"
	"USAGE: pgrptrace [OPTION...] [-- CMD [ARG...]]\n"
	"\v"
	"EXAMPLES:\n"
	"  pgrptrace                      # trace the whole machine, text\n"
	"  pgrptrace --json -o /var/log/pgrptrace.jsonl\n"
	"                                 # JSON Lines to a file, appended\n"
	"  pgrptrace -p 1234              # process 1234 and its descendants\n"
	"  pgrptrace -d 10                # stop after 10 seconds\n"
	"  pgrptrace --snapshot           # the session/group/process tree, once\n"
	"  pgrptrace --tree --tty pts/0   # live tree of the session on pts/0\n"
	"  pgrptrace --verify             # check the model against /proc\n"
	"  pgrptrace --escapes --json     # who leaves their session, group, tty\n"
	"  pgrptrace --check              # what this kernel offers, and which hooks\n"
	"  pgrptrace --json -- sh -c 'setsid sleep 1 &'\n"
	"                                 # run a command, trace it and its\n"
	"                                 # descendants, exit with its status\n"
	"\n"
	"Exit status: 0 on success, 1 on a failure (records lost or left out\n"
	"included), 2 on a usage error. In command mode, the command's status, or\n"
	"128+N if signal N killed it; a failure of pgrptrace itself is then 125.\n"
	"--check exits 0 if pgrptrace can trace here, 1 if not.\n"
	"\n"
	"Requires root, or CAP_BPF, CAP_PERFMON and CAP_SYS_ADMIN, and a kernel with\n"
	"BTF (/sys/kernel/btf/vmlinux).";

enum {
	OPT_BTF = 0x100,
	OPT_RINGBUF,
	OPT_UTC,
	OPT_SNAPSHOT,
	OPT_TREE,
	OPT_VERIFY,
	OPT_ASCII,
	OPT_SESSION,
	OPT_TTY,
	OPT_UID,
	OPT_SIGNALS,
	OPT_ESCAPES,
	OPT_CHECK,
	OPT_RECORD,
	OPT_METRICS,
	OPT_ECS_VERSION,
	OPT_CHECKPOINT,
	OPT_ECS,
	OPT_REPLAY,
	OPT_COMM,
	OPT_EVENT,
	OPT_EXPECTED,
	OPT_HIDE_EXPECTED,
	OPT_USER,
	OPT_JOURNAL,
	OPT_SYSLOG,
	OPT_SYSLOG_FACILITY,
	OPT_SYSLOG_QUEUE,
	OPT_COLOR,
	OPT_KTHREADS,
	OPT_OUTPUT_QUEUE,
	OPT_EXPLAIN,
	OPT_HTML,
	OPT_LOGIN,
	OPT_FATE,
	OPT_AT,
	OPT_FROM,
	OPT_TO,
	OPT_DIFF,
	OPT_CONTAIN,
	OPT_CONTAIN_GRACE,
	OPT_LOGOUT_GRACE,
};

static const struct argp_option options[] = {
	{ "json", 'j', NULL, 0, "JSON Lines output (schema 3, docs/events.md)", 0 },
	{ "ecs", OPT_ECS, NULL, 0,
	  "JSON Lines as Elastic Common Schema documents, the record under \"pgrptrace\"", 0 },
	{ "metrics", OPT_METRICS, "[ADDR:]PORT", 0,
	  "Serve Prometheus metrics at http://ADDR:PORT/metrics (ADDR 127.0.0.1 unless given)", 0 },
	{ "ecs-version", OPT_ECS_VERSION, "VERSION", 0,
	  "With --ecs: the ECS release the documents follow, 9.4 (the default) or 8.11", 0 },
	{ "output", 'o', "FILE", 0, "Append output to FILE (created 0600; a FIFO too)", 0 },
	{ "output-queue", OPT_OUTPUT_QUEUE, "BYTES", 0,
	  "What standard output or -o holds while it is not taking records (K and M "
	  "suffixes; default 8M)",
	  0 },
	{ "journal", OPT_JOURNAL, NULL, 0,
	  "Each record as a journal entry (without -o, not on standard output)", 0 },
	{ "syslog", OPT_SYSLOG, "TARGET", OPTION_ARG_OPTIONAL,
	  "Each record as an RFC 5424 message to TARGET: /dev/log (the default), "
	  "unix:PATH, tcp://HOST:PORT or udp://HOST:PORT (without -o, not on standard "
	  "output)",
	  0 },
	{ "syslog-facility", OPT_SYSLOG_FACILITY, "NAME", 0,
	  "The facility of --syslog's messages (default daemon)", 0 },
	{ "syslog-queue", OPT_SYSLOG_QUEUE, "BYTES", 0,
	  "What --syslog holds while its collector is away (K and M suffixes; default 8M)", 0 },
	{ "user", OPT_USER, "USER", 0,
	  "Once attached, run as USER with no capability (not with a command)", 0 },
	{ "pid", 'p', "PID", 0, "Trace only PID and its descendants", 0 },
	{ "all", 'a', NULL, 0, "With a command: trace the whole machine while it runs", 0 },
	{ "duration", 'd', "SECS", 0, "Stop after SECS seconds (decimals allowed)", 0 },
	{ "ringbuf-size", OPT_RINGBUF, "BYTES", 0,
	  "Ring buffer size, a power of two (K and M suffixes; default 4M)", 0 },
	{ "btf", OPT_BTF, "FILE", 0, "Use BTF from FILE instead of the kernel's", 0 },
	{ "record", OPT_RECORD, "FILE", 0,
	  "Also write the raw records to FILE (binary), for --replay", 0 },
	{ "checkpoint-every", OPT_CHECKPOINT, "BYTES", 0,
	  "With --record: a checkpoint of the model every BYTES of records, for --at and --diff "
	  "(K, M and G suffixes; default 64M; 0: none)",
	  0 },
	{ "replay", OPT_REPLAY, "FILE", 0,
	  "Decode, model and print a --record file instead of tracing (no root)", 0 },
	{ "at", OPT_AT, "TIME", 0,
	  "With --replay: the tree as it was at TIME (RFC 3339, a time of day, or +90s from "
	  "the start); --json: as the tree document",
	  0 },
	{ "diff", OPT_DIFF, "T1 T2", 0,
	  "With --replay: what changed from T1 to T2 (births, deaths, moves); TIME as --at's; "
	  "--json: as one object",
	  0 },
	{ "utc", OPT_UTC, NULL, 0, "Text times in UTC instead of local time", 0 },
	{ "signals", OPT_SIGNALS, "WHICH", 0,
	  "Signals to report: group (default: wider than one process, or fatal), all, none", 0 },
	{ "verbose", 'v', NULL, 0, "Show libbpf messages (twice: debug)", 0 },
	{ "escapes", OPT_ESCAPES, NULL, 0,
	  "Only escapes; with a command, then where its descendants are now", 0 },
	{ "logout-grace", OPT_LOGOUT_GRACE, "SECS", 0,
	  "When a login ends, report its processes' fates this long after (default 1)", 0 },
	{ "expected", OPT_EXPECTED, "FILE", 0,
	  "Name the escapes that FILE's rules expect (docs/expected-escapes.example)", 0 },
	{ "hide-expected", OPT_HIDE_EXPECTED, NULL, 0,
	  "Leave out the escapes that --expected names", 0 },
	{ NULL, 0, NULL, 0, "Filters (the event stream and the trees):", 1 },
	{ "uid", OPT_UID, "UID", 0, "Only processes of this uid", 1 },
	{ "tty", OPT_TTY, "NAME", 0,
	  "Only processes on this tty (pts/3); in a tree, the session on it", 1 },
	{ "session", OPT_SESSION, "SID", 0, "Only this session", 1 },
	{ "comm", OPT_COMM, "NAME", 0, "Only processes with this name (comm)", 1 },
	{ "event", OPT_EVENT, "KINDS", 0,
	  "Only these kinds of record, comma-separated (fork,exec,escape,...), or "
	  "repeated; "
	  "lost records always pass; without signal, exit, tty_release and escape, "
	  "signals are not traced",
	  1 },
	{ NULL, 0, NULL, 0, "Trees:", 2 },
	{ "snapshot", OPT_SNAPSHOT, NULL, 0, "Print the session/group/process tree once", 2 },
	{ "tree", OPT_TREE, NULL, 0,
	  "Show the tree live: full screen with keys on a terminal, else printed on each change",
	  2 },
	{ "interval", 'i', "SECS", 0, "Live tree refresh interval (default 1; 0.2 full screen)",
	  2 },
	{ "ascii", OPT_ASCII, NULL, 0, "Draw the tree with ASCII", 2 },
	{ "kernel-threads", OPT_KTHREADS, NULL, 0,
	  "Full-screen tree: show kernel threads (the k key toggles them)", 2 },
	{ "color", OPT_COLOR, "WHEN", 0,
	  "Colours on a terminal: auto (the default, off with NO_COLOR), always or never", 2 },
	{ "verify", OPT_VERIFY, NULL, 0, "Compare the model with /proc and print every difference",
	  2 },
	{ "contain", OPT_CONTAIN, NULL, 0,
	  "With a command: when it ends (or pgrptrace is stopped), end every process it "
	  "started, wherever it went (SIGTERM, then SIGKILL)",
	  0 },
	{ "contain-grace", OPT_CONTAIN_GRACE, "SECS", 0,
	  "With --contain: how long SIGTERM has before SIGKILL (default 2)", 0 },
	{ NULL, 0, NULL, 0, "Questions:", 3 },
	{ "explain", OPT_EXPLAIN, "PID|ENTITY_ID", 0,
	  "Tell how one process lived and died: live, when it exits (then end); with --replay, "
	  "from the recording. --json: as one object",
	  3 },
	{ "html", OPT_HTML, "FILE", 0,
	  "Write the run (or, with --replay, the recording) as one page to FILE: a lane per "
	  "process, its moves, escapes and signals, the tree at a time cursor",
	  3 },
	{ "login", OPT_LOGIN, "PID|ENTITY_ID", 0,
	  "With --html: only that login's processes (its entry leader's pid or entity id)", 3 },
	{ "from", OPT_FROM, "TIME", 0,
	  "With --replay and --html: the page from TIME (as --at's), the tree then its start", 3 },
	{ "to", OPT_TO, "TIME", 0, "With --replay and --html: the page up to TIME (as --at's)", 3 },
	{ "fate", OPT_FATE, "WHAT", 0,
	  "What hangup:TTY, logout:PID or kill:-PGID:SIGNAL would do to each process it reaches "
	  "(nothing is sent). --json: as one object",
	  3 },
	{ NULL, 0, NULL, 0, "Self-check:", 3 },
	{ "check", OPT_CHECK, NULL, 0,
	  "Say what this kernel offers and which hook each event would use; no tracing", 3 },
	{ NULL, 'h', NULL, OPTION_HIDDEN, NULL, -1 }, /* -h: argp's -?, --help */
	{},
};

static long long parse_int(struct argp_state *state, const char *what, const char *arg,
			   long long min, long long max)
{
	long long v;
	char *end;

	errno = 0;
	v = strtoll(arg, &end, 10);
	if (errno || end == arg || *end || v < min || v > max)
		argp_error(state, "bad %s '%s': want an integer from %lld to %lld", what, arg, min,
			   max);
	return v;
}

/*
 * A byte count: digits, then K, M or G (powers of 1024), nothing else (no
 * sign, no blank). Returns false for anything else, or an overflow.
 */
static bool scan_bytes(const char *arg, unsigned long long *v)
{
	unsigned int shift = 0;
	char *end;

	if (arg[0] < '0' || arg[0] > '9')
		return false;
	errno = 0;
	*v = strtoull(arg, &end, 10);
	if (errno)
		return false;
	if (*end == 'k' || *end == 'K')
		shift = 10;
	else if (*end == 'm' || *end == 'M')
		shift = 20;
	else if (*end == 'g' || *end == 'G')
		shift = 30;
	if (shift && (end++, *v > (~0ULL >> shift)))
		return false;
	*v <<= shift;
	return *end == '\0';
}

static __u32 parse_size(struct argp_state *state, const char *arg)
{
	unsigned long long v;

	if (!scan_bytes(arg, &v) || v < 4096 || v > (1ULL << 30) || (v & (v - 1)))
		argp_error(state, "bad ring buffer size '%s': want a power of two from 4K to 1024M",
			   arg);
	return (__u32)v;
}

/* An output's queue: 64K to 1024M, with K and M suffixes. */
static size_t parse_queue(struct argp_state *state, const char *what, const char *arg)
{
	unsigned long long v;

	if (!scan_bytes(arg, &v) || v < 65536 || v > (1ULL << 30))
		argp_error(state, "bad %s '%s': want 64K to 1024M", what, arg);
	return (size_t)v;
}

/* --checkpoint-every: 0, or 64K to 16G, with K, M and G suffixes. */
static __u64 parse_every(struct argp_state *state, const char *arg)
{
	unsigned long long v;

	if (!scan_bytes(arg, &v) || (v && (v < 65536 || v > (16ULL << 30))))
		argp_error(state, "bad --checkpoint-every '%s': want 0, or 64K to 16G", arg);
	return v;
}

static __u64 parse_secs(struct argp_state *state, const char *what, const char *arg)
{
	double v;
	char *end;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !(v > 0) || v > 31536000.0)
		argp_error(state, "bad %s '%s': want seconds, more than 0, at most a year", what,
			   arg);
	return (__u64)(v * 1000.0 + 0.5) ?: 1;
}

/*
 * An option that takes one value may be given once: a second would silently
 * win over the first. --event's kinds add up, as one list.
 */
static int seen[64];
static unsigned int nseen;

static void once(struct argp_state *state, int key)
{
	const struct argp_option *opt;
	unsigned int i;

	for (opt = options; opt->name || opt->doc; opt++)
		if (opt->key == key && opt->name)
			break;
	if (!opt->name || !opt->arg || key == OPT_EVENT)
		return;
	for (i = 0; i < nseen; i++)
		if (seen[i] == key)
			argp_error(state, "--%s given twice: it takes one value", opt->name);
	if (nseen < sizeof(seen) / sizeof(seen[0]))
		seen[nseen++] = key;
}

/*
 * What --tty may name: a pty (pts/N), a device number (MAJOR:MINOR), a
 * terminal driver's name (tty1, ttyS0, ttyUSB0, console), or a character
 * device in /dev (hvc0). Anything else could never match: refused.
 */
static bool tty_form(const char *name)
{
	char path[PATH_MAX];
	unsigned int a, b;
	struct stat st;
	int n = 0;

	if (sscanf(name, "pts/%u%n", &a, &n) == 1 && !name[n] && isdigit((unsigned char)name[4]))
		return true;
	if (sscanf(name, "%u:%u%n", &a, &b, &n) == 2 && !name[n] && isdigit((unsigned char)*name))
		return true;
	if (strchr(name, '/') || strlen(name) >= PGT_TTY_LEN)
		return false;
	if (!strncmp(name, "tty", 3) || !strcmp(name, "console"))
		return true;
	snprintf(path, sizeof(path), "/dev/%s", name);
	return !stat(path, &st) && S_ISCHR(st.st_mode);
}

/* argp's parser: one case per option, each a few lines, as argp programs are written. */
/* Where records go, and how they are written. */
static error_t opt_output(int key, char *arg, struct argp_state *state)
{
	struct opts *o = state->input;

	switch (key) {
	case 'j':
		o->json = true;
		break;
	case 'o':
		o->output = arg;
		break;
	case OPT_UTC:
		o->utc = true;
		break;
	case OPT_COLOR:
		if (!strcmp(arg, "auto"))
			o->color = 0;
		else if (!strcmp(arg, "always"))
			o->color = 1;
		else if (!strcmp(arg, "never"))
			o->color = 2;
		else
			argp_error(state, "bad --color '%s': want auto, always or never", arg);
		break;
	case OPT_ASCII:
		o->ascii = true;
		break;
	case OPT_ECS:
		o->ecs = true;
		break;
	case OPT_METRICS: {
		char why[128];

		if (serve__parse(arg, why, sizeof(why)))
			argp_error(state, "bad --metrics '%s': %s", arg, why);
		o->metrics = arg;
		break;
	}
	case OPT_ECS_VERSION:
		if (!strcmp(arg, "8.11") || !strcmp(arg, "8.11.0"))
			o->ecs8 = true;
		else if (strcmp(arg, "9") && strcmp(arg, "9.4") && strcmp(arg, "9.4.0"))
			argp_error(state, "bad --ecs-version '%s': want 9.4 or 8.11", arg);
		o->ecs_version_set = true;
		break;
	case OPT_RECORD:
		o->record = arg;
		break;
	case OPT_CHECKPOINT:
		o->checkpoint_every = parse_every(state, arg);
		o->has_checkpoint_every = true;
		break;
	case OPT_REPLAY:
		o->replay = arg;
		break;
	case OPT_JOURNAL:
		o->journal = true;
		break;
	case OPT_SYSLOG: {
		enum syslog_kind kind;
		char err[600];

		o->syslog = true;
		o->syslog_target = arg;
		if (arg && syslog__parse_target(arg, &kind, err, sizeof(err)))
			argp_error(state, "bad --syslog target %s", err);
		break;
	}
	case OPT_SYSLOG_FACILITY:
		o->syslog_facility = syslog__facility(arg);
		if (o->syslog_facility < 0)
			argp_error(state,
				   "bad --syslog-facility '%s': want a name of syslog(3), "
				   "such as daemon, auth, authpriv or local0 to local7",
				   arg);
		o->syslog_facility_set = true;
		break;
	case OPT_SYSLOG_QUEUE:
		o->syslog_queue = parse_queue(state, "--syslog-queue", arg);
		break;
	case OPT_OUTPUT_QUEUE:
		o->output_queue = parse_queue(state, "--output-queue", arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* Which processes and events are shown. */
static error_t opt_filter(int key, char *arg, struct argp_state *state)
{
	struct opts *o = state->input;

	switch (key) {
	case 'a':
		o->all = true;
		break;
	case 'p':
		o->pid = (int)parse_int(state, "pid", arg, 1, INT_MAX);
		break;
	case OPT_KTHREADS:
		o->kthreads = true;
		break;
	case OPT_SESSION:
		o->filter.has_session = true;
		o->filter.session = (__u32)parse_int(state, "session id", arg, 0, INT_MAX);
		break;
	case OPT_TTY:
		/* pts/3, or /dev/pts/3 as tty(1) prints it */
		o->filter.tty = strncmp(arg, "/dev/", 5) ? arg : arg + 5;
		if (!tty_form(o->filter.tty))
			argp_error(state,
				   "bad --tty '%s': want a terminal: pts/N, a name in /dev "
				   "(tty1, ttyS0, console) or MAJOR:MINOR",
				   arg);
		break;
	case OPT_COMM:
		/* The kernel keeps 15 bytes: a longer name could never match. */
		if (!*arg || strlen(arg) > 15)
			argp_error(state, "bad --comm '%s': want a process name of 1 to 15 bytes",
				   arg);
		o->filter.comm = arg;
		break;
	case OPT_EVENT: {
		const char *bad;
		__u32 kinds;

		if (filter__parse_events(arg, &kinds, &bad))
			argp_error(state, "bad --event '%.*s': want some of %s",
				   (int)strcspn(bad, ","), bad, filter__event_names());
		o->filter.events |= kinds; /* repeated: the kinds of all */
		break;
	}
	case OPT_EXPECTED:
		o->expected_path = arg;
		break;
	case OPT_HIDE_EXPECTED:
		o->filter.hide_expected = true;
		break;
	case OPT_UID:
		o->filter.has_uid = true;
		o->filter.uid = (__u32)parse_int(state, "uid", arg, 0, 4294967294LL);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* What pgrptrace does, and with what. */
static error_t opt_mode(int key, char *arg, struct argp_state *state)
{
	struct opts *o = state->input;

	switch (key) {
	case 'h':
		argp_state_help(state, stdout, ARGP_HELP_STD_HELP);
		break;
	case 'd':
		o->duration_ms = parse_secs(state, "duration", arg);
		break;
	case 'v':
		o->verbose++;
		break;
	case OPT_BTF:
		o->btf_path = arg;
		break;
	case OPT_RINGBUF:
		o->ringbuf_bytes = parse_size(state, arg);
		break;
	case OPT_SNAPSHOT:
		o->snapshot = true;
		break;
	case OPT_TREE:
		o->tree = true;
		break;
	case OPT_VERIFY:
		o->verify = true;
		break;
	case 'i':
		o->interval_ms = parse_secs(state, "interval", arg);
		o->interval_set = true;
		break;
	case OPT_ESCAPES:
		o->escapes = true;
		break;
	case OPT_CHECK:
		o->check = true;
		break;
	case OPT_CONTAIN:
		o->contain = true;
		break;
	case OPT_LOGOUT_GRACE:
		o->logout_grace_ms = parse_secs(state, "logout-grace", arg);
		break;
	case OPT_CONTAIN_GRACE:
		o->contain_grace_ms = parse_secs(state, "contain-grace", arg);
		o->contain_grace_set = true;
		break;
	case OPT_EXPLAIN:
		if (!explain__valid(arg))
			argp_error(state,
				   "bad --explain '%s': want a pid or a 16-hex-digit entity id",
				   arg);
		o->explain = arg;
		break;
	case OPT_HTML:
		o->html = arg;
		break;
	case OPT_LOGIN:
		if (!explain__valid(arg))
			argp_error(state,
				   "bad --login '%s': want a pid or a 16-hex-digit entity id", arg);
		o->login = arg;
		break;
	case OPT_FROM:
		o->from = arg;
		break;
	case OPT_TO:
		o->to = arg;
		break;
	case OPT_AT:
		o->at = arg;
		break;
	case OPT_DIFF:
		/* Two values: T1 is the option's, T2 the next word. */
		if (state->next >= state->argc || !strcmp(state->argv[state->next], "--"))
			argp_error(state, "--diff takes two times: --diff T1 T2");
		o->diff[0] = arg;
		o->diff[1] = state->argv[state->next++];
		break;
	case OPT_FATE: {
		const char *why;

		if (fate__parse(arg, &o->fate_what, &why))
			argp_error(state, "bad --fate '%s': %s", arg, why);
		o->fate = arg;
		break;
	}
	case OPT_USER: {
		char err[256];

		if (privs__lookup(arg, &o->user, err, sizeof(err)))
			argp_error(state, "bad --user: %s", err);
		o->has_user = true;
		break;
	}
	case OPT_SIGNALS:
		o->signals_set = true;
		if (!strcmp(arg, "none"))
			o->signal_mode = 0;
		else if (!strcmp(arg, "group"))
			o->signal_mode = 1;
		else if (!strcmp(arg, "all"))
			o->signal_mode = 2;
		else
			argp_error(state, "bad --signals '%s': want group, all or none", arg);
		break;
	case ARGP_KEY_ARG:
		/* The first operand starts the command; the rest are its own. */
		o->cmd = &state->argv[state->next - 1];
		state->next = state->argc;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* The options together: what excludes what, and what follows from them. */
static void opts_end(struct opts *o, struct argp_state *state)
{
	if (o->json && o->ecs)
		argp_error(state, "--json and --ecs exclude each other (--ecs is JSON too)");
	o->json |= o->ecs;
	if (o->cmd && o->pid)
		argp_error(state, "-p and a command exclude each other");
	if (o->all && !o->cmd)
		argp_error(state, "-a needs a command");
	if (o->snapshot + o->tree + o->verify + o->escapes > 1)
		argp_error(state, "--snapshot, --tree, --verify and --escapes exclude each other");
	if ((o->snapshot || o->tree) && o->cmd)
		argp_error(state, "--snapshot and --tree take no command");
	if (o->replay && o->record && (o->at || o->diff[0] || o->explain))
		argp_error(state, "--record with --replay writes the recording again, with "
				  "checkpoints: not with --at, --diff or --explain");
	if (o->replay &&
	    (o->cmd || o->pid || o->check || (o->tree && !o->at) || o->verify || o->snapshot))
		argp_error(state, "--replay takes only output options");
	if (o->at && o->diff[0])
		argp_error(state, "--at and --diff exclude each other");
	if ((o->from || o->to) && (!o->html || !o->replay))
		argp_error(state,
			   "--from and --to choose the span of a recording's page: they need "
			   "--replay and --html");
	if (o->metrics &&
	    (o->replay || o->snapshot || o->fate || o->check || (o->verify && !o->cmd)))
		argp_error(state, "--metrics serves a trace's metrics: not with --replay, "
				  "--snapshot, --fate, --check or a one-shot --verify");
	if (o->ecs_version_set && !o->ecs)
		argp_error(state, "--ecs-version chooses the ECS of --ecs's documents: it needs "
				  "--ecs");
	if (o->login && !o->html)
		argp_error(state, "--login chooses the login of --html's page: it needs --html");
	if (o->html && (o->at || o->diff[0] || o->explain || o->fate || o->snapshot || o->tree ||
			o->verify || o->check || o->escapes))
		argp_error(state, "--html draws a run or a recording: not with --at, --diff, "
				  "--explain, --fate, --snapshot, --tree, --verify, --check or "
				  "--escapes");
	if (o->has_checkpoint_every && !o->record)
		argp_error(state, "--checkpoint-every needs --record");
	if (o->diff[0] && (!o->replay || o->tree || o->escapes || o->explain || o->journal ||
			   o->syslog || o->ecs || o->expected_path || filter__active(&o->filter)))
		argp_error(state,
			   "--diff tells what changed in a recording: it needs --replay, and "
			   "takes --json, -o and --utc");
	if (o->at && (!o->replay || o->escapes || o->explain || o->journal || o->syslog || o->ecs ||
		      o->expected_path || o->filter.events))
		argp_error(state,
			   "--at draws a recording's tree at a time: it needs --replay, and "
			   "takes --tree, --json, -o, --utc, --ascii and the process filters");
	if (o->check && (o->cmd || o->pid || o->snapshot || o->tree || o->verify || o->escapes ||
			 o->output || filter__active(&o->filter)))
		argp_error(state, "--check takes only --json, --btf, --ringbuf-size and -v");
	/* A filter the mode cannot apply is refused, never ignored. */
	if (o->verify && filter__active(&o->filter))
		argp_error(state, "--verify compares the whole machine: it takes no filter");
	if (o->filter.events && (o->snapshot || o->tree))
		argp_error(state, "--event filters the event stream: not with --snapshot "
				  "or --tree");
	if (o->filter.events && o->escapes)
		argp_error(state, "--event and --escapes exclude each other (--escapes "
				  "shows escapes and survivors)");
	/* In the kernel where it is cheap: kinds that need no signal record. */
	if (!o->signals_set && !filter__needs_signals(&o->filter))
		o->signal_mode = 0;
	if (o->journal && (o->snapshot || o->tree || o->verify || o->check))
		argp_error(state, "--journal takes the event stream: not with --snapshot, "
				  "--tree, --verify or --check");
	if (o->syslog && (o->snapshot || o->tree || o->verify || o->check))
		argp_error(state, "--syslog takes the event stream: not with --snapshot, "
				  "--tree, --verify or --check");
	if (!o->syslog && (o->syslog_facility_set || o->syslog_queue))
		argp_error(state, "--syslog-facility and --syslog-queue need --syslog");
	/* After the drop nothing could signal a command that runs as us. */
	if (o->has_user && o->cmd)
		argp_error(state, "--user and a command exclude each other: the command "
				  "runs as the caller, and must stay ours to stop");
	if (o->has_user && (o->replay || o->check))
		argp_error(state, "--user drops the privileges of tracing: not with "
				  "--replay or --check");
	if (o->explain && (o->cmd || o->pid || o->snapshot || o->tree || o->verify || o->escapes ||
			   o->check || o->journal || o->syslog || o->ecs || o->expected_path ||
			   filter__active(&o->filter) || (o->signals_set && o->signal_mode == 0)))
		argp_error(state, "--explain tells one process's story: it takes --replay, "
				  "--record, --json, -o, -d and -v");
	if (o->fate &&
	    (o->cmd || o->pid || o->snapshot || o->tree || o->verify || o->escapes || o->check ||
	     o->journal || o->syslog || o->ecs || o->expected_path || o->replay || o->record ||
	     o->explain || o->duration_ms || filter__active(&o->filter)))
		argp_error(state, "--fate answers from the machine as it is now: it takes --json, "
				  "-o and -v");
	if (o->contain && (!o->cmd || o->replay))
		argp_error(state, "--contain ends what a command started: it needs a command, "
				  "and a live trace (not --replay)");
	if (o->contain_grace_set && !o->contain)
		argp_error(state, "--contain-grace needs --contain");
	if (o->filter.hide_expected && !o->expected_path)
		argp_error(state, "--hide-expected needs --expected FILE");
	if (o->expected_path && (o->snapshot || o->tree || o->verify || o->check))
		argp_error(state, "--expected names escapes: not with --snapshot, --tree, "
				  "--verify or --check");
	if (o->expected_path) {
		char err[512];

		if (expect__load(&o->expected, o->expected_path, err, sizeof(err)))
			argp_failure(state, argp_err_exit_status, 0, "%s", err);
	}
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	error_t err;

	if ((arg || key == OPT_SYSLOG) && key != ARGP_KEY_ARG)
		once(state, key);
	if (key == ARGP_KEY_END) {
		opts_end(state->input, state);
		return 0;
	}
	err = opt_output(key, arg, state);
	if (err == ARGP_ERR_UNKNOWN)
		err = opt_filter(key, arg, state);
	if (err == ARGP_ERR_UNKNOWN)
		err = opt_mode(key, arg, state);
	return err;
}

void opts__parse(int argc, char **argv, struct opts *o)
{
	static const struct argp argp = { options, parse_opt, NULL, doc, NULL, NULL, NULL };

	memset(o, 0, sizeof(*o));
	nseen = 0;
	o->ringbuf_bytes = DEFAULT_RINGBUF;
	o->checkpoint_every = DEFAULT_CHECKPOINT_EVERY;
	o->syslog_facility = 3; /* daemon */
	o->interval_ms = 1000;
	o->signal_mode = 1;
	o->contain_grace_ms = 2000;
	o->logout_grace_ms = 1000;
	/*
	 * With a command, a failure of pgrptrace's own is 125, as timeout(1)
	 * and env(1) say theirs: the command's exit status is all the rest.
	 */
	argp_err_exit_status = 2;
	for (int i = 1; i < argc - 1; i++)
		if (!strcmp(argv[i], "--"))
			argp_err_exit_status = PGT_EXIT_OWN_FAILURE;
	argp_parse(&argp, argc, argv, ARGP_IN_ORDER, NULL, o);
}
