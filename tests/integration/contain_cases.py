#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Processes that try to outlive their command (issue 34): run as the command
of `pgrptrace --contain --json`. It starts a setsid -f daemon, a double fork,
a process that moves itself to another cgroup, one that keeps handing over
to a child in a new session and group, and a forker that spawns every 10 ms
and execs itself;
waits (bounded) until each runs; then exits 7. Facts go to $PGT_FACTS:
{"what": "started", "case", "pid"} and {"what": "cgroup", "path"} for the
test to remove."""
import json
import os
import subprocess
import sys
import time

facts = open(os.environ.get("PGT_FACTS", os.devnull), "a")
SCALE = int(os.environ.get("PGT_TIME_SCALE", "1"))


def fact(**kw):
    facts.write(json.dumps(kw) + "\n")
    facts.flush()


def running(pattern):
    """Pids whose command line is @pattern (bytes, NUL-separated)."""
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open("/proc/%s/cmdline" % d, "rb") as f:
                    if f.read() == pattern:
                        out.append(int(d))
            except OSError:
                pass
    return out


def wait_for(pattern, what, n=1):
    end = time.monotonic() + 10 * SCALE
    while time.monotonic() < end:
        got = running(pattern)
        if len(got) >= n:
            fact(what="started", case=what, pid=got[0])
            return got[0]
        time.sleep(0.01)            # polling a state, bounded
    fact(what="stall", case=what)
    return None


if len(sys.argv) > 1 and sys.argv[1] == "mover":
    # Into a cgroup of its own, outside its command's, then wait.
    with open("/proc/self/mounts") as f:
        mnt = [line.split()[1] for line in f if line.split()[2] == "cgroup2"]
    if mnt:
        path = os.path.join(mnt[0], "pgt-contain-%d" % os.getpid())
        try:
            os.mkdir(path)
            fact(what="cgroup", path=path)
            with open(os.path.join(path, "cgroup.procs"), "w") as f:
                f.write("0")
        except OSError:
            pass
    os.execvp("sleep", ["sleep", "302"])
if len(sys.argv) > 1 and sys.argv[1] == "hopper":
    # A moving target: over and over, a child takes over in a new session
    # (and a new group in it) and its parent exits; one or two alive at a time.
    while True:
        if os.fork():
            os._exit(0)
        os.setsid()
        if os.fork() == 0:
            os.setpgid(0, 0)
            continue
        os._exit(0)
if len(sys.argv) > 1 and sys.argv[1] == "forker":
    # A short-lived child every 10 ms; every tenth, it execs itself anew.
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    if n == 1:
        fact(what="forker_exec", pid=os.getpid())
    for i in range(10):
        if os.fork() == 0:
            os.execvp("sleep", ["sleep", "1.04"])
        time.sleep(0.01)
    os.execv(sys.executable, [sys.executable, __file__, "forker", str(n + 1)])


def wait_fact(what):
    """Until a fact @what has been written (bounded)."""
    end = time.monotonic() + 10 * SCALE
    while time.monotonic() < end:
        with open(os.environ.get("PGT_FACTS", os.devnull)) as f:
            if '"%s"' % what in f.read():
                return True
        time.sleep(0.01)            # polling a state, bounded
    fact(what="stall", case=what)
    return False


subprocess.run(["setsid", "-f", "sleep", "300"], check=True, timeout=30)
wait_for(b"sleep\x00300\x00", "daemon")
subprocess.run(["sh", "-c", "(sleep 301 &)"], check=True, timeout=30)
wait_for(b"sleep\x00301\x00", "double_fork")
subprocess.Popen([sys.executable, __file__, "mover"])
wait_for(b"sleep\x00302\x00", "cgroup_mover")
subprocess.Popen([sys.executable, __file__, "hopper"])
wait_for(("\0".join([sys.executable, __file__, "hopper"]) + "\0").encode(), "hopper")
subprocess.Popen([sys.executable, __file__, "forker"])
if wait_fact("forker_exec"):      # it has exec'd itself once
    fact(what="started", case="forker", pid=0)
sys.exit(7)
