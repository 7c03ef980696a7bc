#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Why did it die (issue 33): every mechanism made for real by
death_cases.py under one traced run, each asserted on its exit record's
cause (mechanism, signal, sender, tty and key, cgroup) and joined to the
signal record that carried it (signal_seq: the same signal, the process
among its recipients, a cause that names the same mechanism, the same
sender). A job SIGKILLed by its shell just before the shell exits is
reparented dying, and escapes nothing. The run's recording replays to the
same causes, says them in words in text, and --explain tells the same story
from the recording as live. Runs in the guests too."""
import json
import os
import sys

from harness import Proc, Tap, Tracer, check_nothing_left, field_bytes, run_tracer, wait_until

t = Tap()
here = os.path.dirname(os.path.abspath(__file__))
REL = tuple(int(x) for x in os.uname().release.split("-")[0].split(".")[:2])

# The signal record's cause, as the exit's mechanism names it.
MECH_OF = {"kill": "kill", "tty": "tty", "hangup": "hangup", "session_leader_exit": "hangup",
           "orphaned_pgrp": "orphaned_pgrp", "parent_death": "parent_death",
           "cgroup_kill": "cgroup_kill", "broken_pipe": "broken_pipe", "fault": "fault",
           "rlimit": "rlimit"}

rec_path = "/tmp/pgt-death-%d.rec" % os.getpid()
r = run_tracer(["--json", "--record", rec_path, "--", sys.executable,
                os.path.join(here, "death_cases.py")], timeout=240)
t.ok(r.rc == 0, "the cases ran", r.err[-500:])
t.eq(r.bad_lines, [], "every line is valid JSON")
by_seq = {e["seq"]: e for e in r.events}
skipped = {f["case"]: f["why"] for f in r.fact("death_skip")}
facts = {f["case"]: f for f in r.fact("death")}


def exit_of(pid, first=True):
    ex = [e for e in r.of("exit") if e["process"]["pid"] == pid]
    return (ex[0] if first else ex[-1]) if ex else None


def joined(case, e):
    """The exit's cause agrees with the signal record it names."""
    c = e["exit"]["cause"]
    s = by_seq.get(c["signal_seq"])
    if not t.ok(s and s["event"] == "signal", "%s: signal_seq names a signal record" % case,
                c["signal_seq"]):
        return
    t.eq(s["signal"], e["exit"]["signal"], "%s: the signal record's signal is the exit's" % case)
    t.ok(any(x["pid"] == e["process"]["pid"] and x["result"] == "delivered"
             for x in s["recipients"]), "%s: delivered to the process" % case, s["recipients"])
    t.ok(s["fatal"], "%s: the signal record says fatal" % case)
    want = "oom" if s["cause"] == "kernel" and c["mechanism"] == "oom" else \
        MECH_OF.get(s["cause"], "kernel")
    t.eq(c["mechanism"], want, "%s: the mechanism is the signal record's cause (%s)"
         % (case, s["cause"]))
    if c["sender"]:
        t.eq((c["sender"]["pid"], c["sender"]["entity_id"]),
             (s["process"]["pid"], s["process"]["entity_id"]),
             "%s: the sender is the signal record's" % case)


def check(case, signal, mechanism, sender=None, code=None, **more):
    if case in skipped:
        t.skip("%s: made" % case, skipped[case])
        return None
    f = facts.get(case)
    if not t.ok(f, "%s: made" % case):
        return None
    e = exit_of(f["pid"]) if "pid" in f else None
    if not t.ok(e, "%s: the exit record" % case):
        return None
    c = e["exit"]["cause"]
    t.eq((e["exit"]["signal"], c["mechanism"]), (signal, mechanism),
         "%s: killed by %s, mechanism %s" % (case, signal, mechanism))
    if sender is None:
        t.eq(c["sender"], None, "%s: no sender (the kernel's own)" % case)
    elif t.ok(c["sender"], "%s: a sender" % case):
        t.eq(c["sender"]["pid"], sender, "%s: the sender" % case)
    if code:
        t.eq(c["si_code_name"], code, "%s: si_code %s" % (case, code))
    for k, v in more.items():
        t.eq(c[k], v, "%s: %s" % (case, k))
    joined(case, e)
    return e


