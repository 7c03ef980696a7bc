# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Boot one of Debian's kernels under qemu (TCG) with an initramfs that holds
busybox, pgrptrace and the test programs, run a list of commands in it, and
return each command's output and exit status.

The guest is its own machine: its PID 1 is the initramfs's shell, so nothing
it runs can reach the host's processes. Each command runs under busybox
`timeout`, the whole boot under a host-side deadline that kills qemu."""
import lzma
import os
import re
import shutil
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CACHE = os.environ.get("PGRPTRACE_KERNEL_CACHE", "/var/cache/pgrptrace-kernels")
BUSYBOX = "/bin/busybox"
# One host thread runs every vCPU in turn. With a thread per vCPU (qemu 7.2's
# default), a 6.12 guest took an int3 oops in syscall_trace_enter() while
# its other vCPU was patching that jump label to attach a syscall tracepoint
# (text_poke_bp): one vCPU ran stale translated code that the other had
# already rewritten. Real CPUs serialize that with the poke's IPIs.
TCG = "tcg,thread=single"
# The kernel's check that the IO-APIC delivers the timer's interrupt panics
# now and then under TCG on a loaded host ("IO-APIC + timer doesn't work!",
# seen once in CI's make check on Debian 12's kernel): left out, as the
# kernel's own parameter allows for virtual machines.
BOOT_ARGS = "no_timer_check"
BEGIN = "@@pgt-begin "
END = "@@pgt-end "


def _workdir(prefix):
    """A new directory under $TMPDIR for a guest's files (a root image is
    about 1 GB), named after this process: one a run killed before it could
    remove it is removed by the next (sweep())."""
    sweep()
    return tempfile.mkdtemp(prefix="%s%d-" % (prefix, os.getpid()))


def sweep():
    """Remove the guest directories of processes that are gone."""
    top = tempfile.gettempdir()
    for name in os.listdir(top):
        parts = name.split("-")
        if (len(parts) >= 4 and parts[0] == "pgt" and
                parts[1] in ("guest", "root", "sdroot") and parts[2].isdigit() and
                not os.path.exists("/proc/" + parts[2])):
            shutil.rmtree(os.path.join(top, name), ignore_errors=True)


def fetch(suite):
    """The cached kernel directory of @suite (vmlinuz, config, release, package)."""
    subprocess.run([os.path.join(HERE, "fetch-kernel.sh"), suite, CACHE], check=True)
    return os.path.join(CACHE, suite)


def _copy(root, src, dst=None):
    dst = root + (dst or src)
    if os.path.exists(dst):
        return
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    shutil.copy2(os.path.realpath(src), dst)


def _add_elf(root, path, dst):
    """@path at @dst in the image, with the shared libraries ldd names."""
    _copy(root, path, dst)
    out = subprocess.run(["ldd", path], capture_output=True, text=True).stdout
    for line in out.splitlines():
        for word in line.split():
            if word.startswith("/") and os.path.exists(word):
                _copy(root, word)


INIT = """#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp
mkdir -p /dev/pts && mount -t devpts devpts /dev/pts
echo "@@pgt-kernel $(uname -r)"
echo "@@pgt-up $(cut -d' ' -f1 /proc/uptime)"
run() {
	name=$1; limit=$2; shift 2
	echo "@@pgt-begin $name"
	t0=$(cut -d' ' -f1 /proc/uptime)
	timeout "$limit" "$@" 2>&1
	rc=$?
	echo "@@pgt-end $name $rc"
	echo "@@pgt-time $name $t0 $(cut -d' ' -f1 /proc/uptime)"
}
"""


def boot(kernel_dir, programs, commands, timeout, tcg=TCG):
    """Boot @kernel_dir's kernel; @programs maps a name in the guest's /bin to a
    host ELF file; @commands is a list of (name, seconds, argv); @tcg the
    accelerator's options. Returns
    (kernel release or None, {name: (status, output)}, console text)."""
    work = _workdir("pgt-guest-")
    try:
        root = os.path.join(work, "root")
        for d in ("bin", "proc", "sys", "dev", "tmp", "etc"):
            os.makedirs(os.path.join(root, d))
        _copy(root, BUSYBOX, "/bin/busybox")
        for name, path in programs.items():
            _add_elf(root, path, "/bin/" + name)
        with open(os.path.join(root, "etc/passwd"), "w") as f:
            f.write("root:x:0:0:root:/:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n")
        script = INIT
        for name, limit, argv in commands:
            script += "run %s %d %s\n" % (name, limit, " ".join("'%s'" % a for a in argv))
        script += "poweroff -f\n"
        with open(os.path.join(root, "init"), "w") as f:
            f.write(script)
        os.chmod(os.path.join(root, "init"), 0o755)
        initrd = os.path.join(work, "initrd.gz")
        subprocess.run("cd '%s' && find . | cpio -o -H newc --quiet | gzip -1 > '%s'"
                       % (root, initrd), shell=True, check=True)
        cmd = ["qemu-system-x86_64", "-accel", tcg, "-m", "2048", "-smp", "2",
               "-kernel", os.path.join(kernel_dir, "vmlinuz"), "-initrd", initrd,
               "-append", "console=ttyS0 panic=-1 quiet " + BOOT_ARGS, "-nographic", "-no-reboot",
               "-nodefaults", "-serial", "stdio"]
        try:
            p = subprocess.run(cmd, capture_output=True, timeout=timeout,
                               stdin=subprocess.DEVNULL)
            console = p.stdout.decode("utf-8", "replace")
        except subprocess.TimeoutExpired as e:
            console = (e.stdout or b"").decode("utf-8", "replace")
            console += "\n@@pgt-timeout qemu killed after %d s\n" % timeout
        return parse(console) + (console,)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def times(console):
    """What the guest said of its own time: {"up": seconds from the kernel's
    start to the first command, name: seconds each command or test file
    took, "commands": [(seconds, test file, command)] of the tests' own
    commands (harness.py's PGT_PROFILE)}."""
    out = {}
    for line in console.replace("\r", "").splitlines():
        if "@@pgt-" in line:
            line = line[line.index("@@pgt-"):]
        words = line.split()
        try:
            if words[0] == "@@pgt-up":
                out["up"] = float(words[1])
            elif words[0] == "@@pgt-time" and len(words) == 4:
                out[words[1]] = float(words[3]) - float(words[2])
            elif words[0] == "@@pgt-profile":
                took, test, what = line.split(" ", 1)[1].split("\t", 2)
                out.setdefault("commands", []).append((float(took), test, what))
        except (IndexError, ValueError):
            pass
    return out


def parse(console):
    release, results, name, lines = None, {}, None, []
    for line in console.replace("\r", "").splitlines():
        if "@@pgt-" in line:	# after the firmware's escape sequences, on the first
            line = line[line.index("@@pgt-"):]
        if line.startswith("@@pgt-kernel "):
            release = line.split(" ", 1)[1]
        elif line.startswith(BEGIN):
            name, lines = line[len(BEGIN):], []
        elif line.startswith(END) and name:
            status = int(line.rsplit(" ", 1)[1])
            results[name] = (status, "\n".join(lines))
            name = None
        elif name:
            lines.append(line)
    return release, results


# The host's programs and libraries a test can run, hard-linked into a tree
# that becomes the guest's root disk (read-only, under a tmpfs overlay).
ROOT_DIRS = ["usr/bin", "usr/sbin", "usr/libexec", "usr/lib/python3", "usr/lib/python3.11","usr/lib/openssh",
             "usr/lib/locale", "usr/lib64", "usr/share/terminfo", "usr/lib/terminfo", "etc"]
BIG_LIBS = ("libLLVM", "libclang", "fpc", "libicudata", "dri", "valgrind", "lapack",
            "libz3", "libx265", "librsvg", "gcc", "jvm")
# The modules a guest needs to reach its disk and overlay it, in load order;
# each is skipped where the kernel has it built in.
MODULES = ["drivers/virtio/virtio.ko", "drivers/virtio/virtio_ring.ko",
           "drivers/virtio/virtio_pci_modern_dev.ko", "drivers/virtio/virtio_pci_legacy_dev.ko",
           "drivers/virtio/virtio_pci.ko", "drivers/block/virtio_blk.ko",
           "fs/overlayfs/overlay.ko"]

ROOT_INIT = """#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
for m in /modules/*.ko; do insmod "$m" 2>/dev/null; done
mkdir -p /lower /rw /newroot
i=0
while [ ! -b /dev/vda ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
mount -t ext4 -o ro /dev/vda /lower || { echo "@@pgt-fail no root disk"; poweroff -f; }
mount -t tmpfs -o size=1500m rw /rw
mkdir -p /rw/upper /rw/work
mount -t overlay overlay -o lowerdir=/lower,upperdir=/rw/upper,workdir=/rw/work /newroot ||
	{ echo "@@pgt-fail no overlay"; poweroff -f; }
umount /proc /sys
mount --move /dev /newroot/dev
exec switch_root /newroot @INIT@
"""

RUN_HEAD = """#!/bin/sh
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t tmpfs tmp /tmp
mount -t tmpfs run /run
mkdir -p /dev/pts /sys/fs/cgroup
mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts /dev/pts
ln -sf /dev/pts/ptmx /dev/ptmx 2>/dev/null
mkdir -p /dev/shm && mount -t tmpfs -o mode=1777 shm /dev/shm
mount -t cgroup2 cgroup2 /sys/fs/cgroup
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
ip link set lo up
hostname pgt-guest
echo "@@pgt-kernel $(uname -r)"
echo "@@pgt-up $(cut -d' ' -f1 /proc/uptime)"
cd /pgt
export PGT_PROFILE=/tmp/pgt-profile
"""


def _stage_root(stage, project):
    for d in ROOT_DIRS:
        if os.path.isdir("/" + d):
            os.makedirs(os.path.dirname(os.path.join(stage, d)), exist_ok=True)
            subprocess.run(["cp", "-al", "/" + d, os.path.join(stage, d)], check=True)
    libs = "/usr/lib/x86_64-linux-gnu"
    dst = stage + libs
    os.makedirs(dst, exist_ok=True)
    for name in os.listdir(libs):
        if name.endswith(".a") or name.startswith(BIG_LIBS):
            continue
        subprocess.run(["cp", "-al", os.path.join(libs, name), dst], check=True)
    for link in ("bin", "sbin", "lib", "lib64", "lib32"):
        if os.path.islink("/" + link):
            os.symlink(os.readlink("/" + link), os.path.join(stage, link))
    for d in ("proc", "sys", "dev", "tmp", "run", "var/tmp", "var/log", "var/lib",
              "root", "home", "pgt"):
        os.makedirs(os.path.join(stage, d), exist_ok=True)
    subprocess.run("cd '%s' && tar -c --exclude=.git --exclude='.output-san' . | "
                   "(cd '%s/pgt' && tar -x)" % (project, stage), shell=True, check=True)


def _modules(root, kernel_dir):
    release = open(os.path.join(kernel_dir, "release")).read().strip()
    base = os.path.join(kernel_dir, "modules", release, "kernel")
    os.makedirs(os.path.join(root, "modules"))
    for i, m in enumerate(MODULES):
        out = os.path.join(root, "modules", "%02d-%s" % (i, os.path.basename(m)))
        if os.path.exists(os.path.join(base, m)):
            shutil.copy(os.path.join(base, m), out)
        elif os.path.exists(os.path.join(base, m + ".xz")):
            with lzma.open(os.path.join(base, m + ".xz")) as f, open(out, "wb") as o:
                o.write(f.read())


def make_root(project, tests, env, per_test):
    """A root disk image holding the host's programs, @project at /pgt, and a
    script that runs each of @tests (paths under @project) with @env, each
    bounded by @per_test seconds. The caller removes the returned directory."""
    work = _workdir("pgt-root-")
    stage = os.path.join(work, "stage")
    _stage_root(stage, project)
    script = RUN_HEAD
    for k, v in sorted(env.items()):
        script += "export %s='%s'\n" % (k, v)
    for path in tests:
        name = os.path.basename(path)
        script += ("echo '@@pgt-begin %s'\nt0=$(cut -d' ' -f1 /proc/uptime)\n"
                   "PGT_DEADLINE=$(( $(date +%%s) + %d )) "
                   "timeout -k 10 %d python3 tests/run-test %s 2>&1\n"
                   "echo \"@@pgt-end %s $?\"\n"
                   "echo \"@@pgt-time %s $t0 $(cut -d' ' -f1 /proc/uptime)\"\n"
                   % (name, per_test, per_test + 30, path, name, name))
    script += "sed 's/^/@@pgt-profile /' /tmp/pgt-profile 2>/dev/null\nsync; poweroff -f\n"
    with open(os.path.join(stage, "pgt-run.sh"), "w") as f:
        f.write(script)
    image = os.path.join(work, "root.img")
    subprocess.run(["mke2fs", "-q", "-F", "-t", "ext4", "-b", "4096", "-O",
                    "^has_journal,^metadata_csum,^64bit", "-d", stage, image, "2500M"],
                   check=True)
    shutil.rmtree(stage)
    return work, image


def _write(path, text, mode=0o644):
    """A new file at @path in a staged root. Its tree is hard links to the
    host's files: unlink first, never write through a link."""
    if os.path.lexists(path):
        os.unlink(path)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, mode)


# `make deb`'s package, which t_service installs in its guest.
DEB_NAME = "pgrptrace_%s_%s.deb" % (
    re.search(r"^VERSION\s*:=\s*(\S+)", open(os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "Makefile")).read(), re.M).group(1),
    subprocess.run(["dpkg", "--print-architecture"], capture_output=True,
                   text=True).stdout.strip())


