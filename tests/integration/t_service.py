#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""The installed unit under systemd (issue 18): Debian 12's kernel (6.1)
boots, under qemu, a root disk made of this machine's programs with
systemd 252 as PID 1, into which `make install DESTDIR=` put pgrptrace, its
unit and its logrotate snippet. The unit is enabled as installed, with one
drop-in that adds --journal (docs/service.md). Once the system is up, a
oneshot unit of the test checks, from inside:

- pgrptrace.service is active, as root with only the capabilities the unit
  bounds it to, and NoNewPrivs;
- a workload's setsid is in /var/log/pgrptrace/pgrptrace.jsonl, and in the
  journal as the same record (PGRPTRACE_JSON), with the unit's name;
- logrotate with the installed snippet rotates the file, its postrotate's
  SIGHUP (`systemctl kill --signal=HUP`) reopens it, and the next records go
  to the new file;
- `systemctl stop` ends it cleanly (status 0);
- then the Debian package (`make deb`, issue 36) in its place: `apt install
  ./pgrptrace_*.deb` leaves the unit disabled and stopped, as the package
  says; enabled by hand it runs and a workload's record reaches the journal;
  `apt purge` leaves no file of the package, no pgrptrace, no log and no
  BPF program of ours.

PGRPTRACE_SERVICE_KERNEL picks the suite (default bookworm)."""
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "guest"))
import guest  # noqa: E402
from harness import Tap, our_progs  # noqa: E402

t = Tap()
TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SUITE = os.environ.get("PGRPTRACE_SERVICE_KERNEL", "bookworm")
SCALE = 5       # TCG: bounds stretched, as the kernels pass does

CHECK = r"""#!/bin/sh
export PATH=/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin
echo "@@pgt-kernel $(uname -r)"
echo "@@pgt-begin service"
fact() { echo "@@fact $*"; }
# Every wait is bounded: @1 tenths of a second for the command after it.
wait_for() {
	n=$1; shift; i=0
	until "$@"; do [ $i -lt $n ] || return 1; sleep 0.1; i=$((i+1)); done
}
log=/var/log/pgrptrace/pgrptrace.jsonl
has() { grep -q "$1" "$2" 2>/dev/null; }
wait_for 1200 systemctl -q is-active pgrptrace.service
fact active "$(systemctl is-active pgrptrace.service)"
wait_for 1200 has '"event":' "$log"
pid=$(systemctl show -p MainPID --value pgrptrace.service)
fact mainpid "$pid"
fact uid "$(awk '/^Uid:/ {print $2}' /proc/$pid/status)"
fact capeff "$(awk '/^CapEff:/ {print $2}' /proc/$pid/status)"
fact capbnd "$(awk '/^CapBnd:/ {print $2}' /proc/$pid/status)"
fact nnp "$(awk '/^NoNewPrivs:/ {print $2}' /proc/$pid/status)"
fact logmode "$(stat -c %a "$log")"
# A workload: an escape into a new session.
setsid sh -c 'exec sleep 0.5' &
w=$!
wait $w
fact workload "$w"
wait_for 600 has "\"event\":\"setsid\",\"process\":{\"pid\":$w," "$log"
fact in_file "$(grep -c "\"event\":\"setsid\",\"process\":{\"pid\":$w," "$log")"
seq=$(grep "\"event\":\"setsid\",\"process\":{\"pid\":$w," "$log" | head -n 1 |
      sed -n 's/^{"schema":3,"seq":\([0-9]*\),.*/\1/p')
fact seq "$seq"
fact execstart "$(systemctl show -p ExecStart --value pgrptrace.service | head -c 300)"
wait_for 600 sh -c "journalctl PGRPTRACE_SEQ=$seq -o json | grep -q ."
journalctl PGRPTRACE_SEQ="$seq" -o json | head -n 1 > /tmp/entry.json
fact journal_matches "$(journalctl PGRPTRACE_SEQ="$seq" -o json | wc -l)"
fact journal_entries "$(journalctl -o cat SYSLOG_IDENTIFIER=pgrptrace | wc -l)"
grep "\"event\":\"setsid\",\"process\":{\"pid\":$w," "$log" | head -n 1 > /tmp/record.json
# The entry, compared in here: a line of its size need not cross the console whole.
python3 - <<'PY'
import json
try:
    e = json.loads(open("/tmp/entry.json").readline())
except ValueError as err:
    print("@@fact entry_error %s" % err)
    e = {}
rec = open("/tmp/record.json").read().rstrip("\n")
print("@@fact json_same %s" % ("yes" if e.get("PGRPTRACE_JSON") == rec else "no"))
for k in ("_SYSTEMD_UNIT", "SYSLOG_IDENTIFIER", "PGRPTRACE_EVENT", "PRIORITY",
          "PGRPTRACE_PROCESS_PID"):
    print("@@fact %s %s" % (k, e.get(k)))
