#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""--ecs documents against Elastic's own field definitions: every field
outside "pgrptrace" exists in ECS 8.11 (the @elastic/ecs package on npm, its
ecs_flat) with a compatible JSON type, and arrays where ECS says array."""
import base64
import hashlib
import io
import json
import os
import re
import subprocess
import tarfile
import tempfile

from harness import Tap, run_tracer

# The ECS release --ecs writes (ecs.version 8.11.0), pinned by its integrity,
# fetched by npm as the machine configures it.
PACKAGE = "@elastic/ecs@8.11.5"
TARBALL = "ecs-8.11.5.tgz"
INTEGRITY = ("sha512-S7qkIaRrKHyiU6ww0r5qt8mOh8wK8w3LpNdMb0qxuj6wxQmn6TVpZ9DxxICGVKwaPbQIYuNTm"
             "BPSUocl+VhINw==")
CACHE = os.environ.get("PGRPTRACE_ECS_CACHE", "/var/cache/pgrptrace-ecs")

t = Tap()


def package():
    """The package's bytes, from the cache or `npm pack`, checked."""
    path = os.path.join(CACHE, TARBALL)
    if os.path.exists(path):
        data = open(path, "rb").read()
    else:
        with tempfile.TemporaryDirectory(prefix="pgt-ecs-") as d:
            p = subprocess.run(["npm", "pack", "--silent", "--pack-destination", d, PACKAGE],
                               cwd=d, capture_output=True, text=True, timeout=300)
            got = [f for f in os.listdir(d) if f.endswith(".tgz")]
            if p.returncode or len(got) != 1:
                raise RuntimeError("npm pack %s: %s" % (PACKAGE, p.stderr.strip()[-300:]))
            data = open(os.path.join(d, got[0]), "rb").read()
    digest = "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()
    if digest != INTEGRITY:
        raise RuntimeError("%s: integrity %s, expected %s" % (PACKAGE, digest, INTEGRITY))
    if not os.path.exists(path):
        os.makedirs(CACHE, exist_ok=True)
        with open(path + ".tmp", "wb") as f:
            f.write(data)
        os.rename(path + ".tmp", path)
    return data


def ecs_fields():
    """{flat name: (type, is an array)} from the package's ecs_flat.ts."""
    with tarfile.open(fileobj=io.BytesIO(package())) as tar:
        src = tar.extractfile("package/generated/ecs_flat.ts").read().decode()
    fields = {}
    for m in re.finditer(r"^  '([^']+)': \{\n(.*?)^  \},", src, re.M | re.S):
        body = m.group(2)
        ty = re.search(r"^    type: '(\w+)',", body, re.M)
        norm = re.search(r"^    normalize: \[([^\]]*)\]", body, re.M)
        fields[m.group(1)] = (ty.group(1) if ty else None,
                              bool(norm and "array" in norm.group(1)))
    return fields


# The JSON types each ECS type takes.
COMPATIBLE = {
    "keyword": (str,), "constant_keyword": (str,), "wildcard": (str,),
    "match_only_text": (str,), "text": (str,), "date": (str,), "ip": (str,),
    "long": (int,), "integer": (int,), "short": (int,), "byte": (int,),
    "unsigned_long": (int,), "float": (int, float), "scaled_float": (int, float),
    "boolean": (bool,), "object": (dict,), "flattened": (dict,), "nested": (list,),
}


def leaves(doc, prefix=""):
    """(flat name, value) of every leaf, arrays kept whole."""
    for k, v in doc.items():
        name = prefix + k
        if isinstance(v, dict) and v:
            yield from leaves(v, name + ".")
        else:
            yield name, v


fields = ecs_fields()
t.ok(len(fields) > 1500 and fields.get("process.entry_leader.entity_id") == ("keyword", False),
     "ecs_flat: read, %d fields" % len(fields))

# Every kind of document: exec, fork, exit, setsid and its escape, a signal
# to a group, a survivor.
r = run_tracer(["--ecs", "--signals=all", "--", "sh", "-c",
                "setsid sh -c 'trap \"\" USR1; kill -USR1 0'; setsid -f sleep 0.5; exit 3"])
docs = list(r.events)
r2 = run_tracer(["--ecs", "--escapes", "--", "sh", "-c", "setsid -f sleep 1; sleep 0.3"])
docs += r2.events
t.ok(docs, "documents written", (r.rc, r.err[-300:], r2.rc, r2.err[-300:]))
actions = sorted({d["event"]["action"] for d in docs})
t.diag("actions: %s" % actions)
t.ok({"exec", "fork", "exit", "setsid", "signal", "escape", "survivor"} <= set(actions),
     "documents of exec, fork, exit, setsid, signal, escape and survivor", actions)

unknown, badtype = {}, {}
for d in docs:
    for name, v in leaves({k: v for k, v in d.items() if k != "pgrptrace"}):
        if name not in fields:
            unknown.setdefault(name, v)
            continue
        ty, array = fields[name]
        vals = v if isinstance(v, list) else [v]
        ok = (isinstance(v, list) == array or not isinstance(v, list)) and all(
            isinstance(x, COMPATIBLE.get(ty, ())) and not (isinstance(x, bool) and
                                                          ty not in ("boolean",))
            for x in vals)
        if not ok:
            badtype.setdefault(name, (ty, array, v))
t.eq(sorted(unknown), [], "every field outside pgrptrace.* is an ECS field")
t.eq(sorted(badtype.items()), [], "every field has a type ECS allows for it")
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
