#!/usr/bin/env python3
"""gestell's memory does not grow with the size of a TritonParse trace.

  check_trace_memory.py --gestell GESTELL TRACE [--copies N] [--small M]

Writes, into a scratch folder, traces of N and of M compilation events
copied from TRACE's (each with a hash of its own, so none is a repeat),
plain and gzip, and runs `gestell stats` and `gestell check` on each. The
peak RSS on the large trace must stay below the small one's plus a fixed
allowance that is a fraction of the large trace's size: discovery
holds one line at a time and the verbs a bounded window of events
(gestell/Trace.h). The bound is relative to the small run, so it holds
whatever the process takes before it reads a trace. Prints the figures;
exit 1 when a bound does not hold.
No timing is asserted.
"""
import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile

ALLOWANCE_MIB = 48  # windows of at most 64 MiB of events; less in practice


def events(path):
    with open(path, "rb") as f:
        gz = f.read(2) == b"\x1f\x8b"
    opener = gzip.open if gz else open
    with opener(path, "rt", encoding="utf-8") as f:
        return [l.rstrip("\n") for l in f if l.strip()]


def write(path, lines, n):
    comp = [l for l in lines if json.loads(l).get("event_type") == "compilation"]
    other = [l for l in lines if l not in comp]
    opener = gzip.open if path.endswith(".gz") else open
    kw = {"compresslevel": 1} if path.endswith(".gz") else {}
    with opener(path, "wt", encoding="utf-8", **kw) as f:
        for i in range(n):
            e = json.loads(comp[i % len(comp)])
            e["payload"]["metadata"]["hash"] = "%064x" % (i + 1)
            f.write(json.dumps(e) + "\n")
            f.write(other[i % len(other)] + "\n" if other else "")


def peak_rss_mib(cmd):
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(p.pid, 0)
    err = p.stderr.read().decode()
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        sys.stderr.write(err)
        raise SystemExit(f"FAIL: {' '.join(cmd)} exited {code}")
    return usage.ru_maxrss / 1024.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("trace")
    ap.add_argument("--gestell", required=True)
    ap.add_argument("--copies", type=int, default=300)
    ap.add_argument("--small", type=int, default=16)
    a = ap.parse_args()
    lines = events(a.trace)
    scratch = tempfile.mkdtemp(prefix="gestell-trace-mem-")
    failed = False
    try:
        for ext in (".ndjson", ".ndjson.gz"):
            small = os.path.join(scratch, "small" + ext)
            large = os.path.join(scratch, "large" + ext)
            write(small, lines, a.small)
            write(large, lines, a.copies)
            big = os.path.getsize(large)
            with (gzip.open(large, "rb") if ext.endswith(".gz") else open(large, "rb")) as f:
                unpacked = sum(len(chunk) for chunk in iter(lambda: f.read(1 << 20), b""))
            # -j2: the same figure on any machine (each thread parses a kernel).
            for verb in (["stats", "-j2", "--format=json"],
                         ["check", "-j2", "--format=json"]):
                s = peak_rss_mib([a.gestell, *verb, small])
                l = peak_rss_mib([a.gestell, *verb, large])
                # Holding the trace would take all of it on top of the
                # small run's figure; the bound is far below that.
                bound = s + min(ALLOWANCE_MIB, unpacked / 2 / (1 << 20))
                ok = l <= bound
                failed |= not ok
                print(f"{'ok  ' if ok else 'FAIL'} {verb[0]} {ext}: {a.small} events "
                      f"{s:.0f} MiB peak RSS; {a.copies} events ({unpacked >> 20} MiB "
                      f"of trace, {big >> 20} MiB on disk) {l:.0f} MiB "
                      f"(bound {bound:.0f} MiB)")
            os.remove(small)
            os.remove(large)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
