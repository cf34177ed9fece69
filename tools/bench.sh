#!/usr/bin/env bash
# Benchmarks gestell against grep and against a Python regex parse of SASS.
# Figures are printed, never asserted: this is not a test.
#
#   tools/bench.sh [--copies N] [--runs K] [--build DIR] [--no-callgrind] SWEEP_CACHE
#
# SWEEP_CACHE: a Triton cache folder, e.g. the team corpus's
# triton-3.6.0/sweep/sm90-matmul-cache (72 matmul variants for sm90, each
# .source .ttir .ttgir .llir .ptx .cubin .json and no SASS).
#
# In one run it measures, on copies made in a temporary folder:
#   sweep    SWEEP_CACHE once;
#   copies   N copies of it side by side (default 24);
#   sass     every bundle of tests/corpus/triton-3.6.0/bundles that has a
#            .sass (nvdisasm -c -gi) beside its cubin: the SASS the sweep
#            lacks, with both renderings where the corpus has them;
#   cuobjdump the same bundles with only the .cuobjdump.sass rendering (the
#            format Triton's tools/disasm.py reads);
#   nvcache  the same bundles with no SASS at all, as a Triton cache holds
#            them, read without nvdisasm and with a stand-in nvdisasm (it
#            prints the corpus's own .sass) whose output gestell caches:
#            with the listings alone (no counts can be kept, so each run
#            parses them), and with the counts gestell keeps beside them (a
#            counting run parses nothing);
#   realworld tests/corpus/realworld: real Triton 3.6.0 caches of Triton's
#            tutorials and Gluon examples (sm90 and sm100, nvdisasm SASS
#            beside every cubin), which nobody on the team wrote.
# Commands: gestell check --format=sarif, gestell stats, gestell diff A A
# (the same folder as both states: every kernel pair untouched, so each is
# read once and checked on neither side), on the sweep also gestell diff
# A A' (a copy with every .ptx and .ttir touched: every pair read on both
# sides and checked), gestell stats --stages=sass, against
#   (a) one `grep -rcE` pass over every file of the folder: the old
#       reference, kept for continuity;
#   (b) `grep -cE` over only the files that gestell command opened (found
#       with strace; without strace, by extension: the stages it reads);
#   (c) a Python regex parse of the SASS files gestell reads, line by line
#       as Triton's tools/disasm.py does (instruction and control-word
#       regexes, control bits decoded, branch targets labelled).
# Last, where the instructions of check and diff A A on the sweep go: each
# phase's entry point (TTGIR parse, PTX parse, conversions, report, ...)
# with callgrind's inclusive count, and the rest.
# grep's pattern is the instructions of the nine families, PTX and SASS
# spellings (docs/families.md); grep runs with LC_ALL=C, its fastest setting.
#
# Columns:
#   wall s     best of K runs after one warm-up (page cache warm), gestell at
#              its default -j (one thread per core);
#   Minstr     instructions executed, millions (valgrind --tool=callgrind,
#              every process of the command; gestell with -j1); only on the
#              sets of one copy, where valgrind exists;
#   peak MiB   largest resident set of the command's processes
#              (/usr/bin/time, else Python's resource module), default -j;
#   x grep-all instructions / those of (a) on the same folder (wall when
#              there are no instruction counts);
#   x grep-read instructions / those of (b) for the same command's files.
set -euo pipefail

usage() {
  echo "usage: $0 [--copies N] [--runs K] [--build DIR] [--no-callgrind] SWEEP_CACHE" >&2
  exit 2
}
here="$(cd "$(dirname "$0")/.." && pwd)"
copies=24
runs=5
build="$here/build"
callgrind=1
sweep_src=""
while [ $# -gt 0 ]; do
  case "$1" in
  --copies) copies=${2:?}; shift 2 ;;
  --copies=*) copies=${1#*=}; shift ;;
  --runs) runs=${2:?}; shift 2 ;;
  --runs=*) runs=${1#*=}; shift ;;
  --build) build=${2:?}; shift 2 ;;
  --build=*) build=${1#*=}; shift ;;
  --no-callgrind) callgrind=0; shift ;;
  -h | --help) usage ;;
  -*) echo "$0: unknown option $1" >&2; usage ;;
  *) [ -z "$sweep_src" ] || usage; sweep_src=$1; shift ;;
  esac
