#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Container context (issue 17, item 3), with a real runtime: podman from
Debian runs an image built here from busybox-static (no registry). Every
record of a process in the container names the container podman gave
(--cidfile) and the cgroup the process itself reads from /proc/self/cgroup;
podman and its monitor are in none; in ECS, container.id and
container.runtime. A container started before the tracer is known from the
snapshot.

podman runs with private storage and configuration in a temporary
directory, with the cgroupfs manager (PID 1 is not ours), no network, and
runc (crun refuses a hybrid cgroup layout whose v2 hierarchy has
controllers). Each container's command ends by itself in well under a
second, or is killed by the test, whatever happens to the test."""
import json
import os
import resource
import shutil
import subprocess
import sys
import tarfile
import tempfile

from harness import Proc, Tap, Tracer, check_nothing_left, run, run_tracer, wait_until

t = Tap()
IMAGE = "localhost/pgt-busybox"

tmp = tempfile.mkdtemp(prefix="pgt-podman-")
conf = os.path.join(tmp, "containers.conf")
storage = os.path.join(tmp, "storage.conf")
with open(storage, "w") as f:
    f.write('[storage]\ndriver = "vfs"\nrunroot = "%s/run"\ngraphroot = "%s/store"\n' %
            (tmp, tmp))
with open(conf, "w") as f:
    f.write('[engine]\ncgroup_manager = "cgroupfs"\nevents_logger = "none"\n'
            'runtime = "runc"\ntmp_dir = "%s/libpod"\n' % tmp)
env = dict(os.environ, CONTAINERS_STORAGE_CONF=storage, CONTAINERS_CONF=conf,
           TMPDIR=tmp)
# Limits no higher than ours: without CAP_SYS_RESOURCE podman's defaults fail.
nofile = min(1024, resource.getrlimit(resource.RLIMIT_NOFILE)[1])
nproc = min(4096, resource.getrlimit(resource.RLIMIT_NPROC)[1])
PODMAN = ["podman", "--runtime", "runc"]
RUN = PODMAN + ["run", "--rm", "--network", "none", "--ulimit", "nofile=%d:%d" % (nofile, nofile),
                "--ulimit", "nproc=%d:%d" % (nproc, nproc)]


def podman(*args, timeout=60):
    return run(PODMAN + list(args), capture_output=True, text=True, timeout=timeout, env=env)


def cleanup():
    podman("rm", "--force", "--all", "--time", "0")
    shutil.rmtree(tmp, ignore_errors=True)


try:
    if not t.ok(shutil.which("podman") and shutil.which("runc") and
                os.path.exists("/bin/busybox"),
                "podman, runc and busybox-static are installed (make deps-test)"):
        t.done()
    # The image: a root of busybox-static alone, imported from a tar file.
    root = os.path.join(tmp, "root.tar")
    with tarfile.open(root, "w") as tar:
        tar.add("/bin/busybox", arcname="bin/busybox")
        for name in ("sh", "cat", "sleep"):
            info = tarfile.TarInfo("bin/" + name)
            info.type, info.linkname = tarfile.SYMTYPE, "busybox"
            tar.addfile(info)
    r = podman("import", root, IMAGE)
    t.eq(r.returncode, 0, "podman import: the image is built from local files")
    # In a guest, a runtime that cannot start any container there is the
    # runtime's limit, not pgrptrace's (runc 1.1 on 5.10: "read init-p:
    # connection reset by peer"): said, and the rest skipped. On the host it
    # fails the test.
    r = run(RUN + [IMAGE, "/bin/sh", "-c", ":"], capture_output=True, text=True, timeout=120,
            env=env)
    if r.returncode != 0 and os.environ.get("PGT_GUEST"):
        t.skip("podman runs a container in this guest",
               "podman run fails here, untraced: %s" % (r.stderr.strip().splitlines() or ["?"])[-1])
        t.done()
    t.ok(r.returncode == 0, "podman run: a container runs here, untraced", r.stderr[-300:])

    # Traced from podman's start: the container's shell says where it is.
    cidfile = os.path.join(tmp, "cid")
    r = run_tracer(["--json", "--"] + RUN + ["--cidfile", cidfile, IMAGE, "/bin/sh", "-c",
                                             "cat /proc/self/cgroup; sleep 0.1"],
                   env=env, timeout=120)
    t.ok(r.rc == 0, "podman run: exits 0", (r.rc, r.err[-500:]))
    cid = open(cidfile).read().strip() if os.path.exists(cidfile) else None
    t.ok(cid and len(cid) == 64, "podman run: a container id", cid)
    # The command's stdout goes to stderr when the records go to stdout.
    v2 = [l.split("::", 1)[1] for l in r.err.splitlines() if l.startswith("0::")]
    recs = [e for e in r.events if e.get("process")]
    inside = [e for e in recs if e["process"]["comm"] in ("sh", "cat", "sleep") and
              e["event"] in ("exec", "fork", "exit")]
    t.ok(len(inside) >= 4, "podman run: records of the container's processes", len(inside))
    t.eq(sorted({json.dumps(e["process"]["container"]) for e in inside}),
         [json.dumps({"id": cid, "runtime": "podman"})],
         "podman run: each names the container podman made, runtime podman")
    moves = [e for e in r.of("cgroup") if cid and cid in e["path"]]
    if t.ok(v2, "podman run: the container read its cgroup (0:: line)", r.err[-300:]):
        # With a cgroup namespace of its own (podman's default on a pure v2
        # host, as Debian 12 and 13 boot), the process reads "/": the path
        # the host sees is the one podman moved it to.
        own = v2[0] == "/" and moves
        t.eq(sorted({(e["process"]["cgroup"] or {}).get("path") for e in inside}),
             [moves[0]["path"]] if own else v2[:1],
             "podman run: and each has the cgroup path the process read itself%s"
             % (" (from the host: it reads / in its own cgroup namespace)" if own else ""))
        t.ok(all(isinstance((e["process"]["cgroup"] or {}).get("id"), int) for e in inside),
             "podman run: and a cgroup id")
    outside = [e for e in recs if e["process"]["comm"] in ("podman", "conmon")]
    t.ok(outside, "podman run: records of podman and conmon")
    t.eq([(e["event"], e["process"]["comm"]) for e in outside if e["process"]["container"]], [],
         "podman run: podman and its monitor are in no container")
    t.ok(moves, "podman run: the move into the container's cgroup is a cgroup record")

    # ECS: container.id and container.runtime.
    r = run_tracer(["--ecs", "--"] + RUN + ["--cidfile", cidfile + "2", IMAGE, "/bin/sh", "-c",
                                            "sleep 0.1"], env=env, timeout=120)
    cid2 = open(cidfile + "2").read().strip() if os.path.exists(cidfile + "2") else None
    docs = [d for d in r.events if d.get("process", {}).get("name") == "sleep"]
    t.ok(docs, "ecs: documents of the container's sleep", r.err[-300:])
    t.eq(sorted({json.dumps(d.get("container")) for d in docs}),
         [json.dumps({"id": cid2, "runtime": "podman"})],
         "ecs: container.id and container.runtime")

    # Started before the tracer: the snapshot reads its cgroup from /proc.
    cidfile3 = cidfile + "3"
    pod = Proc(RUN + ["--cidfile", cidfile3, IMAGE, "/bin/sh", "-c", "sleep 30 & wait"],
               what="podman run (30 s)", env=env)
    pid = None
    if wait_until(lambda: os.path.exists(cidfile3) and podman(
            "inspect", "--format", "{{.State.Pid}}",
            open(cidfile3).read().strip()).stdout.strip() not in ("", "0"),
                  "the container is running", timeout=60):
        cid3 = open(cidfile3).read().strip()
        pid = podman("inspect", "--format", "{{.State.Pid}}", cid3).stdout.strip()
    if t.ok(pid and pid.isdigit(), "podman run: its shell's pid, from podman inspect", pid):
        tr = Tracer(["--json", "-p", pid], env=env)
        if tr.ready():
            podman("stop", "--time", "0", cid3)
            wait_until(lambda: not os.path.exists("/proc/" + pid), "the container's shell ends")
        rc, out, err = tr.stop()
        exits = [json.loads(l) for l in out.splitlines() if '"event":"exit"' in l]
        t.ok([e for e in exits if e["process"]["pid"] == int(pid)],
             "snapshot: the container's shell's exit is traced", err[-300:])
        t.eq([(e["process"]["comm"], (e["process"]["container"] or {}).get("id")) for e in exits],
             [(e["process"]["comm"], cid3) for e in exits],
             "snapshot: its processes, running before the tracer, name the container")
    rc, out, err = pod.finish(60)

finally:
    cleanup()
check_nothing_left(t, "podman")
t.done()
