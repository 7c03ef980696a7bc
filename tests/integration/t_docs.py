#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Docs that cannot drift (issue 31), read against the code:
- every option user/opts.c parses (and argp's own) is in --help, the man
  page's OPTIONS, the README's usage block, and, when it takes a value, in
  the bash completion's cases; and nothing else is named there;
- every field name json.c and jsonw's callers write into a record is in
  docs/events.md and docs/events.schema.json, and every field those two
  name is written by the code (or listed below as the tree document's);
- every ECS field ecs.c writes is in docs/ecs.md.
No root needed; no tracing."""
import json
import os
import re
import subprocess

import fields
from harness import PGRPTRACE, TOP, Tap

t = Tap()


def read(*path):
    with open(os.path.join(TOP, *path), encoding="utf-8") as f:
        return f.read()


# ---- Options ----
opts_c = read("user", "opts.c")
table = opts_c[opts_c.index("static const struct argp_option options[]"):]
table = table[:table.index("\n};")]
# { "name", KEY, "ARG" or NULL, FLAGS, ...
entries = re.findall(r'\{\s*"([a-z-]+)",\s*(\'.\'|\w+),\s*("[^"]*"|NULL),\s*([^,]+),', table)
longs = {name: (arg != "NULL") for name, key, arg, flags in entries}
shorts = {key.strip("'"): name for name, key, arg, flags in entries if key.startswith("'")}
# argp's own, and -h (hidden: argp lists -?, --help).
longs.update({"help": False, "usage": False, "version": False})
shorts.update({"?": "help", "V": "version", "h": "help"})
t.ok(len(longs) > 30, "options: read from user/opts.c", sorted(longs))


def named(text, pat=r"(?<![\w-])--([a-z][a-z-]*)"):
    return set(re.findall(pat, text))


help_out = subprocess.run([PGRPTRACE, "--help"], capture_output=True, text=True).stdout
listing = help_out[:help_out.index("EXAMPLES:")] if "EXAMPLES:" in help_out else help_out
t.eq(sorted(set(longs) - named(listing)), [], "--help lists every option")
t.eq(sorted(named(help_out) - set(longs)), [], "--help names no option that does not exist")
t.eq(len(re.findall(r"^\s+(?:-., )?--help\b", listing, re.M)), 1, "--help lists --help once")
t.ok("125" in help_out, "--help gives exit status 125 (a failure of ours, with a command)")

man = read("docs", "pgrptrace.8")
man_opts = man[man.index(".SH OPTIONS"):man.index(".SH OUTPUT")].replace("\\-", "-")
t.eq(sorted(set(longs) - named(man_opts)), [], "man page: OPTIONS has every option")
t.eq(sorted(named(man.replace("\\-", "-")) - set(longs)), [],
     "man page: names no option that does not exist")
for s, name in sorted(shorts.items()):
    if s in "?hV" or re.search(r"-%s\b" % re.escape(s), man_opts):
        continue
    t.ok(False, "man page: -%s (--%s) is there" % (s, name))

readme = read("README.md")
usage = readme[readme.index("## Usage"):]
usage = usage[usage.index("```") + 3:]
usage = usage[:usage.index("```")]
t.eq(sorted(set(longs) - named(usage)), [], "README usage block: every option")
# Every pgrptrace command line the README shows: its options, up to " -- ".
lines = [m.split(" -- ")[0] for m in re.findall(r"pgrptrace((?: [^|;&`\n]*)?)", readme)]
t.eq(sorted(named(usage + "\n".join(lines)) - set(longs)), [],
     "README: its pgrptrace command lines name no option that does not exist")

comp = read("docs", "pgrptrace.bash-completion")
cases = set()
for pat in re.findall(r"^\t([-a-z |]+)\)$", comp, re.M):
    cases |= {p.strip().lstrip("-") for p in pat.split("|")}
takes = {n for n, arg in longs.items() if arg}
t.eq(sorted(takes - cases), [], "bash completion: a case for every option that takes a value")
t.eq(sorted({c for c in cases if len(c) > 1} - set(longs)), [],
     "bash completion: no case for an option that does not exist")

# ---- Record fields ----
events_md = read("docs", "events.md")
schema_txt = read("docs", "events.schema.json")
schema = json.loads(schema_txt)
code = "".join(read("user", *f) for f in (("out", "json.c"), ("out", "jsonw.c"),
                                          ("view", "tree.c"), ("out", "ecs.c")))
json_c = read("user", "out", "json.c") + read("user", "view", "tree.c")
written = set(re.findall(r'jsonw_\w+\(\s*&?w,\s*"(\w+)"', json_c))
written |= set(re.findall(r'json_\w+\(\s*&?w,\s*(?:fc,\s*)?"(\w+)"', json_c))
# A field named by a choice: jsonw_bool_field(w, exe ? "a" : "b", ...), or a
# name chosen first (then untrusted: with its "_hex" twin).
for a, b in re.findall(r'jsonw_\w+\(\s*&?w,\s*\w+ \? "(\w+)" : "(\w+)"', json_c):
    written |= {a, b}
for a, b in re.findall(r'const char \*name = \w+ \? "(\w+)" : "(\w+)"', json_c):
    written |= {a, b, a + "_hex", b + "_hex"}
written |= set(re.findall(r'jsonw_name\(\s*&?w,\s*"(\w+)"\)', json_c))
# A string of untrusted bytes gets a "_hex" twin when it is not UTF-8.
written |= {n + "_hex" for n in re.findall(r'jsonw_untrusted(?:_array)?\(\s*&?w,\s*"(\w+)"',
                                           json_c)}
written |= {n + "_hex" for a, b in re.findall(r'jsonw_untrusted\(\s*&?w,\s*\w+ \? "(\w+)" : '
                                              r'"(\w+)"', json_c) for n in (a, b)}
# A logout's "counts": one member per fate, named by logout.c's table.
written |= set(re.findall(r'\[FATE_\w+\] = "(\w+)"', read("user", "core", "logout.c")))
# The host object (user/host.c) and the tree document's.
written |= set(re.findall(r'field\(&?w,\s*"(\w+)"', read("user", "out", "host.c")))
documented = fields.documented_names(events_md)


def schema_names(node, out):
    if isinstance(node, dict):
        out |= set(node.get("properties", {}))
        if isinstance(node.get("required"), list):
            out |= set(node["required"])
        for v in node.values():
            schema_names(v, out)
    elif isinstance(node, list):
        for v in node:
            schema_names(v, out)
    return out


in_schema = schema_names(schema, set())
# Written by the code, but not record fields: the names of values (event
# kinds, how, correction kinds), and the tree document's own, documented
# under "The tree document".
t.ok(len(written) > 80, "fields: read from json.c and tree.c", len(written))
t.eq(sorted(written - documented), [], "docs/events.md names every field the code writes")
tree_only = {"sessions", "groups", "processes", "leader", "foreground", "session_leader",
             "zombie", "uncertain", "adopted_from"}
t.eq(sorted(written - in_schema - tree_only), [],
     "docs/events.schema.json has every record field the code writes")
t.eq(sorted(in_schema - written - {"schema"}), [],
     "docs/events.schema.json names no field the code never writes")

# ---- ECS ----
ecs_c = read("user", "out", "ecs.c")
ecs_md = read("docs", "ecs.md")
# ecs.c nests its objects: each name it writes, at any depth, is in docs/ecs.md.
ecs_written = set(re.findall(r'(?:jsonw_\w*(?:field|name)|ecs_\w+)\(\s*w,\s*"(\w+)"', ecs_c))
ecs_written -= {"pgrptrace"}
t.ok(len(ecs_written) > 20, "ECS: field names read from ecs.c", sorted(ecs_written))
t.eq(sorted(f for f in ecs_written if not re.search(r"\b%s\b" % f, ecs_md)), [],
     "docs/ecs.md names every ECS field ecs.c writes")

# ---- The README's set-up and layout ----
mk = read("Makefile")


def pkgs(var):
    m = re.search(r"^%s\s*:=\s*((?:.*\\\n)*.*)$" % var, mk, re.M)
    return set(m.group(1).replace("\\\n", " ").split()) if m else set()


build, test = pkgs("BUILD_PKGS"), pkgs("TEST_PKGS")
t.ok(len(build) > 5 and len(test) > 10, "Makefile: BUILD_PKGS and TEST_PKGS read",
     (sorted(build), sorted(test)))
setup = readme[readme.index("## Set-up"):readme.index("`make check` takes")]
said = set(re.findall(r"[a-z0-9][a-z0-9.+-]*[a-z0-9]", setup))
t.eq(sorted((build | test) - said), [], "README set-up: names every package the Makefile installs")
# A row per folder of user/ (the layers), naming each module of its folder.
missing = []
for root, dirs, files in os.walk(os.path.join(TOP, "user")):
    folder = os.path.relpath(root, TOP) + "/"
    row = next((ln for ln in readme.splitlines() if ln.startswith("| `%s`" % folder)), "")
    missing += [folder + f for f in sorted(files) if f.endswith(".c") and
                not re.search(r"`%s(\.c)?`|[`/]%s[`/]" % (f[:-2], f[:-2]), row)]
t.eq(missing, [], "README layout: each user/ folder's row names every module in it")
t.eq(sorted(set(re.findall(r"\bschema`? (\d+)", read("docs", "ecs.md")))),
     [str(schema["properties"]["schema"]["const"])], "docs/ecs.md: the schema it names is current")

# No package registry's host is written in the tree: the machine's own apt
# sources and npm configuration say where packages come from.
hosts = ["deb." + "debian.org", "registry." + "npmjs.org", "ftp." + "debian.org"]
found = []
for root, dirs, files in os.walk(TOP):
    dirs[:] = [d for d in dirs if not d.startswith(".")]
    for f in files:
        try:
            with open(os.path.join(root, f), "rb") as fh:
                data = fh.read()
        except OSError:
            continue
        found += ["%s: %s" % (os.path.relpath(os.path.join(root, f), TOP), h)
                  for h in hosts if h.encode() in data]
t.eq(found, [], "no file of the tree names a package registry's host")

t.done()