done
[ -n "$sweep_src" ] && [ -d "$sweep_src" ] || usage
[[ "$copies" =~ ^[0-9]+$ ]] && [ "$copies" -ge 2 ] || { echo "$0: --copies must be 2 or more" >&2; exit 2; }
[[ "$runs" =~ ^[0-9]+$ ]] && [ "$runs" -ge 1 ] || { echo "$0: --runs must be 1 or more" >&2; exit 2; }
sweep_src="$(cd "$sweep_src" && pwd)"
build="$(cd "$build" && pwd)"
gestell="$build/bin/gestell"
[ -x "$gestell" ] || { echo "$0: $gestell not found: build first" >&2; exit 2; }
bundles="$here/tests/corpus/triton-3.6.0/bundles"
[ -d "$bundles" ] || { echo "$0: $bundles not found" >&2; exit 2; }
if [ "$callgrind" = 1 ] && ! command -v valgrind >/dev/null; then callgrind=0; fi
have_strace=0
command -v strace >/dev/null && have_strace=1
have_time=0
[ -x /usr/bin/time ] && /usr/bin/time -f %M true >/dev/null 2>&1 && have_time=1

pattern='(mma\.|wgmma\.|tcgen05\.|ldmatrix|stmatrix|cp\.async|tensormap|ld\.(shared|global|local)|st\.(shared|global|local)|atom\.|red\.|bar\.|barrier\.|mbarrier\.|fence\.|HMMA|HGMMA|UTC[A-Z]*MMA|LDTM|STTM|LDSM|STSM|UTMA|LDS|STS|LDG|STG|LDL|STL|ATOM|BAR\.|SYNCS|WARPGROUP|DEPBAR|MEMBAR)'

tmp="$(mktemp -d "${TMPDIR:-/tmp}/gestell-bench.XXXXXX")"
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME="$tmp/xdg" # gestell's SASS cache stays in the temp folder

#===-- The sets ------------------------------------------------------------===#
copy_tree() { cp -r "$1" "$2" && chmod -R u+w "$2"; }
copy_tree "$sweep_src" "$tmp/sweep"
# The sweep as a build that touched every kernel: one comment line more at
# the end of each .ptx and .ttir (diff's untouched pairs are read once and
# not checked; here every pair is read on both sides and checked).
copy_tree "$sweep_src" "$tmp/sweep-touched"
find "$tmp/sweep-touched" \( -name '*.ptx' -o -name '*.ttir' \) -exec sh -c 'for f; do echo "// touched" >>"$f"; done' sh {} +
copy_tree "$here/tests/corpus/realworld" "$tmp/realworld"
mkdir "$tmp/copies"
for i in $(seq -w 1 "$copies"); do copy_tree "$sweep_src" "$tmp/copies/copy$i"; done
mkdir -p "$tmp/sass" "$tmp/cuobjdump" "$tmp/nvcache" "$tmp/nvcache-sass"
for d in "$bundles"/*/*/; do
  ls "$d"*.sass >/dev/null 2>&1 || continue
  ls "$d"*.cubin >/dev/null 2>&1 || continue
  rel="$(basename "$(dirname "$d")")/$(basename "$d")"
  mkdir -p "$tmp/sass/$rel" "$tmp/nvcache/$rel" "$tmp/nvcache-sass/$rel"
  cp "$d"* "$tmp/sass/$rel/"
  for f in "$d"*; do
    case "$f" in
    *.cuobjdump.sass) mkdir -p "$tmp/cuobjdump/$rel"; cp "$f" "$tmp/cuobjdump/$rel/" ;;
    *.sass) cp "$f" "$tmp/nvcache-sass/$rel/" ;;
    *) cp "$f" "$tmp/nvcache/$rel/" ;;
    esac
  done
done
# The cuobjdump set: the other stages too, so kernels are whole.
for d in "$tmp/cuobjdump"/*/*/; do
  rel="${d#"$tmp/cuobjdump/"}"
  for f in "$tmp/nvcache/$rel"*; do cp "$f" "$d"; done
