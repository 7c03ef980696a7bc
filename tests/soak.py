#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""make soak: everything at once for SOAK_SECONDS (default 600), under
`pgrptrace --verify`, and the model checked against /proc between rounds.

Each round runs together: a real bash driven on a pty (jobs, ^Z, ^C, a
hangup), logins over a private sshd with nested ssh, tmux and su (when sshd
can run here), the randomized fidelity generator, process churn, the
group, session and orphan scenarios of the workload, and throughout the
soak a timer firing SIGALRM at 1 kHz beside a pty flood. When every process
of a round has ended (this script is their subreaper), it asks the tracer to
compare its model with /proc (a quiet point). At the end it prints the
figures and exits 1 if any check found a difference, any reparent was
"corrected" back to the parent that was exiting (a false prediction
warning), a SIGALRM was blamed on a tty or an ioctl, or a record was
misnumbered.

Every process is started by this script and killed by it at the end; every
wait is bounded."""
import ctypes
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
PGRPTRACE = os.environ.get("PGRPTRACE", os.path.join(TOP, "pgrptrace"))
WORKLOAD = os.environ.get("WORKLOAD", os.path.join(TOP, ".output/tests/workload"))
FIDELITY = os.environ.get("FIDELITY", os.path.join(TOP, ".output/tests/fidelity"))
ROUND_BOUND = 180          # seconds a round may take before it is killed



def driver(seconds):
    """The tracer's command: rounds of workloads, a quiet point after each."""
    ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)            # PR_SET_CHILD_SUBREAPER
    tracer = os.getppid()
    # Quiet-point requests of the fidelity generator come to us, its parent:
    # answered at once (the real checks are ours, between rounds).
    signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGUSR1])

    def relay():
        while True:
            info = signal.sigwaitinfo([signal.SIGUSR1])
            if info.si_pid != tracer:
                try:
                    os.kill(info.si_pid, signal.SIGUSR1)
                except ProcessLookupError:
                    pass
            else:
                answered.set()
    answered = threading.Event()
    threading.Thread(target=relay, daemon=True).start()
    env = dict(os.environ)
    env.pop("PGT_QUIET_POINTS", None)
    env["PGT_FACTS"] = os.devnull
    timer = subprocess.Popen([sys.executable, os.path.join(HERE, "integration", "alarm_flood.py")],
                             env=env)
    end = time.time() + seconds
    rounds = points = 0
    seed = 1000
    while time.time() < end:
        seed += 1
        cmds = [[sys.executable, os.path.join(HERE, "integration", "pty_session.py")],
                [sys.executable, os.path.join(HERE, "integration", "ssh_login.py")],
                [FIDELITY, str(seed), "1", "200"],
                [WORKLOAD, "churn", "3000"],
                [WORKLOAD, "setsid"], [WORKLOAD, "setpgid"], [WORKLOAD, "orphan"],
                [WORKLOAD, "daemonize"], [WORKLOAD, "zombie_orphan"],
                [WORKLOAD, "homegroup", "200"], [WORKLOAD, "thread_exec"],
                [WORKLOAD, "killgroup"], [WORKLOAD, "ctty"], [WORKLOAD, "threads"]]
        procs = [subprocess.Popen(c, env=env, stdin=subprocess.DEVNULL,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                 for c in cmds]
        bound = time.time() + ROUND_BOUND
        for p in procs:
            try:
                p.wait(max(1, bound - time.time()))
            except subprocess.TimeoutExpired:
                sys.stderr.write("soak: round %d: %s still running; killed\n" %
                                 (rounds, " ".join(p.args[:2])))
        # Everything the round started, wherever it went, ends before the check.
        kill_descendants(keep=timer.pid)
        rounds += 1
        answered.clear()
        os.kill(tracer, signal.SIGUSR1)
        if answered.wait(120):
            points += 1
        else:
            sys.stderr.write("soak: no answer to quiet point %d\n" % rounds)
    timer.kill()
    timer.wait()
    kill_descendants()
    print(json.dumps({"rounds": rounds, "quiet_points": points}), file=sys.stderr)
    return 0


def descendants():
    """Every process below us (we are a subreaper: orphans come back)."""
    me = os.getpid()
    parent = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open("/proc/%s/stat" % d) as f:
                    parent[int(d)] = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                pass
    out, todo = set(), [me]
    while todo:
        p = todo.pop()
        for c, pp in parent.items():
            if pp == p and c not in out:
                out.add(c)
                todo.append(c)
    return out


def kill_descendants(keep=None):
    """Kill and reap what is left of a round, with a bound."""
    for _ in range(100):
        left = descendants() - {keep}
        if not left:
            return
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        while True:
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0 or pid == keep:
                break
        time.sleep(0.05)                # reaping is the kernel's; poll it
    sys.stderr.write("soak: processes left: %s\n" % sorted(descendants()))


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--driver":
        sys.exit(driver(float(sys.argv[2])))
    seconds = float(os.environ.get("SOAK_SECONDS", "600"))
    log = tempfile.NamedTemporaryFile(prefix="pgt-soak-", suffix=".jsonl", delete=False).name
    os.unlink(log)
    t0 = time.time()
    p = subprocess.Popen([PGRPTRACE, "-v", "--verify", "--json", "--signals=all", "-a", "-o", log]
                         + os.environ.get("SOAK_ARGS", "").split() + [
                          "--", sys.executable, os.path.abspath(__file__), "--driver",
                          str(seconds)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    try:
        out, err = p.communicate(timeout=seconds + 2 * ROUND_BOUND + 300)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        print("soak: the tracer did not end in time")
        return 1
    wall = time.time() - t0
    checks = [l for l in out.splitlines() if l.startswith("verify: ") and "processes" in l]
    diffs = [l for l in out.splitlines() if l.startswith("verify: pid")]
    warnings = [l for l in err.splitlines() if "as predicted" in l]
    gone = [l for l in err.splitlines() if "is gone from /proc before its reap record" in l]
    figures = {}
    for l in err.splitlines():
        if l.startswith("{"):
            figures = json.loads(l)
    records = tty_alarms = 0
    seq_ok = True
    kinds = {}
    dying = {}                          # child pid -> parents seen exiting from under it
    with open(log) as f:
        for i, line in enumerate(f):
            r = json.loads(line)
            if r["event"] == "reparent":
                dying.setdefault(r["child"]["pid"], set()).add(r["process"]["pid"])
            records += 1
            kinds[r["event"]] = kinds.get(r["event"], 0) + 1
            seq_ok &= r["seq"] == i
            tty_alarms += r["event"] == "signal" and r["signal"] == "SIGALRM" and \
                r["cause"] != "kernel"
    # "pid C was reparented to A, not P as predicted": true when the kernel
    # chose another reaper than the prediction (one exiting at that moment);
    # false when A is the parent that was exiting, not yet reparented (item 7).
    false_warnings = []
    for l in warnings:
        w = l.split()
        child, actual = int(w[2]), int(w[6].rstrip(","))
        if actual in dying.get(child, ()):
            false_warnings.append(l)
    if os.environ.get("SOAK_KEEP"):
        print("soak: records kept in %s" % log)
    else:
        os.unlink(log)
    compared = sum(int(l.split()[1]) for l in checks)
    print("soak: %.0f s, %d rounds, %d quiet points, %d process comparisons, "
          "%d differences" % (wall, figures.get("rounds", 0), len(checks), compared,
                              len(diffs)))
    print("soak: %d records (%s), %d lost" % (records, ", ".join("%s %d" % kv for kv in
                                                               sorted(kinds.items())),
                                               kinds.get("lost", 0)))
    print("soak: %d reparent corrections, %d of them false (the exiting parent taken for the "
          "kernel's choice), %d SIGALRM blamed on a tty, seq %s, %d zombies dropped from the "
          "model before their reap records" %
          (len(warnings), len(false_warnings), tty_alarms,
           "0, 1, 2, ... as written" if seq_ok else "WRONG", len(gone)))
    for l in (diffs + false_warnings + warnings + gone)[:20]:
        print("  " + l)
    bad = diffs or false_warnings or tty_alarms or not seq_ok or p.returncode != 0 or \
        len(checks) < figures.get("rounds", 1)
    if p.returncode != 0:
        print("soak: the tracer exited %d: %s" % (p.returncode, err.strip()[-500:]))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
