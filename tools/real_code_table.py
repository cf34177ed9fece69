#!/usr/bin/env python3
"""The "On real code" table of a check's doc page: every finding of the check
on real Triton output, each with its verdict and the evidence from the
artifact.

    tools/real_code_table.py --check ID [--root DIR] [--min-level warning] PATH...

Runs `gestell check --checks='-*,ID' --format=json` over the paths and prints
one Markdown row per finding (kernel, finding, verdict, evidence). The
evidence is independent of gestell's own reading:
  - spills: `ptxas -v` of the kernel's PTX (tests/corpus/realworld/ptxas-v.json,
    or a `.ptxas.txt` beside the PTX): true when ptxas reports spill bytes;
  - wgmma serialization: ptxas's C7510-C7518 message for the kernel;
  - occupancy: the CUDA driver's answer on an H200
    (tests/fixtures/occupancy/driver-sm90.json: whether it let the function
    raise its dynamic shared memory to what the .json asks); for a target
    with no driver row (sm_100, compiled only), the .json's `shared` against
    the opt-in maximum per block that NVIDIA documents for it;
  - layout conversions: the conversion's row of
    tests/fixtures/conversions/ground_truth.json (its cost read from the PTX
    the real compiler made for it).
A finding without evidence says so ("no evidence": triage it by hand).
"""
import argparse
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import conversion_ground_truth as cgt  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def ptxas_evidence():
    """kernel folder (absolute) -> parsed ptxas -v facts."""
    out = {}
    p = os.path.join(ROOT, "tests", "corpus", "realworld", "ptxas-v.json")
    for key, v in json.load(open(p))["ptxas"].items():
        # Keys name the team corpus as shared/corpus/..., tests/... in-tree.
        for base in (os.path.join(ROOT, ".."), ROOT):
            folder = os.path.abspath(os.path.join(base, os.path.dirname(key)))
            out[folder] = v
    return out


def ptxas_beside(folder):
    for f in sorted(os.listdir(folder)):
        if f.endswith(".ptxas.txt"):
            t = open(os.path.join(folder, f)).read()
            m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", t)
            e = {"messages": [l.strip() for l in t.splitlines() if re.search(r"warning|\(C\d{4}\)", l)]}
            if m:
                e.update(stack_frame=int(m.group(1)), spill_stores=int(m.group(2)),
                         spill_loads=int(m.group(3)))
            return e
    return None


def conversion_rows():
    p = os.path.join(ROOT, "tests", "fixtures", "conversions", "ground_truth.json")
    return {r["id"]: r for r in json.load(open(p))}


def verdict(check, r, folder, ptxas, rows):
    ev = ptxas.get(folder) or ptxas_beside(folder)
    if check == "nvidia-register-spill":
        if not ev or "spill_stores" not in ev:
            return "no evidence", "no ptxas -v for this kernel"
        n = ev["spill_stores"]
        return ("true" if n else "FALSE"), (
            f"ptxas -v: {ev['stack_frame']}-byte frame, {n} bytes spill stores, "
            f"{ev['spill_loads']} bytes spill loads")
    if check == "nvidia-ptx-intent-lost-in-sass":
        codes = [re.search(r"\((C75\d\d)\)", m).group(1) for m in (ev or {}).get("messages", [])
                 if re.search(r"\(C751\d\)", m)]
        if "wgmma" in r["message"] and "serialized" in r["message"]:
            return ("true" if codes else "FALSE"), (
                "ptxas -v: " + ", ".join(codes) if codes else "ptxas -v: no C751x message")
        return "no evidence", "triage by hand"
    if check == "nvidia-occupancy":
        return occupancy_verdict(r, folder)
    return conversion_verdict(r, rows)


# The most shared memory one block may ask for (cudaDevAttrMax
# SharedMemoryPerBlockOptin), CUDA C++ Programming Guide, per capability.
OPTIN_MAX = {"8.0": 166912, "8.6": 101376, "8.9": 101376, "9.0": 232448,
             "10.0": 232448, "10.3": 232448, "12.0": 101376}


