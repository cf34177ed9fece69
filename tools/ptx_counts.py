"""Opcode counters for PTX and SASS text, shared by the fixture scripts.

Counts the instruction families the fixtures are about (shared-memory staging,
barriers, shuffles, tensor-core and TMEM instructions), over the whole kernel
and inside loops. SASS lines under the never-true predicate (`@!PT`, `@!UPT`)
never execute: they are counted apart (`never_executed`), not as instructions. A "loop" is the span between a label and a later branch back
to it, in PTX (`$L__BB0_3:` ... `bra $L__BB0_3;`) and in nvdisasm SASS
(`.L_x_12:` ... `BRA `.L_x_12``). Plain Python, no Triton needed:

    python3 tools/ptx_counts.py KERNEL.ptx [KERNEL.sass ...]
"""
import json
import re
import sys

# PTX families: name -> regex over one instruction line.
PTX_PATTERNS = {
    "st.shared": r"\bst(?:\.volatile)?\.shared\b",
    "ld.shared": r"\bld(?:\.volatile)?\.shared\b",
    "stmatrix": r"\bstmatrix\b",
    "ldmatrix": r"\bldmatrix\b",
    "bar.sync": r"\bbar(?:rier)?(?:\.cta)?\.sync\b",
    "shfl.sync": r"\bshfl\.sync\b",
    "wgmma.mma_async": r"\bwgmma\.mma_async\b",
    "wgmma.wait_group": r"\bwgmma\.wait_group\b",
    "tcgen05.mma": r"\btcgen05\.mma\b",
    "tcgen05.st": r"\btcgen05\.st\b",
    "tcgen05.ld": r"\btcgen05\.ld\b",
    "tcgen05.commit": r"\btcgen05\.commit\b",
    "cp.async.bulk.tensor": r"\bcp\.async\.bulk\.tensor\b",
    "mbarrier": r"\bmbarrier\.",
    "setmaxnreg": r"\bsetmaxnreg\b",
}

# SASS families: name -> regex over the opcode (first word after the predicate).
SASS_PATTERNS = {
    "STS": r"^STS(\.|$)",
    "LDS": r"^LDS(\.|$)",
    "STSM": r"^STSM(\.|$)",
    "LDSM": r"^LDSM(\.|$)",
    "BAR.SYNC": r"^BAR\.SYNC",
    "SHFL": r"^SHFL(\.|$)",
    "HGMMA": r"^HGMMA(\.|$)",
    "WARPGROUP.ARRIVE": r"^WARPGROUP\.ARRIVE",
    "WARPGROUP.DEPBAR": r"^WARPGROUP\.DEPBAR",
    "UTCHMMA": r"^UTC[HQIO]MMA(\.|$)",
    "STTM": r"^STTM(\.|$)",
    "LDTM": r"^LDTM(\.|$)",
    "UTCBAR": r"^UTCBAR(\.|$)",
    "UTMALDG": r"^UTMALDG(\.|$)",
    "SYNCS": r"^SYNCS(\.|$)",
    "USETMAXREG": r"^USETMAXREG(\.|$)",
    "STL": r"^STL(\.|$)",
    "LDL": r"^LDL(\.|$)",
    "ULOP3.LUT": r"^ULOP3\.LUT",
    "USHF.R.U32.HI": r"^USHF\.R\.U32\.HI",
}

_PTX_RE = {k: re.compile(v) for k, v in PTX_PATTERNS.items()}
_SASS_RE = {k: re.compile(v) for k, v in SASS_PATTERNS.items()}
_PTX_LABEL = re.compile(r"^\s*(\$[\w]+):")
_PTX_BRA = re.compile(r"\bbra(?:\.uni)?\s+(\$[\w]+);")
_SASS_LABEL = re.compile(r"^\s*(\.L_x_\d+|LBB\d+):")
_SASS_BRA = re.compile(r"\bBRA\b.*?`?\(?(\.L_x_\d+|LBB\d+)\)?`?")
# nvdisasm -c: "        /*0130*/                   @!P0 BRA `(.L_x_1) ;"
# triton.tools.disasm (TRITON_KERNEL_DUMP): "02:-:-:Y:4\t@!P0 BRA LBB0;"
_SASS_INSN = re.compile(r"^(?:\s*/\*[0-9a-f]+\*/\s+|(?:--|\d\d):[-0-7]:[-0-7]:[Y-]:[0-9a-f]\t)"
                        r"(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)")
# The never-true predicate: the line never executes and is not counted.
_SASS_NEVER = re.compile(r"^@!U?PT\s")


def _loop_mask(lines, label_re, bra_re):
    """Marks the lines that lie between a label and a later branch back to it."""
    where = {}
    mask = [False] * len(lines)
    for i, line in enumerate(lines):
        m = label_re.match(line)
        if m:
            where[m.group(1)] = i
        m = bra_re.search(line)
        if m and m.group(1) in where and where[m.group(1)] < i:
            for j in range(where[m.group(1)], i + 1):
                mask[j] = True
    return mask


def _strip_ptx_comment(line):
    return line.split("//", 1)[0]


def count_ptx(text):
    lines = text.splitlines()
    mask = _loop_mask(lines, _PTX_LABEL, _PTX_BRA)
    total = {k: 0 for k in PTX_PATTERNS}
    loop = {k: 0 for k in PTX_PATTERNS}
    for line, in_loop in zip(lines, mask):
        code = _strip_ptx_comment(line)
        if not code.strip() or code.lstrip().startswith("."):
            continue
        for k, r in _PTX_RE.items():
            if r.search(code):
                total[k] += 1
                if in_loop:
                    loop[k] += 1
    return {"total": total, "loop": loop}


def count_sass(text):
    lines = text.splitlines()
    mask = _loop_mask(lines, _SASS_LABEL, _SASS_BRA)
    total = {k: 0 for k in SASS_PATTERNS}
    loop = {k: 0 for k in SASS_PATTERNS}
    n = never = 0
    for line, in_loop in zip(lines, mask):
        m = _SASS_INSN.match(line)
        if not m:
            continue
        if m.group(1) and _SASS_NEVER.match(m.group(1)):
            never += 1
            continue
        n += 1
        op = m.group(2)
        for k, r in _SASS_RE.items():
            if r.search(op):
                total[k] += 1
                if in_loop:
                    loop[k] += 1
    return {"total": total, "loop": loop, "instructions": n, "never_executed": never}


def count_file(path):
    text = open(path, errors="replace").read()
    if path.endswith(".ptx"):
        return count_ptx(text)
    return count_sass(text)


if __name__ == "__main__":
    json.dump({p: count_file(p) for p in sys.argv[1:]}, sys.stdout, indent=1)
    print()
