#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""`make bench`: pgrptrace against the bare machine, forkstat, bpftrace and
auditd, on the workloads of bench/pgtbench.c.

Each round runs every workload bare, then under one observer, for each
observer in turn (A/B/A/B), so that drift of the machine cancels out; ratios
are observed/bare of the adjacent pair, reported as median (min-max) over the
rounds. All of it twice: on an idle machine, and with a nice-19 busy loop on
every CPU. Also measured: the observer's CPU (% of one core while the
workload runs), what it saw of what the workload generated, its peak RSS, and
the time from its start to the first event it delivers.

Runs as root, bounded in time; every process it starts is its own, and comes
back to it (a subreaper)."""
import argparse
import ctypes
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

MODES = ["fork", "spawn", "setsid", "setpgid", "signal", "signal_ign", "pty", "mixed"]
GROUP = 4
TICK = os.sysconf("SC_CLK_TCK")
HERE = os.path.dirname(os.path.abspath(__file__))


def log(msg):
    sys.stderr.write("  BENCH    %s\n" % msg)
    sys.stderr.flush()


def cpu_ticks(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])
    except (OSError, IndexError, ValueError):
        return 0


def peak_rss_kib(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def reap():
    try:
        while os.waitpid(-1, os.WNOHANG)[0] > 0:
            pass
    except ChildProcessError:
        pass


class Observer:
    """One observer: how to start it, when it is ready, how to count what it
    saw of a workload run, how to stop it."""
    name = ""
    sees_signals = True

    def __init__(self, cfg, tmp):
        self.cfg = cfg
        self.tmp = tmp
        self.out = os.path.join(tmp, self.name + ".out")
        self.proc = None

    def available(self):
        return True

    def argv(self):
        raise NotImplementedError

    def stdout_path(self):
        return self.out

    def start(self):
        open(self.out, "w").close()
        self.outf = open(self.stdout_path(), "w")
        self.errf = open(self.out + ".err", "w")
        self.t0 = time.monotonic()
        self.proc = subprocess.Popen(self.argv(), stdout=self.outf, stderr=self.errf,
                                     stdin=subprocess.DEVNULL, start_new_session=True)

    def ready(self, timeout=20.0):
        """Fork children until one shows in the output: the observer sees."""
        end = time.monotonic() + timeout
        while time.monotonic() < end and self.proc.poll() is None:
            pid = os.fork()
            if not pid:
                os._exit(0)
            os.waitpid(pid, 0)
            if self.saw_pid(pid):
                return time.monotonic() - self.t0
            time.sleep(0.001)
        return None

    def saw_pid(self, pid):
        with open(self.out, errors="replace") as f:
            return re.search(r"\b%d\b" % pid, f.read()) is not None

    def pid(self):
        return self.proc.pid

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self.outf.close()
        self.errf.close()

    def counts(self, run):
        """(forks seen, deliveries seen) of one workload run, or None."""
        return None


class Pgrptrace(Observer):
    name = "pgrptrace-json"

    def argv(self):
        return [self.cfg.pgrptrace, "--json", "-o", self.out]

    def counts(self, run):
        forks = deliveries = 0
        lost = 0
        with open(self.out, errors="replace") as f:
            for line in f:
                if '"pid":%d,' % run["pid"] not in line and '"signal"' not in line:
                    continue
                try:
                    e = json.loads(line)
                except ValueError:
                    continue
                if e.get("event") == "fork" and e["process"]["pid"] == run["pid"]:
                    forks += 1
                elif e.get("event") == "signal" and self.counted_signal(e, run):
                    deliveries += len(e["recipients"])
                elif e.get("event") == "lost":
                    lost += e.get("count", 0)
        return forks, deliveries

    @staticmethod
    def counted_signal(e, run):
        if run["mode"] == "pty":
            return e["signal"] == "SIGINT" and e["cause"] == "tty"
        return e["process"]["pid"] == run["pid"] and e["signal"] == "SIGUSR1"


class PgrptraceBase(Pgrptrace):
    """The same as pgrptrace-json, with another build (--pgrptrace-base):
    a change's cost, before and after, interleaved in one run."""
    name = "pgrptrace-base"

    def available(self):
        return bool(self.cfg.pgrptrace_base)

    def argv(self):
        return [self.cfg.pgrptrace_base, "--json", "-o", self.out]


class PgrptraceText(Observer):
    """Text to /dev/null: nothing to count; ready once attached."""
    name = "pgrptrace-text"

    def argv(self):
        return [self.cfg.pgrptrace, "-v"]

    def stdout_path(self):
        return os.devnull

    def ready(self, timeout=20.0):
        end = time.monotonic() + timeout
        while time.monotonic() < end and self.proc.poll() is None:
            with open(self.out + ".err") as f:
                if "attached" in f.read():
                    time.sleep(0.3)     # and the snapshot
                    return None
            time.sleep(0.005)
        return None


class Forkstat(Observer):
    name = "forkstat"
    sees_signals = False

    def available(self):
        return shutil.which("forkstat") is not None

    def argv(self):
        return ["forkstat", "-e", "fork,exec,exit,sid"]

    def counts(self, run):
        n = 0
        pat = re.compile(r"\sfork\s+%d parent" % run["pid"])
        with open(self.out, errors="replace") as f:
            for line in f:
                if pat.search(line):
                    n += 1
        return n, None


