#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""setsid, setpgid and the subreaper flag under the real tracer, each event
checked field by field against what the workload observed."""
import errno
import json
import os
import re
import tempfile

from harness import PGRPTRACE, Tap, check_nothing_left, run, run_tracer, workload

t = Tap()

# The example of the README and of the foundation issue.
r = run_tracer(["--json", "--", "sh", "-c", 'setsid sh -c "exit 3" & wait'])
t.eq(r.rc, 0, "readme example: exit 0")
t.eq(r.bad_lines, [], "readme example: valid JSON Lines")
kinds = [e["event"] for e in r.events]
for k in ("fork", "exec", "setsid", "exit"):
    t.ok(k in kinds, "readme example: a %s event" % k, kinds)
ss = r.of("setsid")
if t.eq(len(ss), 1, "readme example: one setsid"):
    s = ss[0]
    t.eq(s["new"]["sid"], s["process"]["pid"], "readme example: new sid is the caller")
    t.ok(s["old"]["sid"] != s["new"]["sid"], "readme example: old sid differs")
    t.eq(r.of("exit", s["process"]["pid"])[0]["exit"]["code"], 3, "readme example: exit code 3")

# setsid, then a second setsid that must fail with EPERM.
r = run_tracer(["--json", "--"] + workload("setsid"))
f = r.fact("setsid")
if t.ok(f, "setsid: workload ran"):
    f = f[0]
    ev = r.of("setsid", f["pid"])
    t.eq(len(ev), 2, "setsid: two setsid events")
    if len(ev) == 2:
        ok, bad = ev
        t.eq(ok["old"]["sid"], f["old_sid"], "setsid: old sid")
        t.eq(ok["old"]["pgid"], f["old_pgid"], "setsid: old pgid")
        t.eq(ok["new"]["sid"], f["ret"], "setsid: new sid")
        t.eq(ok["new"]["pgid"], f["ret"], "setsid: new pgid")
        t.eq(ok["process"]["sid"], f["ret"], "setsid: process context shows the new sid")
        t.eq(ok["process"]["session_leader"], {"pid": f["ret"], "entity_id": ok["process"]["entity_id"]},
             "setsid: caller is its session's leader")
        t.ok("error" not in ok, "setsid: no error on success")
        t.eq(r.fact("setsid_again")[0]["errno"], errno.EPERM, "setsid: workload saw EPERM")
        t.eq(bad.get("error"), "EPERM", "setsid: the failure carries EPERM")
        t.ok("new" not in bad, "setsid: the failure has no new state")

# setpgid by self, by a parent on its child, EPERM and EACCES.
r = run_tracer(["--json", "--"] + workload("setpgid"))
facts = {f["what"]: f for f in r.facts}
t.ok(set(facts) >= {"self", "child", "eperm", "eacces"}, "setpgid: workload ran", sorted(facts))


def setpgid_on(target):
    return [e for e in r.of("setpgid") if (e.get("target") or {}).get("pid") == target]


if "self" in facts:
    ev = setpgid_on(facts["self"]["pid"])
    if t.eq(len(ev), 1, "setpgid self: one event"):
        e = ev[0]
        t.eq(e["process"]["pid"], facts["self"]["pid"], "setpgid self: caller is the target")
        t.eq(e["new"]["pgid"], facts["self"]["pid"], "setpgid self: new pgid is its pid")
        t.ok(e["old"]["pgid"] != e["new"]["pgid"], "setpgid self: the pgid changed")
        t.eq(e["args"], {"pid": 0, "pgid": 0}, "setpgid self: arguments")
if "child" in facts:
    ev = setpgid_on(facts["child"]["pid"])
    if t.eq(len(ev), 1, "setpgid child: one event"):
        e = ev[0]
        t.ok(e["process"]["pid"] != facts["child"]["pid"], "setpgid child: caller is the parent")
        t.eq(e["target"]["ppid"], e["process"]["pid"], "setpgid child: target is its child")
        t.eq(e["new"]["pgid"], facts["child"]["pid"], "setpgid child: new pgid")
        t.eq(e["target"]["pgid"], facts["child"]["pid"], "setpgid child: target context")
        t.ok("error" not in e, "setpgid child: no error")
if "eperm" in facts:
    t.eq(facts["eperm"]["errno"], errno.EPERM, "setpgid EPERM: workload saw EPERM")
    ev = setpgid_on(facts["eperm"]["pid"])
    if t.eq(len(ev), 1, "setpgid EPERM: one event"):
        t.eq(ev[0].get("error"), "EPERM", "setpgid EPERM: error")
        t.ok("new" not in ev[0], "setpgid EPERM: no new state")
        t.eq(ev[0]["args"]["pgid"], facts["eperm"]["pgid"], "setpgid EPERM: pgid argument")
if "eacces" in facts:
    t.eq(facts["eacces"]["errno"], errno.EACCES, "setpgid EACCES: workload saw EACCES")
    ev = setpgid_on(facts["eacces"]["pid"])
    if t.eq(len(ev), 1, "setpgid EACCES: one event"):
        t.eq(ev[0].get("error"), "EACCES", "setpgid EACCES: error")
        t.eq(ev[0]["target"]["comm"], "sleep", "setpgid EACCES: target has exec'd")

# Subreaper on, then off.
r = run_tracer(["--json", "--"] + workload("subreaper"))
f = r.fact("subreaper")
if t.ok(f, "subreaper: workload ran"):
    ev = r.of("subreaper", f[0]["pid"])
    t.eq([e["enabled"] for e in ev], [True, False], "subreaper: on then off")
    if len(ev) == 2:
        t.ok(ev[0]["process"]["subreaper"], "subreaper: flag set in context after on")
        t.ok(not ev[1]["process"]["subreaper"], "subreaper: flag clear after off")
        t.ok("error" not in ev[0], "subreaper: no error")

# Text mode shows the same run as aligned lines with the details.
r = run_tracer(["--", "sh", "-c", 'setsid sh -c "exit 3" & wait'])
lines = r.out.splitlines()
t.ok(lines and lines[0].split()[:4] == ["TIME", "EVENT", "PID", "PPID"], "text: header", lines[:1])
t.ok(any(" setsid " in l and "sid " in l and "->" in l for l in lines), "text: setsid line")
t.ok(any(" exit " in l and l.endswith("code 3") for l in lines), "text: exit code 3 line")

# Text and JSON name every event alike, and the EVENT column fits each name
# (issue 17, item 7): one recording with tty changes, signals and an escape,
# replayed both ways, line for line; with --utc every time carries the date.
with tempfile.TemporaryDirectory(prefix="pgt-names-") as d:
    rec = os.path.join(d, "rec")
    r = run_tracer(["--record", rec, "-o", os.path.join(d, "out"), "--", "sh", "-c",
                    'setsid sh -c "exit 3" & wait; "$0" ctty', workload()[0]])
    text = run([PGRPTRACE, "--replay", rec, "--utc"]).stdout.splitlines()
    # A logout's block: its record's line, then one indented line per process.
    block = [ln for ln in text if ln.startswith("    ")]
    t.ok(all(re.match(r"^    [a-z_]+ +\d+ ", ln) for ln in block),
         "names: the lines below a logout record are its processes, indented", block[:3])
    text = [ln for ln in text if not ln.startswith("    ")]
    js = [json.loads(l) for l in run([PGRPTRACE, "--replay", rec, "--json"]).stdout.splitlines()]
names = [e["event"] for e in js]
t.ok({"tty_acquire", "tty_release", "foreground", "escape", "signal"} <= set(names),
     "names: the recording has tty, foreground, signal and escape records", sorted(set(names)))
t.eq([l.split()[1] for l in text[1:]], names, "names: text's EVENT column is JSON's event")
# Each escape and derived tty record names the record it comes from, written
# before it with the same kseq (issue 17, item 4).
bynum = {e["seq"]: e for e in js}
derived = [e for e in js if "cause_seq" in e]
t.ok({"escape", "tty_release"} <= {e["event"] for e in derived} and
     all(e["event"] in ("escape", "tty_release", "tty_acquire") for e in derived),
     "cause_seq: on escapes and derived tty records", [e["event"] for e in derived])
t.eq([(e["seq"], e["event"], e["cause_seq"]) for e in derived
      if e["cause_seq"] is None or e["cause_seq"] >= e["seq"] or
      bynum[e["cause_seq"]]["kseq"] != e["kseq"] or "cause_seq" in bynum[e["cause_seq"]]], [],
     "cause_seq: each names an earlier record of its kseq")
dated = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z ")
t.eq([l for l in text[1:] if not dated.match(l)], [], "names: --utc times carry the date")
# TIME is 24 wide with --utc, EVENT 11: PID starts at 37 on every line.
t.eq([l for l in text[1:] if l[36] != " " or l[37] == " "], [],
     "names: every EVENT fits its column")

check_nothing_left(t, "groups")
t.done()
