// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "checkpoint.h"
#include "clock.h"
#include "decode.h"
#include "recording.h"
#include "replay.h"
#include "when.h"
#include "msg.h"

/* How often the records' own clock ticks the pipeline, and closes causes. */
#define TICK_NS	    1000000ULL
#define FLUSH_EVERY 4096

/* Write what is due: every record before the first of a signal cause still open. */
static int flush(const struct replay_cfg *cfg)
{
	output__hold(cfg->out, pipeline__hold_point(cfg->pl, output__held(cfg->out)));
	return output__flush(cfg->out);
}

/* Each moment's boot time, once the first record is known: 0, or -1 (said). */
static int moments_of(const struct replay_cfg *cfg, const struct rec_reader *r, __u64 first_ns,
		      __u64 *at)
{
	const char *why;
	unsigned int i;

	for (i = 0; i < cfg->nmoments; i++)
		if (when__parse(cfg->moments[i], first_ns, r->boot_to_real_ns, cfg->utc, &at[i],
				&why)) {
			p_err("bad time '%s': %s", cfg->moments[i], why);
			return -1;
		}
	if (cfg->nmoments == 2 && at[1] < at[0]) {
		p_err("%s is before %s", cfg->moments[1], cfg->moments[0]);
		return -1;
	}
	return 0;
}

/* Whether @buf is a checkpoint's part: passed over, but where a seek starts. */
static bool is_checkpoint(const void *buf, __u32 len)
{
	return len >= sizeof(struct pgt_hdr) &&
	       ((const struct pgt_hdr *)buf)->type == REC_CHECKPOINT;
}

/*
 * The model at checkpoint @i of the index, read on from after it. Returns 0,
 * or -1 (said) when it is damaged or not of this program: the caller then
 * starts from the file's start.
 */
static int load_checkpoint(const struct replay_cfg *cfg, struct rec_reader *r, int i)
{
	void *buf, *blob;
	__u32 len;
	long n;
	int err;

	if (rec__seek(r, i))
		return -1;
	if (rec__next(r, &buf, &len) <= 0 || !is_checkpoint(buf, len)) {
		p_err("%s: checkpoint %d is not where the index says", cfg->path, i + 1);
		return -1;
	}
	n = rec__read_checkpoint(r, buf, len, &blob);
	if (n < 0)
		return -1;
	err = checkpoint__load(cfg->pl->model, blob, (size_t)n);
	free(blob);
	if (err) {
		model__clear(cfg->pl->model);
		p_err("%s: checkpoint %d cannot be read (%s)", cfg->path, i + 1,
		      err == -EINVAL ? "damaged, or of another pgrptrace" : strerror(-err));
		return -1;
	}
	return 0;
}

/*
 * --at and --diff: the first record's time (their offsets count from it),
 * the moments, and the reader put where the replay starts: at the last
 * checkpoint before the first moment, else at the first record. 0 or -1 (said).
 */
static int seek_moments(const struct replay_cfg *cfg, struct rec_reader *r, __u64 *at,
			__u64 *first_ts)
{
	int n, i, best = -1, ret;
	void *buf;
	__u32 len;

	while ((ret = rec__next(r, &buf, &len)) > 0 && is_checkpoint(buf, len))
		;
	if (ret <= 0) {
		if (ret == 0)
			p_err("%s: no records", cfg->path);
		return -1;
	}
	*first_ts = len >= sizeof(struct pgt_hdr) ? ((struct pgt_hdr *)buf)->ts_ns : 0;
	if (moments_of(cfg, r, *first_ts, at))
		return -1;
	n = cfg->from_start ? 0 : rec__read_index(r);
	if (n < 0)
		return -1;
	for (i = 0; i < n; i++)
		if (r->index[i].max_ts <= at[0])
			best = i;
	if (best >= 0 && !load_checkpoint(cfg, r, best)) {
		if (cfg->verbose)
			p_err("starting from checkpoint %d of %d, taken %.3f s after the first record "
			      "(record %llu)",
			      best + 1, n, (double)((__s64)(r->index[best].ts - *first_ts)) / 1e9,
			      (unsigned long long)r->index[best].count);
		return 0;
	}
	if (cfg->verbose)
		p_err("starting from the first record%s",
		      n ? "" : (r->version < 3 ? " (a recording without checkpoints)" : ""));
	return rec__seek(r, -1);
}

