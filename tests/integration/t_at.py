#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""--replay FILE --at TIME (issue 35, item 1): a recording of a workload
(at_cases.py) that changes its tree step by step and notes /proc's view of
it at a quiet point after each step; the tree --at each noted time draws
holds the same processes, with the same parents, groups and sessions. TIME
as RFC 3339, as a time of day, and as an offset from the start; a time past
the recording's end, or a bad one, is refused. Each moment is answered
twice: through the recording's checkpoints (--checkpoint-every 64K: the
workload writes some megabytes, so that later moments start from a
checkpoint taken after earlier ones) and from the first record (a testing
aid); both must equal /proc. A recording made before checkpoints (the
golden one) still answers --at. No BPF but the recording's."""
import re
import datetime
import json
import os
import sys

from harness import PGRPTRACE, Proc, Tap, check_nothing_left, run_tracer

t = Tap()
here = os.path.dirname(os.path.abspath(__file__))
rec = "/tmp/pgt-at-%d.rec" % os.getpid()
r = run_tracer(["--record", rec, "--checkpoint-every", "64K", "-o", "/dev/null", "--", sys.executable,
                os.path.join(here, "at_cases.py")], timeout=120)
t.ok(r.rc == 0, "the workload ran", r.err[-500:])
points = [p for p in r.fact("at") if p["step"] != "no_reuse"]
reuse = [p["step"] for p in points][-1:] == ["reused"]
t.eq([p["step"] for p in points][:8],
     ["child", "setsid", "setpgid", "double_fork", "killed", "churn", "grandchild",
      "before_reuse"],
     "a quiet point after each step")


