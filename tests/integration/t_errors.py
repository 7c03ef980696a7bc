#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Every error path: a clear message on stderr, the right exit code, nothing
on stdout, and no BPF program left behind."""
import json
import os
import select
import shutil
import signal
import socket
import sys
import tempfile

from harness import (PGRPTRACE, Proc, Tap, Tracer, check_nothing_left, loaded_progs, run,
                     run_tracer, wait_until, workload)

t = Tap()


def expect(args, rc, needle, name, env=None):
    r = run_tracer(args, env=env)
    t.eq(r.rc, rc, "%s: exit code %d" % (name, rc))
    t.ok(needle in r.err, "%s: message says %r" % (name, needle), r.err.strip(), needle)
    if rc == 2:
        t.eq(r.out, "", "%s: nothing on stdout" % name)
    check_nothing_left(t, name)
    return r


expect(["--bogus"], 2, "unrecognized option", "unknown option")
expect(["-p", "abc"], 2, "bad pid 'abc'", "bad pid")
expect(["-p", "0"], 2, "bad pid '0'", "pid out of range")
expect(["-d", "-1"], 2, "bad duration '-1'", "negative duration")
expect(["-d", "1x"], 2, "bad duration '1x'", "bad duration")
expect(["--ringbuf-size", "1000"], 2, "power of two", "ring buffer not a power of two")
expect(["-a"], 2, "-a needs a command", "-a without a command")
# A filter that names nothing a tty could be, or given twice, is refused (issue 30).
expect(["--tty=foo", "-d", "1"], 2, "bad --tty 'foo': want a terminal", "--tty foo")
expect(["--tty=pts/x", "-d", "1"], 2, "bad --tty 'pts/x'", "--tty pts/x")
expect(["--uid", "0", "--uid", "1", "-d", "1"], 2, "--uid given twice", "--uid twice")
expect(["-o", "/dev/null", "-o", "/dev/null", "-d", "1"], 2, "--output given twice", "-o twice")
expect(["--output-queue", "1k", "-d", "1"], 2, "bad --output-queue '1k'", "--output-queue 1k")
expect(["--btf", "/nonexistent/btf", "-d", "1"], 1, "cannot read BTF /nonexistent/btf",
       "no BTF")
expect(["-p", "999999999", "-d", "1"], 1, "cannot trace pid 999999999: no such process",
       "no such pid")
# --fate: what it takes, and a question about nothing there (issue 34).
expect(["--fate", "reboot"], 2, "bad --fate 'reboot': WHAT is hangup:TTY", "--fate reboot")
expect(["--fate", "kill:-1:NOPE"], 2, "takes a signal's name", "--fate kill: bad signal")
expect(["--fate", "logout:1", "-d", "1"], 2, "--fate answers from the machine as it is now",
       "--fate with -d")
expect(["--fate", "hangup:pts/4095"], 1, "--fate hangup:pts/4095: no session has that tty",
       "--fate on a tty no session has")
expect(["--fate", "kill:-4194303:TERM"], 1, "no such process group", "--fate on no group")
# --metrics (issue 36): an address it can bind, for a live trace.
expect(["--metrics", "99999", "-d", "1"], 2, "bad --metrics '99999': want a port from 1 to 65535",
       "--metrics 99999")
expect(["--metrics", "localhost:9100", "-d", "1"], 2, "is not a numeric IPv4 or IPv6 address",
       "--metrics localhost:9100")
# libmicrohttpd is loaded only when --metrics is given (issue 37): where it
# cannot be (here a private mount puts /dev/null over it), --metrics says so.
lib = next((ln.split()[-1] for ln in run(["ldconfig", "-p"]).stdout.splitlines()
            if "libmicrohttpd.so.12 " in ln and "x86-64" in ln), None)
if not lib:
    t.skip("--metrics without its library", "ldconfig knows no libmicrohttpd.so.12")
else:
    r = run(["unshare", "-m", "--propagation", "private", "sh", "-c",
             'mount --bind /dev/null "$1" && exec "$2" --metrics 9877 -d 1', "sh", lib, PGRPTRACE])
    t.eq(r.returncode, 1, "--metrics without its library: exit code 1")
    t.ok("--metrics needs libmicrohttpd.so.12: " in r.stderr,
         "--metrics without its library: says which, and why", r.stderr.strip())
    check_nothing_left(t, "--metrics without its library")
# Started with SIGCHLD ignored (as a supervisor may leave it), the command's
# exit is still seen: the run ends with it, and says its status.
r = run([sys.executable, "-c", "import os, signal, sys; "
         "signal.signal(signal.SIGCHLD, signal.SIG_IGN); os.execv(sys.argv[1], sys.argv[1:])",
         PGRPTRACE, "-o", os.devnull, "--", "sh", "-c", "exit 3"], timeout=30, expect_hang=True)
t.ok(not r.timed_out, "SIGCHLD ignored at start: the run ends with its command")
t.eq(r.returncode, 3, "SIGCHLD ignored at start: the command's status")
check_nothing_left(t, "SIGCHLD ignored at start")
expect(["--metrics", "9100", "--replay", "/nonexistent.rec"], 2,
       "--metrics serves a trace's metrics: not with --replay", "--metrics --replay")
with socket.socket() as taken:
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    expect(["--metrics", str(taken.getsockname()[1]), "-d", "1"], 1, "cannot serve --metrics on",
           "--metrics on a port in use")
# --ecs-version (issue 36): a release it writes, with --ecs.
expect(["--ecs", "--ecs-version", "7.17", "-d", "1"], 2, "bad --ecs-version '7.17': want 9.4 or "
       "8.11", "--ecs-version 7.17")
expect(["--ecs-version", "8.11", "-d", "1"], 2, "--ecs-version chooses the ECS of --ecs's",
       "--ecs-version without --ecs")
# --html and --login (issue 35): what they take.
expect(["--login", "4100", "-d", "1"], 2, "--login chooses the login of --html's page",
       "--login without --html")
expect(["--login", "abc", "--html", "/tmp/pgt-never.html", "-d", "1"], 2,
       "bad --login 'abc': want a pid or a 16-hex-digit entity id", "--login abc")
expect(["--replay", "/nonexistent.rec", "--from", "+1s"], 2,
       "--from and --to choose the span of a recording's page", "--from without --html")
expect(["--replay", "/nonexistent.rec", "--html", "/tmp/pgt-never.html", "--at", "+1s"], 2,
       "--html draws a run or a recording: not with --at", "--html with --at")
# --checkpoint-every: a size, with a recording to write (issue 35).
expect(["--checkpoint-every", "1k", "--record", "/tmp/pgt-never.rec", "-d", "1"], 2,
       "bad --checkpoint-every '1k': want 0, or 64K to 16G", "--checkpoint-every 1k")
expect(["--checkpoint-every", "-1", "--record", "/tmp/pgt-never.rec", "-d", "1"], 2,
       "bad --checkpoint-every '-1'", "--checkpoint-every -1")
expect(["--checkpoint-every", "64M", "-d", "1"], 2, "--checkpoint-every needs --record",
       "--checkpoint-every without --record")
expect(["--replay", "/nonexistent.rec", "--record", "/tmp/pgt-never.rec", "--at", "+1s"], 2,
       "--record with --replay writes the recording again", "--replay --record --at")

# A program the verifier refuses (the fault is injected only when asked):
# the message names the program, and -v shows the verifier's log.
r = expect(["-d", "1"], 1, "sched_process_exec_tp (tp/sched/sched_process_exec): Permission",
           "verifier failure",
           env={"PGRPTRACE_TEST_FAULT": "all"})
t.ok("cannot load BPF program" in r.err, "verifier failure: says it cannot load", r.err)
t.eq(len(r.err.strip().splitlines()), 2, "verifier failure: one line, plus the -v hint")
t.ok("-v" in r.err, "verifier failure: points at -v for the verifier log", r.err)
r = run_tracer(["-v", "-d", "1"], env={"PGRPTRACE_TEST_FAULT": "all"})
t.ok("invalid mem access" in r.err, "verifier failure -v: the verifier log is shown",
     r.err[-400:])
t.eq(r.rc, 1, "verifier failure -v: exit code 1")
check_nothing_left(t, "verifier failure -v")
expect(["-d", "1"], 1, "bad PGRPTRACE_HOOKS", "bad hook level",
       env={"PGRPTRACE_HOOKS": "kprobe"})
# Forced to the broken level, there is no fallback.
expect(["-d", "1"], 1, "cannot load BPF program sched_process_exec (tp_btf/", "forced level",
       env={"PGRPTRACE_HOOKS": "tp_btf", "PGRPTRACE_TEST_FAULT": "tp_btf"})
# --check names the refused program from its own load result.
p = run([PGRPTRACE, "--check", "--json"], capture_output=True, text=True, timeout=120,
        env=dict(os.environ, PGRPTRACE_TEST_FAULT="tp_btf"))
why = {l["name"]: l["reason"] for l in json.loads(p.stdout or '{"levels":[]}')["levels"]}
t.eq(why.get("tp_btf"), "cannot load BPF program sched_process_exec (tp_btf/sched_process_exec): "
     "Permission denied", "check: a refused level names its program and the error")
# With the tp_btf level refused (and fentry, which adds to it), automatic
# selection falls back to raw_tp.
r = run_tracer(["-v", "--json", "--"] + workload("exit", 6),
               env={"PGRPTRACE_TEST_FAULT": "tp_btf"})
t.eq(r.rc, 6, "fallback: the command ran with raw_tp hooks")
t.ok("attached with raw_tp hooks" in r.err, "fallback: says raw_tp", r.err[-300:])
t.eq(len(r.of("exec")), 1, "fallback: raw_tp exec event seen")
check_nothing_left(t, "fallback")

# A command that does not exist.
expect(["--", "/nonexistent/cmd"], 127, "cannot run /nonexistent/cmd", "missing command")

# Not root: an unprivileged user without capabilities.
tmp = tempfile.mkdtemp()
os.chmod(tmp, 0o755)
binary = os.path.join(tmp, "pgrptrace")
shutil.copy(PGRPTRACE, binary)
os.chmod(binary, 0o755)
p = run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
         "--inh-caps=-all", "--bounding-set=-all", binary, "-d", "1"], timeout=30)
t.eq(p.returncode, 1, "not root: exit code 1")
t.ok("permission denied" in p.stderr and "CAP_BPF" in p.stderr,
     "not root: says which privileges", p.stderr.strip())
t.eq(p.stdout, "", "not root: nothing on stdout")
shutil.rmtree(tmp)
check_nothing_left(t, "not root")

# A closed stdout: the reader goes away while events keep coming. Like any
# filter, pgrptrace ends quietly.
p = Proc([PGRPTRACE, "--json", "--", "sh", "-c",
          "i=0; while [ $i -lt 1500 ]; do /bin/true; i=$((i+1)); done"], drain=False)
first = ""
if select.select([p.p.stdout], [], [], 30)[0]:
    first = p.p.stdout.readline()
p.p.stdout.close()
p.p.stdout = None
rc, _, err = p.finish(60)
t.ok(first.startswith("{"), "closed stdout: a first record arrived", first[:40])
t.eq(rc, 0, "closed stdout: exit 0")
t.eq(err, "", "closed stdout: nothing said")
check_nothing_left(t, "closed stdout")

# A reader that stops reading (but keeps the pipe open) is noticed.
rfd, wfd = os.pipe()
p = Proc([PGRPTRACE, "--json", "--", "sh", "-c",
          "i=0; while [ $i -lt 400 ]; do /bin/true; i=$((i+1)); done"], stdout=wfd, text=False,
         drain=False)
os.close(wfd)
os.set_blocking(p.p.stderr.fileno(), False)
said = bytearray()


def stalled():
    """Nobody reads: the pipe fills up, until the tracer says so."""
    try:
        said.extend(os.read(p.p.stderr.fileno(), 4096) or b"")
    except BlockingIOError:
        pass
    return b"not being read" in said or p.p.poll() is not None


wait_until(stalled, "stalled reader: the tracer complains", timeout=60)
os.set_blocking(p.p.stderr.fileno(), True)
while select.select([rfd], [], [], 30)[0] and os.read(rfd, 65536):
    pass                               # read it all, until the tracer is gone
os.close(rfd)
rc, _, err = p.finish(30)
err = (bytes(said) + err).decode(errors="replace")
t.ok("not being read" in err, "stalled reader: said on stderr", err.strip()[:300])
t.eq(rc, 0, "stalled reader: the run still ends well once read")
check_nothing_left(t, "stalled reader")

# SIGTERM and SIGINT stop cleanly with exit 0.
for sig in (signal.SIGTERM, signal.SIGINT):
    tr = Tracer(["--json"])
    tr.ready()
    if sig == signal.SIGTERM:
        # What check_nothing_left() looks for is what a running tracer loads.
        t.ok(len(loaded_progs()) >= 10, "running: its programs are seen loaded",
             loaded_progs(), ">= 10 programs")
    rc, out, err = tr.stop(sig)
    t.eq(rc, 0, "signal %d: clean exit 0" % sig)
    t.eq(err, "", "signal %d: nothing on stderr" % sig)
    check_nothing_left(t, "signal %d" % sig)

t.done()
