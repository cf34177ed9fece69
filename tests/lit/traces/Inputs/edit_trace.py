#!/usr/bin/env python3
"""Writes a TritonParse trace made from a real one, for the trace tests.

  edit_trace.py SRC OUT malformed
      the first compilation event of SRC, then broken lines (JSON cut
      short, an event without payload, a launch event with NaN, which
      Python writes and strict JSON readers refuse, a file_content text that
      is a number, a kernel whose .json is broken and no payload.metadata),
      then the last compilation event of SRC
  edit_trace.py SRC OUT cubin PATH
      every compilation event of SRC with payload.file_path's .cubin set to
      PATH, where {name} stands for the kernel's name and {key} for the
      cache key folder of the path it replaces
  edit_trace.py SRC OUT copies N
      the compilation events of SRC repeated to make N events, each with a
      hash of its own (so none is a copy of another), then the other events

SRC and OUT may be .gz (read and written compressed).
"""
import gzip
import json
import os
import sys


def read(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return [line.rstrip("\n") for line in f if line.strip()]


def write(path, lines):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "wt") as f:
        for line in lines:
            f.write(line + "\n")


def compilations(lines):
    return [l for l in lines if json.loads(l).get("event_type") == "compilation"]


def main():
    src, out, mode = sys.argv[1:4]
    lines = read(src)
    comp = compilations(lines)
    if mode == "malformed":
        write(out, [
            comp[0],
            '{"event_type": "compilation", "payload": {"file_content": ',
            '{"event_type": "compilation", "pid": 1}',
            '{"event_type": "launch", "grid": [1, 1, 1], "arg": NaN}',
            '{"event_type": "compilation", "payload": {"file_content": {"k.ptx": 7}}}',
            json.dumps({"event_type": "compilation", "payload": {"file_content": {
                "k.ptx": ".version 8.7\n.target sm_90a\n.address_size 64\n",
                "k.json": '{"name": "k",\n "num_warps": }'}}}),
            comp[-1],
        ])
    elif mode == "cubin":
        path = sys.argv[4]
        edited = []
        for l in lines:
            e = json.loads(l)
            if e.get("event_type") == "compilation":
                fp = e["payload"].setdefault("file_path", {})
                for k in list(fp):
                    if k.endswith(".cubin"):
                        key = os.path.basename(os.path.dirname(fp[k]))
                        fp[k] = path.replace("{name}", k[:-len(".cubin")]) \
                                    .replace("{key}", key)
                l = json.dumps(e)
            edited.append(l)
        write(out, edited)
    elif mode == "copies":
        n = int(sys.argv[4])
        events = []
        for i in range(n):
            e = json.loads(comp[i % len(comp)])
            m = e["payload"]["metadata"]
            m["hash"] = "%064x" % (i + 1)
            events.append(json.dumps(e))
        write(out, events + [l for l in lines if l not in comp])
    else:
        sys.exit("edit_trace.py: unknown mode " + mode)


if __name__ == "__main__":
    main()