int replay__run(const struct replay_cfg *cfg)
{
	__u64 last_ts = 0, ticked = 0, t0 = clock_ns(CLOCK_MONOTONIC), dt, first_ts = 0;
	__u64 at[REPLAY_MOMENTS] = {};
	unsigned int next = 0; /* the next moment to reach */
	struct rec_reader r;
	void *buf;
	__u32 len;
	int ret;

	if (rec__open(&r, cfg->path)) {
		rec__free(&r);
		return -1;
	}
	host__set(cfg->host, r.host_name, r.machine_id, r.boot_id);
	output__set_host(cfg->out, cfg->host);
	output__set_clock(cfg->out, r.boot_to_real_ns);
	if (cfg->record_path) {
		ret = rec__create(cfg->record, cfg->record_path, cfg->host, r.boot_to_real_ns);
		if (ret) {
			p_err("cannot create %s: %s", cfg->record_path, strerror(-ret));
			rec__free(&r);
			return -1;
		}
	}
	if (!cfg->nmoments || cfg->records_too) /* --at and --diff draw the model, not records */
		output__start(cfg->out);
	if (cfg->nmoments && seek_moments(cfg, &r, at, &first_ts)) {
		rec__free(&r);
		return -1;
	}
	while ((ret = rec__next(&r, &buf, &len)) > 0) {
		if (is_checkpoint(buf, len))
			continue;
		if (len >= sizeof(struct pgt_hdr))
			last_ts = ((struct pgt_hdr *)buf)->ts_ns;
		first_ts = first_ts ?: last_ts;
		/* The model as it was at each moment: before the first record after it. */
		while (next < cfg->nmoments && last_ts > at[next]) {
			cfg->on_moment(cfg->moment_ctx, next, at[next], r.boot_to_real_ns);
			next++;
		}
		if (cfg->nmoments && next == cfg->nmoments && !cfg->run_on) {
			ret = 0;
			break; /* past the last moment */
		}
		if (next && cfg->peek)
			cfg->peek(cfg->moment_ctx, buf, len);
		cfg->on_record(cfg->ctx, buf, len);
		/*
		 * Held escapes and logout reports fall due by the records' clock,
		 * as they would live, after the signal causes complete by then.
		 */
		if (last_ts > ticked + TICK_NS) {
			pipeline__close_causes(cfg->pl, last_ts);
			pipeline__tick(cfg->pl, last_ts);
			ticked = last_ts;
		}
		if (!(r.count % FLUSH_EVERY)) {
			pipeline__close_causes(cfg->pl, last_ts);
			if (flush(cfg)) {
				ret = -1;
				break;
			}
		}
	}
	if (ret == 0 && next < cfg->nmoments) {
		p_err("%s: after the recording's last record (%.3f s after its first)",
		      cfg->moments[next], (double)(last_ts - first_ts) / 1e9);
		ret = -1;
	}
	pipeline__finish(cfg->pl);
	flush(cfg);
	if (r.damaged) {
		p_err("%s: %llu damaged records skipped", cfg->path, (unsigned long long)r.damaged);
		ret = -1;
	}
	dt = clock_ns(CLOCK_MONOTONIC) - t0;
	if (cfg->verbose)
		p_err("replayed %llu records in %llu us (%llu records/s)",
		      (unsigned long long)r.count, (unsigned long long)dt / 1000,
		      (unsigned long long)(dt ? r.count * 1000000000ULL / dt : 0));
	rec__free(&r);
	return ret;
}
