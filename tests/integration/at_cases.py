#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""The tree at moments of a recording (issue 35), run as pgrptrace's command.

Step by step, each change waited for in /proc: a child; a child in a new
session; a child moved to a group of its own; a double fork (the grandchild
comes back to this subreaper); a child killed and reaped; a child whose
child execs; churn (400 short children); a child's pid reused by another (forced with ns_last_pid). After each step, at a quiet point (nothing of ours changes
until the next step), the processes below this one as /proc shows them
(pid, ppid, pgid, sid) and the real time go to $PGT_FACTS."""
import ctypes
import json
import os
import signal
import subprocess
import sys
import time

ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)     # orphans come back to us
facts = open(os.environ.get("PGT_FACTS", os.devnull), "a")
SCALE = int(os.environ.get("PGT_TIME_SCALE", "1"))
N = 7400 * SCALE


def stats():
    out = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                rest = f.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        out[int(d)] = (rest[0], int(rest[1]), int(rest[2]), int(rest[3]))
    return out


def below():
    """Our descendants alive: {pid: [ppid, pgid, sid]}."""
    st, mine, todo = stats(), {}, [os.getpid()]
    while todo:
        p = todo.pop()
        for q, (state, ppid, pgid, sid) in st.items():
            if ppid == p and state not in "ZX" and q not in mine:
                mine[q] = [ppid, pgid, sid]
                todo.append(q)
    return mine


def wait_for(cond, what):
    end = time.monotonic() + 20 * SCALE
    while time.monotonic() < end:
        if cond():
            return
        time.sleep(0.005)
    raise SystemExit("at_cases: %s: not within %d s" % (what, 20 * SCALE))


def runs(pid, comm):
    try:
        with open("/proc/%d/comm" % pid) as f:
            return f.read().strip() == comm
    except OSError:
        return False


def quiet(step):
    """A quiet point: the tree now, then the time (nothing changes until the next step)."""
    procs = below()
    fact(step=step, procs=procs, real_ns=time.time_ns())


def fact(**kw):
    kw["what"] = "at"
    facts.write(json.dumps(kw) + "\n")
    facts.flush()


kids = []
try:
    kids.append(subprocess.Popen(["sleep", str(N)]))
    wait_for(lambda: runs(kids[-1].pid, "sleep"), "a child")
    quiet("child")
    kids.append(subprocess.Popen(["sleep", str(N + 1)], start_new_session=True))
    wait_for(lambda: runs(kids[-1].pid, "sleep"), "a child in a new session")
    quiet("setsid")
    kids.append(subprocess.Popen(["sleep", str(N + 2)], process_group=0))
    wait_for(lambda: runs(kids[-1].pid, "sleep"), "a child in a group of its own")
    quiet("setpgid")
    subprocess.run(["sh", "-c", "sleep %d & exit 0" % (N + 3)], check=True)
    wait_for(lambda: any(runs(p, "sleep") and v[0] == os.getpid()
                         for p, v in below().items() if p not in [k.pid for k in kids]),
             "a double fork's grandchild, reparented to us")
    # The grandchild is reparented to us: reap nothing else meanwhile.
    quiet("double_fork")
    kids[0].kill()
    kids[0].wait()
    quiet("killed")
    # Churn: short-lived children, whose records (some hundred kilobytes)
    # put the recording's checkpoints between this step's moments.
    for _ in range(400):
        subprocess.run(["true"], check=True)
    quiet("churn")
    kids.append(subprocess.Popen(["sh", "-c", "sleep %d; true" % (N + 4)]))
    wait_for(lambda: any(runs(p, "sleep") and v[0] == kids[-1].pid
                         for p, v in below().items()), "a child's child")
    quiet("grandchild")
    # A pid reused: a child killed and reaped, its pid given to a new child
    # (forced with ns_last_pid; another process of the machine may take it
    # first: tried again, and said if never).
    kids.append(subprocess.Popen(["sleep", str(N + 5)]))
    wait_for(lambda: runs(kids[-1].pid, "sleep"), "the child whose pid is reused")
    quiet("before_reuse")
    pid = kids[-1].pid
    kids[-1].kill()
    kids[-1].wait()
    for _ in range(50):
        with open("/proc/sys/kernel/ns_last_pid", "w") as f:
            f.write(str(pid - 1))
        c = subprocess.Popen(["sleep", str(N + 6)])
        if c.pid == pid:
            kids.append(c)
            wait_for(lambda: runs(pid, "sleep"), "the child with the reused pid")
            quiet("reused")
            break
        c.kill()
        c.wait()
    else:
        fact(step="no_reuse", procs={}, real_ns=0)
finally:
    for p in below():
        try:
            os.kill(p, signal.SIGKILL)
        except OSError:
            pass
    while True:
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            break
