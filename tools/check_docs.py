#!/usr/bin/env python3
"""Every registered check has its doc page, and the page starts with the
check's summary word for word (CheckInfo::Summary is the one place it is
written; the page, --list-checks and SARIF repeat it).

usage: check_docs.py GESTELL DOCS_CHECKS_DIR [--load=PLUGIN ...]

Runs `GESTELL --checks=* --list-checks` (built-in modules plus the given
plugins) and reads docs/checks/<id>.md for each listed check: the first
line must be `# <id>` and the next non-empty line the summary. Also fails
when docs/checks/README.md does not list the check."""
import os
import re
import subprocess
import sys


def main():
    gestell, docs = sys.argv[1], sys.argv[2]
    loads = sys.argv[3:]
    out = subprocess.run([gestell, "--checks=*", "--list-checks", *loads],
                         check=True, capture_output=True, text=True).stdout
    checks = []
    for line in out.splitlines()[1:]:
        m = re.match(r"^    (\S+)\s+(.*)$", line)
        if m:
            checks.append((m.group(1), m.group(2)))
    index = open(os.path.join(docs, "README.md")).read()
    problems = []
    for cid, summary in checks:
        page = os.path.join(docs, cid + ".md")
        if not os.path.exists(page):
            problems.append(f"{cid}: no doc page {page}")
            continue
        lines = [l.rstrip() for l in open(page).read().splitlines()]
        if not lines or lines[0] != f"# {cid}":
            problems.append(f"{page}:1: first line must be '# {cid}'")
        rest = [l for l in lines[1:] if l.strip()]
        if not rest or rest[0] != summary:
            problems.append(f"{page}: first paragraph must be the summary "
                            f"'{summary}', got '{rest[0] if rest else ''}'")
        if f"[{cid}]({cid}.md)" not in index:
            problems.append(f"{docs}/README.md: does not list {cid}")
    for p in problems:
        print(p)
    print(f"{len(checks)} checks, {len(problems)} problem(s)")
    return 1 if problems else 0


sys.exit(main())
