// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The run, live or a --replay: start the BPF side, take the snapshot,
 * stream the records until a stop, and end cleanly. session.c wires what it
 * drives.
 */
#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "clock.h"
#include "contain.h"
#include "diff.h"
#include "explain.h"
#include "exporter.h"
#include "page.h"
#include "fate.h"
#include "fateout.h"
#include "privs.h"
#include "procfs.h"
#include "replay.h"
#include "session.h"
#include "snapshot.h"
#include "trace.h"
#include "tree.h"
#include "tui.h"
#include "verify.h"
#include "msg.h"

/*
 * The longest a record waits in the ring buffer: the BPF side wakes user space
 * at most every WAKEUP_IDLE_MS (sooner while a quarter of the buffer is
 * pending), and the poll times out here.
 */
#define POLL_MS		50
/*
 * A record wakes us if none has for this long: an event on a quiet machine
 * shows at once, and one in a storm within this, at <= 50 wakeups/s.
 */
#define WAKEUP_IDLE_MS	20
#define ZOMBIE_AUDIT_NS 1000000000ULL
#define ZOMBIE_GONE_NS	1000000000ULL

static volatile sig_atomic_t stop_signal;
static volatile sig_atomic_t reopen_requested; /* SIGHUP with -o: logrotate */
static volatile sig_atomic_t verify_from;      /* pid asking for a quiet-point check */

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
	/*
	 * Left ignored by whoever started us, the command's exit would be
	 * reaped unseen (waitpid(): ECHILD) and the run would never end.
	 */
	signal(SIGCHLD, SIG_DFL);
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

/*
 * Attach first, queue what arrives, read every process, then replay the
 * queue: the model ignores an event older than a process's snapshot record,
 * so nothing is applied twice and nothing between the two is missed.
 */
static int take_snapshot(struct tracer *s, bool resync)
{
	int n;

	intake__hold(&s->in);
	intake__drain(&s->in);
	if (resync) {
		model__resync_begin(s->model);
		if (s->exporter)
			s->exporter->counts.resyncs++;
	}
	n = snapshot__take(&s->loader, s->model);
	if (resync)
		model__resync_end(s->model);
	intake__drain(&s->in);
	intake__release(&s->in);
	if (n < 0) {
		p_err("cannot take the snapshot: %s", strerror(-n));
		return -1;
	}
	return 0;
}

/* New losses as a lost record; the machine read again after any. */
static void check_losses(struct tracer *s, bool resync)
{
	struct lost_info li;

	if (losses__check(&s->losses, &s->loader, s->out, clock_ns(CLOCK_BOOTTIME), &li))
		s->need_resync = true;
	if (li.total && s->tui)
		tui__lost(s->tui, &li);
	if (resync && s->need_resync) {
		s->need_resync = false;
		take_snapshot(s, true);
	}
}

/* Before each try of --verify: what is pending, taken. */
static void settle(void *ctx)
{
	struct tracer *s = ctx;

	intake__drain(&s->in);
	pipeline__close_causes(&s->pl, 0);
	check_losses(s, true);
}

/* --verify: its report, on stdout (events go to -o FILE) or into the output. */
static unsigned int run_verify(struct tracer *s)
{
	struct sbuf report = {};
	unsigned int diffs = verify__settled(s->model, settle, s, &report);

	if (s->print_events) {
		fwrite(report.buf, 1, report.len, stdout);
		fflush(stdout);
	} else {
		output__raw(s->out, &report);
		session__flush(s);
	}
	sbuf__free(&report);
	s->verify_diffs += diffs;
	return diffs;
}

/* A workload under --verify -- CMD asks for a check at a quiet point. */
static void serve_verify_request(struct tracer *s)
{
	pid_t from = verify_from;
	const struct mproc *p;

	verify_from = 0;
	p = model__find(s->model, (__u32)from);
	if (!s->opts->verify || !p || !command__born_below(s->child_line, p))
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

	n = tree__redraw(s->model, &to, &s->last_tree, clear, s->opts->tree && !s->opts->json, &sb);
	output__raw(s->out, &sb);
	sbuf__free(&sb);
	return n;
}

