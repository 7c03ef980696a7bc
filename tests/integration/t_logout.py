#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""When a login ends (issue 34): a real interactive bash on a pty
(logout_cases.py) starts jobs of every kind, then its terminal goes away.
The `logout` record lists each job with its fate, and the fates agree with
/proc after the grace (alive or not) and with what the records showed (an
exit of its seq, an escape of its seq, a SIGHUP). The same recording,
replayed, writes the same report, and in text a block a person reads.
Runs in the guests too."""
import json
import os
import shutil
import sys

import page_check
from harness import PGRPTRACE, Proc, Tap, check_nothing_left, run_tracer

t = Tap()
here = os.path.dirname(os.path.abspath(__file__))
ALIVE = {"ignored_hangup", "escaped", "survived"}
SCALE = int(os.environ.get("PGT_TIME_SCALE", "1"))

rec = "/tmp/pgt-logout-%d.rec" % os.getpid()
r = run_tracer(["--json", "--record", rec, "--", sys.executable,
                os.path.join(here, "logout_cases.py"), "fate"], timeout=180, to_file=True)
t.ok(r.rc == 0, "the login ran", r.err[-800:])
login = (r.fact("login") or [{}])[0]
after = (r.fact("after") or [{}])[0]
pids = login.get("pids", {})
t.ok(after.get("reported"), "the tracer wrote the logout record while the jobs were still "
     "as the report found them", after)
reports = [e for e in r.of("logout") if e["scope"] == "login" and
           e["login"]["pid"] == login.get("pid")]
if t.ok(len(reports) == 1, "one logout record for the login", [e["login"] for e in r.of("logout")]):
    lo = reports[0]
    by_pid = {p["pid"]: p for p in lo["processes"]}
    fate = {label: (by_pid.get(pid) or {}).get("fate") for label, pid in pids.items()}
    by_seq = {e["seq"]: e for e in r.events}
    t.eq((lo["login"]["type"], lo["login"]["tty"], lo["login"]["signal"]),
         ("terminal", login["tty"], "SIGHUP"),
         "the login: a terminal's, on its pty, ended by the hangup's SIGHUP")
    x = by_seq.get(lo["login"]["exit_seq"], {})
    t.eq((x.get("event"), (x.get("process") or {}).get("pid")), ("exit", login["pid"]),
         "login.exit_seq names the leader's exit record")
    # What the kernel and bash did, each named: the hangup signals bash,
    # which passes it on to its running jobs (SIGHUP) and sends its stopped
    # one SIGTERM and SIGCONT (bash's habit); the kernel sends the
    # foreground group SIGHUP as bash exits; nohup's SIG_IGN keeps one
    # alive; the others had left, or were never in the shell's jobs.
    want = {"plain": "hung_up", "hostile": "hung_up", "foreground": "hung_up",
            "nohup": "ignored_hangup",
            "setsid": "escaped", "subshell": "escaped", "server": "escaped",
            "tmux": "survived", "stopped": "killed"}
    # The stopped job dies of bash's SIGTERM, or of the kernel's SIGHUP to a
    # group bash's exit orphans with a stopped member: whichever came first.
    if fate.get("stopped") == "hung_up":
        want["stopped"] = "hung_up"
    if not t.eq(fate, {k: v for k, v in want.items() if k in pids}, "each job's fate"):
        t.diag(json.dumps(lo["processes"]))
    t.eq({k: v for k, v in after.get("alive", {}).items()},
         {k: fate.get(k) in ALIVE for k in after.get("alive", {})},
         "the fates agree with /proc after the grace (alive or not)")
    t.eq(sum(lo["counts"].values()), len(lo["processes"]), "counts add up to the processes")
    # --fate hangup:TTY, asked before: the same end for each process it
    # lists (the session's, and what is below its leader now), the kernel's
    # steps and the shell's kept apart.
    fate_fact = (r.fact("fate") or [{}])[0]
    pred = {}
    if t.eq(fate_fact.get("rc"), 0, "--fate hangup:%s answered" % login.get("tty"),
            ) and fate_fact.get("out"):
        doc = json.loads(fate_fact["out"])["fate"]
        pred = {p["pid"]: p for p in doc["processes"]}
        t.eq((doc["what"], doc["tty"], doc["leader"]), ("hangup", login["tty"], login["pid"]),
             "--fate: the hangup of the login's tty, its leader the login's shell")
    dead = {"hung_up", "killed", "exited"}
    mism = [(label, pred[pid]["outcome"], fate.get(label), pred[pid]["reason"])
            for label, pid in pids.items() if pid in pred and
            (pred[pid]["outcome"] == "dies") != (fate.get(label) in dead)]
    t.ok(pred and not mism and all(pids[k] in pred for k in
                                   ("plain", "nohup", "stopped", "foreground", "hostile")),
         "--fate predicted each job's end as it came", mism or sorted(pred))
    lp = pred.get(login.get("pid"), {})
    pj = pred.get(pids.get("plain"), {})
    t.ok(lp.get("outcome") == "dies" and lp.get("kernel", {}).get("outcome") == "survives" and
         lp.get("shell", {}).get("outcome") == "dies" and lp.get("shell_name") == "bash" and
         pj.get("by") == "shell" and pj.get("kernel") is None,
         "--fate: the kernel signals only the leader, which catches it; passing it on and "
         "dying of it is bash's habit, said apart", (lp, pj))
    bad = []
    for p in lo["processes"]:
        if p["exit"]:
            e = by_seq.get(p["exit"]["seq"], {})
            if (e.get("event"), (e.get("process") or {}).get("pid"),
                    e.get("exit", {}).get("signal")) != ("exit", p["pid"], p["exit"]["signal"]):
                bad.append(("exit", p))
        if p["escape"]:
            e = by_seq.get(p["escape"]["seq"], {})
            if (e.get("event"), e.get("kind"), (e.get("process") or {}).get("pid")) != \
                    ("escape", p["escape"]["kind"], p["pid"]):
                bad.append(("escape", p))
        if (p["fate"] in ("hung_up", "ignored_hangup")) != (p["hangup"] is not None) and \
                p["fate"] != "hung_up":
            bad.append(("hangup", p))
    t.eq(bad, [], "each exit and escape seq names that process's record")
    hostile = by_pid.get(pids.get("hostile"), {})
    t.ok(hostile.get("args") and "\n" in hostile["args"][0] and "args_hex" in hostile and
         "executable_hex" in hostile and "comm_hex" in hostile, "a hostile name stays inside "
         "its JSON string, with its _hex twin", hostile)
    # The recording tells the same story, and in text a block at a glance.
    rj = Proc([PGRPTRACE, "--replay", rec, "--json"], what="replay the login's recording")
    rc, out, err = rj.finish(60)
    again = [json.loads(ln) for ln in out.splitlines() if '"event":"logout"' in ln]
    again = [e for e in again if e["scope"] == "login" and e["login"]["pid"] == login["pid"]]
    t.eq([{p["pid"]: p["fate"] for p in e["processes"]} for e in again],
         [{p["pid"]: p["fate"] for p in lo["processes"]}], "the replay writes the same report")
    rt = Proc([PGRPTRACE, "--replay", rec], what="replay the login's recording as text")
    rc, out, err = rt.finish(60)
    lines = out.splitlines()
    head = [i for i, ln in enumerate(lines) if " logout " in ln and
            " %d " % login["pid"] in ln]
    block = []
    for ln in lines[head[0] + 1:] if head else []:
        if not ln.startswith("    "):
            break
        block.append(ln)
    t.ok(head and "terminal login on %s ended after" % login["tty"] in lines[head[0]] and
         len(block) == len(lo["processes"]) and
         all(ln.split()[0] == by_pid[int(ln.split()[1])]["fate"] for ln in block),
         "text: the login, then one line per process: its fate and pid", lines[head[0]:][:12]
         if head else lines[-20:])
    t.ok(not any("\x1b" in ln for ln in lines), "text: no escape sequence reaches the terminal")
    # The login as a page (issue 35), on the host: chromium under emulation is not a test.
    if SCALE == 1 and shutil.which("chromium"):
        page_check.check(t, rec, login, r.events)
    else:
        t.skip("--html: the login's page in chromium", "a guest, or no chromium")
if os.path.exists(rec) and not os.environ.get("PGT_KEEP_PAGE"):
    os.unlink(rec)
check_nothing_left(t, "logout")
t.done()
