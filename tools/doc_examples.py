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
"""
import argparse
import difflib
import re
import shlex
import subprocess
import sys

FENCE = re.compile(r"^```console\n(.*?)^```\n", re.S | re.M)


def run(cmd, gestell, root):
    argv = shlex.split(cmd)
    if not argv or argv[0] != "gestell":
        sys.exit(f"doc_examples: not a gestell command: {cmd}")
    argv[0] = gestell
    r = subprocess.run(argv, cwd=root, capture_output=True, text=True)
    return r.stdout + r.stderr


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--gestell", required=True)
    p.add_argument("--root", required=True)
    p.add_argument("page")
    p.add_argument("--update", action="store_true")
    args = p.parse_args()
    text = open(args.page).read()
    failures = 0
    count = 0

    def replace(m):
        nonlocal failures, count
        lines = m.group(1).splitlines(keepends=True)
        if not lines or not lines[0].startswith("$ gestell "):
            return m.group(0)
        cmd_lines = []
        while lines:
            line = lines.pop(0)
            cmd_lines.append(line)
            if not line.rstrip("\n").endswith("\\"):
                break
        cmd = "".join(l.rstrip("\n").rstrip("\\") for l in cmd_lines)[2:]
        expected = "".join(lines)
        actual = run(cmd, args.gestell, args.root)
        count += 1
        if actual != expected:
            if not args.update:
                failures += 1
                sys.stdout.writelines(difflib.unified_diff(
                    expected.splitlines(keepends=True),
                    actual.splitlines(keepends=True),
                    f"{args.page}: $ {cmd}", "actual output"))
        return "```console\n" + "".join(cmd_lines) + actual + "```\n"

    new = FENCE.sub(replace, text)
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
