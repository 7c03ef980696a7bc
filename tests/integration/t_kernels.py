#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""The kernels our users run: Debian's cloud kernels of bullseye (5.10),
bookworm (6.1) and trixie (6.12), fetched from Debian's registry and booted
under qemu (TCG), twice each.

First on a busybox initramfs: `pgrptrace --check` must name the level it
uses and what each refused level lacks; every level it offers must then pass
the randomized fidelity run (fork, double fork, setsid, setpgid of self and
child, subreaper, reap, exit, reparent: the model equal to /proc at every
quiet point); and the run with reparents left out must be caught. A run's
programs, relocated against the kernel's types cut to what CO-RE uses, must
have the tags of a run where libbpf searches the whole BTF (and modules').

Then on a root disk made of this machine's programs (python3, bash, sshd,
tmux, util-linux, podman) under a tmpfs overlay: the end-to-end suite
itself (GUEST_TESTS), at the level the kernel picks. Its TAP lines come back named
after the kernel.

The kernels boot side by side, all at once unless PGT_GUESTS caps them
(each guest is one busy host thread), and each kernel's results are
reported in order, with where its time went.

PGRPTRACE_KERNELS picks the suites (default: all three); GUEST_SUITE=0
leaves out the root-disk suite; GUEST_SEEDS the fidelity seeds per level
(default 5)."""
import concurrent.futures
import json
import os
import re
import shutil
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "guest"))
import guest  # noqa: E402
from harness import Tap  # noqa: E402

t = Tap()
PGRPTRACE = os.environ.get("PGRPTRACE", os.path.abspath("pgrptrace"))
FIDELITY = os.environ.get("FIDELITY", os.path.abspath(".output/tests/fidelity"))
SUITES = os.environ.get("PGRPTRACE_KERNELS", "bullseye bookworm trixie").split()
SEEDS = int(os.environ.get("GUEST_SEEDS", "5"))
LEVELS = ["fentry", "tp_btf", "raw_tp", "tracepoint"]
TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GUEST_TESTS = os.environ.get("GUEST_TESTS", " ".join(
    "tests/integration/t_%s.py" % n for n in
    ("lifecycle", "exec", "groups", "model", "signals", "escapes", "pty", "fidelity",
     "container", "death", "contain", "logout"))).split()
# In the guest: the plain build at /pgt, and time bounds stretched for TCG.
GUEST_ENV = {"PGRPTRACE": "/pgt/pgrptrace", "WORKLOAD": "/pgt/.output/tests/workload",
             "FIDELITY": "/pgt/.output/tests/fidelity", "FIDELITY_SEEDS": "10",
             "PGT_TIME_SCALE": "5", "PGT_GUEST": "1"}
# The command prints the tags (instruction hashes) of pgrptrace's programs.
# A descriptor of pgrptrace's may close between the glob and its read (grep
# then says 2, having printed every program's tag): only none found fails.
TAGS = ["sh", "-c", "grep -hs prog_tag /proc/$PPID/fdinfo/*; test $? != 1"]
TAP = re.compile(r"^(not ok|ok) \d+ - (.*?)(?: # SKIP (.*))?$")

# What each kernel is known to lack (../shared/docs/kernel-notes.md section 9),
# as --check must name it: a level refused for another reason, or a level
# offered where this table says it cannot be, is a failure.
REFUSED = {
    "bullseye": {"tracepoint": "bpf_task_from_pid"},
    "bookworm": {"tracepoint": "bpf_task_from_pid"},
    "trixie": {},
}

# What --check must find each kernel offering (kernel-notes.md section 9).
FEATURES = {
    "bullseye": {"bpf_task_from_pid": False, "bpf_loop": False, "bpf_snprintf": False,
                 "task_storage": False, "atomic_fetch": False, "mem_alloc": False},
    "bookworm": {"bpf_task_from_pid": False, "bpf_loop": True, "bpf_snprintf": True,
                 "task_storage": True, "atomic_fetch": True, "mem_alloc": True},
    "trixie": {"bpf_task_from_pid": True, "bpf_loop": True, "bpf_snprintf": True,
               "task_storage": True, "atomic_fetch": True, "mem_alloc": True},
}


def keep_console(suite, what, console):
    """Each guest's whole console, kept under .output/ for whoever reads a failure."""
    path = os.path.join(TOP, ".output", "guest-%s-%s.log" % (suite, what))
    with open(path, "w") as f:
        f.write(console)
    return path


