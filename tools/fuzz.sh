#!/usr/bin/env bash
# Fuzzes gestell's readers with libFuzzer (tests/fuzz/README.md).
#
#   tools/fuzz.sh TARGET SECONDS [LIBFUZZER-OPTION...]
#       builds TARGET into build-fuzz/ and fuzzes it for SECONDS on its corpus
#       (tests/fuzz/corpus/TARGET plus what earlier runs found)
#   tools/fuzz.sh --replay
#       runs every corpus once through every target (ctest -R ^fuzz\.)
#   tools/fuzz.sh --list
#       the targets
#
# build-fuzz/ is configured with clang++-22 (CXX overrides it) and
# -fsanitize=fuzzer-no-link,address,undefined (UB aborts); the targets link
# libFuzzer. A run stops at the first crash, sanitizer report, input slower
# than 10 s or above 2 GB; the input is written to build-fuzz/fuzz-crashes/
# TARGET/. Inputs that reach new code go to build-fuzz/fuzz-corpus/TARGET,
# never into the source tree: copy a reproducer to tests/fuzz/corpus/TARGET
# by hand, once fixed. CI does not need this script (the default build
# replays the corpora with gcc: ctest -R ^fuzz\.).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
build="$here/build-fuzz"
cxx="${CXX:-clang++-22}"
targets=(ttgir layout ptx sass cubin json config rulepack expr trace)

usage() {
  sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

configure() {
  command -v "$cxx" >/dev/null || {
    echo "fuzz.sh: $cxx not found (apt-get install clang-22 libclang-rt-22-dev)" >&2
    exit 2
  }
  cmake -S "$here" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_COMPILER="$cxx" -DGESTELL_FUZZ=ON \
    -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer" \
    >/dev/null
}

# ASan as libFuzzer sets it up (leaks reported); UB stops the run.
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

case "${1:-}" in
--list)
  printf '%s\n' "${targets[@]}"
  ;;
--replay)
  configure
  cmake --build "$build" --target gestell-fuzzers
  cd "$build" && ctest --output-on-failure -R '^fuzz\.'
  ;;
"" | -*)
  usage
  ;;
*)
  target="$1"
  seconds="${2:-}"
  [[ " ${targets[*]} " == *" $target "* ]] || {
    echo "fuzz.sh: unknown target '$target' (tools/fuzz.sh --list)" >&2
    exit 2
  }
  [[ "$seconds" =~ ^[0-9]+$ ]] || usage
  shift 2
  configure
  cmake --build "$build" --target "gestell-fuzz-$target"
  work="$build/fuzz-corpus/$target"
  crashes="$build/fuzz-crashes/$target"
  mkdir -p "$work" "$crashes"
  dict=()
  [ -f "$here/tests/fuzz/dict/$target.dict" ] &&
    dict=("-dict=$here/tests/fuzz/dict/$target.dict")
  exec "$build/bin/gestell-fuzz-$target" "$work" "$here/tests/fuzz/corpus/$target" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$crashes/" -print_final_stats=1 "${dict[@]}" "$@"
  ;;
esac
