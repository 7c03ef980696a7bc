#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""An interactive bash with job control on a real pty, driven like a person
at a terminal: a background job, fg, ^Z, bg, fg, ^C, a two-process pipeline
and ^C, a background job, then the terminal goes away (the master is closed)
while a job runs in the foreground.

Run as the command of `pgrptrace --verify`: at quiet points it asks its parent
(the tracer) to check the model against /proc. It writes what it did (pids
of bash and the jobs) as JSON lines to $PGT_FACTS. Its blocking waits are
bounded by the harness, which runs it in a box with a timeout."""
import ctypes
import json
import os
import pty
import select
import signal
import subprocess
import sys
import time

from harness import tracer_said

ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)     # orphans come back to us
facts = open(os.environ.get("PGT_FACTS", os.devnull), "a")


def fact(**kw):
    facts.write(json.dumps(kw) + "\n")
    facts.flush()


def read_until(fd, marker, timeout=10.0):
    buf = b""
    end = time.time() + timeout
    while time.time() < end and marker not in buf:
        r, _, _ = select.select([fd], [], [], 0.05)
        if r:
            try:
                buf += os.read(fd, 4096)
            except OSError:
                break
    return buf


def quiet_point():
    """Let the tracer compare its model with /proc, and wait for it: only
    under `pgrptrace --verify` (PGT_QUIET_POINTS=1), which answers. The
    tracer drains its ring buffer and retries transient states itself."""
    if not os.environ.get("PGT_QUIET_POINTS"):
        return
    signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGUSR1])
    os.kill(os.getppid(), signal.SIGUSR1)
    signal.sigtimedwait([signal.SIGUSR1], 30)


def show_tree(label):
    """For the README: the tree of the session, with PGT_SHOW_TREE=path/to/pgrptrace."""
    tracer = os.environ.get("PGT_SHOW_TREE")
    if tracer:
        tree = subprocess.run([tracer, "--snapshot", "--session", str(bash)],
                              capture_output=True, text=True, timeout=60).stdout
        sys.stderr.write("--- %s\n%s" % (label, tree))


def children_named(name, parent):
    """Processes running `name` whose parent is `parent`, from /proc."""
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                stat = open("/proc/%s/stat" % d).read()
            except OSError:
                continue
            rest = stat[stat.rindex(")") + 2:].split()
            comm = stat[stat.index("(") + 1:stat.rindex(")")]
            if comm == name and int(rest[1]) == parent:
                out.append(int(d))
    return sorted(out)


def job_pids(name, want=1, timeout=5.0):
    """bash's children running `name`, once `want` of them have exec'd."""
    end = time.time() + timeout
    while True:
        found = children_named(name, bash)
        if len(found) >= want or time.time() > end:
            return found
        time.sleep(0.02)


def wait_foreground(pid, timeout=10.0):
    """Until the process group of `pid` is the terminal's foreground group."""
    end = time.time() + timeout
    while time.time() < end:
        try:
            with open("/proc/%d/stat" % pid) as f:
                rest = f.read().rsplit(")", 1)[1].split()
        except OSError:
            fact(what="stall", wait="%d, gone before it took the terminal" % pid)
            return False
        if rest[2] == rest[5]:          # pgrp == tpgid
            return True
        time.sleep(0.01)            # polling a state, bounded
    fact(what="stall", wait="the foreground group of %d" % pid)     # t_pty fails on it
    return False


def job_pids_any(name):
    """Our descendants (by now adopted by us) running `name`."""
    return children_named(name, os.getpid())


WIDE = int(os.environ.get("PGT_PTY_WIDE", "0"))

bash, fd = pty.fork()
if bash == 0:
    os.environ["PS1"] = "PGT$ "
    os.execvp("bash", ["bash", "--norc", "--noprofile", "-i"])
fact(what="bash", pid=bash)
read_until(fd, b"PGT$ ")


def cmd(line, wait=b"PGT$ "):
    os.write(fd, line)
    return read_until(fd, wait)


