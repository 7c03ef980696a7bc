#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""--tree on a terminal (issue 19): the full-screen view, in real terminals.

A tmux server of the test's own (-L, in the foreground, in the test's box)
runs three panes at 80x24: "work", a bash with job control (the login whose
jobs are watched); "view", `pgrptrace --tree --tty` on work's tty, started
from a shell; and "machine", `pgrptrace --tree` on the whole machine.
capture-pane reads what each screen shows:

- the whole machine: kernel threads hidden (the title counts them, `k` shows
  them), and the work login on the first screen;
- the jobs: a background sleep, a foreground one that holds the `+`, ^Z
  making it `T` and giving the `+` back to the shell, `bg` running it again;
- `setsid -f sleep 91`: marked with the login it left, on the machine's view,
  and listed under "left this login:" on the tty's, also after the logout;
- resized to 60x20 with 15 more jobs and the cursor at the end, the session's
  header stays pinned at the top;
- `q` gives the terminal back: the shell's screen from before is there again.

The screens are kept in $PGT_TUI_SCREENS (a directory) when it is set: the
README's pictures come from there (tests/tui-screens.sh)."""
import os
import re
import shutil
import tempfile

from harness import PGRPTRACE, Proc, Tap, check_nothing_left, run, wait_until

t = Tap()
SOCK = "pgt-tui-%d" % os.getpid()
tmp = tempfile.mkdtemp(prefix="pgt-tui-")
conf = os.path.join(tmp, "tmux.conf")
with open(conf, "w") as f:
    f.write("set -g default-terminal tmux-256color\n"
            "set -g status off\n"
            "set -g history-limit 2000\n")
ENV = ["env", "-i", "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
       "HOME=/root", "LANG=C.UTF-8", "TERM=tmux-256color", "PS1=$ "]
SCREENS = os.environ.get("PGT_TUI_SCREENS")


def tmux(*args, check=True):
    return run(["tmux", "-u", "-L", SOCK, "-f", conf] + [str(a) for a in args], timeout=30,
               check=check)


def screen(target):
    return tmux("capture-pane", "-p", "-t", target, check=False).stdout


def keep(name, target):
    if SCREENS:
        os.makedirs(SCREENS, exist_ok=True)
        with open(os.path.join(SCREENS, name + ".txt"), "w") as f:
            f.write(screen(target))


def shows(target, pattern, what, timeout=60):
    """Wait until @target's screen matches @pattern; the match, or None."""
    found = wait_until(lambda: re.search(pattern, screen(target), re.M), what, timeout)
    if not found:
        t.diag("%s: the screen was:\n%s" % (what, screen(target)))
    return found


def send(target, *keys):
    tmux("send-keys", "-t", target, *keys)


