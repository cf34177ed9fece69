#!/usr/bin/env python3
"""Unpacks a TritonParse trace into a folder of Triton artifacts.

  unpack_trace.py TRACE OUT

Each compilation event of TRACE (.ndjson, or gzip) becomes the folder
OUT/<event line, 6 digits>-<kernel>/ holding the texts of its
payload.file_content under their own names (<kernel>.ttgir, .ptx, .json,
.sass, ...), the form gestell reads from a TRITON_DUMP_DIR. A compilation
whose metadata hash an earlier event had is left out, as gestell reads each
once. Nothing else is written: no cubin (a trace only names it).
Prints one line per folder written.
"""
import gzip
import json
import os
import sys


def events(path):
    with open(path, "rb") as f:
        gz = f.read(2) == b"\x1f\x8b"
    opener = gzip.open if gz else open
    with opener(path, "rt", encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if line.strip():
                yield number, line


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    trace, out = sys.argv[1:]
    seen = set()
    for number, line in events(trace):
        try:
            event = json.loads(line)
        except ValueError:
            continue  # gestell reports it; nothing to unpack
        if not isinstance(event, dict) or event.get("event_type") != "compilation":
            continue
        payload = event.get("payload") or {}
        files = payload.get("file_content") or {}
        meta = payload.get("metadata") or {}
        digest = meta.get("hash")
        if digest and digest in seen:
            continue
        seen.add(digest)
        name = meta.get("name") or next(iter(files), "kernel").split(".")[0]
        folder = os.path.join(out, "%06d-%s" % (number, name))
        os.makedirs(folder, exist_ok=True)
        for file_name, text in sorted(files.items()):
            if not isinstance(text, str) or "/" in file_name or file_name.endswith(".cubin"):
                continue
            with open(os.path.join(folder, file_name), "w", encoding="utf-8",
                      newline="") as f:
                f.write(text)
        print(folder)


if __name__ == "__main__":
    main()
