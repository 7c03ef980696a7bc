#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""--contain (issue 34, item 2): a command that leaves a setsid -f daemon, a
double fork, a process in another cgroup, one that keeps making new
sessions and groups, and a forker that spawns every 10 ms and execs itself;
once it exits, pgrptrace ends all of them, whatever they became, and exits
with the command's status. Checked from the kernel's own records: no process
any fork record names is alive afterwards (by pid and start time), and a
decoy started outside the command is untouched. A fork bomb (nobody's,
RLIMIT_NPROC 60) left running by its command is ended too."""
import os
import shlex
import sys

from harness import PGRPTRACE, Proc, Tap, check_nothing_left, run_tracer, wait_until

t = Tap()
here = os.path.dirname(os.path.abspath(__file__))
TICK_NS = 10**9 // os.sysconf("SC_CLK_TCK")


def start_ticks(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            rest = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return None if rest[0] in "ZX" else int(rest[19])


def cmdline(pid):
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            return f.read()
    except OSError:
        return None


decoy = Proc(["sleep", "300"], what="decoy")
wait_until(lambda: start_ticks(decoy.pid) is not None, "decoy started")
decoy_ticks = start_ticks(decoy.pid)
r = run_tracer(["--contain", "--contain-grace", "0.5", "--json", "--", sys.executable,
                os.path.join(here, "contain_cases.py")], timeout=120)
if not t.eq(r.rc, 7, "contain: pgrptrace exits with the command's status"):
    t.diag(r.err[-1500:])
t.eq(r.fact("stall"), [], "contain: every escaper ran before the command exited")
started = {f["case"]: f["pid"] for f in r.fact("started")}
t.eq(sorted(started), ["cgroup_mover", "daemon", "double_fork", "forker", "hopper"],
     "contain: the escapers the command started")
born = {(e["child"]["pid"], e["child"]["start_ns"] // TICK_NS) for e in r.of("fork")}
t.ok(len(born) >= 20, "contain: the forks of the run are in its records", len(born))
alive = sorted(p for p, ticks in born if start_ticks(p) == ticks)
t.eq(alive, [], "contain: no process the command's tree forked is alive afterwards")
t.eq(start_ticks(decoy.pid), decoy_ticks, "contain: the decoy outside the command is untouched")
said = [ln for ln in r.err.splitlines() if "contain: " in ln]
t.ok(any("left its session" in ln for ln in said),
     "contain: the report says how a process had escaped", said[:5])
t.ok(any("processes ended in" in ln for ln in said), "contain: the report's total", said[-3:])
killed = [e for e in r.of("exit") if e["exit"]["signal"] in ("SIGTERM", "SIGKILL") and
          (e["exit"]["cause"]["sender"] or {}).get("comm") == "pgrptrace"]
t.ok(killed, "contain: the exits name pgrptrace as their sender", len(killed))
for f in r.fact("cgroup"):
    try:
        os.rmdir(f["path"])
    except OSError:
        pass
decoy.p.kill()
decoy.finish(10)

# A fork bomb, as nobody with RLIMIT_NPROC at 60 (root is not limited), in
# a private pid namespace whose init outlives the command (it left with
# setsid -f): ended, whatever it forks meanwhile, the namespace's init too
# (SIGTERM does not reach an init without a handler; SIGKILL does), within
# the bound this test gives it (60 s; the report says how long it took).
INNER = ("setpriv --reuid=65534 --regid=65534 --clear-groups bash -c "
         "'ulimit -u 60; f() { f | f & }; f' 2>/dev/null & exec sleep 3017")
BOMB = "setsid -f unshare --pid --fork sh -c %s; sleep 1; exit 5" % shlex.quote(INNER)
r = run_tracer(["--contain", "--contain-grace", "0.2", "--event", "exec", "--", "sh", "-c", BOMB],
               timeout=60 * int(os.environ.get("PGT_TIME_SCALE", "1")))
t.eq(r.rc, 5, "fork bomb: contained, and the command's status")
took = [ln for ln in r.err.splitlines() if "processes ended in" in ln]
t.ok(took, "fork bomb: the report says how long the cleanup took", r.err[-500:])
t.diag("fork bomb: %s" % (took[-1] if took else "no report"))
left = []
for d in os.listdir("/proc"):
    try:
        with open("/proc/%s/status" % d) as f:
            st = f.read()
    except OSError:
        continue
    if "\nUid:\t65534\t" in st and "\nName:\tbash\n" in st and "\nState:\tZ" not in st:
        left.append(int(d))
t.eq(left, [], "fork bomb: no bash of nobody's is left")
init_left = []
for d in os.listdir("/proc"):
    try:
        with open("/proc/%s/cmdline" % d, "rb") as f:
            if f.read() == b"sleep\x003017\x00":
                init_left.append(int(d))
    except OSError:
        pass
t.eq(init_left, [], "fork bomb: its pid namespace's init is gone too")
t.ok(any("processes ended in" in ln for ln in r.err.splitlines()) and
     any("SIGKILL to" in ln and " sleep" in ln for ln in r.err.splitlines()),
     "fork bomb: the namespace's init was ended by SIGKILL", r.err[-300:])

# A decoy that takes a target's pid between the walk and the signal (the
# walk paused by a testing aid; the pid forced with ns_last_pid): its start
# differs, and the start check spares it.
pause = "/tmp/pgt-contain-pause-%d" % os.getpid()
tr = Proc([PGRPTRACE, "--contain", "--contain-grace", "0.2", "--event", "exec", "--",
           "sh", "-c", "sleep 3018 & until pgrep -fx 'sleep 3018' >/dev/null; do sleep 0.01; "
           "done; exit 9"], what="contain, paused",
          env=dict(os.environ, PGRPTRACE_TEST_CONTAIN_PAUSE=pause))
decoy = None
if wait_until(lambda: os.path.exists(pause) or tr.p.poll() is not None, "contain paused") \
        and os.path.exists(pause):
    with open(pause) as f:
        walked = [tuple(map(int, ln.split())) for ln in f]
    target = [p for p, ticks in walked if cmdline(p) == b"sleep\x003018\x00"]
    if t.ok(target, "decoy: the walk found the command's sleep", walked):
        os.kill(target[0], 9)
        wait_until(lambda: not os.path.exists("/proc/%d" % target[0]), "the target reaped")
        for _ in range(50):
            with open("/proc/sys/kernel/ns_last_pid", "w") as f:
                f.write(str(target[0] - 1))
            pid = os.fork()
            if pid == 0:
                os.execvp("sleep", ["sleep", "3019"])
            if pid == target[0]:
                decoy = pid
                break
            os.kill(pid, 9)
            os.waitpid(pid, 0)
    if decoy:
        wait_until(lambda: cmdline(decoy) == b"sleep\x003019\x00", "the decoy runs")
        decoy_ticks = start_ticks(decoy)
    open(pause + ".go", "w").close()
rc, out, err = tr.finish(60)
if decoy:
    t.eq(rc, 9, "decoy: contained, and the command's status")
    t.eq(start_ticks(decoy), decoy_ticks,
         "decoy: the process that reused the target's pid is untouched")
    t.ok("to %d " % decoy not in err, "decoy: nothing was sent to its pid", err[-300:])
    os.kill(decoy, 9)
    os.waitpid(decoy, 0)
elif os.path.exists(pause):
    t.skip("decoy: untouched", "its pid went to another process 50 times")
for f in (pause, pause + ".go"):
    if os.path.exists(f):
        os.unlink(f)

# Refused where it cannot work.
for args, why in ((["--contain"], "no command"),
                  (["--contain", "--replay", "/dev/null", "--", "true"], "a replay"),
                  (["--contain-grace", "1", "--", "true"], "--contain-grace alone")):
    rr = run_tracer(args)
    t.eq(rr.rc, 125 if "--" in args else 2, "contain: refused with %s" % why)
check_nothing_left(t, "contain")
t.done()