class Bpftrace(Observer):
    name = "bpftrace"

    def available(self):
        return shutil.which("bpftrace") is not None

    def argv(self):
        return ["bpftrace", os.path.join(HERE, "observer.bt")]

    def counts(self, run):
        forks = deliveries = 0
        fork = "fork %d " % run["pid"]
        sig = "signal %d 10 " % run["pid"]
        with open(self.out, errors="replace") as f:
            for line in f:
                if line.startswith(fork):
                    forks += 1
                elif run["mode"] == "pty" and line.startswith("signal ") and \
                        line.split()[2] == "2":
                    deliveries += 1
                elif line.startswith(sig):
                    deliveries += 1
        return forks, deliveries


class Auditd(Observer):
    """auditd with a rule on the same syscalls, logging to a private file."""
    name = "auditd"
    RULE = ["-a", "always,exit", "-F", "arch=b64", "-S",
            "clone,fork,vfork,clone3,execve,setsid,setpgid,kill,exit_group", "-k", "pgtbench"]

    def available(self):
        if not shutil.which("auditd") or not shutil.which("auditctl"):
            return False
        if subprocess.run(["auditctl", "-s"], capture_output=True).returncode:
            return False
        return "pid 0" in subprocess.run(["auditctl", "-s"], capture_output=True,
                                         text=True).stdout    # no other auditd

    def argv(self):
        conf = os.path.join(self.tmp, "auditd")
        os.makedirs(conf, exist_ok=True)
        with open("/etc/audit/auditd.conf") as f:
            text = re.sub(r"(?m)^log_file\s*=.*$", "log_file = " + self.out + ".log", f.read())
        # One log, never rotated under the count.
        text = re.sub(r"(?m)^max_log_file_action\s*=.*$", "max_log_file_action = IGNORE", text)
        with open(os.path.join(conf, "auditd.conf"), "w") as f:
            f.write(text)
        os.chmod(os.path.join(conf, "auditd.conf"), 0o640)
        self.enabled = re.search(r"enabled (\d)", subprocess.run(
            ["auditctl", "-s"], capture_output=True, text=True).stdout).group(1)
        return ["auditd", "-n", "-c", conf]

    def start(self):
        Observer.start(self)
        end = time.monotonic() + 10
        while time.monotonic() < end and "pid %d" % self.proc.pid not in subprocess.run(
                ["auditctl", "-s"], capture_output=True, text=True).stdout:
            time.sleep(0.01)
        # Debian's audit.rules sets an 8192-record backlog; the kernel's is 64.
        st = subprocess.run(["auditctl", "-s"], capture_output=True, text=True).stdout
        self.backlog = re.search(r"backlog_limit (\d+)", st).group(1)
        subprocess.run(["auditctl", "-b", "8192"], capture_output=True)
        subprocess.run(["auditctl"] + self.RULE, capture_output=True)
        self.out_log = self.out + ".log"

    def saw_pid(self, pid):
        try:
            with open(self.out_log, errors="replace") as f:
                return (" ppid=%d " % os.getpid()) in f.read()
        except OSError:
            return False

    def stop(self):
        subprocess.run(["auditctl", "-D"], capture_output=True)
        Observer.stop(self)
        subprocess.run(["auditctl", "-e", self.enabled, "-b", self.backlog], capture_output=True)

    def counts(self, run):
        forks = kills = 0
        pid = " pid=%d " % run["pid"]
        try:
            f = open(self.out_log, errors="replace")
        except OSError:
            return 0, 0
        with f:
            for line in f:
                if line.startswith("type=SYSCALL") and pid in line:
                    m = re.search(r" syscall=(\d+) ", line)
                    if m and m.group(1) in ("56", "57", "58", "435"):
                        forks += 1
                    elif m and m.group(1) == "62":
                        kills += 1
        return forks, (None if run["mode"] == "pty" else kills * GROUP)


OBSERVERS = {c.name: c for c in (Pgrptrace, PgrptraceBase, PgrptraceText, Forkstat, Bpftrace,
                                  Auditd)}


def workload(cfg, mode, cpu=None):
    pin = (lambda: os.sched_setaffinity(0, {cpu})) if cpu is not None else None
    p = subprocess.run([cfg.pgtbench, mode, str(cfg.secs)], capture_output=True, text=True,
                       timeout=cfg.secs + 60, preexec_fn=pin)
    reap()
    if p.returncode:
        raise RuntimeError("pgtbench %s: %s" % (mode, p.stderr.strip()))
    return json.loads(p.stdout)


def suite(cfg, obs, modes):
    """Every mode once; with an observer, its CPU per mode and what it saw."""
    runs = []
    if obs:
        obs.start()
        obs.first = obs.ready()
        if obs.proc.poll() is not None:
            obs.stop()
            raise RuntimeError("%s exited: %s" % (obs.name, open(obs.out + ".err").read()[-500:]))
    for mode in modes:
        c0 = cpu_ticks(obs.pid()) if obs else 0
        t0 = time.monotonic()
        run = workload(cfg, mode)
        if obs:
            time.sleep(0.05)       # what is in flight reaches the output
            run["cpu"] = (cpu_ticks(obs.pid()) - c0) / TICK / (time.monotonic() - t0)
        runs.append(run)
    if obs:
        rss = peak_rss_kib(obs.pid())
        obs.stop()
        for run in runs:
            run["rss_kib"] = rss
            run["seen"] = obs.counts(run)
    return runs


