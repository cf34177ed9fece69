"""Builds tests/fixtures/ with the real Triton 3.6.0 compiler (issue 4).

Run on a machine with Triton 3.6.0 and torch; the `sm90` part also needs a
Hopper GPU (it times kernels), the others only compile:

    python3 tools/make_fixtures.py all --out /tmp/fixtures      # every part
    python3 tools/make_fixtures.py sm100 --out DIR               # one part
    python3 tools/make_fixtures.py install /tmp/fixtures tests/fixtures

Parts (each writes DIR/<fixture>/<variant>/<kernel>.* as Triton's dump holds
them: .ttgir .ptx .cubin .json, .sass (nvdisasm -c -gi),
.res-usage.txt and .ptxas.txt (`ptxas -v` re-run on the PTX); .llir is
dropped, .cuobjdump.sass only with --cuobjdump; DIR/summary-<part>.json
records what happened):

  sm100   compile-only, cuda:100. The corpus attention TTGIR re-lowered
          unchanged (baseline) and with a `ttg.convert_layout` inserted before
          the in-loop `ttng.tmem_store` of the P tile: attn_fwd_d128 (4 warps;
          `regressed` converts to another TMEM-compatible layout, `equivalent`
          to the same linear layout spelled as #blocked) and attn_fwd_d64_w8
          (8 warps; `regressed` converts to the #blocked TMEM layout,
          `roundtrip` goes through a global-load layout and back). Each edit is
          kept as <variant>.ttgir.diff. Plus a hand-written negative control
          whose conversion before tmem_store is genuinely needed.
  sm90    timed on the GPU, cuda:90. attn_fwd (B=4 H=16 N_CTX=8192 D=128 bf16)
          launched through Triton; its TTGIR re-lowered unchanged (baseline)
          and with P's `#mma -> #dot_op` conversion before the wgmma detoured
          through a #blocked layout (regressed); both checked against torch's
          scaled_dot_product_attention and timed with CUDA events.
  ptxas   `ptxas -v` over every sm90/sm100 PTX of the corpus (and --extra
          folders), collecting the C75xx messages (wgmma serialized,
          setmaxnreg ignored); plus the corpus matmul at a 128x256x32 4-warp
          config, where ptxas serializes wgmma (sm90-ptxas-serialized/).
  gluon   compile-only, cuda:100: Gluon kernels asking for TMA, mbarriers,
          tcgen05 MMA, and warp specialization with register budgets.
  dumpdir on the GPU, cuda:90: vadd, softmax_rows and matmul of the corpus
          launched (results checked against torch) under TRITON_KERNEL_DUMP=1
          with a fresh cache: sm90-dump-dir/ is the TRITON_DUMP_DIR exactly
          as Triton leaves it, less the .llir: no .json, and a .sass in the
          format of triton.tools.disasm (control codes, LBBn labels); plus
          cuobjdump -res-usage beside each cubin. sm90-dump-dir.renderings/
          holds nvdisasm -c -gi and cuobjdump -sass of the same cubins, to
          test the parser against.

Kernel sources are copied to /src/kernels/ first so debug locations are the
same as the corpus's.
"""
import argparse
import difflib
import glob
import importlib.util
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CORPUS = os.path.join(ROOT, "tests", "corpus", "triton-3.6.0")
SRC_DIR = "/src/kernels"
sys.path.insert(0, HERE)
from ptx_counts import count_ptx, count_sass  # noqa: E402


def log(*a):
    print(time.strftime("%H:%M:%S"), *a, flush=True)


def setup_src():
    os.makedirs(SRC_DIR, exist_ok=True)
    shutil.copy(os.path.join(CORPUS, "src", "kernels", "triton_kernels.py"), SRC_DIR)
    shutil.copy(os.path.join(HERE, "kernels", "fixture_kernels.py"), SRC_DIR)


