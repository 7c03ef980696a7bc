// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <malloc.h>
#include <langinfo.h>
#include <locale.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include <bpf/libbpf.h>
#include "cgroup.h"
#include "clock.h"
#include "command.h"
#include "decode.h"
#include "loader.h"
#include "journal.h"
#include "syslog.h"
#include "tui.h"
#include "model.h"
#include "output.h"
#include "pipeline.h"
#include "privs.h"
#include "procfs.h"
#include "recording.h"
#include "replay.h"
#include "snapshot.h"
#include "trace.h"
#include "tree.h"
#include "verify.h"

/*
 * The longest a record waits in the ring buffer: the BPF side wakes user space
 * at most every WAKEUP_IDLE_MS (sooner while a quarter of the buffer is
 * pending), and the poll times out here.
 */
#define POLL_MS		50
/*
 * Records handled per poll: then the loop writes what is due, ticks and
 * sees signals. libbpf reads a ring buffer until it is empty, which under a
 * flood it never is: the lines formatted meanwhile (hundreds of megabytes)
 * and a stop would wait for the flood to end.
 */
#define POLL_BUDGET	4096
/* The most rounds of POLL_BUDGET that reading the ring buffer dry may take. */
#define DRAIN_ROUNDS	256
/*
 * A record wakes us if none has for this long: an event on a quiet machine
 * shows at once, and one in a storm within this, at <= 50 wakeups/s.
 */
#define WAKEUP_IDLE_MS	20
/*
 * --verify retries while frees of reaped processes are still in flight (RCU),
 * and longer while a parent is still exiting, its orphans not yet reparented.
 */
#define VERIFY_TRIES		25
#define VERIFY_TRIES_EXITING	500
#define VERIFY_WAIT_MS		20
#define ZOMBIE_AUDIT_NS		1000000000ULL
#define ZOMBIE_GONE_NS		1000000000ULL

static volatile sig_atomic_t stop_signal;
static volatile sig_atomic_t reopen_requested;	/* SIGHUP with -o: logrotate */
static volatile sig_atomic_t verify_from;	/* pid asking for a quiet-point check */

static void on_stop(int sig)
{
	stop_signal = sig;
}

static void on_hup(int sig)
{
	reopen_requested = 1;
}

static void on_verify_request(int sig, siginfo_t *si, void *uc)
{
	verify_from = si->si_pid;
}

/* A copy of a record that arrived while the snapshot was being taken. */
struct queued {
	struct queued *next;
	size_t size;
	__u64 data[];	/* aligned for the record structs */
};

/* One run of the tracer: live, or a --replay. */
struct tracer {
	const struct opts *opts;
	struct loader loader;
	struct output *out;
	struct ring_buffer *rb;
	struct model *model;
	bool print_events;		/* the event stream is the output */
	bool filtering;			/* the BPF side reports traced tgids only */
	struct sbuf last_tree;		/* the last tree drawn */
	bool utf8;			/* box glyphs: a UTF-8 terminal, no --ascii */
	struct pipeline pl;		/* every record goes through it */
	bool print_escapes;		/* escapes go to the output */
	bool queueing;			/* snapshot in progress: hold records */
	unsigned int budget;		/* records this poll may still handle */
	struct queued *queue, **queue_tail;
	__u64 drops_seen[PGT_TYPE_MAX];	/* drop counters already reported */
	__u64 last_loss_check_ns;
	__u64 bad_records;		/* records that failed validation */
	unsigned int verify_diffs;	/* differences found by all checks */
	bool need_resync;		/* events were lost: re-read the machine */
	unsigned int resyncs;
	struct command cmd;		/* the command; .pid 0 if none */
	struct lineage *child_line;	/* with a command: its lineage link (held) */
	struct rec_writer record;	/* --record, when .f is set */
	struct host_id host;		/* the traced machine (a replay: the recorded one) */
	struct journal *journal;	/* --journal, NULL without */
	struct syslog *syslog;		/* --syslog, NULL without */
	bool full_screen;		/* --tree on a terminal */
	struct tui *tui;		/* its view, NULL otherwise */
	__u64 forks_unseen;		/* PGT_STAT_FORK_UNSEEN already acted on */
	__u64 no_state;			/* PGT_STAT_NO_STATE already acted on */
	__u64 orphans_cut;		/* PGT_STAT_ORPHANS_CUT already acted on */
	__u64 zombies_checked_ns;	/* last audit_zombies() */
};

/*
 * Testing aid: PGRPTRACE_TEST_SKIP=<event> keeps that event type out of the
 * model, so the tests can prove that --verify notices a wrong model.
 */