def proc_status(pid, keys=("VmRSS", "VmHWM")):
    out = {}
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            k = line.split(":")[0]
            if k in keys:
                out[k] = int(line.split()[1])
    return out


def start_pgrptrace(cfg, args):
    p = subprocess.Popen([cfg.pgrptrace, "-v"] + args, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True, start_new_session=True)
    for line in p.stderr:
        if "snapshot in" in line:
            return p, int(re.search(r"snapshot in (\d+) ms", line).group(1))
    raise RuntimeError("pgrptrace did not start")


def stop(p):
    p.send_signal(signal.SIGINT)
    p.wait(30)


def memory(cfg, n):
    """RSS with @n live processes: met in the snapshot, or born under the tracer."""
    rows = []
    for how, rb in (("snapshot", "4M"), ("events", "4M"), ("events", "1M")):
        args = ["--json", "-o", os.devnull, "--ringbuf-size", rb]
        snap_ms = None
        if how == "events":
            tr, _ = start_pgrptrace(cfg, args)
        hold = subprocess.Popen([cfg.pgtbench, "hold", "120", str(n)], stdout=subprocess.PIPE,
                                text=True, start_new_session=True)
        try:
            if not hold.stdout.readline():
                raise RuntimeError("pgtbench hold %d failed" % n)
            if how == "snapshot":
                tr, snap_ms = start_pgrptrace(cfg, args)
            time.sleep(1.5)
            st = proc_status(tr.pid)
            rows.append((how, rb, st["VmRSS"], st["VmHWM"], snap_ms))
        finally:
            stop(tr)
            os.killpg(hold.pid, signal.SIGKILL)
            try:                      # every held child comes back to us: reap them all
                while True:
                    os.wait()
            except ChildProcessError:
                pass
    return rows


def tree_view(cfg, n, secs=6.0):
    """The full-screen tree (--tree in a 200x50 tmux pane, redrawn at most
    every 200 ms) against the stream (--json to /dev/null), in the same run,
    with @n sleeping processes held: pgrptrace's CPU (% of one core) while
    nothing happens, and while the mixed workload churns for @secs."""
    sock = "pgt-bench-%d" % os.getpid()
    conf = tempfile.NamedTemporaryFile("w", suffix=".conf", delete=False)
    conf.write("set -g status off\n")
    conf.close()
    tmux = ["tmux", "-u", "-L", sock, "-f", conf.name]
    hold = subprocess.Popen([cfg.pgtbench, "hold", "600", str(n)], stdout=subprocess.PIPE,
                            text=True, start_new_session=True)
    rows = []
    try:
        if not hold.stdout.readline():
            raise RuntimeError("pgtbench hold %d failed" % n)
        for label in ("stream", "tree"):
            if label == "stream":
                tr, _ = start_pgrptrace(cfg, ["--json", "-o", os.devnull])
                pid = tr.pid
            else:
                subprocess.run(tmux + ["new-session", "-d", "-x", "200", "-y", "50", "env",
                                       "TERM=tmux-256color", "LANG=C.UTF-8", cfg.pgrptrace,
                                       "--tree"], check=True)
                pid = int(subprocess.run(tmux + ["display", "-p", "#{pane_pid}"],
                                         capture_output=True, text=True).stdout)
                deadline = time.monotonic() + 60
                while "q quit" not in subprocess.run(tmux + ["capture-pane", "-p"],
                                                     capture_output=True, text=True).stdout:
                    if time.monotonic() > deadline:
                        raise RuntimeError("the tree view did not come up")
                    time.sleep(0.1)
            try:
                time.sleep(1)
                t0, c0 = time.monotonic(), cpu_ticks(pid)
                time.sleep(3)
                idle = (cpu_ticks(pid) - c0) / TICK / (time.monotonic() - t0) * 100
                t0, c0, ops = time.monotonic(), cpu_ticks(pid), 0
                while time.monotonic() - t0 < secs:
                    ops += workload(cfg, "mixed")["ops"]
                churn = (cpu_ticks(pid) - c0) / TICK / (time.monotonic() - t0) * 100
                rss = proc_status(pid)["VmHWM"]
                rows.append((label, idle, churn, ops / (time.monotonic() - t0), rss))
            finally:
                if label == "stream":
                    stop(tr)
                else:
                    subprocess.run(tmux + ["kill-server"])
    finally:
        os.killpg(hold.pid, signal.SIGKILL)
        try:
            while True:
                os.wait()
        except ChildProcessError:
            pass
        os.unlink(conf.name)
    return rows


def tree_table(cfg, n):
    rows = tree_view(cfg, n)
    base = {r[0]: r for r in rows}["stream"]
    lines = ["### The full-screen tree with %d live processes" % n, "",
             "`pgrptrace --tree` in a 200x50 tmux pane (kernel threads hidden, daemons "
             "folded, at most one redraw per 200 ms) against `--json -o /dev/null`, "
             "measured in the same run: pgrptrace's CPU in % of one core, idle and "
             "while the `mixed` workload churns.", "",
             "| output | CPU idle | CPU under churn | ratio to the stream | workload ops/s | "
             "VmHWM (MiB) |", "|---|---|---|---|---|---|"]
    for label, idle, churn, rate, rss in rows:
        lines.append("| %s | %.1f%% | %.1f%% | %.2f | %s | %.1f |" % (
            "stream (--json)" if label == "stream" else "tree (full screen)", idle, churn,
            churn / base[2] if base[2] else 0, "{:,.0f}".format(rate), rss / 1024))
    return "\n".join(lines) + "\n"