e = check("kill", "SIGTERM", "kill", facts.get("kill", {}).get("sender"), "SI_USER")
if e:
    s = e["exit"]["cause"]["sender"]
    t.eq((s["comm"], s["uid"], s["auid"], s["tty"]),
         ("kill", 0, e["process"]["auid"], e["process"]["tty"]),
         "kill: the sender's comm, uid, auid and tty")
    t.ok(s["executable"] and s["executable"].endswith("/kill"), "kill: the sender's executable",
         s["executable"])
# timeout's sleep: timeout's child, killed once it ran sleep (death_cases.py
# fires timeout's timer itself, after the exec). Found by its pid: timeout
# signals its whole group, itself too, and may be gone before its child.
f = facts.get("timeout")
if "timeout" in skipped:
    t.skip("timeout: made", skipped["timeout"])
elif t.ok(f, "timeout: made"):
    ex = [x for x in r.of("exit") if x["process"]["pid"] == f["pid"]]
    if t.eq([x["process"]["comm"] for x in ex], ["sleep"], "timeout: its sleep's exit"):
        c = ex[0]["exit"]["cause"]
        t.eq((ex[0]["exit"]["signal"], c["mechanism"], c["sender"] and c["sender"]["pid"],
              c["sender"] and c["sender"]["comm"]), ("SIGTERM", "kill", f["sender"], "timeout"),
             "timeout: killed by SIGTERM from timeout")
        joined("timeout", ex[0])
check("job_kill", "SIGKILL", "kill", facts.get("job_kill", {}).get("sender"))
e = check("job_kill_exit", "SIGKILL", "kill", facts.get("job_kill_exit", {}).get("sender"))
if e:
    pid = e["process"]["pid"]
    rp = [x for x in r.of("reparent") if x["child"]["pid"] == pid]
    t.eq([x["child_dying"] for x in rp], [True] * len(rp),
         "job_kill_exit: reparented (if at all) as dying")
    t.eq([x["kind"] for x in r.of("escape") if x["process"]["pid"] == pid], [],
         "job_kill_exit: a dying job escapes nothing")
check("abort", "SIGABRT", "kill", facts.get("abort", {}).get("pid"), "SI_TKILL")
check("broken_pipe", "SIGPIPE", "broken_pipe")
check("segv", "SIGSEGV", "fault", code="SEGV_MAPERR")
if REL >= (5, 15):
    check("seccomp", "SIGSYS", "fault", code="SYS_SECCOMP")
else:
    # Before force_sig_seccomp() the kernel ended the process with no signal generated.
    f = facts.get("seccomp")
    e = f and exit_of(f["pid"])
    if t.ok(e, "seccomp: the exit record"):
        t.ok(e["exit"]["cause"]["mechanism"] in ("fault", "unknown"),
             "seccomp: fault, or unknown where this kernel (%s) sends no signal" % os.uname().release,
             e["exit"]["cause"])
check("rlimit", "SIGXCPU", "rlimit")
check("pdeath", "SIGTERM", "parent_death", facts.get("pdeath", {}).get("sender"))
f = facts.get("oom")
check("oom", "SIGKILL", "oom", constraint="memcg", memcg_level=f and f["level"],
      cgroup=f and f["cgroup"] if f and f["unified"] else None)
f = facts.get("cgroup_kill")
e = check("cgroup_kill", "SIGKILL", "cgroup_kill", f and f["sender"], "SI_USER")
if e:
    t.eq(field_bytes(e["exit"]["cause"], "cgroup"), bytes.fromhex(f["cgroup_hex"]),
         "cgroup_kill: the cgroup, its bytes (not UTF-8) kept")
f = facts.get("hostile_kill")
e = check("hostile_kill", "SIGTERM", "kill", f and f["sender"], "SI_USER")
if e:
    s = e["exit"]["cause"]["sender"]
    t.eq((field_bytes(s, "comm"), field_bytes(s, "executable")),
         (b"k\xff\xfe", bytes.fromhex(f["exe_hex"])),
         "hostile_kill: the sender's comm and executable, their bytes kept")
o = r.fact("orphan")
if t.ok(o, "orphaned_pgrp: the workload ran"):
    o = o[0]
    e = exit_of(o["stopped"])
    if t.ok(e, "orphaned_pgrp: the stopped member's exit") and e["exit"]["signal"] == "SIGHUP":
        t.eq(e["exit"]["cause"]["mechanism"], "orphaned_pgrp",
             "orphaned_pgrp: the stopped member died of its group's orphaning")
        joined("orphaned_pgrp", e)