PY
# Rotation: logrotate with the installed snippet, whose postrotate sends SIGHUP.
logrotate -f -s /tmp/logrotate.state /etc/logrotate.d/pgrptrace > /tmp/logrotate.out 2>&1
fact rotate_status "$?"
sed 's/^/@@logrotate /' /tmp/logrotate.out
fact rotated "$(ls /var/log/pgrptrace/ | tr '\n' ' ')"
sh -c 'exec true' &
w2=$!
wait $w2
wait_for 600 has "\"event\":\"exit\",\"process\":{\"pid\":$w2," "$log"
fact after_rotation "$(grep -c "\"event\":\"exit\",\"process\":{\"pid\":$w2," "$log")"
systemctl stop pgrptrace.service
fact stopped "$(systemctl show -p ActiveState --value pgrptrace.service)"
fact exit_status "$(systemctl show -p ExecMainStatus --value pgrptrace.service)"
fact result "$(systemctl show -p Result --value pgrptrace.service)"
# The package (issue 36): what make install put goes; the .deb comes in by
# apt; its unit, which the package does not enable, is enabled by hand
# (with the journal's drop-in); then apt purge takes everything back.
ours() {
	bpftool -j prog show | python3 -c 'import json, sys
names = set(open("/pgt-progs.txt").read().split())
print(sum(1 for p in json.load(sys.stdin) if p.get("name") in names))'
}
systemctl disable pgrptrace.service >/dev/null 2>&1
rm -f /etc/systemd/system/multi-user.target.wants/pgrptrace.service \
	/usr/local/sbin/pgrptrace /usr/local/lib/systemd/system/pgrptrace.service \
	/etc/logrotate.d/pgrptrace /usr/local/share/man/man8/pgrptrace.8 \
	/usr/local/share/bash-completion/completions/pgrptrace
rm -rf /etc/systemd/system/pgrptrace.service.d /var/log/pgrptrace
systemctl daemon-reload
# This machine is ours: services may start and stop (the host's root may
# carry a policy that forbids it while packages install there).
rm -f /usr/sbin/policy-rc.d
export DEBIAN_FRONTEND=noninteractive
apt-get install -y /pgt-deb/pgrptrace_*.deb > /tmp/apt.out 2>&1
fact apt_install "$?"
sed 's/^/@@apt /' /tmp/apt.out | tail -n 30
fact pkg_enabled "$(systemctl is-enabled pgrptrace.service 2>&1)"
fact pkg_active "$(systemctl is-active pgrptrace.service 2>&1)"
dpkg -L pgrptrace > /tmp/pkg.files
fact pkg_files "$(wc -l < /tmp/pkg.files)"
mkdir -p /etc/systemd/system/pgrptrace.service.d
printf '[Service]\nExecStart=\nExecStart=/usr/sbin/pgrptrace --json -o %s --journal\n' \
	"$log" > /etc/systemd/system/pgrptrace.service.d/journal.conf
systemctl daemon-reload
systemctl enable --now pgrptrace.service > /dev/null 2>&1
wait_for 1200 systemctl -q is-active pgrptrace.service
fact pkg_started "$(systemctl is-active pgrptrace.service)"
fact pkg_exe "$(readlink /proc/$(systemctl show -p MainPID --value pgrptrace.service)/exe)"
wait_for 1200 has '"event":' "$log"
setsid sh -c 'exec sleep 0.3' &
w3=$!
wait $w3
wait_for 600 sh -c "journalctl PGRPTRACE_EVENT=setsid PGRPTRACE_PROCESS_PID=$w3 -o cat | grep -q ."
fact pkg_journal "$(journalctl PGRPTRACE_EVENT=setsid PGRPTRACE_PROCESS_PID=$w3 -o cat | wc -l)"
fact pkg_progs_running "$(ours)"
rm -rf /etc/systemd/system/pgrptrace.service.d
apt-get purge -y pgrptrace > /tmp/apt.out 2>&1
fact apt_purge "$?"
sed 's/^/@@apt /' /tmp/apt.out | tail -n 30
left=""
while read -r f; do
	[ ! -d "$f" ] && { [ -e "$f" ] || [ -L "$f" ]; } && left="$left $f"