PINNED_MODES = ["fork", "spawn", "setsid", "setpgid", "mixed"]


def pinned(cfg):
    """The fork family with the workload pinned to one vCPU, bare and under
    pgrptrace (JSON to /dev/null), interleaved round by round. Unpinned, a
    fork's child and parent bounce between the vCPUs and the bare rate
    itself swings by tens of percent; pinned, it stays within a few. The
    tracer is not pinned: this is what the traced tasks pay (programs,
    tracepoints, wakeups), not the consumer's CPU, which is reported apart."""
    cpu = max(os.sched_getaffinity(0))
    modes = [m for m in PINNED_MODES if m in cfg.modes]
    bare = {m: [] for m in modes}
    ratios = {m: [] for m in modes}
    for rnd in range(cfg.pinned_pairs):
        b = {m: workload(cfg, m, cpu)["ops_per_sec"] for m in modes}
        tr, _ = start_pgrptrace(cfg, ["--json", "-o", os.devnull])
        try:
            o = {m: workload(cfg, m, cpu)["ops_per_sec"] for m in modes}
        finally:
            stop(tr)
        for m in modes:
            bare[m].append(b[m])
            ratios[m].append(o[m] / b[m])
    log("pinned: %d rounds done" % cfg.pinned_pairs)
    return modes, bare, ratios


def prog_stats(pid):
    """run_time_ns and run_cnt of every BPF program @pid holds, by program id."""
    out = {}
    for fd in os.listdir("/proc/%d/fdinfo" % pid):
        try:
            with open("/proc/%d/fdinfo/%s" % (pid, fd)) as f:
                info = f.read()
        except OSError:
            continue
        pid_m = re.search(r"^prog_id:\s+(\d+)", info, re.M)
        rt = re.search(r"^run_time_ns:\s+(\d+)", info, re.M)
        rc = re.search(r"^run_cnt:\s+(\d+)", info, re.M)
        if pid_m and rt and rc:
            out[int(pid_m.group(1))] = (int(rt.group(1)), int(rc.group(1)))
    return out


def enable_bpf_stats():
    """bpf(BPF_ENABLE_STATS): run-time stats while the returned fd is open,
    so that a killed bench cannot leave them on for every BPF user."""
    nr = {"x86_64": 321, "aarch64": 280}.get(os.uname().machine)
    if nr is None:
        raise OSError("bpf(2) number unknown on %s" % os.uname().machine)
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    attr = ctypes.create_string_buffer(8)    # enable_stats.type = BPF_STATS_RUN_TIME (0)
    fd = libc.syscall(ctypes.c_long(nr), ctypes.c_long(32), attr, ctypes.c_uint(8))
    if fd < 0:
        raise OSError(ctypes.get_errno(), "BPF_ENABLE_STATS")
    return fd


def kernel_cost(cfg):
    """pgrptrace's BPF time per workload operation (BPF_ENABLE_STATS): what
    the traced tasks pay in the programs themselves, measured exactly, where
    the throughput ratios are noisy on this VM."""
    rows = []
    stats_fd = enable_bpf_stats()
    try:
        tr, _ = start_pgrptrace(cfg, ["--json", "-o", os.devnull])
        names = {p["id"]: p.get("name", "?") for p in json.loads(subprocess.run(
            ["bpftool", "-j", "prog", "show"], capture_output=True, text=True).stdout or "[]")}
        try:
            for mode in cfg.modes:
                before = prog_stats(tr.pid)
                run = workload(cfg, mode)
                after = prog_stats(tr.pid)
                per = []
                for pid_, (t1, c1) in after.items():
                    t0, c0 = before.get(pid_, (0, 0))
                    if c1 > c0:
                        per.append((names.get(pid_, str(pid_)), (t1 - t0) / run["ops"],
                                    (c1 - c0) / run["ops"], (t1 - t0) / (c1 - c0)))
                per.sort(key=lambda x: -x[1])
                rows.append((mode, sum(x[1] for x in per), per))
        finally:
            stop(tr)
    finally:
        os.close(stats_fd)
    return rows


def replay(cfg, tmp):
    """Userspace alone: a recorded stream through decode, model and output."""
    rec = os.path.join(tmp, "stream.rec")
    tr = subprocess.Popen([cfg.pgrptrace, "--json", "-o", os.devnull, "--signals=all",
                           "--record", rec, "-v"], stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True, start_new_session=True)
    for line in tr.stderr:
        if "snapshot in" in line:
            break
    for mode in ("mixed", "fork", "setsid", "signal_ign"):
        workload(cfg, mode)
    stop(tr)
    rows = []
    for fmt in (["--json"], []):
        best = None
        for _ in range(3):
            t0 = time.monotonic()
            p = subprocess.run([cfg.pgrptrace, "--replay", rec, "-v", "-o", os.devnull] + fmt,
                               capture_output=True, text=True, timeout=300)
            dt = time.monotonic() - t0
            n = int(re.search(r"replayed (\d+) records", p.stderr).group(1))
            best = max(best or 0, n / dt)
        rows.append(("json" if fmt else "text", n, best))
    return rows, rec