static int stream(struct tracer *s)
{
	__u64 deadline = 0, next_draw = 0, drawn_gen = (__u64)-1, now;
	bool tty_out = !s->opts->output && isatty(STDOUT_FILENO) && !s->opts->json;
	int err = 0;

	if (s->opts->duration_ms)
		deadline = clock_ns(CLOCK_MONOTONIC) + s->opts->duration_ms * 1000000ULL;
	while (!stop_signal) {
		err = intake__poll(&s->in, POLL_MS);
		if (err < 0)
			break;
		/* The model missed events: read the machine again. */
		check_losses(s, true);
		/* The signal causes complete by now, then what falls due (logout reports read them). */
		pipeline__close_causes(&s->pl, clock_ns(CLOCK_BOOTTIME));
		pipeline__tick(&s->pl, clock_ns(CLOCK_BOOTTIME));
		model__confirm_reparents(s->model, clock_ns(CLOCK_BOOTTIME), 20000000ULL);
		audit_zombies(s);
		if (reopen_requested) {
			reopen_requested = 0;
			err = output__reopen(s->out);
			if (err) {
				p_err("cannot reopen %s: %s", s->opts->output, strerror(-err));
				break;
			}
		}
		if (verify_from)
			serve_verify_request(s);
		now = clock_ns(CLOCK_MONOTONIC);
		if (s->tui) {
			if (tui__keys(s->tui))
				break; /* q */
			tui__draw(s->tui, now);
		} else if (s->opts->tree && model__generation(s->model) != drawn_gen &&
			   now >= next_draw) {
			draw_tree(s, tty_out);
			drawn_gen = model__generation(s->model);
			next_draw = now + s->opts->interval_ms * 1000000ULL;
		}
		if (session__flush(s))
			break;
		if (s->exporter)
			exporter__tick(s->exporter, s, now);
		command__reap(&s->cmd, false, &stop_signal);
		if (s->cmd.done || (s->explain && explain__done(s->explain)))
			break;
		if (deadline && now >= deadline)
			break;
	}
	if (err < 0) {
		p_err("cannot read the ring buffer: %s", strerror(-err));
		return -1;
	}
	/* The command ended, or we were stopped: everything it started goes too. */
	if (s->opts->contain && contain__run(s, s->opts->contain_grace_ms * 1000000ULL))
		err = -1;
	/* Drain what is left, then the last losses. */
	intake__drain(&s->in);
	pipeline__finish(&s->pl);
	check_losses(s, false);
	return err < 0 ? -1 : 0;
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
		/* One offset for both: a replay's times are the live run's to the nanosecond. */
		__s64 boot_to_real = (__s64)(clock_ns(CLOCK_REALTIME) - clock_ns(CLOCK_BOOTTIME));

		output__set_clock(s->out, boot_to_real);
		err = rec__create(&s->record, o->record, &s->host, boot_to_real);
		if (err) {
			p_err("cannot create %s: %s", o->record, strerror(-err));
			return -1;
		}
	}
	/*
	 * The records own our stdout: where a program reads it (not a
	 * terminal, no -o), the command's output goes to stderr, so that it can
	 * never end up between two records.
	 */
	if (o->contain && contain__prepare())
		return -1;
	s->cmd.adopts = o->contain;
	if (o->cmd && command__spawn(&s->cmd, o->cmd, !o->output && !isatty(STDOUT_FILENO)))
		return -1;
	if (loader__start(&s->loader, lcfg))
		return -1;
	t_loaded = clock_ns(CLOCK_MONOTONIC);
	if (s->cmd.pid && lcfg->filter && loader__trace(&s->loader, s->cmd.pid)) {
		p_err("cannot add pid %d to the filter", s->cmd.pid);
		return -1;
	}
	if (o->pid && snapshot__seed_filter(&s->loader, o->pid, s->filtering))
		return -1;
	if (intake__open(&s->in, loader__ringbuf_fd(&s->loader)))
		return -1;
	/* Bound now, before privileges are dropped. */
	if (o->metrics) {
		s->exporter = malloc(sizeof(*s->exporter));
		if (!s->exporter || exporter__start(s->exporter, s, o->metrics)) {
			free(s->exporter);
			s->exporter = NULL;
			return -1;
		}
		exporter__ringbuf(s->exporter, loader__ringbuf_fd(&s->loader), o->ringbuf_bytes);
	}
	losses__start(&s->losses, clock_ns(CLOCK_BOOTTIME));
	if (s->print_events)
		output__start(s->out);
	if (take_snapshot(s, false))
		return -1;
	/* The page starts with the machine (a command's page with what the command starts). */
	if (s->page && !s->filtering)
		page__begin(s->page, s->model, clock_ns(CLOCK_BOOTTIME));
	/* The machine as the snapshot read it: --at knows every process from here. */
	if (intake__checkpoint(&s->in))
		return -1;
	if (s->exporter)
		exporter__tick(s->exporter, s, 0); /* a page from the first scrape on */
	if (o->verbose)
		p_err("loaded and attached in %llu ms, snapshot in %llu ms",
		      (unsigned long long)(t_loaded - t_start) / 1000000,
		      (unsigned long long)(clock_ns(CLOCK_MONOTONIC) - t_loaded) / 1000000);
	if (s->cmd.pid) {
		const struct mproc *cp = model__find(s->model, (__u32)s->cmd.pid);

		/* Its link, not its (pid, start): a start read from /proc is corrected later. */
		s->child_line = cp ? lineage__get(cp->lineage) : NULL;
		/* Its end is reported as a login's: what it left behind. */
		if (s->child_line)
			logouts__watch(&s->pl.logouts, s->child_line);
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
		p_err("no process matches --tty %s", o->filter.tty);
	else if (none && o->filter.has_session)
		p_err("no process matches --session %u", o->filter.session);
	else if (none)
		p_err("no process matches the filters");
	return session__flush(s) || s->verify_diffs || none ? 1 : 0;
}