done < /tmp/pkg.files
fact pkg_left "${left:- none}"
fact pkg_status "$(dpkg-query -W -f='${Status}' pgrptrace 2>&1 | head -c 80)"
fact pkg_running "$(pgrep -x pgrptrace | wc -l)"
fact pkg_log "$([ -e /var/log/pgrptrace ] && echo present || echo gone)"
fact pkg_progs_after "$(ours)"
echo "@@pgt-end service 0"
"""

UNIT = "/usr/local/lib/systemd/system/pgrptrace.service"
UNITS = {
    "multi-user.target.wants/pgrptrace.service": "-> " + UNIT,
    # How docs/service.md adds the journal to the installed unit.
    "pgrptrace.service.d/journal.conf":
        "[Service]\nExecStart=\nExecStart=/usr/local/sbin/pgrptrace --json -o "
        "/var/log/pgrptrace/pgrptrace.jsonl --journal\n",
}

# The unit's bounding set: CAP_SYS_PTRACE (19), CAP_DAC_READ_SEARCH (2),
# CAP_SYS_ADMIN (21), CAP_PERFMON (38), CAP_BPF (39).
BOUND = (1 << 2) | (1 << 19) | (1 << 21) | (1 << 38) | (1 << 39)


DEB = os.path.join(TOP, guest.DEB_NAME)


def install(stage):
    subprocess.run(["make", "-s", "-C", TOP, "install", "DESTDIR=" + stage,
                    "prefix=/usr/local"], check=True, stdout=subprocess.DEVNULL)
    # The package, and what apt and dpkg need to install it in there.
    guest.stage_dpkg(stage)
    os.makedirs(os.path.join(stage, "pgt-deb"))
    shutil.copy(DEB, os.path.join(stage, "pgt-deb"))
    with open(os.path.join(stage, "pgt-progs.txt"), "w") as f:
        f.write("\n".join(sorted(our_progs())) + "\n")


work = None
try:
    kdir = guest.fetch(SUITE)
    if not t.ok(shutil.which("qemu-system-x86_64") and os.path.exists("/usr/lib/systemd/systemd"),
                "qemu and systemd are installed (make deps-test)"):
        t.done()
    work, image = guest.make_systemd_root(TOP, install, UNITS, CHECK)
    release, results, console = guest.boot_root(
        kdir, image, 900, init="/lib/systemd/systemd",
        append="systemd.unit=multi-user.target systemd.show_status=0 systemd.log_level=warning")
    t.ok(release, "%s: the kernel boots systemd, and the check unit runs" % SUITE,
         console[-1500:])
    status, out = results.get("service", (None, ""))
    t.eq(status, 0, "%s: the checks ran to their end" % SUITE)
    facts = {}
    for line in out.splitlines():
        if line.startswith("@@fact "):
            k, _, v = line[7:].partition(" ")
            facts[k] = v.strip()
    t.diag("%s: %s" % (release, facts))
    for line in out.splitlines():
        if line.startswith("@@logrotate "):
            t.diag(line)
    t.eq(facts.get("active"), "active", "the installed unit is active under systemd")
    t.eq(facts.get("uid"), "0", "it runs as root")
    t.eq(int(facts.get("capbnd", "0"), 16), BOUND,
         "its bounding set is the unit's: CAP_BPF, CAP_PERFMON, CAP_SYS_ADMIN, "
         "CAP_SYS_PTRACE, CAP_DAC_READ_SEARCH")
    t.eq(int(facts.get("capeff", "0"), 16) & ~BOUND, 0, "and it holds nothing beyond it")
    t.eq(facts.get("nnp"), "1", "NoNewPrivileges")
    t.eq(facts.get("logmode"), "600", "its log is 0600")
    t.eq(facts.get("in_file"), "1", "the workload's setsid is in the log file")
    t.eq(facts.get("json_same"), "yes",
         "the journal has the same record, byte for byte (PGRPTRACE_JSON)",)
    t.eq([facts.get(k) for k in ("_SYSTEMD_UNIT", "SYSLOG_IDENTIFIER", "PGRPTRACE_EVENT",
                                 "PRIORITY", "PGRPTRACE_PROCESS_PID")],
         ["pgrptrace.service", "pgrptrace", "setsid", "6", facts.get("workload")],
         "under the unit's name, with its fields")
    t.eq(facts.get("rotate_status"), "0", "logrotate runs the installed snippet")
    t.ok("pgrptrace.jsonl.1" in facts.get("rotated", ""), "the file was rotated",
         facts.get("rotated"))
    t.eq(facts.get("after_rotation"), "1",
         "after the SIGHUP, records go to the new file")
    t.eq((facts.get("stopped"), facts.get("exit_status"), facts.get("result")),
         ("inactive", "0", "success"), "systemctl stop ends it cleanly")
    for line in out.splitlines():
        if line.startswith("@@apt "):
            t.diag(line)
    t.eq(facts.get("apt_install"), "0", "the package: apt install ./%s" % os.path.basename(DEB))
    t.eq((facts.get("pkg_enabled"), facts.get("pkg_active")), ("disabled", "inactive"),
         "the package installs its unit, neither enabled nor started (README.Debian)")
    t.eq((facts.get("pkg_started"), facts.get("pkg_exe")), ("active", "/usr/sbin/pgrptrace"),
         "enabled and started by hand, the package's pgrptrace runs")
    t.eq(facts.get("pkg_journal"), "1", "a workload's setsid is in the journal")
    t.ok(int(facts.get("pkg_progs_running") or 0) > 0, "its BPF programs are loaded meanwhile",
         facts.get("pkg_progs_running"))
    t.eq(facts.get("apt_purge"), "0", "apt purge")
    t.eq((facts.get("pkg_left"), facts.get("pkg_running"), facts.get("pkg_log"),
          facts.get("pkg_progs_after")), ("none", "0", "gone", "0"),
         "after the purge: no file of the package, no pgrptrace running, its log gone, "
         "no BPF program of ours loaded")
    t.ok(facts.get("pkg_status", "").startswith("dpkg-query: no packages found") or
         "not-installed" in facts.get("pkg_status", ""),
         "dpkg knows it no more", facts.get("pkg_status"))
finally:
    if work:
        shutil.rmtree(work, ignore_errors=True)
t.done()
