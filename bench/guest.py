#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""The cost of each hook level on one of Debian's kernels, under qemu (TCG):
pgtbench workloads bare, and under pgrptrace at each level the kernel
offers, interleaved round by round in one boot. Prints, per workload and
level, the median over the rounds of (traced rate / bare rate of the same
round). TCG slows everything, the kernel's slow paths included: read the
ratios, not the rates.

usage: bench/guest.py --pgrptrace BIN --pgtbench BIN [--suite bookworm] [--rounds 5]"""
import argparse
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "guest"))
import guest  # noqa: E402

MODES = ["syscall", "fork", "setsid", "setpgid", "signal", "mixed"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pgrptrace", required=True)
    ap.add_argument("--pgtbench", required=True)
    ap.add_argument("--suite", default="bookworm")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--levels", default="tp_btf,fentry")
    ap.add_argument("--seconds", default="1")
    ap.add_argument("--pgrptrace-base", default=None,
                    help="another build, its start and stop measured beside this one's")
    ap.add_argument("--startstop-only", action="store_true")
    a = ap.parse_args()
    levels = a.levels.split(",")
    kdir = guest.fetch(a.suite)
    cmds = []
    programs = {"pgrptrace": a.pgrptrace, "pgtbench": a.pgtbench}
    if a.pgrptrace_base:
        programs["pgrptrace-base"] = a.pgrptrace_base
    for r in range(0 if a.startstop_only else a.rounds):
        for mode in MODES:
            cmds.append(("%d-%s-bare" % (r, mode), 60, ["pgtbench", mode, a.seconds]))
            for level in levels:
                cmds.append(("%d-%s-%s" % (r, mode, level), 120,
                             ["env", "PGRPTRACE_HOOKS=" + level, "pgrptrace", "--json", "-o",
                              "/dev/null", "--", "pgtbench", mode, a.seconds]))
    # Start and stop (issue 37): pgtbench's own interleaved runs, in one command.
    cmds.append(("startstop", 1800, ["pgtbench", "startstop", "/bin/pgrptrace", str(a.rounds),
                                     "/tmp/startstop.jsonl"] +
                  (["/bin/pgrptrace-base"] if a.pgrptrace_base else [])))
    # A host thread per vCPU, as on real hardware: with one thread for both
    # (the tests' setting), the tracer's own work is taken from the workload.
    release, res, console = guest.boot(kdir, programs, cmds, timeout=3600,
                                       tcg="tcg,thread=multi")
    with open(os.environ.get("GUEST_BENCH_LOG", os.devnull), "w") as f:
        f.write(console)
    if not release:
        sys.exit("guest did not boot:\n" + console[-2000:])

    def rate(name):
        rc, out = res.get(name, (1, ""))
        for line in out.splitlines():
            if line.startswith("{"):
                d = json.loads(line)
                return d["ops_per_sec"]
        raise SystemExit("%s: no result (rc %s): %s" % (name, rc, out[-500:]))

    if a.startstop_only:
        print("%s (%s, TCG)" % (release, a.suite))
        startstop(res)
        return
    print("%s (%s, TCG): traced/bare ops per second, median (min-max) of %d rounds"
          % (release, a.suite, a.rounds))
    print("| workload | bare ops/s | " + " | ".join(levels) + " |")
    print("|---|---|" + "---|" * len(levels))
    for mode in MODES:
        bare = [rate("%d-%s-bare" % (r, mode)) for r in range(a.rounds)]
        cells = []
        for level in levels:
            q = [rate("%d-%s-%s" % (r, mode, level)) / bare[r] for r in range(a.rounds)]
            cells.append("%.2f (%.2f-%.2f)" % (statistics.median(q), min(q), max(q)))
        print("| %s | %.0f | %s |" % (mode, statistics.median(bare), " | ".join(cells)))
    startstop(res)


def startstop(res):
    """pgrptrace -- true in the guest: seconds, and as ratios to bare `true`
    (TCG makes every exec slow: the ratios carry over, the seconds do not)."""
    rc, out = res.get("startstop", (1, ""))
    r = next((json.loads(line) for line in out.splitlines() if line.startswith("{")), None)
    if rc != 0 or not r:
        raise SystemExit("startstop: no result (rc %s): %s" % (rc, out[-500:]))
    med = {k: statistics.median(v) for k, v in r.items() if isinstance(v, list) and v}
    print()
    print("start and stop, %d interleaved runs: median (min-max) seconds, and the median "
          "over bare `true`'s" % r["runs"])
    base = "base" in r
    print("| figure | seconds | x bare `true` |" + (" base build | this / base |" if base else ""))
    print("|---|---|---|" + ("---|---|" if base else ""))
    rows = [("bare `true`", "true"), ("`strace -f -o /dev/null -- true`", "strace"),
            ("`pgrptrace -- true`", "pgrptrace"),
            ("the same, started again at once", "pgrptrace_again"),
            ("start to the first event", "pgrptrace_first_event"),
            ("the command's exit to pgrptrace's", "pgrptrace_stop")]
    for label, key in rows:
        if key in r:
            v = r[key]
            row = "| %s | %.3f (%.3f-%.3f) | %.1f |" % (label, med[key], min(v), max(v),
                                                      med[key] / med["true"])
            bkey = key.replace("pgrptrace", "base", 1)
            if base and bkey != key and bkey in r:
                b = r[bkey]
                row += " %.3f (%.3f-%.3f) | %.2f |" % (med[bkey], min(b), max(b),
                                                      med[key] / med[bkey])
            print(row)


if __name__ == "__main__":
    main()
