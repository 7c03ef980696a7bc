#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Hook levels and --check. --check must tell the truth about this kernel:
its release and configuration as read here, tracefs, and for every level
whether it loads, which forcing the level with PGRPTRACE_HOOKS confirms. Each
level that loads traces a workload; one the kernel refuses (fentry here) is
reported as skipped, with the reason. The full end-to-end tests run again at
every level below the default in `make check` (check-levels)."""
import gzip
import json
import os
import re

from harness import PGRPTRACE, Tap, check_nothing_left, run, run_tracer, workload

t = Tap()
LEVELS = ["fentry", "tp_btf", "raw_tp", "tracepoint"]

p = run([PGRPTRACE, "--check", "--json"], capture_output=True, text=True, timeout=120)
t.eq(p.returncode, 0, "check: exit 0, this machine can trace")
t.eq(p.stderr, "", "check: nothing on stderr")
c = json.loads(p.stdout)
t.eq(c["kernel"]["release"], os.uname().release, "check: the kernel release")
t.eq(c["kernel"]["machine"], os.uname().machine, "check: the machine")
t.eq((c["btf"]["present"], c["btf"]["bytes"]), (True, os.path.getsize("/sys/kernel/btf/vmlinux")),
     "check: BTF and its size")
t.ok(c["tracefs"]["mounted"] and os.path.exists("/sys/kernel/tracing/events/sched"),
     "check: tracefs mounted (by the check if it was not)", c["tracefs"])
config = {}
for path in ("/proc/config.gz", "/boot/config-" + os.uname().release):
    try:
        with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
            for line in f:
                if line.startswith("CONFIG_") and "=" in line:
                    k, v = line.strip().split("=", 1)
                    config[k] = v
        break
    except OSError:
        continue
if config and c["config"]:
    got = {k: v for k, v in c["config"].items() if k != "source"}
    t.eq(got, {k: config.get(k, "n") for k in got}, "check: CONFIG_ values as read here")
    t.eq(c["config"]["CONFIG_BPF_EVENTS"], "y", "check: BPF_EVENTS reported")
else:
    t.eq(c["config"], None, "check: config reported unreadable when it is")
t.eq([l["name"] for l in c["levels"]], LEVELS, "check: the four levels, best first")
t.ok(c["iterators"], "check: iter/task loads here")
t.eq(c["ringbuf_bytes"], 4 << 20, "check: the default ring buffer size")
ok = {l["name"]: l["ok"] for l in c["levels"]}
t.ok(ok["tracepoint"] and ok["raw_tp"] and ok["tp_btf"], "check: tracepoints of every kind load",
     ok)
t.eq(c["level"], next(l for l in LEVELS if ok[l]), "check: the level used is the best that loads")
# This kernel has them all, unless the fallbacks are asked for.
off = os.environ.get("PGRPTRACE_TEST_NO_FEATURES") == "all"
t.eq(c["features"], {"bpf_task_from_pid": True, "bpf_loop": not off, "bpf_snprintf": not off,
                      "task_storage": not off, "atomic_fetch": not off, "mem_alloc": not off},
     "check: the features this kernel offers")
ev = {e["event"]: e for e in c["events"]}
t.eq(ev["fork"]["hook"], {"fentry": "tp_btf/sched_process_fork",
                          "tp_btf": "tp_btf/sched_process_fork",
                          "raw_tp": "raw_tp/sched_process_fork",
                          "tracepoint": "tracepoint/sched/sched_process_fork"}[c["level"]],
     "check: fork's hook at that level")
t.ok(ev["reap"]["fallback"] is None or ev["reap"]["fallback_loses"],
     "check: each fallback says what it loses", ev["reap"])
for k in ("setsid, setpgid, subreaper", "tty acquire, release, foreground",
          "signal causes (kill family)"):
    fentry = c["level"] == "fentry" and not ev[k]["fentry_missing"]
    t.ok(ev[k]["hook"].startswith("fentry+fexit/" if fentry else "tracepoint/syscalls/"),
         "check: %s: %s" % (k, "fentry/fexit" if fentry else "syscall tracepoints"),
         ev[k]["hook"])

text = run([PGRPTRACE, "--check"], capture_output=True, text=True, timeout=120)
t.eq(text.returncode, 0, "check text: exit 0")
t.ok("pgrptrace can trace here, with %s hooks." % c["level"] in text.stdout,
     "check text: the verdict names the level", text.stdout[-200:])
for name in LEVELS:
    line = [l for l in text.stdout.splitlines() if l.strip().startswith(name + " ")]
    t.ok(line and (("loads and attaches" in line[0]) == ok[name]),
         "check text: %s says the same as JSON" % name, line)

# The command prints the tags of pgrptrace's programs (their instructions'
# hash, as relocated) to stderr, then runs the rest.
TAGS = ["sh", "-c", 'grep -hs prog_tag /proc/$PPID/fdinfo/* >&2; exec "$@"', "tags"]


def same_relocations(what, r, env, split=True):
    """CO-RE against the kernel's types cut to what the relocations use
    (corebtf.c) must relocate every program as libbpf does searching the
    whole BTF: the same tags, program for program. With the cut, on two
    CPUs, the load is split (halves.c): the programs of the half without
    kfuncs must be the same instructions as the whole object's, which a
    run with the whole BTF loads as one, each program held by an fd and
    a link as there. Without atomic fetch (the fallbacks) the object built
    without it loads, as one."""
    t.ok("CO-RE types: " in r.err and "with the cut BTF" not in r.err,
         "%s: CO-RE against the cut kernel BTF" % what,
         [l for l in r.err.splitlines() if "CO-RE" in l or "cut BTF" in l])
    if split and len(os.sched_getaffinity(0)) >= 2:
        t.ok("in two halves at once" in r.err, "%s: the load split in two halves" % what,
             [l for l in r.err.splitlines() if "attached with" in l or "split" in l])
    whole = run_tracer(["-v", "--json", "--"] + TAGS + ["true"],
                       env=dict(env, PGRPTRACE_TEST_WHOLE_BTF="1"))
    cut, full = (tags_of(x) for x in (r, whole))
    t.ok(len(cut) >= 20 and cut == full and "CO-RE types: " not in whole.err and
         "in one object" in whole.err,
         "%s: every program relocated as against the whole kernel BTF, as one object" % what,
         (len(cut), len(full), sorted(set(cut) ^ set(full))), "the same %d tags" % len(full))
    return full


def tags_of(r):
    return sorted(re.findall(r"^prog_tag:\s+(\w+)", r.err, re.M))


level_tags = None
# Every level: forcing it agrees with --check; a level that loads traces,
# its programs relocated as against the whole BTF.
for name in LEVELS:
    r = run_tracer(["-v", "--json", "--"] + TAGS + workload("exit", "3"),
                   env={"PGRPTRACE_HOOKS": name})
    if not ok[name]:
        why = [l["reason"] for l in c["levels"] if l["name"] == name][0]
        t.eq(r.rc, 125, "%s: forced, it fails as --check said (125: with a command)" % name)
        t.ok("cannot load" in r.err or "cannot attach" in r.err or "cannot use" in r.err,
             "%s: with a one-line reason" % name, r.err[-300:])
        t.skip("%s: traces a workload" % name, "refused by this kernel: %s" % why)
        continue
    t.eq(r.rc, 3, "%s: the command ran, its status passed on" % name)
    t.ok("attached with %s hooks" % name in r.err, "%s: says the level" % name, r.err[-300:])
    t.eq([e["event"] for e in r.events if e["event"] in ("exec", "exit")][-2:],
         ["exec", "exit"], "%s: exec and exit seen" % name)
    exits = r.of("exit")
    t.ok(exits and exits[-1]["exit"]["code"] == 3, "%s: the exit code" % name)
    whole_tags = same_relocations(name, r, {"PGRPTRACE_HOOKS": name})
    if name == c["level"]:
        level_tags = whole_tags

# A load the cut BTF fails (here one cut for no relocation at all) is tried
# once more with libbpf's own search of the whole BTF, and goes on.
r = run_tracer(["-v", "--json", "--"] + TAGS + ["true"], env={"PGRPTRACE_TEST_FAULT": "cut"})
t.eq(r.rc, 0, "cut BTF refused: the run goes on")
t.ok("CO-RE types: 0 of" in r.err and
     "%s hooks do not load with the cut BTF, trying the whole of it" % c["level"] in r.err,
     "cut BTF refused: said, and the whole BTF tried", r.err[-600:])
t.eq(tags_of(r), level_tags, "cut BTF refused: the programs relocated against the whole")

# The fallbacks of kernels before 5.17 (no bpf_loop, bpf_snprintf or task
# storage), taken here on request: the loader says so, and still traces.
# The `fallbacks` pass of make check runs the end-to-end tests this way.
r = run_tracer(["-v", "--json", "--"] + TAGS + workload("exit", "3"),
               env={"PGRPTRACE_TEST_NO_FEATURES": "all"})
t.ok("bpf_loop no, bpf_snprintf no, task storage no, atomic fetch no" in r.err,
     "fallbacks: taken when asked", r.err[-400:])
t.eq(r.rc, 3, "fallbacks: the command ran, its status passed on")
exits = r.of("exit")
t.ok(exits and exits[-1]["exit"]["code"] == 3, "fallbacks: its exit traced")
same_relocations("fallbacks", r, {"PGRPTRACE_TEST_NO_FEATURES": "all"}, split=False)

# --btf FILE (here the kernel's own): CO-RE against it, not a cut of it, the
# load split as with the cut, and pgrptrace's own descriptors left alone
# (the cut's bookkeeping once closed fd 0 for it).
r = run_tracer(["-v", "--btf", "/sys/kernel/btf/vmlinux", "--json", "--", "sh", "-c",
                'test -e /proc/$PPID/fd/0 && exit 5'])
t.ok(r.rc == 5, "--btf FILE: traced, pgrptrace's stdin still open", (r.rc, r.err[-300:]))
t.ok("CO-RE types: " not in r.err and (len(os.sched_getaffinity(0)) < 2 or
                                       "in two halves at once" in r.err),
     "--btf FILE: no cut, the load split", [l for l in r.err.splitlines() if "attached" in l])

# An unreadable BTF file: --check says so and exits 1.
p = run([PGRPTRACE, "--check", "--btf", "/nonexistent"], capture_output=True,
                   text=True, timeout=60)
t.eq(p.returncode, 1, "check: missing BTF file, exit 1")
t.ok("cannot trace here" in p.stdout and "missing" in p.stdout, "check: and says why",
     p.stdout[-300:])

check_nothing_left(t, "levels")
t.done()
