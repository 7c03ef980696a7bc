#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""A terminal login that ends (issue 34), run as pgrptrace's command.

An interactive bash on a pty of its own (its session's leader, the pty its
controlling tty) starts: a plain background job, a `nohup` job, `setsid
sleep`, `(sleep &)`, a tmux pane, a job under a hostile name (newline and
escape sequence in its executable's name and arguments), and a job stopped
with ^Z. With argv[1] "fate", `pgrptrace --fate hangup:TTY --json` is asked
what a hangup would do, before it happens ("fate-text": in text, and
printed too, for the README). Then the terminal goes away (its
master is closed: a hangup), and once the tracer has written the login's
`logout` record, /proc is read for each process: alive or not.

Writes facts to $PGT_FACTS: the login's pid and tty and each job's pid by
label, the prediction, and what /proc showed. Kills everything left."""
import ctypes
import json
import os
import pty
import select
import shutil
import signal
import subprocess
import sys
import time

from harness import tracer_said

ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)     # orphans come back to us
facts = open(os.environ.get("PGT_FACTS", os.devnull), "a")
SCALE = int(os.environ.get("PGT_TIME_SCALE", "1"))
# Lengths that name each job (and outlast the run), different from other tests'.
N = {label: 7300 * SCALE + i for i, label in
     enumerate(("plain", "nohup", "setsid", "subshell", "tmux", "stopped", "hostile",
                "foreground"))}
# The pgrptrace that runs this (its parent), to ask --fate.
PGRPTRACE = os.environ.get("PGRPTRACE") or os.readlink("/proc/%d/exe" % os.getppid())
HOSTILE = "/tmp/\udcffpgt-lo-%d-a\nb\033[1mc" % os.getpid()


def fact(**kw):
    facts.write(json.dumps(kw) + "\n")
    facts.flush()


def sleeps(n):
    """The pids whose command line is `sleep N` (or the hostile copy's)."""
    out = []
    for pid in os.listdir("/proc"):
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue
        if len(argv) > 1 and argv[1] == str(n).encode():
            out.append(int(pid))
    return out


def wait_for(cond, what, timeout=20.0):
    end = time.monotonic() + timeout * SCALE
    while time.monotonic() < end:
        v = cond()
        if v:
            return v
        time.sleep(0.01)
    raise SystemExit("logout_cases: %s: not within %d s" % (what, timeout * SCALE))


def alive(pid):
    try:
        with open("/proc/%d/stat" % pid, errors="replace") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


shutil.copy("/bin/sleep", os.fsencode(HOSTILE))
master, slave = pty.openpty()
tty = os.ttyname(slave)
env = dict(os.environ, PS1="$ ", TERM="dumb", HISTFILE="/dev/null")
env = {os.fsencode(k): os.fsencode(v) for k, v in env.items()}
env[b"H"] = os.fsencode(HOSTILE)
bash = os.fork()
if bash == 0:
    os.setsid()
    import fcntl
    import termios
    fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
    for fd in (0, 1, 2):
        os.dup2(slave, fd)
    os.close(master)
    os.execvpe("bash", ["bash", "--norc", "--noprofile", "-i"], env)
os.close(slave)
said = b""


def read_until(needle, timeout=20.0):
    global said
    end = time.monotonic() + timeout * SCALE
    while needle not in said and time.monotonic() < end:
        r, _, _ = select.select([master], [], [], 0.05)
        if r:
            try:
                said += os.read(master, 4096)
            except OSError:
                break
    if needle not in said:
        raise SystemExit("logout_cases: the shell did not say %r: %r" % (needle, said[-300:]))


def send(line):
    os.write(master, line.encode() + b"\n")


pids = {}
try:
    read_until(b"$ ")
    send("sleep %d & echo plain=$!" % N["plain"])
    send("nohup sleep %d >/dev/null 2>&1 & echo nohup=$!" % N["nohup"])
    send("setsid sleep %d" % N["setsid"])
    send("(sleep %d &)" % N["subshell"])
    send("tmux -L pgt$$ -f /dev/null new-session -d 'exec sleep %d'" % N["tmux"])
    # Its name is markup too, for --html's page (which must show it as text).
    send("(exec -a $'<script>document.title=1</script>\"><img src=x onerror=document.title=2>"
         "x\\ny\\033[2J\\xff' \"$H\" %d) & echo hostile=$!" % N["hostile"])
    send("sleep %d" % N["stopped"])
    for label in N:
        if label != "foreground":
            wait_for(lambda: sleeps(N[label]), "sleep %d (%s) runs" % (N[label], label))
    os.write(master, b"\x1a")           # ^Z: the foreground job stops
    read_until(b"Stopped")
    send("echo tmux=$(tmux -L pgt$$ list-panes -F '#{pane_pid}') "
         "server=$(tmux -L pgt$$ display-message -p '#{pid}') done=$((1+1))")
    read_until(b"done=2")             # the answer, not the line echoed
    # In the foreground when the terminal goes away: the shell waits for it
    # rather than reading the tty, so the hangup's SIGHUP, not an end of
    # file, is what it sees (a shell at its prompt may read EOF first and
    # exit by itself, passing nothing on).
    send("sleep %d" % N["foreground"])
    for label in N:
        pids[label] = wait_for(lambda: sleeps(N[label]), "sleep %d (%s) runs"
                               % (N[label], label))[0]
    words = dict(w.split("=", 1) for w in said.decode(errors="replace").replace("\r", " ").split()
                 if "=" in w and w.split("=", 1)[1].isdigit())
    pids["server"] = int(words.get("server", 0))
    fact(what="login", pid=bash, tty=tty[len("/dev/"):], pids=pids, real_ns=time.time_ns(),
         told={k: int(v) for k, v in words.items() if k in ("plain", "nohup", "hostile", "tmux")})
    if sys.argv[1:] in (["fate"], ["fate-text"]):
        text = sys.argv[1] == "fate-text"
        p = subprocess.run([PGRPTRACE, "--fate", "hangup:" + tty[len("/dev/"):]] +
                           ([] if text else ["--json"]),
                           capture_output=True, text=True, timeout=60 * SCALE)
        fact(what="fate", rc=p.returncode, out=p.stdout, err=p.stderr[-2000:])
        if text:                        # for the README: as a person reads it
            sys.stdout.write("$ pgrptrace --fate hangup:%s\n%s" % (tty[len("/dev/"):], p.stdout))
            sys.stdout.flush()
    os.close(master)                    # the terminal goes away
    master = -1
    os.waitpid(bash, 0)
    bash = 0
    # The login's report, in JSON or in text (-o FILE either way).
    got = tracer_said([b"logout", b"login"], 30 * SCALE)
    fact(what="after", reported=got, alive={k: alive(v) for k, v in pids.items() if v})
finally:
    if master >= 0:
        os.close(master)
    if bash:
        os.kill(bash, signal.SIGKILL)
    for _ in range(100):                # what came back to us, until none is left
        mine = []
        for pid in os.listdir("/proc"):
            try:
                with open("/proc/%s/stat" % pid, errors="replace") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            if ppid == os.getpid():
                mine.append(int(pid))
        for pid in pids.values():
            if pid and alive(pid):
                mine.append(pid)
        if not mine:
            break
        for pid in set(mine):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        while True:
            try:
                if os.waitpid(-1, os.WNOHANG)[0] == 0:
                    break
            except ChildProcessError:
                break
        time.sleep(0.01)
    os.unlink(os.fsencode(HOSTILE))
