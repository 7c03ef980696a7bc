# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Shared harness of the integration tests: TAP output, safe process handling,
running the tracer, and checking that nothing BPF is left behind.

Safety rules, enforced here for every test:
- the test process is a child subreaper, so no orphan reaches PID 1;
- every command runs in a Box: a cgroup v2 of its own (or, with no cgroup2,
  the processes whose environment carries the box's tag), so that what it
  started can be found and killed whatever session or group it moved to;
- every wait is bounded: a command that outlives its timeout is killed with
  all it started, its pipes are read with a bound, and the test gets a
  "not ok" that names the command and what was still alive;
- only processes in the test's own boxes are ever signalled; kill(-1) is
  never used here.
"""
import atexit
import ctypes
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

import fields

PR_SET_CHILD_SUBREAPER = 36
PGRPTRACE = os.environ.get("PGRPTRACE", os.path.abspath("pgrptrace"))
WORKLOAD = os.environ.get("WORKLOAD", os.path.abspath(".output/tests/workload"))
# Every bound of a test; a guest under emulation (PGT_TIME_SCALE=5) is that
# many times slower, and TCG under load more (alarm_flood took 42 s of 60
# in 5.10's guest, and over 60 under make check-loaded).
TIMEOUT = 60 * int(os.environ.get("PGT_TIME_SCALE", "1"))
# Where the time goes inside a file: with PGT_PROFILE set, each command a
# test ran is appended to that file with its wall time (box emptied included).
PROFILE = os.environ.get("PGT_PROFILE")

def check_json():
    """`pgrptrace --check --json`, parsed. It loads every hook level, which
    takes seconds (tens of them under emulation), and its answer depends
    only on the binary, the kernel and the PGRPTRACE_* settings: it is kept
    in a file under $TMPDIR named after those, so that the files of a pass
    run it once."""
    global _check
    if _check is not None:
        return _check
    import hashlib
    st = os.stat(PGRPTRACE)
    key = repr((os.path.realpath(PGRPTRACE), st.st_ino, st.st_size, st.st_mtime_ns,
                os.uname().release, sorted((k, v) for k, v in os.environ.items()
                                           if k.startswith("PGRPTRACE"))))
    path = os.path.join(tempfile.gettempdir(), "pgt-check-%s.json" %
                        hashlib.sha1(key.encode()).hexdigest()[:16])
    try:
        with open(path) as f:
            _check = json.load(f)
        return _check
    except (OSError, ValueError):
        pass
    out = subprocess.run([PGRPTRACE, "--check", "--json"], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, timeout=TIMEOUT * 5, text=True).stdout
    _check = json.loads(out)
    with open(path + ".%d" % os.getpid(), "w") as f:
        f.write(out)
    os.rename(path + ".%d" % os.getpid(), path)
    return _check


_check = None


def our_progs():
    """Every program in the tracer's BPF object, by the name the kernel keeps
    (15 characters), as `pgrptrace --check --json` lists them."""
    progs = {p["name"][:15] for p in check_json()["programs"]}
    if not progs:
        raise RuntimeError("pgrptrace --check --json lists no programs")
    return progs


_libc = ctypes.CDLL(None, use_errno=True)

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCHEMA_PATH = os.path.join(TOP, "docs", "events.schema.json")
_validator = None
_validated = 0
_schema_errors = []
_seq_runs = 0
_seq_errors = []
# The fields every record had (fields.py), kept for tests/check-fields when
# PGT_FIELDS names a directory.
FIELDS_DIR = os.environ.get("PGT_FIELDS")
_fields_seen = set()
_fields_unknown = set()
_kinds_seen = set()


def validate(records):
    """Check JSON Lines records against docs/events.schema.json; the result is
    reported as one test by Tap.done()."""
    global _validator, _validated
    import jsonschema
    if _validator is None:
        with open(SCHEMA_PATH) as f:
            schema = json.load(f)
        jsonschema.Draft7Validator.check_schema(schema)
        _validator = jsonschema.Draft7Validator(schema)
    for r in records:
        if isinstance(r, dict) and "@timestamp" in r:
            r = r.get("pgrptrace")        # --ecs: the native record rides along
        if not isinstance(r, dict) or "schema" not in r or "event" not in r:
            continue        # not a record: the tree document, --check's
        _validated += 1
        errs = list(_validator.iter_errors(r))
        if errs:
            _schema_errors.append((r.get("event"), errs[0].message[:200]))
        if FIELDS_DIR:
            _kinds_seen.add(r.get("event"))
            fields.fields_of(_validator.schema, r, _fields_seen, _fields_unknown)


def check_seq(records):
    """One run's native records: seq is 0, 1, 2, ... in the order written.
    Reported as one test by Tap.done()."""
    global _seq_runs
    seqs = [r["seq"] for r in records if isinstance(r, dict) and "schema" in r and "seq" in r]
    if not seqs:
        return
    _seq_runs += 1
    if seqs != list(range(len(seqs))):
        bad = next(i for i, v in enumerate(seqs) if v != i)
        _seq_errors.append(("record %d has seq %r" % (bad, seqs[bad])))


def become_subreaper():
    if _libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER)")


_live = set()           # pids of our Popens not yet waited for: never reaped here


def _children():
    """This process's children, from every thread's children file, or (with
    no CONFIG_PROC_CHILDREN) from /proc."""
    me = os.getpid()
    kids = set()
    try:
        for tid in os.listdir("/proc/%d/task" % me):
            with open("/proc/%d/task/%s/children" % (me, tid)) as f:
                kids.update(int(x) for x in f.read().split())
        return kids
    except FileNotFoundError:
        pass
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                st = f.read()
        except OSError:
            continue
        if int(st[st.rindex(")") + 2:].split()[1]) == me:
            kids.add(int(d))
    return kids


def reap_orphans():
    """Collect the orphans that were reparented to us and have exited. A
    child that a Popen still waits for is left to it, so that its exit
    status is never lost."""
    for pid in _children() - _live:
        try:
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            pass


_tap = None


class Tap:
    def __init__(self):
        global _tap
        self.n = 0
        self.failed = 0
        self.skipped = 0
        become_subreaper()
        exit_on_signals()
        _tap = self

    def ok(self, cond, name, got=None, want=None):
        self.n += 1
        print("%s %d - %s" % ("ok" if cond else "not ok", self.n, name), flush=True)
        if not cond:
            self.failed += 1
            if got is not None or want is not None:
                self.diag("     got: %r" % (got,))
                self.diag("expected: %r" % (want,))
        return cond

    def eq(self, got, want, name):
        return self.ok(got == want, name, got, want)

    def skip(self, name, why):
        self.n += 1
        self.skipped += 1
        print("ok %d - %s # SKIP %s" % (self.n, name, why), flush=True)

    def diag(self, msg):
        for line in str(msg).splitlines():
            print("# " + line, flush=True)

    def done(self):
        for box in list(_boxes):
            left = box.close()
            self.ok(not left, "cleanup: nothing left running of %s" % box.what, left, [])
        reap_orphans()
        if _validated:
            self.eq(_schema_errors[:5], [], "schema: all %d JSON records match %s" %
                    (_validated, os.path.relpath(SCHEMA_PATH, TOP)))
        if _seq_runs:
            self.eq(_seq_errors[:3], [], "seq: every one of %d runs numbers its records "
                    "0, 1, 2, ... as written" % _seq_runs)
        if FIELDS_DIR and _kinds_seen:
            _write_fields()
        print("1..%d" % self.n, flush=True)
        sys.exit(1 if self.failed else 0)


def _write_fields():
    """The fields this file's records had, for tests/check-fields."""
    os.makedirs(FIELDS_DIR, exist_ok=True)
    name = "%s-%d.json" % (os.path.basename(sys.argv[0]), os.getpid())
    with open(os.path.join(FIELDS_DIR, name + ".tmp"), "w") as f:
        json.dump({"file": os.path.basename(sys.argv[0]), "kinds": sorted(_kinds_seen),
                   "fields": sorted(_fields_seen), "unknown": sorted(_fields_unknown)}, f)
    os.rename(os.path.join(FIELDS_DIR, name + ".tmp"), os.path.join(FIELDS_DIR, name))


def loaded_progs():
    out = run(["bpftool", "-j", "prog", "show"], check=True).stdout
    return [p for p in json.loads(out or "[]") if p.get("name") in our_progs()]


# pgrptrace hands its links to a child that releases them after it exits
# (loader__release()): the kernel's grace periods take about a second.
RELEASE_BOUND = 10


def check_nothing_left(t, what):
    """No program of ours is loaded, at most RELEASE_BOUND seconds after
    the run (a state waited for, not a time)."""
    scale = int(os.environ.get("PGT_TIME_SCALE", "1"))
    deadline = time.monotonic() + RELEASE_BOUND * scale
    left = loaded_progs()
    while left and time.monotonic() < deadline:
        time.sleep(0.05)            # polling a state, bounded
        left = loaded_progs()
    t.ok(not left, "%s: no pgrptrace BPF program left loaded (within %d s of its end)"
         % (what, RELEASE_BOUND * scale), [p.get("name") for p in left], [])


class Run:
    """One finished tracer run."""

    def __init__(self, rc, out, err, facts):
        self.rc = rc
        self.out = out
        self.err = err
        self.facts = facts
        self.events = []
        self.bad_lines = []
        for line in out.splitlines():
            try:
                self.events.append(json.loads(line))
            except ValueError:
                self.bad_lines.append(line)
        validate(self.events)
        check_seq(self.events)

    def of(self, event, pid=None):
        return [e for e in self.events if e.get("event") == event and
                (pid is None or (e.get("process") or {}).get("pid") == pid)]

    def fact(self, what):
        return [f for f in self.facts if f.get("what") == what]


def _cgroup2_home():
    """The cgroup v2 directory this process is in, or None."""
    mnt = None
    with open("/proc/self/mounts") as f:
        for line in f:
            fields = line.split()
            if fields[2] == "cgroup2":
                mnt = fields[1]
                break
    if not mnt:
        return None
    with open("/proc/self/cgroup") as f:
        own = [l.split(":", 2)[2].strip() for l in f if l.startswith("0::")]
    home = os.path.join(mnt, own[0].lstrip("/")) if own else mnt
    return home if os.access(home, os.W_OK) else None


_boxes = []
_box_seq = 0


class Box:
    """Everything one command starts, whatever session, group or parent it
    moves to: the members of a cgroup v2 of its own, a child of this
    process's (emptied with cgroup.kill), and the processes whose environment
    carries the box's tag in PGT_BOX. With no writable cgroup2 the tag alone
    finds them, and a process that clears its environment (as sshd's
    children do) escapes it."""

    def __init__(self, what):
        global _box_seq
        _box_seq += 1
        self.what = what
        self.tag = "%d.%d" % (os.getpid(), _box_seq)
        self.path = None
        self.by_tag = True
        home = _cgroup2_home()
        if home:
            path = os.path.join(home, "pgt-box-" + self.tag)
            try:
                os.mkdir(path)
                self.path = path
            except OSError:
                pass
        _boxes.append(self)

    def enter(self):
        """Run in the child between fork and exec. A cgroup that refuses the
        move leaves the environment tag to find the process."""
        if self.path:
            try:
                with open(os.path.join(self.path, "cgroup.procs"), "w") as f:
                    f.write("0")
            except OSError:
                pass

    def environ(self, env):
        env = dict(os.environ if env is None else env)
        outer = env.get("PGT_BOX")          # a box inside a box carries both tags
        env["PGT_BOX"] = outer + ":" + self.tag if outer else self.tag
        return env

    def cgroup_pids(self):
        """The processes of the box's cgroup and of the cgroups below it (a
        box inside a box is a cgroup inside a cgroup)."""
        found = []
        for top, _, _ in os.walk(self.path) if self.path else ():
            try:
                with open(os.path.join(top, "cgroup.procs")) as f:
                    found += [int(l) for l in f if l.strip()]
            except OSError:
                pass
        return found

    def pids(self):
        """The box's processes: its cgroup's and, unless every process is
        known to have entered the cgroup, those carrying its tag (reading
        every process's environment is the slow way)."""
        found = self.cgroup_pids()
        if not self.by_tag:
            return sorted(set(found))
        tag = self.tag.encode()
        for d in os.listdir("/proc"):
            if not d.isdigit() or int(d) == os.getpid():
                continue
            try:
                with open("/proc/%s/environ" % d, "rb") as f:
                    env = f.read().split(b"\0")
            except OSError:
                continue
            for var in env:
                if var.startswith(b"PGT_BOX=") and tag in var[8:].split(b":"):
                    found.append(int(d))
                    break
        return sorted(set(found))

    def entered(self, pid):
        """Called once @pid, the box's first process, has exec'd: if it is
        in the cgroup, so is everything it starts, and the tag is not
        needed to find them."""
        if pid in self.cgroup_pids():
            self.by_tag = False

    def alive(self):
        """What is still running in the box, as 'pid comm (state, sid)'."""
        out = []
        for pid in self.pids():
            try:
                with open("/proc/%d/stat" % pid) as f:
                    st = f.read()
            except OSError:
                continue
            comm = st[st.index("(") + 1:st.rindex(")")]
            rest = st[st.rindex(")") + 2:].split()
            out.append("%d %s (%s, sid %s)" % (pid, comm, rest[0], rest[3]))
        return out

    def kill(self, bound=10):
        """SIGKILL everything in the box and wait (bounded) until it is empty.
        Returns what was still there at the deadline."""
        deadline = time.monotonic() + bound
        killer = self.path and os.path.join(self.path, "cgroup.kill")
        while True:
            pids = self.pids()
            if not pids:
                break
            rest = pids
            if killer and os.path.exists(killer):
                with open(killer, "w") as f:
                    f.write("1")
                rest = set(pids) - set(self.cgroup_pids())
            for pid in rest:            # found by the tag alone
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            reap_orphans()
            if time.monotonic() > deadline:
                return self.alive()
            time.sleep(0.01)        # polling the box until it is empty
        reap_orphans()
        return []

    def close(self):
        left = self.kill()
        if self.path and not left:
            try:
                os.rmdir(self.path)
            except OSError:
                pass
        if self in _boxes:
            _boxes.remove(self)
        return left


def exit_on_signals():
    """SIGTERM and SIGHUP (from timeout(1), make or a closed terminal) end the
    program through SystemExit, so that atexit still empties the boxes."""
    def _exit(sig, _frame):
        raise SystemExit(128 + sig)
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _exit)