def say_times(name, what, took, console):
    """Where a boot's time went: the host's wall time, the guest's own
    account of its start and of each command, slowest first."""
    g = guest.times(console)
    commands = sorted(c for c in g.pop("commands", []) if c[1] != "run-test")
    parts = ["%s %.0f s" % (k, v) for k, v in sorted(g.items(), key=lambda kv: -kv[1])
             if k != "up"]
    t.diag("%s: %s boot: %.0f s in all; kernel up at %s s; %s" % (
        name, what, took, "%.0f" % g["up"] if "up" in g else "?", ", ".join(parts)))
    for secs, test, cmd in commands[::-1][:5]:
        t.diag("%s:   %5.1f s  %s: %s" % (name, secs, test, cmd[:120]))


def fidelity_cmd(level, first, seeds, skip=None):
    env = ["env", "PGRPTRACE_HOOKS=" + level] + (["PGRPTRACE_TEST_SKIP=" + skip] if skip else [])
    return env + ["pgrptrace", "--verify", "--", "fidelity", str(first), str(seeds), "40"]


def differences(out):
    return [(int(a), int(b)) for a, b in
            re.findall(r"^verify: (\d+) processes, (\d+) differences$", out, re.M)]


def suite_in_guest(name, res, console):
    """Each test file's TAP from the guest, as our own lines under @name."""
    for path in GUEST_TESTS:
        test = os.path.basename(path)
        if test not in res:
            t.ok(False, "%s: %s ran" % (name, test), None, "its TAP")
            t.diag(console[-3000:])
            continue
        rc, out = res[test]
        lines = out.splitlines()
        results = 0
        for line in lines:
            m = TAP.match(line)
            if not m:
                continue
            results += 1
            what = "%s: %s: %s" % (name, test[:-3], m.group(2))
            if m.group(3) is not None:
                t.skip(what, m.group(3))
            elif not t.ok(m.group(1) == "ok", what):
                t.diag("\n".join(lines[-40:]))
        t.ok(rc == 0 and "1..%d" % results in lines, "%s: %s: exit 0, all %d results"
             % (name, test[:-3], results), (rc, lines[-5:]), "exit 0 and a full plan")


need = [os.path.join(TOP, GUEST_ENV[k][len("/pgt/"):]) for k in ("PGRPTRACE", "WORKLOAD",
                                                                  "FIDELITY")]
missing = [p for p in need if not os.path.exists(p)]
if missing:
    t.ok(False, "the plain build is there for the guests", missing, [])
    t.done()
# GUEST_SUITE=0 leaves out the root-disk suite (a few minutes a kernel).
SUITE = os.environ.get("GUEST_SUITE", "1") != "0"
work, image = guest.make_root(TOP, GUEST_TESTS, GUEST_ENV, 900) if SUITE else (None, None)

def parse_check(res):
    """--check --json's answer in a boot's results, or None."""
    out = res.get("check", (None, ""))[1]
    try:
        return json.loads(out[out.index("{"):])
    except ValueError:
        return None


