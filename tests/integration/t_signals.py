#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Signals as causal records and controlling-tty changes, from real
workloads: each call of the kill family (kill, tkill, tgkill,
rt_sigqueueinfo, pidfd_send_signal), group kills with a refused recipient,
kill(-1) in a private pid namespace, an orphaned group with a stopped job,
and TIOCSCTTY, TIOCNOTTY, a forced steal and a session leader exiting with a
foreground job, with the model checked against /proc at quiet points."""
import os
import signal
import sys
import tempfile

from harness import Proc, Tap, check_nothing_left, run_tracer, validate, workload

t = Tap()


def sigs(run, name, cause=None):
    return [e for e in run.of("signal") if e["signal"] == name and
            (cause is None or e["cause"] == cause)]


def rcpts(e):
    return sorted(r["pid"] for r in e["recipients"])


# Three workloads in one traced script, each with signals of its own: a
# group killed (SIGUSR1, SIGUSR2), kill(-1) in a pid namespace (SIGTERM),
# and an orphaned group with a stopped job (SIGHUP, SIGCONT), last.
group_run = run_tracer(["--json", "--", "sh", "-c", "; ".join(
    " ".join(workload(w)) for w in ("killgroup", "killall_ns", "orphan"))])

# kill(0) and kill(-pgid): one record each, the refused member absent.
r = group_run
f = r.fact("killgroup")
if t.ok(f, "killgroup: workload ran"):
    f = f[0]
    for name, how in (("SIGUSR1", "kill(0)"), ("SIGUSR2", "kill(-pgid)")):
        ev = sigs(r, name, "kill")
        if t.eq(len(ev), 1, "%s: one record" % how):
            e = ev[0]
            t.eq(e["scope"], "group", "%s: scope group" % how)
            t.eq(e["target"], f["pgid"], "%s: target is the group" % how)
            t.eq(e["process"]["pid"], f["sender"], "%s: sender" % how)
            t.eq(rcpts(e), sorted([f["sender"], f["member"]]),
                 "%s: recipients, without the other uid's member" % how)
            t.ok(all(x["result"] == "delivered" for x in e["recipients"]),
                 "%s: delivered" % how)
            t.ok(not e["fatal"], "%s: handled, not fatal" % how)

# Each call of the kill family is one record, its scope and target as the call
# named them (tkill's thread and a pidfd name no process: the recipient's).
# At the fentry level these are fentry/fexit on the syscall functions.
r = run_tracer(["--json", "--signals=all", "--"] + workload("killfamily"))
f = r.fact("killfamily")
if t.ok(f, "kill family: workload ran"):
    f = f[0]
    ev = [e for e in sigs(r, "SIGUSR1", "kill") if e["process"]["pid"] == f["sender"]]
    want = [("kill", "process", f["child"]), ("tkill", "thread", f["child"]),
            ("tgkill", "thread", f["child"]), ("rt_sigqueueinfo", "process", f["child"])]
    if f["pidfd"]:
        want.append(("pidfd_send_signal", "process", f["child"]))
    t.eq([e["scope"] for e in ev], [w[1] for w in want], "kill family: one record per call")
    for (call, scope, target), e in zip(want, ev):
        t.eq((e["scope"], e["target"], rcpts(e), e["fatal"]),
             (scope, target, [f["child"]], False),
             "kill family: %s: scope, target, recipient" % call)

# A group kill that reaches nobody keeps its target: a group that cannot
# exist (ESRCH: one past PID_MAX_LIMIT, 4194304 on 64-bit, so no process of
# anyone's is ever signalled), and root's group killed by nobody (EPERM).
free = 4194304 + 1
root_grp = Proc(["sleep", "60"])
KILL = ("import os, signal, sys\n"
        "if sys.argv[2] == 'nobody': os.setgid(65534); os.setuid(65534)\n"
        "try: os.kill(-int(sys.argv[1]), signal.SIGUSR1)\n"
        "except OSError: pass\n")
r = run_tracer(["--json", "--", "sh", "-c", 'python3 -c "$0" %d root; python3 -c "$0" %d nobody'
                % (free, root_grp.pid), KILL])
for target, uid, err in ((free, 0, "ESRCH"), (root_grp.pid, 65534, "EPERM")):
    ev = [e for e in sigs(r, "SIGUSR1", "kill") if e["process"]["uid"] == uid]
    if t.eq(len(ev), 1, "failed kill(-pgid) %s: one record" % err):
        t.eq(ev[0]["target"], target, "failed kill(-pgid) %s: the target is kept" % err)
        t.eq(ev[0]["scope"], "group", "failed kill(-pgid) %s: scope group" % err)
        t.eq(ev[0].get("error"), err, "failed kill(-pgid) %s: the error" % err)
        t.eq(ev[0]["recipients"], [], "failed kill(-pgid) %s: nobody received it" % err)
root_grp.p.kill()
root_grp.finish(10)

# Timer signals while a kworker flushes a pty: a SIGALRM from an interrupt
# that happens to land on the kworker is not the tty's (issue 14, item 3);
# nor is one that lands on a thread inside a tty ioctl (TIOCSWINSZ) the
# ioctl's. The kworker is kept busy by a writer into a raw pty, a thread
# resizes it in a loop; the process taking the SIGALRMs has no tty. Which
# interrupts land where is chance; a cause other than the kernel on any of
# them is the bug.
r = run_tracer(["--json", "--signals=all", "--", sys.executable,
                os.path.join(os.path.dirname(os.path.abspath(__file__)), "alarm_flood.py"), "1500"])
alrm = sigs(r, "SIGALRM")
# Each tick is its own record, however close the ticks land on one task:
# the CI machine's sanitized pass got 848 records for 1500 ticks when ticks
# within 1 ms of each other on one task were joined into one record. (The
# count is not checked against 1500 exactly: on this kernel build a run
# whose handler ran 1500 times saw 1498-1499 signal_generate calls, by the
# program's own run_cnt.)
t.ok(len(alrm) >= 1000, "timer under pty load: the SIGALRMs are reported", len(alrm))
t.eq([e["recipients"] for e in alrm if len(e["recipients"]) != 1], [],
     "timer under pty load: each SIGALRM is its own record, with its one recipient")
t.eq(sorted({e["cause"] for e in alrm if e["cause"] != "kernel"}), [],
     "timer under pty load: no SIGALRM is blamed on a tty or an ioctl")

# kill(-1) in a private pid namespace: everyone but init and the sender.
r = group_run
ev = sigs(r, "SIGTERM", "kill")
if t.eq(len(ev), 1, "kill(-1): one record"):
    e = ev[0]
    t.eq(e["scope"], "all", "kill(-1): scope all")
    t.eq(e["target"], None, "kill(-1): no single target")
    init = r.fact("killall_ns")[0]["init"]
    t.eq(len(e["recipients"]), 2, "kill(-1): the two other processes of the namespace")
    t.ok(init not in rcpts(e) and e["process"]["pid"] not in rcpts(e),
         "kill(-1): neither init nor the sender", rcpts(e))
    t.ok(e["fatal"], "kill(-1): fatal")
    t.ok(all(x["pid"] != 1 for x in e["recipients"]), "kill(-1): host pids")

# An orphaned group with a stopped job gets SIGHUP then SIGCONT from
# kill_orphaned_pgrp(). Which members get which is the kernel's choice (mainline:
# every member gets both; a 6.18 build was seen sending SIGHUP to the stopped
# member only): the workload reports what the kernel queued for its running
# member and how the stopped one died, and the records must say the same.
r = group_run
f = r.fact("orphan")
if t.ok(f, "orphan: workload ran", r.err[-500:]) and t.eq(r.rc, 0, "orphan: workload exit 0"):
    f = f[0]
    hup_killed = os.WIFSIGNALED(f["stopped_status"]) and \
        os.WTERMSIG(f["stopped_status"]) == signal.SIGHUP
    want = {"SIGHUP": sorted([f["stopped"]] * hup_killed + [f["running"]] * f["running_got_sighup"]),
            "SIGCONT": [f["running"]] * f["running_got_sigcont"]}
    t.diag("this kernel sent SIGHUP to the stopped member: %s, to the running member: %s; "
           "SIGCONT to the running member: %s" % (hup_killed, f["running_got_sighup"],
                                                    f["running_got_sigcont"]))
    t.ok(hup_killed, "orphan: the stopped job died of SIGHUP", f["stopped_status"])
    for name in ("SIGHUP", "SIGCONT"):
        ev = sigs(r, name, "orphaned_pgrp")
        if t.eq(len(ev), 1, "orphan: one %s record" % name):
            t.eq(ev[0]["scope"], "group", "orphan: %s to a group" % name)
            t.eq(ev[0]["target"], f["group"], "orphan: %s to the orphaned group" % name)
            t.eq(ev[0]["process"]["pid"], f["parent"],
                 "orphan: %s sent by the exiting parent" % name)
            got = rcpts(ev[0])
            if name == "SIGHUP":
                t.eq(got, want[name], "orphan: SIGHUP recipients are the kernel's")
            else:
                # The dying stopped job may or may not be listed (ignored); the
                # running member is there exactly when SIGCONT was queued for it.
                t.eq([p for p in got if p != f["stopped"]], want[name],
                     "orphan: SIGCONT recipients are the kernel's")
    t.eq([e["event"] for e in r.events if e["event"] == "signal" and
          e["cause"] == "orphaned_pgrp"], ["signal", "signal"], "orphan: nothing else blamed")

# Controlling ttys, with the model checked at each quiet point.
out = tempfile.mktemp(prefix="pgt-ctty-")
r = run_tracer(["--verify", "--json", "-o", out, "--"] + workload("ctty"),
               env={"PGT_QUIET_POINTS": "1"})
with open(out) as fh:
    import json
    events = [json.loads(line) for line in fh]
os.unlink(out)
validate(events)
checks = [l for l in r.out.splitlines() if l.startswith("verify: ")]
t.eq(r.rc, 0, "ctty: exit 0")
t.eq(len([c for c in checks if "processes" in c]), 7, "ctty: seven quiet points checked")
t.eq([c for c in checks if not c.endswith(" 0 differences")], [],
     "ctty: ttys and foreground groups equal /proc at every quiet point")
facts = {f["what"]: f for f in r.facts}
tty = facts.get("open", {}).get("tty", "")[len("/dev/"):]


def tty_ev(kind, how, pid=None):
    return [e for e in events if e["event"] == kind and e["how"] == how and
            (pid is None or e["process"]["pid"] == pid)]


one = facts.get("open", {}).get("pid")
ev = tty_ev("tty_acquire", "open", one)
if t.eq(len(ev), 1, "ctty: implicit acquisition on open"):
    t.eq(ev[0]["tty"], tty, "ctty: the tty opened")
    t.eq(ev[0]["sid"], one, "ctty: by the leader's session")
    t.eq(ev[0]["foreground"], one, "ctty: the leader's group is in the foreground")
ev = tty_ev("tty_release", "TIOCNOTTY", one)
if t.eq(len(ev), 1, "ctty: TIOCNOTTY"):
    t.ok(ev[0]["session_wide"], "ctty: by a leader, for the whole session")
ev = [e for e in events if e["event"] == "signal" and e["cause"] == "hangup" and
      e["process"]["pid"] == one]
t.eq(sorted(e["signal"] for e in ev), ["SIGCONT", "SIGHUP"],
     "ctty: TIOCNOTTY by the leader sends SIGHUP and SIGCONT to its group")
# The sender is read when its signal is generated, before the tty goes:
# both records of the one call show it still holding the tty.
t.eq([e["process"]["tty"] for e in ev], [tty] * len(ev),
     "ctty: the sender of both signals, as it was when they were sent (on its tty)")
t.eq(len(tty_ev("tty_acquire", "TIOCSCTTY", one)), 1, "ctty: TIOCSCTTY")
two = facts.get("steal", {}).get("pid")
t.eq(len(tty_ev("tty_acquire", "TIOCSCTTY", two)), 1, "ctty: the thief's TIOCSCTTY(1)")
ev = tty_ev("tty_release", "stolen")
if t.eq(len(ev), 1, "ctty: the steal releases the victim's session"):
    t.eq(ev[0]["sid"], one, "ctty: stolen from the first session")
    t.ok(ev[0]["session_wide"], "ctty: from all its members")
three, job = facts.get("leader_exit", {}).get("pid"), facts.get("leader_exit", {}).get("job")
ev = [e for e in events if e["event"] == "foreground" and e["process"]["pid"] == three]
if t.eq(len(ev), 2, "ctty: two tcsetpgrp calls, two foreground events"):
    t.eq((ev[0]["old_pgid"], ev[0].get("new_pgid"), ev[0].get("error")), (three, None, "EPERM"),
         "ctty: a group of another session refused (EPERM), no new_pgid")
    t.eq((ev[1]["old_pgid"], ev[1].get("new_pgid")), (three, job), "ctty: old and new group")
ev = tty_ev("tty_release", "session_leader_exit", three)
if t.eq(len(ev), 1, "ctty: the leader's exit releases the tty"):
    t.ok(ev[0]["session_wide"], "ctty: for the whole session")
ev = [e for e in events if e["event"] == "signal" and e["cause"] == "session_leader_exit" and
      e["signal"] == "SIGHUP" and e["process"]["pid"] == three]
if t.eq(len(ev), 1, "ctty: SIGHUP to the foreground job as the leader exits"):
    t.eq(rcpts(ev[0]), [job], "ctty: the job is the recipient")
    t.eq(ev[0]["target"], job, "ctty: its group is the target")
st = facts.get("job_status", {}).get("status")
t.eq(st is not None and os.WIFSIGNALED(st) and os.WTERMSIG(st), 1, "ctty: the job died of SIGHUP")

check_nothing_left(t, "signals")
t.done()
