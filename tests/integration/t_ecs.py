#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""--ecs documents against Elastic's own field definitions (ecs_fields.py):
by default every field outside "pgrptrace" exists in ECS 9.4 (@elastic/ecs
9.4.0 on npm), with a compatible JSON type, and arrays where ECS says array,
and ecs.version is 9.4.0; with --ecs-version 8.11, the same documents
against ECS 8.11 (process.pgid back, which ECS 9 removed)."""
import json
import re

import ecs_fields
from harness import Tap, run_tracer

t = Tap()

fields = {v: ecs_fields.fields(v) for v in ecs_fields.PACKAGES}
t.ok(all(len(f) > 1500 and f.get("process.entry_leader.entity_id") == ("keyword", False)
         for f in fields.values()) and "process.pgid" not in fields["9.4"] and
     "process.pgid" in fields["8.11"], "ecs_flat of 9.4 and 8.11: read (%s fields)" %
     ", ".join("%d" % len(f) for f in fields.values()))

# Every kind of document: exec, fork, exit, setsid and its escape, a signal
# to a group, a survivor; in each ECS release.
WORK = ["--", "sh", "-c", "setsid sh -c 'trap \"\" USR1; kill -USR1 0'; setsid -f sleep 0.5; exit 3"]
for version, more in (("9.4", []), ("8.11", ["--ecs-version", "8.11"])):
    r = run_tracer(["--ecs", "--signals=all"] + more + WORK)
    docs = list(r.events)
    r2 = run_tracer(["--ecs", "--escapes"] + more + ["--", "sh", "-c", "setsid -f sleep 1; sleep 0.3"])
    docs += r2.events
    t.ok(docs, "ECS %s: documents written" % version, (r.rc, r.err[-300:], r2.rc, r2.err[-300:]))
    actions = sorted({d["event"]["action"] for d in docs})
    t.ok({"exec", "fork", "exit", "setsid", "signal", "escape", "survivor"} <= set(actions),
         "ECS %s: documents of exec, fork, exit, setsid, signal, escape and survivor" % version,
         actions)
    unknown, badtype = ecs_fields.check(docs, fields[version])
    t.eq(sorted(unknown), [], "ECS %s: every field outside pgrptrace.* is an ECS field" % version)
    t.eq(sorted(badtype.items()), [], "ECS %s: every field has a type ECS allows for it" % version)
    t.eq(sorted({d["ecs"]["version"] for d in docs}), [version + ".0"],
         "ECS %s: ecs.version is %s.0" % (version, version))
    t.ok(all(d["process"]["group_leader"]["pid"] == d["pgrptrace"]["process"]["pgid"] and
             ("pgid" in d["process"]) == (version == "8.11") for d in docs if "process" in d and
             isinstance(d["pgrptrace"].get("process"), dict)),
         "ECS %s: the group in process.group_leader.pid%s" %
         (version, ", and process.pgid" if version == "8.11" else " (no process.pgid)"))

dates = [d["@timestamp"] for d in docs] + [d["process"]["start"] for d in docs if "process" in d]
t.ok(all(re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z$", x) for x in dates),
     "dates in ISO 8601 UTC", [x for x in dates if not re.match(r"^\d{4}-", x)][:3])
t.ok(all(d.get("host", {}).get("boot", {}).get("id") for d in docs), "host.boot.id on every document")
# What ran, on every document (issue 17): each document of sh, setsid or
# sleep says its executable and args, whatever the record (a fork's child
# runs the forker's until it execs).
ran = [d for d in docs if d.get("process", {}).get("name") in ("sh", "sleep", "setsid")]
t.ok(len({d["event"]["action"] for d in ran}) >= 5 and
     all(d["process"].get("executable") and d["process"].get("args") for d in ran),
     "process.executable and .args on every document of sh, setsid and sleep",
     [(d["event"]["action"], d["process"]["name"]) for d in ran
      if not (d["process"].get("executable") and d["process"].get("args"))][:5])
t.ok(all(d["process"]["session_leader"].get("entity_id") for d in ran
         if d["event"]["action"] != "survivor" and d["process"]["session_leader"]["pid"] > 1),
     "process.session_leader.entity_id where the leader is alive")

t.done()