for case, sig, key in (("ctrl_c", "SIGINT", "^C"), ("ctrl_backslash", "SIGQUIT", "^\\")):
    e = check(case, sig, "tty", key=key)
    if e:
        t.eq(e["exit"]["cause"]["tty"], e["process"]["tty"], "%s: the job's own tty" % case)
# The terminal goes away: the kernel's hangup reaches the session leader
# (bash); bash passes SIGHUP on to its jobs (its habit, not the kernel's)
# before dying of it itself. Either way the record of the signal says which.
f = facts.get("hangup")
if "hangup" in skipped:
    t.skip("hangup: made", skipped["hangup"])
elif t.ok(f, "hangup: made"):
    job, sh = exit_of(f["pid"]), exit_of(f["bash"], first=False)
    if t.ok(job and sh, "hangup: the exits of the job and of bash"):
        c = job["exit"]["cause"]
        t.eq(job["exit"]["signal"], "SIGHUP", "hangup: the job died of SIGHUP")
        t.ok(c["mechanism"] == "hangup" or
             (c["mechanism"] == "kill" and c["sender"]["pid"] == f["bash"]),
             "hangup: the job's SIGHUP came from the hangup, or from bash passing it on", c)
        joined("hangup job", job)
        t.eq(sh["exit"]["signal"], "SIGHUP", "hangup: bash died of SIGHUP")
        joined("hangup bash", sh)
        t.ok(any(s["cause"] == "hangup" and any(x["pid"] == f["bash"] for x in s["recipients"])
                 for s in r.of("signal")), "hangup: the hangup's SIGHUP reached bash")
t.ok(all(e["exit"].get("cause") for e in r.of("exit")), "every exit record has a cause")
t.eq([e["process"]["pid"] for e in r.of("exit") if not e["exit"]["signal"] and
      e["exit"]["cause"]["mechanism"] != "exit"], [], "an exit by itself is mechanism exit")

# The recording: the same causes, in words in text.
text = Proc([os.environ.get("PGRPTRACE", "pgrptrace"), "--replay", rec_path], what="replay text")
rc, out, err = text.finish(60)
lines = out.splitlines()


def line_of(pid):
    return [ln for ln in lines if " exit " in ln and ln.split()[2] == str(pid)]


for case, words in (("kill", "killed by SIGTERM from kill %s (uid 0" %
                     facts.get("kill", {}).get("sender")),
                    ("ctrl_c", "killed by SIGINT from ^C on pts/"),
                    ("segv", "killed by SIGSEGV: fault SEGV_MAPERR"),
                    ("broken_pipe", "killed by SIGPIPE: broken pipe"),
                    ("pdeath", "killed by SIGTERM: its parent died (PR_SET_PDEATHSIG): python3 %s"
                     % facts.get("pdeath", {}).get("sender")),
                    ("abort", "killed by SIGABRT from itself"),
                    ("rlimit", "killed by SIGXCPU: CPU time limit"),
                    ("cgroup_kill", "killed by SIGKILL: cgroup.kill of ")):
    f = facts.get(case)
    if f:
        got = line_of(f["pid"])
        t.ok(got and words in got[0], "text: %s says %r" % (case, words), got)
if "oom" in facts:
    got = line_of(facts["oom"]["pid"])
    want = ("OOM in " + facts["oom"]["cgroup"]) if facts["oom"]["unified"] else \
        "OOM in a memory cgroup 1 deep"
    t.ok(got and want in got[0], "text: oom says %r" % want, got)
replayed = Proc([os.environ.get("PGRPTRACE", "pgrptrace"), "--replay", rec_path, "--json"],
                what="replay json")
