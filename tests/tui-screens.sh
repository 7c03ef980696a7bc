#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# The README's pictures of the full-screen tree: the screens that
# tests/integration/t_tui.py read with tmux's capture-pane, put between the
# README's <!-- screen:NAME --> markers. Run as root from the top of the tree,
# after make test-bins.
set -eu
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
PGT_TUI_SCREENS=$dir python3 tests/integration/t_tui.py >"$dir/tap" || {
	grep '^not ok' "$dir/tap" >&2
	exit 1
}
python3 - "$dir" README.md <<'PY'
import os
import re
import sys

d, readme = sys.argv[1], sys.argv[2]
text = open(readme).read()
for name in ("machine", "jobs", "escape", "pinned"):
    path = os.path.join(d, name + ".txt")
    if os.path.exists(path):
        shot = open(path).read().rstrip("\n")
        text = re.sub(r"(<!-- screen:%s -->\n```\n)(.*?)(^```$)" % name,
                      lambda m: m.group(1) + shot + "\n" + m.group(3), text,
                      flags=re.S | re.M)
with open(readme, "w") as f:
    f.write(text)
PY