def stage_dpkg(stage):
    """What apt and dpkg need in a staged root to install a local package:
    the host's dpkg database and apt's state, perl and debconf (maintainer
    scripts, deb-systemd-helper), apt's methods."""
    for d in ("var/lib/dpkg", "var/cache/debconf", "usr/share/perl5", "usr/share/perl",
              "usr/lib/apt", "usr/share/dpkg", "usr/share/debconf", "usr/lib/dpkg"):
        if os.path.isdir("/" + d):
            os.makedirs(os.path.dirname(os.path.join(stage, d)), exist_ok=True)
            subprocess.run(["cp", "-a", "/" + d, os.path.join(stage, d)], check=True)
    for d in ("var/lib/apt/lists/partial", "var/cache/apt/archives/partial", "var/log/apt"):
        os.makedirs(os.path.join(stage, d), exist_ok=True)


def make_systemd_root(project, install, units, check):
    """A root disk like make_root()'s, booted with systemd as PID 1: the
    host's systemd, @install(stage) to install into it (make install
    DESTDIR=), @units {path under /etc/systemd/system: text} (units, drop-ins
    and the .wants symlinks as "-> target"), and @check, the shell script
    that a oneshot unit runs once the system is up, on the serial console,
    before it powers off. None of the host's enabled units, no fstab.
    The caller removes the returned directory."""
    work = _workdir("pgt-sdroot-")
    stage = os.path.join(work, "stage")
    _stage_root(stage, project)
    subprocess.run(["cp", "-al", "/usr/lib/systemd", os.path.join(stage, "usr/lib/systemd")],
                   check=True)
    shutil.rmtree(os.path.join(stage, "etc/systemd/system"))
    os.makedirs(os.path.join(stage, "etc/systemd/system"))
    _write(os.path.join(stage, "etc/fstab"), "")
    _write(os.path.join(stage, "etc/hostname"), "pgt-guest\n")
    install(stage)
    for path, text in sorted(units.items()):
        dst = os.path.join(stage, "etc/systemd/system", path)
        if text.startswith("-> "):
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            os.symlink(text[3:], dst)
        else:
            _write(dst, text)
    _write(os.path.join(stage, "pgt-check.sh"), check, 0o755)
    _write(os.path.join(stage, "etc/systemd/system/pgt-check.service"),
           "[Unit]\nDescription=the test's checks\n"
           "[Service]\nType=oneshot\nExecStart=/bin/sh /pgt-check.sh\n"
           "StandardOutput=tty\nStandardError=tty\nTTYPath=/dev/ttyS0\n"
           "ExecStopPost=/bin/systemctl poweroff --force --force\n")
    os.makedirs(os.path.join(stage, "etc/systemd/system/multi-user.target.wants"),
                exist_ok=True)
    os.symlink("/etc/systemd/system/pgt-check.service",
               os.path.join(stage, "etc/systemd/system/multi-user.target.wants/pgt-check.service"))
    image = os.path.join(work, "root.img")
    subprocess.run(["mke2fs", "-q", "-F", "-t", "ext4", "-b", "4096", "-O",
                    "^has_journal,^metadata_csum,^64bit", "-d", stage, image, "2500M"],
                   check=True)
    shutil.rmtree(stage)
    return work, image


