#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Logins inside logins, over a real sshd with PAM on 127.0.0.1.

The sshd is private to this run: its own configuration, host key and
authorized key in a temporary directory, a free high port, in the foreground
(-D), killed at the end. It is started from an outer login: this script
re-runs itself as the leader of a session on a pty of its own, as an sshd
started from an administrator's shell would be. The login (ssh -tt: a shell
on a pty) starts `setsid -f sleep 63` (an escape) and a `nohup sleep 63 &`
that outlives it, prints the loginuid and session that pam_loginuid gave it,
and starts logins of its own, each with one `setsid -f` escape: an ssh to the
same sshd (sleep 64), a tmux pane (sleep 65), `su --pty` (sleep 66), and
`su -` (sleep 67), which is not a login (no session of its own, the same
loginuid). The sleeps are told apart by their lengths, and last until this
script kills them: however long the logins take, the job outlives its login.

Run as the command of `pgrptrace`: the logins' processes are descendants of
this script through sshd. Writes what happened to $PGT_FACTS as JSON lines;
exits 77 with a reason on stderr when sshd cannot be run here."""
import ctypes
import fcntl
import json
import os
import pty
import select
import termios
import shutil
import signal
import socket
import subprocess
import sys
import shlex
import tempfile
import time

from harness import tracer_said

ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)     # orphans come back to us
facts = open(os.environ.get("PGT_FACTS", os.devnull), "a")
SSHD = "/usr/sbin/sshd"


# Under emulation (the kernel matrix's qemu guests) every step is slower:
# PGT_TIME_SCALE stretches the sleeps that must outlive the login, the polls
# that wait for them and the bounds on the whole login alike.
SCALE = int(os.environ.get("PGT_TIME_SCALE", "1"))


def fact(**kw):
    facts.write(json.dumps(kw) + "\n")
    facts.flush()


def skip(why):
    sys.stderr.write("ssh_login: %s\n" % why)
    sys.exit(77)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, sshd, timeout=10.0):
    end = time.time() + timeout
    while time.time() < end and sshd.poll() is None:
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return True
        except OSError:
            time.sleep(0.05)
    return False


if not os.path.exists(SSHD) or not shutil.which("ssh"):
    skip("openssh-server or the ssh client is not installed")
if not os.environ.get("PGT_OUTER"):
    # The outer login: this script again, leading a session on a pty.
    master, slave = pty.openpty()
    outer = os.fork()
    if outer == 0:
        os.setsid()
        fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
        os.close(master)
        os.environ["PGT_OUTER"] = os.ttyname(slave)
        os.execv(sys.executable, [sys.executable] + sys.argv)
    os.close(slave)
    end = time.time() + 80 * SCALE
    status = None
    while time.time() < end:        # drain its terminal until it is done
        r, _, _ = select.select([master], [], [], 0.1)
        if r:
            try:
                os.read(master, 4096)
            except OSError:
                pass
        pid, st = os.waitpid(outer, os.WNOHANG)
        if pid:
            status = st
            break
    if status is None:
        os.kill(outer, signal.SIGKILL)      # its finally never ran: the harness cleans up
        sys.stderr.write("ssh_login: the outer login did not end in %d s\n" % (80 * SCALE))
        sys.exit(1)
    sys.exit(os.waitstatus_to_exitcode(status))
fact(what="outer", pid=os.getpid(), tty=os.environ["PGT_OUTER"])
os.makedirs("/run/sshd", mode=0o755, exist_ok=True)     # privilege separation
d = tempfile.mkdtemp(prefix="pgt-sshd-")
os.chmod(d, 0o700)
for name in ("host", "user"):
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f",
                    os.path.join(d, name)], check=True, timeout=30)
shutil.copy(os.path.join(d, "user.pub"), os.path.join(d, "authorized_keys"))
port = free_port()
with open(os.path.join(d, "sshd_config"), "w") as f:
    f.write("""ListenAddress 127.0.0.1
