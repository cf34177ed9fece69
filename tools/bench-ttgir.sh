#!/usr/bin/env bash
# Times the TTGIR path of `gestell stats` (parse, layout verification,
# conversion costs, TMEM checks, loop op counts) on every .ttgir under a
# folder: each file is copied alone into its own kernel folder, so no other
# stage is read. Prints files, bytes and wall time for -j1 and -j0 (all
# cores), best of 3 runs each.
#   tools/bench-ttgir.sh [FOLDER]   (default: tests/corpus and tests/fixtures)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
gestell="$here/build/bin/gestell"
[ -x "$gestell" ] || "$here/tools/build.sh" >/dev/null
src=("${@:-$here/tests/corpus}")
[ $# -gt 0 ] || src+=("$here/tests/fixtures")
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
n=0
while IFS= read -r f; do
  n=$((n + 1))
  mkdir -p "$work/k$n"
  cp "$f" "$work/k$n/"
done < <(find "${src[@]}" -name '*.ttgir' | sort)
bytes=$(cat "$work"/k*/*.ttgir | wc -c)
echo "files: $n  bytes: $bytes"
for jobs in 1 0; do
  best=""
  for run in 1 2 3; do
    start=$(date +%s%N)
    "$gestell" stats --format=json -j "$jobs" "$work" >/dev/null 2>&1 || true
    end=$(date +%s%N)
    ms=$(( (end - start) / 1000000 ))
    if [ -z "$best" ] || [ "$ms" -lt "$best" ]; then best=$ms; fi
  done
  echo "-j$jobs: ${best} ms"
done
