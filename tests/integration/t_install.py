#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""make install (issue 18, item 4): the binary, the man page, a hardened
systemd unit that systemd-analyze verify accepts (and a broken copy of it
that it refuses), a logrotate snippet that logrotate parses, and bash
completion that completes options and --event's kinds, into a prefix of
the test's own."""
import os
import shutil
import subprocess
import tempfile

from harness import TOP, Tap, run

t = Tap()
tmp = tempfile.mkdtemp(prefix="pgt-install-")
prefix = os.path.join(tmp, "usr")
etc = os.path.join(tmp, "etc")
env = {k: v for k, v in os.environ.items() if not k.startswith("MAKE") and k != "MFLAGS"}
try:
    r = run(["make", "-C", TOP, "--no-print-directory", "install", "prefix=" + prefix,
             "sysconfdir=" + etc], env=env, timeout=600)
    t.eq(r.returncode, 0, "make install: exit 0", )
    files = {
        "sbin/pgrptrace": 0o755,
        "share/man/man8/pgrptrace.8": 0o644,
        "lib/systemd/system/pgrptrace.service": 0o644,
        "share/bash-completion/completions/pgrptrace": 0o644,
    }
    got = {f: oct(os.stat(os.path.join(prefix, f)).st_mode & 0o777)
           if os.path.exists(os.path.join(prefix, f)) else None for f in files}
    got["logrotate.d/pgrptrace"] = (oct(os.stat(os.path.join(etc, "logrotate.d/pgrptrace"))
                                        .st_mode & 0o777)
                                    if os.path.exists(os.path.join(etc, "logrotate.d/pgrptrace"))
                                    else None)
    files["logrotate.d/pgrptrace"] = 0o644
    t.eq(got, {f: oct(m) for f, m in files.items()}, "make install: every file, with its mode")

    # The unit: hardened as promised, and accepted by systemd-analyze verify
    # (which also runs `man pgrptrace`: the installed page).
    unit = os.path.join(prefix, "lib/systemd/system/pgrptrace.service")
    text = open(unit).read() if os.path.exists(unit) else ""
    want = ["ExecStart=%s/sbin/pgrptrace " % prefix, "CapabilityBoundingSet=CAP_BPF CAP_PERFMON "
            "CAP_SYS_ADMIN CAP_SYS_PTRACE CAP_DAC_READ_SEARCH\n", "NoNewPrivileges=yes\n",
            "ProtectSystem=strict\n", "ProtectHome=read-only\n", "PrivateTmp=yes\n",
            "ReadWritePaths=/var/log/pgrptrace\n", "Restart=on-failure\n",
            "ExecReload=/bin/kill -HUP $MAINPID\n"]
    t.eq([w for w in want if w not in text], [], "unit: the hardening directives")
    venv = dict(env, MANPATH=os.path.join(prefix, "share/man"))
    r = run(["systemd-analyze", "verify", unit], env=venv, timeout=60)
    t.eq((r.returncode, r.stderr.strip()), (0, ""), "unit: systemd-analyze verify passes")
    broken = os.path.join(tmp, "pgrptrace-broken.service")
    with open(broken, "w") as f:
        f.write(text.replace("%s/sbin/pgrptrace" % prefix, "%s/sbin/missing" % prefix))
    r = run(["systemd-analyze", "verify", broken], env=venv, timeout=60)
    t.ok(r.returncode != 0 and "missing" in r.stderr,
         "unit: and refuses a copy whose binary is missing", (r.returncode, r.stderr[-200:]))

    # logrotate reads the snippet (debug mode: nothing is rotated).
    r = run(["logrotate", "--debug", "--state", os.path.join(tmp, "state"),
             os.path.join(etc, "logrotate.d/pgrptrace")], timeout=60)
    t.ok(r.returncode == 0 and "error" not in r.stderr.lower() and
         "/var/log/pgrptrace/*.jsonl" in r.stderr,
         "logrotate: the snippet parses", (r.returncode, r.stderr[-300:]))

    # bash completion, as bash-completion runs it.
    comp = os.path.join(prefix, "share/bash-completion/completions/pgrptrace")

    def complete(line):
        words = line.split(" ")
        script = ("source /usr/share/bash-completion/bash_completion; source %s; "
                  "COMP_LINE=%s; COMP_POINT=${#COMP_LINE}; COMP_WORDS=(%s); "
                  "COMP_CWORD=%d; _pgrptrace pgrptrace '%s' '%s'; "
                  "printf '%%s\\n' \"${COMPREPLY[@]}\"" %
                  (comp, "'" + line + "'", " ".join("'%s'" % w for w in words),
                   len(words) - 1, words[-1], words[-2]))
        r = run(["bash", "-c", script], timeout=60,
                env=dict(env, PATH=os.path.join(prefix, "sbin") + ":" + os.environ["PATH"]))
        return sorted(set(r.stdout.split()))

    t.ok("--event" in complete("pgrptrace --eve") or "--event=" in complete("pgrptrace --eve"),
         "bash completion: options from --help", complete("pgrptrace --eve"))
    t.eq(complete("pgrptrace --event exec,es"), ["exec,escape"],
         "bash completion: --event's kinds after a comma")
    t.eq(complete("pgrptrace --signals a"), ["all"], "bash completion: --signals")
    t.eq(complete("pgrptrace --syslog-facility auth"), ["auth", "authpriv"],
         "bash completion: --syslog-facility")
    t.eq(complete("pgrptrace --syslog=tc"), ["tcp://"], "bash completion: --syslog=TARGET")
    t.eq(complete("pgrptrace --color a"), ["always", "auto"], "bash completion: --color")
finally:
    shutil.rmtree(tmp, ignore_errors=True)
t.done()