def rfc3339(ns):
    d = datetime.datetime.fromtimestamp(ns // 10**9, datetime.timezone.utc)
    return d.strftime("%Y-%m-%dT%H:%M:%S") + ".%09dZ" % (ns % 10**9)


def at(when, *more, from_start=False, path=rec):
    p = Proc([PGRPTRACE, "--replay", path, "--at", when] + list(more), what="--at " + when,
             env={"PGRPTRACE_TEST_FROM_START": "1"} if from_start else None)
    return p.finish(60)


def tree_procs(doc):
    """{pid: [ppid, pgid, sid]} of the processes alive in a tree document."""
    out = {}
    for s in doc["sessions"]:
        for g in s["groups"]:
            for p in g["processes"]:
                if not p["zombie"]:
                    out[p["pid"]] = [p["ppid"], g["pgid"], s["sid"]]
    return out


def below(procs, root):
    mine, todo = {}, [root]
    while todo:
        q = todo.pop()
        for pid, v in procs.items():
            if v[0] == q and pid not in mine:
                mine[pid] = v
                todo.append(pid)
    return mine


bad, started = [], []
for pt in points:
    for from_start in (False, True):
        rc, out, err = at(rfc3339(pt["real_ns"]), "--json", "-v", from_start=from_start)
        if rc != 0:
            bad.append((pt["step"], rc, err[-200:]))
            continue
        if not from_start:
            m = re.search(r"starting from checkpoint (\d+) of (\d+)", err)
            started.append(int(m.group(1)) if m else 0)
        elif "starting from the first record" not in err:
            bad.append((pt["step"], "not from the first record", err[-200:]))
        doc = tree_procs(json.loads(out))
        root = [pid for pid, v in doc.items() if v[0] == r.pid]
        got = below(doc, root[0]) if root else {}
        want = {int(k): v for k, v in pt["procs"].items()}
        if got != want:
            bad.append((pt["step"], "from the start" if from_start else "checkpoints",
                        {"only --at": {k: v for k, v in got.items() if want.get(k) != v},
                         "only /proc": {k: v for k, v in want.items() if got.get(k) != v}}))
t.eq(bad, [], "--at each quiet point, through checkpoints and from the first record: the "
     "processes below the workload, their parents, groups and sessions, as /proc had them")
# The first checkpoint is the start's; a later one is taken every 64K of records.
t.ok(started and min(started) >= 1 and max(started) > 1 and started == sorted(started),
     "--at starts from the last checkpoint before its moment, a later one for a later moment",
     started)
# --diff between consecutive quiet points: the births, deaths and moves
# /proc showed, of the workload's processes.
bad = []
for p1, p2 in zip(points, points[1:]):
    d = Proc([PGRPTRACE, "--replay", rec, "--diff", rfc3339(p1["real_ns"]),
              rfc3339(p2["real_ns"]), "--json"], what="--diff %s %s" % (p1["step"], p2["step"]))
    rc, out, err = d.finish(60)
    if rc != 0:
        bad.append((p2["step"], rc, err[-200:]))
        continue
    ch = json.loads(out)["diff"]["changes"]
    a = {int(k): v for k, v in p1["procs"].items()}
    b = {int(k): v for k, v in p2["procs"].items()}
    # A pid reused between the two is both born and dead (checked below).
    twice = {c["pid"] for c in ch if c["change"] == "born"} & \
        {c["pid"] for c in ch if c["change"] == "died"} & set(a) & set(b)
    a = {k: v for k, v in a.items() if k not in twice}
    b = {k: v for k, v in b.items() if k not in twice}
    born = {c["pid"] for c in ch if c["change"] == "born" and c["pid"] in b}
    died = {c["pid"] for c in ch if c["change"] == "died" and c["pid"] in a}
    moved = {(c["pid"], c["change"], c["from"], c["to"]) for c in ch
             if c["change"] in ("session", "group", "parent") and c["pid"] in a}
    want_moved = set()
    for pid in set(a) & set(b):
        (pp1, pg1, s1), (pp2, pg2, s2) = a[pid], b[pid]
        if s1 != s2:
            want_moved.add((pid, "session", s1, s2))
        elif pg1 != pg2:
            want_moved.add((pid, "group", pg1, pg2))
        if pp1 != pp2:
            want_moved.add((pid, "parent", pp1, pp2))
    if (born, died, moved) != (set(b) - set(a), set(a) - set(b), want_moved):
        bad.append((p2["step"], {"born": sorted(born), "want": sorted(set(b) - set(a)),
                                 "died": sorted(died), "want died": sorted(set(a) - set(b)),
                                 "moved": sorted(moved), "want moved": sorted(want_moved)}))
t.eq(bad, [], "--diff between quiet points: the births, deaths and moves /proc showed")
# The reused pid: two processes, told apart by their entity ids.
if reuse:
    p1, p2 = points[-2], points[-1]
    d = Proc([PGRPTRACE, "--replay", rec, "--diff", rfc3339(p1["real_ns"]),
              rfc3339(p2["real_ns"]), "--json"], what="--diff across the reuse")
    rc, out, err = d.finish(60)
    ch = json.loads(out)["diff"]["changes"] if rc == 0 else []
    died = {c["pid"]: c["entity_id"] for c in ch if c["change"] == "died"}
    born = {c["pid"]: c["entity_id"] for c in ch if c["change"] == "born"}
    same = [p for p in born if p in died]
    t.ok(len(same) == 1 and born[same[0]] != died[same[0]],
         "a pid reused: one process died and another was born with it, their entity ids "
         "apart", (died, born))
else:
    t.skip("a pid reused: two entity ids", "the pid went to another process 50 times")
if points:
    rc, out, err = Proc([PGRPTRACE, "--replay", rec, "--diff", rfc3339(points[0]["real_ns"]),
                         rfc3339(points[-1]["real_ns"])], what="--diff in text").finish(60)
    lines = out.splitlines()
    t.ok(rc == 0 and lines and lines[0].startswith("from ") and " changes" in lines[0] and
         all(ln.startswith("  ") for ln in lines[1:]) and
         {"born", "died"} <= {ln.split()[0] for ln in lines[1:]},
         "--diff in text: a line of the span, then one per change", lines[:6])
if points:
    last = points[-1]["real_ns"]
    rc, out, err = at(rfc3339(last), "--utc")
    rc2, out2, err2 = at(datetime.datetime.fromtimestamp(
        last / 1e9, datetime.timezone.utc).strftime("%H:%M:%S.%f"), "--utc")
    t.ok(rc == 0 and rc2 == 0 and out == out2 and "session " in out,
         "--at: a time of day (the recording's day) is the same moment", (rc, rc2, err2[-200:]))
    rc, out, err = at("+0s", "--json")
    rc2, out2, err2 = at("+100h")
    t.ok(rc == 0 and json.loads(out)["sessions"] and rc2 == 1 and
         "after the recording's last record" in err2,
         "--at: an offset from the start; past the end, refused", (rc, rc2, err2[-200:]))
    rc, out, err = at("yesterday")
    t.ok(rc == 1 and "bad time 'yesterday'" in err and not out, "--at: a bad TIME, refused",
         (rc, err))
# A recording made before checkpoints (f89e23e's, version 2) still answers.
golden = os.path.join(here, "..", "golden", "f89e23e.rec")
rc, out, err = at("+0.5s", "--json", "-v", path=golden)
t.ok(rc == 0 and json.loads(out)["sessions"] and "a recording without checkpoints" in err,
     "--at on a recording made before checkpoints: from its first record", (rc, err[-300:]))
# Written again with checkpoints (--replay --record): the same records, and
# --at through a checkpoint answers as the old file from its first record.
again = "/tmp/pgt-at-%d-again.rec" % os.getpid()
rc, out, err = Proc([PGRPTRACE, "--replay", golden, "--record", again, "--checkpoint-every",
                     "64K", "-o", "/dev/null"], what="--replay --record").finish(60)
t.ok(rc == 0, "--replay --record: the golden recording written again", err[-300:])
if rc == 0:
    outs = [Proc([PGRPTRACE, "--replay", f, "--json"], what="--replay").finish(60)
            for f in (golden, again)]
    t.ok(outs[0][0] == outs[1][0] == 0 and outs[0][1] == outs[1][1] and outs[0][1],
         "--replay of the copy: the same records as of the original")
    old_at = at("+0.8s", "--json", path=golden)
    new_at = at("+0.8s", "--json", "-v", path=again)
    t.ok(old_at[0] == new_at[0] == 0 and "starting from checkpoint" in new_at[2] and
         tree_procs(json.loads(old_at[1])) == tree_procs(json.loads(new_at[1])),
         "--at on the copy, through a checkpoint: the tree the original draws from its start",
         new_at[2][-300:])
    os.unlink(again)
rc, out, err = Proc([PGRPTRACE, "--at", "+1s"], what="--at alone").finish(30)
t.ok(rc == 2 and "needs --replay" in err, "--at without --replay: refused", (rc, err))
if os.path.exists(rec):
    os.unlink(rec)
check_nothing_left(t, "at")
t.done()
