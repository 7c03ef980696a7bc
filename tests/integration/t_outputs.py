#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Outputs that do not take records never hang pgrptrace, and never lose one
silently (issue 30): a FIFO whose reader holds it and does not read, a
standard output pipe likewise, a FIFO with no reader at all, and a full
disk. Records wait in the output's queue (--output-queue); past it they are
lost, counted on stderr and in the exit status, and told to the output
itself by a lost record naming the seqs it missed, once it takes records
again. Each wait here is for a state the tracer says (on stderr, or in the
output), bounded."""
import fcntl
import json
import os
import re
import select
import signal
import subprocess
import tempfile
import threading
import time

from harness import (TIMEOUT, Tap, Tracer, check_nothing_left, field_bytes, run, validate,
                     wait_until, workload)

t = Tap()
QUEUE = 65536


def read_some(fd, buf, until, timeout):
    """Read the FIFO @fd into @buf until until(buf) is true or @timeout s
    pass (or its writers are gone). Returns until(buf)."""
    end = time.monotonic() + timeout
    while not until(buf) and time.monotonic() < end:
        r, _, _ = select.select([fd], [], [], 0.2)
        if r:
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                break
            buf += chunk
    return until(buf)


def records(data):
    """Every line as JSON; a line that is not (a record cut in two) is None."""
    out = []
    for line in data.decode(errors="surrogateescape").splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            out.append(None)
    return out


def check_gap(recs, what, output):
    """The seqs run 0, 1, 2... but for the ranges the lost records about
    @output name, which are missing, exactly. Returns the lost records."""
    t.eq([r for r in recs if r is None], [], "%s: every line is a whole record" % what)
    recs = [r for r in recs if r]
    validate(recs)
    told = [r for r in recs if r["event"] == "lost" and field_bytes(r["lost"], "output") == os.fsencode(output)]
    missing = set()
    for r in told:
        lo, hi = r["lost"]["first_seq"], r["lost"]["last_seq"]
        t.eq(r["lost"]["total"], hi - lo + 1, "%s: a lost record's count is its seq range" % what)
        missing |= set(range(lo, hi + 1))
    seqs = [r["seq"] for r in recs]
    want = [s for s in range(seqs[-1] + 1) if s not in missing] if seqs else []
    t.eq(seqs, want, "%s: the seqs missing are the ones the lost records name" % what)
    return told


def lost_said(err):
    """The count the tracer gave on stderr at the end, or None."""
    m = re.search(r": (\d+) records lost \(not taken", err)
    return int(m.group(1)) if m else None


scratch = tempfile.mkdtemp(prefix="pgt-outputs-")
fifo = os.path.join(scratch, "fifo")
os.mkfifo(fifo)

# 1. A FIFO whose reader holds it and reads nothing, then reads again: the
# records wait, the queue overflows, and once the reader reads, a lost
# record names the gap, and the FIFO (its name not UTF-8: exact in
# output_hex).
odd = os.path.join(scratch, os.fsdecode(b"fi\xfffo"))
os.mkfifo(odd)
rd = os.open(odd, os.O_RDONLY | os.O_NONBLOCK)
tr = Tracer(["--json", "-o", odd, "--output-queue", "64K"])
data = bytearray()
t0 = time.monotonic()
if tr.ready():
    run(workload("churn", 1500), timeout=120, check=True)
    full = wait_until(lambda: b"its queue is full" in tr._err, "the tracer says its queue is full")
    t.ok(full and tr.p.poll() is None, "stalled FIFO: the tracer runs on with its queue full",
         bytes(tr._err[-400:]))
    stalled = wait_until(lambda: b"it is not being read" in tr._err,
                         "the tracer says the FIFO is not being read")
    t.ok(stalled, "stalled FIFO: said on stderr", bytes(tr._err[-400:]))
    got = read_some(rd, data, lambda b: b'"output_hex":"%s"' % os.fsencode(odd).hex().encode()
                    in b, TIMEOUT)
    t.ok(got, "stalled FIFO: once read again, the FIFO gets a lost record")
    t0 = time.monotonic()
# The reader reads on, to the end, while the tracer stops.
reader = threading.Thread(target=read_some, args=(rd, data, lambda b: False, TIMEOUT))
reader.start()
rc, out, err = tr.stop()
took = time.monotonic() - t0
reader.join(TIMEOUT + 5)
os.close(rd)
t.eq(rc, 1, "stalled FIFO: exit 1 (records were lost)")
told = check_gap(records(data), "stalled FIFO", odd)
t.ok(told, "stalled FIFO: lost records in the output")
lost = sum(r["lost"]["total"] for r in told)
t.ok(lost > 0 and lost_said(err) == lost, "stalled FIFO: stderr counts what the output was told",
     (lost, lost_said(err), err[-300:]))
t.diag("stalled FIFO: %d records written, %d lost and told; SIGTERM took %.2f s"
       % (len(data.splitlines()), lost, took))

# 2. The same, never read again, with a command (the report: the command's
# status never came back, SIGTERM and -d were ignored): the command's exit
# ends the tracer, which gives the queue its two seconds and counts the rest.
rd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
p = Tracer(["--json", "-o", fifo, "--output-queue", "64K", "--", "sh", "-c",
            "for i in $(seq 1500); do /bin/true; done; exit 7"])
t0 = time.monotonic()
try:
    p.p.wait(TIMEOUT)
except subprocess.TimeoutExpired:
    pass
took = time.monotonic() - t0
rc, out, err = p.stop()
t.eq(rc, 125, "never read, with a command: it ends by itself, 125 (records were lost)")
n = lost_said(err)
t.ok(n and n > 1000, "never read: the loss is counted on stderr", err[-300:])
t.diag("never read: the command and the tracer ended in %.2f s; %s records lost" % (took, n))
# 2b. SIGTERM while nothing reads.
p = Tracer(["--json", "-o", fifo, "--output-queue", "64K"])
if p.ready():
    run(workload("churn", 500), timeout=120, check=True)
    wait_until(lambda: b"its queue is full" in p._err, "the tracer says its queue is full")
    t0 = time.monotonic()
rc, out, err = p.stop()
t.eq(rc, 1, "never read, SIGTERM: ends, exit 1")
t.diag("never read: SIGTERM ended it in %.2f s" % (time.monotonic() - t0))
os.close(rd)
check_nothing_left(t, "stalled FIFO")

# 3. A standard output pipe that is not read while the command runs, then is:
# nothing lost (the queue holds it), and the command's status comes back.
ctl = os.path.join(scratch, "ctl")
os.mkfifo(ctl)
mark = os.path.join(scratch, "mark")
r_fd, w_fd = os.pipe()
p = Tracer(["--json", "--", "sh", "-c", "for i in $(seq 300); do /bin/true; done; : > %s; "
            "read x < %s; exit 7" % (mark, ctl)], stdout=w_fd, drain=True)
os.close(w_fd)
wait_until(lambda: os.path.exists(mark), "the command's execs are done")
stalled = wait_until(lambda: b"output: it is not being read" in p._err,
                     "the tracer says standard output is not being read")
t.ok(stalled and p.p.poll() is None, "stalled stdout: the tracer says so and runs on",
     bytes(p._err[-300:]))
data = bytearray()
fcntl.fcntl(r_fd, fcntl.F_SETFL, os.O_NONBLOCK)
read_some(r_fd, data, lambda b: b'"exit":' in b, 5)
with open(ctl, "w") as f:
    f.write("go\n")
read_some(r_fd, data, lambda b: False, TIMEOUT)
rc, out, err = p.stop()
os.close(r_fd)
t.eq(rc, 7, "stalled stdout, read again: the command's status")
recs = records(data)
check_gap(recs, "stalled stdout", "output")
t.eq(sum(1 for r in recs if r and r["event"] == "exec" and r["filename"] == "/bin/true"), 300,
     "stalled stdout: all 300 execs written, once read again")
t.ok("written again" in err, "stalled stdout: the recovery is said", err[-300:])
# ... and never read: SIGTERM ends it, and counts what was never written.
r_fd, w_fd = os.pipe()
p = Tracer(["--json", "--output-queue", "64K"], stdout=w_fd)
os.close(w_fd)
if p.ready():
    run(workload("churn", 500), timeout=120, check=True)
    wait_until(lambda: b"output: its queue is full" in p._err, "the tracer says its queue is full")
rc, out, err = p.stop()
os.close(r_fd)
t.eq(rc, 1, "stdout never read, SIGTERM: ends, exit 1")
t.ok((lost_said(err) or 0) > 0, "stdout never read: the loss is counted", err[-300:])

# 4. A FIFO with no reader: opened without waiting, said, and -d still ends it.
p = Tracer(["--json", "-o", fifo, "-d", "2"])
try:
    p.p.wait(TIMEOUT)
except subprocess.TimeoutExpired:
    pass
rc, out, err = p.stop()
err = bytes(p._err).decode(errors="replace")
t.ok(not p.timed_out and "a FIFO with no reader yet" in err and "written again" not in err,
     "FIFO with no reader: -d 2 ends it, and it says what it waits for", (rc, err[-300:]))
# ... and a reader that comes later gets the records.
p = Tracer(["--json", "-o", fifo])
if p.ready():
    rd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    data = bytearray()
    pid = run(["sh", "-c", "echo $$"]).stdout.strip()
    got = read_some(rd, data, lambda b: b'"event":"exit","process":{"pid":%s,' % pid.encode()
                    in b, TIMEOUT)
    t.ok(got, "FIFO with no reader at start: a reader that comes gets the records")
rc, out, err = p.stop()
os.close(rd)
t.eq(rc, 0, "FIFO with a late reader: exit 0")
check_nothing_left(t, "FIFO")

# 5. A full disk: -o the only output, no command. Tracing goes on; the file
# waits, and once there is room again (SIGHUP after logrotate's move, here)
# the records resume with the gap told in the file.
mnt = os.path.join(scratch, "mnt")
os.mkdir(mnt)
run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", mnt], check=True)
try:
    log = os.path.join(mnt, "log.json")
    p = Tracer(["--json", "-o", log, "--output-queue", "64K"])
    if p.ready():
        # All but 32K: the records fill the rest, and a write stops short.
        with open(os.path.join(mnt, "filler"), "wb") as f:
            f.write(b"x" * ((256 - 32) << 10))
        run(workload("churn", 1500), timeout=120, check=True)
        full = wait_until(lambda: b"No space left on device" in p._err and
                          b"its queue is full" in p._err, "the tracer says the disk is full")
        t.ok(full and p.p.poll() is None, "full disk: said, and tracing goes on",
             bytes(p._err[-400:]))
        # Moved and reopened while the disk is still full, then room made:
        # the queue goes to the new file, and nothing more to the old.
        os.rename(log, log + ".1")
        os.kill(p.pid, signal.SIGHUP)
        wait_until(lambda: os.path.exists(log), "the tracer reopens -o on SIGHUP")
        os.unlink(os.path.join(mnt, "filler"))
        wait_until(lambda: os.path.exists(log) and '"output":"%s"' % log in open(log).read(),
                   "the lost record in the new file")
    rc, out, err = p.stop()
    t.eq(rc, 1, "full disk: exit 1 (records were lost)")
    with open(log + ".1", "rb") as f:
        before = records(f.read())
    with open(log, "rb") as f:
        after = records(f.read())
    told = check_gap(before + after, "full disk", log)
    t.ok(told and all(r in after for r in told), "full disk: the new file tells the gap")
    t.ok(len(before) > 1 and before[-1] is not None,
         "full disk: the full file ends with a whole record", len(before))
finally:
    run(["umount", "-l", mnt])
check_nothing_left(t, "full disk")
run(["rm", "-rf", scratch])
t.done()