/* --fate: what the event would do, from the model just taken and /proc. */
static int fate_shot(struct tracer *s)
{
	const struct opts *o = s->opts;
	const struct fate_io io = { .read_sigs = procfs__read_sigs };
	struct fate_report r;
	const char *why = NULL;
	FILE *f;
	int err;

	err = fate__predict(s->model, &io, &o->fate_what, &r, &why);
	if (err) {
		p_err("--fate %s: %s", o->fate, why ?: strerror(-err));
		fate__free(&r);
		return 1;
	}
	f = o->output ? fopen(o->output, "ae") : stdout;
	err = f ? fateout__write(&r, f, o->json) : -errno;
	if (err)
		p_err("cannot write %s: %s", o->output ?: "output", strerror(-err));
	if (f && f != stdout)
		fclose(f);
	fate__free(&r);
	return err ? 1 : 0;
}

/* --at and --diff: what a moment of a replay holds (and --html's --from and --to). */
struct moments {
	struct tracer *s;
	struct diff *diff;
	int from, to; /* --html: the moments that begin and end the page, -1: none */
	__s64 boot_to_real_ns;
	bool drawn, failed;
};

static void on_moment(void *ctx, unsigned int i, __u64 at_ns, __s64 boot_to_real_ns)
{
	struct moments *mo = ctx;

	mo->boot_to_real_ns = boot_to_real_ns;
	if (mo->s->page) {
		if ((int)i == mo->from)
			page__begin(mo->s->page, mo->s->model, at_ns);
		if ((int)i == mo->to)
			page__stop(mo->s->page, at_ns);
		return;
	}
	if (mo->diff) {
		if (diff__take(mo->diff, mo->s->model, i, at_ns))
			mo->failed = true;
		return;
	}
	/* --at: the model stopped at TIME; its tree, as --snapshot draws it. */
	mo->drawn = draw_tree(mo->s, false) > 0;
}

static void on_peek(void *ctx, const void *data, __u32 len)
{
	struct moments *mo = ctx;

	if (mo->diff)
		diff__peek(mo->diff, data, len);
}

/* A replay; with --at or --diff, stopped at their moments. The exit status. */
static int replay_at(struct tracer *s, struct replay_cfg *rc)
{
	const struct opts *o = s->opts;
	struct moments mo = { .s = s, .from = -1, .to = -1 };
	int ret, err;

	if (s->page && (o->from || o->to)) {
		page__span(s->page);
		/* Without --from, the page starts at the first record. */
		mo.from = rc->nmoments;
		rc->moments[rc->nmoments++] = o->from ?: "+0s";
		if (o->to) {
			mo.to = rc->nmoments;
			rc->moments[rc->nmoments++] = o->to;
		}
		rc->run_on = !o->to;
		rc->records_too = true;
	} else if (o->at) {
		rc->moments[rc->nmoments++] = o->at;
	} else if (o->diff[0]) {
		rc->moments[rc->nmoments++] = o->diff[0];
		rc->moments[rc->nmoments++] = o->diff[1];
		mo.diff = diff__new();
		if (!mo.diff)
			return 1;
	}
	rc->moment_ctx = &mo;
	rc->on_moment = on_moment;
	rc->peek = on_peek;
	ret = replay__run(rc) || mo.failed ? 1 : 0;
	if (!ret && o->at && !mo.drawn && filter__on_procs(&o->filter)) {
		p_err("no process matches the filters at %s", o->at);
		ret = 1;
	}
	if (!ret && mo.diff) {
		FILE *f = o->output ? fopen(o->output, "ae") : stdout;

		err = f ? diff__write(mo.diff, f, o->json, o->utc, mo.boot_to_real_ns) : -errno;
		if (err) {
			p_err("cannot write %s: %s", o->output ?: "output", strerror(-err));
			ret = 1;
		}
		if (f && f != stdout)
			fclose(f);
	}
	diff__free(mo.diff);
	return ret;
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
	if (session__flush(s) == 0 && stream(s) == 0)
		ret = 0;
	/* The terminal as it was, before anything more is said on it. */
	tui__close(s->tui);
	if (output__error(s->out) == -EPIPE && !o->output) {
		/*
		 * The reader of stdout went away (| head): nobody is left to tell,
		 * so tracing stops; the command's status is still ours to give.
		 */
		ret = 0;
		intake__free(&s->in);
		loader__release(&s->loader);
		command__reap(&s->cmd, true, &stop_signal);
	} else {
		if (ret == 0 && o->verify)
			run_verify(s);
		if (ret == 0 && o->escapes && s->cmd.pid)
			session__survivors(s);
	}
	/* A model that differed is a failure (the command's status comes last). */
	if (ret == 0 && s->verify_diffs)
		ret = 1;
	return ret;
}

