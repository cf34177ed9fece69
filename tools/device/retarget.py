"""Real kernels compiled again for another NVIDIA target, from their .ttir.

Each TARBALL holds one folder of Triton cache entries (`NAME/HASH/k.ttir`
with its `k.json`, as library_zoo.py or inductor_zoo.py left them); every
.ttir is compiled again by Triton 3.6.0 for TARGET (compile only: sm_100a
needs no Blackwell GPU, and `hip:gfx942` or `hip:gfx950` no AMD GPU: the
AMD backend lowers to AMDGCN, 64-lane waves) with the options its .json
recorded (num_warps, num_ctas, num_stages, maxnreg; the AMD backend keeps
those it has), into a fresh Triton cache; then inductor_zoo.py's nvdisasm
and `ptxas -v` pass (nothing to do for AMD), and one tar.xz per tarball
lands in $OUT as NAME-smXXX or NAME-gfxXXX. Kernels still compiling at RT_DEADLINE seconds
(default 480) are left out, and so are those Triton refuses or whose
compile kills its process (printed; the others are compiled regardless).

    python3 tools/device/retarget.py cuda:100 devwork/rt/*.tar.xz
    python3 tools/device/retarget.py hip:gfx942 devwork/rt/*.tar.xz
"""
import concurrent.futures as cf, glob, json, os, shutil, subprocess, sys, tarfile, time

sys.path.insert(0, os.path.dirname(__file__))
import inductor_zoo  # noqa: E402

OPTIONS = ("num_warps", "num_ctas", "num_stages", "maxnreg")


def compile_one(ttir, target):
    """In a worker process (its TRITON_CACHE_DIR set): one kernel."""
    import triton
    from triton.backends.compiler import GPUTarget
    meta = json.load(open(ttir[:-5] + ".json"))
    opts = {k: meta[k] for k in OPTIONS if meta.get(k) is not None}
    backend, arch = target.split(":")
    if backend == "cuda":
        gpu = GPUTarget("cuda", int(arch), 32)
    else:  # "hip:gfx942": a wave is 64 lanes
        gpu = GPUTarget(backend, arch, 64)
    try:
        triton.compile(ttir, target=gpu, options=opts)
        return None
    except Exception as e:  # noqa: BLE001 - reported, the rest go on
        return f"{os.path.basename(ttir)}: {type(e).__name__}: {str(e)[:200]}"


def outcome(fut, deadline):
    """A compile_one future's error, "deadline", or None; raises
    BrokenProcessPool when a worker died."""
    try:
        return fut.result(timeout=max(deadline - time.time(), 0.1))
    except cf.TimeoutError:
        return "deadline"


def compile_all(ttirs, target, deadline):
    """Every .ttir compiled, the errors returned. A compile that kills its
    worker (an abort in MLIR: Triton's AMD backend on tensor descriptors)
    breaks the whole pool, so the kernels it took down are compiled again
    one per process: the crash costs only its own kernel."""
    failed, broken = [], []
    pool = cf.ProcessPoolExecutor(max(1, (os.cpu_count() or 2) - 1))
    futs = [(t, pool.submit(compile_one, t, target)) for t in ttirs]
    for t, f in futs:
        try:
            err = outcome(f, deadline)
        except cf.process.BrokenProcessPool:
            broken.append(t)
            continue
        if err:
            failed.append(err)
    pool.shutdown(wait=False, cancel_futures=True)
    for t in broken:
        one = cf.ProcessPoolExecutor(1)
        try:
            err = outcome(one.submit(compile_one, t, target), deadline)
        except cf.process.BrokenProcessPool:
            err = f"{os.path.basename(t)}: the compile killed its process"
        one.shutdown(wait=False, cancel_futures=True)
        if err:
            failed.append(err)
    return failed


def main(target, tarballs):
    deadline = time.time() + int(os.environ.get("RT_DEADLINE", "480"))
    backend, arch = target.split(":")
    suffix = "sm" + arch if backend == "cuda" else arch
    inductor_zoo.W = "/tmp/rtzoo"
    jobs = []
    src = "/tmp/rtsrc"
    shutil.rmtree(src, ignore_errors=True)  # no entries of an earlier run
    for tb in tarballs:
        with tarfile.open(tb) as tf:
            name = tf.getnames()[0].split("/")[0]
            tf.extractall(src)
        out = f"{name}-{suffix}"
        # A kernel whose first compile was cut off has a .ttir and no .json.
        ttirs = sorted(t for t in glob.glob(f"{src}/{name}/*/*.ttir") if os.path.exists(t[:-5] + ".json"))
        jobs.append((out, ttirs))
    for out, ttirs in jobs:
        if time.time() > deadline:
            print(out, "skipped: past the deadline", flush=True)
            continue
        root = f"{inductor_zoo.W}/{out}"
        shutil.rmtree(root, ignore_errors=True)
        os.environ["TRITON_CACHE_DIR"] = f"{root}/cache"
        failed = compile_all(ttirs, target, deadline)
        print(out, len(ttirs), "ttir,", len(failed), "not compiled", failed[:4], flush=True)
        if os.path.isdir(root):
            inductor_zoo.finish(out)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
