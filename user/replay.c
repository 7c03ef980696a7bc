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

int replay__run(const struct replay_cfg *cfg)
{
	__u64 last_ts = 0, ticked = 0, t0 = clock_ns(CLOCK_MONOTONIC), dt, at_ns = 0;
	const char *why = NULL;
	bool reached = false;
	__u64 first_ts = 0;
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
	if (!cfg->at) /* --at draws a tree, not records */
		output__start(cfg->out);
	while ((ret = rec__next(&r, &buf, &len)) > 0) {
		if (len >= sizeof(struct pgt_hdr))
			last_ts = ((struct pgt_hdr *)buf)->ts_ns;
		first_ts = first_ts ?: last_ts;
		if (cfg->at && !at_ns &&
		    when__parse(cfg->at, last_ts, r.boot_to_real_ns, cfg->utc, &at_ns, &why)) {
			p_err("bad --at '%s': %s", cfg->at, why);
			ret = -1;
			break;
		}
		if (cfg->at && at_ns && last_ts > at_ns) {
			reached = true;
			ret = 0;
			break; /* the model is as it was at TIME */
		}
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
	if (cfg->at && ret == 0 && !reached) {
		p_err("--at %s: after the recording's last record (%.3f s after its first)",
		      cfg->at, (double)(last_ts - first_ts) / 1e9);
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
