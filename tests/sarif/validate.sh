#!/usr/bin/env bash
# Validates gestell's SARIF the way GitHub code scanning will read it:
#   1. against the official SARIF 2.1.0 JSON schema that
#      @microsoft/sarif-multitool ships (ajv-cli + ajv-formats, draft 2020-12
#      as the schema declares);
#   2. with `sarif-multitool validate`, which exits 0 even when it finds
#      errors: its own SARIF output is read and any error-level result fails.
# The runs cover the real corpus with every test check (results with Python
# source and artifact locations, notes, fix hints, tool notifications from a
# failing check), a config with suppressions, and TritonParse traces.
# Usage: validate.sh GESTELL TEST_PLUGIN_DIR SOURCE_DIR
set -euo pipefail
gestell=$1 plugins=$2 src=$3
here="$src/tests/sarif"
if [ ! -d "$here/node_modules" ]; then
  echo "FAIL: $here/node_modules is missing: run tools/deps.sh (npm ci)" >&2
  exit 1
fi
schema=$(find "$here/node_modules/@microsoft" -name 'sarif-2.1.0.json' -o -name 'sarif-schema-2.1.0.json' | head -1)
if [ -z "$schema" ]; then
  echo "FAIL: no SARIF 2.1.0 schema in @microsoft/sarif-multitool" >&2
  exit 1
fi
export DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1 DOTNET_CLI_TELEMETRY_OPTOUT=1
work=$(mktemp -d "${TMPDIR:-/tmp}/gestell-sarif.XXXXXX")
trap 'rm -rf "$work"' EXIT
corpus="$src/tests/corpus/triton-3.6.0"
load=(--load="$plugins/gestell-test.so" --load="$plugins/gestell-example.so")

# Every check, failures included (exit 2 expected: test-fails fails).
set +e
"$gestell" "${load[@]}" --checks='*' --format=sarif -o "$work/all.sarif" \
  --path-map=/src="$corpus/src" "$corpus/bundles" "$corpus/caches" 2>/dev/null
status=$?
set -e
[ "$status" = 2 ] || { echo "FAIL: expected exit 2 from the run with test-fails, got $status" >&2; exit 1; }
# Suppressions, warnings as errors, repository-relative source paths.
set +e
"$gestell" "${load[@]}" --config="$src/tests/lit/config/Inputs/team.toml" \
  --format=sarif -o "$work/team.sarif" --path-map=/src=. "$corpus/bundles" 2>/dev/null
status=$?
set -e
[ "$status" = 1 ] || { echo "FAIL: expected exit 1 from the team config run, got $status" >&2; exit 1; }
grep -q '"justification"' "$work/team.sarif" || { echo "FAIL: no suppression in team.sarif" >&2; exit 1; }
# --baseline: results marked new, unchanged, updated and absent.
fixtures="$src/tests/fixtures/sm100-attn-tmem-w8"
for pair in "baseline roundtrip" "roundtrip baseline"; do
  set -- $pair
  "$gestell" --load="$plugins/gestell-test-bstate.so" --checks='-*,bstate-*' --format=sarif \
    -o "$work/baseline-$1.sarif" --baseline="$fixtures/$1" "$fixtures/$2" 2>/dev/null
done
for state in new unchanged updated; do
  grep -q "\"baselineState\": \"$state\"" "$work/baseline-baseline.sarif" || { echo "FAIL: no $state result in baseline-baseline.sarif" >&2; exit 1; }
done
grep -q '"baselineState": "absent"' "$work/baseline-roundtrip.sarif" || { echo "FAIL: no absent result in baseline-roundtrip.sarif" >&2; exit 1; }
grep -q '"toolExecutionNotifications": \[$' "$work/all.sarif" || { echo "FAIL: no notification in all.sarif" >&2; exit 1; }
# A TritonParse trace (docs/traces.md): locations in the trace file with the
# stage in their messages, its cubins through --trace-cache.
traces="$src/tests/corpus/tritonparse"
"$gestell" --format=sarif -o "$work/trace.sarif" --path-map=/src="$corpus/src" \
  --trace-cache="$traces/sm90/triton-cache" "$traces/sm90/logs" "$traces/findhao" 2>/dev/null
grep -q 'In the trace event: ' "$work/trace.sarif" || { echo "FAIL: no trace location in trace.sarif" >&2; exit 1; }

cd "$here"
failed=0
for f in all team baseline-baseline baseline-roundtrip trace; do
  cp "$work/$f.sarif" "$work/$f.json" # ajv-cli reads data by extension
  if ! npx --no-install ajv validate --spec=draft2020 -c ajv-formats --strict=false \
      -s "$schema" -d "$work/$f.json" --errors=text; then
    failed=1
  fi
  npx --no-install sarif-multitool validate "$work/$f.sarif" \
    -o "$work/$f.validation.sarif" --log ForceOverwrite > "$work/$f.validation.log" 2>&1 || true
  if ! python3 - "$work/$f.validation.sarif" "$work/$f.validation.log" <<'PY'
import json, sys
path, log = sys.argv[1], sys.argv[2]
try:
    doc = json.load(open(path))
except Exception as e:
    print(f"FAIL: sarif-multitool produced no readable output ({e}):")
    print(open(log).read())
    sys.exit(1)
errors = []
for run in doc.get("runs", []):
    rules = run.get("tool", {}).get("driver", {}).get("rules", [])
    for r in run.get("results", []):
        level = r.get("level")
        if level is None and "ruleIndex" in r and r["ruleIndex"] < len(rules):
            level = rules[r["ruleIndex"]].get("defaultConfiguration", {}).get("level")
        if (level or "warning") == "error":
            errors.append(r)
    for inv in run.get("invocations", []):
        for n in inv.get("toolExecutionNotifications", []):
            if n.get("level") == "error":
                errors.append(n)
warnings = sum(1 for run in doc.get("runs", []) for r in run.get("results", [])
               if r not in errors)
if errors:
    print(f"FAIL: sarif-multitool validate found {len(errors)} error(s):")
    print(open(log).read())
    sys.exit(1)
print(f"sarif-multitool validate {path}: 0 errors, {warnings} warning(s)")
PY
  then
    failed=1
  fi
done
[ "$failed" = 0 ] && echo "PASS: SARIF valid against the 2.1.0 schema and sarif-multitool"
exit "$failed"
