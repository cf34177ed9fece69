"""Ground truth for the cost of `ttg.convert_layout`, from the real compiler.

Two steps (issue 3, "Ground truth from the compiler"):

1. extract (any machine, no Triton):
       python3 tools/conversion_ground_truth.py extract \
           --corpus /path/to/corpus/triton-3.6.0 --out tests/fixtures/conversions
   finds every distinct `ttg.convert_layout` in the corpus TTGIR (aliases
   resolved to the full attribute text, module attributes, shape, dtype),
   plus the conversions that tests/fixtures/ inserts by hand, and writes for
   each one a minimal TTGIR module: `<id>/cvt.ttgir` loads a tensor in the
   source layout, converts it, stores it in the destination layout;
   `<id>/control.ttgir` is the same harness without the conversion (loads and
   stores in the source layout). The list goes to `rows.json`.

2. compile (machine with Triton 3.6.0; no GPU needed):
       python3 tools/conversion_ground_truth.py compile --dir tests/fixtures/conversions
   lowers both modules of every row (copied to /src/conversions/<id>/ first,
   so the PTX debug info names a stable path) with
   `triton.compile(path, target=GPUTarget("cuda", ARCH, 32))`, keeps
   `<id>/cvt.ptx`, counts st.shared / ld.shared / stmatrix / ldmatrix /
   bar.sync / shfl.sync in the conversion kernel minus the control kernel,
   classifies (`shared` if any shared-memory access, else `shuffle` if any
   shfl.sync, else `registers`) and writes `ground_truth.json`.

   A row of an AMD kernel (`"target": "hip:gfx942"`) is lowered with
   `GPUTarget("hip", ARCH, 64)` instead and read from its `<id>/cvt.amdgcn`:
   `ds_write`/`ds_read` (LDS) make it `shared`, else `ds_bpermute`,
   `ds_swizzle`, `v_permlane` or a DPP move make it `shuffle`
   (AMDGCN_KEYS).

   extract --merge adds the rows of another folder (the AMD caches of
   tests/corpus) to an existing rows.json instead of rewriting it.
"""
import argparse
import concurrent.futures as cf
import hashlib
import json
import os
import re
import subprocess
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from ptx_counts import count_ptx  # noqa: E402

COUNT_KEYS = ["st.shared", "ld.shared", "stmatrix", "ldmatrix", "bar.sync", "shfl.sync"]
# AMDGCN families: name -> regex over one instruction line of the .amdgcn.
AMDGCN_PATTERNS = {
    "ds_write": r"^\s*ds_(?:write|store)\w*",
    "ds_read": r"^\s*ds_(?:read|load)\w*",
    "s_barrier": r"^\s*s_barrier\b",
    "ds_bpermute": r"^\s*ds_(?:bpermute|permute|swizzle)\w*",
    "v_permlane": r"^\s*v_permlane\w*",
    "dpp": r"^\s*v_\w+_dpp\b|\b(?:quad_perm|row_shr|row_ror|row_bcast|row_mirror):",
}
AMDGCN_KEYS = list(AMDGCN_PATTERNS)


def is_hip(target):
    return target.startswith("hip:")


def asm_ext(target):
    """What a row's kernel is read from: "ptx", or "amdgcn" for an AMD target."""
    return "amdgcn" if is_hip(target) else "ptx"


def count_amdgcn(text):
    """Counts of AMDGCN_PATTERNS over the instruction lines of an .amdgcn."""
    pats = {k: re.compile(v) for k, v in AMDGCN_PATTERNS.items()}
    out = {k: 0 for k in AMDGCN_KEYS}
    for line in text.splitlines():
        code = line.split(";", 1)[0]
        if not code.strip() or code.lstrip().startswith((".", "//")):
            continue
        for k, pat in pats.items():
            if pat.search(code):
                out[k] += 1
    return out

