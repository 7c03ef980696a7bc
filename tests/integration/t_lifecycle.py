#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""fork, exec and exit under the real tracer: exit codes, fatal signals with
and without core dumps, threads, exec from a non-leader thread, command-mode
exit status, and the tracer never reporting itself."""
import json
import os
import signal
import subprocess
import tempfile

import harness
from harness import (Proc, Run, Tap, Tracer, check_nothing_left, exit_record, run_tracer,
                     wait_until, workload)

t = Tap()


def wait_status(st):
    """(code, signal name, core) as wait(2) status says."""
    if os.WIFEXITED(st):
        return (os.WEXITSTATUS(st), None, False)
    return (None, signal.Signals(os.WTERMSIG(st)).name, os.WCOREDUMP(st))


def exit_of(run, pid):
    ex = run.of("exit", pid)
    if len(ex) != 1:
        return None
    x = ex[0]["exit"]
    return (x["code"], x["signal"], x["core"])


# An exec path longer than the record holds: cut at 255 bytes, and said
# (issue 14, item 10); a short one is whole.
with tempfile.TemporaryDirectory(prefix="pgt-long-") as top:
    deep = os.path.join(top, "a" * 200, "b" * 90)
    os.makedirs(deep)
    longpath = os.path.join(deep, "true")
    os.symlink("/bin/true", longpath)
    r = run_tracer(["--json", "--", "sh", "-c", '"$0"; /bin/true', longpath])
execs = {e["filename"]: e["filename_truncated"] for e in r.of("exec")}
t.ok(execs.get(longpath[:255]) is True, "long exec path: filename_truncated", execs)
t.eq(execs.get("/bin/true"), False, "short exec path: not truncated")

# Exit codes and fatal signals, compared with what waitpid() saw.
with tempfile.TemporaryDirectory() as cores:   # core files land in the cwd
    r = run_tracer(["--json", "--"] + workload("signals"), cwd=cores)
t.eq(r.rc, 0, "signals: tracer exits with the command's status 0")
t.eq(r.bad_lines, [], "signals: every line is valid JSON")
dumped = False
for f in r.fact("signal") + r.fact("code"):
    want = wait_status(f["status"])
    dumped |= want[2]
    t.eq(exit_of(r, f["pid"]), want, "signals: exit of pid %d matches waitpid" % f["pid"])
t.ok(any(r.fact("signal")), "signals: the workload reported its children")
if not dumped:
    t.diag("no core was dumped (core_pattern %r)" %
           open("/proc/sys/kernel/core_pattern").read().strip())
t.ok(dumped, "signals: a core-dumping signal was seen with core=true")
for f in r.fact("signal") + r.fact("code"):
    forks = [e for e in r.of("fork") if e["child"]["pid"] == f["pid"]]
    t.eq(len(forks), 1, "signals: one fork event for child %d" % f["pid"])

# Command mode: exit code, and 128+N for a signal.
r = run_tracer(["--json", "--"] + workload("exit", 7))
t.eq(r.rc, 7, "command mode: exit status 7 is passed through")
execs = r.of("exec")
t.eq(len(execs), 1, "command mode: one exec event")
if execs:
    t.eq(execs[0]["filename"], workload()[0], "command mode: exec filename")
    t.ok("old_tid" not in execs[0], "command mode: no old_tid for a leader exec")
    t.eq(exit_of(r, execs[0]["process"]["pid"]), (7, None, False), "command mode: exit code 7")
r = run_tracer(["--json", "--"] + workload("raise", int(signal.SIGTERM)))
t.eq(r.rc, 128 + signal.SIGTERM, "command mode: killed by SIGTERM gives 143")
# pgrptrace's own failure is 125 (timeout(1)'s and env(1)'s), never a status
# the command could have given; the command's 1 and 127 stay the command's.
mark = tempfile.mktemp(prefix="pgt-ran-")
for args, cmd, want, what in (
        (["--bogus"], ["touch", mark], 125, "a usage error"),
        (["-o", "/nonexistent/dir/trace"], ["touch", mark], 125, "an -o it cannot open"),
        (["--expected", "/nonexistent"], ["touch", mark], 125, "an --expected it cannot read"),
        (["--json"], ["sh", "-c", "exit 1"], 1, "the command's exit 1"),
        (["--json"], ["/nonexistent/cmd"], 127, "a command not found")):
    r = run_tracer(args + ["--"] + cmd)
    t.eq(r.rc, want, "command mode: %s exits %d" % (what, want))
    if want == 125:
        t.ok(not os.path.exists(mark), "command mode: %s: the command did not run" % what)
        t.ok(r.err.strip(), "command mode: %s: says why" % what)

# The leader thread exits first: one process exit, at the last thread.
r = run_tracer(["--json", "--"] + workload("threads"))
facts = r.fact("threads")
last = r.fact("last_thread")
if t.ok(facts and last, "threads: workload ran"):
    pid = facts[0]["pid"]
    exits = r.of("exit", pid)
    t.eq(len(exits), 1, "threads: exactly one exit for the process")
    if exits:
        t.eq(exits[0]["process"]["tid"], last[0]["tid"], "threads: exit reported by the last thread")
        t.eq(exit_of(r, pid), (9, None, False), "threads: exit code of exit(9) in the last thread")
    t.eq(r.of("fork", pid), [], "threads: thread creation is not reported as fork")
t.eq(r.rc, 9, "threads: command status 9")

# exec from a non-leader thread: the kernel gives it the leader's tid.
r = run_tracer(["--json", "--"] + workload("thread_exec"))
f = r.fact("thread_exec")
if t.ok(f, "thread exec: workload ran"):
    pid, tid = f[0]["pid"], f[0]["tid"]
    execs = [e for e in r.of("exec", pid) if e.get("old_tid")]
    t.eq(len(execs), 1, "thread exec: one exec with old_tid")
    if execs:
        t.eq(execs[0]["old_tid"], tid, "thread exec: old_tid is the exec'ing thread")
        t.eq(execs[0]["process"]["tid"], pid, "thread exec: tid is now the tgid")
    t.eq(exit_of(r, pid), (4, None, False), "thread exec: the new image exits 4")
t.eq(r.rc, 4, "thread exec: command status 4")

# The tracer never reports itself. With -a it traces the whole machine, and
# it forks the command itself: that fork must not appear.
r = run_tracer(["--json", "-a", "--"] + workload("exit", 0))
mine = [e for e in r.of("exec") if e["filename"] == workload()[0]]
if t.ok(len(mine) == 1, "self: the command's exec is reported with -a", len(mine), 1):
    tracer = mine[0]["process"]["ppid"]
    own = [e["event"] for e in r.events if (e.get("process") or {}).get("pid") == tracer]
    t.eq(own, [], "self: no event from the tracer (pid %d)" % tracer)

# -p PID follows an existing process and its descendants only; a process
# started outside the subtree meanwhile is not reported.
# Both wait on stdin until the tracer is attached.
child = Proc(["sh", "-c", "read go; %s exit 5; %s exit 6" % (workload()[0], workload()[0])],
             stdin=subprocess.PIPE, stdout=None, stderr=None)
outsider = Proc(["sh", "-c", "read go; exec %s exit 77" % workload()[0]],
                stdin=subprocess.PIPE, stdout=None, stderr=None)
tr = Tracer(["--json", "-p", str(child.pid)])
tr.ready()
outsider.finish(30, input="go\n")
child.finish(30, input="go\n")
tr.seen(exit_record(child.pid))        # the outsider's exit came before it
rc, out, err = tr.stop(signal.SIGINT)
r = Run(rc, out, err, [])
codes = sorted({e["exit"]["code"] for e in r.of("exit")} - {0, None})
t.eq(codes, [5, 6], "-p: exits of the descendants seen, the outsider's not")
subtree = {child.pid}
stray = []
for e in r.events:
    p = e.get("process")
    if p["pid"] in subtree or p["ppid"] in subtree:
        subtree.add(p["pid"])
        if e["event"] == "fork":
            subtree.add(e["child"]["pid"])
    else:
        stray.append(p)
t.eq(stray, [], "-p: every event comes from the subtree")
t.eq(r.rc, 0, "-p: exit 0 after SIGINT")

# Born in another cgroup (clone3's CLONE_INTO_CGROUP, as crun can start
# a container): the child's cgroup is its own, not its forker's.
home = harness._cgroup2_home()
if not home:
    t.skip("clone3 into a cgroup", "no writable cgroup2 here")
else:
    into = os.path.join(home, "pgt-into-%d" % os.getpid())
    os.mkdir(into)
    facts = os.path.join(tempfile.gettempdir(), "pgt-into-%d.facts" % os.getpid())
    tr = Tracer(["--json", "--"] + workload("into_cgroup", into),
                env=dict(os.environ, PGT_FACTS=facts))
    child, path = None, None
    if tr.ready() and wait_until(lambda: os.path.exists(facts) and
                                 "into_cgroup" in open(facts).read(), "the clone3 fact"):
        child = json.loads(open(facts).read().splitlines()[0])["into_cgroup"]
    if t.ok(child, "clone3: a child born into the cgroup", open(facts).read()
            if os.path.exists(facts) else None):
        with open("/proc/%d/cgroup" % child) as f:
            path = [l.strip()[3:] for l in f if l.startswith("0::")]
        tr.seen('"child":{"pid":%d,' % child)
        os.kill(child, signal.SIGKILL)
    rc, out, err = tr.stop()
    forks = [json.loads(l)["child"] for l in out.splitlines()
             if child and '"child":{"pid":%d,' % child in l]
    if child:
        t.eq([(f.get("cgroup") or {}).get("path") for f in forks], path,
             "clone3: the fork record's child is in the cgroup it was born into")
    wait_until(lambda: not child or not os.path.exists("/proc/%d" % child), "its end")
    os.rmdir(into)
    if os.path.exists(facts):
        os.unlink(facts)

check_nothing_left(t, "lifecycle")
t.done()
