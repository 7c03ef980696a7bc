#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""A login over a real sshd with PAM on 127.0.0.1.

The sshd is private to this run: its own configuration, host key and
authorized key in a temporary directory, a free high port, in the foreground
(-D) as our child, killed at the end. The login runs a shell on a pty (-tt)
that starts `setsid -f sleep` (an escape) and a `nohup sleep &` that outlives
the login, then prints the loginuid and session id that pam_loginuid gave it.

Run as the command of `pgrptrace`: the login's processes are descendants of
this script through sshd. Writes what happened to $PGT_FACTS as JSON lines;
exits 77 with a reason on stderr when sshd cannot be run here."""
import ctypes
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)     # orphans come back to us
facts = open(os.environ.get("PGT_FACTS", os.devnull), "a")
SSHD = "/usr/sbin/sshd"


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
    script = ("setsid -f sleep 3; "
              "nohup sleep 3 >/dev/null 2>&1 & "
              "echo job=$!; "
              "echo login=$$ auid=$(cat /proc/self/loginuid) ses=$(cat /proc/self/sessionid) "
              "tty=$(tty); "
              # until the escaped sleep has exec'd (polled), then log out
              "i=0; until [ $(pgrep -cxf 'sleep 3') -ge 2 ] || [ $((i+=1)) -gt 500 ]; do sleep 0.01; done; "
              "exit")
    c = subprocess.run(["ssh", "-tt", "-i", os.path.join(d, "user"), "-p", str(port),
                        "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=no",
                        "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR",
                        "root@127.0.0.1", script],
                       stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=30)
    kv = {}
    for word in c.stdout.replace("\r", " ").split():
        if "=" in word:
            k, v = word.split("=", 1)
            kv[k] = v
    if c.returncode != 0 or "auid" not in kv:
        skip("ssh login failed (rc %d): %s" % (c.returncode, (c.stderr + c.stdout).strip()[:300]))
    fact(what="login", pid=int(kv["login"]), job=int(kv["job"]), auid=int(kv["auid"]),
         ses=int(kv["ses"]), tty=kv["tty"])
    # Not a wait for a state: what is tested is a duration, the jobs (sleep 3)
    # outliving the login by more than the tracer's grace period (1 s).
    time.sleep(1.5)
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
    shutil.rmtree(d, ignore_errors=True)
