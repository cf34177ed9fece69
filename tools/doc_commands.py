#!/usr/bin/env python3
"""Runs every `gestell ...` command the README and docs/ show in sh blocks.

The pages show commands as a user types them (`gestell ~/.triton/cache`,
`gestell -q PATH`); this runs each one with its placeholders replaced by
bundled inputs, in a scratch folder (outputs such as `-o gestell.sarif` land
there), and fails when gestell rejects it: an unknown or misspelt option, a
verb that does not take it, or any exit status other than 0 (clean) or 1
(findings, a gate that held). Pages whose commands print what the page
shows are checked more strictly by tools/doc_examples.py; this keeps the
rest from going stale.

  doc_commands.py --gestell BIN --root SRC README.md docs/*.md

Synopsis lines (`gestell check [OPTIONS] PATH...`) are skipped, and so are
commands that need what CI does not have (CUDA's nvdisasm), each listed in
NEEDS with the reason.
"""
import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile

SH_BLOCK = re.compile(r"^```(?:sh|bash|shell)\n(.*?)^```", re.S | re.M)

# Placeholder -> bundled input (paths relative to the repository root).
CORPUS = "tests/corpus/triton-3.6.0"
FIXTURE = "tests/fixtures/sm100-attn-tmem"
PLACEHOLDERS = [
    ("~/.triton/cache", f"{CORPUS}/caches/sm90"),
    ("build/triton-dump", f"{CORPUS}/bundles/sm90"),
    ("./logs/dedicated_log_triton_trace_*.ndjson",
     "tests/corpus/tritonparse/findhao/logs"),
    ("parsed_output/trace_mapped.ndjson.gz",
     "tests/corpus/tritonparse/findhao/parsed_output"),
    ("./tritonparse_output/", "tests/corpus/tritonparse/sm90/logs"),
    ("trace.ndjson.gz", "tests/corpus/tritonparse/sm90/logs"),
    ("baseline-cache/", f"{FIXTURE}/baseline"),
    ('"$TRITON_CACHE_DIR"', f"{FIXTURE}/regressed"),
    ("baseline/", f"{FIXTURE}/baseline"),
    ("regressed/", f"{FIXTURE}/regressed"),
]
# Placeholders for files the command writes: into the scratch folder.
OUTPUTS = [('"$GITHUB_STEP_SUMMARY"', "step-summary.md")]
WORDS = {
    "PATH": f"{CORPUS}/bundles/sm90",
    "A": f"{FIXTURE}/baseline",
    "B": f"{FIXTURE}/regressed",
    "C": f"{FIXTURE}/equivalent",
}
# Commands that need software CI does not have: (substring, why).
NEEDS = [("/usr/local/cuda/bin/nvdisasm", "CUDA's nvdisasm")]


def commands(page):
    text = open(page).read()
    for block in SH_BLOCK.finditer(text):
        # A command may go on over lines ending in a backslash.
        body = re.sub(r"\\\n\s*", " ", block.group(1))
        for line in body.splitlines():
            line = re.sub(r"\s+#.*$", "", line.strip())
            if line.startswith("$ "):
                line = line[2:]
            if line.startswith("gestell ") or line == "gestell":
                yield line


def prepare(cmd, gestell, root, plugin):
    if "[" in cmd and "]" in cmd and ("PATH..." in cmd or "[-" in cmd
                                      or "[OPTIONS]" in cmd):
        return None, "a synopsis"
    for needle, why in NEEDS:
        if needle in cmd:
            return None, f"needs {why}"
    for old, new in PLACEHOLDERS:
        cmd = cmd.replace(old, os.path.join(root, new))
    for old, new in OUTPUTS:
        cmd = cmd.replace(old, new)
    # A team's plugin and its checks: the SDK's example plugin.
    cmd = re.sub(r"[^\s=]*team-checks\.so", plugin, cmd)
    cmd = cmd.replace("team-*", "example-*")
    argv = []
    for word in shlex.split(cmd):
        if word in WORDS:
            word = os.path.join(root, WORDS[word])
        argv.append(word)
    argv[0] = gestell
    return argv, None


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--gestell", required=True)
    p.add_argument("--root", required=True)
    p.add_argument("--plugin", required=True,
                   help="a check plugin standing in for a team's")
    p.add_argument("pages", nargs="+")
    args = p.parse_args()
    root = os.path.abspath(args.root)
    scratch = tempfile.mkdtemp(prefix="gestell-doc-commands-")
    failures = ran = skipped = 0
    for page in args.pages:
        for cmd in commands(page):
            argv, why = prepare(cmd, os.path.abspath(args.gestell), root,
                                os.path.abspath(args.plugin))
            if argv is None:
                skipped += 1
                print(f"skip  {page}: {cmd}  ({why})")
                continue
            r = subprocess.run(argv, cwd=scratch, capture_output=True,
                               text=True, stdin=subprocess.DEVNULL)
            ran += 1
            if r.returncode not in (0, 1):
                failures += 1
                print(f"FAIL  {page}: {cmd}\n  exit {r.returncode}\n  "
                      + r.stderr.strip().replace("\n", "\n  "))
            else:
                print(f"ok    {page}: {cmd}  (exit {r.returncode})")
    print(f"doc_commands: {ran} ran, {skipped} skipped, {failures} failed")
    return 1 if failures or not ran else 0


if __name__ == "__main__":
    sys.exit(main())