static unsigned int skip_type(void)
{
	const char *name = getenv("PGRPTRACE_TEST_SKIP");
	unsigned int t;

	for (t = 1; name && t < PGT_TYPE_MAX; t++)
		if (!strcmp(name, decode__type_name(t)))
			return t;
	return 0;
}

/* Write what is due: every record before the first of a signal cause still open. */
static int flush_out(struct tracer *s)
{
	output__hold(s->out, pipeline__hold_point(&s->pl, output__held(s->out)));
	return output__flush(s->out);
}

/* The pipeline's results, to the output. */
static void on_event(void *ctx, const struct pgt_event *ev)
{
	struct tracer *s = ctx;

	/* The full-screen view's pane shows tty changes; the model shows the rest. */
	if (s->full_screen && ev->hdr->type != PGT_TTY && ev->hdr->type != PGT_FOREGROUND)
		return;
	if (s->print_events && filter__event(&s->opts->filter, s->model, ev))
		output__event(s->out, ev);
}

static void on_signal_cause(void *ctx, const struct sig_cause *c)
{
	struct tracer *s = ctx;

	if (s->print_events && filter__signal(&s->opts->filter, s->model, c))
		output__signal(s->out, c);
}

static void on_escape(void *ctx, const struct escape *e)
{
	struct tracer *s = ctx;

	if (s->print_escapes && filter__escape(&s->opts->filter, e))
		output__escape(s->out, e);
}

static const struct pipeline_ops to_output = {
	.event = on_event,
	.signal = on_signal_cause,
	.escape = on_escape,
};

/*
 * The command or a process born below it, by birth lineage: one that
 * daemonized has another parent now, and a lineage has no depth limit.
 */
static bool born_below(const struct tracer *s, const struct mproc *p)
{
	const struct lineage *l;

	for (l = p->lineage; l && s->child_line; l = l->parent)
		if (l == s->child_line)
			return true;
	return false;
}

/* --escapes with a command: where every descendant still alive is now. */
static void report_survivors(struct tracer *s)
{
	__u64 now = clock_ns(CLOCK_BOOTTIME);
	struct mproc *p;

	model__for_each_proc(s->model, p)
		if (!p->zombie && p->ctx.pid != (__u32)s->cmd.pid && born_below(s, p) &&
		    filter__process(&s->opts->filter, "survivor", p))
			output__survivor(s->out, p, now);
}


static int on_record(void *ctx, void *data, size_t size)
{
	struct tracer *s = ctx;
	struct pgt_event ev;
	struct queued *q;
	__u32 len = (__u32)size;

	/* --record: each record as it came; a failure is said once, and fails the run. */
	if (s->record.f && !s->record.err && rec__write(&s->record, data, len))
		fprintf(stderr, "pgrptrace: cannot write %s: %s; recording stopped\n",
			s->opts->record, strerror(-s->record.err));

	if (decode__record(data, size, &ev)) {
		if (!s->bad_records++)
			fprintf(stderr, "pgrptrace: skipping a malformed record (%zu bytes)\n", size);
		return 0;
	}
	if (s->queueing) {
		q = malloc(sizeof(*q) + size);
		if (!q)
			return -ENOMEM;
		q->next = NULL;
		q->size = size;
		memcpy(q->data, data, size);
		*s->queue_tail = q;
		s->queue_tail = &q->next;
		return 0;
	}
	pipeline__record(&s->pl, &ev);
	return 0;
}

/* libbpf's callback: a record, and -EAGAIN (it stops there) once the budget is spent. */
static int on_sample(void *ctx, void *data, size_t size)
{
	struct tracer *s = ctx;
	int err = on_record(ctx, data, size);

	if (!err && s->budget && !--s->budget)
		return -EAGAIN;
	return err;
}

/* Read what the ring buffer holds (POLL_BUDGET at a time, bounded). */
static int consume_all(struct tracer *s)
{
	int err, round = 0;

	do {
		s->budget = POLL_BUDGET;
		err = ring_buffer__consume(s->rb);
		if (err == -EAGAIN && !s->queueing)
			flush_out(s);
	} while (err == -EAGAIN && ++round < DRAIN_ROUNDS);
	return err == -EAGAIN ? 0 : err;
}

/*
 * What the model corrected: a reparent the kernel did differently from the
 * prediction (said on stderr), and the differences a resync found (records).
 */
