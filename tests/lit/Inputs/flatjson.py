#!/usr/bin/env python3
"""Prints a JSON document one leaf per line, `path=value`, in document order,
so FileCheck can match fields of JSON and SARIF output:

    runs[0].results[0].ruleId="test-num-warps"

With --select=PREFIX only leaves under paths starting with PREFIX print."""
import json
import sys


def walk(node, path, out):
    if isinstance(node, (dict, list)) and not node:
        out.append(f"{path}={json.dumps(node)}")
    elif isinstance(node, dict):
        for key, value in node.items():
            walk(value, f"{path}.{key}" if path else key, out)
    elif isinstance(node, list):
        for i, value in enumerate(node):
            walk(value, f"{path}[{i}]", out)
    else:
        out.append(f"{path}={json.dumps(node)}")


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--select=")]
    prefixes = [a[len("--select="):] for a in sys.argv[1:]
                if a.startswith("--select=")]
    text = open(args[0]).read() if args else sys.stdin.read()
    out = []
    walk(json.loads(text), "", out)
    for line in out:
        if not prefixes or any(line.startswith(p) for p in prefixes):
            print(line)


main()
