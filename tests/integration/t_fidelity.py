#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Randomized fidelity: fork, double fork, setsid, setpgid, subreaper, reap and
exit at random under `pgrptrace --verify`; at every quiet point the model must
equal /proc for every process on the machine. 50 seeds."""
import os
import re

from harness import Tap, check_nothing_left, run_tracer

t = Tap()
FIDELITY = os.environ.get("FIDELITY", os.path.abspath(".output/tests/fidelity"))
SEEDS = int(os.environ.get("FIDELITY_SEEDS", "50"))
STEPS = 40


def summaries(run):
    return [(int(a), int(b)) for a, b in
            re.findall(r"^verify: (\d+) processes, (\d+) differences$", run.out, re.M)]


r = run_tracer(["--verify", "--", FIDELITY, "1", str(SEEDS), str(STEPS)], timeout=900)
s = summaries(r)
expected_points = SEEDS * (STEPS // 8 + 1) + 1   # quiet points, plus the final check
lost = [l for l in r.out.splitlines() if " lost " in l]
if lost:
    t.diag("losses during the run (resynced): %s" % lost[:3])
if not t.eq(r.rc, 0, "fidelity: tracer and generator exit 0"):
    t.diag(r.err[-1500:])
t.eq(len(s), expected_points, "fidelity: every quiet point was checked")
t.ok(all(n > 10 for n, _ in s), "fidelity: whole machine compared each time")
bad = [l for l in r.out.splitlines() if l.startswith("verify: pid")]
if not t.eq(bad[:10], [], "fidelity: model equals /proc at every quiet point, %d seeds" % SEEDS):
    t.diag("\n".join(l for l in r.err.splitlines() if l.startswith("fidelity: seed")))
t.eq(sum(d for _, d in s), 0, "fidelity: zero differences in total")
t.diag("%d quiet points, %d process comparisons" % (len(s), sum(n for n, _ in s)))

# The check can fail: with reparent events kept out of the model, it must.
r = run_tracer(["--verify", "--", FIDELITY, "7", "2", str(STEPS)], timeout=300,
               env={"PGRPTRACE_TEST_SKIP": "reparent"})
s = summaries(r)
t.ok(sum(d for _, d in s) > 0, "fidelity: a model without reparents is caught",
     s, "some differences")
t.ok(any("ppid" in l for l in r.out.splitlines()), "fidelity: the difference is a ppid")
t.eq(r.rc, 125, "fidelity: --verify with a command exits 125 on differences")
# The answer to a quiet point carries the count: the generator names the
# seed and step of each that differed, as the tracer counted them.
said = [int(n) for n in re.findall(r"^fidelity: seed [78], step \d+: (\d+) differences$",
                                    r.err, re.M)]
t.eq(sum(said), sum(d for _, d in s),
     "fidelity: the generator names the seed and step of every difference")

check_nothing_left(t, "fidelity")
t.done()
