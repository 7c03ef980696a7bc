#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Escapes from real programs, field by field: setsid -f, nohup and a login
shell's exit, a double fork, start-stop-daemon, a tmux server, a cgroup move,
unshare --pid --fork, a login over a real sshd with PAM; an interactive
shell's job control is not one; hostile process names in every output mode."""
import copy
import json
import os
import re
import shutil
import sys
import tempfile

import harness
from harness import (PGRPTRACE, Tap, check_nothing_left, field_bytes, run, run_tracer,
                     workload)

t = Tap()
SCALE = int(os.environ.get("PGT_TIME_SCALE", "1"))
here = os.path.dirname(os.path.abspath(__file__))


def escapes(run, kind=None, pid=None):
    return [e for e in run.of("escape") if (kind is None or e["kind"] == kind) and
            (pid is None or e["process"]["pid"] == pid)]


def survivors(run, comm=None):
    return [e for e in run.of("survivor") if comm is None or e["process"]["comm"] == comm]


# setsid -f: a new session, and the double fork that leaves the parent.
# The command ends once the escaped child is seen as sleep (it has exec'd);
# the harness kills it afterwards. Its argument makes it unique.
mark = "%d.5" % (100000 + os.getpid())
r = run_tracer(["--escapes", "--json", "--", "sh", "-c",
                "setsid -f sleep %s; until pgrep -fx 'sleep %s' >/dev/null; do sleep 0.01; done"
                % (mark, mark)])
t.eq([e["event"] for e in r.events if e["event"] not in ("escape", "survivor", "logout")], [],
     "setsid -f: --escapes prints only escapes, survivors and the command's logout report")
cmd_report = [e for e in r.of("logout") if e["scope"] == "command"]
t.ok(len(cmd_report) == 1 and [(p["args"], p["fate"], p["escape"]["kind"])
                               for p in cmd_report[0]["processes"]] ==
     [(["sleep", mark], "escaped", "setsid")] or
     [(p["args"], p["fate"], p["escape"]["kind"]) for p in cmd_report[0]["processes"]] ==
     [(["sleep", mark], "escaped", "daemonize")],
     "setsid -f: the command's report: the sleep it left, escaped (setsid, or the double "
     "fork's reparent, whichever came first in the records)",
     cmd_report and cmd_report[0]["processes"])
ss = escapes(r, "setsid")
if t.eq(len(ss), 1, "setsid -f: one setsid escape"):
    e = ss[0]
    t.eq(e["to"]["sid"], e["process"]["pid"], "setsid -f: to its own session")
    t.ok(e["from"]["sid"] != e["to"]["sid"], "setsid -f: from the command's session")
    t.ok(len(e["lineage"]) >= 1 and e["lineage"][0]["comm"] in ("sh", "setsid"),
         "setsid -f: lineage back to the shell", e["lineage"])
    # What ran (issue 17): the escape says what the process ran when it
    # escaped, its ancestors what they ran; the tracer's own parent (this
    # test, in the snapshot) from /proc.
    t.eq((e["process"]["executable"], e["process"]["args"], e["process"]["args_truncated"]),
         (os.path.realpath(shutil.which("setsid")), ["setsid", "-f", "sleep", mark], False),
         "setsid -f: the escape says what ran: setsid -f sleep")
    ran = {c: os.path.realpath(shutil.which(c)) for c in ("sh", "setsid")}
    t.ok([(x["comm"], x["executable"]) for x in e["lineage"][:2]] in
         ([("setsid", ran["setsid"]), ("sh", ran["sh"])], [("sh", ran["sh"])]),
         "setsid -f: its ancestors say what they ran", e["lineage"][:2])
    me = [x for x in e["lineage"] if x["pid"] == os.getpid()]
    t.eq([x["executable"] for x in me], [os.path.realpath(sys.executable)],
         "setsid -f: an ancestor from the snapshot has its executable from /proc")
    t.eq(e["process"]["entry_leader_inferred"], True,
         "setsid -f: a login inherited from a snapshot process is marked inferred")
    d = escapes(r, "daemonize", e["process"]["pid"])
    t.eq(len(d), 1, "setsid -f: and daemonize when its parent exits at once")
    s = survivors(r, "sleep")
    t.ok(s and s[0]["process"]["sid"] == e["to"]["sid"],
         "setsid -f: the summary shows it alive in its new session")
    t.ok(s and s[0]["process"]["args"] == ["sleep", mark] and
         s[0]["process"]["executable"] == os.path.realpath(shutil.which("sleep")),
         "setsid -f: the survivor says what it runs now", s and s[0]["process"])

