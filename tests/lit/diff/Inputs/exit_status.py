#!/usr/bin/env python3
"""Runs a command, then prints `exit: N` (its exit status) on stdout and
exits 0, so a lit RUN line can pipe both into FileCheck."""
import subprocess
import sys

status = subprocess.call(sys.argv[1:])
sys.stdout.flush()
print(f"exit: {status}")
