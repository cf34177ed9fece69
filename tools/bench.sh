#!/usr/bin/env bash
# Benchmarks gestell on a corpus (not a test: speed is measured, never
# asserted).
#
#   tools/bench.sh CORPUS_DIR [BUILD_DIR]
#
# CORPUS_DIR is a corpus like the team's triton-3.6.0 folder: it must hold
# sweep/sm90-matmul-cache (a Triton cache of 72 matmul variants: cubins and
# PTX, no SASS). Prints:
#  1. MB/s per parser (build/bin/bench_parsers CORPUS_DIR, when built);
#  2. wall time of `gestell stats` (all stages, and --stages=ptx,sass) over
#     the sweep cache and over 24 copies of it (made in a temporary folder),
#     side by side with one `grep -cE` pass
#     over the same folder (every file, as `grep -r` would read a cache) and
#     over only the text stages stats parses (.ptx, .sass), with throughput
#     as bytes under the folder per second and the ratio stats/grep.
# Times are the best of BENCH_RUNS runs (default 5) after one warm-up run,
# so every tool reads from the page cache. grep runs with LC_ALL=C, its
# fastest setting.
set -euo pipefail
if [ $# -lt 1 ] || [ ! -d "$1" ]; then
  echo "usage: $0 CORPUS_DIR [BUILD_DIR]" >&2
  exit 2
fi
here="$(cd "$(dirname "$0")/.." && pwd)"
corpus="$(cd "$1" && pwd)"
build="${2:-$here/build}"
runs="${BENCH_RUNS:-5}"
gestell="$build/bin/gestell"
sweep="$corpus/sweep/sm90-matmul-cache"
if [ ! -d "$sweep" ]; then
  echo "$0: $sweep not found" >&2
  exit 2
fi
if [ ! -x "$gestell" ]; then
  echo "$0: $gestell not found: build first (tools/build.sh)" >&2
  exit 2
fi

# The instructions of the nine families (docs/families.md), PTX and SASS
# spellings, as one extended regular expression.
pattern='(mma\.|wgmma\.|tcgen05\.|ldmatrix|stmatrix|cp\.async|tensormap|ld\.(shared|global|local)|st\.(shared|global|local)|atom\.|red\.|bar\.|barrier\.|mbarrier\.|fence\.|HMMA|HGMMA|UTC[A-Z]*MMA|LDTM|STTM|LDSM|STSM|UTMA|LDS|STS|LDG|STG|LDL|STL|ATOM|BAR\.|SYNCS|WARPGROUP|DEPBAR|MEMBAR)'

tmp="$(mktemp -d "${TMPDIR:-/tmp}/gestell-bench.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME="$tmp/xdg" # the tool's cache stays in the temp folder

now_ns() { date +%s%N; }
# best_of SECONDS_VAR CMD...: runs CMD once to warm up, then $runs times;
# sets the variable to the shortest wall time in seconds.
best_of() {
  local var=$1 best="" start end t
  shift
  "$@" >/dev/null 2>&1 || true
  for ((i = 0; i < runs; i++)); do
    start=$(now_ns)
    "$@" >/dev/null 2>&1 || true
    end=$(now_ns)
    t=$((end - start))
    if [ -z "$best" ] || [ "$t" -lt "$best" ]; then best=$t; fi
  done
  printf -v "$var" '%s' "$(awk -v ns="$best" 'BEGIN { printf "%.4f", ns / 1e9 }')"
}
bytes_under() { find "$@" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }'; }
text_files() { find "$1" -type f \( -name '*.ptx' -o -name '*.sass' \) -print0; }
grep_all() { LC_ALL=C grep -rcE "$pattern" "$1"; }
grep_text() { text_files "$1" | LC_ALL=C xargs -0 grep -cE "$pattern"; }

echo "gestell benchmark: $corpus ($(nproc) cores, best of $runs runs)"
echo

if [ -x "$build/bin/bench_parsers" ]; then
  echo "== parsers (build/bin/bench_parsers)"
  "$build/bin/bench_parsers" "$corpus"
  echo
else
  echo "== parsers: $build/bin/bench_parsers not built, skipped"
  echo
fi

cp -r "$sweep" "$tmp/sweep"
mkdir "$tmp/copies"
for i in $(seq -w 1 24); do
  cp -r "$sweep" "$tmp/copies/copy$i"
done

report() {
  local name=$1 dir=$2
  local kernels all text
  kernels=$(find "$dir" -name '*.cubin' | wc -l)
  all=$(bytes_under "$dir")
  text=$(text_files "$dir" | xargs -0 cat | wc -c)
  local t_all t_stats t_stats1 t_grep t_gtext
  best_of t_grep grep_all "$dir"
  best_of t_gtext grep_text "$dir"
  best_of t_all "$gestell" stats --format=json "$dir"
  best_of t_stats "$gestell" stats --format=json --stages=ptx,sass "$dir"
  best_of t_stats1 "$gestell" stats --format=json --stages=ptx,sass -j1 "$dir"
  echo "== $name: $kernels kernels, $((all / 1000000)) MB in all, $((text / 1000000)) MB of .ptx/.sass"
  awk -v all="$all" -v a="$t_all" -v s="$t_stats" -v s1="$t_stats1" -v g="$t_grep" -v gt="$t_gtext" 'BEGIN {
    mb = all / 1e6
    printf "  %-44s %8s %8s %7s\n", "", "seconds", "MB/s", "vs grep"
    printf "  %-44s %8.3f %8.0f %7s\n", "grep -rcE (every file)", g, mb / g, "1.00"
    printf "  %-44s %8.3f %8.0f %7.2f\n", "grep -cE (.ptx and .sass only)", gt, mb / gt, g / gt
    printf "  %-44s %8.3f %8.0f %7.2f\n", "gestell stats (ptx, sass, ttgir)", a, mb / a, g / a
    printf "  %-44s %8.3f %8.0f %7.2f\n", "gestell stats --stages=ptx,sass", s, mb / s, g / s
    printf "  %-44s %8.3f %8.0f %7.2f\n", "gestell stats --stages=ptx,sass -j1", s1, mb / s1, g / s1
  }'
  echo
}

report "sweep cache (sweep/sm90-matmul-cache)" "$tmp/sweep"
report "24 copies of the sweep cache" "$tmp/copies"
echo "MB/s: bytes under the folder per second of wall time; vs grep: grep -rcE time / that time (above 1: faster than grep)."
