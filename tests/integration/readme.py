# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""The README's examples: each output block after a `<!-- example:NAME -->`
marker is what the command EXAMPLES names printed in a real run.

t_readme.py runs every example and reads the output against the README's
block by its shape (the text's header, event kinds and the first word of
their details; the JSON's keys; the tree's kinds of line; --check's
sections), so that a change of output that leaves the README behind fails.
`make readme-examples` (this file with --write) runs them and pastes the
new outputs in. Run as root from the top of the tree, after make."""
import json
import os
import re
import shutil
import sys
import tempfile

import harness

README = os.path.join(harness.TOP, "README.md")


def block(text, name):
    """The lines of the block after the marker of @name, or None."""
    m = re.search(r"<!-- example:%s -->\n```\n(.*?)^```$" % re.escape(name), text, re.S | re.M)
    return m.group(1).splitlines() if m else None


def replace_block(text, name, lines):
    return re.sub(r"(<!-- example:%s -->\n```\n)(.*?)(^```$)" % re.escape(name),
                  lambda m: m.group(1) + "".join(ln + "\n" for ln in lines) + m.group(3),
                  text, flags=re.S | re.M)


def real(cmd):
    """A command as the README shows it, as this run runs it: our binary."""
    return (cmd.replace("sudo -E ", "").replace("sudo ", "")
            .replace("$PWD/pgrptrace", harness.PGRPTRACE)
            .replace("./pgrptrace", harness.PGRPTRACE))


# The test runs each command in a box of the harness (a cgroup of its own,
# emptied at the end); `make readme-examples` runs them as a person would,
# so that the cgroups in the pasted records are not the harness's.
BOXED = True


def shell(cmd, cwd=harness.TOP, timeout=harness.TIMEOUT):
    if not BOXED:
        return harness.subprocess.run(["sh", "-c", real(cmd)], cwd=cwd, timeout=timeout,
                                      capture_output=True, text=True, start_new_session=True,
                                      errors="surrogateescape")
    r = harness.run(["sh", "-c", real(cmd)], cwd=cwd, timeout=timeout)
    if r.timed_out or r.hung:
        raise RuntimeError("%s: did not end (%s)" % (cmd, r.hung or "timed out"))
    return r


# ---- Picking what the README shows ----

TEXT_LINE = re.compile(r"^\d\d:\d\d:\d\d\.\d{3} (\w+)\s")
DETAILS = 83        # where DETAILS starts in a text line (COMM at 66)


def text_lines(out):
    return [ln for ln in out.splitlines() if ln.startswith("TIME ") or TEXT_LINE.match(ln)]


def event_of(line):
    m = TEXT_LINE.match(line)
    return m.group(1) if m else None


def pick_pty(out):
    """The pty session's records without fork, exec, SIGCHLD and the exits of
    the snapshots that drew its trees."""
    keep = []
    for ln in text_lines(out):
        ev = event_of(ln)
        if ev in ("fork", "exec") or (ev == "signal" and " SIGCHLD " in ln):
            continue
        if ev == "exit" and ln[66:83].strip() == "pgrptrace":
            continue
        keep.append(ln)
    return keep


def pick_setsid_exec(out):
    """The setsid record and the exec that follows it in the same process,
    as written."""
    lines = json_lines(out)
    recs = [json.loads(ln) for ln in lines]
    for i, r in enumerate(recs):
        if r["event"] == "setsid":
            pid = r["process"]["pid"]
            nxt = next((k for k in range(i + 1, len(recs)) if recs[k]["event"] == "exec" and
                        recs[k]["process"]["pid"] == pid), None)
            if nxt is not None:
                return [lines[i], lines[nxt]]
    raise RuntimeError("no setsid record followed by an exec of the same process:\n" + out)


def json_lines(out):
    return [ln for ln in out.splitlines() if ln.startswith("{")]


def tree_lines(out):
    return [ln for ln in out.splitlines() if TREE_LINE.match(ln)]


# ---- Running the examples that need more than one command ----

def run_snapshot():
    """A job-control shell on a pty; its tree drawn once all its jobs run."""
    cmd = "script -qfc \"bash -i -c 'sleep 30 & (sleep 30 | cat) & setsid sleep 30 & sleep 31'\" /dev/null"
    p = harness.Proc(["sh", "-c", cmd], what="script", stdin=harness.subprocess.PIPE)
    try:
        def jobs():
            names = [n for n in (_comm(pid) for pid in p.box.pids()) if n]
            return names.count("sleep") >= 4 and "cat" in names
        harness.wait_until(jobs, "the interactive shell's jobs to run")
        script = next(pid for pid in p.box.pids() if _comm(pid) == "script")
        return shell("./pgrptrace --snapshot -p %d" % script).stdout
    finally:
        p.box.kill()
        p.finish(10)


def _comm(pid):
    try:
        with open("/proc/%d/comm" % pid) as f:
            return f.read().strip()
    except OSError:
        return None


def run_tree_live():
    """A tree already drawn sees a double fork: the tracer's first drawing
    in a file, then (setsid sleep 3 &)."""
    d = tempfile.mkdtemp(prefix="pgt-readme-")
    try:
        out = os.path.join(d, "tree")
        shell("./pgrptrace --tree -i 0.5 -d 2.5 -p $$ > %s & "
              "until [ -s %s ]; do sleep 0.05; done; (setsid sleep 3 &); wait" % (out, out))
        with open(out) as f:
            return f.read()
    finally:
        shutil.rmtree(d)


def run_expected(rules):
    d = tempfile.mkdtemp(prefix="pgt-readme-")
    try:
        with open(os.path.join(d, "expected.rules"), "w") as f:
            f.write(rules)
        return shell(EXPECTED_CMD, cwd=d).stdout
    finally:
        shutil.rmtree(d)


def pick_killed(out):
    """The exits of processes a signal killed, with the header."""
    return [ln for ln in text_lines(out) if ln.startswith("TIME ") or
            (event_of(ln) == "exit" and " killed by " in ln)]


WHY_RECORD = ("sudo ./pgrptrace --record why.rec -- "
              "sh -c 'sleep 30 & sleep 0.2; kill -TERM $!; wait'")
EXPLAIN_CMD = "./pgrptrace --replay why.rec --explain <pid of the sleep>"


def run_explain():
    """A recording in which a sleep is killed, and its story told from it."""
    d = tempfile.mkdtemp(prefix="pgt-readme-")
    try:
        shell(WHY_RECORD, cwd=d)
        recs = [json.loads(ln) for ln in json_lines(
            shell("./pgrptrace --replay why.rec --json", cwd=d).stdout)]
        pid = next(r["process"]["pid"] for r in recs if r["event"] == "exit" and
                   r["process"]["comm"] == "sleep" and r["exit"]["signal"] == "SIGTERM")
        return shell(EXPLAIN_CMD.replace("<pid of the sleep>", str(pid)), cwd=d).stdout
    finally:
        shutil.rmtree(d)


AT_RECORD = ("sudo ./pgrptrace --record day.rec -o /dev/null -- sh -c "
             "'sleep 2 & setsid sleep 3 & (sleep 4 &); sleep 0.5; kill $!; sleep 0.5'")
AT_CMDS = ("./pgrptrace --replay day.rec --at +0.3s --comm sleep",
           "./pgrptrace --replay day.rec --diff +0.3s +0.8s")


def run_at():
    """A recording, the tree at a moment of it, and what changed until another."""
    d = tempfile.mkdtemp(prefix="pgt-readme-")
    try:
        shell(AT_RECORD, cwd=d)
        out = []
        for cmd in AT_CMDS:
            r = shell(cmd, cwd=d)
            if r.returncode:
                raise RuntimeError("%s: %s" % (cmd, r.stderr[-300:]))
            out += ["$ " + cmd] + r.stdout.rstrip("\n").splitlines()
        return "\n".join(out) + "\n"
    finally:
        shutil.rmtree(d)


# The script waits for the login's report in the tracer's -o file.
LOGOUT_CMD = ("rm -f /tmp/logout.txt; sudo ./pgrptrace --event logout -o /tmp/logout.txt -- "
              "env PGT_TRACER_OUT=/tmp/logout.txt python3 tests/integration/logout_cases.py "
              "fate-text; cat /tmp/logout.txt")


def pick_logout(out):
    """The login's logout block: its line, and one line per process."""
    lines = []
    for ln in out.splitlines():
        if not lines and re.match(r"^\S+ logout +\d+ .* login on pts/0 ", ln):
            lines.append(ln)
        elif lines and ln.startswith("    "):
            lines.append(ln)
        elif lines:
            break
    return lines


