#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Execs whose arguments, working directory and executable are known: run as
the command of `pgrptrace --json`. Each child changes directory, execs, and
the truth goes to $PGT_FACTS as {"what": "exec", "pid", "case", "args" (hex),
"cwd", "exe"}: what /proc/PID/cmdline, cwd and exe say while the child is
stopped in its new image, and what the test asked for. Usage:
exec_cases.py SCRATCH_DIR."""
import ctypes
import json
import os
import signal
import sys

ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)     # orphans come back to us
facts = open(os.environ.get("PGT_FACTS", os.devnull), "a")
scratch = sys.argv[1]
STOPPED = "/bin/sh"        # a symlink (to dash here): exe names the file


def run(case, argv, cwd, exe="/bin/sh", prep=None):
    """Exec @exe with @argv (bytes) in @cwd, stopped by its own SIGSTOP so
    that /proc can be read; then let it end. @prep, in the child after the
    chdir, may return another path to exec."""
    pid = os.fork()
    if pid == 0:
        try:
            os.chdir(cwd)
            os.execve((prep() if prep else None) or exe, argv, os.environ)
        except OSError as e:    # said, beside the stall fact below (no buffer flushed twice)
            os.write(facts.fileno(), (json.dumps({"what": "exec_error", "case": case,
                                                  "error": repr(e)}) + "\n").encode())
        finally:
            os._exit(127)
    # The shell stops itself: "kill -STOP $$" is its script (argv[2]).
    _, st = os.waitpid(pid, os.WUNTRACED)
    if not os.WIFSTOPPED(st):
        facts.write(json.dumps({"what": "stall", "case": case, "status": st}) + "\n")
        facts.flush()
        return
    with open("/proc/%d/cmdline" % pid, "rb") as f:
        cmdline = f.read()
    fact = {"what": "exec", "case": case, "pid": pid,
            "asked": [a.hex() for a in argv],
            "cmdline": cmdline.hex(),
            "cwd": os.fsencode(os.readlink("/proc/%d/cwd" % pid)).hex(),
            "exe": os.fsencode(os.readlink("/proc/%d/exe" % pid)).hex()}
    facts.write(json.dumps(fact) + "\n")
    facts.flush()
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)


STOP = b"kill -STOP $$"
# Hostile bytes: a newline, an escape sequence, quotes, invalid UTF-8, and an
# empty argument; run from the scratch directory.
run("hostile", [b"sh", b"-c", STOP, b"a\nb", b"\x1b[31mred\x1b[0m", b"'\"", b"\xff\xfe", b""],
    scratch)
# A vector longer than 4096 bytes: cut, its last argument partly.
run("long", [b"sh", b"-c", STOP] + [b"%03d" % i + b"x" * 60 for i in range(100)], scratch)
# More than 128 arguments, short ones.
run("many", [b"sh", b"-c", STOP] + [b"%d" % i for i in range(200)], scratch)
# Working directories on other mounts: the walk crosses them.
run("proc", [b"sh", b"-c", STOP], "/proc/sys/kernel")
run("sys", [b"sh", b"-c", STOP], "/sys/kernel")
run("root", [b"sh", b"-c", STOP], "/")
# Deeper than the walk goes (40 steps): cut, the leaf part kept.
deep = scratch
for i in range(60):
    deep = os.path.join(deep, "d%02d" % i)
os.makedirs(deep)
run("deep", [b"sh", b"-c", STOP], deep)
# A name with a newline and invalid UTF-8 in the working directory.
odd = os.path.join(os.fsencode(scratch), b"new\nline\xff")
os.mkdir(odd)
run("oddcwd", [b"sh", b"-c", STOP], odd)
# A script: the executable is its interpreter, as /proc/PID/exe says.
script = os.path.join(scratch, "script")
with open(script, "w") as f:
    f.write("#!/bin/sh\nkill -STOP $$\n")
os.chmod(script, 0o755)
run("script", [b"script", b"one"], scratch, exe=script)

# Exact paths in the odd cases (issue 30). A copy of the shell's binary.
SHELL = os.path.realpath("/bin/sh")


def copy_into(fd):
    with open(SHELL, "rb") as f:
        os.write(fd, f.read())


# Run through /proc/self/fd/N, the fileless exec's usual path: Debian 11's
# 5.10 refuses fexecve() (execveat() with AT_EMPTY_PATH) with ENOENT in the
# guests, whatever the file, and the file run is the same either way.
def memfd():
    """A fileless exec: the shell copied into memfd_create("pgt-x"), run through
    a read-only descriptor (a writable one would be ETXTBSY)."""
    rw = os.memfd_create("pgt-x", 0)
    copy_into(rw)
    ro = os.open("/proc/self/fd/%d" % rw, os.O_RDONLY)
    os.close(rw)
    return "/proc/self/fd/%d" % ro


def unlinked():
    """An executable unlinked before the exec, run through a descriptor."""
    path = os.path.join(scratch, "gone-exe")
    rw = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o755)
    copy_into(rw)
    os.close(rw)
    ro = os.open(path, os.O_RDONLY)
    os.unlink(path)
    return "/proc/self/fd/%d" % ro


def rmcwd():
    """The working directory removed before the exec."""
    os.rmdir(os.getcwd())


run("memfd", [b"sh", b"-c", STOP], scratch, prep=memfd)
run("unlinked", [b"sh", b"-c", STOP], scratch, prep=unlinked)
gone = os.path.join(scratch, "gone-dir")
os.mkdir(gone)
run("rmcwd", [b"sh", b"-c", STOP], gone, prep=rmcwd)


def steps(path):
    """The steps of the kernel side's walk from @path up to /: a name each,
    and a step for each mount crossed (every mount on an ancestor)."""
    names = [c for c in path.split("/") if c]
    points = []
    with open("/proc/self/mountinfo") as f:
        for line in f:
            points.append(line.split()[4].encode().decode("unicode_escape"))
    ups = ["/" + "/".join(names[:i]) for i in range(1, len(names) + 1)]
    return len(names) + sum(points.count(u) for u in ups)


# A walk of exactly 40 steps (the walk's depth): whole; 41: cut.
for n in (40, 41):
    path = os.path.realpath(scratch)
    i = 0
    while steps(path) < n:
        path = os.path.join(path, "e%d" % i)
        i += 1
    os.makedirs(path, exist_ok=True)
    facts.write(json.dumps({"what": "steps", "case": "depth%d" % n, "steps": steps(path)}) + "\n")
    run("depth%d" % n, [b"sh", b"-c", STOP], path)
