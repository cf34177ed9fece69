#!/usr/bin/env python3
"""Checks function size the LLVM way: clang-tidy's readability-function-size.

Runs clang-tidy-22 with the repository's .clang-tidy (that check only, 100
lines) over every project translation unit of the build's
compile_commands.json (sdk, rules, driver, plugins, tests,
tools/bench_parsers), one process per core, with a header filter for the
project's own headers. Prints each warning once (a header's function is
reported by every unit that includes it) with clang-tidy's note that counts
its lines, and fails if there is any, or if clang-tidy could not read a
unit (a function it did not see is not checked).

Exit 0: passed; 1: failed; 77: skipped because clang-tidy-22 is not
installed (ctest SKIP_RETURN_CODE; CI installs it through tools/deps.sh).

Usage: check_function_size.py --build DIR --root DIR [--jobs N]
"""
import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys

FOLDERS = ("sdk", "rules", "driver", "plugins", "tests", "tools/bench_parsers")
CHECK = "readability-function-size"
DIAG = re.compile(r"^(?P<file>[^:\s][^:]*):(?P<line>\d+):(?P<col>\d+): "
                  r"(?P<kind>warning|error|note): (?P<msg>.*)$")


def units(build, root):
    """The project's translation units in the compilation database."""
    with open(os.path.join(build, "compile_commands.json")) as f:
        entries = json.load(f)
    prefixes = tuple(os.path.join(root, d) + os.sep for d in FOLDERS)
    files = set()
    for e in entries:
        path = os.path.normpath(os.path.join(e["directory"], e["file"]))
        if path.startswith(prefixes):
            files.add(path)
    return sorted(files)


def tidy(clang_tidy, build, root, path):
    """Runs clang-tidy on one unit: (path, exit status, its diagnostics)."""
    header_filter = "^" + re.escape(root) + "/(sdk|rules|driver|plugins|tests|tools)/"
    proc = subprocess.run(
        [clang_tidy, "-p", build, "--quiet",
         "--config-file=" + os.path.join(root, ".clang-tidy"),
         "--header-filter=" + header_filter, path],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        errors="replace")
    return path, proc.returncode, proc.stdout


def findings(output):
    """The function-size warnings of one unit's output, each with its notes,
    and the compiler errors (clang could not read the unit)."""
    warnings, errors = [], []
    current = None
    for line in output.splitlines():
        m = DIAG.match(line)
        if not m:
            continue
        if m["kind"] == "warning" and m["msg"].endswith("[" + CHECK + "]"):
            current = [line]
            warnings.append(current)
        elif m["kind"] == "note" and current is not None:
            current.append(line)
        elif m["kind"] == "error":
            errors.append(line)
            current = None
        else:
            current = None
    return warnings, errors


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--root", required=True)
    ap.add_argument("--jobs", type=int,
                    default=len(os.sched_getaffinity(0)) or 1)
    args = ap.parse_args()
    clang_tidy = shutil.which("clang-tidy-22")
    if not clang_tidy:
        print("SKIP: clang-tidy-22 is not installed (tools/deps.sh installs it)")
        return 77
    root = os.path.realpath(args.root)
    build = os.path.realpath(args.build)
    files = units(build, root)
    if not files:
        print("FAIL: no project unit in " +
              os.path.join(build, "compile_commands.json"))
        return 1

    seen, warnings, failures = set(), [], []
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for path, status, output in pool.map(
                lambda p: tidy(clang_tidy, build, root, p), files):
            found, errors = findings(output)
            for w in found:
                if w[0] not in seen:
                    seen.add(w[0])
                    warnings.append(w)
            if status != 0 and (errors or not found):
                failures.append((path, errors or output.splitlines()[-5:]))

    for w in sorted(warnings):
        print("\n".join(l[len(root) + 1:] if l.startswith(root + "/") else l
                        for l in w))
    for path, lines in failures:
        print("clang-tidy could not check %s:" % os.path.relpath(path, root))
        print("\n".join("  " + l for l in lines))
    print("%d units, %d functions over the threshold%s" %
          (len(files), len(warnings),
           ", %d units not checked" % len(failures) if failures else ""))
    return 1 if warnings or failures else 0


if __name__ == "__main__":
    sys.exit(main())