def pick_fate(out):
    """--fate's answer: the question, then a line per process."""
    lines, keep = [], False
    for ln in out.splitlines():
        if ln.startswith("$ pgrptrace --fate"):
            keep = True
        elif keep and not (ln.startswith("if ") or ln.startswith("  ")):
            keep = False
        if keep:
            lines.append(ln)
    return lines


PTY_CMD = ("PGT_SHOW_TREE=$PWD/pgrptrace sudo -E ./pgrptrace -- "
           "/usr/bin/python3 tests/integration/pty_session.py")
WHY_CMD = ("sudo ./pgrptrace -- sh -c 'sleep 30 & sleep 0.1; kill -TERM $!; yes | head -1 >/dev/null; "
           "timeout 0.2 sleep 5; python3 -c \"import os; os.abort()\"; wait'")
EXPECTED_CMD = ("sudo ./pgrptrace --escapes --expected expected.rules -- "
                "sh -c 'setsid -f sleep 5; sleep 0.3'")

# name: (the command as the README shows it, how to get its output, what of
# it the README shows, its shape). Examples that share a run name it.
EXAMPLES = {
    "text": ("./pgrptrace -- sh -c 'setsid sh -c \"exit 3\" & wait'", None,
             text_lines, "text"),
    "json": ("./pgrptrace --json -- sh -c 'setsid sh -c \"exit 3\" & wait'", None,
             pick_setsid_exec, "json"),
    "snapshot": ("sudo ./pgrptrace --snapshot -p <pid of script>", run_snapshot,
                 tree_lines, "tree"),
    "tree-live": ("pgrptrace --tree -i 0.5 -d 2.5 -p $$", run_tree_live, None, "tree"),
    "pty": (PTY_CMD, None, pick_pty, "text"),
    "pty-trees": (PTY_CMD, "pty", None, "tree"),
    "nohup": ("sudo ./pgrptrace --escapes -- python3 tests/integration/pty_session.py nohup",
              None, text_lines, "text"),
    "ssh": ("sudo ./pgrptrace --escapes -- tests/integration/ssh_login.py", None,
            text_lines, "text"),
    "escapes-json": ("--escapes --json -- sh -c 'setsid -f sleep 5; sleep 0.3'", None,
                     json_lines, "json"),
    "expected": (EXPECTED_CMD, "expected-rules", text_lines, "text"),
    "check": ("sudo ./pgrptrace --check", None, None, "check"),
    "why": (WHY_CMD, None, pick_killed, "text"),
    "explain": (EXPLAIN_CMD, run_explain, None, "explain"),
    "logout": (LOGOUT_CMD, None, pick_logout, "logout"),
    "fate": (LOGOUT_CMD, "logout-run", pick_fate, "fate"),
    "at": (AT_RECORD, run_at, None, "at"),
}