_ALIAS = re.compile(r"^(#[A-Za-z_][\w]*)\s*=\s*(.*\S)\s*$")
_CVT = re.compile(r"ttg\.convert_layout\s+%[\w.$-]+(?:#\d+)?\s*:\s*tensor<([0-9x]+)x(\w+),\s*(.+?)>\s*->\s*"
                  r"tensor<([0-9x]+)x(\w+),\s*(.+?)>\s*loc")
_MODATTR = re.compile(r"^module attributes \{(.*)\} \{\s*$", re.M)


def resolve(text, aliases):
    """Replaces every #alias in text by its definition, recursively."""
    for _ in range(8):
        new = re.sub(r"#[A-Za-z_]\w*", lambda m: aliases.get(m.group(0), m.group(0)), text)
        if new == text:
            return new
        text = new
    return text


def module_attrs(text):
    m = _MODATTR.search(text)
    attrs = m.group(1)

    def get(key, conv=int):
        mm = re.search(r'"?%s"?\s*=\s*("?[\w:]+"?)' % re.escape(key), attrs)
        return conv(mm.group(1).strip('"').split(" ")[0]) if mm else None

    return {
        "target": get("ttg.target", str),
        "num_warps": get("ttg.num-warps"),
        "threads_per_warp": get("ttg.threads-per-warp"),
        "num_ctas": get("ttg.num-ctas"),
    }


def extract_file(path, lines=False):
    """The conversions of one .ttgir as rows; with lines, each row also
    says at which line of the file its op is ("line", not part of the id)."""
    text = open(path).read()
    aliases = {}
    for line in text.splitlines():
        m = _ALIAS.match(line)
        if m and not m.group(2).startswith("loc("):
            aliases[m.group(1)] = m.group(2)
    mod = module_attrs(text)
    out = []
    for m in _CVT.finditer(text):
        shape_s, dt_s, enc_s, shape_d, dt_d, enc_d = m.groups()
        assert shape_s == shape_d and dt_s == dt_d, m.group(0)
        out.append(dict(mod, shape=[int(x) for x in shape_s.split("x")], dtype=dt_s,
                        src=resolve(enc_s, aliases), dst=resolve(enc_d, aliases)))
        if lines:
            out[-1]["line"] = text.count("\n", 0, m.start()) + 1
    return out


# Conversions that tests/fixtures/ inserts by hand (tools/make_fixtures.py); the
# layout algebra has to classify them too.
SM100_W4 = dict(target="cuda:100", num_warps=4, threads_per_warp=32, num_ctas=1)
SM100_W8 = dict(target="cuda:100", num_warps=8, threads_per_warp=32, num_ctas=1)
SM90_W4 = dict(target="cuda:90", num_warps=4, threads_per_warp=32, num_ctas=1)
LIN_D128 = ("#ttg.linear<{register = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32]], "
            "lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0]], block = []}>")
LIN_W8 = ("#ttg.linear<{register = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32]], "
          "lane = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 64]], warp = [[32, 0], [64, 0], [16, 0]], block = []}>")