def grow(src, dst, size):
    """A recording of @size bytes or more from @src's records, repeated, each
    round later by the span of the one before (times and sequence numbers
    shifted), written as a version 2 file: no checkpoints, as before them."""
    import struct
    import zlib
    data = open(src, "rb").read()
    hdr = bytearray(data[:184])
    struct.pack_into("<I", hdr, 8, 2)            # version 2
    struct.pack_into("<I", hdr, 64, 0)           # the header's CRC, over itself with 0
    struct.pack_into("<I", hdr, 64, zlib.crc32(bytes(hdr)))
    recs, off = [], 184
    while True:
        n, _ = struct.unpack_from("<II", data, off)
        if n == 0xffffffff:
            break
        r = data[off + 8:off + 8 + n]
        off += 8 + n
        if struct.unpack_from("<H", r, 16)[0] != 0x7fff:     # not a checkpoint's part
            recs.append(r)
    ts = [struct.unpack_from("<Q", r, 0)[0] for r in recs]
    span = max(ts) - min(ts) + 10**9
    seqs = max(struct.unpack_from("<Q", r, 8)[0] for r in recs) + 1
    count, written, k = 0, len(hdr), 0
    with open(dst, "wb") as f:
        f.write(hdr)
        while written < size:
            for r in recs:
                b = bytearray(r)
                t, q = struct.unpack_from("<QQ", b, 0)
                struct.pack_into("<QQ", b, 0, t + k * span, q + k * seqs)
                f.write(struct.pack("<II", len(b), zlib.crc32(b)))
                f.write(b)
                written += 8 + len(b)
            count += len(recs)
            k += 1
        f.write(struct.pack("<II", 0xffffffff, zlib.crc32(struct.pack("<Q", count))))
        f.write(struct.pack("<Q", count))
    return count, k * span / 1e9


def seek(cfg, tmp, rec, size=1 << 30, runs=3):
    """--at on a 1 GiB recording: the same file written again with
    checkpoints (--replay --record), then --at a moment near its end through
    them and from the first record, interleaved."""
    big, ck = os.path.join(tmp, "big.rec"), os.path.join(tmp, "big-ck.rec")
    count, secs = grow(rec, big, size)
    t0 = time.monotonic()
    subprocess.run([cfg.pgrptrace, "--replay", big, "--record", ck, "-o", os.devnull],
                   check=True, timeout=900)
    rewrite = time.monotonic() - t0
    os.unlink(big)
    when = "+%.3fs" % (secs * 0.9)
    times = {"checkpoints": [], "start": []}
    for _ in range(runs):
        for how in times:
            env = dict(os.environ)
            if how == "start":
                env["PGRPTRACE_TEST_FROM_START"] = "1"
            t0 = time.monotonic()
            p = subprocess.run([cfg.pgrptrace, "--replay", ck, "--at", when, "--json", "-v"],
                               capture_output=True, text=True, timeout=900, env=env)
            times[how].append(time.monotonic() - t0)
            if p.returncode or ("starting from checkpoint" in p.stderr) != (how != "start"):
                raise RuntimeError("--at %s (%s): %s" % (when, how, p.stderr[-300:]))
    size = os.path.getsize(ck)
    os.unlink(ck)
    return size, count, rewrite, times


def seek_table(cfg, tmp, rec):
    size, count, rewrite, times = seek(cfg, tmp, rec)
    med = {k: statistics.median(v) for k, v in times.items()}
    return "\n".join([
        "### `--replay FILE --at TIME` on a recording of %.2f GiB (%s records)" % (
            size / (1 << 30), "{:,}".format(count)), "",
        "The replay's stream above, repeated to 1 GiB, then written again with checkpoints "
        "(`--replay --record`, %.0f s, default `--checkpoint-every 64M`); `--at` a moment "
        "90%% into it, %d interleaved runs, median (min-max) seconds." % (rewrite, len(times["start"])),
        "", "| start | seconds | ratio to from the first record |", "|---|---|---|",
        "| the last checkpoint before TIME | %s | %.3f |" % (
            fmt_range(times["checkpoints"], "%.2f"), med["checkpoints"] / med["start"]),
        "| the first record (no checkpoints) | %s | 1 |" % fmt_range(times["start"], "%.2f"),
        ""])


def startstop(cfg, tmp, runs=7):
    """pgtbench startstop: pgrptrace -- true against bare true and strace -f -- true
    (wall, interleaved), started cold (the last run's links released) and again
    at once; the time from its start to the first event an outside probe sees;
    and from the command's exit to pgrptrace's; --pgrptrace-base's the same,
    round by round."""
    cmd = [cfg.pgtbench, "startstop", cfg.pgrptrace, str(runs), os.path.join(tmp, "ss.jsonl")]
    if cfg.pgrptrace_base:
        cmd.append(cfg.pgrptrace_base)
    out = subprocess.run(cmd, check=True, timeout=1200, capture_output=True, text=True).stdout
    return json.loads(out.splitlines()[-1])


STARTSTOP_ROWS = [
    ("`pgrptrace -- true`", ""),
    ("the same, started again at once (the last run's links still being released)", "_again"),
    ("start to the first event an outside probe sees", "_first_event"),
    ("the command's exit to pgrptrace's", "_stop"),
]