static int maps_readable(const void *loader)
{
	return loader__check_unprivileged(loader);
}

/*
 * --user: every descriptor is open (ring buffer, maps, the iterator's link,
 * -o and --record files), so become the user.
 */
static int become_user(struct tracer *s)
{
	const struct opts *o = s->opts;
	int err = output__chown(s->out, o->user.uid, o->user.gid);

	if (err) {
		p_err("cannot give %s to %s: %s", o->output, o->user.name, strerror(-err));
		return -1;
	}
	return privs__become(&o->user, maps_readable, &s->loader, o->output, o->verbose);
}

int trace__run(const struct opts *o)
{
	bool tree_mode = o->snapshot || o->tree || o->verify || o->fate || o->at || o->diff[0];
	/* --tree on a terminal is a full-screen program; its records go to the view only. */
	bool full_screen = o->tree && !o->json && !o->output && isatty(STDOUT_FILENO);
	struct output_cfg ocfg = {
		.json = o->json,
		.ecs = o->ecs,
		.ecs8 = o->ecs8,
		.utc = o->utc,
		.path = o->output,
		.offline = o->replay != NULL,
		/* A service's standard output goes to the journal (and syslog) too: not twice. */
		.no_stream = ((o->journal || o->syslog) && !o->output) || full_screen ||
			     o->explain || o->fate || (o->html && !o->output),
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
				full_screen || o->explain || o->html,
		.print_escapes = !tree_mode || (o->verify && o->output) || full_screen,
		.filtering = lcfg.filter,
		.cmd = { .release_fd = -1 },
	};
	__u64 t_start = clock_ns(CLOCK_MONOTONIC);
	int ret = 1;

	install_handlers(o->output != NULL);
	if (session__open(&s, &ocfg))
		goto out;
	if (o->replay) {
		struct replay_cfg rc = {
			.path = o->replay,
			.on_record = intake__record,
			.ctx = &s.in,
			.pl = &s.pl,
			.out = s.out,
			.host = &s.host,
			.verbose = o->verbose,
			.utc = o->utc,
			/* A testing aid: the answer without checkpoints, to compare. */
			.from_start = getenv("PGRPTRACE_TEST_FROM_START") != NULL,
			.record = &s.record,
			.record_path = o->record,
		};

		ret = replay_at(&s, &rc);
		goto done;
	}
	if (start_tracing(&s, &lcfg, t_start))
		goto out;
	if (o->has_user && become_user(&s))
		goto out;
	if (o->fate) {
		ret = fate_shot(&s);
		goto done;
	}
	if (o->snapshot || (o->verify && !o->cmd)) {
		ret = one_shot(&s);
		goto done;
	}
	if (command__release(&s.cmd, o->cmd ? o->cmd[0] : NULL))
		goto out;
	if (o->cmd)
		intake__wake_on_exit(&s.in, s.cmd.pid);
	if (s.explain && explain__bind(s.explain, s.model)) {
		p_err("no process %s is running: explain one that has ended from a recording "
		      "(--record, then --replay FILE --explain)",
		      o->explain);
		goto out;
	}
	ret = trace_live(&s);
done:
	ret = session__end_report(&s, ret);
out:
	ret = session__close(&s, ret, &stop_signal);
	/*
	 * With a command: its status, unless pgrptrace failed (125), or was
	 * stopped by a signal (0: the command's status is not known).
	 */
	if (o->cmd && !o->replay)
		ret = ret			 ? PGT_EXIT_OWN_FAILURE :
		      s.cmd.done && !stop_signal ? command__exit_code(&s.cmd) :
						   0;
	return ret;
}
