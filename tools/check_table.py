#!/usr/bin/env python3
"""What checks report on every kernel of a corpus, as a Markdown table.

Runs `gestell stats --format=json --stages=ttgir` (the kernels, their layout
conversions) and `gestell check --format=json` (the findings) over the same
paths and prints one row per kernel, quiet kernels included, so that a doc
page can say what a check does on a whole corpus:

    tools/check_table.py --checks='-*,triton-*' --root "$CORPUS" \
        "$CORPUS/bundles" "$CORPUS/caches"

A finding is shown as `line:col level id (kind)`, kind being the first part
of its fingerprint context (for triton-redundant-layout-conversion:
tmem-store, round-trip, detour or equivalent). Use --summary for one line
per folder argument instead (kernels, findings by level). --messages shows
each finding as `level: message` and leaves out the TTGIR columns (checks
of PTX, SASS and cubins); --config passes a config file to `gestell check`
(check options such as a ptxas to re-run).
"""
import argparse
import collections
import json
import os
import subprocess
import sys


def run_json(cmd):
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode not in (0, 1):
        sys.exit(f"{' '.join(cmd)} failed ({out.returncode}):\n{out.stderr}")
    return json.loads(out.stdout)


def short_id(check_id, checks):
    # "triton-redundant-layout-conversion" -> "redundant" when one module.
    parts = check_id.split("-")
    return parts[1] if len({c.split("-")[0] for c in checks}) == 1 else check_id


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--gestell", default=os.path.join(here, "..", "build", "bin", "gestell"))
    ap.add_argument("--checks", default="*")
    ap.add_argument("--root", default="", help="show kernel folders relative to this")
    ap.add_argument("--summary", action="store_true")
    ap.add_argument("--messages", action="store_true",
                    help="findings as 'level: message', no TTGIR columns")
    ap.add_argument("--config", help="config file for gestell check")
    a = ap.parse_args()

    stats = run_json([a.gestell, "stats", "--format=json",
                      "--stages=" + ("ptx" if a.messages else "ttgir"), *a.paths])
    config = [f"--config={a.config}"] if a.config else []
    check = run_json([a.gestell, "check", "--format=json", f"--checks={a.checks}",
                      *config, *a.paths])
    checks = [c["id"] for c in check["checks"]]
    by_dir = collections.defaultdict(list)
    for r in check["results"]:
        by_dir[os.path.dirname(r["location"]["file"])].append(r)

    def rel(p):
        return os.path.relpath(p, a.root) if a.root else p

    if a.summary:
        print("| folder | kernels | warnings | remarks |")
        print("| --- | --- | --- | --- |")
        for p in a.paths:
            p = os.path.abspath(p)
            ks = [k for k in stats["kernels"] if (k["dir"] + "/").startswith(p + "/")]
            rs = [r for k in ks for r in by_dir.get(k["dir"], [])]
            n = collections.Counter(r["level"] for r in rs)
            print(f"| `{rel(p)}` | {len(ks)} | {n['warning']} | {n['remark']} |")
        return

    if a.messages:
        print("| kernel folder | kernel | target | findings |")
        print("| --- | --- | --- | --- |")
        for k in sorted(stats["kernels"], key=lambda k: k["dir"]):
            rs = sorted(by_dir.get(k["dir"], []), key=lambda r: r["checkId"])
            found = "; ".join(f"{r['level']}: {r['message']}" for r in rs)
            print(f"| `{rel(k['dir'])}` | {k['name']} | {k['target'] or ''} | "
                  f"{found.replace('|', '/') or '—'} |")
        return

    print("| kernel folder | kernel | target | warps | conversions (in loop, shared) | findings |")
    print("| --- | --- | --- | --- | --- | --- |")
    for k in sorted(stats["kernels"], key=lambda k: k["dir"]):
        convs = k.get("conversions") or []
        in_loop = sum(1 for c in convs if c["in_loop"])
        shared = sum(1 for c in convs if c["cost"] == "shared")
        found = []
        for r in sorted(by_dir.get(k["dir"], []),
                        key=lambda r: (r["location"]["line"], r["location"]["column"], r["checkId"])):
            kind = r["context"][0] if r.get("context") else ""
            loc = f"{r['location']['line']}:{r['location']['column']}"
            found.append(f"{loc} {r['level']} {short_id(r['checkId'], checks)}"
                         + (f" ({kind})" if kind else ""))
        print(f"| `{rel(k['dir'])}` | {k['name']} | {k['target'] or ''} | {k['num_warps'] or ''} | "
              f"{len(convs)} ({in_loop}, {shared}) | {'; '.join(found) or '—'} |")


if __name__ == "__main__":
    main()