def startstop_lines(r, title, base_name="base"):
    """The table of one startstop result: medians (min-max), against bare
    `true`, and the base build's beside them when it ran."""
    med = {k: statistics.median(v) for k, v in r.items() if isinstance(v, list) and v}
    has_base = "base" in r
    head = "| figure | seconds | against bare `true` |"
    rule = "|---|---|---|"
    if has_base:
        head += " %s | ratio |" % base_name
        rule += "---|---|"
    lines = [title, "", "%d interleaved runs, median (min-max) seconds." % r["runs"], "",
             head, rule, "| bare `true` | %s | 1 |%s" % (fmt_range(r["true"], "%.3f"),
                                                        " | |" if has_base else "")]
    if "strace" in r:
        lines.append("| `strace -f -o /dev/null -- true` | %s | +%.3f s |%s" % (
            fmt_range(r["strace"], "%.3f"), med["strace"] - med["true"],
            " | |" if has_base else ""))
    for label, suffix in STARTSTOP_ROWS:
        key = "pgrptrace" + suffix
        over = ("+%.3f s" % (med[key] - med["true"])) if suffix in ("", "_again") else ""
        row = "| %s | %s | %s |" % (label, fmt_range(r[key], "%.3f"), over)
        if has_base:
            row += " %s | %.2f |" % (fmt_range(r["base" + suffix], "%.3f"),
                                     med[key] / med["base" + suffix])
        lines.append(row)
    return lines


def startstop_table(cfg, tmp):
    r = startstop(cfg, tmp)
    return "\n".join(startstop_lines(r, "### Start and stop: `pgrptrace --json -o FILE -- true`",
                                     "base build")) + "\n"


def html_table(cfg, tmp, procs=5000, runs=3):
    """--html for a recording of @procs processes: the page's size, the time
    to write it, and headless chromium's time to draw it against a blank page."""
    rec, page = os.path.join(tmp, "page.rec"), os.path.join(tmp, "page.html")
    blank = os.path.join(tmp, "blank.html")
    with open(blank, "w") as f:
        f.write("<!DOCTYPE html><title>blank</title><body data-ready=1></body>")
    script = ("for i in $(seq %d); do /bin/true arg$i; done; "
              "for i in $(seq 50); do setsid sleep 0.01 & (sleep 0.01 &); done; wait" % procs)
    subprocess.run([cfg.pgrptrace, "--record", rec, "-o", os.devnull, "--", "bash", "-c", script],
                   check=True, timeout=600)
    writes, loads, draws, blanks = [], [], [], []
    exe = shutil.which("chromium")
    for _ in range(runs):
        t0 = time.monotonic()
        subprocess.run([cfg.pgrptrace, "--replay", rec, "--html", page], check=True, timeout=300)
        writes.append(time.monotonic() - t0)
        if not exe:
            continue
        for path, into in ((blank, blanks), (page, loads)):
            t0 = time.monotonic()
            p = subprocess.run([exe, "--headless", "--no-sandbox", "--disable-gpu",
                                "--user-data-dir=" + os.path.join(tmp, "chromium"),
                                "--dump-dom", "file://" + path],
                               capture_output=True, text=True, timeout=300)
            into.append(time.monotonic() - t0)
            if path == page:
                m = re.search(r'data-draw-ms="(\d+)"', p.stdout)
                draws.append(int(m.group(1)) / 1000 if m else float("nan"))
        if _ < runs - 1:
            os.unlink(page)
    size = os.path.getsize(page)
    lines = ["### `--html` for a recording of %d processes" % procs, "",
             "`pgrptrace --record -- bash -c '...'` (%d short commands, 50 setsid and 50 double "
             "forks), then `--replay --html`; headless chromium (`--dump-dom`) against a blank "
             "page, %d interleaved runs, median (min-max) seconds." % (procs, runs), "",
             "| figure | value |", "|---|---|",
             "| page size | %.2f MB |" % (size / 1e6),
             "| `--replay --html` | %s s |" % fmt_range(writes, "%.2f")]
    if exe:
        lines += ["| chromium: blank page | %s s |" % fmt_range(blanks, "%.2f"),
                  "| chromium: the page | %s s (%.1f x the blank page) |" % (
                      fmt_range(loads, "%.2f"),
                      statistics.median(loads) / statistics.median(blanks)),
                  "| the page's script, parse to drawn (its own clock) | %s s |" %
                  fmt_range(draws, "%.2f")]
    else:
        lines.append("| chromium | not installed: not measured |")
    os.unlink(page)
    os.unlink(rec)
    return "\n".join(lines) + "\n"


def busy_loops():
    code = "import os\nos.nice(19)\nwhile True: pass\n"
    return [subprocess.Popen([sys.executable, "-c", code]) for _ in range(os.cpu_count())]


def fmt_range(vals, spec="%.2f"):
    if not vals:
        return "-"
    if len(vals) == 1:
        return spec % vals[0]
    return (spec + " (" + spec + "-" + spec + ")") % (statistics.median(vals), min(vals), max(vals))


def measure(cfg, observers, condition, tmp):
    results = {o: {m: [] for m in cfg.modes} for o in observers}
    bare = {m: [] for m in cfg.modes}
    extra = {o: {"cpu": {m: [] for m in cfg.modes}, "seen": {m: [] for m in cfg.modes},
                 "rss": [], "first": []} for o in observers}
    for rnd in range(cfg.pairs):
        for name in observers:
            b = suite(cfg, None, cfg.modes)
            obs = OBSERVERS[name](cfg, tmp)
            o = suite(cfg, obs, cfg.modes)
            for rb, ro in zip(b, o):
                m = rb["mode"]
                bare[m].append(rb["ops_per_sec"])
                results[name][m].append(ro["ops_per_sec"] / rb["ops_per_sec"])
                extra[name]["cpu"][m].append(ro["cpu"] * 100)
                gen = (ro["forks"], ro["deliveries"])
                extra[name]["seen"][m].append((ro["seen"], gen))
            extra[name]["rss"].append(o[0]["rss_kib"])
            if obs.first is not None:
                extra[name]["first"].append(obs.first * 1000)
        log("%s: round %d/%d done" % (condition, rnd + 1, cfg.pairs))
    return bare, results, extra


