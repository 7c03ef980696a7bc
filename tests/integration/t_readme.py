#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""The README's examples run, and print what the README shows (issue 31):
each block after a `<!-- example:NAME -->` marker is read against a new run
of its command by its shape (readme.py); `make readme-examples` pastes new
runs in. Also the rule file's error message the README quotes. Not in the
sanitized pass: this reads the docs, not the memory."""
import os
import re
import tempfile

import readme
from harness import PGRPTRACE, Tap, run

t = Tap()
if os.environ.get("PGT_SANITIZED") == "1":
    t.skip("README examples", "the plain pass runs them")
    t.done()

with open(readme.README) as f:
    text = f.read()
flat = re.sub(r"\s+", " ", text)
for name, (cmd, how, pick, kind) in readme.EXAMPLES.items():
    t.ok(readme.block(text, name) is not None, "README: a block of example %s" % name)
    t.ok(re.sub(r"\s+", " ", cmd) in flat, "README: says the command of example %s" % name, cmd)

try:
    got = readme.outputs(list(readme.EXAMPLES), text)
except RuntimeError as e:
    t.ok(False, "README examples: all ran", str(e)[-3000:])
    got = {}
for name, (lines, skipped) in got.items():
    kind = readme.EXAMPLES[name][3]
    if skipped:
        t.skip("example %s: shaped as the README shows" % name, skipped)
        continue
    was = readme.shape(kind, readme.block(text, name) or [])
    now = readme.shape(kind, lines)
    if not t.eq({"only in the run": sorted(now - was), "only in the README": sorted(was - now)},
                {"only in the run": [], "only in the README": []},
                "example %s: shaped as the README shows (%s; make readme-examples renews it)"
                % (name, kind)):
        t.diag("the run printed:\n" + "\n".join(lines[:60]))

# The README quotes the message of a rule file with a misspelt key.
m = re.search(r"\(`(pgrptrace: expected\.rules:[^`]*)`,\s+exit status (\d)\)", text)
t.ok(m, "README: quotes the message of a bad rule file")
if m:
    want, status = re.sub(r"\s+", " ", m.group(1)), int(m.group(2))
    rules = "\n".join(readme.block(text, "expected-rules") or []) + "\n"
    with tempfile.TemporaryDirectory(prefix="pgt-readme-") as d:
        with open(os.path.join(d, "expected.rules"), "w") as f:
            f.write(rules.replace("executable =", "executabel =", 1))
        r = run([PGRPTRACE, "--escapes", "--expected", "expected.rules", "-d", "5"], cwd=d)
        r2 = run([PGRPTRACE, "--escapes", "--expected", "expected.rules", "--", "true"], cwd=d)
    t.eq((r.returncode, r.stderr.strip()), (status, want),
         "a misspelt key in a rule file: the README's message and exit status")
    t.eq((r2.returncode, r2.stderr.strip()), (125, want),
         "and with a command: 125, as the README says a failure of pgrptrace's is")

t.done()
