// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdio.h>
#include <time.h>
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
	if (!cfg->nmoments) /* --at and --diff draw the model, not records */
		output__start(cfg->out);
	while ((ret = rec__next(&r, &buf, &len)) > 0) {
		if (len >= sizeof(struct pgt_hdr))
			last_ts = ((struct pgt_hdr *)buf)->ts_ns;
		if (!first_ts && cfg->nmoments && moments_of(cfg, &r, last_ts, at)) {
			ret = -1;
			break;
		}
		first_ts = first_ts ?: last_ts;
		/* The model as it was at each moment: before the first record after it. */
		while (next < cfg->nmoments && last_ts > at[next]) {
			cfg->on_moment(cfg->moment_ctx, next, at[next], r.boot_to_real_ns);
			next++;
		}
		if (cfg->nmoments && next == cfg->nmoments) {
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
