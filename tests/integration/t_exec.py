#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""What an exec ran (issue 17, item 1): the argument vector, the executable
and the working directory of every exec record equal what /proc said of the
process in its new image: hostile bytes, a vector cut at 4096 bytes or 128
arguments, directories on other mounts, one deeper than the walk goes, one
exactly as deep, and a script; a fileless exec (memfd), an unlinked
executable and a removed cwd, marked as /proc marks them (issue 30). The text and ECS forms keep each record on one line."""
import json
import os
import sys
import tempfile

from harness import Tap, check_nothing_left, field_bytes, run_tracer

t = Tap()
here = os.path.dirname(os.path.abspath(__file__))
ARGS_MAX = 4096
SHOWN = 128


def want_args(cmdline):
    """The arguments a record of @cmdline carries, and whether it is cut."""
    data = cmdline[:ARGS_MAX]
    args = data.split(b"\0")
    if data.endswith(b"\0"):
        args.pop()
    return args[:SHOWN], len(cmdline) > ARGS_MAX or len(args) > SHOWN


cases_py = os.path.join(here, "exec_cases.py")
with tempfile.TemporaryDirectory(prefix="pgt-exec-") as scratch:
    for d in ("json", "text"):
        os.mkdir(os.path.join(scratch, d))
    r = run_tracer(["--json", "--", sys.executable, cases_py, os.path.join(scratch, "json")],
                   timeout=60)
    text = run_tracer(["--", sys.executable, cases_py, os.path.join(scratch, "text")], timeout=60)
t.eq(r.rc, 0, "exec: the cases ran")
t.eq(r.bad_lines, [], "exec: every line is valid JSON")
t.eq(r.fact("stall") + r.fact("exec_error"), [], "exec: every case stopped in its new image")
cases = {f["case"]: f for f in r.fact("exec")}
t.eq(sorted(cases), sorted(["hostile", "long", "many", "proc", "sys", "root", "deep", "oddcwd",
                            "script", "memfd", "unlinked", "rmcwd", "depth40", "depth41"]),
     "exec: every case reported its truth")
GONE_EXE = ("memfd", "unlinked")

for name, f in sorted(cases.items()):
    recs = [e for e in r.of("exec", f["pid"])]
    if not t.eq(len(recs), 1, "%s: one exec record" % name):
        continue
    e = recs[0]
    cmdline = bytes.fromhex(f["cmdline"])
    args, cut = want_args(cmdline)
    t.eq(field_bytes(e, "args"), args, "%s: args are /proc/PID/cmdline's" % name)
    t.eq(e["args_truncated"], cut, "%s: args_truncated is %s" % (name, cut))
    t.eq(field_bytes(e, "executable"), bytes.fromhex(f["exe"]), "%s: executable is /proc/PID/exe" % name)
    t.eq(e["executable_truncated"], False, "%s: executable whole" % name)
    t.eq(e["executable_deleted"], name in GONE_EXE, "%s: executable_deleted" % name)
    t.eq(e["cwd_deleted"], name == "rmcwd", "%s: cwd_deleted" % name)
    cwd = bytes.fromhex(f["cwd"])
    if name in ("deep", "depth41"):
        got = field_bytes(e, "cwd")
        t.ok(e["cwd_truncated"] and not got.startswith(b"/") and cwd.endswith(b"/" + got) and
             got.count(b"/") >= 20, "deep: cwd cut, its leaf part kept", got)
    else:
        t.eq(field_bytes(e, "cwd"), cwd, "%s: cwd is /proc/PID/cwd" % name)
        t.eq(e["cwd_truncated"], False, "%s: cwd whole" % name)

# The marks are /proc's own, and later records carry the name too.
if "memfd" in cases:
    t.eq(bytes.fromhex(cases["memfd"]["exe"]), b"/memfd:pgt-x (deleted)",
         "memfd: /proc names the file /memfd:NAME (deleted)")
    ends = r.of("exit", cases["memfd"]["pid"])
    t.ok(ends and ends[0]["process"]["executable"] == "/memfd:pgt-x (deleted)",
         "memfd: the exit record's process runs /memfd:pgt-x (deleted)", ends)
for name in ("unlinked", "rmcwd"):
    if name in cases:
        t.ok(bytes.fromhex(cases[name]["exe" if name == "unlinked" else "cwd"])
             .endswith(b" (deleted)"), "%s: /proc marks it (deleted)" % name)
t.eq(sorted((f["case"], f["steps"]) for f in r.fact("steps")), [("depth40", 40), ("depth41", 41)],
     "depth40, depth41: the walks are 40 and 41 steps long")

if "long" in cases and "many" in cases:
    t.ok(cases["long"]["cmdline"] and len(bytes.fromhex(cases["long"]["cmdline"])) > ARGS_MAX,
         "long: the vector is longer than the record holds")
    t.ok(len(bytes.fromhex(cases["many"]["cmdline"]).split(b"\0")) > SHOWN + 1,
         "many: more arguments than the record shows")
if "hostile" in cases:
    e = r.of("exec", cases["hostile"]["pid"])
    t.ok(e and "args_hex" in e[0], "hostile: invalid UTF-8 gives args_hex")

# Text: one line per record, whatever the bytes; no raw control character.
lines = text.out.splitlines()
execs = [l for l in lines if " exec " in l]
t.eq(text.rc, 0, "text: the cases ran")
t.ok(len(execs) >= 14, "text: an exec line per case", len(execs))
t.eq(len([l for l in execs if l.endswith(" [executable /memfd:pgt-x (deleted)]")]), 1,
     "text: the memfd exec names its file")
t.eq(len([l for l in execs if "/gone-exe (deleted)]" in l]), 1,
     "text: the unlinked executable is marked")
t.eq(len([l for l in execs if l.endswith("/gone-dir (deleted)]") and " [cwd /" in l]), 1,
     "text: the removed cwd is marked")
t.eq([l for l in lines if any(ord(c) < 32 and c != "\t" for c in l)], [],
     "text: no control character in any line")
hostile = [l for l in execs if "red" in l]
t.ok(hostile and "\\x1b[31mred" in hostile[0] and "'\\'\"'" in hostile[0] and "''" in hostile[0],
     "text: escapes shown, quotes and the empty argument quoted", hostile)

check_nothing_left(t, "exec")
t.done()
