#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""--journal (issue 18, item 1) against Debian's real systemd-journald,
started by the test in a mount namespace of its own (tmpfs on /run/systemd
and /run/log, Storage=volatile), with pgrptrace writing JSON to a file at the
same time. Every record comes back as one entry: MESSAGE its text line,
PRIORITY by kind, PGRPTRACE_JSON the record byte for byte, and each field of
the record as a PGRPTRACE_* field, hostile names included (journalctl gives
the exact bytes)."""
import json
import os
import shutil
import tempfile

from harness import PGRPTRACE, WORKLOAD, Tap, check_nothing_left, run

t = Tap()
JOURNALD = "/lib/systemd/systemd-journald"
NAMES = [b"new\nline", b"\x1b[2J\x1b[H", b"q\"uo'te", b"back\\slash", b"\xff\xfe\x80bad",
         "caf\u00e9".encode(), b"0123456789abcde", b"brack]et"]

tmp = tempfile.mkdtemp(prefix="pgt-journal-")
conf = os.path.join(tmp, "journald.conf.d")
os.mkdir(conf)
with open(os.path.join(conf, "volatile.conf"), "w") as f:
    f.write("[Journal]\nStorage=volatile\nRateLimitBurst=0\n")
facts = os.path.join(tmp, "facts")
out = os.path.join(tmp, "trace.jsonl")
export = os.path.join(tmp, "journal.json")
# In a mount namespace of its own: journald's sockets and files are the
# test's, and go with the namespace.
script = r"""
set -e
mount -t tmpfs tmpfs /run/systemd
mount -t tmpfs tmpfs /run/log
mkdir -p /etc/systemd/journald.conf.d
mount --bind {conf} /etc/systemd/journald.conf.d
{journald} >/dev/null 2>&1 &
jpid=$!
trap 'kill $jpid' EXIT
i=0
while [ ! -S /run/systemd/journal/socket ] && [ $i -lt 500 ]; do sleep 0.01; i=$((i+1)); done
[ -S /run/systemd/journal/socket ] || {{ echo "journald did not start" >&2; exit 3; }}
set +e
PGT_FACTS={facts} {pgrptrace} --journal --json -o {out} --signals=all -- {workload} hostile
echo "rc=$?"
# journald has read every datagram once the journal shows the last record.
last=$(tail -n 1 {out} | sed -n 's/^{{"schema":3,"seq":\([0-9]*\),.*/\1/p')
i=0
until journalctl -D /run/log/journal -o json PGRPTRACE_SEQ="$last" 2>/dev/null | grep -q .; do
	[ $i -lt 500 ] || break
	sleep 0.01; i=$((i+1))
