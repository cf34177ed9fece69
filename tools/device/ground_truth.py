# Device job 2: conversion ground truth, local-array kernels with ptxas -v.
import glob, importlib.util, json, os, re, shutil, subprocess, sys, tarfile, time, traceback
OUT = os.environ.get("OUT", "/tmp/out"); HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
W = "/tmp/work2"; os.makedirs(W, exist_ok=True)
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
PTXAS_BW = triton.knobs.nvidia.ptxas_blackwell.path
def step(name, fn):
    try: fn(); log("done", name)
    except Exception: log("FAIL", name); traceback.print_exc()

def ptxas_v(p):
    txt = open(p).read()
    t = re.search(r"\.target\s+(\w+)", txt).group(1)
    exe = PTXAS_BW if int(re.match(r"sm_(\d+)", t).group(1)) >= 100 else PTXAS
    r = subprocess.run([exe, "-lineinfo", "-v", f"--gpu-name={t}", p, "-o", "/tmp/x.o"], capture_output=True, text=True)
    return r.stdout + r.stderr

def conversions():
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tools/conversion_ground_truth.py"), "compile",
                        "--dir", os.path.join(HERE, "conversions"), "--jobs", "14"], capture_output=True, text=True)
    open(os.path.join(W, "conversions.log"), "w").write(r.stdout + r.stderr)
    log("conversions rc", r.returncode, (r.stdout + r.stderr)[-600:])

def local_kernels():
    os.makedirs("/src/kernels", exist_ok=True)
    shutil.copy(os.path.join(HERE, "local_kernels.py"), "/src/kernels/local_kernels.py")
    spec = importlib.util.spec_from_file_location("local_kernels", "/src/kernels/local_kernels.py")
    K = importlib.util.module_from_spec(spec); spec.loader.exec_module(K)
    E1 = {"x": "*fp32", "y": "*fp32", "n": "i32", "BLOCK": "constexpr"}
    E2 = {"x": "*fp32", "y": "*fp32", "n": "i32", "ITERS": "i32", "BLOCK": "constexpr"}
    E3 = {"x": "*fp64", "y": "*fp64", "n": "i32", "BLOCK": "constexpr"}
    MM = dict(a="*fp16", b="*fp16", c="*fp16", M="i32", N="i32", K="i32", BM="constexpr", BN="constexpr", BK="constexpr")
    jobs = []
    for cap in (90, 100):
        for blk, nw in ((256, 4), (1024, 4), (4096, 1)):
            jobs.append((f"sm{cap}-sin-f32-b{blk}-w{nw}", cap, K.sin_f32, E1, {"BLOCK": blk}, {"num_warps": nw}))
        jobs.append((f"sm{cap}-sincos-loop-b1024-w4", cap, K.sincos_loop_f32, E2, {"BLOCK": 1024}, {"num_warps": 4}))
        jobs.append((f"sm{cap}-sin-f64-b512-w4", cap, K.sin_f64, E3, {"BLOCK": 512}, {"num_warps": 4}))
        jobs.append((f"sm{cap}-matmul-sin-128x128-w1", cap, K.matmul_sin, MM, dict(BM=128, BN=128, BK=32), {"num_warps": 1, "num_stages": 2}))
        jobs.append((f"sm{cap}-matmul-sin-64x64-w4", cap, K.matmul_sin, MM, dict(BM=64, BN=64, BK=32), {"num_warps": 4, "num_stages": 2}))
    res = {}
    for tag, cap, fn, sig, cx, opts in jobs:
        os.environ["TRITON_CACHE_DIR"] = f"{W}/local/{tag}/triton-cache"
        try:
            k = triton.compile(ASTSource(fn=fn, signature=sig, constexprs=cx), target=GPUTarget("cuda", cap, 32), options=opts)
            for ptx in glob.glob(f"{W}/local/{tag}/triton-cache/*/*.ptx"):
                cub = ptx[:-4] + ".cubin"
                res[tag] = {"ptxas": ptxas_v(ptx),
                            "depot": re.findall(r"\.local\s+[^;]*;", open(ptx).read()),
                            "res_usage": subprocess.run([CUOBJDUMP, "-res-usage", cub], capture_output=True, text=True).stdout}
                open(ptx[:-4] + ".ptxas.txt", "w").write(res[tag]["ptxas"])
                open(ptx[:-4] + ".res-usage.txt", "w").write(res[tag]["res_usage"])
                r = subprocess.run([NVDISASM, "-c", "-gi", cub], capture_output=True, text=True)
                open(ptx[:-4] + ".sass", "w").write(r.stdout)
            log(tag, "ok")
        except Exception as x:
            log("compile FAIL", tag, repr(x)[:300])
    json.dump(res, open(os.path.join(W, "local-ptxas.json"), "w"), indent=1)

def device_ptxas():
    res = {}
    for p in sorted(glob.glob(os.path.join(ROOT, "tests/corpus/realworld/device/*/triton-cache/*/*.ptx"))):
        res[os.path.relpath(p, ROOT)] = ptxas_v(p)
    json.dump(res, open(os.path.join(W, "device-ptxas.json"), "w"), indent=1)

step("local", local_kernels)
step("device_ptxas", device_ptxas)
step("conversions", conversions)
shutil.copytree(os.path.join(HERE, "conversions"), f"{W}/conversions", dirs_exist_ok=True)
with tarfile.open(os.path.join(OUT, "work2.tar.gz"), "w:gz") as tf:
    tf.add(W, arcname="work2")
log("all done")
