#!/usr/bin/env bash
# Whether ptxas spilled below the register cap by its own choice: ptxas -v
# on each PTX as written, with `.maxnreg 255` after its `.reqntid` (what
# Triton writes for maxnreg=255), and without the `.reqntid` line.
# docs/checks/nvidia-register-spill.md ("Below the cap") has the table.
#
#   PTXAS=/path/to/ptxas tools/device/ptxas_budget.sh FILE.ptx...
#
# Use the ptxas that made the cubin (Triton's own for `.version` up to 8.7,
# CUDA 13's for 9.0); the target is the PTX's own `.target`.
set -euo pipefail
ptxas=${PTXAS:?set PTXAS to the ptxas that made the cubin}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
summary() { # ptxas -v's spill and register lines, on one line
  "$ptxas" -v --gpu-name="$1" "$2" -o "$tmp/out.cubin" 2>&1 |
    grep -E 'spill|Used|rror' | tr -s ' \n' ' '
}
for ptx in "$@"; do
  arch=$(sed -n 's/^\.target[[:space:]]*\([^ ,]*\).*/\1/p' "$ptx" | head -1)
  sed 's/^\(\.reqntid.*\)$/\1\n.maxnreg 255/' "$ptx" >"$tmp/cap.ptx"
  grep -v '^\.reqntid' "$ptx" >"$tmp/free.ptx"
  echo "== $ptx ($arch)"
  echo "as written:    $(summary "$arch" "$ptx")"
  echo ".maxnreg 255:  $(summary "$arch" "$tmp/cap.ptx")"
  echo "no .reqntid:   $(summary "$arch" "$tmp/free.ptx")"
done