server = None
try:
    # The server daemonizes; it stays in this Proc's box until the end. The
    # first session is the login: a bash with job control.
    server = Proc(["tmux", "-u", "-L", SOCK, "-f", conf, "new-session", "-d", "-s", "work",
                   "-x", 80, "-y", 24] + ENV + ["bash", "--norc", "--noprofile", "-i"],
                  what="tmux server")
    if not t.eq(server.p.wait(30), 0, "a tmux server of the test's own"):
        t.done()
    pty = tmux("display", "-p", "-t", "work", "#{pane_tty}").stdout.strip()
    shell = int(tmux("display", "-p", "-t", "work", "#{pane_pid}").stdout.strip() or 0)
    tty = pty[len("/dev/"):] if pty.startswith("/dev/") else pty
    t.ok(tty.startswith("pts/") and shell, "work: a bash on %s" % tty, (pty, shell))
    # The views: one from a shell (to see the terminal given back), one on its own.
    tmux("new-session", "-d", "-s", "view", "-x", 80, "-y", 24, *ENV, "bash", "--norc",
         "--noprofile", "-i")
    send("view", "echo BEFORE-TUI; %s --tree --tty %s" % (PGRPTRACE, tty), "Enter")
    tmux("new-session", "-d", "-s", "machine", "-x", 80, "-y", 24, *ENV, PGRPTRACE, "--tree")
    HELP = r"q quit .* / find .* k kernel"
    t.ok(shows("view", HELP, "view: full screen") and shows("machine", HELP, "machine: up"),
         "both views are up, with the keys on a help line")

    # The whole machine: kernel threads hidden, the login on the first screen.
    t.ok(shows("machine", r"^ pgrptrace .* \(\d+ kernel threads hidden\)", "title"),
         "machine: the title counts the kernel threads it hides")
    t.ok(not re.search(r"kthreadd|kworker|ksoftirqd", screen("machine")),
         "machine: no kernel thread is shown", screen("machine"))
    t.ok(shows("machine", r"^. session %d  %s  leader %d bash" % (shell, tty, shell),
               "machine: the work login"),
         "machine: the login is on the first screen (logins come first)")
    send("machine", "k")
    t.ok(wait_until(lambda: "kernel threads hidden" not in screen("machine"), "machine: k", 30),
         "machine: k shows the kernel threads", screen("machine"))
    send("machine", "k")
    t.ok(shows("machine", r"\(\d+ kernel threads hidden\)", "machine: k again", 30),
         "machine: k again hides them")

    # Jobs: one in the background, one in the foreground with the +.
    send("work", "sleep 120 &", "Enter")
    t.ok(shows("view", r"group (\d+)  \1 [SR] sleep 120$", "view: the background job"),
         "a job of one process is one line, with its state and arguments")
    send("work", "sleep 90", "Enter")
    t.ok(shows("view", r"group (\d+) \+  \1 [SR] sleep 90", "view: the foreground job"),
         "the foreground job has the +")
    t.ok(not re.search(r"group %d \+" % shell, screen("view")),
         "and the shell's group does not", screen("view"))
    keep("jobs", "view")
    shows("machine", r"sleep 90", "machine: the jobs")
    keep("machine", "machine")
    send("work", "C-z")
    t.ok(shows("view", r"group (\d+)  \1 T sleep 90", "view: ^Z"),
         "^Z: the stopped job shows T")
    t.ok(shows("view", r"group %d \+  %d Ss bash" % (shell, shell), "view: + back"),
         "the + moves back to the shell")
    send("work", "bg", "Enter")
    t.ok(shows("view", r"group (\d+)  \1 [SR] sleep 90", "view: bg"),
         "bg: the job runs again (its state back)")

    # An escape: a new session, away from the login.
    send("work", "setsid -f sleep 91", "Enter")
    mark = shows("machine", r"\d+ Ss sleep 91 .*\u2691 (setsid|daemonize) from login %d %s"
                 % (shell, tty), "machine: the escape marked")
    t.ok(mark, "machine: the escaped process is marked with the login it left")
    keep("escape", "machine")
    # Keys on the machine's view: e, / with Enter, c.
    send("machine", "e")
    t.ok(shows("machine", r"^ pgrptrace .*escapes only", "machine: e") and
         wait_until(lambda: "sleep 120" not in screen("machine") and
                    "sleep 91" in screen("machine"), "machine: e shows escapes", 30),
         "e: only escaped processes (sleep 91, not the jobs)", screen("machine"))
    send("machine", "e")
    shows("machine", r"sleep 120", "machine: e again")
    send("machine", "/", "sleep 91", "Enter")
    send("machine", "Enter")
    sess = mark.group(0).split()[0] if mark else "?"
    t.ok(shows("machine", r"^\u25b8 session %s  no tty  leader %s sleep" % (sess, sess),
               "machine: / and Enter") and "sleep 91 " not in screen("machine"),
         "/ finds sleep 91, Enter folds its session to one line", screen("machine"))
    send("machine", "Enter")
    shows("machine", r"sleep 91 ", "machine: unfolded again")
    t.ok(shows("view", r"^left this login: \d+ sleep \((setsid|daemonize), session \d+\)",
               "view: footer"),
         "view: the tty's view lists it under \"left this login:\"")
    t.ok(shows("view", r"^\d\d:\d\d:\d\d escape .*(setsid|daemonize)", "view: the event pane"),
         "view: the latest events show the escape")

    # Resized, and longer than the screen: the session's header stays pinned.
    send("work", "for i in $(seq 15); do sleep 300 & done", "Enter")
    # The shell, sleep 120, sleep 90 and the 15: all in the view's count.
    t.ok(shows("view", r"^ pgrptrace .*  1[78] processes", "view: the jobs"), "15 more jobs")
    tmux("resize-window", "-t", "view", "-x", 60, "-y", 20)
    send("view", "End")
    pinned = r"\A[^\n]*\n. session %d  %s" % (shell, tty)
    first = r"group %d( \+)?  %d Ss bash" % (shell, shell)
    t.ok(shows("view", pinned, "view: pinned header") and
         len(screen("view").rstrip("\n").split("\n")) == 20 and
         re.search(r"sleep 300\s*$", screen("view"), re.M) and
         not re.search(first, screen("view")),
         "60x20, scrolled to the end of a long session: its header is still the first line",
         screen("view"))
    keep("pinned", "view")

    # The logout: the escape is still listed, as left from that login.
    def work_gone():
        return "work:" not in tmux("list-sessions", check=False).stdout
    send("work", "exit", "Enter")
    t.ok(wait_until(work_gone, "work: logged out", 30), "work: the login ends")
    t.ok(shows("view", r"^left this login: \d+ sleep \((setsid|daemonize)",
               "view: after logout"),
         "after the logout, \"left this login:\" still lists the escape")

    # q: the terminal as it was.
    send("view", "q")
    back = wait_until(lambda: "BEFORE-TUI" in screen("view") and
                      "q quit" not in screen("view"), "view: q", 30)
    t.ok(back, "q gives the terminal back: the shell's screen is there again", screen("view"))
    # Its exit status, and nothing said on standard error (a sanitizer's report would be).
    send("view", "echo status=$?", "Enter")
    t.ok(shows("view", r"^status=0$", "view: exit status") and
         "Sanitizer" not in screen("view") and "pgrptrace:" not in screen("view"),
         "q: exit status 0, nothing on standard error", screen("view"))
    send("machine", "q")
    t.ok(wait_until(lambda: "machine" not in tmux("list-sessions", check=False).stdout,
                    "machine: q", 30), "machine: q ends pgrptrace")
finally:
    if server:
        tmux("kill-server", check=False)
        server.finish(30)       # and whatever the server left in its box
    shutil.rmtree(tmp, ignore_errors=True)
check_nothing_left(t, "tui")
t.done()