static void on_note(void *ctx, const struct model_note *n)
{
	struct tracer *s = ctx;
	const struct mproc *p;

	switch (n->kind) {
	case NOTE_REPARENT_MISMATCH:
		fprintf(stderr,
			"pgrptrace: pid %u was reparented to %u, not %u as predicted; corrected\n",
			n->pid, n->actual, n->expected);
		break;
	case NOTE_ZOMBIE_GONE:
		if (s->opts->verbose)
			fprintf(stderr, "pgrptrace: zombie %u is gone from /proc before its reap "
				"record; removed from the model\n", n->pid);
		break;
	case NOTE_RESYNC_ADDED:
	case NOTE_RESYNC_CHANGED:
	case NOTE_RESYNC_REMOVED:
		p = model__find(s->model, n->pid);
		if (s->print_events && filter__process(&s->opts->filter, "correction", p))
			output__correction(s->out, n, p, clock_ns(CLOCK_BOOTTIME));
		break;
	default:
		break;
	}
}

/*
 * Attach first, queue what arrives, read every process, then replay the
 * queue: the model ignores an event older than a process's snapshot record,
 * so nothing is applied twice and nothing between the two is missed.
 */
static int take_snapshot(struct tracer *s, bool resync)
{
	struct queued *q, *next;
	struct pgt_event ev;
	int n;

	s->queueing = true;
	s->queue = NULL;
	s->queue_tail = &s->queue;
	consume_all(s);
	if (resync)
		model__resync_begin(s->model);
	n = snapshot__take(&s->loader, s->model);
	if (resync)
		model__resync_end(s->model);
	consume_all(s);
	s->queueing = false;
	for (q = s->queue; q; q = next) {
		next = q->next;
		if (!decode__record(q->data, q->size, &ev))
			pipeline__record(&s->pl, &ev);
		free(q);
	}
	if (n < 0) {
		fprintf(stderr, "pgrptrace: cannot take the snapshot: %s\n", strerror(-n));
		return -1;
	}
	return 0;
}

/*
 * A kernel-side counter of events that may be missing: said once, and the
 * machine re-read each time it grows.
 */
static void stat_missed(struct tracer *s, unsigned int idx, __u64 *seen, const char *what)
{
	__u64 n = loader__stat(&s->loader, idx);

	if (n <= *seen)
		return;
	if (!*seen)
		fprintf(stderr, "pgrptrace: %s; re-reading the machine\n", what);
	*seen = n;
	s->need_resync = true;
}

/* Report new ring-buffer drops as one lost record covering the interval. */
static void check_losses(struct tracer *s)
{
	struct lost_info li = {};
	__u64 drops[PGT_TYPE_MAX];
	__u64 now = clock_ns(CLOCK_BOOTTIME);
	unsigned int t;

	loader__drops(&s->loader, drops);
	for (t = 1; t < PGT_TYPE_MAX; t++) {
		li.by_type[t] = drops[t] - s->drops_seen[t];
		li.total += li.by_type[t];
		s->drops_seen[t] = drops[t];
	}
	if (li.total) {
		li.from_ns = s->last_loss_check_ns;
		li.to_ns = now;
		output__lost(s->out, &li);
		s->need_resync = true;
	}
	/* Tracepoint level: a fork whose child was not found is a fork missed. */
	stat_missed(s, PGT_STAT_FORK_UNSEEN, &s->forks_unseen,
		    "a fork's child was not found on its parent's lists");
	stat_missed(s, PGT_STAT_NO_STATE, &s->no_state,
		    "a syscall's state could not be kept in the kernel; its event may be missing");
	stat_missed(s, PGT_STAT_ORPHANS_CUT, &s->orphans_cut,
		    "a process exited with more children than were reported as reparented");
	s->last_loss_check_ns = now;
}

static void report_summary(struct tracer *s)
{
	const char *sep = "";
	__u64 total = 0;
	unsigned int t;

	for (t = 1; t < PGT_TYPE_MAX; t++)
		total += s->drops_seen[t];
	if (!total)
		return;
	fprintf(stderr, "pgrptrace: lost %llu events (", (unsigned long long)total);
	for (t = 1; t < PGT_TYPE_MAX; t++) {
		if (!s->drops_seen[t])
			continue;
		fprintf(stderr, "%s%s %llu", sep, decode__type_name(t),
			(unsigned long long)s->drops_seen[t]);
		sep = " ";
	}
	fprintf(stderr, "): the ring buffer was full; a larger --ringbuf-size helps\n");
}

/*
 * Compare with /proc, draining between tries: a reaped process leaves the
 * model only when its task is freed, an RCU grace period after the reap.
 */
