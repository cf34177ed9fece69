#!/usr/bin/env bash
# Builds gestell and runs it over the bundled example corpus (real Triton
# 3.6.0 output for Ampere, Hopper and Blackwell), printing per kernel its
# cubin resources and instruction counts by family (gestell stats).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
"$here/tools/build.sh" >/dev/null
"$here/build/bin/gestell" stats "$here/tests/corpus/triton-3.6.0/bundles"
