// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <limits.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cgroup.h"
#include "clock.h"
#include "decode.h"
#include "explain.h"
#include "exporter.h"
#include "filter.h"
#include "journal.h"
#include "page.h"
#include "procfs.h"
#include "session.h"
#include "syslog.h"
#include "tui.h"
#include "msg.h"

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

int session__flush(struct tracer *s)
{
	output__hold(s->out, pipeline__hold_point(&s->pl, output__held(s->out)));
	return output__flush(s->out);
}

static int flush(void *ctx)
{
	return session__flush(ctx);
}

/* The pipeline's results, to the full-screen view or the output: none goes to both. */
static void on_event(void *ctx, const struct pgt_event *ev)
{
	struct tracer *s = ctx;

	if ((!s->tui && !s->print_events) || !filter__event(&s->opts->filter, s->model, ev))
		return;
	/* The full-screen view's pane shows tty changes; the model shows the rest. */
	if (s->tui)
		tui__event(s->tui, ev);
	else
		output__event(s->out, ev);
}

static void on_signal_cause(void *ctx, const struct sig_cause *c)
{
	struct tracer *s = ctx;

	if ((!s->tui && !s->print_events) || !filter__signal(&s->opts->filter, s->model, c))
		return;
	if (s->tui)
		tui__signal(s->tui, c);
	else
		output__signal(s->out, c);
}

static void on_escape(void *ctx, const struct escape *e)
{
	struct tracer *s = ctx;

	if ((!s->tui && !s->print_escapes) || !filter__escape(&s->opts->filter, e))
		return;
	if (s->tui)
		tui__escape(s->tui, e);
	else
		output__escape(s->out, e);
}

/* A login's end, in every mode that writes records; the full-screen view shows the tree. */
static void on_logout(void *ctx, const struct logout *lo)
{
	struct tracer *s = ctx;

	if (s->tui || (!s->print_events && !s->print_escapes) ||
	    !filter__logout(&s->opts->filter, lo))
		return;
	output__logout(s->out, lo);
}

static const struct pipeline_ops to_output = {
	.event = on_event,
	.signal = on_signal_cause,
	.escape = on_escape,
	.logout = on_logout,
};

void session__survivors(struct tracer *s)
{
	__u64 now = clock_ns(CLOCK_BOOTTIME);
	struct mproc *p;

	model__for_each_proc(s->model, p)
		if (!p->zombie && p->ctx.pid != (__u32)s->cmd.pid &&
		    command__born_below(s->child_line, p) &&
		    filter__process(&s->opts->filter, "survivor", p))
			output__survivor(s->out, p, now);
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
		p_err("pid %u was reparented to %u, not %u as predicted; corrected", n->pid,
		      n->actual, n->expected);
		break;
	case NOTE_ZOMBIE_GONE:
		if (s->opts->verbose)
			p_err("zombie %u is gone from /proc before its reap "
			      "record; removed from the model",
			      n->pid);
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

int session__open(struct tracer *s, const struct output_cfg *ocfg)
{
	const struct opts *o = s->opts;

	/* Box-drawing glyphs only where they will render: pstree's rule. */
	setlocale(LC_CTYPE, "");
	s->utf8 = !o->ascii && !o->output && isatty(STDOUT_FILENO) &&
		  !strcmp(nl_langinfo(CODESET), "UTF-8");
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
			.target = o->syslog_target,
			.facility = o->syslog_facility,
			.queue_bytes = o->syslog_queue,
		};

		s->syslog = syslog__open(&scfg);
		if (!s->syslog || output__add_sink(s->out, ocfg, &syslog_sink, s->syslog))
			return -1;
	}
	if (o->explain) {
		s->explain = explain__new(o->explain);
		if (!s->explain || output__add_sink(s->out, ocfg, &explain_sink, s->explain))
			return -1;
	}
	if (o->html) {
		s->page = page__new(o->login);
		if (!s->page || output__add_sink(s->out, ocfg, &page_sink, s->page))
			return -1;
	}
	if (s->full_screen) {
		struct tui_cfg tc = {
			.model = s->model,
			.filter = &o->filter,
			.pid = (__u32)o->pid,
			.kthreads = o->kthreads,
			.ascii = !s->utf8,
			.host = s->host.name,
			.color = output__color(o->color, STDOUT_FILENO),
			.interval_ms = o->interval_set ? o->interval_ms : 200,
			.boot_to_real_ns =
				(__s64)(clock_ns(CLOCK_REALTIME) - clock_ns(CLOCK_BOOTTIME)),
			.utc = o->utc,
		};

		/* It takes the pipeline's results from now; the screen comes once attached. */
		s->tui = tui__open(&tc);
		if (!s->tui)
			return -1;
	}
	output__set_host(s->out, &s->host);
	output__set_model(s->out, s->model);
	model__set_note_fn(s->model, on_note, s);
	if (!o->replay) {
		struct model_io io = {
			.read_stat = procfs__model_stat,
			.read_cgroup = cgroup__read_pcgroup,
			.tick_ns = procfs__tick_ns(),
		};

		model__set_io(s->model, &io);
		model__set_entry_fn(s->model, on_entry, s);
	}
	pipeline__init(&s->pl, s->model, &to_output, s);
	s->pl.logouts.grace_ns = o->logout_grace_ms * 1000000ULL;
	s->in.pl = &s->pl;
	s->in.record = &s->record;
	s->in.record_path = o->record;
	s->in.checkpoint_every = o->checkpoint_every;
	s->in.offline = o->replay != NULL;
	s->in.flush = flush;
	s->in.ctx = s;
	s->pl.skip_type = skip_type();
	s->pl.expect = &s->opts->expected;
	if (s->page) {
		s->pl.observe = page__observe;
		s->pl.observe_ctx = s->page;
	}
	return 0;
}

