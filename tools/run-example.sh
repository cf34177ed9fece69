#!/usr/bin/env bash
# Builds gestell and lints the bundled example corpus (real Triton 3.6.0
# output for Ampere, Hopper and Blackwell) with `gestell check`, printing its
# findings clang-style. The checks are those of the built-in modules; the
# template plugin's example check (plugins/example) is loaded too, so the
# output shows what a finding looks like. Findings, even error-level ones
# (gestell exit 1), are the point of the run: the script fails only when
# gestell could not do its job (exit 2). `gestell stats PATH` prints the
# instruction counts per kernel. Then the reference regression
# (tests/fixtures/sm100-attn-tmem-w8, baseline and regressed: a redundant
# convert_layout before ttng.tmem_store in the attention loop), to show
# what a regression looks like, and `gestell diff` of the two builds.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
"$here/tools/build.sh" >/dev/null
gestell="$here/build/bin/gestell"
example="$here/build/lib/gestell/test-plugins/gestell-example.so"
# The corpus was compiled from /src/kernels/triton_kernels.py in a
# container; the file is in the repository.
cd "$here"
args=(--path-map=/src=tests/corpus/triton-3.6.0/src)
[ -f "$example" ] && args+=(--load="$example" '--checks=example-*')
status=0
"$gestell" check "${args[@]}" tests/corpus/triton-3.6.0/bundles || status=$?
[ "$status" -eq 2 ] && exit 2
for build in baseline regressed; do
  echo
  echo "== tests/fixtures/sm100-attn-tmem-w8/$build"
  "$gestell" check --path-map=/src=tests/corpus/triton-3.6.0/src \
    "tests/fixtures/sm100-attn-tmem-w8/$build" || status=$?
  [ "$status" -eq 2 ] && exit 2
done
# What changed below the source, baseline -> regressed (docs/diff.md).
echo
echo "== gestell diff baseline regressed"
cd "$here"
status=0
"$gestell" diff tests/fixtures/sm100-attn-tmem-w8/baseline tests/fixtures/sm100-attn-tmem-w8/regressed \
  --path-map=/src/kernels=tests/corpus/triton-3.6.0/src/kernels || status=$?
[ "$status" -eq 2 ] && exit 2
exit 0
