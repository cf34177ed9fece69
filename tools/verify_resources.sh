#!/usr/bin/env bash
# Compares gestell's cubin reader with cuobjdump: for every
# <name>.res-usage.txt (the output of `cuobjdump -res-usage`) under
# CORPUS_DIR, reads <name>.cubin with gestell-res-usage (which prints what
# gestell read in cuobjdump's layout) and diffs the two byte for byte.
# Usage: tools/verify_resources.sh CORPUS_DIR  (exit 0 = all equal)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
corpus="${1:?usage: tools/verify_resources.sh CORPUS_DIR}"
tool="${GESTELL_RES_USAGE:-$here/build/bin/gestell-res-usage}"
if [ ! -x "$tool" ]; then
  cmake --build "$here/build" --target gestell-res-usage >/dev/null
fi
checked=0 equal=0
while IFS= read -r -d '' res; do
  cubin="${res%.res-usage.txt}.cubin"
  checked=$((checked + 1))
  if [ ! -f "$cubin" ]; then
    echo "MISSING $cubin (beside $res)"
    continue
  fi
  if out="$("$tool" "$cubin" 2>&1)" && [ "$out" == "$(cat "$res")" ]; then
    equal=$((equal + 1))
  else
    echo "DIFFERENT $cubin"
    diff <(printf '%s\n' "$out") "$res" | sed 's/^/  /' || true
  fi
done < <(find "$corpus" -name '*.res-usage.txt' -print0 | sort -z)
echo "$equal of $checked cubins: resources equal to cuobjdump -res-usage"
[ "$checked" -gt 0 ] && [ "$equal" -eq "$checked" ]
