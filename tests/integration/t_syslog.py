#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""--syslog (issue 18, item 2) against Debian's real rsyslogd, started by the
test with a config of its own (docs/service.md has the same): imuxsock on a
private socket, imtcp and imudp on a free port of 127.0.0.1, omfile in
RSYSLOG_SyslogProtocol23Format, and mmpstrucdata, rsyslog's own parser of
RFC 5424 structured data, whose result a second file keeps as JSON.

- Local socket, TCP and UDP: every record arrives once, MSGID its kind, PRI
  by kind, every field in the structured data as rsyslog parses it, hostile
  names' exact bytes included.
- rsyslogd killed mid-stream and started again: the records of the outage
  come after the reconnect; with a queue too small for them, what did not fit
  is counted in a `lost` message and on stderr. Delivered + lost = produced.
- A fleet in miniature: two tracers in UTS namespaces of their own, each with
  its host name, forward over TCP to one rsyslogd; every record is attributed
  to its host, whole.
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile

import sd5424
from harness import (PGRPTRACE, WORKLOAD, Proc, Tap, Tracer, check_nothing_left, run,
                     run_tracer, wait_until, workload)

t = Tap()
RSYSLOGD = shutil.which("rsyslogd") or "/usr/sbin/rsyslogd"
PEN = "32473"
NAMES = [b"new\nline", b"\x1b[2J\x1b[H", b"q\"uo'te", b"back\\slash", b"\xff\xfe\x80bad",
         "caf\u00e9".encode(), b"0123456789abcde", b"brack]et"]
SEV = {"escape": 4, "lost": 3, "correction": 5, "survivor": 5, "logout": 5}
FACILITY = {"daemon": 3, "local3": 19}

tmp = tempfile.mkdtemp(prefix="pgt-syslog-")
sock_path = os.path.join(tmp, "log.sock")
center = os.path.join(tmp, "center.log")     # RSYSLOG_SyslogProtocol23Format
parsed = os.path.join(tmp, "parsed.log")     # host, procid, msgid, pri and the SD as JSON


def free_port():
    """A port free for both TCP and UDP on 127.0.0.1."""
    for _ in range(50):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        s.close()
        u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            u.bind(("127.0.0.1", port))
            return port
        except OSError:
            continue
        finally:
            u.close()
    raise RuntimeError("no free port")


PORT = free_port()
CONF = """\
global(workDirectory="{tmp}" maxMessageSize="256k")
module(load="imuxsock" SysSock.Use="off")
input(type="imuxsock" Socket="{sock}" UseSpecialParser="off" ParseHostname="on"
      UseSysTimeStamp="off" RateLimit.Interval="0")
module(load="imtcp")
input(type="imtcp" address="127.0.0.1" port="{port}")
module(load="imudp")
input(type="imudp" address="127.0.0.1" port="{port}" RateLimit.Interval="0")
module(load="mmpstrucdata")
template(name="parsed" type="string"
         string="%hostname%\\t%procid%\\t%msgid%\\t%pri%\\t%$!%\\n")
action(type="omfile" file="{center}" template="RSYSLOG_SyslogProtocol23Format")
action(type="mmpstrucdata" sd_name.lowercase="off")
action(type="omfile" file="{parsed}" template="parsed")
""".format(tmp=tmp, sock=sock_path, port=PORT, center=center, parsed=parsed)
conf = os.path.join(tmp, "rsyslog.conf")
with open(conf, "w") as f:
    f.write(CONF)


def listening(port):
    """Both of rsyslogd's inputs bound: /proc/net/tcp LISTEN, /proc/net/udp."""
    hexport = ":%04X" % port
    found = set()
    for proto, state in (("tcp", "0A"), ("udp", "07")):
        with open("/proc/net/" + proto) as f:
            for line in f.readlines()[1:]:
                fields = line.split()
                if fields[1].endswith(hexport) and fields[3] == state:
                    found.add(proto)
    return found == {"tcp", "udp"}