static unsigned int run_verify(struct tracer *s)
{
	struct verify_result res = {};
	struct sbuf report = {};
	int i, err = 0;

	for (i = 0; i < VERIFY_TRIES ||
		    (i < VERIFY_TRIES_EXITING && model__pending_reparents(s->model)); i++) {
		consume_all(s);
		pipeline__close_causes(&s->pl, 0);
		check_losses(s);
		if (s->need_resync) {
			s->need_resync = false;
			take_snapshot(s, true);
		}
		/* Pending only while the old parent may still be in do_exit: bounded. */
		model__confirm_reparents(s->model, clock_ns(CLOCK_BOOTTIME), 0);
		model__drop_reaped(s->model);
		sbuf__reset(&report);
		err = verify__run(s->model, &report, &res);
		if (err || !res.differences)
			break;
		usleep(VERIFY_WAIT_MS * 1000);
	}
	if (err) {
		fprintf(stderr, "pgrptrace: cannot read /proc: %s\n", strerror(-err));
		res.differences = 1;
	}
	sbuf__printf(&report, "verify: %u processes, %u differences\n", res.processes,
		     res.differences);
	if (s->print_events) {
		/* Events go to -o FILE; the reports stay on stdout. */
		fwrite(report.buf, 1, report.len, stdout);
		fflush(stdout);
	} else {
		output__raw(s->out, &report);
		flush_out(s);
	}
	sbuf__free(&report);
	s->verify_diffs += res.differences;
	return res.differences;
}

/* A workload under --verify -- CMD asks for a check at a quiet point. */
static void serve_verify_request(struct tracer *s)
{
	pid_t from = verify_from;
	const struct mproc *p;

	verify_from = 0;
	p = model__find(s->model, (__u32)from);
	if (!s->opts->verify || !p || !born_below(s, p))
		return;
	/* The answer carries the number of differences (si_value). */
	sigqueue(from, SIGUSR1, (union sigval){ .sival_int = (int)run_verify(s) });
}

/*
 * Draw the tree; in live mode only when the drawing differs from the last
 * one, since most changes on a machine are outside a filtered view.
 */
static size_t draw_tree(struct tracer *s, bool clear)
{
	struct tree_opts to = {
		.ascii = !s->utf8,
		.json = s->opts->json,
		.filter = &s->opts->filter,
		.pid = (__u32)s->opts->pid,
	};
	struct sbuf sb = {};
	size_t n;

	n = tree__render(s->model, &to, &sb);
	if (s->last_tree.buf && s->last_tree.len == sb.len &&
	    !memcmp(s->last_tree.buf, sb.buf, sb.len)) {
		sbuf__free(&sb);
		return n;
	}
	sbuf__reset(&s->last_tree);
	sbuf__put(&s->last_tree, sb.buf, sb.len);
	if (clear) {
		sbuf__reset(&sb);
		sbuf__puts(&sb, "\033[H\033[2J");
		sbuf__put(&sb, s->last_tree.buf, s->last_tree.len);
	} else if (s->opts->tree && !s->opts->json) {
		sbuf__putc(&sb, '\n');
	}
	output__raw(s->out, &sb);
	sbuf__free(&sb);
	return n;
}

static int seed_pid(struct tracer *s, pid_t root)
{
	pid_t *kids;
	int n, i;

	if (kill(root, 0) && errno == ESRCH) {
		fprintf(stderr, "pgrptrace: cannot trace pid %d: no such process\n", root);
		return -1;
	}
	/* A thread's id reaches kill(2) and /proc, but the filter is by process. */
	n = procfs__tgid(root);
	if (n > 0 && n != root) {
		fprintf(stderr, "pgrptrace: %d is a thread of process %d: give -p %d\n", root,
			n, n);
		return -1;
	}
	if (!s->filtering)
		return 0;
	loader__trace(&s->loader, root);
	n = procfs__descendants(root, &kids);
	if (n < 0) {
		fprintf(stderr, "pgrptrace: cannot list the descendants of %d: %s\n", root,
			strerror(-n));
		return -1;
	}
	for (i = 0; i < n; i++)
		loader__trace(&s->loader, kids[i]);
	free(kids);
	return 0;
}

