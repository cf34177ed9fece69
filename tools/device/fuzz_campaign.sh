#!/usr/bin/env bash
# Fuzz campaigns on the device machine's CPUs (its GPU is not used): the
# libFuzzer targets built here by tools/fuzz.sh (clang-22, ASan + UBSan),
# carried as devwork/fuzz-pack*.tar.xz with the shared libraries they need
# (libgestell, Debian's libLLVM and its dependencies), since the device has
# no LLVM 22.
#
#   tools/device/fuzz_campaign.sh SECONDS JOBS TARGET...
#
# Each target runs `-fork=JOBS` for SECONDS on tests/fuzz/corpus/TARGET;
# logs, crashes and the grown corpus (a tarball per target) go to $OUT.
set -uo pipefail
seconds=$1 jobs=$2
shift 2
pack=$(mktemp -d)
# devwork/fuzz-pack.tar.xz, then any later packs over it (fuzz-pack2...:
# rebuilt binaries and libgestell only).
# In byte order (LC_ALL=C): a locale's collation puts fuzz-pack2 first.
for p in $(LC_ALL=C ls devwork/fuzz-pack*.tar.xz); do tar xJf "$p" -C "$pack"; done
export LD_LIBRARY_PATH="$pack/lib"
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
for t in "$@"; do
  mkdir -p "$OUT/crash-$t" "$pack/corpus-$t"
  "$pack/bin/gestell-fuzz-$t" "$pack/corpus-$t" "tests/fuzz/corpus/$t" \
    -fork="$jobs" -ignore_crashes=1 -max_total_time="$seconds" -timeout=10 \
    -rss_limit_mb=2048 -artifact_prefix="$OUT/crash-$t/" \
    -print_final_stats=1 >"$OUT/$t.log" 2>&1 &
done
wait
for t in "$@"; do
  tar czf "$OUT/corpus-$t.tgz" -C "$pack" "corpus-$t"
done