def seen_text(samples, mode):
    """events seen / generated over all rounds: forks, or signal deliveries."""
    got = want = 0
    for seen, (forks, deliveries) in samples:
        if seen is None:
            return "-"
        sf, sd = seen
        if mode in ("signal", "signal_ign", "pty"):
            if sd is None:
                return "blind"
            got, want = got + sd, want + deliveries
        else:
            got, want = got + sf, want + forks
    return "%.3f" % (got / want) if want else "-"


def table(cfg, condition, bare, results, extra, observers):
    lines = ["### %s" % condition, "",
             "Bare rate, operations/s (median of %d): " % (cfg.pairs * len(observers)) +
             ", ".join("%s %s" % (m, "{:,.0f}".format(statistics.median(bare[m])))
                       for m in cfg.modes), "",
             "Throughput ratio to bare, median (min-max) of %d interleaved pairs:" % cfg.pairs, "",
             "| observer | " + " | ".join(cfg.modes) + " |",
             "|---|" + "---|" * len(cfg.modes)]
    for o in observers:
        lines.append("| %s | " % o + " | ".join(fmt_range(results[o][m]) for m in cfg.modes) +
                     " |")
    lines += ["", "Observer CPU, % of one core while the workload runs (median):", "",
              "| observer | " + " | ".join(cfg.modes) + " |",
              "|---|" + "---|" * len(cfg.modes)]
    for o in observers:
        lines.append("| %s | " % o + " | ".join(
            "%.0f" % statistics.median(extra[o]["cpu"][m]) for m in cfg.modes) + " |")
    lines += ["", "Events seen / generated (forks; signal deliveries for signal, signal_ign, "
              "pty), all rounds:", "",
              "| observer | " + " | ".join(cfg.modes) + " |",
              "|---|" + "---|" * len(cfg.modes)]
    for o in observers:
        lines.append("| %s | " % o + " | ".join(seen_text(extra[o]["seen"][m], m)
                                                for m in cfg.modes) + " |")
    lines += ["", "| observer | peak RSS (MiB, max) | first event (ms, median (min-max)) |",
              "|---|---|---|"]
    for o in observers:
        lines.append("| %s | %.1f | %s |" % (o, max(extra[o]["rss"]) / 1024,
                                             fmt_range(extra[o]["first"], "%.0f")))
    return "\n".join(lines) + "\n"


BEGIN, END = "<!-- bench:begin (written by make bench) -->", "<!-- bench:end -->"


