#!/usr/bin/env python3
"""expect_exit.py N COMMAND [ARGS...]: runs COMMAND with this process's
stdin, stdout and stderr, and exits 0 when it exited with status N, 1
otherwise (saying what it got). lit's internal shell has no `$?`; gestell's
exit statuses (0 clean, 1 error-level findings, 2 tool failure) are part of
its interface, so tests check the exact value."""
import subprocess
import sys

want = int(sys.argv[1])
got = subprocess.call(sys.argv[2:])
if got != want:
    sys.stderr.write(f"expect_exit: expected exit status {want}, got {got}: "
                     f"{' '.join(sys.argv[2:])}\n")
    sys.exit(1)