def boots(suite, kdir):
    """One kernel's boots, in a worker thread: the initramfs, then (where a
    level loads) the root disk. Each is (release, results, console, seconds)."""
    commands = [("check", 300, ["pgrptrace", "--check", "--json"]),
                ("check-text", 300, ["pgrptrace", "--check"]),
                ("run", 300, ["pgrptrace", "-v", "-o", "/dev/null", "--"] + TAGS),
                ("run-whole", 300, ["env", "PGRPTRACE_TEST_WHOLE_BTF=1", "pgrptrace", "-v",
                                    "-o", "/dev/null", "--"] + TAGS)]
    for level in LEVELS:
        commands.append(("fidelity-" + level, 900, fidelity_cmd(level, 1, SEEDS)))
    commands.append(("control", 600, fidelity_cmd("tp_btf", 7, 2, skip="reparent")))
    t0 = time.monotonic()
    first = guest.boot(kdir, {"pgrptrace": PGRPTRACE, "fidelity": FIDELITY}, commands,
                       timeout=3600)
    first += (time.monotonic() - t0,)
    keep_console(suite, "initramfs", first[2])
    check = parse_check(first[1])
    if not SUITE or not check or not any(l["ok"] for l in check["levels"]):
        return first, None
    t0 = time.monotonic()
    second = guest.boot_root(kdir, image, timeout=2400)
    second += (time.monotonic() - t0,)
    keep_console(suite, "root", second[2])
    return first, second


# Each guest is one busy host thread (TCG, thread=single): all of them at
# once (PGT_GUESTS caps it), so that they use every cycle the host's passes
# leave; each kernel's TAP in order as it is done.
kdirs = {}
for suite in SUITES:
    try:
        kdirs[suite] = guest.fetch(suite)
    except Exception as e:  # noqa: BLE001 - any failure to fetch is this kernel's failure
        t.ok(False, "%s: kernel fetched from Debian's registry" % suite, str(e), "a kernel")
pool = concurrent.futures.ThreadPoolExecutor(
    max_workers=int(os.environ.get("PGT_GUESTS") or len(kdirs) or 1))
running = {suite: pool.submit(boots, suite, kdir) for suite, kdir in kdirs.items()}