def outputs(names, readme_text):
    """Run the examples @names; {name: (lines, None) or (None, why skipped)}."""
    runs, got = {}, {}
    for name in names:
        cmd, how, pick, _ = EXAMPLES[name]
        if how == "pty":                        # the trees of the pty run
            r = runs.get("pty") or shell(PTY_CMD)
            runs["pty"] = r
            out = "".join(ln + "\n" for ln in r.stderr.splitlines()
                          if ln.startswith("--- ") or TREE_LINE.match(ln))
        elif how == "logout-run":              # --fate, asked in the logout run
            r = runs.get("logout") or shell(LOGOUT_CMD)
            runs["logout"] = r
            out = r.stdout
        elif how == "expected-rules":
            out = run_expected("\n".join(block(readme_text, "expected-rules")) + "\n")
        elif callable(how):
            out = how()
        else:
            full = cmd if "pgrptrace" in cmd.split(" --")[0] else "./pgrptrace " + cmd
            r = shell(full)
            runs[name] = r
            if r.returncode == 77:          # ssh_login.py: no sshd here
                got[name] = (None, r.stderr.strip()[-200:])
                continue
            out = r.stdout
        if name == "check":
            got[name] = (["$ " + cmd] + out.rstrip("\n").splitlines(), None)
            continue
        if name == "pty-trees":
            got[name] = (out.rstrip("\n").splitlines(), None)
            continue
        lines = pick(out) if pick else out.splitlines()
        if not [ln for ln in lines if ln.strip()]:
            raise RuntimeError("%s: printed nothing the README shows:\n%s" % (name, out[-2000:]))
        got[name] = (lines, None)
    return got