# Expected escapes (issue 17, item 6): a rule that names the setsid escape
# of setsid(1) by its kind and executable, and nothing else.
top = os.path.dirname(os.path.dirname(here))
with tempfile.TemporaryDirectory(prefix="pgt-expect-") as d:
    rules = os.path.join(d, "rules")
    with open(rules, "w") as f:
        f.write("# setsid(1)'s own session\n[setsid-tool]\nkind = setsid\n"
                "executable = %s\n" % os.path.realpath(shutil.which("setsid")))
    mark2 = "%d.25" % (100000 + os.getpid())
    cmd = ["--", "sh", "-c", "setsid -f sleep %s; until pgrep -fx 'sleep %s' >/dev/null; "
           "do sleep 0.01; done" % (mark2, mark2)]
    rec = os.path.join(d, "rec")
    r = run_tracer(["--escapes", "--json", "--expected", rules, "--record", rec] + cmd)
    named = {e["kind"]: e["expected"] for e in escapes(r)}
    t.eq(named, {"setsid": "setsid-tool", "daemonize": None},
         "--expected: the setsid escape is named by its rule, the daemonize not")
    # How the other outputs show the same escapes: that run's records again.
    r = run([PGRPTRACE, "--replay", rec, "--escapes", "--json", "--expected", rules,
             "--hide-expected"])
    t.eq(sorted(json.loads(l)["kind"] for l in r.stdout.splitlines()), ["daemonize"],
         "--hide-expected: the named escape is left out, the other kept")
    r = run([PGRPTRACE, "--replay", rec, "--escapes", "--expected", rules])
    t.ok(any(" setsid: " in l and l.endswith(" (expected: setsid-tool)")
             for l in r.stdout.splitlines()), "--expected: text says which rule", r.stdout)
    with open(rules, "a") as f:
        f.write("[second]\nkind = setsid\nexecutabel = /bin/sh\n")
    r = run([PGRPTRACE, "--escapes", "--expected", rules, "--", "true"])
    t.eq((r.returncode, r.stdout), (125, ""),
         "--expected: a bad rule file exits before tracing (125: with a command)")
    t.ok("rules:7: unknown key 'executabel'" in r.stderr, "--expected: the message names "
         "the file and line", r.stderr)
    r = run([PGRPTRACE, "--hide-expected", "--", "true"])
    t.ok(r.returncode == 125 and "--hide-expected needs --expected" in r.stderr,
         "--hide-expected alone is a usage error (125: with a command)", (r.returncode, r.stderr))
    r = run([PGRPTRACE, "--hide-expected", "-d", "1"])
    t.ok(r.returncode == 2 and "--hide-expected needs --expected" in r.stderr,
         "--hide-expected alone, without a command: 2", (r.returncode, r.stderr))
r = run_tracer(["--escapes", "--expected", os.path.join(top, "docs/expected-escapes.example"),
                "--", "true"])
t.eq((r.rc, r.err), (0, ""), "--expected: the example file in docs/ is read")

# A setsid 40 generations down: the lineage is cut at 32, and says so; one
# generation down, it is whole (issue 14, item 10). Both exit at once, while
# their escapes are held: the records keep the lineage all the same. One
# run for both, told apart by their arguments.
CHAIN = ("import os, sys\n"
         "for _ in range(int(sys.argv[1])):\n"
         "    if os.fork():\n"
         "        os.wait(); os._exit(0)\n"
         "os.setsid()\n")
r = run_tracer(["--escapes", "--json", "--", "sh", "-c",
                'python3 -c "$0" 40; python3 -c "$0" 1', CHAIN])
for depth, cut in ((40, True), (1, False)):
    ss = [e for e in escapes(r, "setsid") if e["process"]["args"][-1:] == [str(depth)]]
    if t.eq(len(ss), 1, "setsid %d down: one escape" % depth):
        t.eq(ss[0]["lineage_truncated"], cut, "setsid %d down: lineage_truncated" % depth)
        lin = ss[0]["lineage"]
        t.ok(len(lin) == 32 if cut else 1 <= len(lin) < 32,
             "setsid %d down: its ancestors, 32 at most" % depth, len(lin))
        t.ok(lin and lin[0]["comm"] == "python3", "setsid %d down: its parent first" % depth,
             lin[:1])

