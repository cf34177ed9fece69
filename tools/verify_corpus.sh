#!/usr/bin/env bash
# Runs the parser cross-checks over every kernel under a corpus directory:
# PTX and SASS instruction counts against independent line counts, opcode
# line/column, every PTX .loc against the .file table and the Python source,
# both SASS renderings (nvdisasm, cuobjdump) giving the same program, SASS
# line info against the PTX .loc lines of the same compile, MMA in loops.
# These are the corpus tests of the unit test binary, pointed at DIR through
# GESTELL_VERIFY_CORPUS. Exit 0 = every check passed.
#
#   tools/verify_corpus.sh CORPUS_DIR [BUILD_DIR]
set -euo pipefail
if [ $# -lt 1 ] || [ ! -d "$1" ]; then
  echo "usage: $0 CORPUS_DIR [BUILD_DIR]" >&2
  exit 2
fi
here="$(cd "$(dirname "$0")/.." && pwd)"
corpus="$(cd "$1" && pwd)"
build="${2:-$here/build}"
bin="$build/bin/gestell-unittests"
if [ ! -x "$bin" ]; then
  echo "$0: $bin not found: build first (tools/build.sh)" >&2
  exit 2
fi
ptx=$(find "$corpus" -name '*.ptx' | wc -l)
sass=$(find "$corpus" -name '*.sass' ! -name '*.cuobjdump.sass' | wc -l)
cuob=$(find "$corpus" -name '*.cuobjdump.sass' | wc -l)
echo "verify_corpus: $corpus: $ptx .ptx, $sass .sass, $cuob .cuobjdump.sass"
GESTELL_VERIFY_CORPUS="$corpus" "$bin" --gtest_filter='PtxCorpus.*:SassCorpus.*' \
  --gtest_brief=1