done
chmod -R u+w "$tmp"
# The stand-in nvdisasm: `nvdisasm -c -gi X.cubin` prints the corpus's
# nvdisasm -c -gi rendering of that cubin (gestell caches what it prints).
mkdir "$tmp/bin"
cat >"$tmp/bin/nvdisasm" <<EOF
#!/bin/sh
for a in "\$@"; do cubin="\$a"; done
rel="\${cubin#$tmp/nvcache/}"
exec cat "$tmp/nvcache-sass/\${rel%.cubin}.sass"
EOF
chmod +x "$tmp/bin/nvdisasm"

# The Python parse of SASS, as Triton's tools/disasm.py reads cuobjdump
# output: line regexes for function headers, instructions (offset, text,
# encoding) and the control word on the next line, whose scheduling bits
# are decoded; branch targets become labels. Also reads nvdisasm -c output
# (no encodings). Prints the instructions per file.
cat >"$tmp/sass_regex.py" <<'EOF'
import re, sys
FUNC = re.compile(r'\s*(?:Function : ([\w$.]+)|\.text\.([\w$.]+):)')
INSN = re.compile(r'\s*/\*([0-9a-f]{4,})\*/\s*([^;]*;)(?:\s*/\* 0x([0-9a-f]{16}) \*/)?')
CTRL = re.compile(r'\s*/\* 0x([0-9a-f]{16}) \*/\s*$')
PRED = re.compile(r'@!?U?P(?:T|\d)\s+')
BRA = re.compile(r'(.*BRA(?:\.U)?\s+)(?:`\()?(0x[0-9a-f]+|\.L_x_\d+)')

def ctrl_bits(word):
    enc = int(word, 16)
    stall, yld = (enc >> 41) & 0xf, (enc >> 45) & 0x1
    wrtdb, readb, watdb = (enc >> 46) & 0x7, (enc >> 49) & 0x7, (enc >> 52) & 0x3f
    return '%s:%s:%s:%s:%x' % ('--' if watdb == 0 else '%02d' % watdb,
                               '-' if readb == 7 else readb,
                               '-' if wrtdb == 7 else wrtdb,
                               'Y' if yld == 0 else '-', stall)

total = 0
for path in sys.argv[1:]:
    funcs, opcodes, labels, ctrls = [], {}, {}, 0
    with open(path, errors='replace') as f:
        lines = f.read().splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        m = FUNC.match(line)
        if m:
            funcs.append(m.group(1) or m.group(2))
            continue
        m = INSN.match(line)
        if not m:
            continue
        asm = PRED.sub('', m.group(2).strip(), count=1)
        op = asm.split(None, 1)[0].rstrip(';')
        opcodes[op] = opcodes.get(op, 0) + 1
        b = BRA.match(asm)
        if b and b.group(2) not in labels:
            labels[b.group(2)] = len(labels)
        if m.group(3) and i < len(lines):
            c = CTRL.match(lines[i])
            if c:
                ctrl_bits(c.group(1))
                ctrls += 1
                i += 1
    n = sum(opcodes.values())
    total += n
    print('%s: %d instructions, %d opcodes, %d functions, %d labels, %d control words'
          % (path, n, len(opcodes), len(funcs), len(labels), ctrls))
print('total:', total)
EOF

#===-- Measuring -----------------------------------------------------------===#
declare -A WALL INSN RSS NOTE
python="$(python3 -c 'import sys; print(sys.executable)')" # not a pyenv shim

