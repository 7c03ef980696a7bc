#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""The command line and the files it writes, as a user meets them: closed
standard descriptors, recordings (mode, end marker, a full disk), exit
statuses of --verify with a command, quiet-point requests from deep and
daemonized descendants, -p with a thread id, --tty as tty(1) prints it, -h,
--json with --ecs, and a reader that goes away (| head)."""
import calendar
import fcntl
import json
import os
import re
import select
import shutil
import socket
import tempfile
import termios
import time

from harness import (PGRPTRACE, Proc, Tap, check_nothing_left, run, run_tracer, wait_until,
                     workload)

t = Tap()
tmp = tempfile.mkdtemp(prefix="pgt-cli-")

# -h is help, as in most tools; --json with --ecs is a contradiction.
r = run([PGRPTRACE, "-h"])
t.eq(r.returncode, 0, "-h: exit 0")
t.ok("Usage:" in r.stdout and "--json" in r.stdout, "-h: prints the help", r.stdout[:200])
r = run_tracer(["--json", "--ecs", "-d", "1"])
t.eq(r.rc, 2, "--json --ecs: a usage error")
t.ok("exclude each other" in r.err, "--json --ecs: says why", r.err.strip())

# Started with stdout closed: with nowhere for the records to go, refused
# before anything is created (125 with a command: a failure of ours). With
# --record they have a place: it runs, and fd 1 is held on /dev/null, so the
# recording (opened later) cannot take it and get the text.
rec = os.path.join(tmp, "so.rec")
r = run(["sh", "-c", '"$@" >&-', "sh", PGRPTRACE, "--", "sh", "-c", "setsid true; exit 3"])
t.eq(r.returncode, 125, "stdout closed, a command, nowhere to write: exit 125")
t.ok("standard output is closed" in r.stderr, "stdout closed: says so", r.stderr.strip())
r = run(["sh", "-c", '"$@" >&-', "sh", PGRPTRACE, "-d", "1"])
t.eq(r.returncode, 1, "stdout closed, no command, nowhere to write: exit 1")
r = run(["sh", "-c", '"$@" >&-', "sh", PGRPTRACE, "--record", rec, "--", "sh", "-c",
         "setsid true; exit 3"])
t.ok(r.returncode == 3, "stdout closed, --record: runs, the command's status",
     (r.returncode, r.stderr.strip()), 3)
rp = run([PGRPTRACE, "--json", "--replay", rec])
t.ok(rp.returncode == 0 and '"event":"setsid"' in rp.stdout,
     "stdout closed, --record: a whole recording, records only", rp.stderr.strip())
check_nothing_left(t, "stdout closed")

# Closed stdout or stderr with -o: the file gets JSON records and nothing else
# (-v writes to stderr).
for fd in ("1", "2"):
    log = os.path.join(tmp, "closed%s.jsonl" % fd)
    r = run(["sh", "-c", '"$@" %s>&-' % fd, "sh", PGRPTRACE, "-v", "--json", "-o", log, "--",
             "sh", "-c", "setsid true"])
    t.eq(r.returncode, 0, "fd %s closed, -o: exit 0" % fd, )
    lines = open(log, "rb").read().splitlines() if os.path.exists(log) else []
    bad = [l[:80] for l in lines if not l.startswith(b"{")]
    t.ok(lines and not bad, "fd %s closed, -o: every line of the file is a record" % fd, bad)
    check_nothing_left(t, "fd %s closed" % fd)

# A recording: private, whole, replayed to the same records; a copy cut short
# fails the replay.
rec = os.path.join(tmp, "w.rec")
r = run_tracer(["--json", "--record", rec, "--", "sh", "-c", "setsid true; exit 3"])
t.eq(r.rc, 3, "--record: the command's status")
t.eq(os.stat(rec).st_mode & 0o777, 0o600, "--record: the file is created 0600")
rp = run([PGRPTRACE, "--json", "--replay", rec])
t.ok(rp.returncode == 0, "--replay: exit 0", (rp.returncode, rp.stderr.strip()))
# The same records; a held escape may be written at another place, when its
# hold ends by the records' clock rather than the wall clock.
live = sorted((x["kseq"], x["event"]) for x in r.events)
again = sorted((x["kseq"], x["event"]) for x in map(json.loads, rp.stdout.splitlines()))
t.eq(again, live, "--replay: the same records as the live run")
ids = lambda recs: sorted({x["process"]["entity_id"] for x in recs if x.get("process")})
t.eq(ids(map(json.loads, rp.stdout.splitlines())), ids(r.events),
     "--replay: the same entity ids (the recording's boot id)")
data = open(rec, "rb").read()
for cut, name in ((len(data) - 16, "in its index's footer"), (len(data) // 2, "mid-file")):
    with open(rec + ".cut", "wb") as f:
        f.write(data[:cut])
    rp = run([PGRPTRACE, "--json", "--replay", rec + ".cut"])
    t.eq(rp.returncode, 1, "--replay of a recording cut %s: exit 1" % name)
    t.ok("incomplete" in rp.stderr, "--replay cut %s: says it is incomplete" % name,
         rp.stderr.strip())
    os.unlink(rec + ".cut")
flip = bytearray(data)
flip[len(data) // 2] ^= 0x10
with open(rec + ".flip", "wb") as f:
    f.write(flip)
rp = run([PGRPTRACE, "--json", "--replay", rec + ".flip"])
t.eq(rp.returncode, 1, "--replay of a damaged recording: exit 1")
t.ok("damaged" in rp.stderr or "incomplete" in rp.stderr or "bad record" in rp.stderr,
     "--replay damaged: says so", rp.stderr.strip())
r = run([PGRPTRACE, "--json", "--replay", "/etc/hostname"])
t.eq(r.returncode, 1, "--replay of another file: exit 1")
t.ok("not a pgrptrace recording" in r.stderr, "--replay of another file: says so", r.stderr)

# A recording on a full disk fails the run.
mnt = tempfile.mkdtemp(prefix="pgt-full-")
run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", mnt], check=True)
try:
    r = run_tracer(["--json", "-o", "/dev/null", "--record", os.path.join(mnt, "r.rec"), "--"]
                   + workload("churn", 2000))
    t.eq(r.rc, 125, "--record, full disk: exit 125 (pgrptrace failed, with a command)")
    t.ok("No space left on device" in r.err, "--record, full disk: says so", r.err.strip())
finally:
    run(["umount", mnt])
    os.rmdir(mnt)
check_nothing_left(t, "record full disk")

# --verify with a command: the command's status.
r = run_tracer(["--verify", "-o", "/dev/null", "--", "sh", "-c", "exit 42"])
t.eq(r.rc, 42, "--verify -- CMD: the command's status")

# Quiet-point requests from a descendant 130 levels down and from one that
# daemonized (double fork) are answered: each exits 0 once answered, 3 if not.
ASK = r"""
import os, signal, sys
tracer = os.getppid()
def ask():
    signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGUSR1])
    os.kill(tracer, signal.SIGUSR1)
    return signal.sigtimedwait([signal.SIGUSR1], 20) is not None
