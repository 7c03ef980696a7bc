#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""--user (issue 18, item 5): once attached, pgrptrace runs as another user
with no capability at all, as /proc/PID/status says, and still traces: the
stream, -o reopened on SIGHUP after a rotation, and a re-read of the machine
after lost records (the iterator's link, kept from before the drop). What
would need privileges later is refused at start."""
import os
import pwd
import re
import shutil
import signal
import socket
import tempfile
import urllib.request

from harness import (PGRPTRACE, Tap, Tracer, check_nothing_left, exit_record, run, run_tracer,
                     wait_until, workload)

t = Tap()
USER = "nobody"
nobody = pwd.getpwnam(USER)


def status(pid):
    with open("/proc/%d/status" % pid) as f:
        return dict(l.rstrip("\n").split(":\t", 1) for l in f if ":\t" in l)


def in_file(path, needle):
    try:
        with open(path) as f:
            return needle in f.read()
    except OSError:
        return False


d = tempfile.mkdtemp(prefix="pgt-user-")
os.chown(d, nobody.pw_uid, nobody.pw_gid)
log = os.path.join(d, "trace.jsonl")
try:
    # A privileged port: the user could not bind it; pgrptrace binds it before the drop.
    for port in range(1000, 700, -1):
        with socket.socket() as sk:
            try:
                sk.bind(("127.0.0.1", port))
                break
            except OSError:
                continue
    tr = Tracer(["--json", "-o", log, "--user", USER, "--metrics", str(port)])
    if tr.ready() and wait_until(lambda: b"now running as" in tr._err, "the drop"):
        st = status(tr.pid)
        t.eq([st["Uid"].split(), st["Gid"].split()],
             [[str(nobody.pw_uid)] * 4, [str(nobody.pw_gid)] * 4],
             "--user: every uid and gid is the user's")
        t.eq({k: st[k] for k in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb")},
             {k: "0000000000000000" for k in ("CapInh", "CapPrm", "CapEff", "CapBnd",
                                                "CapAmb")},
             "--user: no capability in any set, the bounding set included")
        t.eq(st.get("NoNewPrivs"), "1", "--user: no_new_privs")
        # --metrics: bound as root on a privileged port, served after the drop.
        with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=5) as r:
            page = r.read().decode()
        t.ok("pgrptrace_processes " in page, "--user: --metrics, bound before the drop, "
             "still answers")
        t.eq((os.stat(log).st_uid, oct(os.stat(log).st_mode & 0o777)),
             (nobody.pw_uid, "0o600"), "--user: -o FILE is the user's, still 0600")
        # The stream, after the drop.
        w = run(workload("exit", 0))
        t.ok(wait_until(lambda: in_file(log, exit_record(w.pid)), "a record after the drop"),
             "--user: a process started after the drop is traced")
        # Rotated: reopened as the user.
        os.rename(log, log + ".1")
        tr.p.send_signal(signal.SIGHUP)
        t.ok(wait_until(lambda: os.path.exists(log), "the file reopened"),
             "--user: SIGHUP reopens -o FILE as the user")
        w = run(workload("exit", 0))
        t.ok(wait_until(lambda: in_file(log, exit_record(w.pid)), "a record in the new file"),
             "--user: records go on into the new file")
    rc, out, err = tr.stop()
    t.eq(rc, 0, "--user: exit 0 on SIGTERM")
    t.ok(not re.search(r"cannot|refuse|fail", err), "--user: no failure said", err[-400:])
    # Lost records: the machine is read again through the kept link.
    tr = Tracer(["--json", "-o", log + ".storm", "--user", USER, "--ringbuf-size", "4096"])
    if tr.ready() and wait_until(lambda: b"now running as" in tr._err, "the drop"):
        # A storm while the reader is stopped overflows 4 KiB for certain
        # (a running reader may keep up with it).
        os.kill(tr.pid, signal.SIGSTOP)
        run(workload("storm"), timeout=120)
        os.kill(tr.pid, signal.SIGCONT)
        wait_until(lambda: in_file(log + ".storm", '"event":"lost"'), "the lost record")
        t.ok(in_file(log + ".storm", '"event":"lost"'),
             "--user: a storm overflows the 4 KiB ring buffer", bytes(tr._err[-600:]))
        t.ok(wait_until(lambda: in_file(log + ".storm", '"event":"correction"'),
                        "the re-read"),
             "--user: the machine is re-read after the loss (corrections)")
    rc, out, err = tr.stop()
    t.eq(rc, 0, "--user, storm: exit 0 on SIGTERM")
    t.ok("cannot take the snapshot" not in err, "--user, storm: the re-read worked",
         err[-400:])
finally:
    shutil.rmtree(d, ignore_errors=True)

# Refused at start, before tracing: each says why.
root_only = tempfile.mkdtemp(prefix="pgt-user-root-")
os.chmod(root_only, 0o700)
for args, want, why in (
        (["--user", USER, "--", "true"], 125, "--user and a command exclude each other"),
        (["--user", "no-such-user-here", "-d", "1"], 2, "no such user"),
        (["--user", "root", "-d", "1"], 2, "is root"),
        (["--user", USER, "--replay", "/dev/null"], 2, "not with --replay"),
        (["--user", USER, "-o", os.path.join(root_only, "x"), "-d", "5"], 1,
         "cannot create files in")):
    r = run([PGRPTRACE] + args, timeout=60)
    t.eq(r.returncode, want, "%s: exit %d" % (" ".join(args), want))
    t.ok(why in r.stderr, "%s: says why" % " ".join(args), r.stderr.strip()[-300:])
shutil.rmtree(root_only, ignore_errors=True)

check_nothing_left(t, "user")
t.done()
