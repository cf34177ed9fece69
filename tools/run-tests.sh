#!/usr/bin/env bash
# Builds gestell and runs every test: unit (GoogleTest), check tests
# (lit + FileCheck), end-to-end CLI, SARIF validation, and the packages (.deb,
# tarball, wheel: made, installed and run, ctest -R package). Exit 0 = all passed.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
"$here/tools/build.sh"
cd "$here/build"
ctest --output-on-failure -j "$(nproc)"
