#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""A real interactive bash on a real pty under the tracer: job control shows
as setpgid and foreground events, ^Z and ^C as one tty signal record each to
the right group, and closing the terminal as a hangup and a tty release; the
model's ttys and foreground groups equal /proc at every quiet point."""
import json
import os
import sys
import tempfile

from harness import Tap, check_nothing_left, run_tracer, validate

t = Tap()
here = os.path.dirname(os.path.abspath(__file__))
out = tempfile.mktemp(prefix="pgt-pty-")
r = run_tracer(["--verify", "--json", "-o", out, "--", sys.executable,
                os.path.join(here, "pty_session.py")], timeout=120,
               env={"PGT_QUIET_POINTS": "1", "PGT_PTY_WIDE": "200"})
events = [json.loads(line) for line in open(out)]
os.unlink(out)
validate(events)
facts = {}
for f in r.facts:
    facts[f["what"]] = f
checks = [l for l in r.out.splitlines() if l.startswith("verify: ")]
t.eq(r.rc, 0, "pty: the session ran to its end")
if r.rc:
    t.diag(r.err[-800:])
t.eq(r.fact("stall"), [], "pty: every wait of the session reached its state")
t.eq(len([c for c in checks if "processes" in c]), 7, "pty: seven quiet points")
t.eq([c for c in checks if not c.endswith(" 0 differences")], [],
     "pty: ttys, foreground groups and groups equal /proc at every quiet point")

bash = facts["bash"]["pid"]
job = facts["bg_job"]["pid"]


def ev(kind, **kw):
    return [e for e in events if e["event"] == kind and
            all(e.get(k) == v for k, v in kw.items())]


sp = [e for e in ev("setpgid") if (e.get("target") or {}).get("pid") == job]
t.ok(sp and all(e["new"]["pgid"] == job for e in sp), "job: put in a group of its own",
     [(e["process"]["pid"], e["new"]["pgid"]) for e in sp])
t.ok(any(e["process"]["pid"] == bash for e in sp), "job: by bash, as a shell does")
fg = [e for e in ev("foreground") if e["process"]["pid"] == bash]
t.ok(any(e["old_pgid"] == bash and e["new_pgid"] == job for e in fg),
     "fg: the terminal goes to the job's group")
t.ok(any(e["old_pgid"] == job and e["new_pgid"] == bash for e in fg),
     "fg: and back to bash when the job stops")

tstp = ev("signal", signal="SIGTSTP", cause="tty")
if t.eq(len(tstp), 1, "^Z: one tty record"):
    e = tstp[0]
    t.eq((e["scope"], e["target"]), ("group", job), "^Z: to the job's group")
    t.eq([x["pid"] for x in e["recipients"]], [job], "^Z: the job is the recipient")
    t.ok(e["tty"] and e["tty"].startswith("pts/"), "^Z: the tty is named", e["tty"])
cont = [e for e in ev("signal", signal="SIGCONT", cause="kill") if e["target"] == job]
t.ok(cont and cont[0]["process"]["pid"] == bash and cont[0]["scope"] == "group",
     "bg: bash continues the job's group with kill(-pgid)")
ints = ev("signal", signal="SIGINT", cause="tty")
if t.ok(len(ints) == 3, "^C: one tty record per ^C",
        [(e["target"], len(e["recipients"])) for e in ints], 3):
    t.eq([x["pid"] for x in ints[0]["recipients"]], [job], "^C: first to the job")
    t.ok(ints[0]["fatal"], "^C: fatal to sleep")
    pipeline = facts["pipeline"]["pids"]
    t.eq(sorted(x["pid"] for x in ints[1]["recipients"]), sorted(pipeline),
         "^C: second to both processes of the pipeline, in one record")
    t.eq(ints[1]["target"], min(pipeline), "^C: the pipeline's group")
    # The kernel counts the group at its first signal, so that a loop over
    # it is one record however long it stalls; time does not close it.
    wide = facts["wide"]["pids"]
    t.eq(len(wide), 200, "^C: a foreground group of 200 ran")
    t.eq(sorted(x["pid"] for x in ints[2]["recipients"]), sorted(wide),
         "^C: third to all 200 of the group, in one record")

