"""Checks that tests/fixtures still show what tests/fixtures/expectations.json says.

    python3 tools/check_fixtures.py tests/fixtures
        recounts every kernel's PTX and SASS families (tools/ptx_counts.py) and
        checks each expectation; exit 1 on any failure (ctest
        fixtures.expectations).
    python3 tools/check_fixtures.py tests/fixtures --gestell build/bin/gestell
        also checks every comparison on the counts `gestell stats
        --format=json` reports (its opcode counts, total and in loops, summed
        over the opcodes each family's pattern matches): what a user sees must
        show the same differences as the independent counter; and, for every
        kernel with SASS, that gestell's SASS totals equal the independent
        recount of executed lines (ctest fixtures.expectations runs both).
    python3 tools/check_fixtures.py tests/fixtures --against /tmp/fixtures
        also compares the PTX and SASS family counts of every kernel with a
        fresh `tools/make_fixtures.py all` run: the rerun must reproduce them.
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ptx_counts import count_ptx, count_sass, PTX_PATTERNS, SASS_PATTERNS  # noqa: E402


def kernel_files(folder, ext):
    files = sorted(glob.glob(os.path.join(folder, f"*.{ext}")))
    files = [f for f in files if not f.endswith(".cuobjdump.sass")]
    if len(files) != 1:
        raise RuntimeError(f"{folder}: expected one .{ext}, found {len(files)}")
    return files[0]


def counts(folder):
    ptx = count_ptx(open(kernel_files(folder, "ptx")).read())
    sass = count_sass(open(kernel_files(folder, "sass")).read())
    return {"ptx_loop": ptx["loop"], "ptx_total": ptx["total"],
            "sass_loop": sass["loop"], "sass_total": sass["total"], "sass_instructions": sass["instructions"]}


def gestell_counts(gestell, folder):
    """The same families from `gestell stats --format=json` on the folder."""
    out = subprocess.run([gestell, "stats", "--format=json", folder],
                         capture_output=True, text=True, check=True).stdout
    kernels = json.loads(out)["kernels"]
    if len(kernels) != 1:
        raise RuntimeError(f"{folder}: gestell stats found {len(kernels)} kernels")
    k = kernels[0]
    res = {}
    for stage, patterns in (("ptx", PTX_PATTERNS), ("sass", SASS_PATTERNS)):
        ops = k[stage]["opcodes"]
        for scope, key in (("loop", "in_loops"), ("total", "total")):
            res[f"{stage}_{scope}"] = {
                fam: sum(n[key] for op, n in ops.items() if re.search(rx, op))
                for fam, rx in patterns.items()}
    return res


def recount(gestell, root):
    """gestell stats' SASS counts equal the independent counter's, kernel by
    kernel: every pattern's total, the instruction count and the lines left
    out as never executed (@!PT / @!UPT)."""
    failures, lines = [], []
    for rel, folder in sorted(kernels_under(root).items()):
        out = subprocess.run([gestell, "stats", "--format=json", "--stages=sass", folder],
                             capture_output=True, text=True, check=True).stdout
        k = json.loads(out)["kernels"][0]["sass"]
        mine = count_sass(open(kernel_files(folder, "sass")).read())
        theirs = {fam: sum(n["total"] for op, n in k["opcodes"].items() if re.search(rx, op))
                  for fam, rx in SASS_PATTERNS.items()}
        diff = [f"{fam} {mine['total'][fam]} != {theirs[fam]}" for fam in SASS_PATTERNS
                if mine["total"][fam] != theirs[fam]]
        if mine["instructions"] != k["instructions"]["total"]:
            diff.append(f"instructions {mine['instructions']} != {k['instructions']['total']}")
        if mine["never_executed"] != k["never_executed"]:
            diff.append(f"never executed {mine['never_executed']} != {k['never_executed']}")
        what = (f"{rel}: gestell stats SASS = independent recount ({mine['instructions']} "
                f"executed, {mine['never_executed']} never executed)")
        if diff:
            what += ": " + ", ".join(diff)
            failures.append(what)
        lines.append(("FAIL " if diff else "PASS ") + what)
    return failures, lines


def serialized_wgmma(sass_total):
    """Every HGMMA bracketed by WARPGROUP.ARRIVE ... WARPGROUP.DEPBAR."""
    n = sass_total["HGMMA"]
    return n > 0 and sass_total["WARPGROUP.ARRIVE"] >= n and sass_total["WARPGROUP.DEPBAR"] >= n


def check(root, gestell=None):
    exp = json.load(open(os.path.join(root, "expectations.json")))
    failures, lines = [], []

    def ok(cond, what):
        lines.append(("PASS " if cond else "FAIL ") + what)
        if not cond:
            failures.append(what)

    for c in exp["comparisons"]:
        base = os.path.join(root, c["fixture"], c["base"])
        new = os.path.join(root, c["fixture"], c["new"])
        tag = f"{c['fixture']}: {c['base']} -> {c['new']}"
        for ext in c.get("identical", []):
            a, b = kernel_files(base, ext), kernel_files(new, ext)
            ok(open(a, "rb").read() == open(b, "rb").read(), f"{tag}: .{ext} identical")
        sources = [("", counts(base), counts(new))]
        if gestell:
            sources.append(("gestell stats: ", gestell_counts(gestell, base),
                            gestell_counts(gestell, new)))
        for who, cb, cn in sources:
            for scope in ("ptx_loop", "ptx_total", "sass_loop", "sass_total"):
                for fam, rel in c.get(scope, {}).items():
                    x, y = cb[scope][fam], cn[scope][fam]
                    good = {"up": y > x, "down": y < x, "same": y == x}[rel]
                    ok(good, f"{who}{tag}: {scope} {fam} {rel} ({x} -> {y})")
    for k in exp["kernels"]:
        folder = os.path.join(root, k["path"])
        ck = counts(folder)
        for scope in ("ptx_loop", "ptx_total", "sass_loop", "sass_total"):
            for fam, rel in k.get(scope, {}).items():
                v = ck[scope][fam]
                ok({">0": v > 0, "=0": v == 0}[rel], f"{k['path']}: {scope} {fam} {rel} ({v})")
        ptxas = open(kernel_files(folder, "ptxas.txt")).read() if ("ptxas" in k or "ptxas_absent" in k) else ""
        for code in k.get("ptxas", []):
            ok(re.search(r"\(%s\)" % code, ptxas) is not None, f"{k['path']}: ptxas reports {code}")
        for code in k.get("ptxas_absent", []):
            ok(re.search(r"\(%s\)" % code, ptxas) is None, f"{k['path']}: ptxas does not report {code}")
        if "serialized_wgmma" in k:
            s = ck["sass_total"]
            ok(serialized_wgmma(s) == k["serialized_wgmma"],
               f"{k['path']}: wgmma serialized = {k['serialized_wgmma']} (HGMMA {s['HGMMA']}, "
               f"ARRIVE {s['WARPGROUP.ARRIVE']}, DEPBAR {s['WARPGROUP.DEPBAR']})")
    return failures, lines


def kernels_under(root):
    out = {}
    for ptx in glob.glob(os.path.join(root, "**", "*.ptx"), recursive=True):
        folder = os.path.dirname(ptx)
        rel = os.path.relpath(folder, root)
        if rel.startswith("conversions") or rel.startswith("_") or ".cache" in rel:
            continue
        if glob.glob(os.path.join(folder, "*.sass")):
            out[rel] = folder
    return out


def compare(root, other):
    """The rerun must give the same family counts for every committed kernel."""
    failures, lines = [], []
    mine, theirs = kernels_under(root), kernels_under(other)
    for rel, folder in sorted(mine.items()):
        if rel not in theirs:
            failures.append(f"{rel}: missing from {other}")
            lines.append("FAIL " + failures[-1])
            continue
        a, b = counts(folder), counts(theirs[rel])
        diff = [f"{scope}.{fam} {a[scope][fam]} != {b[scope][fam]}"
                for scope in ("ptx_total", "ptx_loop", "sass_total", "sass_loop") for fam in a[scope]
                if a[scope][fam] != b[scope][fam]]
        if a["sass_instructions"] != b["sass_instructions"]:
            diff.append(f"SASS instructions {a['sass_instructions']} != {b['sass_instructions']}")
        lines.append(("PASS " if not diff else "FAIL ") + f"{rel}: same counts as the rerun" +
                     ("" if not diff else ": " + "; ".join(diff)))
        if diff:
            failures.append(rel)
    return failures, lines


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("root", help="tests/fixtures")
    ap.add_argument("--against", help="output folder of a fresh tools/make_fixtures.py run")
    ap.add_argument("--gestell", help="the gestell binary: check the comparisons on its stats too")
    ap.add_argument("--recount-only", action="store_true",
                    help="only compare gestell's SASS totals with the independent recount, "
                         "for every kernel folder under ROOT (any corpus, no expectations file)")
    a = ap.parse_args()
    if a.recount_only:
        failures, lines = recount(a.gestell, a.root)
        print("\n".join(lines))
        print(f"{len(lines) - len(failures)} passed, {len(failures)} failed")
        return 1 if failures or not lines else 0
    failures, lines = check(a.root, a.gestell)
    if a.gestell:
        f2, l2 = recount(a.gestell, a.root)
        failures += f2
        lines += l2
    if a.against:
        f2, l2 = compare(a.root, a.against)
        failures += f2
        lines += l2
    print("\n".join(lines))
    print(f"{len(lines) - len(failures)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