# Daemons, in one traced script, each told apart by its own pids and names:
# a double fork under a subreaper; start-stop-daemon --background, which
# refuses to start a second daemon of the same executable (so the daemon is
# a private copy of sleep); a tmux server on a private socket; a process
# moving itself to another cgroup (the unified hierarchy) and back; and
# unshare --pid --fork, a process born into a new pid namespace. The script
# ends once the daemon runs as itself (polled); the harness kills what is
# left afterwards.
bindir = tempfile.mkdtemp(prefix="pgt-ssd-")
daemon = os.path.join(bindir, "pgtdaemon")
shutil.copy("/usr/bin/sleep", daemon)
sock = "pgt-test-%d" % os.getpid()
steps = [" ".join(workload("daemonize")),
         "start-stop-daemon --start --background --exec %s -- 1000" % daemon,
         "until pgrep -fx '%s 1000' >/dev/null; do sleep 0.01; done" % daemon,
         "tmux -L %s new-session -d 'sleep 30'" % sock,
         "unshare --pid --fork true"]
mnt = None
for line in open("/proc/mounts"):
    dev, path, fstype = line.split()[:3]
    if fstype == "cgroup2":
        mnt = path
        break
if mnt:
    own = [l.split(":", 2)[2].strip() for l in open("/proc/self/cgroup") if l.startswith("0::")]
    home = os.path.join(mnt, own[0].lstrip("/")) if own else mnt
    new = os.path.join(mnt, "pgt-test-%d" % os.getpid())
    os.mkdir(new)
    steps.append("sh -c 'echo $$ > %s/cgroup.procs; echo $$ > %s/cgroup.procs'" % (new, home))
r = run_tracer(["--escapes", "--json", "--", "sh", "-c", "\n".join(steps)])
if mnt:
    os.rmdir(new)
shutil.rmtree(bindir, ignore_errors=True)

f = r.fact("daemonize")[0]
d = escapes(r, "daemonize", f["daemon"])
if t.eq(len(d), 1, "double fork: one daemonize escape"):
    t.eq((d[0]["from"]["ppid"], d[0]["to"]["ppid"]), (f["middle"], f["pid"]),
         "double fork: from the middle process to the subreaper")
    t.eq([a["pid"] for a in d[0]["lineage"]][:2], [f["middle"], f["pid"]],
         "double fork: lineage middle, then the workload")

s = [x for x in survivors(r) if x["process"]["comm"] in ("pgtdaemon", "start-stop-daem") and
     any(a["comm"].startswith("start-stop") for a in x["lineage"])]
if not t.eq(len(s), 1, "start-stop-daemon: the daemon is still alive at the end"):
    t.diag("survivors: %s" % [(x["process"]["pid"], x["process"]["comm"],
                               [a["comm"] for a in x["lineage"]]) for x in survivors(r)])
    t.diag("escapes: %s" % [(e["kind"], e["process"]["pid"], e["process"]["comm"])
                            for e in r.of("escape")])
else:
    pid = s[0]["process"]["pid"]
    line = {pid} | {a["pid"] for a in s[0]["lineage"]}
    t.ok(any(e["process"]["pid"] in line for e in escapes(r, "setsid")),
         "start-stop-daemon: the daemon's line did setsid")
    t.ok(escapes(r, "daemonize", pid) or escapes(r, "reparent", pid),
         "start-stop-daemon: and was left by its parent")

servers = [e for e in r.of("escape") if e["process"]["comm"].startswith("tmux")]
kinds = sorted({e["kind"] for e in servers})
t.ok("setsid" in kinds and ("daemonize" in kinds or "reparent" in kinds),
     "tmux: the server leaves the session and its parent", kinds)

if mnt:
    cg = escapes(r, "cgroup")
    t.ok(cg and cg[0]["cgroup"] == "/" + os.path.basename(new),
         "cgroup: the move is an escape, with the new cgroup", [e.get("cgroup") for e in cg])
else:
    t.skip("cgroup: the move is an escape", "no cgroup2 hierarchy mounted")

ns = escapes(r, "pidns")
if t.eq(len(ns), 1, "unshare: one pidns escape"):
    t.eq(ns[0]["process"]["ns_pid"], 1, "unshare: the child is pid 1 in its namespace")

# An interactive shell's jobs, fg and pipelines: no escape at all (all the
# records, escapes among them, in one run).
r = run_tracer(["--json", "--", sys.executable, os.path.join(here, "pty_session.py"), "clean"],
               timeout=60)
t.eq(r.rc, 0, "job control: the session ran")
t.eq([(e["kind"], e["process"]["comm"]) for e in r.of("escape")], [],
     "job control: zero escapes for an ordinary shell session")
