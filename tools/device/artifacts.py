# Device job: ground truth and new real artifacts for gestell's tests.
import json, os, re, shutil, subprocess, sys, tarfile, time, traceback, glob, importlib.util
OUT = os.environ.get("OUT", "/tmp/out"); HERE = os.path.dirname(os.path.abspath(__file__))
W = "/tmp/work"; os.makedirs(W, exist_ok=True)
T0 = time.time()
def log(*a): print(f"[{time.time()-T0:6.1f}]", *a, flush=True)
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
tdir = os.path.dirname(triton.__file__)
def tool(n):
    for p in [os.path.join(tdir, "backends/nvidia/bin", n), shutil.which(n) or "", "/usr/local/cuda/bin/" + n]:
        if p and os.path.exists(p): return p
NVDISASM, CUOBJDUMP = tool("nvdisasm"), tool("cuobjdump")
PTXAS = triton.knobs.nvidia.ptxas.path
try: PTXAS_BW = triton.knobs.nvidia.ptxas_blackwell.path
except Exception: PTXAS_BW = PTXAS
log("triton", triton.__version__, PTXAS, PTXAS_BW, NVDISASM)
for t in (PTXAS, PTXAS_BW, NVDISASM):
    log(subprocess.run([t, "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1])

def step(name, fn):
    try: fn(); log("done", name)
    except Exception: log("FAIL", name); traceback.print_exc()

# 1. ptxas -v on every PTX we were given (Triton's own command line).
def ptxas_all():
    res = {}
    for p in sorted(glob.glob(os.path.join(HERE, "data", "**", "*.ptx"), recursive=True)):
        txt = open(p).read()
        t = re.search(r"\.target\s+(\w+)", txt).group(1)
        cap = int(re.match(r"sm_(\d+)", t).group(1))
        exe = PTXAS_BW if cap >= 100 else PTXAS
        r = subprocess.run([exe, "-lineinfo", "-v", f"--gpu-name={t}", p, "-o", "/tmp/x.o"], capture_output=True, text=True)
        res[os.path.relpath(p, os.path.join(HERE, "data"))] = {"rc": r.returncode, "log": r.stdout + r.stderr}
    json.dump(res, open(os.path.join(W, "ptxas-v.json"), "w"), indent=1)

# 2. CUDA driver occupancy for every sm_90 cubin.
def occupancy():
    from cuda.bindings import driver as cu
    def ck(r):
        err = r[0] if isinstance(r, tuple) else r
        if err != cu.CUresult.CUDA_SUCCESS: raise RuntimeError(str(err))
        return r[1:] if isinstance(r, tuple) and len(r) > 2 else (r[1] if isinstance(r, tuple) and len(r) == 2 else None)
    ck(cu.cuInit(0)); dev = ck(cu.cuDeviceGet(0)); ctx = ck(cu.cuDevicePrimaryCtxRetain(dev)); ck(cu.cuCtxSetCurrent(ctx))
    A = cu.CUdevice_attribute
    devattrs = {k: ck(cu.cuDeviceGetAttribute(getattr(A, k), dev)) for k in [
        "CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT", "CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR",
        "CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN", "CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR",
        "CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR", "CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR",
        "CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK", "CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK"]}
    man = json.load(open(os.path.join(HERE, "manifest.json")))
    extra = json.load(open(os.path.join(W, "new-manifest.json"))) if os.path.exists(os.path.join(W, "new-manifest.json")) else []
    rows = []
    F = cu.CUfunction_attribute
    for e in man + extra:
        if not str(e.get("ptx_target", "")).startswith("sm_90"): continue
        path = e["cubin"] if os.path.isabs(e["cubin"]) else os.path.join(HERE, "data", e["cubin"])
        row = dict(e)
        try:
            data = open(path, "rb").read()
            mod = ck(cu.cuModuleLoadData(data))
            fn = ck(cu.cuModuleGetFunction(mod, e["name"].encode()))
            for k in ["CU_FUNC_ATTRIBUTE_NUM_REGS", "CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES", "CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES", "CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK", "CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET", "CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH"]:
                try: row[k] = ck(cu.cuFuncGetAttribute(getattr(F, k), fn))
                except Exception as x: row[k] = "error: " + str(x)
            threads = e.get("reqntid") or 32 * (e.get("num_warps") or 4)
            dyn = e.get("shared") or 0
            row["threads"] = threads
            try:
                ck(cu.cuFuncSetAttribute(fn, F.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, dyn))
                row["set_dyn_ok"] = True
            except Exception as x:
                row["set_dyn_ok"] = False; row["set_dyn_error"] = str(x)
            try: row["blocks_per_sm"] = ck(cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(fn, threads, dyn))
            except Exception as x: row["blocks_per_sm"] = "error: " + str(x)
            ck(cu.cuModuleUnload(mod))
        except Exception as x:
            row["error"] = str(x)
        rows.append(row)
    json.dump({"device": devattrs, "kernels": rows}, open(os.path.join(W, "occupancy-sm90.json"), "w"), indent=1)

def sass_for(d):
    for cub in glob.glob(os.path.join(d, "**", "*.cubin"), recursive=True):
        r = subprocess.run([NVDISASM, "-c", "-gi", cub], capture_output=True, text=True)
        open(cub[:-6] + ".sass", "w").write(r.stdout)
        if r.stderr: open(cub[:-6] + ".nvdisasm.err", "w").write(r.stderr)
        r = subprocess.run([CUOBJDUMP, "-res-usage", cub], capture_output=True, text=True)
        open(cub[:-6] + ".res-usage.txt", "w").write(r.stdout + r.stderr)

# 3. Inductor kernels with bounds checks (__assertfail), run for real on the H200.
def inductor():
    import torch
    os.environ["TRITON_CACHE_DIR"] = f"{W}/inductor/triton-cache"
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = f"{W}/inductor/inductor-cache"
    import torch._inductor.config as cfg
    cfg.fx_graph_cache = False
    def f(x, i, j):
        return x[i] * 2 + x[j].sin()
    x = torch.randn(4096, device="cuda"); i = torch.randint(0, 4096, (8192,), device="cuda"); j = torch.randint(0, 4096, (8192,), device="cuda")
    y = torch.compile(f)(x, i, j); torch.cuda.synchronize()
    ref = f(x, i, j); assert torch.allclose(y, ref, atol=1e-5)
    sass_for(f"{W}/inductor/triton-cache")
    shutil.rmtree(f"{W}/inductor/inductor-cache", ignore_errors=True)

# 4. Multi-CTA and 2-CTA tcgen05 kernels (compile-only for sm_100; sm_90 also run).
def multicta():
    spec = importlib.util.spec_from_file_location("triton_kernels", "/src/kernels/triton_kernels.py")
    K = importlib.util.module_from_spec(spec); spec.loader.exec_module(K)
    MM = dict(a="*fp16", b="*fp16", c="*fp16", M="i32", N="i32", K="i32", sam="i32", sak="i32", sbk="i32", sbn="i32", scm="i32", scn="i32", BM="constexpr", BN="constexpr", BK="constexpr")
    TM = dict(a_ptr="*fp16", b_ptr="*fp16", c_ptr="*fp16", M="i32", N="i32", K="i32", BM="constexpr", BN="constexpr", BK="constexpr")
    jobs = [("sm90", 90, K.matmul, MM, dict(BM=128, BN=128, BK=64), dict(num_warps=4, num_stages=3, num_ctas=2)),
            ("sm100", 100, K.matmul, MM, dict(BM=256, BN=128, BK=64), dict(num_warps=4, num_stages=3, num_ctas=2)),
            ("sm100", 100, K.tma_matmul, TM, dict(BM=256, BN=128, BK=64), dict(num_warps=4, num_stages=3, num_ctas=2)),
            ("sm100", 100, K.matmul, MM, dict(BM=128, BN=256, BK=64), dict(num_warps=4, num_stages=3, num_ctas=2))]
    for tname, cap, fn, sig, cx, opts in jobs:
        os.environ["TRITON_CACHE_DIR"] = f"{W}/multicta/{tname}/triton-cache"
        try:
            k = triton.compile(ASTSource(fn=fn, signature=sig, constexprs=cx), target=GPUTarget("cuda", cap, 32), options=opts)
            tt = k.asm["ttgir"]
            log(tname, fn.__name__, cx, opts, "twoCTAs" in tt and "twoCTAs = true" in tt, "CGALayout" in tt)
        except Exception as x:
            log("compile FAIL", tname, fn.__name__, cx, repr(x)[:300])
    sass_for(f"{W}/multicta")

# 5. Kernels for occupancy: too much shared memory, and a register pair.
def occ_kernels():
    spec = importlib.util.spec_from_file_location("triton_kernels", "/src/kernels/triton_kernels.py")
    K = importlib.util.module_from_spec(spec); spec.loader.exec_module(K)
    MM = dict(a="*fp16", b="*fp16", c="*fp16", M="i32", N="i32", K="i32", sam="i32", sak="i32", sbk="i32", sbn="i32", scm="i32", scn="i32", BM="constexpr", BN="constexpr", BK="constexpr")
    new = []
    def comp(tag, fn, sig, cx, opts):
        os.environ["TRITON_CACHE_DIR"] = f"{W}/occ/{tag}/triton-cache"
        try:
            k = triton.compile(ASTSource(fn=fn, signature=sig, constexprs=cx), target=GPUTarget("cuda", 90, 32), options=opts)
            d = glob.glob(f"{W}/occ/{tag}/triton-cache/*/{k.metadata.name}.cubin")
            for c in d:
                m = json.load(open(c[:-6] + ".json")); txt = open(c[:-6] + ".ptx").read()
                r = re.search(r"\.reqntid\s+(\d+)", txt)
                new.append({"cubin": c, "name": m["name"], "num_warps": m["num_warps"], "shared": m["shared"], "reqntid": int(r.group(1)) if r else None, "ptx_target": "sm_90a", "tag": tag})
            log(tag, "shared", k.metadata.shared, "maxnreg", opts.get("maxnreg"))
        except Exception as x:
            log("compile FAIL", tag, repr(x)[:300])
    comp("too-much-shared", K.matmul, MM, dict(BM=256, BN=256, BK=64), dict(num_warps=8, num_stages=5))
    comp("fits-shared", K.matmul, MM, dict(BM=256, BN=128, BK=64), dict(num_warps=8, num_stages=3))
    for mr in (None, 64, 72, 80, 96, 128):
        o = dict(num_warps=4, num_stages=3)
        if mr: o["maxnreg"] = mr
        comp(f"softmax-maxnreg-{mr}", K.softmax_rows, {"x": "*fp16", "y": "*fp16", "stride": "i32", "ncols": "i32", "BLOCK": "constexpr"}, {"BLOCK": 2048}, o)
        comp(f"matmul64-maxnreg-{mr}", K.matmul, MM, dict(BM=64, BN=64, BK=32), o)
    json.dump(new, open(os.path.join(W, "new-manifest.json"), "w"), indent=1)
    sass_for(f"{W}/occ")

# 6. TritonParse's SASS rendering (tools/disasm.py extract(): nvdisasm -c -gp -g -gi,
#    then Function:<first .global> and the lines after .text.<name>: up to .headerflags).
def tritonparse_sass():
    os.makedirs(f"{W}/tritonparse", exist_ok=True)
    cubs = sorted(glob.glob(f"{W}/inductor/triton-cache/*/*.cubin"))[:1] + sorted(glob.glob(os.path.join(HERE, "data/realworld/sm90/tut-03-matrix-multiplication/**/*.cubin"), recursive=True))[:1]
    for c in cubs:
        raw = subprocess.check_output([NVDISASM, "-c", "-gp", "-g", "-gi", c]).decode()
        lines = raw.splitlines(); i = 0; ret = None
        while i < len(lines):
            m = re.match(r"^\s*\.global\s+(\w+)", lines[i])
            if m:
                fname = m.group(1); ret = f"Function:{fname}\n"
                while i < len(lines) and lines[i].strip() != f".text.{fname}:": i += 1
                i += 1
                while i < len(lines) and not lines[i].strip().startswith(".headerflags"):
                    ret += lines[i].rstrip() + "\n"; i += 1
                ret += "\n"; break
            i += 1
        base = os.path.basename(c)[:-6]
        open(f"{W}/tritonparse/{base}.tritonparse.sass", "w").write(ret or "")
        open(f"{W}/tritonparse/{base}.nvdisasm-gp.sass", "w").write(raw)
        shutil.copy(c, f"{W}/tritonparse/{base}.cubin")

os.makedirs("/src/kernels", exist_ok=True); shutil.copy(os.path.join(HERE, "triton_kernels.py"), "/src/kernels/triton_kernels.py")
step("inductor", inductor)
step("multicta", multicta)
step("occ_kernels", occ_kernels)
step("occupancy", occupancy)
step("tritonparse", tritonparse_sass)
step("ptxas", ptxas_all)
with tarfile.open(os.path.join(OUT, "work.tar.gz"), "w:gz") as tf:
    tf.add(W, arcname="work")
log("all done")
