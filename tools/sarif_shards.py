#!/usr/bin/env python3
"""`gestell check --shard=I/N`: the shards' SARIF merged is the whole run's.

For each scenario (the corpus with every shipped and test check; with
--baseline, where kernels match across builds, or match none), runs
`gestell check --format=sarif` unsharded and with --shard=1/N .. N/N, then:
  - every shard's SARIF, and the merged one, is valid alone: the SARIF 2.1.0
    schema (ajv, as tests/sarif/validate.sh) and `sarif-multitool validate`;
  - the shards' kernel counts add up to the unsharded run's, and the worst
    shard exit status is the unsharded one;
  - `sarif-multitool merge` of the shard files (runs of one tool merge into
    one run; --merge-empty-logs keeps a shard without results) gives one
    run whose results equal the unsharded results as a multiset of (ruleId,
    level, message text, locations, related locations, partialFingerprints,
    baselineState), each ruleIndex naming its rule.

Exit 0 when all hold, 1 otherwise, 77 (skipped) when the multitool is not
installed (tools/deps.sh runs npm ci in tests/sarif).
Usage: sarif_shards.py --gestell BIN --test-plugins DIR --root SRC [--shards N]
"""
import argparse
import collections
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

ENV = dict(os.environ, DOTNET_SYSTEM_GLOBALIZATION_INVARIANT="1",
           DOTNET_CLI_TELEMETRY_OPTOUT="1")


def result_key(r, rules):
    """The result as code scanning reads it. The level is the effective one:
    the merge leaves out a level equal to the rule's default."""
    msg = r.get("message", {}).get("text")
    level = r.get("level")
    if level is None and r.get("ruleIndex", -1) in range(len(rules)):
        level = rules[r["ruleIndex"]].get("defaultConfiguration", {}).get(
            "level")
    return json.dumps([r.get("ruleId"), level or "warning", msg,
                       r.get("locations"), r.get("relatedLocations"),
                       r.get("partialFingerprints"), r.get("baselineState")],
                      sort_keys=True)


def results(doc):
    return [r for run in doc["runs"] for r in run.get("results", [])]


def result_keys(doc):
    return collections.Counter(
        result_key(r, run.get("tool", {}).get("driver", {}).get("rules", []))
        for run in doc["runs"] for r in run.get("results", []))


class Tools:
    def __init__(self, sarif_dir):
        bin_dir = os.path.join(sarif_dir, "node_modules", ".bin")
        self.multitool = os.path.join(bin_dir, "sarif-multitool")
        self.ajv = os.path.join(bin_dir, "ajv")
        self.sarif_dir = sarif_dir
        found = glob.glob(os.path.join(sarif_dir, "node_modules", "@microsoft",
                                       "**", "sarif-schema-2.1.0.json"),
                          recursive=True) + glob.glob(
            os.path.join(sarif_dir, "node_modules", "@microsoft", "**",
                         "sarif-2.1.0.json"), recursive=True)
        self.schema = found[0] if found else None

    def present(self):
        return os.access(self.multitool, os.X_OK)

    def validate(self, path, work):
        """Failures of one SARIF file against the schema and the multitool."""
        failures = []
        if self.schema and os.access(self.ajv, os.X_OK):
            data = path + ".json"  # ajv-cli reads data by extension
            with open(path) as src, open(data, "w") as dst:
                dst.write(src.read())
            r = subprocess.run([self.ajv, "validate", "--spec=draft2020", "-c",
                                "ajv-formats", "--strict=false", "-s",
                                self.schema, "-d", data, "--errors=text"],
                               cwd=self.sarif_dir, capture_output=True,
                               text=True, env=ENV)
            if r.returncode != 0:
                failures.append(f"{path}: not valid against the SARIF 2.1.0 "
                                f"schema:\n{r.stdout}{r.stderr}")
        else:
            failures.append("ajv or the SARIF 2.1.0 schema is missing in "
                            "tests/sarif/node_modules")
        out = path + ".validation.sarif"
        r = subprocess.run([self.multitool, "validate", path, "-o", out,
                            "--log", "ForceOverwrite"], capture_output=True,
                           text=True, env=ENV)
        try:
            doc = json.load(open(out))
        except (OSError, ValueError) as e:
            return failures + [f"{path}: sarif-multitool validate wrote no "
                               f"readable output ({e}):\n{r.stdout}{r.stderr}"]
        for run in doc.get("runs", []):
            rules = run.get("tool", {}).get("driver", {}).get("rules", [])
            for res in run.get("results", []):
                level = res.get("level")
                if level is None and res.get("ruleIndex", -1) in range(len(rules)):
                    level = rules[res["ruleIndex"]].get(
                        "defaultConfiguration", {}).get("level")
                if (level or "warning") == "error":
                    failures.append(f"{path}: sarif-multitool validate: "
                                    f"{res.get('ruleId')}: "
                                    f"{res.get('message', {}).get('text')}")
            for inv in run.get("invocations", []):
                for n in inv.get("toolExecutionNotifications", []):
                    if n.get("level") == "error":
                        failures.append(f"{path}: sarif-multitool validate: "
                                        f"{n.get('message', {}).get('text')}")
        return failures

    def merge(self, paths, work):
        r = subprocess.run([self.multitool, "merge", *paths,
                            "--merge-empty-logs", "--output-directory", work,
                            "--output-file", "merged.sarif", "--log",
                            "ForceOverwrite"], capture_output=True, text=True,
                           env=ENV)
        out = os.path.join(work, "merged.sarif")
        if r.returncode != 0 or not os.path.exists(out):
            return None, f"sarif-multitool merge failed ({r.returncode}):\n" \
                         f"{r.stdout}{r.stderr}"
        return out, None