def occupancy_verdict(r, folder):
    p = os.path.join(ROOT, "tests", "fixtures", "occupancy", "driver-sm90.json")
    kernel_dir = os.path.relpath(folder, os.path.join(ROOT, ".."))
    for row in json.load(open(p))["rows"]:
        o = row["origin"].replace("shared:", "shared/corpus/")
        if os.path.dirname(o).endswith(kernel_dir.split("corpus/", 1)[-1]) and row["name"] == r["kernel"]:
            ok = row["launchable"]
            return ("FALSE" if ok else "true"), (
                f"CUDA driver (H200): {'accepted' if ok else 'refused'} {row['dynamic_shared']} bytes of "
                f"dynamic shared memory")
    meta = os.path.join(folder, r["kernel"] + ".json")
    m = re.search(r"compute capability (\d+\.\d+)", r["message"])
    if not os.path.exists(meta) or not m or m.group(1) not in OPTIN_MAX:
        return "no evidence", "no driver row and no .json"
    shared = json.load(open(meta)).get("shared", 0)
    limit = OPTIN_MAX[m.group(1)]
    return ("true" if shared > limit else "FALSE"), (
        f".json shared {shared} > {limit}, the opt-in maximum per block on {m.group(1)} (no driver run: compiled only)"
        if shared > limit else f".json shared {shared} fits {limit}")


def conversion_verdict(r, rows):
    """A conversion finding against the ground-truth row of its own op: the
    cost the real compiler's PTX shows for that (layouts, shape, module)."""
    loc = r["location"]
    row = None
    if loc.get("file", "").endswith(".ttgir"):
        for c in cgt.extract_file(loc["file"], lines=True):
            if c["line"] == loc.get("line"):
                c.pop("line")
                row = rows.get(cgt.row_id(c))
    if not row:
        return "no evidence", "no ground-truth row for this conversion"
    delta = {k: row["ptx_counts"][k] - row["control_ptx_counts"].get(k, 0) for k in row["ptx_counts"]}
    moved = ", ".join(f"{v} {k}" for k, v in sorted(delta.items()) if v) or "no shared-memory access or shuffle"
    evidence = f"ground truth `{row['id']}`: {row['cost']} ({moved})"
    text = r["message"]
    if "equivalent layouts" in text:
        claimed = "registers"
    elif "shared memory" in text:
        claimed = "shared"
    elif "shuffle" in text:
        claimed = "shuffle"
    else:
        return "no evidence", evidence
    return ("true" if row["cost"] == claimed else "FALSE"), evidence


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", required=True)
    ap.add_argument("--gestell", default=os.path.join(ROOT, "build", "bin", "gestell"))
    ap.add_argument("--root", default="", help="show kernel folders relative to this")
    ap.add_argument("--min-level", default="warning", choices=["remark", "warning"])
    ap.add_argument("paths", nargs="+")
    a = ap.parse_args()
    out = subprocess.run([a.gestell, "check", f"--checks=-*,{a.check}", "--format=json", *a.paths],
                         capture_output=True, text=True)
    if out.returncode not in (0, 1):
        sys.exit(out.stderr)
    d = json.loads(out.stdout)
    ptxas, rows = ptxas_evidence(), conversion_rows()
    levels = {"remark": 0, "warning": 1, "error": 2}
    print("| kernel | finding | verdict | evidence |")
    print("| --- | --- | --- | --- |")
    n = true = 0
    for r in d["results"]:
        if levels[r["level"]] < levels[a.min_level]:
            continue
        folder = os.path.abspath(os.path.dirname(r["location"]["file"]))
        rel = os.path.relpath(folder, a.root) if a.root else folder
        job = rel.split("/triton-cache/")[0]
        v, e = verdict(a.check, r, folder, ptxas, rows)
        n += 1
        true += v == "true"
        msg = r["message"].split(":")[0]
        print(f"| {job} `{r['kernel']}` | {r['level']} at line {r['location'].get('line')}: {msg} | {v} | {e} |")
    print(f"\n{n} findings at {a.min_level} level or above, {true} true.")


if __name__ == "__main__":
    main()
