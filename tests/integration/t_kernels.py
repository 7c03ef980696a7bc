#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""The kernels our users run: Debian's cloud kernels of bullseye (5.10),
bookworm (6.1) and trixie (6.12), fetched from Debian's registry and booted
under qemu (TCG). In each guest, `pgrptrace --check` must name the level it
uses and what each refused level lacks; every level it offers must then pass
the randomized fidelity run (fork, double fork, setsid, setpgid of self and
child, subreaper, reap, exit, reparent: the model equal to /proc at every
quiet point); and the run with reparents left out must be caught.

PGRPTRACE_KERNELS picks the suites (default: all three); GUEST_SEEDS the
fidelity seeds per level (default 5)."""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "guest"))
import guest  # noqa: E402
from harness import Tap  # noqa: E402

t = Tap()
PGRPTRACE = os.environ.get("PGRPTRACE", os.path.abspath("pgrptrace"))
FIDELITY = os.environ.get("FIDELITY", os.path.abspath(".output/tests/fidelity"))
SUITES = os.environ.get("PGRPTRACE_KERNELS", "bullseye bookworm trixie").split()
SEEDS = int(os.environ.get("GUEST_SEEDS", "5"))
LEVELS = ["fentry", "tp_btf", "raw_tp", "tracepoint"]

# What each kernel is known to lack (../shared/docs/kernel-notes.md section 9),
# as --check must name it: a level refused for another reason, or a level
# offered where this table says it cannot be, is a failure.
REFUSED = {
    "bullseye": {l: "atomic fetch-and-add" for l in LEVELS},
    "bookworm": {"tracepoint": "bpf_task_from_pid"},
    "trixie": {},
}


def fidelity_cmd(level, first, seeds, skip=None):
    env = ["env", "PGRPTRACE_HOOKS=" + level] + (["PGRPTRACE_TEST_SKIP=" + skip] if skip else [])
    return env + ["pgrptrace", "--verify", "--", "fidelity", str(first), str(seeds), "40"]


def differences(out):
    import re
    return [(int(a), int(b)) for a, b in
            re.findall(r"^verify: (\d+) processes, (\d+) differences$", out, re.M)]


for suite in SUITES:
    try:
        kdir = guest.fetch(suite)
    except Exception as e:  # noqa: BLE001 - any failure to fetch is this kernel's failure
        t.ok(False, "%s: kernel fetched from Debian's registry" % suite, str(e), "a kernel")
        continue
    package = open(os.path.join(kdir, "package")).read().strip()
    commands = [("check", 300, ["pgrptrace", "--check", "--json"])]
    for level in LEVELS:
        commands.append(("fidelity-" + level, 900, fidelity_cmd(level, 1, SEEDS)))
    commands.append(("control", 600, fidelity_cmd("tp_btf", 7, 2, skip="reparent")))
    release, res, console = guest.boot(kdir, {"pgrptrace": PGRPTRACE, "fidelity": FIDELITY},
                                       commands, timeout=3600)
    name = "%s (%s)" % (release or suite, suite)
    if not t.ok(release is not None and "check" in res, "%s: %s boots and runs the tests"
                % (name, package)):
        t.diag(console[-3000:])
        continue
    rc, out = res["check"]
    try:
        check = json.loads(out[out.index("{"):])
    except ValueError:
        t.ok(False, "%s: --check --json prints JSON" % name, out[-1500:], "JSON")
        continue
    offered = [l["name"] for l in check["levels"] if l["ok"]]
    refused = {l["name"]: l.get("reason") or "" for l in check["levels"] if not l["ok"]}
    want = REFUSED.get(suite, {})
    t.eq(sorted(refused), sorted(want), "%s: --check refuses exactly %s" % (name, sorted(want)))
    for level, what in sorted(want.items()):
        t.ok(what in refused.get(level, ""), "%s: --check names what %s lacks (%s)"
             % (name, level, what), refused.get(level), what)
    t.eq(rc, 0 if offered else 1, "%s: --check exits %d" % (name, 0 if offered else 1))
    if offered:
        t.eq(check.get("level"), offered[0], "%s: --check uses the best level it offers, %s"
             % (name, offered[0]))
    t.diag("%s: levels %s; refused: %s" % (name, offered, refused))
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
        t.eq(sum(d for _, d in s), 0, "%s: the model equals /proc at every quiet point" % what)
    if "tp_btf" in offered:
        crc, cout = res.get("control", (None, ""))
        t.ok(sum(d for _, d in differences(cout)) > 0 and crc == 1,
             "%s: a model without reparents is caught" % name, (crc, cout[-300:]), "exit 1")
    else:
        t.skip("%s: a model without reparents is caught" % name, "no level loads here")
t.done()