now_ns() { date +%s%N; }
# measure KEY CALLGRIND(0/1) CMD...: wall (best of $runs after a warm-up)
# and peak RSS of CMD, and with CALLGRIND=1 its instructions. An argument
# @J is dropped, except under callgrind where it becomes -j1.
measure() {
  local key=$1 cg=$2 best="" start end t rc=0 a
  shift 2
  local cmd=() cmd1=()
  for a in "$@"; do
    if [ "$a" = @J ]; then cmd1+=(-j1); else cmd+=("$a"); cmd1+=("$a"); fi
  done
  "${cmd[@]}" >"$tmp/out.txt" 2>"$tmp/err.txt" || rc=$?
  if [ "$rc" -gt 1 ]; then
    NOTE[$key]="exit $rc: $(tail -1 "$tmp/err.txt" | cut -c1-110)"
  fi
  for ((r = 0; r < runs; r++)); do
    start=$(now_ns)
    "${cmd[@]}" >/dev/null 2>&1 || true
    end=$(now_ns)
    t=$((end - start))
    if [ -z "$best" ] || [ "$t" -lt "$best" ]; then best=$t; fi
  done
  WALL[$key]=$(awk -v ns="$best" 'BEGIN { printf "%.4f", ns / 1e9 }')
  if [ "$have_time" = 1 ]; then
    /usr/bin/time -o "$tmp/rss.txt" -f %M "${cmd[@]}" >/dev/null 2>&1 || true
    RSS[$key]=$(tail -1 "$tmp/rss.txt")
  else
    RSS[$key]=$("$python" -c 'import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "${cmd[@]}")
  fi
  if [ "$cg" = 1 ] && [ "$callgrind" = 1 ]; then
    rm -f "$tmp"/vg.*
    valgrind --tool=callgrind --trace-children=yes \
      --callgrind-out-file=/dev/null --log-file="$tmp/vg.%p" "${cmd1[@]}" \
      >/dev/null 2>&1 || true
    INSN[$key]=$(cat "$tmp"/vg.* | awk '/Collected :/ { s += $NF } END { print s + 0 }')
  fi
}

# opened KEY DIR CMD...: the regular files under DIR that CMD opens, as a
# NUL-separated list in $tmp/files.KEY (strace); without strace, the files
# of the extensions in $FALLBACK_EXT. $tmp/sass.KEY: the .sass among them.
opened() {
  local key=$1 dir=$2
  shift 2
  if [ "$have_strace" = 1 ]; then
    # One log per thread (-ff), so no call is split across lines.
    rm -f "$tmp"/strace.*
    strace -ff -qq -e trace=open,openat -o "$tmp/strace" "$@" >/dev/null 2>&1 || true
    cat "$tmp"/strace.* | sed -nE 's/^open(at)?\((AT_FDCWD, )?"([^"]+)".* = [0-9]+$/\3/p' |
      sort -u | while IFS= read -r f; do
        case "$f" in "$dir"/*) [ -f "$f" ] && printf '%s\0' "$f" ;; esac
      done >"$tmp/files.$key"
  else
    local args=() e
    for e in $FALLBACK_EXT; do args+=(-o -name "*$e"); done
    find "$dir" -type f \( "${args[@]:1}" \) -print0 | sort -z >"$tmp/files.$key"
  fi
  tr '\0' '\n' <"$tmp/files.$key" | grep -E '\.sass$' | tr '\n' '\0' >"$tmp/sass.$key" || true
}
describe_files() { # KEY: "72 .cubin, 72 .json, ..."
  tr '\0' '\n' <"$tmp/files.$1" | sed -E 's/.*(\.cuobjdump\.sass|\.res-usage\.txt|\.[a-z]+)$/\1/' |
    sort | uniq -c | awk '{ printf "%s%d %s", (NR > 1 ? ", " : ""), $1, $2 } END { if (!NR) printf "none" }'
}
files_bytes() { xargs -0 -r -a "$tmp/files.$1" cat | wc -c; }
files_count() { tr -cd '\0' <"$tmp/files.$1" | wc -c; }
bytes_under() { find "$1" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }'; }

# The commands compared, as words for measure (G: gestell VERB @J ...).
GREP_ALL=(env LC_ALL=C grep -rcE "$pattern")    # + FOLDER
GREP_FILES=(env LC_ALL=C xargs -0 -r -a)         # + LIST grep -cE PATTERN
PY_SASS=(xargs -0 -r -a)                         # + LIST python script

declare -a ROWS
row() { ROWS+=("$1|$2"); } # KEY|label

mib() { awk -v k="$1" 'BEGIN { if (k == "") print "-"; else printf "%.1f", k / 1024 }'; }
minstr() { awk -v n="$1" 'BEGIN { if (n == "") print "-"; else printf "%.1f", n / 1e6 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b == 0) print "-"; else printf "%.2f", a / b }'; }

# table TITLE GREPALL_KEY: the rows collected so far, then clears them.
table() {
  local title=$1 ref=$2 r key label ref_read
  echo "== $title"
  printf '  %-68s %8s %9s %9s %9s %9s\n' "" "wall s" "Minstr" "peak MiB" "x grep-all" "x grep-read"
  for r in "${ROWS[@]}"; do
    key=${r%%|*}
    label=${r#*|}
    ref_read=${READREF[$key]:-}
    local a b
    if [ -n "${INSN[$ref]:-}" ] && [ -n "${INSN[$key]:-}" ]; then
      a=$(ratio "${INSN[$key]}" "${INSN[$ref]}")
      b=$([ -n "$ref_read" ] && ratio "${INSN[$key]}" "${INSN[$ref_read]:-}" || echo -)
    else
      a=$(ratio "${WALL[$key]}" "${WALL[$ref]}")
      b=$([ -n "$ref_read" ] && ratio "${WALL[$key]}" "${WALL[$ref_read]:-}" || echo -)
    fi
    printf '  %-68s %8s %9s %9s %9s %9s\n' "$label" "${WALL[$key]}" "$(minstr "${INSN[$key]:-}")" \
      "$(mib "${RSS[$key]:-}")" "$a" "$b"
    [ -z "${NOTE[$key]:-}" ] || echo "      ^ ${NOTE[$key]}"
  done
  echo
  ROWS=()
}
declare -A READREF # gestell row -> its grep-read row

#===-- Runs ----------------------------------------------------------------===#
cores=$(nproc)
echo "gestell benchmark: $(date -u +%F), $cores cores, load $(cut -d' ' -f1 /proc/loadavg), best of $runs runs"
echo "gestell: $gestell ($("$gestell" --version 2>/dev/null | head -1)); checkout at $(cd "$here" && git rev-parse --short HEAD 2>/dev/null || echo '?')"
if command -v nvdisasm >/dev/null; then
  echo "nvdisasm on PATH: $(command -v nvdisasm) (the sweep's SASS comes from it, cached)"
else
  echo "no nvdisasm on PATH: the sweep and its copies have no SASS (the checks that read it skip);"
  echo "the SASS columns come from the tests/corpus bundles (sets sass, cuobjdump, nvcache)"
fi
[ "$callgrind" = 1 ] || echo "no instruction counts (valgrind missing or --no-callgrind): ratios are of wall time"
[ "$have_strace" = 1 ] || echo "no strace: 'files it opened' are the files of the stages each verb reads, by extension"
echo

# One set: grep over all, the files each verb opens, the three verbs.
verb_rows() { # PREFIX DIR CALLGRIND
  local p=$1 d=$2 cg=$3 v
  FALLBACK_EXT=".ttgir .ptx .sass .cuobjdump.sass .cubin .json .source .ttir" \
    opened "$p.check" "$d" "$gestell" check --format=sarif "$d"
  FALLBACK_EXT=".ttgir .ptx .sass .cuobjdump.sass .cubin .json" \
    opened "$p.stats" "$d" "$gestell" stats "$d"
  FALLBACK_EXT=".ttgir .ptx .sass .cuobjdump.sass .cubin .json .source .ttir" \
    opened "$p.diff" "$d" "$gestell" diff "$d" "$d"
  measure "$p.grep" "$cg" "${GREP_ALL[@]}" "$d"
  row "$p.grep" "(a) grep -rcE, every file ($(($(bytes_under "$d") / 1000000)) MB)"
  for v in check stats diff; do
    measure "$p.grep.$v" "$cg" "${GREP_FILES[@]}" "$tmp/files.$p.$v" grep -cE "$pattern"
    row "$p.grep.$v" "(b) grep -cE, the $(files_count "$p.$v") files $v opens ($(($(files_bytes "$p.$v") / 1000000)) MB)"
  done
  measure "$p.check" "$cg" "$gestell" check @J --format=sarif "$d"
  row "$p.check" "gestell check --format=sarif"
  READREF[$p.check]="$p.grep.check"
  measure "$p.stats" "$cg" "$gestell" stats @J "$d"
  row "$p.stats" "gestell stats"
  READREF[$p.stats]="$p.grep.stats"
  measure "$p.diff" "$cg" "$gestell" diff @J "$d" "$d"
  row "$p.diff" "gestell diff A A (the folder as both states: untouched)"
  READREF[$p.diff]="$p.grep.diff"
}

kernels_in() { find "$1" -name '*.cubin' | wc -l; }
n_sweep=$(kernels_in "$tmp/sweep")
n_copies=$(kernels_in "$tmp/copies")

verb_rows sweep "$tmp/sweep" 1
measure sweep.difft 1 "$gestell" diff @J "$tmp/sweep" "$tmp/sweep-touched"
row sweep.difft "gestell diff A A' (A' = A, every .ptx and .ttir touched)"
# One kernel of each distinct .ttgir text: check parses each text once
# (the kernels of one text share it, driver/SameTtgir.h), so the sweep's
# figure holds only its distinct texts' parses. This says what they cost.
mkdir -p "$tmp/distinct"
find "$tmp/sweep" -name '*.ttgir' -print0 | xargs -0 md5sum | sort -k2 |
  awk '!seen[$1]++ { print $2 }' | while IFS= read -r f; do
  cp -r "$(dirname "$f")" "$tmp/distinct/"
done
n_distinct=$(kernels_in "$tmp/distinct")
measure distinct.check 1 "$gestell" check @J --format=sarif "$tmp/distinct"
measure distinct.grep 1 "${GREP_ALL[@]}" "$tmp/distinct"
echo "sweep: $n_distinct distinct .ttgir texts of $n_sweep kernels; check --format=sarif on one kernel of each:" \
  "$(minstr "${INSN[distinct.check]:-}") Minstr, $(ratio "${INSN[distinct.check]:-}" "${INSN[distinct.grep]:-}")x" \
  "grep -rcE over those kernels' files ($(minstr "${INSN[distinct.grep]:-}") Minstr)"
echo "sweep: files check opens: $(describe_files sweep.check)"
echo "       files stats opens: $(describe_files sweep.stats)"
echo "       files diff opens:  $(describe_files sweep.diff)"
echo
table "sweep: $n_sweep kernels (SWEEP_CACHE, one copy)" sweep.grep

verb_rows copies "$tmp/copies" 0
table "copies: $n_copies kernels ($copies copies of the sweep; no callgrind)" copies.grep

# stats --stages=sass on SET's folder DIR, whose SASS files end in EXT,
# against grep over the files it opens and a Python regex parse of them.
sass_only_rows() {
  local set=$1 dir=$2 ext=$3
  FALLBACK_EXT="$ext .cubin .json" opened "$set.sassonly" "$dir" "$gestell" stats --stages=sass "$dir"
  measure "$set.grep.sassonly" 1 "${GREP_FILES[@]}" "$tmp/files.$set.sassonly" grep -cE "$pattern"
  row "$set.grep.sassonly" "(b) grep -cE, the files stats --stages=sass opens"
  measure "$set.sassonly" 1 "$gestell" stats @J --stages=sass "$dir"
  row "$set.sassonly" "gestell stats --stages=sass (parses and counts the SASS)"
  READREF[$set.sassonly]=$set.grep.sassonly
  measure "$set.py" 1 "${PY_SASS[@]}" "$tmp/sass.$set.sassonly" "$python" "$tmp/sass_regex.py"
  row "$set.py" "(c) Python regex parse, disasm.py style, of the same $ext"
  READREF[$set.py]=$set.grep.sassonly
}

# SASS, nvdisasm rendering, from the corpus bundles.
n_sass=$(kernels_in "$tmp/sass")
verb_rows sass "$tmp/sass" 1
sass_only_rows sass "$tmp/sass" .sass
echo "sass: files stats --stages=sass opens: $(describe_files sass.sassonly)"
echo
table "sass: $n_sass kernels of tests/corpus with nvdisasm -c -gi SASS beside the cubin" sass.grep

# Real-world caches: what a user points gestell at.
n_real=$(kernels_in "$tmp/realworld")
verb_rows real "$tmp/realworld" 1
table "realworld: $n_real kernels of tests/corpus/realworld (real caches, SASS beside every cubin)" real.grep

# SASS, cuobjdump rendering (what disasm.py was written for).
n_cuo=$(kernels_in "$tmp/cuobjdump")
measure cuo.grep 1 "${GREP_ALL[@]}" "$tmp/cuobjdump"
row cuo.grep "(a) grep -rcE, every file"
sass_only_rows cuo "$tmp/cuobjdump" .cuobjdump.sass
table "cuobjdump: $n_cuo kernels with only the cuobjdump -sass rendering" cuo.grep

# The SASS cache: the sass set without its SASS, as a Triton cache.
measure nv.grep 1 "${GREP_ALL[@]}" "$tmp/nvcache"
row nv.grep "(a) grep -rcE, every file"
measure nv.none 1 env PATH="$tmp/nobin:/usr/bin:/bin" "$gestell" stats @J "$tmp/nvcache"
row nv.none "gestell stats, no nvdisasm (no SASS read)"
"$gestell" stats --nvdisasm="$tmp/bin/nvdisasm" "$tmp/nvcache" >/dev/null 2>&1 || true # fills the cache
# The listings alone: each counts file gestell kept is replaced by a folder
# of its name, where no counts can be read or written (as root too).
find "$XDG_CACHE_HOME/gestell" -name '*.counts' -type f \
  -exec sh -c 'for f; do rm "$f" && mkdir "$f"; done' sh {} +
measure nv.listing 1 "$gestell" stats @J --nvdisasm="$tmp/bin/nvdisasm" "$tmp/nvcache"
row nv.listing "gestell stats, warm SASS cache, listings only (parses them)"
find "$XDG_CACHE_HOME/gestell" -name '*.counts' -type d -exec rmdir {} +
"$gestell" stats --nvdisasm="$tmp/bin/nvdisasm" "$tmp/nvcache" >/dev/null 2>&1 || true # keeps the counts
measure nv.warm 1 "$gestell" stats @J --nvdisasm="$tmp/bin/nvdisasm" "$tmp/nvcache"
row nv.warm "gestell stats, warm SASS cache with its counts (parses no SASS)"
measure nv.beside 1 "$gestell" stats @J "$tmp/sass"
row nv.beside "gestell stats, the same SASS beside the cubins (set sass)"
table "nvcache: the $n_sass sass kernels with no SASS in the folder" nv.grep

#===-- Goals (issue 15) ----------------------------------------------------===#
goal() { # LABEL VALUE LIMIT UNIT
  local verdict
  verdict=$(awk -v v="$2" -v l="$3" 'BEGIN { if (v == "-" || v == "") print "not measured"; else if (v + 0 <= l + 0) print "met"; else print "NOT met" }')
  printf '  %-66s %10s %-6s (goal <= %s) %s\n' "$1" "$2" "$4" "$3" "$verdict"
}
pick() { [ -n "${INSN[$1]:-}" ] && [ -n "${INSN[$2]:-}" ] && ratio "${INSN[$1]}" "${INSN[$2]}" || echo -; }
echo "== goals of issue 15 (instructions from callgrind, -j1)"
goal "check --format=sarif / grep-all, instructions, sweep" "$(pick sweep.check sweep.grep)" 0.5 x
goal "check --format=sarif / grep over the files check opens, instr, sweep" "$(pick sweep.check sweep.grep.check)" 0.5 x
goal "diff A A / check, instructions, sweep" "$(pick sweep.diff sweep.check)" 1.5 x
echo "  (diff A A' / check, every pair touched, sweep: $(pick sweep.difft sweep.check) x; not a goal of the issue)"
goal "diff A A / check, instructions, sass set" "$(pick sass.diff sass.check)" 1.5 x
goal "stats warm SASS cache / stats without nvdisasm, instructions" "$(pick nv.warm nv.none)" 1.1 x
goal "stats warm SASS cache / stats with the SASS beside, instructions" "$(pick nv.warm nv.beside)" 1.1 x
goal "check / grep-all, wall, $copies copies" "$(ratio "${WALL[copies.check]}" "${WALL[copies.grep]}")" 0.5 x
goal "peak RSS, check --format=sarif, $copies copies" "$(mib "${RSS[copies.check]}")" 64 MiB
per_pair=$(awk -v a="${RSS[copies.diff]}" -v b="${RSS[sweep.diff]}" -v n="$n_copies" -v m="$n_sweep" \
  'BEGIN { printf "%.1f", (a - b) * 1024 / (n - m) / 1000 }')
goal "diff A A memory per kernel pair: (RSS at $copies copies - at 1) / pairs" "$per_pair" 10 KB
if [ "$copies" -lt 8 ]; then
  echo "  (at $copies copies the difference is within one run's RSS noise at -j$cores: the goal is measured with --copies 24)"
fi

#===-- Where the instructions go -------------------------------------------===#
# phases KEY CMD...: callgrind's inclusive count of each phase's entry point
# in one -j1 run of CMD (PHASE_COST[KEY,N]; PHASE_COST[KEY,total]).
PHASES=(
  "process start (dynamic loader)|_dl_start"
  "find the kernels|gestell::discoverKernels("
  ".json metadata|gestell::loadKernelMetadata(gestell::Kernel&)"
  "plugins, rule packs, family table|gestell::driver::LintSession::create("
  "prescans of .source/.ttir/.ptx text|gestell::stageMayMention("
  "TTGIR parse (layouts verified)|gestell::parseTtgir(llvm::StringRef)"
  "layout conversion analysis|gestell::ModuleConversions::ModuleConversions("
  "PTX parse|gestell::parsePtx(llvm::StringRef)"
  "SASS parse|gestell::parseSass(llvm::StringRef)"
  "instruction counts and families|gestell::KernelView::counts("
  "cubin headers and .nv.info|gestell::readCubin(llvm::StringRef)"
  "byte compare of untouched pairs|gestell::sameArtifactBytes("
  "SARIF report|gestell::driver::writeSarif("
)
declare -A PHASE_COST
phases() {
  local key=$1 out="$tmp/cg.phases" k line
  shift
  valgrind --tool=callgrind --callgrind-out-file="$out" "$@" >/dev/null 2>&1 || return 0
  callgrind_annotate --inclusive=yes --threshold=100 "$out" >"$out.txt" 2>/dev/null || return 0
  PHASE_COST[$key,total]=$(awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }' "$out.txt")
  for k in "${!PHASES[@]}"; do
    line=${PHASES[$k]#*|}
    # The function's own entry (its object file in brackets), not a line
    # inlined from it elsewhere: the largest count of its name.
    PHASE_COST[$key,$k]=$(awk -v f="$line" 'index($0, f) && !index($0, "=>") {
      gsub(",", "", $1); if ($1 + 0 > m) m = $1 + 0 } END { print m + 0 }' "$out.txt")
  done
}
if [ "$callgrind" = 1 ] && command -v callgrind_annotate >/dev/null; then
  phases check "$gestell" check -j1 --format=sarif "$tmp/sweep"
  phases diff "$gestell" diff -j1 "$tmp/sweep" "$tmp/sweep"
  echo
  echo "== where the instructions go, sweep (callgrind -j1, each phase's entry point, inclusive)"
  printf '  %-40s %14s %14s\n' "phase" "check Minstr" "diff A A"
  m() { awk -v n="$1" 'BEGIN { printf "%.1f", n / 1e6 }'; }
  sum_check=0 sum_diff=0
  for k in "${!PHASES[@]}"; do
    c=${PHASE_COST[check,$k]:-0} d=${PHASE_COST[diff,$k]:-0}
    [ "$c" = 0 ] && [ "$d" = 0 ] && continue
    printf '  %-40s %14s %14s\n' "${PHASES[$k]%%|*}" "$(m "$c")" "$(m "$d")"
    sum_check=$((sum_check + c)) sum_diff=$((sum_diff + d))
  done
  tc=${PHASE_COST[check,total]:-0} td=${PHASE_COST[diff,total]:-0}
  printf '  %-40s %14s %14s\n' "the rest (checks, matching, reports)" \
    "$(m $((tc - sum_check)))" "$(m $((td - sum_diff)))"
  printf '  %-40s %14s %14s\n' "total" "$(m "$tc")" "$(m "$td")"
fi

echo
echo "Minstr: millions of instructions (callgrind, all processes, gestell -j1). wall: best of $runs,"
echo "gestell at -j$cores. peak MiB: maximum resident set. x grep-all / x grep-read: this row over (a) / (b)."