# In the order the kernel did it (issue 14, item 15): a ^C before the deaths
# it caused, ^Z before the shell takes the terminal back, and seq numbering
# the records as written.
pos = {id(e): i for i, e in enumerate(events)}
for e in ints:
    dead = [x for x in ev("exit") if x["process"]["pid"] in [r_["pid"] for r_ in e["recipients"]]
            and (x["exit"] or {}).get("signal") == "SIGINT"]
    t.ok(dead and all(pos[id(x)] > pos[id(e)] for x in dead),
         "order: ^C to %d written before the deaths it caused" % e["target"],
         [(x["seq"], x["process"]["pid"]) for x in dead], e["seq"])
back = [e for e in fg if e["old_pgid"] == job and e["new_pgid"] == bash]
if tstp and back:
    t.ok(pos[id(tstp[0])] < pos[id(back[0])], "order: ^Z written before bash takes the tty back",
         (tstp[0]["seq"], back[0]["seq"]))
t.eq([e["seq"] for e in events], list(range(len(events))), "seq: 0, 1, 2, ... as written")

hup = [e for e in ev("signal", signal="SIGHUP", cause="hangup") if e["target"] == bash]
t.ok(hup and hup[0]["scope"] == "session" and [x["pid"] for x in hup[0]["recipients"]] == [bash],
     "hangup: SIGHUP to the session's leader", [(e["scope"], e["target"]) for e in hup])
t.ok(ev("signal", signal="SIGCONT", cause="hangup"), "hangup: and SIGCONT")
rel = [e for e in ev("tty_release", how="hangup") if e["sid"] == bash]
t.ok(rel and rel[0]["session_wide"], "hangup: the session loses its tty")
# A derived record names the record it comes from (issue 17, item 4), which
# is written before it: the hangup's tty_release names the SIGHUP.
bynum = {e["seq"]: e for e in events}
if rel and hup:
    t.eq((rel[0].get("cause_seq"), rel[0]["kseq"]), (hup[0]["seq"], hup[0]["kseq"]),
         "cause_seq: the hangup's tty_release names the SIGHUP record")
derived = [e for e in events if "cause_seq" in e]
t.eq([(e["seq"], e["event"], e["cause_seq"]) for e in derived
      if e["cause_seq"] is None or e["cause_seq"] >= e["seq"] or
      bynum[e["cause_seq"]]["kseq"] != e["kseq"] or "cause_seq" in bynum[e["cause_seq"]]], [],
     "cause_seq: every derived record names an earlier record of its kseq, not a derived one")
survivor = facts["survivor"]["pids"] + facts["hangup_fg"]["pids"]
t.ok(len(facts["survivor"]["pids"]) == 1 and len(facts["hangup_fg"]["pids"]) == 1,
     "hangup: a job in the background and one in the foreground", survivor)
hupped = [e for e in ev("signal", signal="SIGHUP", cause="kill") if e["process"]["pid"] == bash]
got = sorted({x["pid"] for e in hupped for x in e["recipients"]} & set(survivor))
t.eq(got, sorted(survivor), "hangup: bash passes SIGHUP on to both jobs")
if got != sorted(survivor):
    # Say what was recorded.
    for e in events:
        if e["event"] == "signal" and e["signal"] in ("SIGHUP", "SIGCONT") or \
                (e.get("process") or {}).get("pid") in survivor:
            d = {k: e.get(k) for k in ("seq", "kseq", "event", "signal", "scope", "target",
                                        "cause", "recipients", "exit")}
            d["pid"] = (e.get("process") or {}).get("pid")
            t.diag(json.dumps(d))

check_nothing_left(t, "pty")
t.done()