if len(sys.argv) > 1 and sys.argv[1] == "clean":
    # Jobs, fg and a pipeline, then a clean logout: nothing escapes. The
    # sleeps are the jobs' own short lives; nothing here waits on them by time.
    cmd(b"sleep 0.3 &\n")
    cmd(b"fg\n")
    cmd(b"sleep 0.2 | cat\n")
    cmd(b"(sleep 0.1; true) & wait\n")
    os.write(fd, b"exit\n")
    os.waitpid(bash, 0)
    sys.exit(0)
if len(sys.argv) > 1 and sys.argv[1] == "nohup":
    # A job that ignores SIGHUP survives the login shell's exit.
    cmd(b"nohup sleep 30 >/dev/null 2>&1 &\n")
    pids = job_pids("sleep")
    fact(what="nohup", pids=pids)
    os.write(fd, b"exit\n")
    os.waitpid(bash, 0)
    # The job must outlive its login by the tracer's grace (1 s): with the
    # tracer's records in a file, until it says so (bounded); else for the
    # grace, with room to spare.
    if not all(tracer_said([b'"outlived_login"', b'"pid":%d,' % p], 30) for p in pids) \
            and not os.environ.get("PGT_TRACER_OUT"):
        time.sleep(1.6)
    for pid in job_pids_any("sleep"):
        os.kill(pid, signal.SIGKILL)
    while True:
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            break
    sys.exit(0)
cmd(b"sleep 60 &\n")
job = job_pids("sleep")
fact(what="bg_job", pid=job[0] if job else 0)
show_tree("a background job")
quiet_point()
os.write(fd, b"fg\n")
wait_foreground(job[0] if job else bash)
quiet_point()                      # the job holds the terminal
os.write(fd, b"\x1a")              # ^Z
read_until(fd, b"PGT$ ")
fact(what="stopped")
quiet_point()
cmd(b"bg\n")
cmd(b"echo resumed\n")
os.write(fd, b"fg\n")
wait_foreground(job[0] if job else bash)
os.write(fd, b"\x03")              # ^C
read_until(fd, b"PGT$ ")
os.write(fd, b"sleep 60 | sleep 61\n")
pipeline = job_pids("sleep", 2)
for pid in pipeline:
    wait_foreground(pid)
fact(what="pipeline", pids=pipeline)
quiet_point()
os.write(fd, b"\x03")              # ^C to both
read_until(fd, b"PGT$ ")
# With $PGT_PTY_WIDE (t_pty), a foreground group that large: its ^C is one
# loop of the kernel's over the group, long enough for the loop to stall in
# the middle under TCG.
if WIDE:
    os.write(fd, b" | ".join([b"sleep 64"] * WIDE) + b"\n")
    wide = job_pids("sleep", WIDE, timeout=60.0)
    for pid in wide:
        wait_foreground(pid)
    fact(what="wide", pids=wide)
    os.write(fd, b"\x03")          # ^C to all of them
    read_until(fd, b"PGT$ ", timeout=60.0)
cmd(b"sleep 62 &\n")
bg = job_pids("sleep")
fact(what="survivor", pids=bg)
# The terminal goes away while a job holds it, as a window is closed on a
# running command. At a prompt bash would race the kernel: pty_close() wakes
# the reader of the slave (TTY_OTHER_CLOSED) before tty_vhangup() sends the
# SIGHUP, and a bash that reads EIO first exits as at EOF, without hanging up
# its jobs (seen on 5.10 and 6.1 under single-threaded TCG). Waiting for its
# foreground job, bash learns of the hangup only from the SIGHUP.
os.write(fd, b"sleep 63\n")
fg = sorted(set(job_pids("sleep", len(bg) + 1)) - set(bg))
for pid in fg:
    wait_foreground(pid)
fact(what="hangup_fg", pids=fg)
show_tree("before the hangup")
quiet_point()
os.close(fd)                       # the terminal goes away: hangup
while True:                        # until bash and its jobs are gone
    try:
        pid, _ = os.waitpid(-1, 0)
    except ChildProcessError:
        break
show_tree("after the hangup")
quiet_point()