@atexit.register
def _close_boxes():
    for box in list(_boxes):
        box.close()


class Proc:
    """A command running in a Box of its own. Its stdout and stderr pipes are
    drained by threads (unless drain=False: the caller reads them), so that
    finish() waits for the command itself, not for whoever holds its pipes;
    then everything it left in its box is killed. Past the bound, the box is
    killed too, and the current test records a failure naming the command
    and what was still alive."""

    def __init__(self, cmd, what=None, env=None, stdin=None, stdout=subprocess.PIPE,
                 stderr=subprocess.PIPE, text=True, new_session=True, drain=True, **kw):
        import threading
        self.what = what or " ".join(os.path.basename(str(c)) if i == 0 else str(c)
                                     for i, c in enumerate(cmd))[:120]
        self.box = Box(self.what)
        self.text = text
        self.p = subprocess.Popen([str(c) for c in cmd], env=self.box.environ(env),
                                  stdin=subprocess.DEVNULL if stdin is None else stdin,
                                  stdout=stdout, stderr=stderr, text=text,
                                  errors="surrogateescape" if text else None,
                                  start_new_session=new_session,
                                  preexec_fn=self.box.enter, **kw)
        self.pid = self.p.pid
        self.started = time.monotonic()
        _live.add(self.pid)
        self.box.entered(self.pid)
        self.timed_out = False
        self.hung = ""
        self._out = bytearray()
        self._err = bytearray()
        self._lock = threading.Lock()
        self._reading = threading.Event()   # cleared: stdout is not read (pause())
        self._reading.set()
        self._threads = []
        for pipe, buf in ((self.p.stdout, self._out), (self.p.stderr, self._err)):
            if pipe is None or not drain:
                continue
            th = threading.Thread(target=self._drain, args=(pipe, buf), daemon=True)
            th.start()
            self._threads.append(th)

    def _drain(self, pipe, buf):
        try:
            while True:
                if buf is self._out:
                    self._reading.wait()
                chunk = os.read(pipe.fileno(), 65536)
                if not chunk:
                    break
                with self._lock:
                    buf += chunk
        except (OSError, ValueError):
            pass

    def pause(self):
        """Stop reading its standard output (a reader that stalls), until resume()
        (which stop() and finish() call): a read already waiting takes one more chunk."""
        self._reading.clear()

    def resume(self):
        self._reading.set()

    def _hang(self, why, expect_hang):
        self.timed_out = True
        self.hung = "%s: %s; alive then: %s" % (self.what, why,
                                                "; ".join(self.box.alive()) or "none")
        if not expect_hang and _tap:
            _tap.ok(False, "%s: finished in time" % self.what)
            _tap.diag(self.hung)

    def finish(self, timeout=None, expect_hang=False, input=None):
        """Wait at most @timeout seconds for the command to exit; kill what
        is left of it either way. Returns (returncode, stdout, stderr)."""
        timeout = TIMEOUT if timeout is None else timeout
        self.resume()
        if input is not None and self.p.stdin:
            import threading

            def feed():     # a command that never reads must not block us
                try:
                    self.p.stdin.write(input)
                    self.p.stdin.close()
                except (BrokenPipeError, ValueError, OSError):
                    pass
            threading.Thread(target=feed, daemon=True).start()
        try:
            self.p.wait(timeout)
        except subprocess.TimeoutExpired:
            self._hang("still running after %ds" % timeout, expect_hang)
        return self._end()

    def _end(self):
        left = self.box.close()
        if PROFILE:
            with open(PROFILE, "a") as f:
                f.write("%.2f\t%s\t%s\n" % (time.monotonic() - self.started,
                                            os.path.basename(sys.argv[0]),
                                            " ".join(self.what.split())))
        if left and _tap:
            _tap.ok(False, "%s: its processes could be killed" % self.what, left, [])
        try:
            self.p.wait(10)
        except subprocess.TimeoutExpired:
            pass
        _live.discard(self.pid)
        for th in self._threads:
            th.join(10)
        busy = [th for th in self._threads if th.is_alive()]
        rest = ("", "") if self.text else (b"", b"")
        if not self._threads and (self.p.stdout or self.p.stderr):
            try:
                rest = self.p.communicate(timeout=10)
            except (subprocess.TimeoutExpired, ValueError):
                pass
        for pipe in (self.p.stdin, self.p.stdout, self.p.stderr):
            # A pipe still being read (held by something unkillable) stays
            # open: closing it under the reader could hand it a reused fd.
            if pipe and not (busy and pipe is not self.p.stdin):
                try:
                    pipe.close()
                except OSError:
                    pass
        reap_orphans()
        with self._lock:
            out, err = bytes(self._out), bytes(self._err)
        if self.text:
            out = out.decode(errors="surrogateescape") + (rest[0] or "")
            err = err.decode(errors="surrogateescape") + (rest[1] or "")
        else:
            out, err = out + (rest[0] or b""), err + (rest[1] or b"")
        if self.hung:
            err += ("\n[harness: %s]" % self.hung) if self.text else b""
        return self.p.returncode, out, err