def report(ok):
    os.write(w, b"0" if ok else b"3")
    os._exit(0)
rd, w = os.pipe()
if sys.argv[1] == "deep":
    for depth in range(130):
        if os.fork():
            os._exit(os.waitstatus_to_exitcode(os.wait()[1]))
    os._exit(0 if ask() else 3)
elif os.fork() == 0:
    if os.fork() == 0:
        os.setsid()
        report(ask())
    os._exit(0)
os.close(w)
os._exit(int(os.read(rd, 1) or b"4"))
"""
for how in ("deep", "daemonized"):
    r = run_tracer(["--verify", "-o", "/dev/null", "--", "python3", "-c", ASK, how])
    t.eq(r.rc, 0, "--verify: a %s descendant's request is answered" % how)
    t.eq(r.out.count("0 differences"), 2, "--verify %s: its check, and the last" % how)

# -p with the id of a thread that is not its process's leader.
th = Proc(["python3", "-c", "import threading, time; "
           "threading.Thread(target=time.sleep, args=(60,), daemon=True).start(); "
           "time.sleep(60)"])
wait_until(lambda: len(os.listdir("/proc/%d/task" % th.pid)) >= 2, "the thread starts")
tid = next(int(x) for x in os.listdir("/proc/%d/task" % th.pid) if int(x) != th.pid)
r = run_tracer(["-p", str(tid), "-d", "1"])
t.eq(r.rc, 1, "-p TID: exit 1")
t.ok("is a thread of process %d" % th.pid in r.err, "-p TID: names the process", r.err.strip())
th.p.kill()
th.finish(10)
check_nothing_left(t, "-p tid")

# --tty as tty(1) prints it; a tty or session that matches nothing says so.
master, slave = os.openpty()
name = os.ttyname(slave)
holder = Proc(["python3", "-c", "import fcntl, termios, time; "
               "fcntl.ioctl(0, termios.TIOCSCTTY, 0); print('ready', flush=True); "
               "time.sleep(60)"], stdin=slave, drain=False)
os.close(slave)
t.eq(holder.p.stdout.readline().strip(), "ready", "a session holds %s" % name)
r = run([PGRPTRACE, "--snapshot", "--tty", name])
t.eq(r.returncode, 0, "--tty %s: exit 0" % name)
t.ok(" %d python3" % holder.pid in " " + r.stdout or "%d python3" % holder.pid in r.stdout,
     "--tty %s: its session is drawn" % name, r.stdout, holder.pid)
holder.p.kill()
holder.finish(10)
os.close(master)
r = run([PGRPTRACE, "--snapshot", "--tty", "pts/99999"])
t.eq(r.returncode, 1, "--tty of no session: exit 1")
t.ok("no process matches --tty pts/99999" in r.stderr, "--tty of no session: says so",
     r.stderr.strip())
r = run([PGRPTRACE, "--snapshot", "--session", "2147483647"])
t.eq(r.returncode, 1, "--session of no session: exit 1")

# A reader that goes away (| head -1): a filter's quiet end, and the
# command's status. The command makes its events only once the reader is
# gone (it waits for a file the test creates then), so writing them fails.
gone = os.path.join(tmp, "reader-gone")
p = Proc([PGRPTRACE, "--json", "--", "sh", "-c",
          "true; while [ ! -e %s ]; do sleep 0.01; done; "
          "for i in 1 2 3 4 5 6 7 8; do /bin/true; done; exit 7" % gone], drain=False)
first = ""
if select.select([p.p.stdout], [], [], 30)[0]:
    first = p.p.stdout.readline()
p.p.stdout.close()
p.p.stdout = None
open(gone, "w").close()
rc, _, err = p.finish(60)
t.ok(first.startswith("{"), "| head -1: one record read", first[:60])
t.eq(rc, 7, "| head -1: pgrptrace ends with the command's status")
t.eq(err, "", "| head -1: nothing said on stderr")
check_nothing_left(t, "| head")

# Command mode with stdout read by a program: the records stay whole, and the
# command's own output goes to stderr.
r = run_tracer(["--json", "--", "sh", "-c", "echo from-the-command; setsid true"])
t.eq(r.rc, 0, "command's stdout: exit 0")
t.ok(r.events and not r.bad_lines, "command's stdout: every line of stdout is a record",
     r.bad_lines[:3])
t.ok("from-the-command" in r.err, "command's stdout: on pgrptrace's stderr", r.err[-300:])
log = os.path.join(tmp, "own-stdout.jsonl")
r = run_tracer(["--json", "-o", log, "--", "sh", "-c", "echo from-the-command"])
t.eq(r.out, "from-the-command\n", "command's stdout, with -o: the command keeps it")

# Filters apply to the event stream, alone and together; each one can fail.
NOBODY = 65534
WORK = ["sh", "-c", "setpriv --reuid=%d --regid=%d --clear-groups sh -c 'true; true'; "
        "setsid sh -c 'true'; true" % (NOBODY, NOBODY)]


def procs(e):
    """Every process context a record names."""
    return [e[k] for k in ("process", "child", "target") if isinstance(e.get(k), dict)]


def kinds(r):
    return sorted({e["event"] for e in r.events})


base = run_tracer(["--json", "--"] + WORK)
t.eq(base.rc, 0, "filters: the unfiltered run")
t.ok(any(p["uid"] != NOBODY for e in base.events for p in procs(e)) and
     any(p["uid"] == NOBODY for e in base.events for p in procs(e)),
     "filters: unfiltered, both uids are seen", kinds(base))
cases = [
    (["--uid", str(NOBODY)], lambda e: any(p["uid"] == NOBODY for p in procs(e)), "--uid"),
    (["--comm", "setsid"], lambda e: any(p["comm"] == "setsid" for p in procs(e)), "--comm"),
    # Repeated, the kinds add up (the comma form is below).
    (["--event", "exec", "--event", "exit"], lambda e: e["event"] in ("exec", "exit", "lost"),
     "--event twice"),
    (["--uid", str(NOBODY), "--event", "exec"],
     lambda e: e["event"] in ("exec", "lost") and any(p["uid"] == NOBODY for p in procs(e)),
     "--uid with --event"),
]
for args, match, what in cases:
    r = run_tracer(["--json"] + args + ["--"] + WORK)
    bad = [(e["event"], [(p["pid"], p["uid"], p["sid"], p["comm"]) for p in procs(e)])
           for e in r.events if not match(e)]
    t.eq(r.rc, 0, "%s: exit 0" % what)
    t.ok(r.events and not bad, "%s: every record matches" % what, bad[:4])
    t.ok(len(r.events) < len(base.events), "%s: some records were left out" % what,
         (len(r.events), len(base.events)))
# In the kernel where it is cheap: without the kinds a signal record makes
# (or an exit's cause needs), the kernel sends none (the recording holds what
# the kernel sent); with them, or with --signals given, it does.
SIG = ["sh", "-c", "trap '' USR1; kill -USR1 0; true"]
for args, want in ((["--event", "exec,fork"], []),
                   (["--event", "exec,signal"], ["signal"]),
                   (["--event", "exec,exit"], ["signal"]),
                   (["--event", "exec,fork", "--signals", "group"], ["signal"])):
    rec = os.path.join(tmp, "sig.rec")
    r = run_tracer(["--json", "--record", rec] + args + ["--"] + SIG)
    rp = run_tracer(["--json", "--replay", rec])
    t.eq((r.rc, rp.rc), (0, 0), "%s: traced and replayed" % " ".join(args))
    t.eq(sorted({e["event"] for e in rp.events if e["event"] == "signal"}), want,
         "%s: the kernel sent signal records: %s" % (" ".join(args), bool(want)))
    t.ok(rp.of("exec"), "%s: and the exec records" % " ".join(args))
    os.unlink(rec)
# --session: a session of its own runs `true` twice once the traced command
# has started; the command's own records are in another session.
go, done = os.path.join(tmp, "session-go"), os.path.join(tmp, "session-done")
holder = Proc(["sh", "-c", "while [ ! -e %s ]; do sleep 0.01; done; /bin/true; /bin/true; "
               "touch %s" % (go, done)])
wait_until(lambda: os.getsid(holder.p.pid) == holder.p.pid, "--session: the holder leads one")
sid = holder.p.pid
SESS = ["sh", "-c", "touch %s; while [ ! -e %s ]; do sleep 0.01; done" % (go, done)]
r = run_tracer(["--json", "-a", "--session", str(sid), "--"] + SESS)
holder.finish(30)
bad = [(e["event"], [(p["pid"], p["sid"]) for p in procs(e)]) for e in r.events
       if e["event"] != "lost" and not any(p["sid"] == sid for p in procs(e))]
t.eq(r.rc, 0, "--session: exit 0")
t.ok(r.of("exec") and not bad, "--session: only that session's records", bad[:4])
t.ok(len([e for e in r.of("exec") if e.get("filename") == "/bin/true"]) >= 2,
     "--session: the session's two /bin/true are seen", [e.get("filename") for e in r.of("exec")])
r = run_tracer(["--json", "--tty", "pts/99999", "--"] + WORK)
t.eq([e["event"] for e in r.events if e["event"] != "lost"], [],
     "--tty of no session: no record")

# A filter the mode cannot apply is a usage error, never ignored.
for args, why in [(["--verify", "--uid", "0"], "takes no filter"),
                  (["--snapshot", "--event", "exec"], "--event filters the event stream"),
                  (["--escapes", "--event", "exec"], "exclude each other"),
                  (["--check", "--comm", "sh"], "--check takes only"),
                  (["--event", "exec,nope", "-d", "1"], "bad --event 'nope'"),
                  (["--comm", "0123456789abcdef", "-d", "1"], "bad --comm")]:
    r = run([PGRPTRACE] + args)
    t.eq(r.returncode, 2, "%s: a usage error" % " ".join(args))
    t.ok(why in r.stderr, "%s: says why" % " ".join(args), r.stderr.strip()[:300])

# Every record names the machine; a replay of its recording names it too;
# a process's start is given as RFC 3339 as well, and agrees with its fork.
def host_now():
    mid = open("/etc/machine-id").read().strip() if os.path.exists("/etc/machine-id") else ""
    return {"name": socket.gethostname(), "id": mid if re.match(r"^[0-9a-f]{32}$", mid) else None,
            "boot_id": open("/proc/sys/kernel/random/boot_id").read().strip()}


def ns(rfc3339):
    """Nanoseconds since the epoch of "YYYY-MM-DDTHH:MM:SS.nnnnnnnnnZ"."""
    whole, frac = rfc3339.rstrip("Z").split(".")
    return calendar.timegm(time.strptime(whole, "%Y-%m-%dT%H:%M:%S")) * 10**9 + int(frac)


rec = os.path.join(tmp, "host.rec")
r = run_tracer(["--json", "--record", rec, "--", "sh", "-c", "setsid true"])
hosts = [e.get("host") for e in r.events]
t.ok(hosts and all(h == host_now() for h in hosts), "host: on every record, this machine's",
     (hosts[:1], host_now()))
rp = run([PGRPTRACE, "--json", "--replay", rec])
hosts = [json.loads(l).get("host") for l in rp.stdout.splitlines()]
t.ok(hosts and all(h == host_now() for h in hosts), "host: a replay names the recorded machine",
     hosts[:1])
forks = r.of("fork")
late = [(f["time"], f["child"]["start"]) for f in forks
        if abs(ns(f["time"]) - ns(f["child"]["start"])) > 10**9]
t.ok(forks and not late, "start: a child's start is its fork's time, within a second", late[:3])

# Text times carry the date where a line is read later: in a file, and with
# --utc; on a terminal or a pipe, the time of day.
log = os.path.join(tmp, "dated.txt")
r = run_tracer(["-o", log, "--", "sh", "-c", "setsid true"])
lines = open(log).read().splitlines()
t.ok(len(lines) > 1 and all(re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d{4} ", l)
                            for l in lines[1:]), "text in a file: dated, with the offset", lines[:2])
r = run_tracer(["--utc", "--", "sh", "-c", "setsid true"])
lines = r.out.splitlines()
t.ok(len(lines) > 1 and all(re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z ", l)
                            for l in lines[1:]), "text with --utc: dated, in UTC", lines[:2])
r = run_tracer(["--", "sh", "-c", "setsid true"])
lines = r.out.splitlines()
t.ok(len(lines) > 1 and all(re.match(r"^\d\d:\d\d:\d\d\.\d{3} ", l) for l in lines[1:]),
     "text on a pipe: the time of day", lines[:2])

shutil.rmtree(tmp)
t.done()
