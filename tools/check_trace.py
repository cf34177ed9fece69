#!/usr/bin/env python3
"""gestell on a TritonParse trace sees what it sees on the trace unpacked.

  check_trace.py TRACE --gestell GESTELL [--keep DIR]

Unpacks TRACE with tools/unpack_trace.py into a scratch folder, then runs
`gestell stats --format=json` and `gestell check --format=json` (and
`--format=sarif`) on the trace and on the folder, and checks that:
  - both find the same kernels, in the same order (name, hash, target,
    warps, stages, the stages present);
  - every count is equal: PTX and SASS by family and opcode, in loops and
    in total, the TTGIR summary and its layout conversions;
  - the checks give the same results (check, level, message, kernel,
    fingerprint, notes), each location at the same stage line and column:
    the folder's FILE:LINE:COL is the trace's stage file, line and column;
  - no location of the trace's reports names a file that does not exist
    (the Python source lines of the debug info aside).
Exit 0 when all hold, 1 otherwise (each difference printed).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def run(gestell, *args):
    p = subprocess.run([gestell, *args], capture_output=True, text=True)
    if p.returncode not in (0, 1):
        sys.stderr.write(p.stderr)
        raise SystemExit(f"FAIL: gestell {' '.join(args)} exited {p.returncode}")
    return json.loads(p.stdout)


KERNEL_KEYS = ["name", "hash", "target", "triton_version", "num_warps",
               "num_stages", "num_ctas", "stages_present", "ptx", "sass",
               "conversions", "ttgir"]


def place(loc):
    """(stage, file name, line, column) of a JSON location, the same for a
    file and for a stage of a trace."""
    if loc is None:
        return None
    if "stageFile" in loc:
        return (loc.get("stage"), loc["stageFile"], loc.get("stageLine"),
                loc.get("stageColumn"))
    if loc.get("stage") is None:  # Python source: as it is
        return (None, loc["file"], loc.get("line"), loc.get("column"))
    return (loc.get("stage"), os.path.basename(loc["file"]), loc.get("line"),
            loc.get("column"))


def result_key(r):
    return {
        "checkId": r["checkId"], "level": r["level"], "message": r["message"],
        "kernel": r["kernel"], "target": r["target"],
        "fingerprint": r["fingerprint"], "location": place(r["location"]),
        "source": place(r.get("source")),
        "related": [place(l) for l in r["related"]],
        "notes": [(n["message"], place(n.get("location"))) for n in r["notes"]],
        "hint": r.get("hint"),
    }


def missing_paths(doc, sarif):
    """Files the trace's report names that do not exist."""
    bad = []

    def walk(node):
        if isinstance(node, dict):
            for k, v in node.items():
                if sarif and k == "uri" and v.startswith("file://"):
                    path = v[len("file://"):]
                    if not path.endswith(".py") and not os.path.exists(path):
                        bad.append(path)
                elif not sarif and k == "file" and isinstance(v, str):
                    if not v.endswith(".py") and not os.path.exists(v):
                        bad.append(v)
                else:
                    walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(doc)
    return bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("trace")
    ap.add_argument("--gestell", required=True)
    ap.add_argument("--keep", help="unpack here and leave it")
    a = ap.parse_args()
    trace = os.path.abspath(a.trace)
    scratch = a.keep or tempfile.mkdtemp(prefix="gestell-trace-")
    failures = []
    try:
        folder = os.path.join(scratch, "unpacked")
        shutil.rmtree(folder, ignore_errors=True)
        subprocess.run([sys.executable, os.path.join(HERE, "unpack_trace.py"),
                        trace, folder], check=True, stdout=subprocess.DEVNULL)

        st, sf = run(a.gestell, "stats", "--format=json", trace), \
            run(a.gestell, "stats", "--format=json", folder)
        kt, kf = st["kernels"], sf["kernels"]
        if not kt:
            failures.append("no kernel in the trace")
        if [k["name"] for k in kt] != [k["name"] for k in kf]:
            failures.append(f"kernels differ: trace {[k['name'] for k in kt]}, "
                            f"folder {[k['name'] for k in kf]}")
        for t, f in zip(kt, kf):
            for key in KERNEL_KEYS:
                if t.get(key) != f.get(key):
                    failures.append(f"kernel {t['name']}: stats '{key}' differs:"
                                    f"\n  trace  {json.dumps(t.get(key))[:300]}"
                                    f"\n  folder {json.dumps(f.get(key))[:300]}")
        counted = sum(1 for k in kt if k.get("ptx")) + \
            sum(1 for k in kt if k.get("ttgir"))
        if not counted:
            failures.append("the trace's kernels have no PTX or TTGIR counts")

        ct, cf = run(a.gestell, "check", "--format=json", trace), \
            run(a.gestell, "check", "--format=json", folder)
        if ct["kernelsChecked"] != cf["kernelsChecked"]:
            failures.append(f"kernels checked: trace {ct['kernelsChecked']}, "
                            f"folder {cf['kernelsChecked']}")
        rt = [result_key(r) for r in ct["results"]]
        rf = [result_key(r) for r in cf["results"]]
        if rt != rf:
            for i, (x, y) in enumerate(zip(rt, rf)):
                if x != y:
                    failures.append(f"result {i} differs:\n  trace  {x}\n  folder {y}")
                    break
            if len(rt) != len(rf):
                failures.append(f"{len(rt)} results on the trace, {len(rf)} on the folder")

        for doc, sarif in ((ct, False), (st, False),
                           (run(a.gestell, "check", "--format=sarif", trace), True)):
            for p in missing_paths(doc, sarif):
                failures.append(f"a report names a path that does not exist: {p}")

        print(f"{os.path.basename(trace)}: {len(kt)} kernels, "
              f"{len(rt)} results, stats and check equal to the unpacked folder"
              if not failures else "")
    finally:
        if not a.keep:
            shutil.rmtree(scratch, ignore_errors=True)
    for f in failures:
        print("FAIL: " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