FIXTURE_LAYOUTS = {
    # TMEM 16x32bx2 message layout: lane 16 moves from row 16 to column 32
    "lin16x32bx2": ("#ttg.linear<{register = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [16, 0]], "
                    "lane = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 32]], warp = [[32, 0], [64, 0]], block = []}>"),
    # same threads, registers permuted
    "linregperm": ("#ttg.linear<{register = [[0, 1], [0, 32], [0, 2], [0, 4], [0, 8], [0, 16]], "
                   "lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0]], block = []}>"),
    "blocked_tmem_w4": "#ttg.blocked<{sizePerThread = [1, 64], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [0, 1]}>",
    "blocked_tmem_w8": "#ttg.blocked<{sizePerThread = [1, 64], threadsPerWarp = [32, 1], warpsPerCTA = [4, 2], order = [0, 1]}>",
    "blocked_ld": "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>",
    "blocked_ld_w8": "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]}>",
    "blocked_ld_f32": "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>",
}
MMA1_SM90 = "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>"
MMA_SM90 = "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 128, 16]}>"
DOT_SM90 = "#ttg.dot_op<{opIdx = 0, parent = %s, kWidth = 2}>" % MMA_SM90
FL = FIXTURE_LAYOUTS
FIXTURE_ROWS = [
    (SM100_W4, [128, 64], "bf16", LIN_D128, FL["lin16x32bx2"], "sm100-attn-tmem/regressed"),
    (SM100_W4, [128, 64], "bf16", LIN_D128, FL["linregperm"], "not committed: a register permutation that lowers to the baseline PTX"),
    (SM100_W4, [128, 64], "bf16", LIN_D128, FL["blocked_tmem_w4"], "sm100-attn-tmem/equivalent"),
    (SM100_W8, [128, 128], "f16", LIN_W8, FL["blocked_tmem_w8"], "sm100-attn-tmem-w8/regressed"),
    (SM100_W8, [128, 128], "f16", LIN_W8, FL["blocked_ld_w8"], "sm100-attn-tmem-w8/roundtrip (out)"),
    (SM100_W8, [128, 128], "f16", FL["blocked_ld_w8"], LIN_W8, "sm100-attn-tmem-w8/roundtrip (back)"),
    (SM100_W4, [128, 64], "f32", FL["blocked_ld_f32"], FL["blocked_tmem_w4"], "sm100-tmem-negative"),
    (SM90_W4, [128, 64], "bf16", MMA1_SM90, FL["blocked_ld"], "sm90-attn-wgmma-detour/regressed (out)"),
    (SM90_W4, [128, 64], "bf16", FL["blocked_ld"], DOT_SM90, "sm90-attn-wgmma-detour/regressed (back)"),
]


def row_id(r):
    arch = r["target"].split(":")[1]
    key = json.dumps([r[k] for k in ("target", "num_warps", "threads_per_warp", "num_ctas",
                                     "shape", "dtype", "src", "dst")])
    h = hashlib.sha1(key.encode()).hexdigest()[:8]
    prefix = arch if is_hip(r["target"]) else "sm" + arch
    return "%s-w%d-%s%s-%s" % (prefix, r["num_warps"], "x".join(map(str, r["shape"])), r["dtype"], h)


def layout_ops(alias, var, shape, ptr_ty, base):
    """TTGIR lines computing a tensor of pointers to the row-major elements of
    `shape` (any rank) in layout `alias`: for each dim a make_range in the
    layout sliced down to that dim, expanded back, scaled by its stride,
    broadcast to the full shape and summed."""
    rank = len(shape)
    full = "x".join(map(str, shape))
    L = []
    terms = []
    for d in range(rank):
        # The 1-D layout of dim d: slice away every other dim, highest first.
        layouts = [alias]
        for k in reversed(range(rank)):
            if k != d:
                layouts.append("#ttg.slice<{dim = %d, parent = %s}>" % (k, layouts[-1]))
        cur = layouts[-1]
        cur_shape = [shape[d]]
        v = f"%{var}_r{d}"
        L.append(f"    {v} = tt.make_range {{end = {shape[d]} : i32, start = 0 : i32}} : "
                 f"tensor<{shape[d]}xi32, {cur}>")
        # Expand back, lowest dim first (the reverse of the slicing).
        for j, k in enumerate(sorted(k for k in range(rank) if k != d)):
            nxt = layouts[-2 - j]
            new_shape = list(cur_shape)
            new_shape.insert(k, 1)
            nv = f"%{var}_e{d}_{k}"
            L.append(f"    {nv} = tt.expand_dims {v} {{axis = {k} : i32}} : "
                     f"tensor<{'x'.join(map(str, cur_shape))}xi32, {cur}> -> "
                     f"tensor<{'x'.join(map(str, new_shape))}xi32, {nxt}>")
            v, cur, cur_shape = nv, nxt, new_shape
        stride = 1
        for k in range(d + 1, rank):
            stride *= shape[k]
        part = "x".join(map(str, cur_shape))
        if stride != 1:
            L.append(f"    %{var}_s{d} = arith.constant dense<{stride}> : tensor<{part}xi32, {alias}>")
            L.append(f"    %{var}_m{d} = arith.muli {v}, %{var}_s{d} : tensor<{part}xi32, {alias}>")
            v = f"%{var}_m{d}"
        if cur_shape != list(shape):
            L.append(f"    %{var}_b{d} = tt.broadcast {v} : tensor<{part}xi32, {alias}> -> "
                     f"tensor<{full}xi32, {alias}>")
            v = f"%{var}_b{d}"
        terms.append(v)
    off = terms[0]
    for d, t in enumerate(terms[1:], 1):
        L.append(f"    %{var}_a{d} = arith.addi {off}, {t} : tensor<{full}xi32, {alias}>")
        off = f"%{var}_a{d}"
    L.append(f"    %{var}_sp = tt.splat {base} : {ptr_ty} -> tensor<{full}x{ptr_ty}, {alias}>")
    L.append(f"    %{var}_p = tt.addptr %{var}_sp, {off} : tensor<{full}x{ptr_ty}, {alias}>, "
             f"tensor<{full}xi32, {alias}>")
    return L, f"%{var}_p"