def load_module(name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(SRC_DIR, name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def nvtool(name):
    import triton
    tdir = os.path.dirname(triton.__file__)
    for p in [os.path.join(tdir, "backends", "nvidia", "bin", name), shutil.which(name) or "",
              "/usr/local/cuda/bin/" + name]:
        if p and os.path.exists(p):
            return p
    raise FileNotFoundError(name)


def ptxas_verbose(ptx_path):
    """Re-runs ptxas -v on a PTX file the way Triton does; returns its output."""
    text = open(ptx_path).read()
    m = re.search(r"^\.target\s+(sm_(\d+)\w*)", text, re.M)
    arch = m.group(1) if m else "sm_90a"
    # Triton assembles sm_100 and newer with the ptxas-blackwell it ships beside ptxas.
    ptxas = nvtool("ptxas")
    if m and int(m.group(2)) >= 100 and os.path.exists(ptxas + "-blackwell"):
        ptxas += "-blackwell"
    out = ptx_path + ".ptxas.cubin"
    cmd = [ptxas, "-lineinfo", "-v", f"--gpu-name={arch}", ptx_path, "-o", out]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if os.path.exists(out):
        os.remove(out)
    return "$ " + " ".join([os.path.basename(ptxas)] + cmd[1:]) + "\n" + r.stdout + r.stderr


CUOBJDUMP_SASS = False  # also write <name>.cuobjdump.sass (--cuobjdump)


def dump(k, dest, keep_llir=False):
    """Writes one compiled kernel the way Triton's dump holds it, plus SASS and ptxas -v."""
    os.makedirs(dest, exist_ok=True)
    name = k.metadata.name
    for key in ("source", "ttir", "ttgir", "llir", "ptx", "cubin"):
        if key in k.asm and (key != "llir" or keep_llir):
            v = k.asm[key]
            mode = "wb" if isinstance(v, bytes) else "w"
            with open(os.path.join(dest, f"{name}.{key}"), mode) as f:
                f.write(v)
    json.dump(k.metadata._asdict(), open(os.path.join(dest, f"{name}.json"), "w"), default=str, indent=1)
    finish_dump(dest, name)
    return name


def finish_dump(dest, name):
    cub = os.path.join(dest, f"{name}.cubin")
    renders = [(".sass", [nvtool("nvdisasm"), "-c", "-gi", cub]),
               (".res-usage.txt", [nvtool("cuobjdump"), "-res-usage", cub])]
    if CUOBJDUMP_SASS:
        renders.append((".cuobjdump.sass", [nvtool("cuobjdump"), "-sass", cub]))
    for suffix, cmd in renders:
        r = subprocess.run(cmd, capture_output=True, text=True)
        open(os.path.join(dest, name + suffix), "w").write(r.stdout + r.stderr)
    ptx = os.path.join(dest, f"{name}.ptx")
    if os.path.exists(ptx):
        open(os.path.join(dest, f"{name}.ptxas.txt"), "w").write(ptxas_verbose(ptx))


def dump_from_cache(cache_dir, dest):
    """Copies a kernel's files out of a Triton cache folder (when no CompiledKernel came back)."""
    grp = [p for p in glob.glob(os.path.join(cache_dir, "*", "__grp__*.json"))]
    if not grp:
        raise RuntimeError(f"no compiled kernel in {cache_dir}")
    d = os.path.dirname(grp[0])
    name = os.path.basename(grp[0])[len("__grp__"):-len(".json")]
    os.makedirs(dest, exist_ok=True)
    for f in os.listdir(d):
        if f.startswith("__grp__") or f.endswith(".llir"):
            continue
        shutil.copy(os.path.join(d, f), dest)
    finish_dump(dest, name)
    return name


def counts(dest):
    """PTX/SASS family counts of every kernel in a folder."""
    out = {}
    for p in sorted(glob.glob(os.path.join(dest, "*.ptx"))):
        name = os.path.basename(p)[:-4]
        c = {"ptx": count_ptx(open(p).read())}
        sp = os.path.join(dest, name + ".sass")
        if os.path.exists(sp):
            c["sass"] = count_sass(open(sp).read())
        out[name] = c
    return out


def run_child(args, logfile, timeout=900, env=None):
    """Runs this script's subcommand in a fresh process (a crash in MLIR stays contained)."""
    cmd = [sys.executable, os.path.abspath(__file__)] + (["--cuobjdump"] if CUOBJDUMP_SASS else []) + args
    t0 = time.time()
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
        rc, text = r.returncode, r.stdout + r.stderr
    except subprocess.TimeoutExpired as e:
        rc, text = -9, f"timeout after {timeout}s\n{e.stdout or ''}{e.stderr or ''}"
    with open(logfile, "w") as f:
        f.write("$ " + " ".join(args) + "\n" + text)
    log("child", " ".join(args[:3]), "rc", rc, f"{time.time() - t0:.1f}s")
    return rc


# ---------------------------------------------------------------- TTGIR edits

def aliases(text):
    return re.findall(r"^(#[A-Za-z_]\w*) = ", text, re.M)


def add_alias(text, prefix, attr):
    """Defines a new layout alias, named the way Triton numbers them (#blocked2...)."""
    have = set(aliases(text))
    for n in [""] + [str(i) for i in range(1, 100)]:
        name = f"#{prefix}{n}"
        if name not in have:
            break
    lines = text.split("\n")
    last = max(i for i, line in enumerate(lines) if re.match(r"^#[A-Za-z_]\w* = (?!loc\()", line))
    lines.insert(last + 1, f"{name} = {attr}")
    return "\n".join(lines), name


def insert_before_tmem_store(text, ty, src_alias, chain, tag):
    """Inserts `ttg.convert_layout`s before the in-loop tmem_store of a `tensor<ty, src_alias>`.

    chain: aliases to convert through, in order; the store takes the last one.
    """
    pat = re.compile(r"^(?P<ind>      +)ttng\.tmem_store (?P<val>%[\w]+), (?P<rest>.*?) : "
                     r"tensor<" + re.escape(ty) + ", " + re.escape(src_alias) + r"> -> (?P<tail>.*) "
                     r"(?P<loc>loc\(.*\))$", re.M)
    hits = list(pat.finditer(text))
    if len(hits) != 1:
        raise RuntimeError(f"expected one in-loop tmem_store of tensor<{ty}, {src_alias}>, found {len(hits)}")
    m = hits[0]
    ind, prev, prev_alias, new = m.group("ind"), m.group("val"), src_alias, []
    for i, alias in enumerate(chain):
        name = f"%{tag}{i}"
        new.append(f"{ind}{name} = ttg.convert_layout {prev} : tensor<{ty}, {prev_alias}> -> "
                   f"tensor<{ty}, {alias}> {m.group('loc')}")
        prev, prev_alias = name, alias
    new.append(f"{ind}ttng.tmem_store {prev}, {m.group('rest')} : tensor<{ty}, {prev_alias}> -> "
               f"{m.group('tail')} {m.group('loc')}")
    return text[:m.start()] + "\n".join(new) + text[m.end():]


def detour_wgmma_operand(text, detour_alias):
    """Replaces the in-loop `#mma -> #dot_op<{opIdx = 0, ...}>` conversion of the wgmma
    register operand by two conversions through detour_alias."""
    pat = re.compile(r"^(?P<ind>      +)(?P<res>%[\w]+) = ttg\.convert_layout (?P<val>%[\w]+) : "
                     r"tensor<(?P<ty>[0-9x]+x(?:bf16|f16)), (?P<src>#mma\w*)> -> "
                     r"tensor<(?P=ty), (?P<dst>#ttg\.dot_op<\{opIdx = 0, [^>]*\}>)> (?P<loc>loc\(.*\))$", re.M)
    hits = list(pat.finditer(text))
    if len(hits) != 1:
        raise RuntimeError(f"expected one in-loop #mma -> dot_op(opIdx 0) conversion, found {len(hits)}")
    m = hits[0]
    ind, ty, loc = m.group("ind"), m.group("ty"), m.group("loc")
    new = (f"{ind}%gestell_detour = ttg.convert_layout {m.group('val')} : tensor<{ty}, {m.group('src')}> -> "
           f"tensor<{ty}, {detour_alias}> {loc}\n"
           f"{ind}{m.group('res')} = ttg.convert_layout %gestell_detour : tensor<{ty}, {detour_alias}> -> "
           f"tensor<{ty}, {m.group('dst')}> {loc}")
    return text[:m.start()] + new + text[m.end():]


def write_diff(base_text, new_text, base_name, new_name, path):
    d = difflib.unified_diff(base_text.splitlines(True), new_text.splitlines(True), base_name, new_name, n=2)
    open(path, "w").writelines(d)


# ---------------------------------------------------------------- compile helpers

def cmd_compile_ttgir(a):
    import triton
    from triton.backends.compiler import GPUTarget
    k = triton.compile(a.ttgir, target=GPUTarget("cuda", a.arch, 32))
    dump(k, a.dest)


def cmd_compile_ast(a):
    setup_src()
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    mod = load_module(a.module)
    fn = getattr(mod, a.fn)
    src = ASTSource(fn=fn, signature=json.loads(a.sig), constexprs=json.loads(a.cx))
    os.environ["TRITON_CACHE_DIR"] = a.dest + ".cache"
    try:
        k = triton.compile(src, target=GPUTarget("cuda", a.arch, 32), options=json.loads(a.opts))
        dump(k, a.dest)
    finally:
        shutil.rmtree(a.dest + ".cache", ignore_errors=True)


ATTN_SIG = dict(q="*bf16", k="*bf16", v="*bf16", o="*bf16", sm_scale="fp32", N_CTX="i32", H="i32",
                sqz="i32", sqh="i32", sqm="i32", sqk="i32", BM="constexpr", BN="constexpr", D="constexpr")


def compile_ttgir_child(src_text, arch, dest, logdir, tag):
    os.makedirs(logdir, exist_ok=True)
    path = os.path.join(logdir, f"{tag}.input.ttgir")
    open(path, "w").write(src_text)
    return run_child(["compile-ttgir", path, str(arch), dest], os.path.join(logdir, f"{tag}.log"))


# ---------------------------------------------------------------- sm100

LAYOUTS = {
    # 32x32b TMEM message layout spelled as #blocked (same linear layout as #linear on 128x64)
    "blocked_tmem_w4": "#ttg.blocked<{sizePerThread = [1, 64], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [0, 1]}>",
    # the same with 8 warps: warp 2 takes columns 64..127
    "blocked_tmem_w8": "#ttg.blocked<{sizePerThread = [1, 64], threadsPerWarp = [32, 1], warpsPerCTA = [4, 2], order = [0, 1]}>",
    # TMEM 16x32bx2 message layout: lane 16 holds column 32 instead of row 16
    "lin16x32bx2": ("#ttg.linear<{register = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [16, 0]], "
                    "lane = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 32]], warp = [[32, 0], [64, 0]], block = []}>"),
    # global-load layouts (not TMEM-compatible), 4 and 8 warps
    "blocked_ld": "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>",
    "blocked_ld_w8": "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]}>",
}

NEGATIVE_TTGIR = """\
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 64], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [0, 1]}>
#tmem = #ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:100", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @tmem_negative(%in: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %out: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %n: i32) attributes {noinline = false} {
    %true = arith.constant true
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %c8192_i32 = arith.constant 8192 : i32
    %cst = arith.constant dense<0.000000e+00> : tensor<128x64xf32, #blocked1>
    %c64 = arith.constant dense<64> : tensor<128x1xi32, #blocked>
    %r = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #ttg.slice<{dim = 1, parent = #blocked}>>
    %re = tt.expand_dims %r {axis = 1 : i32} : tensor<128xi32, #ttg.slice<{dim = 1, parent = #blocked}>> -> tensor<128x1xi32, #blocked>
    %rm = arith.muli %re, %c64 : tensor<128x1xi32, #blocked>
    %c = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked}>>
    %ce = tt.expand_dims %c {axis = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked}>> -> tensor<1x64xi32, #blocked>
    %rb = tt.broadcast %rm : tensor<128x1xi32, #blocked> -> tensor<128x64xi32, #blocked>
    %cb = tt.broadcast %ce : tensor<1x64xi32, #blocked> -> tensor<128x64xi32, #blocked>
    %offs = arith.addi %rb, %cb : tensor<128x64xi32, #blocked>
    %t = ttng.tmem_alloc : () -> !ttg.memdesc<128x64xf32, #tmem, #ttng.tensor_memory, mutable>
    %acc = scf.for %i = %c0_i32 to %n step %c1_i32 iter_args(%a = %cst) -> (tensor<128x64xf32, #blocked1>)  : i32 {
      %step = arith.muli %i, %c8192_i32 : i32
      %base = tt.addptr %in, %step : !tt.ptr<f32>, i32
      %ps = tt.splat %base : !tt.ptr<f32> -> tensor<128x64x!tt.ptr<f32>, #blocked>
      %pp = tt.addptr %ps, %offs : tensor<128x64x!tt.ptr<f32>, #blocked>, tensor<128x64xi32, #blocked>
      %x = tt.load %pp : tensor<128x64x!tt.ptr<f32>, #blocked>
      %y = ttg.convert_layout %x : tensor<128x64xf32, #blocked> -> tensor<128x64xf32, #blocked1>
      ttng.tmem_store %y, %t, %true : tensor<128x64xf32, #blocked1> -> !ttg.memdesc<128x64xf32, #tmem, #ttng.tensor_memory, mutable>
      %z = ttng.tmem_load %t : !ttg.memdesc<128x64xf32, #tmem, #ttng.tensor_memory, mutable> -> tensor<128x64xf32, #blocked1>
      %s = arith.addf %a, %z : tensor<128x64xf32, #blocked1>
      scf.yield %s : tensor<128x64xf32, #blocked1>
    }
    %or = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #ttg.slice<{dim = 1, parent = #blocked1}>>
    %ore = tt.expand_dims %or {axis = 1 : i32} : tensor<128xi32, #ttg.slice<{dim = 1, parent = #blocked1}>> -> tensor<128x1xi32, #blocked1>
    %o64 = arith.constant dense<64> : tensor<128x1xi32, #blocked1>
    %orm = arith.muli %ore, %o64 : tensor<128x1xi32, #blocked1>
    %oc = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked1}>>
    %oce = tt.expand_dims %oc {axis = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked1}>> -> tensor<1x64xi32, #blocked1>
    %orb = tt.broadcast %orm : tensor<128x1xi32, #blocked1> -> tensor<128x64xi32, #blocked1>
    %ocb = tt.broadcast %oce : tensor<1x64xi32, #blocked1> -> tensor<128x64xi32, #blocked1>
    %ooffs = arith.addi %orb, %ocb : tensor<128x64xi32, #blocked1>
    %os = tt.splat %out : !tt.ptr<f32> -> tensor<128x64x!tt.ptr<f32>, #blocked1>
    %op = tt.addptr %os, %ooffs : tensor<128x64x!tt.ptr<f32>, #blocked1>, tensor<128x64xi32, #blocked1>
    tt.store %op, %acc : tensor<128x64x!tt.ptr<f32>, #blocked1>
    tt.return
  }
}
"""


def sm100_variants():
    """(fixture, variant, corpus kernel, edit) for every sm100 build."""
    def tmem(ty, chain_keys, tag="gestell_cvt"):
        def edit(text):
            chain = []
            for key in chain_keys:
                if key == "#linear":
                    chain.append("#linear")
                    continue
                prefix = "blocked" if LAYOUTS[key].startswith("#ttg.blocked") else "linear"
                text, name = add_alias(text, prefix, LAYOUTS[key])
                chain.append(name)
            return insert_before_tmem_store(text, ty, "#linear", chain, tag)
        return edit
    d128, w8 = "bundles/sm100/attn_fwd_d128", "bundles/sm100/attn_fwd_d64_w8"
    return [
        ("sm100-attn-tmem", "baseline", d128, None),
        ("sm100-attn-tmem", "regressed", d128, tmem("128x64xbf16", ["lin16x32bx2"])),
        ("sm100-attn-tmem", "equivalent", d128, tmem("128x64xbf16", ["blocked_tmem_w4"])),
        ("sm100-attn-tmem-w8", "baseline", w8, None),
        ("sm100-attn-tmem-w8", "regressed", w8, tmem("128x128xf16", ["blocked_tmem_w8"])),
        ("sm100-attn-tmem-w8", "roundtrip", w8, tmem("128x128xf16", ["blocked_ld_w8", "#linear"])),
    ]


def cmd_sm100(a):
    out = a.out
    work = os.path.join(out, "_work", "sm100")
    summary = {"variants": {}}
    import concurrent.futures as cf
    jobs = {}
    with cf.ThreadPoolExecutor(a.jobs) as pool:
        for fixture, variant, kdir, edit in sm100_variants():
            base = open(glob.glob(os.path.join(CORPUS, kdir, "*.ttgir"))[0]).read()
            fname = os.path.basename(glob.glob(os.path.join(CORPUS, kdir, "*.ttgir"))[0])
            try:
                text = edit(base) if edit else base
            except Exception as e:
                summary["variants"][f"{fixture}/{variant}"] = {"error": repr(e)}
                log("edit failed", fixture, variant, repr(e))
                continue
            os.makedirs(os.path.join(out, fixture), exist_ok=True)
            if edit:
                write_diff(base, text, f"baseline/{fname}", f"{variant}/{fname}",
                           os.path.join(out, fixture, f"{variant}.ttgir.diff"))
            dest = os.path.join(out, fixture, variant)
            jobs[(fixture, variant)] = pool.submit(compile_ttgir_child, text, 100, dest, work, f"{fixture}.{variant}")
        dest = os.path.join(out, "sm100-tmem-negative")
        jobs[("sm100-tmem-negative", "")] = pool.submit(compile_ttgir_child, NEGATIVE_TTGIR, 100, dest, work,
                                                         "sm100-tmem-negative")
    for (fixture, variant), j in jobs.items():
        key = f"{fixture}/{variant}".rstrip("/")
        rc = j.result()
        dest = os.path.join(out, fixture, variant)
        summary["variants"][key] = {"rc": rc, "counts": counts(dest) if rc == 0 else None}
    # Is the "equivalent" build the baseline, byte for byte, below TTGIR?
    for fixture in ("sm100-attn-tmem",):
        same = {}
        for ext in ("ptx", "sass", "cubin"):
            b = glob.glob(os.path.join(out, fixture, "baseline", f"*.{ext}"))
            e = glob.glob(os.path.join(out, fixture, "equivalent", f"*.{ext}"))
            if b and e:
                same[ext] = open(b[0], "rb").read() == open(e[0], "rb").read()
        summary["equivalent_identical_to_baseline"] = same
    json.dump(summary, open(os.path.join(out, "summary-sm100.json"), "w"), indent=1)
    log("sm100 done", json.dumps({k: v.get("rc") for k, v in summary["variants"].items()}))


# ---------------------------------------------------------------- sm90 (timed)

def func_arg_names(ttgir):
    m = re.search(r"tt\.func public @\w+\((.*?)\) attributes", ttgir)
    return re.findall(r"%(\w+): ", m.group(1))


def cmd_sm90(a):
    import torch
    import triton
    from triton.backends.compiler import GPUTarget
    setup_src()
    K = load_module("triton_kernels")
    out = a.out
    fixture = os.path.join(out, "sm90-attn-wgmma-detour")
    work = os.path.join(out, "_work", "sm90")
    os.makedirs(work, exist_ok=True)
    res = {"device": torch.cuda.get_device_name(), "triton": triton.__version__, "torch": torch.__version__}
    B, H, N, D, BM, BN = a.batch, a.heads, a.n_ctx, 128, 128, 64
    res["problem"] = dict(B=B, H=H, N_CTX=N, D=D, dtype="bf16", BM=BM, BN=BN, num_warps=4, num_stages=3)
    torch.manual_seed(0)
    q, k, v = (torch.randn(B, H, N, D, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    o = torch.empty_like(q)
    sm_scale = 1.0 / D ** 0.5
    sqz, sqh, sqm, sqk = q.stride()
    grid = (N // BM, B * H, 1)
    values = dict(q=q, k=k, v=v, o=o, sm_scale=sm_scale, N_CTX=N, H=H, sqz=sqz, sqh=sqh, sqm=sqm, sqk=sqk)
    ref = torch.nn.functional.scaled_dot_product_attention(q, k, v, scale=sm_scale)
    torch.cuda.synchronize()
    flops = 4.0 * B * H * N * N * D

    res["max_abs_ref"] = ref.float().abs().max().item()

    def check(name):
        err = (o.float() - ref.float()).abs().max().item()
        res.setdefault("max_abs_err", {})[name] = err
        log("check", name, "max abs err", err)
        return err < a.tol

    # 1. The kernel as a Triton program compiles it (JIT launch, divisibility specialization).
    launches = {}
    try:
        jk = K.attn_fwd[grid[:2]](q, k, v, o, sm_scale, N, H, sqz, sqh, sqm, sqk, BM=BM, BN=BN, D=D,
                                   num_warps=4, num_stages=3)
        torch.cuda.synchronize()
        res["jit_ok"] = check("jit")
        launches["jit"] = lambda: K.attn_fwd[grid[:2]](q, k, v, o, sm_scale, N, H, sqz, sqh, sqm, sqk,
                                                        BM=BM, BN=BN, D=D, num_warps=4, num_stages=3)
        sources = [("jit", jk.asm["ttgir"])]
    except Exception:
        res["jit_error"] = traceback.format_exc()
        log(res["jit_error"])
        sources = []
    sources.append(("corpus", open(os.path.join(CORPUS, "bundles/sm90/attn_fwd_d128/attn_fwd.ttgir")).read()))

    # 2. Its TTGIR re-lowered unchanged and with the detour; launched directly.
    for origin, base in sources:
        try:
            text, detour = add_alias(base, "blocked", LAYOUTS["blocked_ld"])
            text = detour_wgmma_operand(text, detour)
        except Exception as e:
            res.setdefault("edit_errors", {})[origin] = repr(e)
            continue
        res["ttgir_origin"] = origin
        os.makedirs(fixture, exist_ok=True)
        write_diff(base, text, "baseline/attn_fwd.ttgir", "regressed/attn_fwd.ttgir",
                   os.path.join(fixture, "regressed.ttgir.diff"))
        kernels = {}
        for variant, t in (("baseline", base), ("regressed", text)):
            path = os.path.join(work, variant, "attn_fwd.ttgir")
            os.makedirs(os.path.dirname(path), exist_ok=True)
            open(path, "w").write(t)
            ck = triton.compile(path, target=GPUTarget("cuda", 90, 32))
            dump(ck, os.path.join(fixture, variant))
            kernels[variant] = ck
        names = func_arg_names(base)
        res["launch_args"] = names
        for variant, ck in kernels.items():
            args = [values[n] for n in names]
            try:
                o.zero_()
                ck[grid](*args)
                torch.cuda.synchronize()
                res.setdefault("ok", {})[variant] = check(variant)
                launches[variant] = (lambda ck=ck, args=args: ck[grid](*args))
                res.setdefault("launch_method", {})[variant] = "CompiledKernel[grid]"
            except Exception:
                res.setdefault("launch_errors", {})[variant] = traceback.format_exc()
                log(res["launch_errors"][variant])
                # Fallback: the real program with the TTGIR overridden (ir_override option).
                try:
                    path = os.path.join(work, variant, "attn_fwd.ttgir")
                    fn = (lambda path=path: K.attn_fwd[grid[:2]](q, k, v, o, sm_scale, N, H, sqz, sqh, sqm, sqk,
                                                                 BM=BM, BN=BN, D=D, num_warps=4, num_stages=3,
                                                                 ir_override=path))
                    o.zero_()
                    fn()
                    torch.cuda.synchronize()
                    res.setdefault("ok", {})[variant] = check(variant)
                    launches[variant] = fn
                    res.setdefault("launch_method", {})[variant] = "JIT with ir_override"
                except Exception:
                    res.setdefault("launch_errors", {})[variant + "_ir_override"] = traceback.format_exc()
        break

    # 3. Timing: CUDA events, warm-up, interleaved repeats, median.
    samples = {n: [] for n in launches}
    for fn in launches.values():
        for _ in range(a.warmup):
            fn()
    torch.cuda.synchronize()
    for _ in range(a.reps):
        for n, fn in launches.items():
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            fn()
            e.record()
            e.synchronize()
            samples[n].append(s.elapsed_time(e))
    res["timing"] = {n: {"median_ms": statistics.median(x), "min_ms": min(x), "max_ms": max(x),
                         "tflops": flops / (statistics.median(x) * 1e-3) / 1e12, "reps": len(x), "samples_ms": x}
                     for n, x in samples.items() if x}
    res["flops"] = flops
    for n in ("baseline", "regressed"):
        d = os.path.join(fixture, n)
        if os.path.isdir(d):
            res.setdefault("counts", {})[n] = counts(d)
    json.dump(res, open(os.path.join(out, "summary-sm90.json"), "w"), indent=1)
    log("sm90 timing", json.dumps({n: (round(t["median_ms"], 3), round(t["tflops"], 1))
                                   for n, t in res.get("timing", {}).items()}))


# ---------------------------------------------------------------- ptxas survey

MM_SIG = dict(a="*fp16", b="*fp16", c="*fp16", M="i32", N="i32", K="i32", sam="i32", sak="i32", sbk="i32",
              sbn="i32", scm="i32", scn="i32", BM="constexpr", BN="constexpr", BK="constexpr")
# Compiles where ptxas serializes wgmma (sm90-ptxas-serialized/<name>/).
PTXAS_CANDIDATES = [
    # name, module, fn, arch, signature, constexprs, options
    # the corpus matmul at an autotune config of the sweep (128x256x32, 4 warps)
    ("matmul_128x256x32_w4", "triton_kernels", "matmul", 90, MM_SIG, dict(BM=128, BN=256, BK=32),
     dict(num_warps=4, num_stages=3)),
]

C75 = re.compile(r"C75\d\d")


def survey(paths):
    import concurrent.futures as cf
    res = {}
    with cf.ThreadPoolExecutor(max(1, (os.cpu_count() or 2) - 2)) as pool:
        futs = {p: pool.submit(ptxas_verbose, p) for p in paths}
        for p, f in futs.items():
            try:
                text = f.result()
            except Exception as e:
                text = "ERROR " + repr(e)
            warnings = [line.strip() for line in text.splitlines()
                        if "warning" in line.lower() or C75.search(line)]
            res[p] = {"warnings": warnings, "c75": sorted(set(C75.findall(text))),
                      "info": [line.strip() for line in text.splitlines() if "Used" in line or "spill" in line]}
    return res


def cmd_ptxas(a):
    out = a.out
    work = os.path.join(out, "_work", "ptxas")
    os.makedirs(work, exist_ok=True)
    import concurrent.futures as cf
    with cf.ThreadPoolExecutor(4) as pool:
        jobs = {name: pool.submit(run_child, ["compile-ast", mod, fn, str(arch), os.path.join(out, "sm90-ptxas-serialized", name),
                                              "--sig", json.dumps(sig), "--cx", json.dumps(cx), "--opts", json.dumps(opts)],
                                  os.path.join(work, name + ".log"))
                for name, mod, fn, arch, sig, cx, opts in PTXAS_CANDIDATES}
        rcs = {n: j.result() for n, j in jobs.items()}
    paths = []
    for root in [CORPUS] + a.extra:
        for p in sorted(glob.glob(os.path.join(root, "**", "*.ptx"), recursive=True)):
            head = open(p).read(4000)
            if re.search(r"^\.target\s+sm_(90|100)a", head, re.M):
                paths.append(p)
    paths += sorted(glob.glob(os.path.join(out, "sm90-ptxas-serialized", "*", "*.ptx")))
    res = survey(paths)
    found = {p: r for p, r in res.items() if r["warnings"]}
    json.dump({"candidates_rc": rcs, "surveyed": len(res), "with_warnings": found,
               "all": {p: {"c75": r["c75"], "info": r["info"]} for p, r in res.items()}},
              open(os.path.join(out, "summary-ptxas.json"), "w"), indent=1)
    log("ptxas survey:", len(res), "files,", len(found), "with warnings")
    for p, r in found.items():
        log("  ", p, r["c75"], r["warnings"][:2])


# ---------------------------------------------------------------- gluon / warp specialization

def cmd_gluon_one(a):
    """Compiles one Gluon kernel for cuda:100 on a machine whose GPU is not sm100."""
    import inspect
    import torch
    import triton
    from triton.backends.compiler import GPUTarget
    setup_src()
    os.environ["TRITON_CACHE_DIR"] = a.dest + ".cache"
    triton.runtime.driver.active.get_current_target = lambda: GPUTarget("cuda", 100, 32)
    FK = load_module("fixture_kernels")
    if FK.GLUON_ERROR is not None:
        raise FK.GLUON_ERROR
    from triton.experimental.gluon import language as gl
    from triton.experimental.gluon.language.nvidia import blackwell as glb
    from triton.experimental.gluon.nvidia.hopper import TensorDescriptor
    print("gl.warp_specialize", inspect.signature(gl.warp_specialize))
    print("TensorMemoryLayout", inspect.signature(glb.TensorMemoryLayout))
    print("blackwell exports", sorted(n for n in dir(glb) if not n.startswith("_")))
    BM, BN, BK, M, N, Kd = 128, 128, 64, 256, 256, 512
    A = torch.empty(M, Kd, device="cuda", dtype=torch.float16)
    Bm = torch.empty(N, Kd, device="cuda", dtype=torch.float16)
    C = torch.empty(M, N, device="cuda", dtype=torch.float16)
    a_layout = gl.NVMMASharedLayout.get_default_for([BM, BK], gl.float16)
    b_layout = gl.NVMMASharedLayout.get_default_for([BN, BK], gl.float16)
    a_desc = TensorDescriptor(A, list(A.shape), list(A.stride()), [BM, BK], a_layout)
    b_desc = TensorDescriptor(Bm, list(Bm.shape), list(Bm.stride()), [BN, BK], b_layout)
    params = inspect.signature(glb.TensorMemoryLayout).parameters
    tmem_layout = (glb.TensorMemoryLayout(block=(BM, BN), col_stride=1) if "col_stride" in params
                   else glb.TensorMemoryLayout(block=(BM, BN), unpacked=True))
    acc_layouts = []
    for make in (lambda: glb.get_tmem_reg_layout(gl.float32, [BM, BN], tmem_layout, 4),
                 lambda: gl.BlockedLayout([1, BN], [32, 1], [4, 1], [0, 1])):
        try:
            acc_layouts.append(make())
        except Exception as e:
            print("layout helper unavailable:", repr(e))
    kname = "gluon_ws_matmul" if a.kernel == "ws" else "gluon_tcgen05_matmul"
    kernel = getattr(FK, kname)
    print("kernel", kname)
    last = None
    for acc_layout in acc_layouts:
        try:
            ck = kernel.warmup(a_desc, b_desc, C, M, N, Kd, tmem_layout, acc_layout, grid=(M // BM, N // BN),
                               num_warps=4)
            print("acc layout", acc_layout)
            try:
                dump(ck, a.dest)
            except Exception:
                traceback.print_exc()
                dump_from_cache(a.dest + ".cache", a.dest)
            return
        except Exception as e:
            traceback.print_exc()
            last = e
            if glob.glob(os.path.join(a.dest + ".cache", "*", "__grp__*.json")):
                dump_from_cache(a.dest + ".cache", a.dest)
                return
    raise last


def cmd_gluon(a):
    out = a.out
    work = os.path.join(out, "_work", "gluon")
    os.makedirs(work, exist_ok=True)
    rcs = {}
    rcs["gluon_tcgen05"] = run_child(["gluon-one", "plain", os.path.join(out, "sm100-gluon-positive", "tcgen05")],
                                     os.path.join(work, "tcgen05.log"))
    rcs["gluon_ws"] = run_child(["gluon-one", "ws", os.path.join(out, "sm100-gluon-positive", "warp-specialized")],
                                os.path.join(work, "ws.log"))
    summary = {"rc": rcs, "counts": {}}
    for d in glob.glob(os.path.join(out, "sm100-gluon-positive", "*")):
        if os.path.isdir(d) and not d.endswith(".cache"):
            summary["counts"][os.path.relpath(d, out)] = counts(d)
    json.dump(summary, open(os.path.join(out, "summary-gluon.json"), "w"), indent=1)
    log("gluon", rcs)


# ---------------------------------------------------------------- dumpdir

def cmd_dumpdir_run(a):
    """Child of `dumpdir`: launches three corpus kernels; the parent set
    TRITON_KERNEL_DUMP, TRITON_DUMP_DIR and a fresh TRITON_CACHE_DIR."""
    import torch
    setup_src()
    k = load_module("triton_kernels")
    x = torch.randn(4096, device="cuda")
    y = torch.randn_like(x)
    z = torch.empty_like(x)
    k.vadd[(4,)](x, y, z, x.numel(), BLOCK=1024)
    assert torch.allclose(z, x + y), "vadd"
    s = torch.randn(64, 1000, device="cuda", dtype=torch.float16)
    o = torch.empty_like(s)
    k.softmax_rows[(64,)](s, o, s.stride(0), s.shape[1], BLOCK=1024)
    assert torch.allclose(o.float(), torch.softmax(s.float(), 1), atol=1e-3), "softmax_rows"
    A = torch.randn(256, 256, device="cuda", dtype=torch.float16)
    B = torch.randn_like(A)
    C = torch.empty_like(A)
    k.matmul[(2, 2)](A, B, C, 256, 256, 256, A.stride(0), A.stride(1), B.stride(0), B.stride(1),
                     C.stride(0), C.stride(1), BM=128, BN=128, BK=64)
    assert torch.allclose(C.float(), A.float() @ B.float(), atol=0.5, rtol=1e-2), "matmul"
    torch.cuda.synchronize()
    log("dumpdir: 3 kernels ran and match torch")


def cmd_dumpdir(a):
    dest = os.path.join(a.out, "sm90-dump-dir")
    work = os.path.join(a.out, "_work", "dumpdir")
    shutil.rmtree(dest, ignore_errors=True)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    env = dict(os.environ, TRITON_KERNEL_DUMP="1", TRITON_DUMP_DIR=dest,
               TRITON_CACHE_DIR=os.path.join(work, "cache"))
    rc = run_child(["dumpdir-run"], os.path.join(work, "run.log"), env=env)
    for p in glob.glob(os.path.join(dest, "**", "*.llir"), recursive=True):
        os.remove(p)
    renderings = dest + ".renderings"
    shutil.rmtree(renderings, ignore_errors=True)
    for cub in glob.glob(os.path.join(dest, "*", "*.cubin")):
        out = os.path.join(renderings, os.path.relpath(cub, dest))[:-len(".cubin")]
        os.makedirs(os.path.dirname(out), exist_ok=True)
        for suffix, cmd in ((".sass", [nvtool("nvdisasm"), "-c", "-gi", cub]),
                            (".cuobjdump.sass", [nvtool("cuobjdump"), "-sass", cub])):
            r = subprocess.run(cmd, capture_output=True, text=True)
            open(out + suffix, "w").write(r.stdout + r.stderr)
        # Beside the cubin, as in the corpus bundles: the cubin reader's test.
        r = subprocess.run([nvtool("cuobjdump"), "-res-usage", cub], capture_output=True, text=True)
        open(cub[:-len(".cubin")] + ".res-usage.txt", "w").write(r.stdout + r.stderr)
    files = sorted(os.path.relpath(p, dest) for p in glob.glob(os.path.join(dest, "**", "*"), recursive=True)
                   if os.path.isfile(p))
    json.dump({"rc": rc, "files": files}, open(os.path.join(a.out, "summary-dumpdir.json"), "w"), indent=1)
    log("dumpdir", rc, len(files), "files")


# ---------------------------------------------------------------- install

def cmd_install(a):
    """Copies a run's fixture folders into tests/fixtures (no Triton needed), with the
    measurements that belong beside them."""
    src, dest = os.path.abspath(a.src), os.path.abspath(a.dest)
    for name in sorted(os.listdir(src)):
        path = os.path.join(src, name)
        if name.startswith("_") or not os.path.isdir(path):
            continue
        target = os.path.join(dest, name)
        # Expectations written by hand beside the builds (NAME.rules.expect
        # for `gestell rules test`, NAME.triton.expected for the triton-*
        # lit tests) survive a reinstall.
        kept = {}
        for root, _, files in os.walk(target):
            for f in files:
                if f.endswith(".expect") or f.endswith(".expected"):
                    p = os.path.join(root, f)
                    kept[os.path.relpath(p, target)] = open(p).read()
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(path, target, ignore=lambda d, names: [n for n in names if n.endswith(".cache")])
        for rel, text in kept.items():
            p = os.path.join(target, rel)
            if os.path.isdir(os.path.dirname(p)):
                open(p, "w").write(text)
        log("installed", name)
    sm90 = os.path.join(src, "summary-sm90.json")
    if os.path.exists(sm90):
        res = json.load(open(sm90))
        res.pop("counts", None)
        json.dump(res, open(os.path.join(dest, "sm90-attn-wgmma-detour", "timing.json"), "w"), indent=1)
    sm100 = os.path.join(src, "summary-sm100.json")
    if os.path.exists(sm100):
        same = json.load(open(sm100)).get("equivalent_identical_to_baseline")
        json.dump({"equivalent_identical_to_baseline": same},
                  open(os.path.join(dest, "sm100-attn-tmem", "equivalent.json"), "w"), indent=1)
    survey = os.path.join(src, "summary-ptxas.json")
    if os.path.exists(survey):
        res = json.load(open(survey))
        rel = {}
        for p, r in res["all"].items():
            m = re.search(r"(tests/corpus/.*|sweep/.*|sm90-ptxas-serialized/.*)", p)
            rel[m.group(1) if m else os.path.basename(p)] = r
        json.dump({"surveyed": res["surveyed"], "files": rel},
                  open(os.path.join(dest, "sm90-ptxas-serialized", "survey.json"), "w"), indent=1, sort_keys=True)


# ---------------------------------------------------------------- driver

def cmd_all(a):
    os.makedirs(a.out, exist_ok=True)
    logs = os.path.join(a.out, "_work")
    os.makedirs(logs, exist_ok=True)
    procs = {}
    for part in a.parts.split(","):
        args = [part, "--out", a.out]
        if part == "ptxas":
            for e in a.extra:
                args += ["--extra", e]
        cmd = [sys.executable, os.path.abspath(__file__)] + (["--cuobjdump"] if a.cuobjdump else []) + args
        procs[part] = subprocess.Popen(cmd, stdout=open(os.path.join(logs, part + ".log"), "w"),
                                       stderr=subprocess.STDOUT)
        log("started", part)
    deadline = time.time() + a.timeout
    for part, p in procs.items():
        try:
            rc = p.wait(timeout=max(1, deadline - time.time()))
        except subprocess.TimeoutExpired:
            p.kill()
            rc = "timeout"
        log("finished", part, rc)
        sys.stdout.write(open(os.path.join(logs, part + ".log")).read()[-6000:])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    ap.add_argument("--cuobjdump", action="store_true", help="also write <kernel>.cuobjdump.sass")
    p = sub.add_parser("all")
    p.add_argument("--out", required=True)
    p.add_argument("--parts", default="sm100,sm90,ptxas,gluon")
    p.add_argument("--extra", action="append", default=[], help="more folders of PTX for the ptxas survey")
    p.add_argument("--timeout", type=int, default=480)
    p = sub.add_parser("sm100")
    p.add_argument("--out", required=True)
    p.add_argument("--jobs", type=int, default=6)
    p = sub.add_parser("sm90")
    p.add_argument("--out", required=True)
    p.add_argument("--batch", type=int, default=4)
    p.add_argument("--heads", type=int, default=16)
    p.add_argument("--n-ctx", type=int, default=8192)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--reps", type=int, default=30)
    p.add_argument("--tol", type=float, default=3e-2)
    p = sub.add_parser("ptxas")
    p.add_argument("--out", required=True)
    p.add_argument("--extra", action="append", default=[])
    p = sub.add_parser("gluon")
    p.add_argument("--out", required=True)
    p = sub.add_parser("dumpdir")
    p.add_argument("--out", required=True)
    p = sub.add_parser("dumpdir-run")
    p = sub.add_parser("gluon-one")
    p.add_argument("kernel", choices=["plain", "ws"])
    p.add_argument("dest")
    p = sub.add_parser("install", help="copy a run's fixtures into tests/fixtures")
    p.add_argument("src")
    p.add_argument("dest")
    p = sub.add_parser("compile-ttgir")
    p.add_argument("ttgir")
    p.add_argument("arch", type=int)
    p.add_argument("dest")
    p = sub.add_parser("compile-ast")
    p.add_argument("module")
    p.add_argument("fn")
    p.add_argument("arch", type=int)
    p.add_argument("dest")
    p.add_argument("--sig", required=True)
    p.add_argument("--cx", default="{}")
    p.add_argument("--opts", default="{}")
    a = ap.parse_args()
    global CUOBJDUMP_SASS
    CUOBJDUMP_SASS = a.cuobjdump
    fn = {"all": cmd_all, "sm100": cmd_sm100, "sm90": cmd_sm90, "ptxas": cmd_ptxas, "gluon": cmd_gluon,
          "gluon-one": cmd_gluon_one, "dumpdir": cmd_dumpdir, "dumpdir-run": cmd_dumpdir_run, "install": cmd_install, "compile-ttgir": cmd_compile_ttgir, "compile-ast": cmd_compile_ast}[a.cmd]
    if a.cmd in ("sm100", "sm90", "ptxas", "gluon", "dumpdir", "all"):
        a.out = os.path.abspath(a.out)
        os.makedirs(a.out, exist_ok=True)
    try:
        fn(a)
    except Exception:
        traceback.print_exc()
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