/* --html: the page, written whole to a new file beside its name, then put in its place. */
static int write_page(struct tracer *s)
{
	const struct opts *o = s->opts;
	char tmp[PATH_MAX];
	FILE *f = NULL;
	int err, fd;

	if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", o->html) >= (int)sizeof(tmp)) {
		err = -ENAMETOOLONG;
		goto out;
	}
	fd = mkostemp(tmp, O_CLOEXEC);
	f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!f) {
		err = -errno;
		if (fd >= 0)
			close(fd);
		goto out;
	}
	err = page__write(s->page, f, &s->host, output__clock(s->out), 0);
	if (fclose(f) && !err)
		err = -(errno ?: EIO);
	if (!err && rename(tmp, o->html))
		err = -errno;
	if (err)
		unlink(tmp);
out:
	if (err == -ESRCH)
		p_err("--login %s: no such login in %s", o->login,
		      o->replay ? "the recording" : "the run");
	else if (err)
		p_err("cannot write %s: %s", o->html, strerror(-err));
	return err;
}

int session__end_report(struct tracer *s, int ret)
{
	const struct opts *o = s->opts;
	int werr;

	session__flush(s);
	werr = output__error(s->out);
	/* The reader of stdout went away (| head): a filter ends quietly. */
	if (werr == -EPIPE && !o->output)
		werr = 0;
	if (werr) {
		p_err("cannot write %s: %s", o->output ?: "output", strerror(-werr));
		ret = 1;
	}
	/* A journal or syslog that failed has said so; the run did not do all it was asked. */
	if (output__sink_error(s->out) || journal__failed(s->journal, NULL))
		ret = 1;
	if (s->explain) {
		FILE *f = o->output ? fopen(o->output, "w") : stdout;
		int err = f ? explain__write(s->explain, f, o->json) : -errno;

		if (err && err != -ESRCH)
			p_err("cannot write %s: %s", o->output ?: "output", strerror(-err));
		if (err)
			ret = 1;
		if (f && f != stdout)
			fclose(f);
	}
	if (s->page && write_page(s))
		ret = 1;
	losses__summary(&s->losses);
	/* A record left out is a partial result: said, and the exit status says it. */
	if (s->in.bad_records) {
		p_err("%llu malformed records skipped", (unsigned long long)s->in.bad_records);
		ret = ret ?: 1;
	}
	return ret;
}

int session__close(struct tracer *s, int ret, const volatile sig_atomic_t *stop)
{
	const struct opts *o = s->opts;
	int werr;

	if (o->record && s->record.f) {
		bool said = s->record.err;

		/* The model as it ends, for --at near the end (not after a failure: it may lag). */
		if (!said && ret == 0)
			said = intake__checkpoint(&s->in) != 0;

		werr = rec__close(&s->record);
		if (werr && !said)
			p_err("cannot write %s: %s", o->record, strerror(-werr));
		if (werr)
			ret = 1;
	}
	command__close(&s->cmd); /* an unreleased command exits 127 */
	if (ret != 0)
		command__reap(&s->cmd, true, stop);
	intake__free(&s->in);
	/*
	 * A trace hands its links to a child that releases them after we exit;
	 * a one-shot look (--snapshot, --fate, --verify alone) releases its
	 * own: it leaves no child behind to be seen adopted.
	 */
	if (s->loader.skel && (o->snapshot || o->fate || (o->verify && !o->cmd)))
		loader__stop(&s->loader);
	else if (s->loader.skel)
		loader__release(&s->loader);
	/* Records an output or the collector never got (counted as the queues drained). */
	if (output__close(s->out) || syslog__lost(s->syslog))
		ret = ret ?: 1;
	free(s->journal);
	syslog__free(s->syslog);
	explain__free(s->explain);
	page__free(s->page);
	if (s->exporter) {
		exporter__stop(s->exporter);
		free(s->exporter);
	}
	tui__free(s->tui);
	model__free(s->model);
	sbuf__free(&s->last_tree);
	pipeline__free(&s->pl);
	lineage__put(s->child_line);
	return ret;
}
