# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Elastic's own ECS field definitions (the @elastic/ecs package on npm, its
ecs_flat), fetched by npm as the machine configures it, pinned by
integrity, cached; and a check of --ecs documents against them: every field
outside "pgrptrace" exists, with a compatible JSON type, an array where ECS
says array (t_ecs.py, t_escapes.py's ssh login)."""
import base64
import hashlib
import io
import os
import re
import subprocess
import tarfile
import tempfile

# The ECS releases --ecs writes: 9.4 (ecs.version 9.4.0) by default, 8.11
# with --ecs-version 8.11 (ecs.version 8.11.0).
PACKAGES = {
    "9.4": ("@elastic/ecs@9.4.0", "elastic-ecs-9.4.0.tgz",
            "sha512-znk6Jr38KNRsyUKstormNX4QKtqnwQY1EWqrMCWIg/nY6dC1imSxzrdR6xuljxnY6JHj+/9NdTiRo"
            "hVbeUEA/Q=="),
    "8.11": ("@elastic/ecs@8.11.5", "ecs-8.11.5.tgz",
             "sha512-S7qkIaRrKHyiU6ww0r5qt8mOh8wK8w3LpNdMb0qxuj6wxQmn6TVpZ9DxxICGVKwaPbQIYuNTm"
             "BPSUocl+VhINw=="),
}
CACHE = os.environ.get("PGRPTRACE_ECS_CACHE", "/var/cache/pgrptrace-ecs")


def package(version):
    """The package's bytes, from the cache or `npm pack`, checked."""
    name, tarball, integrity = PACKAGES[version]
    path = os.path.join(CACHE, tarball)
    if os.path.exists(path):
        data = open(path, "rb").read()
    else:
        with tempfile.TemporaryDirectory(prefix="pgt-ecs-") as d:
            p = subprocess.run(["npm", "pack", "--silent", "--pack-destination", d, name],
                               cwd=d, capture_output=True, text=True, timeout=300)
            got = [f for f in os.listdir(d) if f.endswith(".tgz")]
            if p.returncode or len(got) != 1:
                raise RuntimeError("npm pack %s: %s" % (name, p.stderr.strip()[-300:]))
            data = open(os.path.join(d, got[0]), "rb").read()
    digest = "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()
    if digest != integrity:
        raise RuntimeError("%s: integrity %s, expected %s" % (name, digest, integrity))
    if not os.path.exists(path):
        os.makedirs(CACHE, exist_ok=True)
        with open(path + ".tmp", "wb") as f:
            f.write(data)
        os.rename(path + ".tmp", path)
    return data


def fields(version):
    """{flat name: (type, is an array)} from the package's ecs_flat.ts."""
    with tarfile.open(fileobj=io.BytesIO(package(version))) as tar:
        src = tar.extractfile("package/generated/ecs_flat.ts").read().decode()
    out = {}
    for m in re.finditer(r"^  '([^']+)': \{\n(.*?)^  \},", src, re.M | re.S):
        body = m.group(2)
        ty = re.search(r"^    type: '(\w+)',", body, re.M)
        norm = re.search(r"^    normalize: \[([^\]]*)\]", body, re.M)
        out[m.group(1)] = (ty.group(1) if ty else None,
                           bool(norm and "array" in norm.group(1)))
    return out


# The JSON types each ECS type takes.
COMPATIBLE = {
    "keyword": (str,), "constant_keyword": (str,), "wildcard": (str,),
    "match_only_text": (str,), "text": (str,), "date": (str,), "ip": (str,),
    "long": (int,), "integer": (int,), "short": (int,), "byte": (int,),
    "unsigned_long": (int,), "float": (int, float), "scaled_float": (int, float),
    "boolean": (bool,), "object": (dict,), "flattened": (dict,), "nested": (list,),
}


def leaves(doc, prefix=""):
    """(flat name, value) of every leaf, arrays kept whole."""
    for k, v in doc.items():
        name = prefix + k
        if isinstance(v, dict) and v:
            yield from leaves(v, name + ".")
        else:
            yield name, v


def check(docs, known):
    """({unknown field: a value}, {field of a bad type: (type, array, value)})."""
    unknown, badtype = {}, {}
    for d in docs:
        for name, v in leaves({k: v for k, v in d.items() if k != "pgrptrace"}):
            if name not in known:
                unknown.setdefault(name, v)
                continue
            ty, array = known[name]
            vals = v if isinstance(v, list) else [v]
            ok = (isinstance(v, list) == array or not isinstance(v, list)) and all(
                isinstance(x, COMPATIBLE.get(ty, ())) and not (isinstance(x, bool) and
                                                              ty not in ("boolean",))
                for x in vals)
            if not ok:
                badtype.setdefault(name, (ty, array, v))
    return unknown, badtype