def make_module(r, convert):
    """Minimal TTGIR: load in src, (convert,) store in dst (or src for the control)."""
    full = "x".join(map(str, r["shape"]))
    T = r["dtype"]
    ptr = f"!tt.ptr<{T}>"
    head = [f"#src = {r['src']}"]
    if convert:
        head.append(f"#dst = {r['dst']}")
    head.append('module attributes {"ttg.num-ctas" = %d : i32, "ttg.num-warps" = %d : i32, '
                'ttg.target = "%s", "ttg.threads-per-warp" = %d : i32} {'
                % (r["num_ctas"], r["num_warps"], r["target"], r["threads_per_warp"]))
    name = "cvt" if convert else "control"
    body = [f"  tt.func public @{name}(%in: {ptr}, %out: {ptr}) attributes {{noinline = false}} {{"]
    lines, pin = layout_ops("#src", "a", r["shape"], ptr, "%in")
    body += lines
    body.append(f"    %x = tt.load {pin} : tensor<{full}x{ptr}, #src>")
    out_alias = "#dst" if convert else "#src"
    if convert:
        body.append(f"    %y = ttg.convert_layout %x : tensor<{full}x{T}, #src> -> tensor<{full}x{T}, #dst>")
    lines, pout = layout_ops(out_alias, "b", r["shape"], ptr, "%out")
    body += lines
    body.append(f"    tt.store {pout}, %{'y' if convert else 'x'} : tensor<{full}x{ptr}, {out_alias}>")
    body.append("    tt.return")
    body.append("  }")
    return "\n".join(head + body + ["}"]) + "\n"


def finish_row(r, out):
    """Names the row's source kernel (a bundle rather than a cache folder)
    and writes its minimal modules, <id>/cvt.ttgir and <id>/control.ttgir."""
    occ = sorted(r["occurrences"], key=lambda p: ("/bundles/" not in p, p))
    r["source_kernel"] = occ[0] if occ else "tests/fixtures (%s)" % r["fixtures"][0]
    d = os.path.join(out, r["id"])
    os.makedirs(d, exist_ok=True)
    open(os.path.join(d, "cvt.ttgir"), "w").write(make_module(r, True))
    open(os.path.join(d, "control.ttgir"), "w").write(make_module(r, False))
    r["ttgir"] = f"{r['id']}/cvt.ttgir"