def boot_root(kernel_dir, image, timeout, init="/bin/sh /pgt-run.sh", append=""):
    """Boot @kernel_dir's kernel on the root disk @image from make_root(),
    switching to @init there (with @append on the kernel's command line).
    Returns (kernel release or None, {test: (status, output)}, console)."""
    work = _workdir("pgt-guest-")
    try:
        root = os.path.join(work, "root")
        for d in ("bin", "proc", "sys", "dev"):
            os.makedirs(os.path.join(root, d))
        _copy(root, BUSYBOX, "/bin/busybox")
        _modules(root, kernel_dir)
        with open(os.path.join(root, "init"), "w") as f:
            f.write(ROOT_INIT.replace("@INIT@", init))
        os.chmod(os.path.join(root, "init"), 0o755)
        initrd = os.path.join(work, "initrd.gz")
        subprocess.run("cd '%s' && find . | cpio -o -H newc --quiet | gzip -1 > '%s'"
                       % (root, initrd), shell=True, check=True)
        cmd = ["qemu-system-x86_64", "-accel", TCG, "-m", "3072", "-smp", "2",
               "-kernel", os.path.join(kernel_dir, "vmlinuz"), "-initrd", initrd,
               "-append", ("console=ttyS0 panic=-1 quiet %s %s" % (BOOT_ARGS, append)).strip(),
               "-drive", "file=%s,if=virtio,format=raw,snapshot=on" % image,
               "-nographic", "-no-reboot", "-nodefaults", "-serial", "stdio"]
        try:
            p = subprocess.run(cmd, capture_output=True, timeout=timeout,
                               stdin=subprocess.DEVNULL)
            console = p.stdout.decode("utf-8", "replace")
        except subprocess.TimeoutExpired as e:
            console = (e.stdout or b"").decode("utf-8", "replace")
            console += "\n@@pgt-timeout qemu killed after %d s\n" % timeout
        return parse(console) + (console,)
    finally:
        shutil.rmtree(work, ignore_errors=True)
