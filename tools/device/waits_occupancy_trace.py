# Device job 3: a wgmma loop whose PTX itself waits (pendings = 0) and why
# (step causes), sm_80
# kernels on both sides of the 8.6/8.9 shared-memory limit, a TritonParse
# trace with SASS, and the CUDA driver's occupancy for every sm_90 cubin of
# tests/ and of this job.
import glob, json, os, re, shutil, subprocess, sys, tarfile, time, traceback, types
OUT = os.environ.get("OUT", "/tmp/out"); HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
W = "/tmp/work3"; os.makedirs(W, exist_ok=True)
T0 = time.time()
def log(*a): print(f"[{time.time()-T0:6.1f}]", *a, flush=True)
import torch, triton
import triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
tdir = os.path.dirname(triton.__file__)
def tool(n):
    for p in [os.path.join(tdir, "backends/nvidia/bin", n), shutil.which(n) or "", "/usr/local/cuda/bin/" + n]:
        if p and os.path.exists(p): return p
NVDISASM = tool("nvdisasm")
PTXAS = triton.knobs.nvidia.ptxas.path
def step(name, fn):
    try: fn(); log("done", name)
    except Exception: log("FAIL", name); traceback.print_exc()

def sass_for(d):
    for cub in glob.glob(os.path.join(d, "**", "*.cubin"), recursive=True):
        r = subprocess.run([NVDISASM, "-c", "-gi", cub], capture_output=True, text=True)
        open(cub[:-6] + ".sass", "w").write(r.stdout)
        p = cub[:-6] + ".ptx"
        if os.path.exists(p):
            t = re.search(r"\.target\s+(\w+)", open(p).read()).group(1)
            r = subprocess.run([PTXAS, "-lineinfo", "-v", f"--gpu-name={t}", p, "-o", "/tmp/x.o"], capture_output=True, text=True)
            open(cub[:-6] + ".ptxas.txt", "w").write(r.stdout + r.stderr)

sys.path.insert(0, "/src/kernels")
os.makedirs("/src/kernels", exist_ok=True)
shutil.copy(os.path.join(HERE, "local_kernels.py"), "/src/kernels/local_kernels.py")
import local_kernels as K

MM = dict(a="*fp16", b="*fp16", c="*fp16", M="i32", N="i32", K="i32", BM="constexpr", BN="constexpr", BK="constexpr")

def compile_to(tag, fn, sig, cx, cap, opts):
    os.environ["TRITON_CACHE_DIR"] = f"{W}/{tag}/triton-cache"
    k = triton.compile(ASTSource(fn=fn, signature=sig, constexprs=cx), target=GPUTarget("cuda", cap, 32), options=opts)
    return k

# A. The accumulator is read in the same iteration: the pipeliner leaves
#    warp_group_dot_wait {pendings = 0} after each dot.
def waits():
    for fn in (K.matmul_clamp, K.matmul_where):
        for bm, bk in ((128, 16), (128, 32), (64, 16)):
            # BM=64, BK=16 on one warp group: one wgmma.mma_async per iteration.
            tag = f"wait0/{fn.__name__}-bm{bm}-bk{bk}"
            try:
                k = compile_to(tag, fn, MM, dict(BM=bm, BN=128, BK=bk), 90, dict(num_warps=4, num_stages=3))
                ptx, tt = k.asm["ptx"], k.asm["ttgir"]
                log(tag, "ptx mma", ptx.count("wgmma.mma_async"), "wait0", len(re.findall(r"wgmma\.wait_group\.sync\.aligned\s+0;", ptx)),
                    "waits", ptx.count("wgmma.wait_group"), "ttgir pendings0", len(re.findall(r"warp_group_dot_wait.*pendings = 0", tt)))
            except Exception as x:
                log("compile FAIL", tag, repr(x)[:300])
    sass_for(f"{W}/wait0")
    for s in glob.glob(f"{W}/wait0/**/*.sass", recursive=True):
        t = open(s).read()
        log(s.split("/wait0/")[1], "HGMMA", t.count("HGMMA"), "DEPBAR 0x0", len(re.findall(r"WARPGROUP\.DEPBAR\.LE\s+gsb0,\s*0x0", t)))

# B. sm_80 matmuls by num_stages: 8.0 allows 163 KB per block, 8.6/8.9 99 KB.
def sm80():
    # The corpus kernel (pointers advanced by BK, masked loads): cp.async pipelined.
    shutil.copy(os.path.join(ROOT, "devwork", "triton_kernels.py"), "/src/kernels/triton_kernels.py")
    import triton_kernels as TK
    S = dict(a="*fp16", b="*fp16", c="*fp16", M="i32", N="i32", K="i32", sam="i32", sak="i32", sbk="i32", sbn="i32", scm="i32", scn="i32", BM="constexpr", BN="constexpr", BK="constexpr")
    for st in (3, 4, 5, 6, 7, 8):
        tag = f"sm80/matmul-stages{st}"
        try:
            k = compile_to(tag, TK.matmul, S, dict(BM=128, BN=128, BK=32), 80, dict(num_warps=4, num_stages=st))
            log(tag, "shared", k.metadata.shared)
        except Exception as x:
            log("compile FAIL", tag, repr(x)[:300])
    sass_for(f"{W}/sm80")

