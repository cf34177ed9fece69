#!/usr/bin/env python3
"""Runs the examples of a Markdown page and compares (or rewrites) their output.

An example is a fenced block whose info string is `console` and whose first
line starts with `$ gestell `; a command may continue over lines ending in
`\\`. The rest of the block is what the command prints (stdout, then
stderr). Commands run from the repository root with `gestell` replaced by
the binary given, and without a shell (no globs, no pipes).

  doc_examples.py --gestell BIN --root SRC docs/diff.md           # check
  doc_examples.py --gestell BIN --root SRC docs/diff.md --update  # rewrite

Check mode exits 1 and shows a unified diff when an output differs, so the
page's outputs stay the tool's real output.

With --scratch the examples run in a fresh folder instead of the root, for
pages whose examples write files (docs/rules.md: a team's rule pack and its
config): the folder holds a `tests` link to ROOT/tests, and every fenced
block whose info string names a path after the language (```toml
rules/team.toml) is written there, in page order, before the commands that
follow it. Commands may also be `cp`, `mkdir` and `ln` (to lay out
fixtures); paths under the scratch folder print relative to it.
"""
import argparse
import difflib
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

FENCE = re.compile(r"^```console\n(.*?)^```\n", re.S | re.M)
# Any fenced block; group 2 is the path after the language, if any.
BLOCK = re.compile(r"^```(\w*)(?:[ \t]+(\S+))?[ \t]*\n(.*?)^```\n", re.S | re.M)
SCRATCH_TOOLS = ("cp", "mkdir", "ln")


def run(cmd, gestell, root, scratch=False):
    argv = shlex.split(cmd)
    if not argv or not (argv[0] == "gestell" or
                        (scratch and argv[0] in SCRATCH_TOOLS)):
        sys.exit(f"doc_examples: not a gestell command: {cmd}")
    if argv[0] == "gestell":
        argv[0] = os.path.abspath(gestell)
    r = subprocess.run(argv, cwd=root, capture_output=True, text=True)
    out = r.stdout + r.stderr
    # Pages show paths relative to the root (the scratch folder or the
    # checkout), whatever folder the tests run from.
    out = out.replace(os.path.realpath(root) + "/", "")
    out = out.replace(os.path.abspath(root) + "/", "")
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--gestell", required=True)
    p.add_argument("--root", required=True)
    p.add_argument("page")
    p.add_argument("--update", action="store_true")
    p.add_argument("--scratch", action="store_true",
                   help="run in a fresh folder holding the page's files")
    args = p.parse_args()
    text = open(args.page).read()
    failures = 0
    count = 0
    cwd = args.root
    if args.scratch:
        cwd = tempfile.mkdtemp(prefix="gestell-doc-")
        os.symlink(os.path.join(os.path.abspath(args.root), "tests"),
                   os.path.join(cwd, "tests"))

    def replace(m):
        nonlocal failures, count
        lines = m.group(1).splitlines(keepends=True)
        starts = ("$ gestell ",) + (tuple(f"$ {t} " for t in SCRATCH_TOOLS)
                                    if args.scratch else ())
        if not lines or not lines[0].startswith(starts):
            return m.group(0)
        cmd_lines = []
        while lines:
            line = lines.pop(0)
            cmd_lines.append(line)
            if not line.rstrip("\n").endswith("\\"):
                break
        cmd = "".join(l.rstrip("\n").rstrip("\\") for l in cmd_lines)[2:]
        expected = "".join(lines)
        actual = run(cmd, args.gestell, cwd, args.scratch)
        count += 1
        if actual != expected:
            if not args.update:
                failures += 1
                sys.stdout.writelines(difflib.unified_diff(
                    expected.splitlines(keepends=True),
                    actual.splitlines(keepends=True),
                    f"{args.page}: $ {cmd}", "actual output"))
        return "```console\n" + "".join(cmd_lines) + actual + "```\n"

    def block(m):
        lang, path, body = m.group(1), m.group(2), m.group(3)
        if lang == "console":
            return FENCE.sub(replace, m.group(0))
        if args.scratch and path:
            dest = os.path.join(cwd, path)
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            with open(dest, "w") as f:
                f.write(body)
        return m.group(0)

    new = BLOCK.sub(block, text)
    if args.scratch:
        shutil.rmtree(cwd, ignore_errors=True)
    if args.update:
        open(args.page, "w").write(new)
        print(f"doc_examples: {args.page}: {count} examples written")
        return
    if failures:
        print(f"doc_examples: {failures} of {count} examples differ "
              f"(run with --update after checking the new output)")
        sys.exit(1)
    print(f"doc_examples: {args.page}: {count} examples match")


if __name__ == "__main__":
    main()
