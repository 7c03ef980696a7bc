# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Shared harness of the integration tests: TAP output, safe process handling,
running the tracer, and checking that nothing BPF is left behind.

Safety rules, enforced here for every test:
- the test process is a child subreaper, so no orphan reaches PID 1;
- every workload runs in a session of its own, and only that session's
  process group is ever signalled;
- kill(-1) is never used here.
"""
import ctypes
import json
import os
import signal
import subprocess
import sys
import tempfile

PR_SET_CHILD_SUBREAPER = 36
PGRPTRACE = os.environ.get("PGRPTRACE", os.path.abspath("pgrptrace"))
WORKLOAD = os.environ.get("WORKLOAD", os.path.abspath(".output/tests/workload"))
TIMEOUT = 60

# Program names as the kernel keeps them (16 bytes with the NUL).
OUR_PROGS = {n[:15] for n in (
    "sched_process_fork", "sched_process_fork_raw", "sched_process_exec",
    "sched_process_exec_raw", "sched_process_exit", "sched_process_exit_raw",
    "sys_enter_setsid", "sys_exit_setsid", "sys_enter_setpgid", "sys_exit_setpgid",
    "sys_enter_prctl", "sys_exit_prctl")}

_libc = ctypes.CDLL(None, use_errno=True)

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCHEMA_PATH = os.path.join(TOP, "docs", "events.schema.json")
_validator = None
_validated = 0
_schema_errors = []


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
        if not isinstance(r, dict) or "schema" not in r:
            continue
        _validated += 1
        errs = list(_validator.iter_errors(r))
        if errs:
            _schema_errors.append((r.get("event"), errs[0].message[:200]))


def become_subreaper():
    if _libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER)")


def reap_orphans():
    """Collect any orphan that was reparented to us."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0
        self.skipped = 0
        become_subreaper()

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
        reap_orphans()
        if _validated:
            self.eq(_schema_errors[:5], [], "schema: all %d JSON records match %s" %
                    (_validated, os.path.relpath(SCHEMA_PATH, TOP)))
        print("1..%d" % self.n, flush=True)
        sys.exit(1 if self.failed else 0)


def loaded_progs():
    out = subprocess.run(["bpftool", "-j", "prog", "show"], capture_output=True, text=True,
                         timeout=TIMEOUT, check=True).stdout
    return [p for p in json.loads(out or "[]") if p.get("name") in OUR_PROGS]


def check_nothing_left(t, what):
    left = loaded_progs()
    t.ok(not left, "%s: no pgrptrace BPF program left loaded" % what,
         [p.get("name") for p in left], [])


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

    def of(self, event, pid=None):
        return [e for e in self.events if e.get("event") == event and
                (pid is None or (e.get("process") or {}).get("pid") == pid)]

    def fact(self, what):
        return [f for f in self.facts if f.get("what") == what]


def run_tracer(args, env=None, timeout=TIMEOUT, cwd=None, stdin=None):
    """Run pgrptrace in a session of its own; returns a Run. The whole session
    is killed if it outlives the timeout, and orphans come back to us."""
    fd, facts_path = tempfile.mkstemp(prefix="pgt-facts-")
    os.close(fd)
    full_env = dict(os.environ)
    full_env["PGT_FACTS"] = facts_path
    if env:
        full_env.update(env)
    p = subprocess.Popen([PGRPTRACE] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         stdin=stdin if stdin is not None else subprocess.DEVNULL,
                         text=True, errors="surrogateescape", env=full_env, cwd=cwd,
                         start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        err += "\n[harness: killed after %ds]" % timeout
    kill_session(p.pid)
    with open(facts_path) as f:
        facts = [json.loads(line) for line in f if line.strip()]
    os.unlink(facts_path)
    reap_orphans()
    return Run(p.returncode, out, err, facts)


def kill_session(pgid):
    """SIGKILL what is left of a process group this test created."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def workload(*args):
    return [WORKLOAD] + [str(a) for a in args]
