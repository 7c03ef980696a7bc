#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""The build and its artefacts: install layout, the man page, header
dependency tracking, the arm64 BPF object."""
import os
import re
import tempfile

from harness import Tap, run

t = Tap()
top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

with tempfile.TemporaryDirectory() as dest:
    p = run(["make", "-s", "-C", top, "install", "DESTDIR=" + dest, "prefix=/opt/pgt"],
                       capture_output=True, text=True, timeout=600)
    t.eq(p.returncode, 0, "install: make install succeeds")
    binary = os.path.join(dest, "opt/pgt/sbin/pgrptrace")
    man = os.path.join(dest, "opt/pgt/share/man/man8/pgrptrace.8")
    t.ok(os.access(binary, os.X_OK), "install: binary under DESTDIR/prefix/sbin")
    t.ok(os.path.exists(man), "install: man page under DESTDIR/prefix/share/man/man8")

p = run(["man", "--warnings", "-l", os.path.join(top, "docs/pgrptrace.8")],
                   capture_output=True, text=True, timeout=60, env=dict(os.environ, MANWIDTH="80"))
t.eq(p.returncode, 0, "man: renders")
t.eq(p.stderr, "", "man: no warnings")
t.ok("EXIT STATUS" in p.stdout and "EXAMPLES" in p.stdout, "man: has exit status and examples")

# Build outputs never enter git: nothing tracked under .output*/, no binary.
if os.path.isdir(os.path.join(top, ".git")):
    p = run(["git", "-C", top, "ls-files"], capture_output=True, text=True, timeout=60)
    tracked = [f for f in p.stdout.splitlines()
               if f.startswith(".output") or f in ("pgrptrace", "pgrptrace.skel.h")]
    t.eq((p.returncode, tracked), (0, []), "git: no build output is tracked")
else:
    t.skip("git: no build output is tracked", "not a git checkout")

# The dependency files list the shared header for user and BPF objects.
for d in (".output/user/core/decode.d", ".output/bpf/pgrptrace.bpf.d"):
    path = os.path.join(top, d)
    deps = open(path).read() if os.path.exists(path) else ""
    t.ok("pgrptrace.h" in deps, "deps: %s names bpf/pgrptrace.h" % d)

# User space in layers (docs/design.md): a folder's files include only the
# headers of their own layer and the layers below it.
BELOW = {"core": {"core"}, "kernel": {"core", "kernel"}, "out": {"core", "out"},
         "view": {"core", "kernel", "out", "view"}}
layer_of = {}
for layer in BELOW:
    for f in os.listdir(os.path.join(top, "user", layer)):
        layer_of[f] = layer
for f in os.listdir(os.path.join(top, "user")):
    if f.endswith((".c", ".h")):
        layer_of[f] = "top"
crossing = []
for layer, allowed in sorted(BELOW.items()):
    for f in sorted(os.listdir(os.path.join(top, "user", layer))):
        with open(os.path.join(top, "user", layer, f), encoding="utf-8") as fh:
            for inc in re.findall(r'^#include "([^"]+)"', fh.read(), re.M):
                if layer_of.get(inc, layer) not in allowed:
                    crossing.append("user/%s/%s includes %s (%s)" % (layer, f, inc,
                                                                    layer_of[inc]))
t.eq(crossing, [], "layers: no file of user/ includes a header of a layer above its own")

# The BPF object for arm64 builds here from the committed arm64 vmlinux.h.
arm = os.path.join(top, ".output-arm64/pgrptrace.bpf.o")
p = run(["make", "-s", "-C", top, "ARCH=arm64", "bpf"], capture_output=True,
                   text=True, timeout=600)
t.eq((p.returncode, p.stderr.strip()), (0, ""), "arm64: make ARCH=arm64 bpf succeeds")
with open(arm, "rb") as f:
    elf = f.read(20)
t.eq((elf[:4], int.from_bytes(elf[18:20], "little")), (b"\x7fELF", 247),
     "arm64: an eBPF ELF object (EM_BPF)")
with open(os.path.join(top, "vmlinux/arm64/vmlinux.h")) as f:
    hdr = f.read()
t.ok("__u64 regs[31];" in hdr and "orig_ax" not in hdr,
     "arm64: vmlinux/arm64/vmlinux.h describes arm64 registers")

t.done()