rc, out, err = replayed.finish(60)
rj = [json.loads(ln) for ln in out.splitlines() if ln.startswith("{")]
live_causes = {e["process"]["entity_id"]: e["exit"]["cause"] for e in r.of("exit")}
rep_causes = {e["process"]["entity_id"]: e["exit"]["cause"] for e in rj if e["event"] == "exit"}
def diff(a, b, path=""):
    """The fields where @b (a replay's) differs from @a (the live run's), but
    for what a recording does not hold: its own numbering (a live run also
    writes records made from /proc, which a replay has not), the wall clock
    (converted with the offset measured when each started), and what a
    process started before the recording ran (read from /proc live)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return [d for k in sorted(set(a) | set(b)) if k not in ("signal_seq", "seq", "time")
                for d in diff(a.get(k), b.get(k), path + "." + k)]
    if path.endswith((".executable", ".args")) and b is None:
        return []
    return [] if a == b else ["%s: %r, live %r" % (path, b, a)]


t.eq([d for k, v in rep_causes.items() for d in diff(live_causes.get(k), v, k)], [],
     "replay: every exit's cause as the live run wrote it")

# --explain on the recording: the kill case's story, its exit as the record's.
f = facts.get("kill")
if f:
    ex = Proc([os.environ.get("PGRPTRACE", "pgrptrace"), "--replay", rec_path, "--explain",
               str(f["pid"]), "--json"], what="explain replay")
    rc, out, err = ex.finish(60)
    if t.ok(rc == 0, "explain from the recording", err[-300:]):
        story = json.loads(out)["explain"]
        e = exit_of(f["pid"])
        t.eq((story["pid"], story["entity_id"], story["exit"]["cause"]),
             (f["pid"], e["process"]["entity_id"], e["exit"]["cause"]),
             "explain from the recording: the exit's cause, field by field")
        # Its seq is the replay's own (a live run also writes records made
        # from /proc, which a recording has not): the replay's JSON's.
        rx = [x for x in rj if x["event"] == "exit" and x["process"]["pid"] == f["pid"]]
        t.eq(story["exit"]["seq"], rx[0]["seq"] if rx else None,
             "explain from the recording: the exit's seq, as its replay numbers it")
os.unlink(rec_path)

# --explain live: a process of a login, killed; the story from the live
# tracer and from its recording, the same.
victim = Proc(["sleep", "60"])
wait_until(lambda: open("/proc/%d/comm" % victim.pid).read().strip() == "sleep", "sleep exec'd")
live_rec = "/tmp/pgt-explain-%d.rec" % os.getpid()
tr = Tracer(["--explain", str(victim.pid), "--json", "--record", live_rec])
if tr.ready():
    killer = Proc(["kill", "-TERM", str(victim.pid)])
    killer.finish(30)
    wait_until(lambda: tr.p.poll() is not None, "explain: ends once its process has died")
    rc, out, err = tr.stop()
    victim.finish(10)
    if t.ok(rc == 0, "explain live: its story", err[-6000:]):
        live = json.loads(out)["explain"]
        t.eq((live["pid"], live["comm"], live["exit"]["signal"],
              live["exit"]["cause"]["mechanism"], live["exit"]["cause"]["sender"]["pid"]),
             (victim.pid, "sleep", "SIGTERM", "kill", killer.pid),
             "explain live: who died, of what, sent by whom")
        t.ok(live["lineage"] and live["lineage"][-1]["pid"] == victim.pid and
             any(x["pid"] == os.getpid() for x in live["lineage"]),
             "explain live: its lineage, through this test", live["lineage"])
        rep = Proc([os.environ.get("PGRPTRACE", "pgrptrace"), "--replay", live_rec,
                    "--explain", live["entity_id"], "--json"], what="explain its recording")
        rc, out, err = rep.finish(60)
        if t.eq(rc, 0, "explain live, then its recording"):
            story = json.loads(out)["explain"]
            keys = ("pid", "entity_id", "comm", "executable", "args", "exit", "moves")
            t.eq(diff({k: live[k] for k in keys}, {k: story[k] for k in keys}), [],
                 "explain: the recording tells the live story (process, moves, exit, cause)")
            t.eq(story["exit"]["time"], live["exit"]["time"],
                 "explain: the exit's time (a recording keeps the live run's clock offset)")
            # The seqs are the replay's own: the same as its JSON's.
            rj = Proc([os.environ.get("PGRPTRACE", "pgrptrace"), "--replay", live_rec, "--json"],
                      what="replay the explain's recording")
            rc, out, err = rj.finish(60)
            recs = {x["seq"]: x for x in map(json.loads, out.splitlines())}
            s = recs.get(story["exit"]["cause"]["signal_seq"], {})
            x = recs.get(story["exit"]["seq"], {})
            t.eq((s.get("event"), s.get("signal"), [r["pid"] for r in s.get("recipients", [])],
                  x.get("event"), (x.get("process") or {}).get("pid")),
                 ("signal", "SIGTERM", [victim.pid], "exit", victim.pid),
                 "explain from the recording: its seqs name the replay's signal and exit records")
    if os.path.exists(live_rec):
        os.unlink(live_rec)
else:
    tr.stop()
    victim.p.kill()
    victim.finish(10)
check_nothing_left(t, "death")
t.done()