class Result:
    def __init__(self, rc, out, err, proc):
        self.returncode = rc
        self.stdout = out
        self.stderr = err
        self.timed_out = proc.timed_out
        self.hung = proc.hung
        self.pid = proc.pid


def run(cmd, timeout=None, input=None, expect_hang=False, check=False, **kw):
    """subprocess.run() for the tests: bounded, in a Box, output captured (text
    unless text=False). A non-zero exit with @check records a failure."""
    kw.pop("capture_output", None)        # always captured
    proc = Proc(cmd, stdin=subprocess.PIPE if input is not None else kw.pop("stdin", None), **kw)
    rc, out, err = proc.finish(timeout, expect_hang=expect_hang, input=input)
    if check and rc != 0 and _tap:
        _tap.ok(False, "%s: exit 0" % proc.what, (rc, (err or "")[-300:]), 0)
    return Result(rc, out, err, proc)


def run_tracer(args, env=None, timeout=TIMEOUT, cwd=None, stdin=None, expect_hang=False,
               to_file=False):
    """Run pgrptrace in a session and a Box of its own; returns a Run. Past
    the timeout, everything it started is killed, wherever it went. With
    @to_file the records go to a file (-o), which the command finds in
    $PGT_TRACER_OUT: it can then wait for a record (tracer_said()), a state,
    rather than for a time."""
    fd, facts_path = tempfile.mkstemp(prefix="pgt-facts-")
    os.close(fd)
    full_env = dict(os.environ)
    full_env["PGT_FACTS"] = facts_path
    out_path = None
    if to_file:
        fd, out_path = tempfile.mkstemp(prefix="pgt-out-")
        os.close(fd)
        full_env["PGT_TRACER_OUT"] = out_path
        args = ["-o", out_path] + list(args)
    if env:
        full_env.update(env)
    what = " ".join(["pgrptrace"] + [os.path.basename(a) if a == WORKLOAD else a
                                      for a in args])[:160]
    proc = Proc([PGRPTRACE] + args, what=what, env=full_env, stdin=stdin, cwd=cwd)
    rc, out, err = proc.finish(timeout, expect_hang=expect_hang)
    if out_path:
        with open(out_path, errors="surrogateescape") as f:
            out = f.read() + out
        os.unlink(out_path)
    facts = []
    with open(facts_path) as f:
        for line in f:
            try:
                facts.append(json.loads(line))
            except ValueError:          # cut off by a kill, or garbage
                if line.strip() and _tap:
                    _tap.diag("%s: a fact that is not JSON: %r" % (what, line[:200]))
    os.unlink(facts_path)
    r = Run(rc, out, err, facts)
    r.timed_out = proc.timed_out
    r.hung = proc.hung
    r.pid = proc.pid
    return r


