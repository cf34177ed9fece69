#!/usr/bin/env python3
"""Checks the layering of gestell's libraries (ctest sdk.layers).

- Every public SDK header (sdk/include/gestell/**, all of it installed) is
  one a plugin uses: included by a plugin (plugins/, tests/plugins/) or by a
  header such an include reaches.
- The SDK does not depend on the rules library: no file under sdk/ includes
  a header of rules/include/, and none of those headers is installed.
- The driver is the only layer above both: no SDK or rules file includes a
  driver header.

Usage: check_sdk_layers.py ROOT
"""
import pathlib
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def includes(path):
    return INCLUDE.findall(path.read_text(errors="replace"))


def sources(folder):
    return [p for p in folder.rglob("*") if p.suffix in (".h", ".cpp")]


def main(argv):
    root = pathlib.Path(argv[1]).resolve()
    sdk_inc = root / "sdk/include"
    rules_inc = root / "rules/include"
    public = {str(p.relative_to(sdk_inc)) for p in sdk_inc.rglob("*.h")}
    engine = {str(p.relative_to(rules_inc)) for p in rules_inc.rglob("*.h")}
    driver = {p.name for p in (root / "driver").glob("*.h")}
    problems = []

    # Headers reached from what plugins include.
    stack = [h for folder in (root / "plugins", root / "tests/plugins")
             for p in sources(folder) for h in includes(p)]
    reached = set()
    while stack:
        h = stack.pop()
        if h in reached or h not in public:
            continue
        reached.add(h)
        stack += includes(sdk_inc / h)
    for h in sorted(public - reached):
        problems.append(f"sdk/include/{h}: installed, but no plugin uses it")

    for h in sorted(public & engine):
        problems.append(f"sdk/include/{h}: a rules-library header in the SDK")
    for p in sources(root / "sdk"):
        for h in includes(p):
            if h in engine:
                problems.append(f"{p.relative_to(root)}: includes {h} "
                                "(the SDK must not depend on the rules library)")
    for folder in (root / "sdk", root / "rules"):
        for p in sources(folder):
            for h in includes(p):
                if h in driver:
                    problems.append(f"{p.relative_to(root)}: includes the "
                                    f"driver's {h}")

    for line in problems:
        print(line)
    print(f"{len(public)} public SDK headers, {len(reached)} used by plugins; "
          f"{len(engine)} rules-library headers; {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