jc = [e for e in r.of("setpgid") if e.get("new")]
t.ok(jc and all(e["job_control"] for e in jc), "job control: its setpgid calls are marked so",
     [e["job_control"] for e in jc])

# A shell with job control and no terminal (a script with set -m) places
# every job in a group of its own: job control, not escapes. A job's child
# that leaves the job's group by itself (the workload's "self") escapes it.
r = run_tracer(["--json", "--", "bash", "-c",
                "set -m; true; true | true; (true); %s" % " ".join(workload("setpgid"))])
self_pid = (r.fact("self") or [{}])[0].get("pid")
t.ok(self_pid and len([e for e in r.of("setpgid") if e.get("new")]) >= 5,
     "set -m: the shell placed its jobs", len(r.of("setpgid")))
t.eq([(e["process"]["pid"], e["process"]["comm"]) for e in escapes(r, "pgrp")],
     [(self_pid, "workload")], "set -m: the one pgrp escape is the child that left its job")

# Home again: a child leaves its birth group and comes back, 50 times. It
# escaped once; coming back is not an escape, nor is every later flip. In
# the same run, a zombie adopted by a subreaper when its parent exits
# escapes nothing.
r = run_tracer(["--json", "--", "sh", "-c", "%s; %s" % (" ".join(workload("homegroup", 50)),
                                                          " ".join(workload("zombie_orphan")))])
f = r.fact("homegroup")
if t.ok(f, "homegroup: workload ran", r.err[-300:]):
    pid = f[0]["pid"]
    t.eq(len([e for e in r.of("setpgid") if (e.get("target") or {}).get("pid") == pid]), 100,
         "homegroup: every move traced")
    t.eq([(e["from"]["pgid"], e["to"]["pgid"]) for e in escapes(r, "pgrp", pid)],
         [(f[0]["home"], pid)], "homegroup: one escape, leaving home")

f = r.fact("zombie_orphan")
if t.ok(f, "zombie orphan: workload ran", r.err[-300:]):
    pid = f[0]["pid"]
    t.ok([e for e in r.of("reparent") if e.get("child", {}).get("pid") == pid],
         "zombie orphan: its reparent is traced", [e for e in r.of("reparent")][:2])
    t.eq(escapes(r, None, pid), [], "zombie orphan: no escape for a dead process")

# nohup, then the login shell exits: the job outlives its login.
r = run_tracer(["--escapes", "--json", "--", sys.executable,
                os.path.join(here, "pty_session.py"), "nohup"], timeout=60, to_file=True)
bash = r.fact("bash")[0]["pid"]
job = r.fact("nohup")[0]["pids"]
ol = escapes(r, "outlived_login")
if t.eq([e["process"]["pid"] for e in ol], job, "nohup: the job outlived its login"):
    o = ol[0]["origin"]["entry_leader"]
    t.eq(o and o["pid"], bash, "nohup: its entry leader is the login shell")
    t.ok(o and o["tty"] and o["tty"].startswith("pts/"), "nohup: on the login's tty", o)
    t.eq(ol[0]["lineage"][0]["pid"], bash, "nohup: lineage reaches the login")

# --ecs: the same escape as an Elastic Common Schema document.
r = run_tracer(["--escapes", "--ecs", "--", sys.executable,
                os.path.join(here, "pty_session.py"), "nohup"], timeout=60, to_file=True)
bash = r.fact("bash")[0]["pid"]
docs = [d for d in r.events if d.get("event", {}).get("action") == "escape"]
t.eq(r.bad_lines, [], "ecs: every line is one JSON document")
if t.ok(docs, "ecs: escapes come out as ECS documents"):
    d = docs[-1]
    t.eq(sorted(d), ["@timestamp", "ecs", "event", "host", "pgrptrace", "process"],
         "ecs: top-level fields")
    t.eq((d["event"]["kind"], d["event"]["category"]), ("alert", ["process"]),
         "ecs: an escape is an alert in the process category")
    p, n = d["process"], d["pgrptrace"]["process"]
    t.eq((p["pid"], p["parent"]["pid"], p["group_leader"]["pid"], p["session_leader"]["pid"],
          p["name"], p["entity_id"]),
         (n["pid"], n["ppid"], n["pgid"], n["sid"], n["comm"], n["entity_id"]),
         "ecs: process.pid, parent, group and session leaders, name, entity_id")
    t.eq(p.get("entry_leader", {}).get("pid"), bash, "ecs: process.entry_leader is the login shell")
    t.eq(d["@timestamp"], d["pgrptrace"]["time"], "ecs: @timestamp is the record's time")