def write_into(path, text):
    """Replace the part of @path between the bench markers, or write it."""
    old = open(path).read() if os.path.exists(path) else ""
    if BEGIN in old and END in old:
        new = old[:old.index(BEGIN) + len(BEGIN)] + "\n" + text + "\n" + old[old.index(END):]
    else:
        new = BEGIN + "\n" + text + "\n" + END + "\n"
    with open(path, "w") as f:
        f.write(new)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pgrptrace", required=True)
    ap.add_argument("--pgtbench", required=True)
    ap.add_argument("--pgrptrace-base", default=None,
                    help="another build, measured beside this one (pgrptrace-base)")
    ap.add_argument("--pairs", type=int, default=5)
    ap.add_argument("--secs", type=float, default=0.25, help="seconds per workload run")
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--observers", default=",".join(OBSERVERS))
    ap.add_argument("--conditions", default="idle,busy")
    ap.add_argument("--out", help="write the tables to this file too")
    ap.add_argument("--busy-secs", type=float, default=0.3,
                    help="seconds per workload run on the busy machine")
    ap.add_argument("--procs", type=int, default=30000, help="live processes for the memory figure")
    ap.add_argument("--pinned-pairs", type=int, default=5,
                    help="rounds of the pinned fork-family comparison (0: none)")
    ap.add_argument("--skip-extra", action="store_true", help="no memory or replay figures")
    ap.add_argument("--tree-procs", type=int, default=10000,
                    help="live processes for the full-screen tree's figure")
    ap.add_argument("--startstop-only", action="store_true",
                    help="only the start and stop figures, printed (not written to --out)")
    ap.add_argument("--seek-only", action="store_true",
                    help="only the --at and --html figures, printed (not written to --out)")
    ap.add_argument("--tree-only", action="store_true",
                    help="only the full-screen tree's figure, printed (not written to --out)")
    cfg = ap.parse_args()
    cfg.modes = cfg.modes.split(",")
    if os.geteuid():
        sys.exit("bench: run as root (the observers load BPF programs or audit rules)")
    ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)      # PR_SET_CHILD_SUBREAPER
    if cfg.tree_only:
        print(tree_table(cfg, cfg.tree_procs))
        return
    if cfg.startstop_only:
        tmp = tempfile.mkdtemp(prefix="pgt-bench-")
        try:
            print(startstop_table(cfg, tmp))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        return
    if cfg.seek_only:
        tmp = tempfile.mkdtemp(prefix="pgt-bench-")
        try:
            _, rec = replay(cfg, tmp)
            print(seek_table(cfg, tmp, rec))
            print(html_table(cfg, tmp))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        return
    if not os.path.exists("/sys/kernel/tracing/events"):
        subprocess.run(["mount", "-t", "tracefs", "nodev", "/sys/kernel/tracing"])
    tmp = tempfile.mkdtemp(prefix="pgt-bench-")
    observers = []
    for name in cfg.observers.split(","):
        o = OBSERVERS[name](cfg, tmp)
        if o.available():
            observers.append(name)
        else:
            log("%s: not available here, left out" % name)
    started = time.monotonic()
    out = ["Machine: %s, %d CPUs, kernel %s. Each workload run: %.2f s idle, %.2f s busy." %
           (subprocess.run(["uname", "-m"], capture_output=True, text=True).stdout.strip(),
            os.cpu_count(), os.uname().release, cfg.secs, cfg.busy_secs), ""]
    for cond in cfg.conditions.split(","):
        loops = busy_loops() if cond == "busy" else []
        secs = cfg.secs
        if cond == "busy":
            cfg.secs = cfg.busy_secs
        try:
            bare, res, extra = measure(cfg, observers, cond, tmp)
        finally:
            for p in loops:
                p.kill()
                p.wait()
            cfg.secs = secs
        if cond == "idle":
            cfg.bare_idle = {m: statistics.median(bare[m]) for m in cfg.modes}
        label = {"idle": "Idle machine",
                 "busy": "Busy machine (a nice-19 busy loop on every CPU)"}.get(cond, cond)
        out.append(table(cfg, label, bare, res, extra, observers))
    if cfg.out:
        write_into(cfg.out, "\n".join(out))
    if not cfg.skip_extra and cfg.pinned_pairs:
        modes, pbare, pratio = pinned(cfg)
        lines = ["### Pinned: the fork family with the workload on one vCPU", "",
                 "Bare and under pgrptrace (`--json -o /dev/null`, not pinned), %d "
                 "interleaved rounds; median (min-max)." % cfg.pinned_pairs, "",
                 "| workload | bare, operations/s | ratio to bare |", "|---|---|---|"]
        for m in modes:
            lines.append("| %s | %s | %s |" % (m, fmt_range(pbare[m], "%.0f"),
                                               fmt_range(pratio[m])))
        out.append("\n".join(lines) + "\n")
    if not cfg.skip_extra:
        lines = ["### In the kernel: pgrptrace's BPF programs per operation (bpf_stats)", "",
                 "What the traced tasks pay in pgrptrace's programs, from run_time_ns with "
                 "BPF stats enabled (which adds its own clock reads), against the "
                 "idle bare operation; the ratio is the throughput left if nothing else "
                 "were added. Not included: the syscall tracepoints' slow path, which "
                 "every syscall takes while any is attached, and wakeups.", "",
                 "| workload | BPF ns per operation | of a bare operation | ratio | "
                 "programs (ns per run x runs per operation) |", "|---|---|---|---|---|"]
        for mode, ns, per in kernel_cost(cfg):
            op_ns = 1e9 / cfg.bare_idle[mode] if getattr(cfg, "bare_idle", None) else None
            lines.append("| %s | %s | %s | %s | %s |" % (
                mode, "{:,.0f}".format(ns),
                "%.1f%%" % (100 * ns / op_ns) if op_ns else "-",
                "%.3f" % (op_ns / (op_ns + ns)) if op_ns else "-",
                ", ".join("%s %.0f x %.2g" % (n, r, c) for n, _, c, r in per[:5])))
        out.append("\n".join(lines) + "\n")
        lines = ["### Memory: pgrptrace's RSS with %d live processes" % cfg.procs, "",
                 "| processes met | ring buffer | VmRSS (MiB) | VmHWM (MiB) | snapshot (ms) |",
                 "|---|---|---|---|---|"]
        procs = min(cfg.procs, int(open("/proc/sys/kernel/pid_max").read()) - 2000)
        lines[0] = "### Memory: pgrptrace's RSS with %d live processes" % procs
        for how, rb, rss, hwm, snap in memory(cfg, procs):
            lines.append("| %s | %s | %.1f | %.1f | %s |" % (
                "in the snapshot" if how == "snapshot" else "born while tracing", rb,
                rss / 1024, hwm / 1024, snap if snap is not None else "-"))
        out.append("\n".join(lines) + "\n")
        out.append(tree_table(cfg, cfg.tree_procs))
        lines = ["### Userspace alone: a recorded stream replayed (`--replay`, best of 3)", "",
                 "| output | records | records/s |", "|---|---|---|"]
        rows, rec = replay(cfg, tmp)
        for fmt, n, rate in rows:
            lines.append("| %s | %d | %s |" % (fmt, n, "{:,.0f}".format(rate)))
        out.append("\n".join(lines) + "\n")
        out.append(seek_table(cfg, tmp, rec))
        os.unlink(rec)
        out.append(html_table(cfg, tmp))
        out.append(startstop_table(cfg, tmp))
    out.append("Total bench time: %.0f s." % (time.monotonic() - started))
    text = "\n".join(out)
    print(text)
    if cfg.out:
        write_into(cfg.out, text)
    if not os.environ.get("PGT_BENCH_KEEP"):
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
