#!/usr/bin/env python3
"""%check_gestell: one check on one fixture, like clang-tidy's
%check_clang_tidy.

    %check_gestell %s CHECK TARGET PREFIX [-- GESTELL-ARGS...]

runs `gestell --checks='-*,CHECK' [GESTELL-ARGS] TARGET` from the source
root (TARGET, several separated by commas, and relative paths in the
arguments are relative to it), makes
the output stable (the source root is cut from every path), and checks it
against the lines of the test file (%s) that carry PREFIX, with any other
remark, warning or error failing the test. tools/update_expectations.py
rewrites those lines from the current output (for review, like LLVM's
update_test_checks.py).
"""
import argparse
import os
import re
import subprocess
import sys


def run_gestell(gestell, root, check, target, extra):
    """The normalized text output of one check on one target."""
    cmd = [gestell, f"--checks=-*,{check}", *extra, *target.split(",")]
    out = subprocess.run(cmd, cwd=root, capture_output=True, text=True)
    text = out.stdout + out.stderr
    prefix = os.path.abspath(root) + os.sep
    return text.replace(prefix, ""), out.returncode


def escape(line):
    """A line of output as a FileCheck pattern: `{{` and `[[` are literal."""
    return re.sub(r"(\{\{|\[\[)", lambda m: "{{" + re.escape(m.group(1)) + "}}", line)


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gestell", required=True)
    ap.add_argument("--filecheck", required=True)
    ap.add_argument("--root", required=True)
    ap.add_argument("testfile")
    ap.add_argument("check")
    ap.add_argument("target")
    ap.add_argument("prefix")
    ap.add_argument("extra", nargs=argparse.REMAINDER)
    a = ap.parse_args(argv)
    if a.extra and a.extra[0] == "--":
        a.extra = a.extra[1:]
    return a


def main(argv):
    a = parse_args(argv)
    text, _ = run_gestell(a.gestell, a.root, a.check, a.target, a.extra)
    fc = subprocess.run([a.filecheck, a.testfile, f"--check-prefix={a.prefix}",
                         "--implicit-check-not={{remark|warning|error}}:"],
                        input=text, text=True)
    return fc.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
