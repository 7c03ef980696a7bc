#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""--metrics (issue 36): Debian's prometheus scrapes pgrptrace every second
on 127.0.0.1 while a workload runs, a storm on a 4 KiB ring buffer forcing
losses; then the counters Prometheus stored equal the records of the same
run's -o file, kind by kind, losses included. `promtool check metrics`
accepts a scrape. Hostile clients (garbage, a 1 MB header, a request never
finished, 200 connections at once) leave the record stream whole (no seq
missing) and on time (a marker's exit still written within the bound); a
wrong path is 404, a POST 405."""
import json
import os
import shutil
import socket
import tempfile
import time
import urllib.error
import urllib.request

from harness import (Proc, Tap, Tracer, check_nothing_left, exit_record, run, wait_until,
                     workload)

t = Tap()
tmp = tempfile.mkdtemp(prefix="pgt-metrics-")
out = os.path.join(tmp, "records.jsonl")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url, timeout=5):
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()
    except OSError as e:
        return 0, str(e)


def query(expr):
    """{label value: number} of an instant query, by its one label."""
    code, body = get("http://127.0.0.1:%d/api/v1/query?query=%s" % (prom_port, expr))
    if code != 200:
        return {}
    res = json.loads(body)["data"]["result"]
    return {next(iter(r["metric"][k] for k in r["metric"] if k not in
                      ("__name__", "instance", "job")), ""): float(r["value"][1]) for r in res}


def file_counts():
    """Records per kind, and kernel losses per type, in the -o file so far (whole lines)."""
    kinds, lost = {}, {}
    with open(out, "rb") as f:
        data = f.read()
    for ln in data[:data.rfind(b"\n") + 1].splitlines():
        e = json.loads(ln)
        kinds[e["event"]] = kinds.get(e["event"], 0) + 1
        if e["event"] == "lost" and not e["lost"].get("output"):
            for k, v in e["lost"]["by_type"].items():
                lost[k] = lost.get(k, 0) + v
    return kinds, lost


port, prom_port = free_port(), free_port()
with open(os.path.join(tmp, "prometheus.yml"), "w") as f:
    f.write("global:\n  scrape_interval: 1s\n  scrape_timeout: 900ms\n"
            "scrape_configs:\n  - job_name: pgrptrace\n    static_configs:\n"
            "      - targets: ['127.0.0.1:%d']\n" % port)
prom = Proc(["prometheus", "--config.file=" + os.path.join(tmp, "prometheus.yml"),
             "--storage.tsdb.path=" + os.path.join(tmp, "data"),
             "--web.listen-address=127.0.0.1:%d" % prom_port, "--log.level=warn"],
            what="prometheus")
tr = Tracer(["--json", "-o", out, "--metrics", "127.0.0.1:%d" % port, "--ringbuf-size", "4096",
             "--signals=all"])
tr.ready()
code, page = get("http://127.0.0.1:%d/metrics" % port)
t.ok(code == 200 and "pgrptrace_records_total{" in page, "GET /metrics: 200, the exposition",
     (code, page[:200]))
with open(os.path.join(tmp, "scrape.txt"), "w") as f:
    f.write(page)
p = run(["promtool", "check", "metrics"], stdin=open(os.path.join(tmp, "scrape.txt")))
t.ok(p.returncode == 0, "promtool check metrics accepts it", (p.stdout + p.stderr)[-500:])
t.eq([get("http://127.0.0.1:%d/nothing" % port)[0],
      urllib.request.urlopen(urllib.request.Request(
          "http://127.0.0.1:%d/metrics" % port, method="HEAD"), timeout=5).status],
     [404, 200], "another path: 404; HEAD /metrics: 200")
req = urllib.request.Request("http://127.0.0.1:%d/metrics" % port, data=b"x", method="POST")
try:
    urllib.request.urlopen(req, timeout=5)
    posted = 200
except urllib.error.HTTPError as e:
    posted = e.code
t.eq(posted, 405, "POST /metrics: 405")
wait_until(lambda: query("up").get("pgrptrace") == 1.0 or
           any(v == 1.0 for v in query("up").values()), "prometheus scrapes pgrptrace", 60)

# Hostile clients, held while a workload runs.
held = []
garbage = socket.create_connection(("127.0.0.1", port), timeout=5)
garbage.sendall(b"\x00\xffGARBAGE \r\n\r\n")
held.append(garbage)
big = socket.create_connection(("127.0.0.1", port), timeout=5)
try:
    big.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * (1 << 20) + b"\r\n\r\n")
except OSError:
    pass                            # refused before it was all sent: fine
held.append(big)
slow = socket.create_connection(("127.0.0.1", port), timeout=5)
slow.sendall(b"GET /metr")          # and never more
held.append(slow)
for _ in range(200):
    try:
        held.append(socket.create_connection(("127.0.0.1", port), timeout=5))
    except OSError:
        pass
# The workload, and a storm that overflows the 4 KiB ring buffer.
for mode in ("setsid", "setpgid", "signals", "daemonize"):
    run(workload(mode), check=True, timeout=120)
run(workload("storm"), check=True, timeout=300)


def caught_up(timeout):
    """A marker process's exit is in the file (another, if the 4 KiB ring
    buffer lost one): the tracer keeps up, clients or not."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        m = run(workload("exit", 0), check=True)
        end = min(time.monotonic() + 5, deadline)
        while time.monotonic() < end:
            if exit_record(m.pid).encode() in open(out, "rb").read():
                return True
            time.sleep(0.05)        # polling a state, bounded
    return False


t.ok(caught_up(60), "hostile clients held: a marker's exit is written on time")
big_reply = b""
try:
    big.settimeout(5)
    big_reply = big.recv(64)
except OSError:
    pass
t.ok(not big_reply.startswith(b"HTTP/1.1 200"), "a 1 MB header: refused, not served",
     big_reply[:40])
for s in held:
    s.close()
code, page = get("http://127.0.0.1:%d/metrics" % port)
t.eq(code, 200, "after them, /metrics still answers")

# Prometheus' counters equal the file's records, once both have caught up.
last = {}


def agree():
    kinds, lost = file_counts()
    got = {k: int(v) for k, v in query("pgrptrace_records_total").items() if v}
    glost = {k: int(v) for k, v in query("pgrptrace_kernel_lost_records_total").items() if v}
    last.update(file=(kinds, lost), prometheus=(got, glost))
    return kinds == got and lost == glost and kinds.get("lost")


ok = wait_until(agree, "prometheus' counters reach the file's", 60)
t.ok(ok, "Prometheus' pgrptrace_records_total equals the -o file's records per kind, and "
     "its kernel losses the lost records' counts per type", last)
if ok:
    t.diag("records per kind: %s; kernel losses: %s" % (last["file"][0], last["file"][1]))
rc, _, err = tr.stop()
seqs = [json.loads(ln)["seq"] for ln in open(out, "rb")]
t.ok(rc == 0 and seqs == list(range(len(seqs))), "the record stream is whole: seq 0, 1, 2, ...",
     (rc, err[-300:]))
prom.p.terminate()
prom.finish(30)
shutil.rmtree(tmp, ignore_errors=True)
check_nothing_left(t, "metrics")
t.done()