# C. A TritonParse trace with SASS of kernels run for real.
def trace():
    sys.modules.setdefault("zstandard", types.ModuleType("zstandard"))  # only for zstd output
    sys.path.insert(0, os.path.join(ROOT, "devwork", "tp"))
    os.environ["TRITONPARSE_DUMP_SASS"] = "1"
    os.environ["TRITON_CACHE_DIR"] = f"{W}/trace/triton-cache"
    import tritonparse.structured_logging as sl
    sl.init(f"{W}/trace/logs", enable_trace_launch=True)
    x = torch.randn(1 << 16, device="cuda"); y = torch.empty_like(x)
    K.sin_f32[(64,)](x, y, x.numel(), BLOCK=1024)
    a = torch.randn(512, 512, device="cuda", dtype=torch.float16); b = torch.randn_like(a); c = torch.empty_like(a)
    for bk in (32, 64):
        K.matmul_plain[(4, 4)](a, b, c, 512, 512, 512, BM=128, BN=128, BK=bk, num_warps=4, num_stages=3)
    K.matmul_clamp[(4, 4)](a, b, c, 512, 512, 512, BM=128, BN=128, BK=16, num_warps=4, num_stages=3)
    torch.cuda.synchronize()
    try:
        import tritonparse.parse.utils as pu
        pu.unified_parse(source=f"{W}/trace/logs", out=f"{W}/trace/parsed", overwrite=True)
    except Exception:
        log("parse FAIL"); traceback.print_exc()
    for f in glob.glob(f"{W}/trace/**/*", recursive=True):
        if os.path.isfile(f): log("trace file", os.path.relpath(f, W), os.path.getsize(f))

# D. The driver's occupancy answers.
def occupancy():
    from cuda.bindings import driver as cu
    def ck(r):
        err = r[0] if isinstance(r, tuple) else r
        if err != cu.CUresult.CUDA_SUCCESS: raise RuntimeError(str(err))
        return r[1] if isinstance(r, tuple) and len(r) == 2 else None
    ck(cu.cuInit(0)); dev = ck(cu.cuDeviceGet(0)); ctx = ck(cu.cuDevicePrimaryCtxRetain(dev)); ck(cu.cuCtxSetCurrent(ctx))
    F = cu.CUfunction_attribute
    rows = []
    cubins = sorted(glob.glob(os.path.join(ROOT, "tests", "**", "*.cubin"), recursive=True)) + sorted(glob.glob(f"{W}/**/*.cubin", recursive=True))
    for c in cubins:
        stem = c[:-6]; row = {"cubin": os.path.relpath(c, ROOT) if c.startswith(ROOT) else os.path.relpath(c, W)}
        ptx = stem + ".ptx"; meta = stem + ".json"
        if not os.path.exists(ptx): continue
        txt = open(ptx).read()
        t = re.search(r"\.target\s+(\w+)", txt)
        if not t or not t.group(1).startswith("sm_90"): continue
        m = json.load(open(meta)) if os.path.exists(meta) else {}
        e = re.search(r"\.entry\s+(\w+)", txt)
        row["name"] = m.get("name") or e.group(1)
        r = re.search(r"\.reqntid\s+(\d+)", txt)
        row["threads"] = int(r.group(1)) if r else 32 * (m.get("num_warps") or 4)
        row["dynamic_shared"] = dyn = m.get("shared") or 0
        row["num_ctas"] = m.get("num_ctas")
        try:
            mod = ck(cu.cuModuleLoadData(open(c, "rb").read()))
            fn = ck(cu.cuModuleGetFunction(mod, row["name"].encode()))
            for k in ["NUM_REGS", "SHARED_SIZE_BYTES", "LOCAL_SIZE_BYTES", "MAX_THREADS_PER_BLOCK"]:
                row[k] = ck(cu.cuFuncGetAttribute(getattr(F, "CU_FUNC_ATTRIBUTE_" + k), fn))
            try:
                ck(cu.cuFuncSetAttribute(fn, F.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, dyn)); row["set_dyn_ok"] = True
            except Exception as x:
                row["set_dyn_ok"] = False; row["set_dyn_error"] = str(x)
            try: row["blocks_per_sm"] = ck(cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(fn, row["threads"], dyn))
            except Exception as x: row["blocks_per_sm"] = "error: " + str(x)
            ck(cu.cuModuleUnload(mod))
        except Exception as x:
            row["error"] = str(x)
        rows.append(row)
    json.dump({"kernels": rows}, open(os.path.join(W, "occupancy-sm90.json"), "w"), indent=1)
    log("occupancy rows", len(rows))

# E. The other rules of Triton's MMA pipelining (plugins/nvidia/
#    WgmmaSyncCause.h), run for real so that pointers and K are specialized
#    (divisible by 16) and the loads pipeline: a carried accumulator rescaled
#    before the next dot (rule 3), an f16 accumulator (rule 2.1).
def causes():
    os.environ["TRITON_CACHE_DIR"] = f"{W}/causes/triton-cache"
    a = torch.randn(512, 512, device="cuda", dtype=torch.float16); b = torch.randn_like(a); c = torch.empty_like(a)
    for fn in (K.matmul_rescale, K.matmul_f16acc):
        # BM=64, BK=16 on one warp group: one wgmma.mma_async per iteration, so
        # a full wait after it leaves nothing in flight (the remark's case).
        fn[(8, 4)](a, b, c, 512, 512, 512, BM=64, BN=128, BK=16, num_warps=4, num_stages=3)
    torch.cuda.synchronize()
    sass_for(f"{W}/causes")
    for t in glob.glob(f"{W}/causes/**/*.ttgir", recursive=True):
        tt = open(t).read()
        log(os.path.basename(t), "pendings0", len(re.findall(r"warp_group_dot_wait.*pendings = 0", tt)),
            "memdesc_index", tt.count("ttg.memdesc_index"), "async_copy", tt.count("async_copy_global_to_local"))

STEPS = dict(waits=waits, sm80=sm80, trace=trace, occupancy=occupancy, causes=causes)
for name in sys.argv[1:] or STEPS:
    step(name, STEPS[name])
with tarfile.open(os.path.join(OUT, "work3.tar.gz"), "w:gz") as tf:
    tf.add(W, arcname="work3")
log("all done")
