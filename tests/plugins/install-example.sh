#!/usr/bin/env bash
# The plugin story end to end, as a team outside this repository lives it:
#   1. install gestell (binary, libgestell.so, headers, CMake package) into a
#      temporary prefix;
#   2. build plugins/example against that installed SDK with its own
#      CMakeLists (find_package(gestell));
#   3. move the plugin to an unrelated folder, run the *installed* gestell
#      with --load on real corpus kernels: it loads, runs and reports at the
#      exact PTX lines, next to the built-in modules found beside the binary.
# Usage: install-example.sh SOURCE_DIR BUILD_DIR CMAKE GENERATOR CXX
set -euo pipefail
src=$1 build=$2 cmake=$3 generator=$4 cxx=$5
work=$(mktemp -d "${TMPDIR:-/tmp}/gestell-install-test.XXXXXX")
trap 'rm -rf "$work"' EXIT

"$cmake" --install "$build" --prefix "$work/prefix" > "$work/install.log"
libdir=$(sed -n 's/^CMAKE_INSTALL_LIBDIR:PATH=//p' "$build/CMakeCache.txt")  # lib/<multiarch>
test -f "$work/prefix/$libdir/cmake/gestell/gestellConfig.cmake"
test -f "$work/prefix/include/gestell/Check.h"
ls "$work/prefix/$libdir/gestell/plugins/"*.so > /dev/null

"$cmake" -S "$src/plugins/example" -B "$work/example-build" -G "$generator" \
  -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$work/prefix" > "$work/configure.log"
"$cmake" --build "$work/example-build" > "$work/build.log"

mkdir -p "$work/elsewhere"
cp "$work/example-build/gestell-example.so" "$work/elsewhere/"
cd "$work/elsewhere"
corpus="$src/tests/corpus/triton-3.6.0/bundles"
out=$("$work/prefix/bin/gestell" --load="$work/elsewhere/gestell-example.so" \
  --checks='-*,example-*' "$corpus/sm90/matmul_f16" "$corpus/sm90/vadd" 2>&1)
echo "$out"
expect() {
  grep -qF -- "$1" <<< "$out" || { echo "FAIL: missing: $1" >&2; exit 1; }
}
expect "sm90/matmul_f16/matmul.ptx:520:7: warning: global loads in a loop move 16 bits per instruction in kernel 'matmul' [example-narrow-global-load]"
expect "note: 64 narrow global loads in loops (threshold 1), of 64 global loads"
expect "gestell: 2 kernels checked: 0 error(s), 1 warning(s), 0 remark(s)"
if grep -q "vadd.*example-narrow-global-load" <<< "$out"; then
  echo "FAIL: the check fired on vadd" >&2; exit 1
fi
# The installed binary found its built-in modules beside itself.
sarif=$("$work/prefix/bin/gestell" --load="$work/elsewhere/gestell-example.so" \
  --checks='-*,example-*' --format=sarif "$corpus/sm90/vadd" 2>/dev/null)
for module in '"name": "example"' '"name": "nvidia"' '"name": "triton"'; do
  grep -qF "$module" <<< "$sarif" || { echo "FAIL: no $module in SARIF tool.extensions" >&2; exit 1; }
done

# tools/new_check.py scaffolds a check that builds, registers and runs: in a
# copy of the template, against the same installed SDK.
mkdir -p "$work/scaffold/plugins" "$work/scaffold/docs"
cp -r "$src/plugins/example" "$work/scaffold/plugins/"
cp -r "$src/docs/checks" "$work/scaffold/docs/"
python3 "$src/tools/new_check.py" example wide-store --stage ptx \
  --summary "Stores wider than needed" --root "$work/scaffold" > /dev/null
"$cmake" -S "$work/scaffold/plugins/example" -B "$work/scaffold-build" -G "$generator" \
  -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$work/prefix" > "$work/scaffold-configure.log"
"$cmake" --build "$work/scaffold-build" > "$work/scaffold-build.log"
list=$("$work/prefix/bin/gestell" --load="$work/scaffold-build/gestell-example.so" \
  --checks='example-*' --list-checks)
grep -q "example-wide-store  *Stores wider than needed" <<< "$list" \
  || { echo "FAIL: scaffolded check not listed: $list" >&2; exit 1; }
"$work/prefix/bin/gestell" --load="$work/scaffold-build/gestell-example.so" \
  --checks='-*,example-wide-store' "$corpus/sm90" > /dev/null
test -f "$work/scaffold/docs/example-wide-store.md"
grep -q "RUN: %gestell --load=%plugin --checks='-\*,example-wide-store'" \
  "$work/scaffold/tests/example-wide-store.test" \
  || { echo "FAIL: out-of-tree test not written" >&2; exit 1; }
grep -q "namespace example {" "$work/scaffold/plugins/example/WideStoreCheck.h" \
  || { echo "FAIL: out-of-tree check not in the module's namespace" >&2; exit 1; }
! grep -q "testplugins\|tests/lit" "$work/scaffold/tests/example-wide-store.test" \
  "$work/scaffold/plugins/example/WideStoreCheck.h" "$work/scaffold/plugins/example/WideStoreCheck.cpp" \
  || { echo "FAIL: out-of-tree scaffold names in-tree paths" >&2; exit 1; }

# In tree: the test is tests/lit/checks/<id>.test with a %check_gestell
# block, and the index row lands in id order.
tree="$work/in-tree"
mkdir -p "$tree/sdk/include/gestell" "$tree/plugins" "$tree/docs" "$tree/tests/lit/checks"
cp -r "$src/plugins/triton" "$tree/plugins/"
cp -r "$src/docs/checks" "$tree/docs/"
python3 "$src/tools/new_check.py" triton aaa-first --stage ttgir \
  --summary "Sorts first" --root "$tree" > /dev/null
grep -q "RUN: %check_gestell %s triton-aaa-first tests/corpus/triton-3.6.0/bundles BUNDLES" \
  "$tree/tests/lit/checks/triton-aaa-first.test" \
  || { echo "FAIL: in-tree test not a %check_gestell block" >&2; exit 1; }
rows=$(grep '^| \[' "$tree/docs/checks/README.md" | cut -d'|' -f2)
[ "$rows" = "$(LC_ALL=C sort <<< "$rows")" ] \
  || { echo "FAIL: docs/checks/README.md rows not in id order" >&2; exit 1; }
grep -q "R.add<gestell::triton::AaaFirstCheck>" "$tree/plugins/triton/TritonModule.cpp" \
  || { echo "FAIL: not registered" >&2; exit 1; }

echo "PASS: plugin built against the installed SDK loads and reports"
