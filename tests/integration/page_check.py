# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""--html (issue 35): a real login's recording as a page, opened by Debian's
chromium in headless mode. The DOM after the page's script ran must hold one
lane per process of the login (as the records name its members), its
escapes marked with their kinds, its signals with their recipients, and the
tree at a chosen moment equal to --at's; the hostile job's name (markup, a
newline, an escape sequence, invalid UTF-8) shows as text and runs nothing.
A screenshot goes to .output/ for a person to look at. Called by t_logout,
on the host (not in the emulated guests: the page is user space alone)."""
import datetime
import html.parser
import json
import os
import shutil

from harness import PGRPTRACE, Proc

HERE = os.path.dirname(os.path.abspath(__file__))
SHOT = os.path.join(HERE, "..", "..", ".output", "html-page.png")


class Dom(html.parser.HTMLParser):
    """The elements of interest of a dumped DOM, with their attributes and text."""

    def __init__(self):
        super().__init__()
        self.tags, self.stack, self.text = [], [], {}

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        a["_tag"] = tag
        self.tags.append(a)
        if tag not in ("br", "meta", "input", "img"):
            self.stack.append(a)

    def handle_endtag(self, tag):
        if self.stack:
            self.stack.pop()

    def handle_data(self, data):
        if self.stack:
            self.stack[-1]["_text"] = self.stack[-1].get("_text", "") + data

    def cls(self, name):
        return [a for a in self.tags if name in (a.get("class") or "").split()]


def rfc3339(ns):
    d = datetime.datetime.fromtimestamp(ns // 10**9, datetime.timezone.utc)
    return d.strftime("%Y-%m-%dT%H:%M:%S") + ".%09dZ" % (ns % 10**9)


def to_ns(rfc):
    """A record's "time" (RFC 3339, UTC, nanoseconds) in ns since the epoch."""
    whole, frac = rfc.rstrip("Z").split(".")
    d = datetime.datetime.strptime(whole, "%Y-%m-%dT%H:%M:%S").replace(
        tzinfo=datetime.timezone.utc)
    return int(d.timestamp()) * 10**9 + int(frac.ljust(9, "0"))


def chromium(args):
    exe = shutil.which("chromium")
    return Proc([exe, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                 "--user-data-dir=/tmp/pgt-chromium-%d" % os.getpid()] + args,
                what="chromium " + args[-1][:60])


def login_members(events, leader):
    """The processes (pid, entity id) whose last record that names a login names the
    one led by @leader (a tmux pane's shell starts a login of its own)."""
    last = {}
    for e in events:
        for k in ("process", "child", "target"):
            p = e.get(k)
            if isinstance(p, dict) and p.get("entry_leader"):
                last[(p["pid"], p["entity_id"])] = p["entry_leader"]["pid"]
    return {k for k, v in last.items() if v == leader}


