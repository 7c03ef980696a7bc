#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""The harness's own promise: a test cannot hang. A workload that escapes
into a session of its own, keeps the tracer's pipes and never exits is cut
off at the bound, reported with what was alive, and leaves nothing behind;
the same through the environment-tag fallback when there is no cgroup2; and
a test file that outlives its pass's budget is stopped by tests/run-test,
which names it."""
import os
import sys
import tempfile
import time

import harness
from harness import Tap, check_nothing_left, run, run_tracer, workload

t = Tap()
here = os.path.dirname(os.path.abspath(__file__))


def gone(pid):
    """True once @pid is neither running nor an unreaped zombie of ours."""
    harness.reap_orphans()
    return not os.path.exists("/proc/%d" % pid)


# A workload that hangs under the tracer, holding its stdout and stderr from
# another session: the harness returns, says so, and kills it.
r = run_tracer(["--json", "--"] + workload("hang"), timeout=3, expect_hang=True)
f = r.fact("hang")
t.ok(r.timed_out, "hang: the harness stopped waiting at its bound")
if t.ok(f, "hang: the escaped child ran", r.err[-300:]):
    pid = f[0]["pid"]
    t.ok("workload hang" in r.hung, "hang: the report names the workload", r.hung)
    t.ok(("%d workload" % pid) in r.hung, "hang: the report names the escaped child alive",
         r.hung)
    t.ok("[harness: " in r.err, "hang: stderr says what the harness did", r.err[-300:])
    t.ok(gone(pid), "hang: the escaped child is dead and reaped")
t.eq(harness._boxes, [], "hang: no box left open")
check_nothing_left(t, "hang")

# The same without a cgroup: the box finds its processes by their environment.
home = harness._cgroup2_home
harness._cgroup2_home = lambda: None
try:
    r = run(["sh", "-c", "setsid sh -c 'echo $$; exec sleep 1000' & wait"], timeout=2,
            expect_hang=True)
finally:
    harness._cgroup2_home = home
pid = int(r.stdout.split()[0]) if r.stdout.split() else 0
t.ok(r.timed_out and pid, "no cgroup: the hang is noticed", (r.timed_out, r.stdout))
t.ok(pid and gone(pid), "no cgroup: the escaped sleep is dead", r.hung)

# A test file that outlives its pass's budget: run-test kills it and what it
# started, and bails out naming it.
with tempfile.NamedTemporaryFile("w", suffix=".py", prefix="t_hangs_", delete=False) as fh:
    fh.write("import os, sys, time\n"
             "print('ok 1 - started', flush=True)\n"
             "if os.fork() == 0:\n"
             "    os.setsid()\n"
             "    open(sys.argv[0] + '.pid', 'w').write(str(os.getpid()))\n"
             "    os.execlp('sleep', 'sleep', '1000')\n"
             "os.wait()\n")
    hang_test = fh.name
env = dict(os.environ, PGT_DEADLINE=str(time.time() + 3), PGT_BUDGET="3", PGT_PASS="selftest")
r = run([os.path.join(os.path.dirname(here), "run-test"), hang_test], env=env, timeout=30)
lines = r.stdout.splitlines()
t.eq(r.returncode, 1, "budget: run-test fails the file")
t.ok(any(l.startswith("Bail out!") and os.path.basename(hang_test) in l for l in lines),
     "budget: prove is told to stop, with the file's name", lines[-3:])
t.ok(any("sleep" in l and l.startswith("# ") for l in lines),
     "budget: what was alive is listed", lines[-3:])
try:
    with open(hang_test + ".pid") as fh:
        pid = int(fh.read())
except (OSError, ValueError):
    pid = 0
t.ok(pid and gone(pid), "budget: the test's escaped child is dead", pid)
# Exit statuses are the commands' own, even while orphans are being reaped:
# a command that exits 3 beside a reaped orphan, and one killed at its bound.
slow = harness.Proc(["sh", "-c", "read x; exit 3"], stdin=harness.subprocess.PIPE)
r = run(["sh", "-c", "sh -c 'exit 0' & exit 0"])     # leaves an orphan to reap
harness.reap_orphans()
rc, _, _ = slow.finish(input="go\n")
t.eq(rc, 3, "status: a command's exit status survives the reaping of orphans")
r = run(["sleep", "1000"], timeout=1, expect_hang=True)
t.eq(r.returncode, -9, "status: a command killed at its bound reports SIGKILL")

# timeout(1)'s SIGTERM to run-test: the test and what it started are killed.
env = dict(os.environ, PGT_DEADLINE=str(time.time() + 300), PGT_BUDGET="300",
           PGT_PASS="selftest")
for p in (hang_test + ".pid",):
    if os.path.exists(p):
        os.unlink(p)
rt = harness.Proc([os.path.join(os.path.dirname(here), "run-test"), hang_test], env=env)
harness.wait_until(lambda: os.path.exists(hang_test + ".pid") and
                   os.path.getsize(hang_test + ".pid") > 0, "sigterm: the test started")
try:
    with open(hang_test + ".pid") as fh:
        pid = int(fh.read())
except (OSError, ValueError):
    pid = 0
rt.p.send_signal(harness.signal.SIGTERM)
try:
    rc = rt.p.wait(30)
except harness.subprocess.TimeoutExpired:
    rc = None
t.eq(rc, 128 + harness.signal.SIGTERM, "sigterm: run-test exits as told")
t.ok(pid and harness.wait_until(lambda: gone(pid), "sigterm: the escaped child killed", 10),
     "sigterm: run-test killed the test's escaped child on its way out", pid)
rt.finish()

# A budget already spent: the file does not even start.
env["PGT_DEADLINE"] = str(time.time() - 1)
r = run([os.path.join(os.path.dirname(here), "run-test"), hang_test], env=env, timeout=30)
t.ok(r.returncode == 1 and r.stdout.startswith("Bail out!"),
     "budget: a spent budget bails out before the next file", r.stdout)
for p in (hang_test, hang_test + ".pid"):
    if os.path.exists(p):
        os.unlink(p)
sys.stdout.flush()
t.done()