# Logins inside logins over a real sshd with PAM, started from an outer login
# on a pty of its own: pam_loginuid sets the audit loginuid and session, and
# every escape is credited to its innermost login (the ssh login's shell, a
# nested ssh login, a tmux pane, su --pty), never to the outer one. One run
# in ECS serves both outputs: each document carries the native record.
ssh_rec = "/tmp/pgt-ssh-%d.rec" % os.getpid()
ssh_ecs = run_tracer(["--ecs", "--record", ssh_rec, "--", sys.executable,
                      os.path.join(here, "ssh_login.py")],
                     timeout=120 * int(os.environ.get("PGT_TIME_SCALE", "1")), to_file=True)
r = copy.copy(ssh_ecs)
r.events = [d["pgrptrace"] for d in ssh_ecs.events if isinstance(d.get("pgrptrace"), dict)]
if r.rc == 77:
    t.skip("ssh login: escapes carry auid and ses", r.err.strip().splitlines()[-1])
elif t.eq(r.rc, 0, "ssh login: sshd ran and the login succeeded") and r.fact("login"):
    f = r.fact("login")[0]
    outer = r.fact("outer")[0]
    tty = f["tty"].replace("/dev/", "")
    t.ok(f["auid"] != 4294967295 and f["ses"] != 4294967295,
         "ssh login: pam_loginuid set the loginuid and session", f)
    t.ok(f["nested"] and f["tmux"] and f["su"], "ssh login: the inner logins ran", f)
    ss = [e for e in escapes(r, "setsid") if e["process"]["comm"] in ("setsid", "sleep")]
    leaders = sorted((e["origin"]["entry_leader"] or {}).get("pid", 0) for e in ss)
    t.eq(leaders, sorted([f["pid"], f["pid"], f["nested"], f["tmux"], f["su"]]),
         "ssh login: each setsid escape is credited to its innermost login "
         "(login, su - in it, nested ssh, tmux pane, su --pty), outer %d" % outer["pid"])
    mine = [e for e in ss if (e["origin"]["entry_leader"] or {}).get("pid") == f["pid"]]
    if t.eq(len(mine), 2, "ssh login: two setsid escapes from the login itself"):
        o = mine[0]["origin"]
        t.eq((o["auid"], o["ses"]), (f["auid"], f["ses"]),
             "ssh login: the escape carries the login's auid and ses")
        t.eq((mine[0]["process"]["auid"], mine[0]["process"]["ses"]), (f["auid"], f["ses"]),
             "ssh login: and so does the escaping process")
        el = o["entry_leader"] or {}
        t.eq((el.get("pid"), el.get("comm"), el.get("tty")), (f["pid"], "bash", tty),
             "ssh login: its entry leader is the login shell on its pty")
        t.eq(mine[0]["lineage"][-1]["pid"], f["pid"], "ssh login: lineage ends at the login")
    nested = [e for e in ss if (e["origin"]["entry_leader"] or {}).get("pid") == f["nested"]]
    t.ok(nested and nested[0]["origin"]["entry_leader"].get("tty") ==
         (f["nested_tty"] or "").replace("/dev/", "") != tty,
         "ssh login: the nested login's entry leader is on its own pty",
         [e["origin"] for e in nested])
    ol = escapes(r, "outlived_login", f["job"])
    t.ok(ol and ol[0]["origin"]["ses"] == f["ses"] and
         (ol[0]["origin"]["entry_leader"] or {}).get("pid") == f["pid"],
         "ssh login: the nohup job outlived the login, same ses", [e["origin"] for e in ol])
    t.eq([e["process"]["pid"] for e in r.of("escape")
          if (e.get("origin", {}).get("entry_leader") or {}).get("pid") == outer["pid"] and
          e["process"]["comm"] in ("sleep", "setsid", "bash")], [],
         "ssh login: nothing of the inner logins is credited to the outer one")
    # Its logout (issue 34): ended by `exit`, where bash signals nothing; but
    # as a session leader exits, the kernel sends its tty's foreground group
    # SIGHUP (disassociate_ctty(), in the leader's own exit): a script's
    # jobs are in that group (no job control), and the nohup job ignored it.
    # The setsid -f sleep had escaped.
    lo = [e for e in r.of("logout") if e["login"]["pid"] == f["pid"]]
    if t.ok(len(lo) == 1, "ssh login: one logout record", len(lo)):
        lo = lo[0]
        # The client is read from the login's environment as it starts, which
        # a quick login can outrun (the diag above counts them): where read,
        # it is the client's.
        t.eq((lo["scope"], lo["login"]["type"],
              (lo["login"]["remote"] or {"ip": "127.0.0.1"}).get("ip"),
              lo["login"]["code"], lo["login"]["signal"]),
             ("login", "sshd", "127.0.0.1", 0, None),
             "ssh login: its logout names the sshd login, its client where read, and its exit 0")
        fates = {p["pid"]: (p["fate"], p["hangup"]) for p in lo["processes"]}
        t.eq(fates.get(f["job"]), ("ignored_hangup", {"sender_pid": f["pid"], "ignored": True}),
             "ssh login: the nohup job ignored the SIGHUP the leader's exit sent its group")
        esc = [p for p in lo["processes"] if p["args"] == ["sleep", str(63 * SCALE)]
               and p["fate"] == "escaped"]
        t.ok(len(esc) == 1 and esc[0]["escape"]["kind"] in ("setsid", "daemonize"),
             "ssh login: the setsid -f sleep had escaped", lo["processes"])
        t.ok("pgrptrace" in [d for d in ssh_ecs.events
                             if d.get("event", {}).get("action") == "logout"][0] and
             [d for d in ssh_ecs.events if d.get("event", {}).get("action") == "logout"][0]
             ["event"]["category"] == ["session"],
             "ssh login: in ECS, a session's end (event.category session)")
    # Its documents are ECS 9.4's; the same login, replayed with --ecs-version
    # 8.11, is ECS 8.11's (Elastic's field lists, from npm: on the host).
    if SCALE == 1:
        import ecs_fields
        unknown, bad = ecs_fields.check(ssh_ecs.events, ecs_fields.fields("9.4"))
        t.ok(ssh_ecs.events and not unknown and not bad and
             {d["ecs"]["version"] for d in ssh_ecs.events} == {"9.4.0"},
             "ssh login: every document is ECS 9.4's (fields, types, ecs.version)",
             (sorted(unknown), sorted(bad)))
        rp = run([PGRPTRACE, "--replay", ssh_rec, "--ecs", "--ecs-version", "8.11"])
        docs8 = [json.loads(ln) for ln in rp.stdout.splitlines()]
        unknown, bad = ecs_fields.check(docs8, ecs_fields.fields("8.11"))
        t.ok(rp.returncode == 0 and len(docs8) == len(ssh_ecs.events) and not unknown and
             not bad and {d["ecs"]["version"] for d in docs8} == {"8.11.0"},
             "ssh login: --ecs-version 8.11, every document is ECS 8.11's",
             (rp.returncode, rp.stderr[-200:], sorted(unknown), sorted(bad)))
    types = {e["origin"]["entry_leader"]["pid"]: e["origin"]["entry_leader"]["type"]
             for e in ss if e["origin"]["entry_leader"]}
    t.eq(types, {f["pid"]: "sshd", f["nested"]: "sshd", f["tmux"]: "terminal",
                 f["su"]: "terminal"},
         "ssh login: each login's type: sshd for the ssh logins, terminal for the ptys")
    # Schema 3: the login is on the process object too, with where ssh came from.
    t.eq([e["process"]["pid"] for e in ss
          if e["process"]["entry_leader"] != e["origin"]["entry_leader"]], [],
         "ssh login: process.entry_leader is origin.entry_leader")
    remotes = {e["process"]["entry_leader"]["pid"]: e["process"]["entry_leader"]["remote"]
               for e in ss if e["process"]["entry_leader"]}
    # The address is read from the leader's environment when pgrptrace gets
    # to its exec: a login that has ended by then has none (null), which a
    # slow guest shows. It is never another's.
    sshd_logins = (f["pid"], f["nested"])
    t.eq(sorted(remotes), sorted([f["pid"], f["nested"], f["tmux"], f["su"]]),
         "ssh login: every login's entry leader is on the records")
    t.eq({k: v for k, v in remotes.items() if k not in sshd_logins and v is not None}, {},
         "ssh login: a pty's login has no remote address")
    t.eq({k: v for k, v in remotes.items() if k in sshd_logins and v is not None and
          not (v.get("ip") == "127.0.0.1" and 0 < v.get("port", 0) < 65536)}, {},
         "ssh login: an sshd login's address, where read, is the client's and a port")
    t.diag("ssh login: addresses read for %d of 2 sshd logins" %
           len([k for k in sshd_logins if remotes.get(k)]))
    t.eq([e["process"]["pid"] for e in ss if e["process"]["entry_leader_inferred"] is not False],
         [], "ssh login: logins seen starting are not inferred")
    # The nested login's pkill ends a job of the outer login (issue 33): the
    # job's exit names its sender, and the sender's own login, not the job's.
    ex = [e for e in r.of("exit") if e["process"]["pid"] == f["victim"]]
    if t.eq(len(ex), 1, "ssh login: the job killed from another login exited"):
        c = ex[0]["exit"]["cause"]
        s = c["sender"] or {}
        t.eq((ex[0]["exit"]["signal"], c["mechanism"], s.get("comm")), ("SIGTERM", "kill", "pkill"),
             "ssh login: killed by SIGTERM from pkill")
        t.eq(((s.get("entry_leader") or {}).get("pid"), (s.get("entry_leader") or {}).get("type"),
              s.get("auid"), s.get("tty")),
             (f["nested"], "sshd", f["auid"], (f["nested_tty"] or "").replace("/dev/", "")),
             "ssh login: the sender's login is the nested one, with its auid and tty")
        t.eq(ex[0]["process"]["entry_leader"]["pid"], f["pid"],
             "ssh login: the job's own login is the outer one")