Port %d
HostKey %s/host
AuthorizedKeysFile %s/authorized_keys
PidFile none
UsePAM yes
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
StrictModes no
PrintMotd no
LogLevel ERROR
""" % (port, d, d))

sshd = subprocess.Popen([SSHD, "-D", "-e", "-f", os.path.join(d, "sshd_config")],
                        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                        stderr=subprocess.PIPE)
try:
    if not wait_port(port, sshd):
        err = sshd.stderr.read().decode(errors="replace") if sshd.poll() is not None else ""
        skip("sshd did not start: %s" % err.strip()[:300])
    fact(what="sshd", pid=sshd.pid, port=port)
    ssh = ["ssh", "-tt", "-i", os.path.join(d, "user"), "-p", str(port),
           "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=no",
           "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR", "root@127.0.0.1"]
    # Until a command holds (polled, at most 5 s).
    until = "i=0; until %%s || [ $((i+=1)) -gt %d ]; do sleep 0.01; done; " % (500 * SCALE)
    seen = "[ $(pgrep -cxf 'sleep %s') -ge %d ]"
    t3, t4, t5, t6, t7, t8 = ((60 + n) * SCALE for n in (3, 4, 5, 6, 7, 8))
    # The nested login kills a job of the outer one: its exit names the
    # sender's login (issue 33).
    nested = ("echo nested=$$ ntty=$(tty); pkill -TERM -xf 'sleep %d'; " % t8 +
              "setsid -f sleep %d; " % t4 +
              until % (seen % (t4, 1)) + "exit")
    pane = "echo $$ > %s/tmux; setsid -f sleep %d; " % (d, t5) + until % (seen % (t5, 1))
    su_pty = "echo su=$$; setsid -f sleep %d; " % t6 + until % (seen % (t6, 1))
    with open(os.path.join(d, "login.sh"), "w") as f:
        f.write("setsid -f sleep %d\n" % t3 +
                "nohup sleep %d >/dev/null 2>&1 &\n" % t3 +
                "echo job=$!\n"
                "sleep %d &\n" % t8 +
                "echo victim=$!\n"
                "echo login=$$ auid=$(cat /proc/self/loginuid) "
                "ses=$(cat /proc/self/sessionid) tty=$(tty)\n"
                + " ".join(ssh) + " " + shlex.quote(nested) + "\n"
                "tmux -L pgt$$ -f /dev/null new-session -d " + shlex.quote(pane) + "\n"
                + until % "[ -s %s/tmux ]" % d + "echo tmux=$(cat %s/tmux)\n" % d +
                "su -P root -c " + shlex.quote(su_pty) + "\n"
                "su - root -c 'setsid -f sleep %d'\n" % t7 +
                # every escape has exec'd: then log out
                until % " && ".join([seen % (t3, 2)] + [seen % (n, 1) for n in (t4, t5, t6, t7)]) +
                "exit\n")
    c = subprocess.run(ssh + ["bash %s/login.sh" % d],
                       stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60 * SCALE)
    kv = {}
    for word in c.stdout.replace("\r", " ").split():
        if "=" in word:
            k, v = word.split("=", 1)
            kv[k] = v
    if c.returncode != 0 or "auid" not in kv:
        skip("ssh login failed (rc %d): %s" % (c.returncode, (c.stderr + c.stdout).strip()[:300]))
    fact(what="login", pid=int(kv["login"]), job=int(kv["job"]), auid=int(kv["auid"]),
         ses=int(kv["ses"]), tty=kv["tty"], nested=int(kv.get("nested", 0)),
         nested_tty=kv.get("ntty"), tmux=int(kv.get("tmux", 0)), su=int(kv.get("su", 0)),
         victim=int(kv.get("victim", 0)))
    # The job must outlive its login by the tracer's grace (1 s): with the
    # tracer's records in a file, until it says so (bounded); else for the
    # grace, with room to spare.
    if not tracer_said([b'"outlived_login"', b'"pid":%d,' % int(kv["job"])], 30 * SCALE) \
            and not os.environ.get("PGT_TRACER_OUT"):
        time.sleep(2.5 * SCALE)
finally:
    for pid in os.listdir("/proc"):      # the escaped sleeps came back to us
        try:
            with open("/proc/%s/stat" % pid) as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if ppid == os.getpid() and int(pid) != sshd.pid:
            os.kill(int(pid), signal.SIGKILL)
    sshd.send_signal(signal.SIGTERM)
    try:
        sshd.wait(10)
    except subprocess.TimeoutExpired:
        sshd.kill()
        sshd.wait(10)
    while True:                 # what was killed above: everything is dying
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            break
    shutil.rmtree(d, ignore_errors=True)
