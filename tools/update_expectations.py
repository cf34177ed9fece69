#!/usr/bin/env python3
"""Rewrites the expectations of check tests from the current output.

    tools/update_expectations.py [--gestell build/bin/gestell] TEST...

For every `RUN: %check_gestell %s CHECK TARGET PREFIX [-- ARGS]` line of
each test (tests/lit/checks/*.test), runs that check on that target exactly
as the test does (tests/lit/Inputs/check_gestell.py) and replaces the
`# PREFIX:` / `# PREFIX-NEXT:` lines that follow it with the output: the
first line as PREFIX, the rest as PREFIX-NEXT, the closing summary
included. Comments and every other line stay. Review the diff before
committing, as with LLVM's update_test_checks.py or ruff's snapshots: the
tool writes what gestell prints now, right or wrong.
"""
import argparse
import os
import re
import shlex
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "lit", "Inputs"))
from check_gestell import escape, run_gestell  # noqa: E402

RUN = re.compile(r"^#?\s*RUN:\s*%check_gestell\s+%s\s+(.*)$")


def expectation_lines(prefix, text):
    lines = [l.rstrip() for l in text.splitlines() if l.strip()]
    out = []
    for i, l in enumerate(lines):
        out.append(f"# {prefix}{'' if i == 0 else '-NEXT'}: {escape(l)}")
    return out


def update(path, gestell, tmp):
    src = open(path).read().splitlines()
    out, i, changed = [], 0, 0
    while i < len(src):
        line = src[i]
        out.append(line)
        i += 1
        m = RUN.match(line)
        if not m:
            continue
        args = shlex.split(m.group(1).replace("%t", tmp))
        check, target, prefix, extra = args[0], args[1], args[2], args[3:]
        if extra and extra[0] == "--":
            extra = extra[1:]
        # Drop the old block: the PREFIX lines right after the RUN line.
        own = re.compile(r"^#?\s*%s(-NEXT)?:" % re.escape(prefix))
        while i < len(src) and own.match(src[i]):
            i += 1
        text, _ = run_gestell(gestell, ROOT, check, target, extra)
        out.extend(expectation_lines(prefix, text))
        changed += 1
    open(path, "w").write("\n".join(out) + "\n")
    return changed


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gestell", default=os.path.join(ROOT, "build", "bin", "gestell"))
    ap.add_argument("tests", nargs="+")
    a = ap.parse_args()
    tmp = os.path.join(ROOT, "build", "update-expectations")
    os.makedirs(tmp, exist_ok=True)
    for t in a.tests:
        n = update(t, os.path.abspath(a.gestell), tmp)
        print(f"{t}: {n} expectation block(s) rewritten")


if __name__ == "__main__":
    main()
