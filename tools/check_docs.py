#!/usr/bin/env python3
"""Every registered check has its doc page, the page starts with the check's
summary word for word, and the index of docs/checks/README.md is the one
generated from the checks' metadata (CheckInfo is the one place a check's
id, summary and default are written; the page, the index, --list-checks
and SARIF repeat them).

usage: check_docs.py [--update] GESTELL DOCS_CHECKS_DIR [--load=PLUGIN ...]

Runs `GESTELL --checks=* --list-checks` (built-in modules plus the given
plugins) and reads docs/checks/<id>.md for each listed check: the first
line must be `# <id>` and the next non-empty line the summary. The index
table has one row per check, sorted by id: its page, its module (the id's
first word; a rule's pack file; "off by default" when the plain run does
not enable it) and its summary. --update rewrites that table in place
instead of failing on it."""
import os
import re
import subprocess
import sys


def listed(gestell, loads, everything):
    args = [gestell, "--list-checks", *loads]
    if everything:
        args.insert(1, "--checks=*")
    out = subprocess.run(args, check=True, capture_output=True,
                         text=True).stdout
    checks = []
    for line in out.splitlines()[1:]:
        m = re.match(r"^    (\S+)\s+(.*)$", line)
        if m:
            checks.append((m.group(1), m.group(2)))
    return checks


def module_of(cid, enabled):
    module = cid.split("-", 1)[0]
    notes = []
    if module == "rules":
        notes.append(f"checks/{cid.split('-')[1]}.toml")
    if cid not in enabled:
        notes.append("off by default")
    return module + (f" ({', '.join(notes)})" if notes else "")


def index_table(checks, enabled):
    rows = ["| check | module | summary |", "| --- | --- | --- |"]
    for cid, summary in sorted(checks):
        rows.append(f"| [{cid}]({cid}.md) | {module_of(cid, enabled)} | "
                    f"{summary} |")
    return rows


def split_index(text):
    """The index's lines before its table, the table, and after it."""
    lines = text.split("\n")
    start = next((i for i, l in enumerate(lines)
                  if l.startswith("| check | module |")), len(lines))
    end = start
    while end < len(lines) and lines[end].startswith("|"):
        end += 1
    return lines[:start], lines[start:end], lines[end:]


def main(argv):
    update = "--update" in argv
    argv = [a for a in argv if a != "--update"]
    gestell, docs = argv[0], argv[1]
    loads = argv[2:]
    checks = listed(gestell, loads, everything=True)
    enabled = {cid for cid, _ in listed(gestell, loads, everything=False)}
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

    index = os.path.join(docs, "README.md")
    before, table, after = split_index(open(index).read())
    want = index_table(checks, enabled)
    if table != want:
        if update:
            open(index, "w").write("\n".join(before + want + after))
            print(f"{index}: index rewritten ({len(checks)} checks)")
        else:
            for line in sorted(set(want) - set(table)):
                problems.append(f"{index}: missing row {line}")
            for line in sorted(set(table) - set(want)):
                problems.append(f"{index}: stale row {line}")
            if set(want) == set(table):
                problems.append(f"{index}: rows out of order")
            problems.append(f"(the index is generated: run {sys.argv[0]} "
                            "--update with the same arguments)")
    for p in problems:
        print(p)
    print(f"{len(checks)} checks, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