def start_rsyslogd():
    if os.path.exists(sock_path):
        os.unlink(sock_path)
    p = Proc([RSYSLOGD, "-n", "-f", conf, "-i", os.path.join(tmp, "rsyslogd.pid")],
             what="rsyslogd")
    ok = wait_until(lambda: (os.path.exists(sock_path) and listening(PORT)) or
                    p.p.poll() is not None, "rsyslogd listening", 60)
    ok = ok and p.p.poll() is None
    if not ok:
        t.diag("rsyslogd: %r" % bytes(p._err[-500:]))
    return p if ok else None


def stop_rsyslogd(p, sig=signal.SIGTERM):
    if p and p.p.poll() is None:
        p.p.send_signal(sig)
    if p:
        p.finish(30)


def messages(procid=None, host=None):
    """What rsyslog parsed: dicts of host, procid, msgid, pri and sd."""
    out = []
    if not os.path.exists(parsed):
        return out
    with open(parsed, encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            parts = line.rstrip("\n").split("\t", 4)
            if len(parts) != 5:
                out.append({"broken": line})
                continue
            try:
                sd = json.loads(parts[4]).get("rfc5424-sd", {})
            except ValueError:
                out.append({"broken": line})
                continue
            m = {"host": parts[0], "procid": parts[1], "msgid": parts[2],
                 "pri": int(parts[3]), "sd": sd}
            if (procid is None or m["procid"] == str(procid)) and \
               (host is None or m["host"] == host):
                out.append(m)
    return out


def center_sd(procid=None, host=None):
    """The collector's file, RSYSLOG_SyslogProtocol23Format: each message's
    SD as received, by a strict parser of our own; or the error."""
    out = []
    if not os.path.exists(center):
        return out
    with open(center, encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            f7 = line.rstrip("\n").split(" ", 6)
            if len(f7) < 7 or (procid is not None and f7[4] != str(procid)) or \
               (host is not None and f7[2] != host):
                continue
            try:
                out.append(sd5424.strict_sd(f7[6])[0])
            except (ValueError, IndexError) as e:
                out.append({"error": str(e), "line": line[:300]})
    return out


def seq_of(m):
    s = m.get("sd", {}).get("pgrptrace@" + PEN, {}).get("seq")
    return int(s) if s is not None else None


def records(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(l) for l in f]


def is_ctl(c):
    return ord(c) < 32 or ord(c) == 127


def expect_sd(rec):
    """The structured data pgrptrace gives a record (docs/service.md): one
    element for the record's own scalars, one per object, names by path
    joined with '.', a control character as U+FFFD with the exact bytes in
    NAME_hex (JSON's _hex twins say the same of bytes that are not UTF-8)."""
    els = {"pgrptrace@" + PEN: {}}

    def put(path, v, twin):
        obj = len(path) >= 2 and not path[1].isdigit()
        el = (path[0] if obj else "pgrptrace") + "@" + PEN
        name = ".".join(path[1:] if obj else path)
        if isinstance(v, bool):
            text = "true" if v else "false"
        elif isinstance(v, str):
            text = v
        else:
            text = str(v)
        els.setdefault(el, {})[name] = "".join("\ufffd" if is_ctl(c) else c for c in text)
        if isinstance(v, str) and not twin and any(is_ctl(c) for c in v):
            els[el][name + "_hex"] = v.encode().hex()

    def walk(v, path, twin=False):
        if isinstance(v, dict):
            for k, m in v.items():
                tw = k + "_hex" in v
                if isinstance(m, list):
                    for i, e in enumerate(m):
                        walk(e, path + [k, str(i)], tw)
                else:
                    walk(m, path + [k], tw and isinstance(m, str))
        elif isinstance(v, list):
            for i, e in enumerate(v):
                walk(e, path + [str(i)])
        elif v is not None:
            put(path, v, twin)
    walk(rec, [])
    return els


def exact(el, name):
    """A value's exact bytes: NAME_hex where there is one."""
    if name + "_hex" in el:
        return bytes.fromhex(el[name + "_hex"])
    return el[name].encode("utf-8", "surrogateescape")


def check_delivery(label, recs, msgs, facility=3, procid=None, host=None):
    by_seq = {}
    for m in msgs:
        by_seq.setdefault(seq_of(m), []).append(m)
    t.eq(sorted(k for k in by_seq if k is not None), [r["seq"] for r in recs],
         "%s: every record arrives, and nothing else" % label)
    t.eq([s for s, ms in by_seq.items() if len(ms) != 1], [], "%s: no record twice" % label)
    bad = [(r["seq"], r["event"]) for r in recs
           if by_seq.get(r["seq"], [{}])[0].get("msgid") != r["event"]]
    t.eq(bad[:5], [], "%s: MSGID is the record's kind" % label)
    bad = [(r["seq"], r["event"]) for r in recs
           if by_seq.get(r["seq"], [{}])[0].get("pri") != facility * 8 + SEV.get(r["event"], 6)]
    t.eq(bad[:5], [], "%s: PRI is the facility and the kind's severity" % label)
    bad = []
    for r in recs:
        got = by_seq.get(r["seq"], [{}])[0].get("sd")
        want = expect_sd(r)
        if got != want:
            diff = [(e, k, (got or {}).get(e, {}).get(k), v) for e in want
                    for k, v in want[e].items() if (got or {}).get(e, {}).get(k) != v]
            bad.append((r["seq"], r["event"], diff[:3] or sorted(set(got or {}) ^ set(want))))
    t.eq(bad[:3], [], "%s: every field of every record is in the structured data, as rsyslog "
         "parses it" % label)
    strict = center_sd(procid, host)
    t.eq([e for e in strict if "error" in e][:2], [],
         "%s: the structured data as sent is RFC 5424 to the letter (escapes)" % label)
    ours = sorted(json.dumps(e, sort_keys=True) for e in strict)
    theirs = sorted(json.dumps(m.get("sd"), sort_keys=True) for m in msgs)
    t.ok(ours == theirs, "%s: and says what rsyslog's parser read" % label,
         (len(ours), len(theirs), [x[:300] for x in set(ours) ^ set(theirs)][:2]))
    broken = [m for m in messages() if "broken" in m]
    t.eq(broken[:2], [], "%s: every message rsyslog wrote is one whole line" % label)


try:
    if not t.ok(os.path.exists(RSYSLOGD), "rsyslogd is installed (make deps-test)"):
        t.done()
    rs = start_rsyslogd()
    t.ok(rs, "rsyslogd starts with the test's config")

    # --- The local socket: a workload with hostile names, every field. ---
    out = os.path.join(tmp, "local.jsonl")
    r = run_tracer(["--json", "-o", out, "--syslog=unix:" + sock_path, "--signals=all",
                    "--", WORKLOAD, "hostile"])
    t.eq(r.rc, 0, "--syslog=unix:PATH: exit 0")
    recs = records(out)
    t.ok(len(recs) > 10, "the -o file has the records", len(recs))
    wait_until(lambda: {seq_of(m) for m in messages(r.pid)} >= {x["seq"] for x in recs},
               "the local socket's records at rsyslogd", 30)
    check_delivery("unix socket", recs, messages(r.pid), procid=r.pid)
    t.ok(any(x["event"] == "escape" for x in recs), "an escape was among them (setsid)")
    hostile = {f["pid"]: NAMES[f["index"]] for f in r.facts if f.get("what") == "hostile"}
    got = {}
    for m in messages(r.pid):
        p = m["sd"].get("process@" + PEN, {})
        if m["msgid"] == "setsid" and int(p.get("pid", 0)) in hostile:
            got[int(p["pid"])] = exact(p, "comm")
    t.eq(got, hostile, "hostile names: the structured data gives their exact bytes")
    raw = open(center, "rb").read() if os.path.exists(center) else b""
    t.ok(raw.count(b"\n") == len(messages()) and b"\x1b" not in raw,
         "the collector's file: one line per message, no escape sequence", raw.count(b"\n"))

    # --- TCP and UDP, the facility too. ---
    for proto, fac in (("tcp", "local3"), ("udp", "daemon")):
        out = os.path.join(tmp, proto + ".jsonl")
        r = run_tracer(["--json", "-o", out, "--syslog=%s://127.0.0.1:%d" % (proto, PORT),
                        "--syslog-facility", fac, "--", WORKLOAD, "hostile"])
        t.eq(r.rc, 0, "--syslog=%s://: exit 0" % proto)
        recs = records(out)
        wait_until(lambda: {seq_of(m) for m in messages(r.pid)} >= {x["seq"] for x in recs},
                   "the %s records at rsyslogd" % proto, 30)
        check_delivery(proto, recs, messages(r.pid), FACILITY[fac], procid=r.pid)

    # --- An outage: rsyslogd killed, records held, delivered after the restart. ---
    # The tracer runs a shell that starts bursts of processes on request, so
    # that it traces nothing else: no record is on its way when rsyslogd dies.
    BURSTS = ('while read n tag; do i=0; while [ $i -lt $n ]; do /bin/true; i=$((i+1)); '
              'done; echo "burst $tag"; done')

    def outage(label, extra, n_during):
        global rs
        out = os.path.join(tmp, label + ".jsonl")
        tr = Tracer(["--json", "-o", out, "--syslog=tcp://127.0.0.1:%d" % PORT] + extra +
                    ["--", "sh", "-c", BURSTS], stdin=subprocess.PIPE)

        def burst(n, tag):
            tr.p.stdin.write("%d %s\n" % (n, tag))
            tr.p.stdin.flush()
            return tr.seen("burst " + tag, 60)

        if not tr.ready():
            tr.stop()
            return None
        burst(5, "before")
        # Before the kill, the collector has every record so far: nothing in
        # flight. The burst's processes have exited when the shell says so,
        # but the tracer may not have written their records yet: first
        # until it has (their five exits), then until rsyslogd has them.
        wait_until(lambda: len([x for x in records(out) if x["event"] == "exit"]) >= 5,
                   "%s: the tracer wrote the burst's records" % label, 30)
        wait_until(lambda: records(out) and {seq_of(m) for m in messages(tr.pid)} >=
                   {x["seq"] for x in records(out)},
                   "%s: rsyslogd has the records before the outage" % label, 30)
        stop_rsyslogd(rs, signal.SIGKILL)
        burst(n_during, "during")
        t.ok(wait_until(lambda: b"holding up to" in tr._err, "%s: the outage noticed" % label,
                        30), "%s: pgrptrace says the collector went away" % label)
        rs = start_rsyslogd()
        burst(5, "after")
        t.ok(wait_until(lambda: b"connected again" in tr._err, "%s: reconnected" % label, 30),
             "%s: pgrptrace reconnects once rsyslogd is back" % label)
        tr.p.stdin.close()      # the shell ends, and pgrptrace with it
        rc, _, err = tr.finish(60)
        recs = records(out)

        def tally():
            msgs = messages(tr.pid)
            got = [seq_of(m) for m in msgs if m["msgid"] != "lost"]
            notices = [m["sd"]["pgrptrace@" + PEN] for m in msgs if m["msgid"] == "lost" and
                       m["sd"].get("pgrptrace@" + PEN, {}).get("sink") == "syslog"]
            return got, sum(int(n["records"]) for n in notices)
        # rsyslogd has them all (pgrptrace waited for that); writing them takes it a moment.
        wait_until(lambda: len(tally()[0]) + tally()[1] >= len(recs),
                   "%s: rsyslogd wrote what it got" % label, 30)
        got, lost = tally()
        t.eq(len(got), len(set(got)), "%s: no record twice" % label)
        t.ok(set(got) <= {x["seq"] for x in recs}, "%s: only records of the -o file" % label)
        t.eq(len(got) + lost, len(recs), "%s: delivered + lost = produced" % label)
        return rc, err, lost, recs

    res = outage("outage", [], 20)
    if res:
        rc, err, lost, recs = res
        t.eq((rc, lost), (0, 0), "outage: with room in the queue, nothing is lost (the "
             "command's exit 0)")
        t.diag("outage: %d records, none lost" % len(recs))
    res = outage("overflow", ["--syslog-queue=64K"], 100)
    if res:
        rc, err, lost, recs = res
        t.ok(lost > 0, "overflow: a 64K queue could not hold the outage; the lost message "
             "says how many", lost)
        t.ok(rc == 125 and "records lost" in err and "the queue is full" in err,
             "overflow: said on stderr, and exit 125 (pgrptrace's own failure)",
             (rc, err[-400:]))
        t.diag("overflow: %d records, %d lost" % (len(recs), lost))

    # --- A fleet in miniature: two hosts, one collector. ---
    fleet = {}
    for host in ("fleet-a", "fleet-b"):
        out = os.path.join(tmp, host + ".jsonl")
        p = Proc(["unshare", "-u", "sh", "-c", 'hostname "$0" && exec "$@"', host, PGRPTRACE,
                  "-v", "--json", "-o", out, "--syslog=tcp://127.0.0.1:%d" % PORT],
                 what="pgrptrace on " + host)
        fleet[host] = (p, out)
    def burst(n):
        run(["sh", "-c", "i=0; while [ $i -lt %d ]; do /bin/true; i=$((i+1)); done" % n],
            check=True)

    up = all(wait_until(lambda: b"loaded and attached" in p._err or p.p.poll() is not None,
                        "%s attached" % h, 60) and p.p.poll() is None
             for h, (p, _) in fleet.items())
    t.ok(up, "fleet: two tracers attached, each in its own UTS namespace")
    if up:
        burst(30)
        run(workload("hostile"), check=True)
    for h, (p, out) in fleet.items():
        if p.p.poll() is None:
            p.p.send_signal(signal.SIGTERM)
        rc, _, err = p.finish(60)
        t.eq(rc, 0, "fleet: %s exits 0" % h, )
    wait_until(lambda: all({seq_of(m) for m in messages(host=h)} >=
                           {x["seq"] for x in records(out)} for h, (_, out) in fleet.items()),
               "fleet: every host's records at the center", 30)
    for h, (p, out) in fleet.items():
        recs = records(out)
        t.ok(len(recs) > 30, "fleet: %s traced the workload" % h, len(recs))
        t.ok(all(x["host"]["name"] == h for x in recs), "fleet: %s's records name it" % h)
        check_delivery("fleet " + h, recs, messages(host=h), host=h)
    t.eq(sorted({m["host"] for m in messages() if m["host"].startswith("fleet-")}),
         ["fleet-a", "fleet-b"], "fleet: the center knows both hosts")

    # --- What is refused. ---
    r = run([PGRPTRACE, "--syslog=unix:" + os.path.join(tmp, "nobody.sock"), "-d", "5"],
            timeout=60)
    t.ok(r.returncode == 1 and "no syslog daemon listens on" in r.stderr,
         "no daemon on the socket: --syslog is refused at start", (r.returncode, r.stderr))
    for bad, why in (("tcp://127.0.0.1", "want tcp://HOST:PORT"), ("udp://h:0", "bad port"),
                     ("log.sock", "absolute path")):
        r = run([PGRPTRACE, "--syslog=" + bad, "-d", "1"], timeout=60)
        t.ok(r.returncode == 2 and why in r.stderr, "--syslog=%s: a usage error" % bad,
             (r.returncode, r.stderr[-300:]))
    r = run([PGRPTRACE, "--syslog-facility", "nonsense", "--syslog", "-d", "1"], timeout=60)
    t.ok(r.returncode == 2 and "bad --syslog-facility" in r.stderr,
         "--syslog-facility: an unknown name is a usage error", (r.returncode, r.stderr))
    r = run([PGRPTRACE, "--syslog-queue", "1M", "-d", "1"], timeout=60)
    t.ok(r.returncode == 2 and "need --syslog" in r.stderr,
         "--syslog-queue without --syslog is a usage error", (r.returncode, r.stderr))
finally:
    try:
        stop_rsyslogd(rs)
    except NameError:
        pass
    shutil.rmtree(tmp, ignore_errors=True)
check_nothing_left(t, "syslog")
t.done()
