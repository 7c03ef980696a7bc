#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Deaths of every kind, each made for real (issue 33): run as the command
of `pgrptrace --json`. Each case writes to $PGT_FACTS what it did:
{"what": "death", "case", "pid" (the process that dies), "sender" (the
process that signals it, where one does)}, or {"what": "death_skip",
"case", "why"} where this machine cannot make it. Core dumps are off
(RLIMIT_CORE 0): a core handler would only slow the cases down."""
import ctypes
import json
import os
import pty
import resource
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

libc = ctypes.CDLL(None, use_errno=True)
libc.prctl(36, 1, 0, 0, 0)     # orphans come back to us
resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
facts = open(os.environ.get("PGT_FACTS", os.devnull), "a")
SCALE = int(os.environ.get("PGT_TIME_SCALE", "1"))
PY = sys.executable


def fact(case, **kw):
    kw.update(what="death", case=case)
    facts.write(json.dumps(kw) + "\n")
    facts.flush()


def skip(case, why):
    facts.write(json.dumps({"what": "death_skip", "case": case, "why": why}) + "\n")
    facts.flush()


def reap(pid, timeout=30.0):
    """Wait for @pid, bounded: its status, or None (said as a skip) at the bound."""
    end = time.monotonic() + timeout * SCALE
    while time.monotonic() < end:
        try:
            got, status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            return None
        if got:
            return status
        time.sleep(0.01)            # polling a state, bounded
    skip("reap", "pid %d did not end in %d s" % (pid, timeout * SCALE))
    return None


def wait_comm(pid, comm, timeout=10.0):
    """Until @pid runs @comm (its exec is done), bounded."""
    end = time.monotonic() + timeout * SCALE
    while time.monotonic() < end:
        try:
            with open("/proc/%d/comm" % pid) as f:
                if f.read().strip() == comm:
                    return True
        except OSError:
            return False
        time.sleep(0.005)           # polling a state, bounded
    return False


# kill(1) sends SIGTERM.
victim = subprocess.Popen(["sleep", "60"])
wait_comm(victim.pid, "sleep")
k = subprocess.Popen(["kill", "-TERM", str(victim.pid)])
k.wait(30)
victim.wait(30)
fact("kill", pid=victim.pid, sender=k.pid)

# The same from a kill(1) whose name and path are not UTF-8: the sender's
# comm and executable keep their bytes (_hex twins).
scratch = tempfile.mkdtemp(prefix="pgt-death-")
hostile = os.path.join(os.fsencode(scratch), b"k\xff\xfe")
shutil.copy(shutil.which("kill"), hostile)
victim = subprocess.Popen(["sleep", "60"])
wait_comm(victim.pid, "sleep")
k = subprocess.Popen([hostile, b"-TERM", b"%d" % victim.pid])
k.wait(30)
victim.wait(30)
fact("hostile_kill", pid=victim.pid, sender=k.pid, exe_hex=hostile.hex())
shutil.rmtree(scratch)

# timeout(1) ends its command: the sleep is timeout's child. Its timer is
# fired by hand (SIGALRM, what the timer sends it) once the child runs
# sleep: a timer that fired before the child's exec would run timeout's own
# handler in the child, which exits by itself (a 0.2 s timer did so on a
# loaded machine).
tmo = subprocess.Popen(["timeout", "60", "sleep", "60"])
end = time.monotonic() + 10 * SCALE
child = None
while child is None and time.monotonic() < end:
    try:
        with open("/proc/%d/task/%d/children" % (tmo.pid, tmo.pid)) as f:
            child = int(f.read().split()[0])
    except (OSError, IndexError, ValueError):
        time.sleep(0.005)           # polling a state, bounded
if child and wait_comm(child, "sleep"):
    os.kill(tmo.pid, signal.SIGALRM)
    tmo.wait(30)
    fact("timeout", sender=tmo.pid, pid=child)
else:
    tmo.kill()
    tmo.wait(30)
    skip("timeout", "timeout's child did not run sleep in %d s" % (10 * SCALE))

# A shell's kill -9 of its own job, then wait.
sh = subprocess.Popen(["bash", "-c", "sleep 60 & echo $!; kill -9 $!; wait"],
                      stdout=subprocess.PIPE, text=True)
job = int(sh.stdout.readline())
sh.wait(30)
fact("job_kill", pid=job, sender=sh.pid)

# The same, but the shell exits at once: the job, SIGKILLed and dying, is
# reparented to us. A dying process escapes nothing.
sh = subprocess.Popen(["bash", "-c", "sleep 60 & echo $!; kill -9 $!"],
                      stdout=subprocess.PIPE, text=True)
job = int(sh.stdout.readline())
sh.wait(30)
reap(job)                       # adopted by us, if it was not gone before
fact("job_kill_exit", pid=job, sender=sh.pid)

# abort(3): raise(SIGABRT), the process its own sender.
p = subprocess.Popen([PY, "-c", "import os; os.abort()"])
p.wait(30)
fact("abort", pid=p.pid, sender=p.pid)

# A write to a pipe nobody reads: yes(1) | head -1.
p = subprocess.Popen(["yes"], stdout=subprocess.PIPE)
p.stdout.readline()
p.stdout.close()
p.wait(30)
fact("broken_pipe", pid=p.pid)

# A NULL dereference.
p = subprocess.Popen([PY, "-c", "import ctypes; ctypes.string_at(0)"])
p.wait(30)
fact("segv", pid=p.pid)

# A seccomp filter that kills the process at its next syscall.
SECCOMP = """
import ctypes, struct
libc = ctypes.CDLL(None)
ins = struct.pack("HBBI", 0x06, 0, 0, 0x80000000)    # BPF_RET|BPF_K, SECCOMP_RET_KILL_PROCESS
buf = ctypes.create_string_buffer(ins)
class Prog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]
prog = Prog(1, ctypes.addressof(buf))
libc.prctl(38, 1, 0, 0, 0)                            # PR_SET_NO_NEW_PRIVS
libc.prctl(22, 2, ctypes.byref(prog), 0, 0)           # PR_SET_SECCOMP, SECCOMP_MODE_FILTER
libc.getpid()
"""
p = subprocess.Popen([PY, "-c", SECCOMP])
p.wait(30)
fact("seccomp", pid=p.pid)

# RLIMIT_CPU's soft limit: SIGXCPU after a second of CPU.
p = subprocess.Popen(["sh", "-c", "while :; do :; done"],
                     preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_CPU, (1, 30)))
p.wait(60 * SCALE)
fact("rlimit", pid=p.pid)

# PR_SET_PDEATHSIG: the child asks for SIGTERM when its parent dies.
r, w = os.pipe()
parent = os.fork()
if parent == 0:
    os.close(r)
    child = os.fork()
    if child == 0:
        libc.prctl(1, signal.SIGTERM, 0, 0, 0)        # PR_SET_PDEATHSIG
        os.write(w, b"%d\n" % os.getpid())
        os.execvp("sleep", ["sleep", "60"])
    os.close(w)
    wait_comm(child, "sleep")
    os._exit(0)                 # the child gets SIGTERM from this exit
os.close(w)
child = int(os.read(r, 64))
os.close(r)
reap(parent)
reap(child)                     # adopted by us
fact("pdeath", pid=child, sender=parent)


# A memory cgroup's OOM: a limit of 64 MiB, and a process that wants more.
def memory_cgroup():
    """A new memory cgroup: (path, depth, unified), or (None, why)."""
    name = "pgt-oom-%d" % os.getpid()
    with open("/proc/self/mounts") as f:
        mounts = [line.split() for line in f]
    for m in mounts:
        if m[2] == "cgroup" and "memory" in m[3].split(","):
            path = os.path.join(m[1], name)
            os.mkdir(path)
            with open(os.path.join(path, "memory.limit_in_bytes"), "w") as f:
                f.write("64M")
            try:
                with open(os.path.join(path, "memory.memsw.limit_in_bytes"), "w") as f:
                    f.write("64M")
            except OSError:
                pass
            return path, 1, False
    for m in mounts:
        if m[2] != "cgroup2":
            continue
        try:
            with open(os.path.join(m[1], "cgroup.controllers")) as f:
                if "memory" not in f.read().split():
                    return None, "cgroup2 at %s has no memory controller" % m[1]
            with open(os.path.join(m[1], "cgroup.subtree_control"), "w") as f:
                f.write("+memory")
        except OSError as e:
            return None, "cannot enable the memory controller at %s: %s" % (m[1], e)
        path = os.path.join(m[1], name)
        os.mkdir(path)
        with open(os.path.join(path, "memory.max"), "w") as f:
            f.write("64M")
        with open(os.path.join(path, "memory.swap.max"), "w") as f:
            f.write("0")
        return path, 1, True
    return None, "no memory controller mounted"


try:
    cg = memory_cgroup()
except OSError as e:
    cg = (None, "cannot make a memory cgroup: %s" % e)
if cg[0]:
    path, depth, unified = cg
    p = subprocess.Popen([PY, "-c", "a = [bytearray(1 << 20) for i in range(1024)]"],
                         preexec_fn=lambda: open(os.path.join(path, "cgroup.procs"), "w")
                         .write("0"))
    p.wait(120 * SCALE)
    fact("oom", pid=p.pid, status=p.returncode, cgroup="/" + os.path.basename(path),
         level=depth, unified=unified)
    os.rmdir(path)
else:
    skip("oom", cg[1])


# cgroup.kill (5.14 and later): a write kills the cgroup's processes.
def kill_cgroup():
    with open("/proc/self/mounts") as f:
        mnt = [line.split()[1] for line in f if line.split()[2] == "cgroup2"]
    if not mnt:
        return None, "no cgroup2 mounted"
    with open("/proc/self/cgroup") as f:
        own = [line.split(":", 2)[2].strip() for line in f if line.startswith("0::")]
    home = os.path.join(mnt[0], own[0].lstrip("/")) if own else mnt[0]
    # A name that is not UTF-8: the cause's cgroup keeps its bytes (cgroup_hex).
    path = os.path.join(os.fsencode(home), b"pgt-kill-%d-\xff" % os.getpid())
    try:
        os.mkdir(path)
    except OSError as e:
        return None, "cannot make a cgroup in %s: %s" % (home, e)
    if not os.path.exists(os.path.join(path, b"cgroup.kill")):
        os.rmdir(path)
        return None, "no cgroup.kill: kernel %s is older than 5.14" % os.uname().release
    return path, None


path, why = kill_cgroup()
if path:
    p = subprocess.Popen(["sleep", "60"],
                         preexec_fn=lambda: open(os.path.join(path, b"cgroup.procs"), "w")
                         .write("0"))
    wait_comm(p.pid, "sleep")
    with open(os.path.join(path, b"cgroup.kill"), "w") as f:
        f.write("1")
    p.wait(30)
    with open("/proc/self/mounts") as f:
        mnt = [line.split()[1] for line in f if line.split()[2] == "cgroup2"][0]
    fact("cgroup_kill", pid=p.pid, sender=os.getpid(), cgroup_hex=path[len(mnt):].hex())
    os.rmdir(path)
else:
    skip("cgroup_kill", why)

# An orphaned process group with a stopped member (workload's scenario).
wl = os.environ.get("WORKLOAD")
if wl:
    subprocess.run([wl, "orphan"], timeout=60 * SCALE)

# A real shell on a pty: ^C, ^\ and the terminal going away under a job.
bash, fd = pty.fork()
if bash == 0:
    os.environ["PS1"] = "PGT$ "
    os.execvp("bash", ["bash", "--norc", "--noprofile", "-i"])


def read_until(marker, timeout=10.0):
    buf = b""
    end = time.monotonic() + timeout * SCALE
    while time.monotonic() < end and marker not in buf:
        ready, _, _ = select.select([fd], [], [], 0.05)
        if ready:
            try:
                buf += os.read(fd, 4096)
            except OSError:
                break
    return buf


def foreground_job(seconds):
    """Start `sleep SECONDS` in the foreground; its pid once it holds the terminal."""
    os.write(fd, b"sleep %d\n" % seconds)
    end = time.monotonic() + 10 * SCALE
    while time.monotonic() < end:
        for d in os.listdir("/proc"):
            if not d.isdigit():
                continue
            try:
                with open("/proc/%s/stat" % d) as f:
                    st = f.read()
                with open("/proc/%s/cmdline" % d, "rb") as f:
                    cmd = f.read()
            except OSError:
                continue
            rest = st.rsplit(")", 1)[1].split()
            if int(rest[1]) == bash and cmd == b"sleep\0%d\0" % seconds and rest[2] == rest[5]:
                return int(d)
        time.sleep(0.01)            # polling a state, bounded
    return None


read_until(b"PGT$ ")
os.write(fd, b"ulimit -c 0\n")
read_until(b"PGT$ ")
for case, seconds, key in (("ctrl_c", 61, b"\x03"), ("ctrl_backslash", 62, b"\x1c")):
    job = foreground_job(seconds)
    if not job:
        skip(case, "the job never took the terminal")
        continue
    os.write(fd, key)
    read_until(b"PGT$ ")
    fact(case, pid=job, bash=bash)
job = foreground_job(63)
if job:
    os.close(fd)                # the terminal goes away
    reap(bash)
    reap(job)                   # adopted by us
    fact("hangup", pid=job, bash=bash)
else:
    skip("hangup", "the job never took the terminal")
    os.close(fd)
    os.kill(bash, signal.SIGKILL)
    reap(bash)