static void install_handlers(bool reopen)
{
	struct sigaction sa = { .sa_handler = on_stop };
	struct sigaction sh = { .sa_handler = on_hup };
	struct sigaction sv = { .sa_sigaction = on_verify_request, .sa_flags = SA_SIGINFO };

	sigemptyset(&sa.sa_mask);
	sigemptyset(&sh.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* With -o, SIGHUP reopens the file (logrotate); otherwise it stops. */
	sigaction(SIGHUP, reopen ? &sh : &sa, NULL);
	sigemptyset(&sv.sa_mask);
	sigaction(SIGUSR1, &sv, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/*
 * Once a second: a zombie /proc no longer has, a second after its exit,
 * leaves the model whether or not its reap record has come (on_note()).
 */
static void audit_zombies(struct tracer *s)
{
	__u64 now = clock_ns(CLOCK_BOOTTIME);

	if (now - s->zombies_checked_ns < ZOMBIE_AUDIT_NS)
		return;
	s->zombies_checked_ns = now;
	model__audit_zombies(s->model, now, ZOMBIE_GONE_NS);
}

static int stream(struct tracer *s)
{
	__u64 deadline = 0, next_draw = 0, drawn_gen = (__u64)-1, now;
	bool tty_out = !s->opts->output && isatty(STDOUT_FILENO) && !s->opts->json;
	int err = 0;

	if (s->opts->duration_ms)
		deadline = clock_ns(CLOCK_MONOTONIC) + s->opts->duration_ms * 1000000ULL;
	while (!stop_signal) {
		s->budget = POLL_BUDGET;
		err = ring_buffer__poll(s->rb, POLL_MS);
		if (err == -EINTR || err == -EAGAIN)
			err = 0;
		if (err < 0)
			break;
		/* Records submitted without a wakeup are picked up here. */
		if (s->budget) {
			err = ring_buffer__consume(s->rb);
			if (err == -EAGAIN)
				err = 0;
			if (err < 0)
				break;
		}
		err = 0;
		check_losses(s);
		if (s->need_resync) {
			/* The model missed events: read the machine again. */
			s->need_resync = false;
			s->resyncs++;
			take_snapshot(s, true);
		}
		pipeline__tick(&s->pl, clock_ns(CLOCK_BOOTTIME));
		model__confirm_reparents(s->model, clock_ns(CLOCK_BOOTTIME), 20000000ULL);
		audit_zombies(s);
		if (reopen_requested) {
			reopen_requested = 0;
			err = output__reopen(s->out);
			if (err) {
				fprintf(stderr, "pgrptrace: cannot reopen %s: %s\n", s->opts->output,
					strerror(-err));
				break;
			}
		}
		/* Hand over the signal causes outside a syscall that are complete. */
		pipeline__close_causes(&s->pl, clock_ns(CLOCK_BOOTTIME));
		if (verify_from)
			serve_verify_request(s);
		now = clock_ns(CLOCK_MONOTONIC);
		if (s->tui) {
			if (tui__keys(s->tui))
				break;	/* q */
			tui__draw(s->tui, now);
		} else if (s->opts->tree && model__generation(s->model) != drawn_gen &&
			   now >= next_draw) {
			draw_tree(s, tty_out);
			drawn_gen = model__generation(s->model);
			next_draw = now + s->opts->interval_ms * 1000000ULL;
		}
		if (flush_out(s))
			break;
		command__reap(&s->cmd, false, &stop_signal);
		if (s->cmd.done)
			break;
		if (deadline && now >= deadline)
			break;
	}
	if (err < 0) {
		fprintf(stderr, "pgrptrace: cannot read the ring buffer: %s\n", strerror(-err));
		return -1;
	}
	/* Drain what is left, then the last losses. */
	consume_all(s);
	pipeline__finish(&s->pl);
	check_losses(s);
	return 0;
}

/*
 * A new login's entry leader, seen alive: where an sshd login came from,
 * read once from its environment (tracing only: a replay has no /proc of
 * the recorded machine).
 */
static void on_entry(void *ctx, struct lineage *entry)
{
	struct login_remote *r;

	(void)ctx;
	if (entry->remote || strcmp(fmt__entry_type(entry), "sshd"))
		return;
	r = calloc(1, sizeof(*r));
	if (r && procfs__ssh_client((pid_t)entry->pid, r->ip, sizeof(r->ip), &r->port) == 0)
		entry->remote = r;
	else
		free(r);
}

/* What a run needs before its first record: locale, boot id, model, output, pipeline. */
static int session_open(struct tracer *s, const struct output_cfg *ocfg)
{
	const struct opts *o = s->opts;

	install_handlers(o->output != NULL);
	/* Box-drawing glyphs only where they will render: pstree's rule. */
	setlocale(LC_CTYPE, "");
	s->utf8 = !o->ascii && !o->output && isatty(STDOUT_FILENO) &&
		  !strcmp(nl_langinfo(CODESET), "UTF-8");
	if (decode__init_boot_id())
		decode__set_boot_id("unknown");
	host__read(&s->host);
	s->model = model__new();
	s->out = output__open(ocfg);
	if (!s->model || !s->out)
		return -1;
	if (o->journal) {
		s->journal = journal__open();
		if (!s->journal || output__add_sink(s->out, ocfg, &journal_sink, s->journal))
			return -1;
	}
	if (o->syslog) {
		struct syslog_cfg scfg = {
			.target = o->syslog_target, .facility = o->syslog_facility,
			.queue_bytes = o->syslog_queue,
		};

		s->syslog = syslog__open(&scfg);
		if (!s->syslog || output__add_sink(s->out, ocfg, &syslog_sink, s->syslog))
			return -1;
	}
	if (s->full_screen) {
		struct tui_cfg tc = {
			.model = s->model, .filter = &o->filter, .pid = (__u32)o->pid,
			.kthreads = o->kthreads, .ascii = !s->utf8, .host = s->host.name,
			.color = output__color(o->color, STDOUT_FILENO),
			.interval_ms = o->interval_set ? o->interval_ms : 200,
		};

		/* Its records, for the escapes and the pane; the screen comes once attached. */
		s->tui = tui__open(&tc);
		if (!s->tui || output__add_sink(s->out, ocfg, &tui_sink, s->tui))
			return -1;
	}
	output__set_host(s->out, &s->host);
	output__set_model(s->out, s->model);
	model__set_note_fn(s->model, on_note, s);
	if (!o->replay) {
		model__set_entry_fn(s->model, on_entry, s);
		model__set_cgroup_fn(s->model, cgroup__read_proc);
	}
	pipeline__init(&s->pl, s->model, &to_output, s);
	s->pl.skip_type = skip_type();
	s->pl.expect = &s->opts->expected;
	return 0;
}

/*
 * Up to a model of the machine with the programs attached: the recording
 * file, the command (held until released), the BPF side, the filter, the
 * ring buffer reader and the snapshot.
 */
static int start_tracing(struct tracer *s, const struct loader_cfg *lcfg, __u64 t_start)
{
	const struct opts *o = s->opts;
	__u64 t_loaded;
	int err;

	if (o->record) {
		err = rec__create(&s->record, o->record, &s->host,
				  (__s64)(clock_ns(CLOCK_REALTIME) - clock_ns(CLOCK_BOOTTIME)));
		if (err) {
			fprintf(stderr, "pgrptrace: cannot create %s: %s\n", o->record,
				strerror(-err));
			return -1;
		}
	}
	/*
	 * The records own our stdout: where a program reads it (not a
	 * terminal, no -o), the command's output goes to stderr, so that it can
	 * never end up between two records.
	 */
	if (o->cmd && command__spawn(&s->cmd, o->cmd, !o->output && !isatty(STDOUT_FILENO)))
		return -1;
	if (loader__start(&s->loader, lcfg))
		return -1;
	t_loaded = clock_ns(CLOCK_MONOTONIC);
	if (s->cmd.pid && lcfg->filter && loader__trace(&s->loader, s->cmd.pid)) {
		fprintf(stderr, "pgrptrace: cannot add pid %d to the filter\n", s->cmd.pid);
		return -1;
	}
	if (o->pid && seed_pid(s, o->pid))
		return -1;
	s->rb = ring_buffer__new(loader__ringbuf_fd(&s->loader), on_sample, s, NULL);
	if (!s->rb) {
		fprintf(stderr, "pgrptrace: cannot create ring buffer reader: %s\n",
			strerror(errno));
		return -1;
	}
	s->last_loss_check_ns = clock_ns(CLOCK_BOOTTIME);
	if (s->print_events)
		output__start(s->out);
	if (take_snapshot(s, false))
		return -1;
	if (o->verbose)
		fprintf(stderr, "pgrptrace: loaded and attached in %llu ms, snapshot in %llu ms\n",
			(unsigned long long)(t_loaded - t_start) / 1000000,
			(unsigned long long)(clock_ns(CLOCK_MONOTONIC) - t_loaded) / 1000000);
	if (s->cmd.pid) {
		const struct mproc *cp = model__find(s->model, (__u32)s->cmd.pid);

		/* Its link, not its (pid, start): a start read from /proc is corrected later. */
		s->child_line = cp ? lineage__get(cp->lineage) : NULL;
	}
	return 0;
}

/* --snapshot, or --verify without a command: one look at the machine. */
static int one_shot(struct tracer *s)
{
	const struct opts *o = s->opts;
	bool none = false;

	if (o->snapshot)
		none = !draw_tree(s, false) && (filter__on_procs(&o->filter) || o->pid);
	else
		run_verify(s);
	/* A filter that matches nothing is most likely a typo: say so. */
	if (none && o->filter.tty)
		fprintf(stderr, "pgrptrace: no process matches --tty %s\n", o->filter.tty);
	else if (none && o->filter.has_session)
		fprintf(stderr, "pgrptrace: no process matches --session %u\n",
			o->filter.session);
	else if (none)
		fprintf(stderr, "pgrptrace: no process matches the filters\n");
	return flush_out(s) || s->verify_diffs || none ? 1 : 0;
}

/* The stream until a stop, the command's end or a closed stdout; the exit status. */
static int trace_live(struct tracer *s)
{
	const struct opts *o = s->opts;
	int ret = 1;

	/*
	 * libbpf's parse of vmlinux BTF (some 10 MiB of heap) was freed after
	 * load; give the pages back rather than hold them for hours.
	 */
	malloc_trim(0);
	if (s->tui && tui__start(s->tui))
		return 1;
	if (flush_out(s) == 0 && stream(s) == 0)
		ret = 0;
	/* The terminal as it was, before anything more is said on it. */
	tui__close(s->tui);
	if (output__error(s->out) == -EPIPE && !o->output) {
		/*
		 * The reader of stdout went away (| head): nobody is left to tell,
		 * so tracing stops; the command's status is still ours to give.
		 */
		ret = 0;
		ring_buffer__free(s->rb);
		s->rb = NULL;
		loader__stop(&s->loader);
		command__reap(&s->cmd, true, &stop_signal);
	} else {
		if (ret == 0 && o->verify)
			run_verify(s);
		if (ret == 0 && o->escapes && s->cmd.pid)
			report_survivors(s);
	}
	/* A model that differed is a failure (the command's status comes last). */
	if (ret == 0 && s->verify_diffs)
		ret = 1;
	return ret;
}

/* The last output, and what went wrong on the way: @ret, or 1 for a partial result. */
static int end_report(struct tracer *s, int ret)
{
	const struct opts *o = s->opts;
	int werr;

	flush_out(s);
	werr = output__error(s->out);
	/* The reader of stdout went away (| head): a filter ends quietly. */
	if (werr == -EPIPE && !o->output)
		werr = 0;
	if (werr) {
		fprintf(stderr, "pgrptrace: cannot write %s: %s\n", o->output ?: "output",
			strerror(-werr));
		ret = 1;
	}
	/* A journal or syslog that failed has said so; the run did not do all it was asked. */
	if (output__sink_error(s->out) || journal__failed(s->journal, NULL))
		ret = 1;
	report_summary(s);
	/* A record left out is a partial result: said, and the exit status says it. */
	if (s->bad_records) {
		fprintf(stderr, "pgrptrace: %llu malformed records skipped\n",
			(unsigned long long)s->bad_records);
		ret = ret ?: 1;
	}
	return ret;
}

/* Everything a run holds, released whatever stopped it; @ret, or 1 if the recording fails. */
static int session_close(struct tracer *s, int ret)
{
	const struct opts *o = s->opts;
	int werr;

	if (o->record && s->record.f) {
		bool said = s->record.err;

		werr = rec__close(&s->record);
		if (werr && !said)
			fprintf(stderr, "pgrptrace: cannot write %s: %s\n", o->record,
				strerror(-werr));
		if (werr)
			ret = 1;
	}
	command__close(&s->cmd);	/* an unreleased command exits 127 */
	if (ret != 0)
		command__reap(&s->cmd, true, &stop_signal);
	ring_buffer__free(s->rb);
	if (s->loader.skel)
		loader__stop(&s->loader);
	/* Records an output or the collector never got (counted as the queues drained). */
	if (output__close(s->out) || syslog__lost(s->syslog))
		ret = ret ?: 1;
	free(s->journal);
	syslog__free(s->syslog);
	tui__free(s->tui);
	model__free(s->model);
	sbuf__free(&s->last_tree);
	pipeline__free(&s->pl);
	lineage__put(s->child_line);
	return ret;
}

/*
 * --user: every descriptor is open (ring buffer, maps, the iterator's link,
 * -o and --record files), so become the user. What needs privileges later
 * is checked now, as that user, so that it is refused before tracing starts.
 */
static int become_user(struct tracer *s)
{
	const struct opts *o = s->opts;
	char *dir = NULL, *slash;
	int err;

	err = output__chown(s->out, o->user.uid, o->user.gid);
	if (err) {
		fprintf(stderr, "pgrptrace: cannot give %s to %s: %s\n", o->output, o->user.name,
			strerror(-err));
		return -1;
	}
	err = privs__drop(&o->user);
	if (err) {
		fprintf(stderr, "pgrptrace: cannot become %s: %s\n", o->user.name, strerror(-err));
		return -1;
	}
	err = loader__check_unprivileged(&s->loader);
	if (err) {
		fprintf(stderr, "pgrptrace: as %s, this kernel refuses bpf() on pgrptrace's own "
				"maps (%s; kernel.unprivileged_bpf_disabled): the loss counters "
				"and the re-reading after a loss need it; run without --user\n",
			o->user.name, strerror(-err));
		return -1;
	}
	/* logrotate moves -o FILE and SIGHUP reopens it: as the user, in its directory. */
	if (o->output) {
		dir = strdup(o->output);
		slash = dir ? strrchr(dir, '/') : NULL;
		if (slash)
			*(slash == dir ? slash + 1 : slash) = '\0';
		if (!dir || access(slash ? dir : ".", W_OK | X_OK)) {
			fprintf(stderr, "pgrptrace: as %s, cannot create files in %s: -o FILE is "
					"reopened there on SIGHUP (logrotate)\n", o->user.name,
				slash ? dir : ".");
			free(dir);
			return -1;
		}
		free(dir);
	}
	if (o->verbose)
		fprintf(stderr, "pgrptrace: now running as %s (uid %u), no capabilities\n",
			o->user.name, (unsigned int)o->user.uid);
	return 0;
}

int trace__run(const struct opts *o)
{
	bool tree_mode = o->snapshot || o->tree || o->verify;
	/* --tree on a terminal is a full-screen program; its records go to the view only. */
	bool full_screen = o->tree && !o->json && !o->output && isatty(STDOUT_FILENO);
	struct output_cfg ocfg = {
		.json = o->json, .ecs = o->ecs, .utc = o->utc, .path = o->output,
		.offline = o->replay != NULL,
		/* A service's standard output goes to the journal (and syslog) too: not twice. */
		.no_stream = ((o->journal || o->syslog) && !o->output) || full_screen,
		.color = o->color,
		.queue_bytes = o->output_queue,
	};
	struct loader_cfg lcfg = {
		.self_tgid = (__u32)getpid(),
		.filter = !tree_mode && ((o->cmd && !o->all) || o->pid),
		.wakeup_bytes = o->ringbuf_bytes / 4,
		.wakeup_idle_ns = WAKEUP_IDLE_MS * 1000000ULL,
		.ringbuf_bytes = o->ringbuf_bytes,
		.btf_path = o->btf_path,
		.verbose = o->verbose,
		.signal_mode = o->signal_mode,
	};
	struct tracer s = {
		.opts = o,
		.full_screen = full_screen,
		.print_events = (!tree_mode && !o->escapes) || (o->verify && o->output) ||
				full_screen,
		.print_escapes = !tree_mode || (o->verify && o->output) || full_screen,
		.filtering = lcfg.filter,
		.cmd = { .release_fd = -1 },
	};
	__u64 t_start = clock_ns(CLOCK_MONOTONIC);
	int ret = 1;

	if (session_open(&s, &ocfg))
		goto out;
	if (o->replay) {
		struct replay_cfg rc = {
			.path = o->replay, .on_record = on_record, .ctx = &s,
			.pl = &s.pl, .out = s.out, .host = &s.host, .verbose = o->verbose,
		};

		ret = replay__run(&rc) ? 1 : 0;
		goto done;
	}
	if (start_tracing(&s, &lcfg, t_start))
		goto out;
	if (o->has_user && become_user(&s))
		goto out;
	if (o->snapshot || (o->verify && !o->cmd)) {
		ret = one_shot(&s);
		goto done;
	}
	if (command__release(&s.cmd, o->cmd ? o->cmd[0] : NULL))
		goto out;
	ret = trace_live(&s);
done:
	ret = end_report(&s, ret);
out:
	ret = session_close(&s, ret);
	/*
	 * With a command: its status, unless pgrptrace failed (125), or was
	 * stopped by a signal (0: the command's status is not known).
	 */
	if (o->cmd && !o->replay)
		ret = ret ? PGT_EXIT_OWN_FAILURE : s.cmd.done && !stop_signal ?
		      command__exit_code(&s.cmd) : 0;
	return ret;
}