def tracer_said(needles, timeout):
    """In a command of run_tracer(..., to_file=True): wait, at most @timeout
    seconds, until the tracer has written a line that holds each of
    @needles (bytes). False at the bound, or when there is no such file."""
    path = os.environ.get("PGT_TRACER_OUT")
    if not path:
        return False
    deadline = time.monotonic() + timeout
    while True:
        try:
            with open(path, "rb") as f:
                lines = f.read().splitlines()
        except OSError:
            lines = []
        if any(all(n in line for n in needles) for line in lines):
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)            # polling a state, bounded by the deadline


def workload(*args):
    return [WORKLOAD] + [str(a) for a in args]


def wait_until(cond, what, timeout=TIMEOUT, every=0.01):
    """Poll @cond until it is true, at most @timeout seconds; a timeout is a
    failure of the current test, named by @what. Returns cond's last value."""
    deadline = time.monotonic() + timeout
    while True:
        v = cond()
        if v or time.monotonic() > deadline:
            break
        time.sleep(every)           # polling a state, bounded by the deadline
    if not v and _tap:
        _tap.ok(False, "%s: within %ds" % (what, timeout))
    return v


class Tracer(Proc):
    """pgrptrace running in the background (-v added): ready() waits for it
    to attach, seen() for a needle in its stdout, stop() signals it and
    finishes it."""

    def __init__(self, args, env=None, **kw):
        super().__init__([PGRPTRACE, "-v"] + list(args), what="pgrptrace " + " ".join(args),
                         env=env, **kw)

    def ready(self, timeout=TIMEOUT):
        up = wait_until(lambda: b"loaded and attached" in self._err or self.p.poll() is not None,
                        "%s: attached" % self.what, timeout) and self.p.poll() is None
        if not up and self.p.poll() is not None and _tap:
            _tap.ok(False, "%s: still running once attached" % self.what,
                    (self.p.returncode, bytes(self._err[-300:])), "running")
        return up

    def seen(self, needle, timeout=TIMEOUT):
        needle = needle.encode() if isinstance(needle, str) else needle
        at = 0

        def printed():
            # Only what came since the last look: a churn's output is tens of
            # MiB, and a search of it all, every 10 ms, held the interpreter
            # lock the drain thread needs (the tracer's queue grew, then lost
            # records, under make check's load).
            nonlocal at
            with self._lock:
                found = self._out.find(needle, at) >= 0
                at = max(0, len(self._out) - len(needle) + 1)
            return found
        return wait_until(printed, "%s: printed %r" % (self.what, needle), timeout)

    def stop(self, sig=signal.SIGTERM, timeout=30):
        """Signal the tracer and wait for it with a bound: (rc, out, err),
        stderr without the -v lines of its start."""
        self.resume()
        if self.p.poll() is None:
            self.p.send_signal(sig)
        try:
            self.p.wait(timeout)
        except subprocess.TimeoutExpired:
            self._hang("still running %ds after signal %d" % (timeout, sig), False)
        rc, out, err = self._end()
        # Its JSON records against the schema too: up to 2000, spread over
        # the run (a flood's hundreds of thousands would take minutes).
        lines = [ln for ln in out.splitlines() if ln.startswith("{")] \
            if isinstance(out, str) else []
        recs = []
        for line in lines[::max(1, len(lines) // 2000)]:
            try:
                recs.append(json.loads(line))
            except ValueError:
                pass
        validate(recs)
        start = err.rfind("loaded and attached")
        if start >= 0:
            err = err[err.find("\n", start) + 1:]
        return rc, out, err


def field_bytes(rec, name):
    """A string field's exact bytes (a list's, for a list of strings): from
    NAME_hex where the writer gave one (not UTF-8), else its UTF-8; None if
    the field is absent or null."""
    if not isinstance(rec, dict):
        return None
    if name + "_hex" in rec:
        v = rec[name + "_hex"]
        return [bytes.fromhex(x) for x in v] if isinstance(v, list) else bytes.fromhex(v)
    v = rec.get(name)
    if v is None:
        return None
    return [x.encode() for x in v] if isinstance(v, list) else v.encode()


def exit_record(pid):
    """The start of the JSON exit record of @pid, as pgrptrace writes it."""
    return '"event":"exit","process":{"pid":%d,' % pid