def check(t, rec, login, events):
    page = rec + ".html"
    rc, out, err = Proc([PGRPTRACE, "--replay", rec, "--html", page, "--login",
                         str(login["pid"])], what="--html").finish(120)
    if not t.ok(rc == 0 and os.path.exists(page), "--html: the login's page written",
                err[-300:]):
        return
    rc, out, err = Proc([PGRPTRACE, "--replay", rec, "--html", page + ".none", "--login",
                         "4194303"], what="--html --login nobody").finish(60)
    t.ok(rc == 1 and "no such login" in err and not os.path.exists(page + ".none"),
         "--html --login of no login: said, exit 1, no page", (rc, err[-200:]))
    data = open(page, encoding="utf-8", errors="replace").read()
    start = int(data.split('"start_real_ns":"', 1)[1].split('"', 1)[0])
    us = (login["real_ns"] - start) // 1000
    url = "file://%s#t=%d" % (page, us)
    rc, dump, err = chromium(["--virtual-time-budget=10000", "--dump-dom", url]).finish(120)
    dom = Dom()
    dom.feed(dump)
    body = [a for a in dom.tags if a["_tag"] == "body"]
    if not t.ok(rc == 0 and body and body[0].get("data-ready") == "1",
                "chromium ran the page's script to its end", err[-300:]):
        return
    lanes = {(int(a["data-pid"]), a["data-eid"]) for a in dom.cls("lane")}
    want = login_members(events, login["pid"])
    t.eq(sorted(lanes), sorted(want), "one lane per process of the login, as its records name "
         "them")
    pids = {p for p, _ in lanes}
    # Marks sit in their process's lane: which lane, from the document order.
    owner, cur = [], None
    for a in dom.tags:
        if "lane" in (a.get("class") or "").split():
            cur = int(a["data-pid"])
        elif "mark" in (a.get("class") or "").split():
            owner.append((cur, a))
    esc = sorted({(pid, a.get("data-esc")) for pid, a in owner if a.get("data-kind") == "escape"})
    want_esc = sorted({(e["process"]["pid"], e["kind"]) for e in events
                       if e.get("event") == "escape" and e["process"]["pid"] in pids})
    t.eq(esc, want_esc, "each escape of the login's processes marked on its lane, with its kind")
    sigs = sorted(sorted(int(p) for p in a.get("data-rcpt", "").split())
                  for _, a in owner if a.get("data-kind") == "signal")
    want_sig = []
    for e in events:
        if e.get("event") != "signal":
            continue
        rcpt = sorted({r["pid"] for r in e.get("recipients", []) if r["pid"] in pids})
        if rcpt or (e.get("process") or {}).get("pid") in pids:
            want_sig.append(rcpt)
    t.eq(sigs, sorted(want_sig), "each signal that reached or came from the login marked, "
         "with its recipients")
    t.ok(want_esc and want_sig, "the login had escapes and signals to mark", (want_esc, want_sig))
    # The tree at the cursor (the moment the jobs all ran) is --at's.
    tree = {int(a["data-pid"]): [int(a["data-ppid"]), int(a["data-pgid"]), int(a["data-sid"])]
            for a in dom.cls("tproc")}
    rc, out, err = Proc([PGRPTRACE, "--replay", rec, "--at", rfc3339(login["real_ns"]),
                         "--json"], what="--at the page's moment").finish(60)
    at = {}
    for s in json.loads(out)["sessions"] if rc == 0 else []:
        for g in s["groups"]:
            for p in g["processes"]:
                if not p["zombie"] and p["pid"] in pids:
                    at[p["pid"]] = [p["ppid"], g["pgid"], s["sid"]]
    t.ok(tree and tree == at, "the page's tree at a chosen moment is --at's: pids, parents, "
         "groups, sessions", {"page": tree, "--at": at})
    fg = {int(a["data-pgid"]) for a in dom.cls("tgroup") if a.get("data-fg") == "1"}
    t.ok(len(fg) <= 1, "at most one foreground group in the login's session", fg)
    # Names are text: no element of theirs, no script of theirs ran.
    title = [a.get("_text") for a in dom.tags if a["_tag"] == "title"]
    scripts = [a for a in dom.tags if a["_tag"] == "script"]
    t.ok(title == ["pgrptrace"] and len(scripts) == 2 and
         not [a for a in dom.tags if a["_tag"] == "img"],
         "hostile names: no element or script of theirs in the page", (title, len(scripts)))
    labels = [a.get("title", "") for a in dom.cls("label")]
    t.ok(any("<script>document.title=1</script>" in x and "\\x0a" in x for x in labels),
         "hostile names: the markup, the newline (as \\x0a) shown as text",
         [x for x in labels if "script" in x][:2])
    # A span (--from): the page starts with the tree at its moment, and has
    # a lane for each process alive then or born after.
    span = rec + ".span.html"
    rc, out, err = Proc([PGRPTRACE, "--replay", rec, "--html", span, "--login",
                         str(login["pid"]), "--from", rfc3339(login["real_ns"])],
                        what="--html --from").finish(120)
    dom2 = Dom()
    if rc == 0:
        rc, dump, err = chromium(["--virtual-time-budget=10000", "--dump-dom",
                                  "file://%s#t=0" % span]).finish(120)
        dom2.feed(dump)
    tree0 = {int(a["data-pid"]): [int(a["data-ppid"]), int(a["data-pgid"]),
                                  int(a["data-sid"])] for a in dom2.cls("tproc")}
    later = {e["child"]["pid"] for e in events if e.get("event") == "fork" and
             e["child"]["pid"] in pids and to_ns(e["time"]) > login["real_ns"]}
    lanes2 = {int(a["data-pid"]) for a in dom2.cls("lane")}
    t.ok(rc == 0 and tree0 == at and lanes2 == set(at) | later,
         "--html --from: the page starts with --at's tree then, a lane for each process "
         "alive then or born after", {"tree": tree0, "lanes": sorted(lanes2),
                                      "want": sorted(set(at) | later)})
    if os.path.exists(span):
        os.unlink(span)
    # Live: the page of a run, written at its end, with what its command started.
    live = rec + ".live.html"
    rc, out, err = Proc([PGRPTRACE, "--html", live, "--", "sh", "-c",
                         "setsid true; (true &); wait"], what="--html live").finish(60)
    text = open(live, errors="replace").read() if os.path.exists(live) else ""
    t.ok(rc == 0 and text.count('{"p":') >= 3 and '"setsid"' in text and not out,
         "--html live: the page of the run, written at its end, no records printed",
         (rc, err[-300:]))
    if os.path.exists(live):
        os.unlink(live)
    os.makedirs(os.path.dirname(SHOT), exist_ok=True)
    rc, out, err = chromium(["--virtual-time-budget=10000", "--window-size=1400,900",
                             "--screenshot=" + os.path.abspath(SHOT), url]).finish(120)
    t.ok(rc == 0 and os.path.getsize(SHOT) > 10000, "a screenshot of the page: %s" %
         os.path.relpath(SHOT), err[-200:])
    if not os.environ.get("PGT_KEEP_PAGE"):
        os.unlink(page)
    shutil.rmtree("/tmp/pgt-chromium-%d" % os.getpid(), ignore_errors=True)