def run_gestell(gestell, args, out):
    r = subprocess.run([gestell, "check", "--format=sarif", "-o", out, *args],
                       capture_output=True, text=True)
    m = re.search(r"gestell: (\d+) kernels? checked", r.stderr)
    return r.returncode, int(m.group(1)) if m else None, r.stderr


def scenario(tools, gestell, name, args, shards, work):
    failures = []
    os.makedirs(work)
    whole = os.path.join(work, "whole.sarif")
    status, kernels, err = run_gestell(gestell, args, whole)
    if kernels is None or status == 2:
        return [f"{name}: the unsharded run failed ({status}):\n{err}"]
    parts, statuses, counts = [], [], []
    for i in range(1, shards + 1):
        p = os.path.join(work, f"shard-{i}-of-{shards}.sarif")
        s, k, err = run_gestell(gestell, [f"--shard={i}/{shards}", *args], p)
        if k is None:
            failures.append(f"{name}: --shard={i}/{shards} failed ({s}):\n{err}")
            continue
        parts.append(p)
        statuses.append(s)
        counts.append(k)
        n = len(results(json.load(open(p))))
        print(f"{name}: shard {i}/{shards}: {k} kernels, {n} results, exit {s}")
    if failures:
        return failures
    if sum(counts) != kernels:
        failures.append(f"{name}: the shards checked {counts} kernels, "
                        f"{sum(counts)} in all; the unsharded run {kernels}")
    if max(statuses) != status:
        failures.append(f"{name}: shard exit statuses {statuses}, unsharded "
                        f"{status}")
    if sum(1 for c in counts if c) < 2:
        failures.append(f"{name}: fewer than two shards have kernels: {counts}")
    for p in parts:
        failures += tools.validate(p, work)
    merged, err = tools.merge(parts, work)
    if err:
        return failures + [f"{name}: {err}"]
    failures += tools.validate(merged, work)
    doc = json.load(open(merged))
    if len(doc.get("runs", [])) != 1:
        failures.append(f"{name}: the merge holds {len(doc.get('runs', []))} "
                        "runs, not one")
    for run in doc.get("runs", []):
        rules = run.get("tool", {}).get("driver", {}).get("rules", [])
        for r in run.get("results", []):
            i = r.get("ruleIndex")
            if i is not None and (i >= len(rules) or
                                  rules[i].get("id") != r.get("ruleId")):
                failures.append(f"{name}: merged result of {r.get('ruleId')} "
                                f"has ruleIndex {i}, naming another rule")
    want = result_keys(json.load(open(whole)))
    got = result_keys(doc)
    states = collections.Counter(json.loads(k)[-1] for k in want.elements())
    shown = ", ".join(f"{n} {s}" for s, n in sorted(states.items()) if s)
    print(f"{name}: unsharded {sum(want.values())} results"
          f"{' (' + shown + ')' if shown else ''}, merged "
          f"{sum(got.values())}")
    if want != got:
        for k in sorted((want - got).keys())[:5]:
            failures.append(f"{name}: only unsharded: {k}")
        for k in sorted((got - want).keys())[:5]:
            failures.append(f"{name}: only merged: {k}")
        if not failures:
            failures.append(f"{name}: results differ")
    if not want:
        failures.append(f"{name}: the unsharded run has no result to compare")
    return failures


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gestell", required=True)
    ap.add_argument("--test-plugins", required=True)
    ap.add_argument("--root", required=True)
    ap.add_argument("--shards", type=int, default=3)
    a = ap.parse_args()
    a.gestell, a.test_plugins, a.root = (os.path.abspath(x) for x in (
        a.gestell, a.test_plugins, a.root))
    tools = Tools(os.path.join(a.root, "tests", "sarif"))
    if not tools.present():
        print(f"SKIP: no {tools.multitool}: run tools/deps.sh (npm ci in "
              "tests/sarif)")
        return 77
    corpus = os.path.join(a.root, "tests", "corpus")
    tri = os.path.join(corpus, "triton-3.6.0")
    plug = a.test_plugins
    load = [f"--load={plug}/gestell-test.so",
            f"--load={plug}/gestell-test-bstate.so",
            f"--load={plug}/gestell-example.so", "--checks=*,-test-fails"]
    scenarios = [
        ("corpus", load + ["--path-map=/src=.", corpus]),
        # Kernels of the same cache in two forms: matched pairs (unchanged),
        # and current kernels that match none (new), baseline ones (absent).
        ("baseline-caches",
         load + [f"--baseline={os.path.join(tri, 'caches')}",
                 os.path.join(tri, "bundles")]),
        # Builds that share kernel names but few kernels: mostly new and
        # absent, compared by kernel name and target.
        ("baseline-realworld",
         load + [f"--baseline={os.path.join(tri, 'bundles')}",
                 os.path.join(corpus, "realworld")]),
    ]
    failures = []
    with tempfile.TemporaryDirectory(prefix="gestell-shards.") as work:
        for name, args in scenarios:
            failures += scenario(tools, a.gestell, name, args, a.shards,
                                 os.path.join(work, name))
    for f in failures:
        print("FAIL: " + f)
    if not failures:
        print(f"PASS: {a.shards} shards merged equal the unsharded run in "
              f"{len(scenarios)} scenarios, each SARIF valid")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
