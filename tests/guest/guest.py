# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Boot one of Debian's kernels under qemu (TCG) with an initramfs that holds
busybox, pgrptrace and the test programs, run a list of commands in it, and
return each command's output and exit status.

The guest is its own machine: its PID 1 is the initramfs's shell, so nothing
it runs can reach the host's processes. Each command runs under busybox
`timeout`, the whole boot under a host-side deadline that kills qemu."""
import os
import shutil
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CACHE = os.environ.get("PGRPTRACE_KERNEL_CACHE", "/var/cache/pgrptrace-kernels")
BUSYBOX = "/bin/busybox"
BEGIN = "@@pgt-begin "
END = "@@pgt-end "


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
run() {
	name=$1; limit=$2; shift 2
	echo "@@pgt-begin $name"
	timeout "$limit" "$@" 2>&1
	echo "@@pgt-end $name $?"
}
"""


def boot(kernel_dir, programs, commands, timeout):
    """Boot @kernel_dir's kernel; @programs maps a name in the guest's /bin to a
    host ELF file; @commands is a list of (name, seconds, argv). Returns
    (kernel release or None, {name: (status, output)}, console text)."""
    work = tempfile.mkdtemp(prefix="pgt-guest-")
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
        cmd = ["qemu-system-x86_64", "-accel", "tcg", "-m", "2048", "-smp", "2",
               "-kernel", os.path.join(kernel_dir, "vmlinuz"), "-initrd", initrd,
               "-append", "console=ttyS0 panic=-1 quiet", "-nographic", "-no-reboot",
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
