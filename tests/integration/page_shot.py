#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""`make screenshot`: the README's picture of an --html page, from a real
recording: the terminal login of logout_cases.py (jobs of every kind, then
its terminal goes away), drawn with --login, the cursor where all its jobs
ran, by headless chromium, into docs/html-page.png. Root, after make."""
import json
import os
import subprocess
import sys
import tempfile

import harness

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(harness.TOP, "docs", "html-page.png")


def main():
    harness.become_subreaper()
    d = tempfile.mkdtemp(prefix="pgt-shot-")
    rec, page, facts = (os.path.join(d, n) for n in ("login.rec", "login.html", "facts"))
    env = dict(os.environ, PGT_FACTS=facts)
    subprocess.run([harness.PGRPTRACE, "--record", rec, "-o", os.devnull, "--",
                    sys.executable, os.path.join(HERE, "logout_cases.py")],
                   env=env, check=True, timeout=180)
    login = [json.loads(ln) for ln in open(facts) if '"what": "login"' in ln][0]
    subprocess.run([harness.PGRPTRACE, "--replay", rec, "--html", page, "--login",
                    str(login["pid"])], check=True, timeout=120)
    start = int(open(page).read().split('"start_real_ns":"', 1)[1].split('"', 1)[0])
    url = "file://%s#t=%d" % (page, (login["real_ns"] - start) // 1000)
    subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu",
                    "--hide-scrollbars", "--user-data-dir=" + os.path.join(d, "chromium"),
                    "--virtual-time-budget=10000", "--window-size=1400,620",
                    "--screenshot=" + OUT, url], check=True, timeout=120,
                   stderr=subprocess.DEVNULL)
    subprocess.run(["rm", "-rf", d])
    print("screenshot: %s" % os.path.relpath(OUT, harness.TOP))


if __name__ == "__main__":
    main()
