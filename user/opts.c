// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "opts.h"

#define DEFAULT_RINGBUF	(4U << 20)

const char *argp_program_version = "pgrptrace 0.1";
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
	"  pgrptrace --json -- sh -c 'setsid sleep 1 &'\n"
	"                                 # run a command, trace it and its\n"
	"                                 # descendants, exit with its status\n"
	"\n"
	"Exit status: 0 on success (in command mode, the command's status, or 128+N\n"
	"if signal N killed it), 1 on a failure, 2 on a usage error.\n"
	"\n"
	"Requires root, or CAP_BPF, CAP_PERFMON and CAP_SYS_ADMIN, and a kernel with\n"
	"BTF (/sys/kernel/btf/vmlinux).";

enum {
	OPT_BTF = 0x100,
	OPT_RINGBUF,
	OPT_UTC,
};

static const struct argp_option options[] = {
	{ "json", 'j', NULL, 0, "JSON Lines output (schema 1, docs/events.md)", 0 },
	{ "output", 'o', "FILE", 0, "Append output to FILE (created 0600)", 0 },
	{ "pid", 'p', "PID", 0, "Trace only PID and its descendants", 0 },
	{ "all", 'a', NULL, 0, "With a command: trace the whole machine while it runs", 0 },
	{ "duration", 'd', "SECS", 0, "Stop after SECS seconds (decimals allowed)", 0 },
	{ "ringbuf-size", OPT_RINGBUF, "BYTES", 0,
	  "Ring buffer size, a power of two (K and M suffixes; default 4M)", 0 },
	{ "btf", OPT_BTF, "FILE", 0, "Use BTF from FILE instead of the kernel's", 0 },
	{ "utc", OPT_UTC, NULL, 0, "Text times in UTC instead of local time", 0 },
	{ "verbose", 'v', NULL, 0, "Show libbpf messages (twice: debug)", 0 },
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

static __u32 parse_size(struct argp_state *state, const char *arg)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(arg, &end, 10);
	if (!errno && end != arg) {
		if (!strcasecmp(end, "k"))
			v <<= 10, end++;
		else if (!strcasecmp(end, "m"))
			v <<= 20, end++;
	}
	if (errno || end == arg || *end || v < 4096 || v > (1ULL << 30) || (v & (v - 1)))
		argp_error(state, "bad ring buffer size '%s': want a power of two from 4K to 1024M",
			   arg);
	return (__u32)v;
}

static __u64 parse_secs(struct argp_state *state, const char *arg)
{
	double v;
	char *end;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !(v > 0) || v > 31536000.0)
		argp_error(state, "bad duration '%s': want seconds, more than 0, at most a year",
			   arg);
	return (__u64)(v * 1000.0 + 0.5) ?: 1;
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct opts *o = state->input;

	switch (key) {
	case 'j':
		o->json = true;
		break;
	case 'a':
		o->all = true;
		break;
	case 'o':
		o->output = arg;
		break;
	case 'p':
		o->pid = (int)parse_int(state, "pid", arg, 1, INT_MAX);
		break;
	case 'd':
		o->duration_ms = parse_secs(state, arg);
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
	case OPT_UTC:
		o->utc = true;
		break;
	case ARGP_KEY_ARG:
		/* The first operand starts the command; the rest are its own. */
		o->cmd = &state->argv[state->next - 1];
		state->next = state->argc;
		break;
	case ARGP_KEY_END:
		if (o->cmd && o->pid)
			argp_error(state, "-p and a command exclude each other");
		if (o->all && !o->cmd)
			argp_error(state, "-a needs a command");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

void opts__parse(int argc, char **argv, struct opts *o)
{
	static const struct argp argp = { options, parse_opt, NULL, doc, NULL, NULL, NULL };

	memset(o, 0, sizeof(*o));
	o->ringbuf_bytes = DEFAULT_RINGBUF;
	argp_err_exit_status = 2;
	argp_parse(&argp, argc, argv, ARGP_IN_ORDER, NULL, o);
}