# The same logins in ECS (issue 17): a command run in the ssh login is a
# document with what ran, where, in which login and on which host, and
# every document of the login's processes names the login.
r = ssh_ecs
if r.rc == 77:
    t.skip("ssh login, ecs: Session View fields", r.err.strip().splitlines()[-1])
elif t.eq(r.rc, 0, "ssh login, ecs: the login succeeded") and r.fact("login"):
    f = r.fact("login")[0]
    docs = [d for d in r.events if d.get("process")]
    # From the login shell's exec on: that is when the session becomes a login.
    shell = [d["event"]["sequence"] for d in docs if d["event"]["action"] == "exec" and
             d["process"]["pid"] == f["pid"]]
    in_login = [d for d in docs if d["process"]["session_leader"]["pid"] == f["pid"] and
                shell and d["event"]["sequence"] > shell[-1]]
    execs = [d for d in in_login if d["event"]["action"] == "exec" and
             d["process"]["name"] == "setsid"]
    if t.ok(execs, "ssh login, ecs: setsid's exec in the login"):
        p = execs[0]["process"]
        want = {"executable": os.path.realpath(shutil.which("setsid")),
                "working_directory": True, "args0": "setsid",
                "entry_leader": (f["pid"], "sshd"), "host": True}
        got = {"executable": p.get("executable"),
               "working_directory": bool(p.get("working_directory")),
               "args0": (p.get("args") or [None])[0],
               "entry_leader": ((p.get("entry_leader") or {}).get("pid"),
                                ((p.get("entry_leader") or {}).get("entry_meta") or {}).get("type")),
               "host": bool(execs[0].get("host", {}).get("name") and
                            execs[0]["host"].get("id") and execs[0]["host"].get("boot", {}).get("id"))}
        t.eq(got, want, "ssh login, ecs: process.executable, .args, .working_directory, "
             ".entry_leader (sshd) and host.*")
        eid = p.get("entry_leader", {}).get("entity_id")
        t.ok(eid, "ssh login, ecs: the entry leader has an entity id", p.get("entry_leader"))
        t.ok(((p.get("entry_leader") or {}).get("entry_meta") or {}).get("source", {}).get("ip")
             in (None, "127.0.0.1"), "ssh login, ecs: process.entry_leader.entry_meta.source.ip "
             "is the client's, where read", p.get("entry_leader"))
        n = execs[0]["pgrptrace"]["process"]
        t.eq(((n.get("entry_leader") or {}).get("entity_id"),
              (n.get("entry_leader") or {}).get("type"), n.get("executable"), n.get("args"),
              execs[0]["pgrptrace"].get("cwd")),
             (eid, "sshd", p.get("executable"), p.get("args"), p.get("working_directory")),
             "ssh login, ecs: the native JSON record carries the same facts")
        missing = [(d["event"]["action"], d["process"]["pid"], d["process"]["name"])
                   for d in in_login if (d["process"].get("entry_leader") or {}).get("entity_id")
                   != eid]
        t.eq(missing, [], "ssh login, ecs: every document of the login's session names "
             "the same entry leader")
        t.eq([(d["event"]["action"], d["process"]["pid"]) for d in in_login
              if not d["process"]["session_leader"].get("entity_id")], [],
             "ssh login, ecs: and its session leader's entity id")