def cmd_extract(args):
    corpus = os.path.abspath(args.corpus)
    found = {}
    if args.merge:
        for r in json.load(open(os.path.join(args.out, "rows.json"))):
            found[r["id"]] = r
        kept = set(found)
    for dp, dn, fn in sorted(os.walk(corpus)):
        dn.sort()
        for f in sorted(fn):
            if not f.endswith(".ttgir"):
                continue
            p = os.path.join(dp, f)
            rel = os.path.join(os.path.basename(corpus), os.path.relpath(p, corpus))
            for r in extract_file(p):
                rid = row_id(r)
                if rid not in found:
                    found[rid] = dict(id=rid, origin="corpus", **r, occurrences=[])
                if rel not in found[rid]["occurrences"]:  # --merge: seen before
                    found[rid]["occurrences"].append(rel)
    n_corpus = sum(len(r["occurrences"]) for r in found.values())
    if args.merge:
        rows = list(found.values())
        for r in rows:
            if r["id"] not in kept:
                finish_row(r, args.out)
        # The rows that were there keep their order; the new ones follow.
        new = sorted((r for r in rows if r["id"] not in kept),
                     key=lambda r: (r["target"], r["num_warps"], r["id"]))
        rows = [r for r in rows if r["id"] in kept] + new
        json.dump(rows, open(os.path.join(args.out, "rows.json"), "w"), indent=1)
        print(f"{len(rows) - len(kept)} rows added, {len(rows)} in all")
        return 0
    for mod, shape, dtype, src, dst, note in FIXTURE_ROWS:
        r = dict(mod, shape=shape, dtype=dtype, src=src, dst=dst)
        rid = row_id(r)
        if rid in found:
            found[rid].setdefault("fixtures", []).append(note)
        else:
            found[rid] = dict(id=rid, origin="fixture", **r, occurrences=[], fixtures=[note])
    rows = []
    for r in found.values():
        finish_row(r, args.out)
        rows.append(r)
    rows.sort(key=lambda r: (r["origin"], r["target"], r["num_warps"], r["id"]))
    json.dump(rows, open(os.path.join(args.out, "rows.json"), "w"), indent=1)
    print(f"{n_corpus} convert_layout ops in the corpus, {len(rows)} distinct rows "
          f"({sum(r['origin'] == 'fixture' for r in rows)} from fixtures only)")


def compile_one(ttgir, target, dest):
    """Runs in a child process: lower one TTGIR module for target ("cuda:90",
    "hip:gfx942"), write its PTX (or AMDGCN)."""
    import triton
    from triton.backends.compiler import GPUTarget
    backend, arch = target.split(":")
    if backend == "hip":
        k = triton.compile(ttgir, target=GPUTarget("hip", arch, 64))
        open(dest, "w").write(k.asm["amdgcn"])
    else:
        k = triton.compile(ttgir, target=GPUTarget("cuda", int(arch), 32))
        open(dest, "w").write(k.asm["ptx"])


def _child(ttgir, target, dest, log):
    cmd = [sys.executable, os.path.abspath(__file__), "compile-one", ttgir, target, dest]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    with open(log, "w") as f:
        f.write(r.stdout + r.stderr)
    return r.returncode


def counts_of(path):
    if path.endswith(".amdgcn"):
        return count_amdgcn(open(path).read())
    c = count_ptx(open(path).read())["total"]
    return {k: c[k] for k in COUNT_KEYS}


def classify(delta):
    if "ds_write" in delta:
        if delta["ds_write"] > 0 or delta["ds_read"] > 0:
            return "shared"
        if any(delta[k] > 0 for k in ("ds_bpermute", "v_permlane", "dpp")):
            return "shuffle"
        return "registers"
    if any(delta[k] > 0 for k in ("st.shared", "ld.shared", "stmatrix", "ldmatrix")):
        return "shared"
    if delta["shfl.sync"] > 0:
        return "shuffle"
    return "registers"


