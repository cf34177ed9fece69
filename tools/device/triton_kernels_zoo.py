"""Real Triton caches of Triton's own kernel library, triton_kernels.

triton_kernels (python/triton_kernels of Triton's release/3.6.x branch: the
MoE matmul with gather/scatter, split-K, persistent TMA and mx formats,
swiglu, topk, reduce, compaction, mxfp conversions) is carried as source in
devwork/tk and copied to /src/triton_kernels. Its own pytest suite runs on the device, a deterministic sample
of each test file, every file with its own TRITON_CACHE_DIR; then every cubin
gets its nvdisasm rendering and `ptxas -v` as in inductor_zoo.py, and one
tar.xz per test file lands in $OUT.

    python3 tools/device/triton_kernels_zoo.py [TESTFILE:EVERY ...]
"""
import os, subprocess, sys, time

sys.path.insert(0, os.path.dirname(__file__))
import inductor_zoo  # noqa: E402

# Copied to /src first, so the debug info names a path outside any checkout.
TK = "/src/triton_kernels"
W = inductor_zoo.W = "/tmp/tkzoo"
LIMIT = int(os.environ.get("ZOO_LIMIT", "150"))
DEFAULT = ["test_matmul:40", "test_swiglu:4", "test_topk:8", "test_reduce:8", "test_compaction:4", "test_mxfp:16"]


def run(test, every):
    root = f"{W}/{test}"
    os.makedirs(root, exist_ok=True)
    env = dict(os.environ, TRITON_CACHE_DIR=f"{root}/cache", PYTHONPATH=TK, PYTHONUNBUFFERED="1")
    ids = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", f"tests/{test}.py"], cwd=TK,
                         env=env, capture_output=True, text=True).stdout.split("\n")
    ids = [i for i in ids if "::" in i][::every]
    print(test, len(ids), "tests", flush=True)
    t0 = time.time()
    try:
        r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *ids], cwd=TK, env=env,
                           timeout=LIMIT, capture_output=True, text=True)
        print(test, "rc", r.returncode, round(time.time() - t0, 1), "s", r.stdout[-300:], flush=True)
    except subprocess.TimeoutExpired:
        print(test, "TIMEOUT after", LIMIT, "s (keeping what compiled)", flush=True)
    inductor_zoo.finish(test)


if __name__ == "__main__":
    import shutil
    shutil.rmtree(TK, ignore_errors=True)
    shutil.copytree("devwork/tk/python/triton_kernels", TK)
    for spec in sys.argv[1:] or DEFAULT:
        test, every = spec.split(":")
        run(test, int(every))