# Hostile names: every mode keeps one record per line, and the bytes come back.
names = ["new\nline", "\x1b[2J\x1b[H", "q\"uo'te", "back\\slash", b"\xff\xfe\x80bad",
         "caf\u00e9", "0123456789abcde", "brack]et"]
raw = [n if isinstance(n, bytes) else n.encode() for n in names]
# And a login whose names are all invalid UTF-8 (workload's hostile_login):
# its executable (a memfd), the path it was exec'd by, its comm, and the
# cgroup its child moves into: each comes back exactly from its _hex twin.
home = harness._cgroup2_home()
odd_cg = None
if home:
    # Not UTF-8 (cgroupfs refuses a newline).
    odd_cg = os.path.join(os.fsencode(home), b"pgt-\xff\xfeodd-%d" % os.getpid())
    os.mkdir(odd_cg)


for mode in (["--json"], ["--escapes", "--json"], [], ["--escapes"]):
    r = run_tracer(mode + ["--signals=all", "--"] + workload("hostile"),
                   env={"PGT_HOSTILE_CGROUP": os.fsdecode(odd_cg)} if odd_cg else None)
    t.eq(r.rc, 0, "hostile %s: the workload ran (exit 0)" % " ".join(mode))
    lines = r.out.split("\n")
    t.eq(lines[-1], "", "hostile %s: output ends with a newline" % " ".join(mode))
    ctrl = [l for l in lines if re.search(r"[\x00-\x08\x0b-\x1f\x7f]", l)]
    t.eq(ctrl, [], "hostile %s: no control byte in any line" % " ".join(mode))
    if "--json" in mode:
        t.eq(r.bad_lines, [], "hostile %s: every line is one JSON record" % " ".join(mode))
        got = {}
        for e in r.events:
            p = e.get("process") or {}
            if e["event"] in ("escape", "setsid") and p:
                b = bytes.fromhex(p["comm_hex"]) if "comm_hex" in p else p["comm"].encode()
                got[p["pid"]] = b
        want = {f["pid"]: raw[f["index"]] for f in r.fact("hostile")}
        t.eq({k: got.get(k) for k in want}, want, "hostile %s: names decode to their bytes" %
             " ".join(mode))
        m = " ".join(mode)
        hl = (r.fact("hostile_login") or [{}])[0]
        leader, child = hl.get("leader"), hl.get("child")
        exe = b"/memfd:\xff\xfe (deleted)"
        esc = [e for e in r.of("escape", child) if e["kind"] == "setsid"]
        if t.eq(len(esc), 1, "hostile %s: the odd login's child escapes by setsid" % m):
            anc = (esc[0]["lineage"] or [{}])[0]
            ent = esc[0]["origin"]["entry_leader"] or {}
            # The comm it had once exec'd: the symlink's name, cut to 15 bytes.
            t.eq([(o.get("pid"), (field_bytes(o, "comm") or b"")[:11], field_bytes(o, "executable"))
                  for o in (anc, ent)], [(leader, b"pgt-\xff\nlogin", exe)] * 2,
                 "hostile %s: its parent in the lineage and its login, names exact" % m)
            t.eq(field_bytes(esc[0]["process"], "executable"), exe,
                 "hostile %s: its executable, exact" % m)
        if odd_cg:
            cg = [e for e in r.of("escape", child) if e["kind"] == "cgroup"]
            if t.eq(len(cg), 1, "hostile %s: the child's move to the odd cgroup" % m):
                tail = b"/" + os.path.basename(odd_cg)
                t.eq(((field_bytes(cg[0], "cgroup") or b"")[-len(tail):],
                      (field_bytes(cg[0]["process"].get("cgroup"), "path") or b"")[-len(tail):]),
                     (tail, tail),
                     "hostile %s: the cgroup's path, exact, in the escape and the process" % m)
        if "--escapes" not in mode:
            ex = r.of("exec", leader)
            t.eq([((field_bytes(e, "filename") or b"")[:len(b"/tmp/pgt-\xff\nlogin-")],
                   field_bytes(e, "executable")) for e in ex],
                 [(b"/tmp/pgt-\xff\nlogin-", exe)],
                 "hostile %s: the odd login's exec: the symlink's name and the memfd, exact" % m)
    else:
        t.ok(any("new\\x0aline" in l for l in lines) and any("\\x1b[2J" in l for l in lines),
             "hostile %s: control bytes shown escaped" % " ".join(mode))

if odd_cg:
    os.rmdir(odd_cg)
if os.path.exists(ssh_rec):
    os.unlink(ssh_rec)
check_nothing_left(t, "escapes")
t.done()