# ---- Shapes ----

TREE_LINE = re.compile(r"^(--- .*|session \d+ .*|[|`\- ]*group \d+( \+)?|[|`\- ]*\d+ \S.*|)$")


def shape(kind, lines):
    """What must stay the same between the README's block and a new run."""
    if kind == "text":
        out = set()
        for ln in lines:
            if ln.startswith("TIME "):
                out.add(("header", ln.rstrip()))
                continue
            ev = event_of(ln)
            if not ev:
                out.add(("not a record line", ln))
                continue
            word = (ln[DETAILS:].split() or [""])[0]
            out.add((ev, re.sub(r"\d+", "N", word)))
        return out
    if kind == "json":
        out = set()
        for ln in lines:
            try:
                r = json.loads(ln)
            except ValueError:
                out.add(("not JSON", ln[:80]))
                continue
            ev = r.get("event")
            out |= {(ev, k) for k in r}
            out |= {(ev, "process." + k) for k in (r.get("process") or {})}
        return out
    if kind == "tree":
        out = set()
        for ln in lines:
            if not TREE_LINE.match(ln):
                out.add(("not a tree line", ln))
            elif ln.startswith("--- "):
                out.add(("label", ln))
            elif ln.startswith("session "):
                out.add(("session",))
            elif re.match(r"^[|`\- ]*group \d+", ln):
                out.add(("group", "+" if ln.endswith("+") else ""))
            elif ln:
                out.add(("process",))
        return out
    if kind == "explain":
        # The story's first line (the process), then a labelled line each.
        out = {("first", bool(lines and re.match(r"^\S+ \d+, entity [0-9a-f]{16}, uid \d+",
                                                 lines[0])))}
        out |= {("label", ln.split()[0]) for ln in lines[1:] if re.match(r"^  \S", ln)}
        return out
    if kind == "logout":
        out = {("head", bool(lines and re.match(r"^\S+ logout +\d+ .* terminal login on \S+ "
                                                r"ended after .*: \d+ process", lines[0])))}
        # The stopped job dies of bash's SIGTERM or of the orphaned group's
        # SIGHUP, whichever comes first: a death either way.
        out |= {("fate", "died" if ln.split()[0] in ("hung_up", "killed") else ln.split()[0])
                for ln in lines[1:]}
        return out
    if kind == "fate":
        out = {("command", bool(lines and lines[0].startswith("$ pgrptrace --fate hangup:")))}
        out |= {("question", bool(len(lines) > 1 and lines[1].startswith("if ") and
                                  " hangs up (session " in lines[1]))}
        out |= {("line", ln.split()[0], ln.split()[3].rstrip(":")) for ln in lines[2:]
                if len(ln.split()) > 3}
        return out
    if kind == "at":
        # Each command, the tree's lines as a tree, then --diff's span and its changes.
        out = set()
        for ln in lines:
            if ln.startswith("$ "):
                out.add(("command", ln))
            elif ln.startswith("from ") and " changes" in ln:
                out.add(("span",))
            elif re.match(r"^  \S+ ", ln):
                out.add(("change", ln.split()[0]))
            elif TREE_LINE.match(ln):
                out.add(("tree",))
            else:
                out.add(("other", ln))
        return out
    if kind == "check":
        out = set()
        for ln in lines:
            if ln.startswith("$ "):
                out.add(("command", ln))
            elif ln and not ln.startswith(" "):
                out.add(("section", re.split(r"\s{2,}|:", ln)[0].split(" can ")[0]))
            elif re.match(r"^  \S", ln) and not re.match(r"^  \S+\s{2,}", ln):
                out.add(("event", ln.strip()))
        return out
    raise ValueError(kind)


def main():
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: readme.py --write (as root, from the top of the tree, after make)")
    global BOXED
    BOXED = False
    harness.become_subreaper()
    harness.exit_on_signals()
    with open(README) as f:
        text = f.read()
    got = outputs(list(EXAMPLES), text)
    for name, (lines, skipped) in got.items():
        if skipped:
            print("readme: %s not run here: %s" % (name, skipped), file=sys.stderr)
            continue
        if block(text, name) is None:
            sys.exit("readme: README.md has no <!-- example:%s --> block" % name)
        text = replace_block(text, name, lines)
        print("readme: %s: %d lines" % (name, len(lines)))
    with open(README, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
