#!/usr/bin/env python3
"""Checks `gestell diff --format=html` in a real browser (headless Chromium).

Makes the report of a three-state diff of tests/fixtures/sm100-attn-tmem
(baseline, regressed, fixed = the equivalent-layout build), loads it with
`chromium --headless --dump-dom`, and fails unless:
  - Chromium exits 0 and logs no console message (a script error, or a
    Content-Security-Policy violation: any attempt to load something from
    outside the file);
  - the page's script ran (body data-rendered="true") and counted the charts;
  - the DOM holds one svg.family-chart per stage and scope (PTX and SASS, in
    loops and total), each with a bar (rect.bar with data-family,
    data-state and data-value) for every family and state, and every bar's
    value equals the count in `gestell diff --format=json` of the same
    states.

Exit 0: passed; 1: failed; 77: skipped because no chromium is installed
(ctest SKIP_RETURN_CODE; CI installs it through tools/deps.sh).

Usage: check_html_report.py --gestell BIN --fixtures DIR --workdir DIR
"""
import argparse
import html.parser
import json
import os
import shutil
import subprocess
import sys
import tempfile


class DomBars(html.parser.HTMLParser):
    """Collects the chart svgs and their bars from the dumped DOM."""

    def __init__(self):
        super().__init__()
        self.body = {}
        self.charts = []  # (attrs, [bar attrs])

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "body":
            self.body = a
        elif tag == "svg" and "family-chart" in a.get("class", "").split():
            self.charts.append((a, []))
        elif tag == "rect" and a.get("class") == "bar" and self.charts:
            self.charts[-1][1].append(a)


def fail(msg):
    print(f"check_html_report: FAIL: {msg}")
    sys.exit(1)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--gestell", required=True)
    p.add_argument("--fixtures", required=True)
    p.add_argument("--workdir", required=True)
    args = p.parse_args()

    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if not browser:
        print("check_html_report: SKIPPED: no chromium on PATH "
              "(Debian: apt-get install chromium; tools/deps.sh installs it)")
        sys.exit(77)

    os.makedirs(args.workdir, exist_ok=True)
    fx = os.path.join(args.fixtures, "sm100-attn-tmem")
    states = [os.path.join(fx, s) for s in ("baseline", "regressed", "equivalent")]
    labels = ["--label=baseline", "--label=regressed", "--label=fixed"]
    report = os.path.join(args.workdir, "diff.html")
    for fmt, out in (("html", report), ("json", report + ".json")):
        r = subprocess.run([args.gestell, "diff", f"--format={fmt}", "-o", out,
                            *labels, *states])
        if r.returncode != 0:
            fail(f"gestell diff --format={fmt} exited {r.returncode}")
    with open(report + ".json") as f:
        expected = json.load(f)

    with tempfile.TemporaryDirectory() as profile:
        env = dict(os.environ, HOME=profile)
        try:
            r = subprocess.run(
                [browser, "--headless", "--no-sandbox", "--disable-gpu",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-extensions",
                 f"--user-data-dir={profile}", "--enable-logging=stderr",
                 "--v=0", "--dump-dom", "file://" + os.path.abspath(report)],
                capture_output=True, text=True, timeout=180, env=env)
        except subprocess.TimeoutExpired:
            fail("chromium did not finish in 180 s")
    if r.returncode != 0:
        fail(f"chromium exited {r.returncode}:\n{r.stderr[-2000:]}")
    console = [l for l in r.stderr.splitlines() if ":CONSOLE" in l]
    if console:
        fail("the page logged to the console:\n" + "\n".join(console))

    dom = DomBars()
    dom.feed(r.stdout)
    if dom.body.get("data-rendered") != "true":
        fail(f"the page's script did not run (body attributes {dom.body})")
    if dom.body.get("data-charts") != str(len(dom.charts)):
        fail(f"script counted {dom.body.get('data-charts')} charts, "
             f"the DOM holds {len(dom.charts)}")

    kernel = expected["kernels"][0]
    seen = set()
    bars = 0
    for attrs, rects in dom.charts:
        stage, scope = attrs.get("data-stage"), attrs.get("data-scope")
        if attrs.get("data-kernel") != kernel["name"]:
            fail(f"chart for kernel {attrs.get('data-kernel')}")
        seen.add((stage, scope))
        families = kernel["counts"][stage]["families"]
        want = {}
        for fam, counts in families.items():
            if fam == "instructions":
                continue
            values = counts[scope]
            if any(values):
                for label, v in zip(("baseline", "regressed", "fixed"), values):
                    want[(fam, label)] = v
        got = {(b["data-family"], b["data-state"]): int(b["data-value"])
               for b in rects}
        if got != want:
            fail(f"{stage} {scope} chart bars {sorted(got.items())} != "
                 f"report counts {sorted(want.items())}")
        bars += len(rects)
    need = {(s, c) for s in ("ptx", "sass") for c in ("loop", "total")}
    if seen != need:
        fail(f"charts for {sorted(seen)}, expected {sorted(need)}")
    if dom.body.get("data-bars") != str(bars):
        fail(f"script counted {dom.body.get('data-bars')} bars, DOM {bars}")
    print(f"check_html_report: ok: {len(dom.charts)} charts, {bars} bars, "
          "no console messages")


if __name__ == "__main__":
    main()