done
journalctl -D /run/log/journal -o json SYSLOG_IDENTIFIER=pgrptrace > {export}
""".format(conf=conf, journald=JOURNALD, facts=facts, pgrptrace=PGRPTRACE, out=out,
           workload=WORKLOAD, export=export)
try:
    if not t.ok(os.path.exists(JOURNALD) and shutil.which("journalctl"),
                "systemd-journald and journalctl are installed (make deps-test)"):
        t.done()
    r = run(["unshare", "--mount", "--propagation", "private", "sh", "-c", script],
            timeout=120)
    t.ok("rc=0" in r.stdout, "pgrptrace --journal: exit 0", (r.returncode, r.stdout[-200:],
                                                              r.stderr[-500:]))
    recs = [json.loads(l) for l in open(out)] if os.path.exists(out) else []
    lines = open(out, "rb").read().split(b"\n")[:-1] if os.path.exists(out) else []
    entries = [json.loads(l) for l in open(export)] if os.path.exists(export) else []
    t.ok(len(recs) > 10, "the file has the records", len(recs))
    by_seq = {}
    for e in entries:
        by_seq.setdefault(int(e["PGRPTRACE_SEQ"]), []).append(e)
    t.eq(sorted(by_seq), [r["seq"] for r in recs],
         "every record is one journal entry, and nothing else is (several sinks at once)")
    t.eq([s for s, es in by_seq.items() if len(es) != 1], [], "no record twice")

    def raw(v):
        """A journalctl -o json value: a string, or the bytes as numbers."""
        return bytes(v) if isinstance(v, list) else v.encode()

    t.eq([r["seq"] for r, line in zip(recs, lines)
          if raw(by_seq.get(r["seq"], [{}])[0].get("PGRPTRACE_JSON", "")) != line], [],
         "PGRPTRACE_JSON is each record, byte for byte")

    def flat(v, name, twin=None):
        """The fields pgrptrace gives a record: its scalars by path."""
        if isinstance(v, dict):
            for k, m in v.items():
                tw = v.get(k + "_hex")
                if isinstance(m, list) and isinstance(tw, list):
                    for i, e in enumerate(m):
                        yield from flat(e, "%s_%s_%d" % (name, k.upper(), i), tw[i])
                else:
                    yield from flat(m, "%s_%s" % (name, k.upper()),
                                    tw if isinstance(m, str) else None)
        elif isinstance(v, list):
            for i, e in enumerate(v):
                yield from flat(e, "%s_%d" % (name, i))
        elif v is None:
            return
        elif isinstance(v, bool):
            yield name, b"true" if v else b"false"
        elif isinstance(v, str):
            yield name, bytes.fromhex(twin) if twin else v.encode()
        else:
            yield name, str(v).encode()

    bad = []
    for r in recs:
        e = by_seq.get(r["seq"], [{}])[0]
        want = dict(flat(r, "PGRPTRACE"))
        got = {k: raw(v) for k, v in e.items() if k.startswith("PGRPTRACE_") and
               k != "PGRPTRACE_JSON"}
        if got != want:
            bad.append((r["seq"], r["event"], sorted(set(got.items()) ^ set(want.items()))[:4]))
    t.eq(bad[:3], [], "every field of every record is a PGRPTRACE_* field, with its value")
    prio = {r["seq"]: ("4" if r["event"] == "escape" else "3" if r["event"] == "lost" else
                       "5" if r["event"] in ("correction", "survivor", "logout") else "6")
            for r in recs}
    t.eq({s: es[0].get("PRIORITY") for s, es in by_seq.items()}, prio,
         "PRIORITY: an escape at warning, the others at info")
    t.ok(any(r["event"] == "escape" for r in recs), "an escape was among them (setsid)")
    t.eq(sorted({e.get("SYSLOG_IDENTIFIER") for e in entries}), ["pgrptrace"],
         "SYSLOG_IDENTIFIER=pgrptrace")
    t.eq([s for s, es in by_seq.items()
          if not (raw(es[0].get("MESSAGE", "")).split()[1:2] ==
                  [next(r["event"] for r in recs if r["seq"] == s).encode()])], [],
         "MESSAGE is the text line: its second column is the event")
    t.eq([s for s, es in by_seq.items() if b"\n" in raw(es[0].get("MESSAGE", ""))], [],
         "MESSAGE is one line")
    # Hostile names: the exact bytes, newline and invalid UTF-8 included.
    hostile = {}
    for line in open(facts) if os.path.exists(facts) else []:
        f = json.loads(line)
        if f.get("what") == "hostile":
            hostile[f["pid"]] = NAMES[f["index"]]
    got = {}
    for e in entries:
        if e.get("PGRPTRACE_EVENT") == "setsid" and int(e["PGRPTRACE_PROCESS_PID"]) in hostile:
            got[int(e["PGRPTRACE_PROCESS_PID"])] = raw(e["PGRPTRACE_PROCESS_COMM"])
    t.eq(got, hostile, "hostile names: PGRPTRACE_PROCESS_COMM holds the exact bytes")
    # No journal: refused at start, saying why.
    r = run(["unshare", "--mount", "--propagation", "private", "sh", "-c",
             "mount -t tmpfs tmpfs /run/systemd && exec %s --journal -d 5" % PGRPTRACE],
            timeout=60)
    t.ok(r.returncode == 1 and "no journal listens on /run/systemd/journal/socket" in r.stderr,
         "no journald: --journal is refused at start", (r.returncode, r.stderr[-300:]))
finally:
    shutil.rmtree(tmp, ignore_errors=True)
check_nothing_left(t, "journal")
t.done()