# The modules are compiled from here, so the file name in the PTX debug info
# does not depend on where the checkout is.
STABLE_DIR = "/src/conversions"


def cmd_compile(args):
    base = os.path.abspath(args.dir)
    rows = json.load(open(os.path.join(base, "rows.json")))
    jobs = {}
    with cf.ThreadPoolExecutor(args.jobs) as pool:
        for r in rows:
            ext = asm_ext(r["target"])
            d = os.path.join(base, r["id"])
            stable = os.path.join(STABLE_DIR, r["id"])
            os.makedirs(stable, exist_ok=True)
            for which in ("cvt", "control"):
                src = os.path.join(stable, f"{which}.ttgir")
                with open(src, "w") as f:
                    f.write(open(os.path.join(d, f"{which}.ttgir")).read())
                jobs[(r["id"], which)] = pool.submit(
                    _child, src, r["target"], os.path.join(d, f"{which}.{ext}"),
                    os.path.join(d, f"{which}.log"))
    out, failed = [], []
    for r in rows:
        d = os.path.join(base, r["id"])
        rc = {w: jobs[(r["id"], w)].result() for w in ("cvt", "control")}
        if rc["cvt"] != 0 or rc["control"] != 0:
            failed.append(r["id"])
            print("FAIL", r["id"], rc, open(os.path.join(d, "cvt.log")).read()[-2000:],
                  open(os.path.join(d, "control.log")).read()[-1000:], flush=True)
            continue
        ext = asm_ext(r["target"])
        cvt = counts_of(os.path.join(d, f"cvt.{ext}"))
        ctl = counts_of(os.path.join(d, f"control.{ext}"))
        delta = {k: cvt[k] - ctl[k] for k in cvt}
        row = {k: r[k] for k in ("id", "target", "num_warps", "threads_per_warp", "num_ctas",
                                 "shape", "dtype", "src", "dst")}
        row.update({"cost": classify(delta), ext: f"{r['id']}/cvt.{ext}", f"{ext}_counts": delta,
                    f"control_{ext}_counts": ctl, "ttgir": r["ttgir"],
                    "source_kernel": r["source_kernel"], "origin": r["origin"],
                    "occurrences": r["occurrences"]})
        if r.get("fixtures"):
            row["fixtures"] = r["fixtures"]
        barrier = "s_barrier" if ext == "amdgcn" else "bar.sync"
        if row["cost"] == "shared" and delta[barrier] <= 0:
            row["note"] = "shared-memory traffic without an extra " + barrier
        out.append(row)
        os.remove(os.path.join(d, f"control.{ext}"))
        for w in ("cvt", "control"):
            os.remove(os.path.join(d, f"{w}.log"))
    json.dump(out, open(os.path.join(base, "ground_truth.json"), "w"), indent=1)
    print(f"{len(out)} rows classified, {len(failed)} failed: {failed}")
    for row in out:
        print(row["cost"], row["id"], row[f"{asm_ext(row['target'])}_counts"], flush=True)
    return 1 if failed else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("extract")
    e.add_argument("--corpus", required=True)
    e.add_argument("--out", required=True)
    e.add_argument("--merge", action="store_true",
                   help="add the rows found to OUT/rows.json instead of rewriting it")
    c = sub.add_parser("compile")
    c.add_argument("--dir", required=True)
    c.add_argument("--jobs", type=int, default=max(1, (os.cpu_count() or 2) - 2))
    o = sub.add_parser("compile-one")
    o.add_argument("ttgir")
    o.add_argument("target", help='"cuda:90", "hip:gfx942"')
    o.add_argument("dest")
    a = ap.parse_args()
    if a.cmd == "extract":
        return cmd_extract(a)
    if a.cmd == "compile":
        return cmd_compile(a)
    try:
        compile_one(a.ttgir, a.target, a.dest)
    except Exception:
        traceback.print_exc()
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