for suite in [s for s in SUITES if s in running]:
    kdir = kdirs[suite]
    try:
        (release, res, console, took), root = running[suite].result()
    except Exception as e:  # noqa: BLE001 - a guest that cannot be run fails its kernel
        t.ok(False, "%s: the guests ran" % suite, repr(e), "their results")
        continue
    package = open(os.path.join(kdir, "package")).read().strip()
    name = "%s (%s)" % (release or suite, suite)
    say_times(name, "initramfs", took, console)
    if not t.ok(release is not None and "check" in res, "%s: %s boots and runs the tests"
                % (name, package)):
        t.diag(console[-3000:])
        continue
    rc, out = res["check"]
    check = parse_check(res)
    if check is None:
        t.ok(False, "%s: --check --json prints JSON" % name, out[-1500:], "JSON")
        continue
    offered = [l["name"] for l in check["levels"] if l["ok"]]
    refused = {l["name"]: l.get("reason") or "" for l in check["levels"] if not l["ok"]}
    want = REFUSED.get(suite, {})
    t.eq(sorted(refused), sorted(want), "%s: --check refuses exactly %s" % (name, sorted(want)))
    for level, what in sorted(want.items()):
        t.ok(what in refused.get(level, ""), "%s: --check names what %s lacks (%s)"
             % (name, level, what), refused.get(level), what)
    if suite in FEATURES:
        t.eq(check.get("features"), FEATURES[suite], "%s: --check finds the features it has"
             % name)
    t.eq(rc, 0 if offered else 1, "%s: --check exits %d" % (name, 0 if offered else 1))
    if offered:
        t.eq(check.get("level"), offered[0], "%s: --check uses the best level it offers, %s"
             % (name, offered[0]))
    t.diag("%s: levels %s; refused: %s" % (name, offered, refused))
    trc, tout = res.get("check-text", (None, ""))
    verdict = ("pgrptrace can trace here, with %s hooks." % check.get("level") if offered
               else "pgrptrace cannot trace here.")
    t.ok(trc == rc and verdict in tout,
         "%s: --check's text names the same level" % name, tout[-300:])
    rrc, rout = res.get("run", (None, ""))
    m = re.search(r"attached with (\S+) hooks", rout)
    t.eq((rrc, m and m.group(1)), (0, check.get("level")),
         "%s: a run attaches the level --check names" % name)
    # CO-RE against the kernel's types cut to what the relocations use
    # (corebtf.c): every program as libbpf relocates it searching the whole
    # BTF and, for a type of another version, every module's.
    wrc, wout = res.get("run-whole", (None, ""))
    cut, whole = (sorted(re.findall(r"^prog_tag:\s+(\w+)", x, re.M)) for x in (rout, wout))
    t.ok("CO-RE types: " in rout and "with the cut BTF" not in rout and
         "CO-RE types: " not in wout,
         "%s: CO-RE against the cut kernel BTF" % name,
         [l for l in (rout + wout).splitlines() if "CO-RE" in l])
    # The cut run's load split in two halves (halves.c) where the guest has
    # atomic fetch; the whole BTF's as one object: the same tags either way.
    t.ok(wrc == 0 and len(cut) >= 20 and cut == whole,
         "%s: every program relocated as against the whole kernel BTF" % name,
         (wrc, len(cut), len(whole), sorted(set(cut) ^ set(whole))),
         "the same %d tags" % len(whole))
    # Where trampolines load, no syscall tracepoint: each syscall has its function here.
    events = {e["event"]: e for e in check.get("events", [])}
    for k in ("setsid, setpgid, subreaper", "tty acquire, release, foreground",
              "signal causes (kill family)"):
        e = events.get(k, {})
        if check.get("level") == "fentry":
            t.ok(e.get("hook", "").startswith("fentry+fexit/") and not e.get("fentry_missing"),
                 "%s: %s: fentry/fexit, no syscall tracepoint" % (name, k), e)
        else:
            t.skip("%s: %s: fentry/fexit" % (name, k), "no fentry level here")
    for level in LEVELS:
        frc, fout = res.get("fidelity-" + level, (None, ""))
        what = "%s: %s level" % (name, level)
        if level not in offered:
            t.ok(frc not in (None, 0) and "cannot" in fout,
                 "%s: refused at start, with the reason" % what, fout[-300:], "cannot ...")
            continue
        s = differences(fout)
        if not t.eq(frc, 0, "%s: fidelity, %d seeds: tracer and workload exit 0" % (what, SEEDS)):
            t.diag(fout[-2000:])
        t.eq(len(s), SEEDS * 6 + 1, "%s: every quiet point checked" % what)
        if not t.eq(sum(d for _, d in s), 0,
                    "%s: the model equals /proc at every quiet point" % what):
            t.diag("\n".join(l for l in fout.splitlines()
                              if "fidelity: seed" in l or l.startswith("verify: pid")))
    if "tp_btf" in offered:
        crc, cout = res.get("control", (None, ""))
        t.ok(sum(d for _, d in differences(cout)) > 0 and crc == 125,
             "%s: a model without reparents is caught" % name, (crc, cout[-300:]),
             "exit 125 (a failure of pgrptrace's, with a command)")
    else:
        t.skip("%s: a model without reparents is caught" % name, "no level loads here")
    if not offered or not SUITE:
        t.skip("%s: the end-to-end suite" % name,
               "no level loads here" if SUITE else "GUEST_SUITE=0")
        continue
    release, res, console, took = root
    say_times(name, "root disk", took, console)
    t.diag("%s: the root disk's console is in .output/guest-%s-root.log" % (name, suite))
    if not t.ok(release is not None and res, "%s: boots on the root disk" % name):
        t.diag(console[-3000:])
        continue
    suite_in_guest(name, res, console)
if work:
    shutil.rmtree(work, ignore_errors=True)
t.done()
