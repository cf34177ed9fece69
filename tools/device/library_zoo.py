"""Real Triton caches of kernel libraries nobody on the team wrote, made by
the libraries' own test suites on the device machine.

LIB is one of LIBS below; its source is carried in devwork/ (see
tools/device/README.md for where each comes from) and copied to /src/LIB
first, so the debug info names a path outside any checkout. A deterministic
sample of each test file runs (every EVERY-th collected test), every file
with its own TRITON_CACHE_DIR; then every cubin gets its nvdisasm rendering
and `ptxas -v` as in inductor_zoo.py, and one tar.xz per test file lands in
$OUT, named LIB-TESTFILE.

    python3 tools/device/library_zoo.py LIB [TESTFILE:EVERY ...]
    python3 tools/device/library_zoo.py LIB --probe   # imports, test counts
"""
import os, shutil, subprocess, sys, time

sys.path.insert(0, os.path.dirname(__file__))
import inductor_zoo  # noqa: E402

LIMIT = int(os.environ.get("ZOO_LIMIT", "150"))
# name: (carried source, folder of its tests, PYTHONPATH below /src/name, default sample)
LIBS = {
    # python/triton_kernels of Triton's release/3.6.x branch: the MoE matmul
    # with gather/scatter, split-K, persistent TMA and mx formats, swiglu,
    # topk, reduce, compaction, mxfp conversions.
    "triton_kernels": ("devwork/tk/python/triton_kernels", "tests", ["."],
                       ["test_matmul:40", "test_swiglu:4", "test_topk:8", "test_reduce:8", "test_compaction:4",
                        "test_mxfp:16"]),
    # fla-org/flash-linear-attention: chunked linear-attention kernels
    # (many small tl.dot, cumulative sums, triangular solves), autotuned.
    "fla": ("devwork/fla", "tests/ops", ["."],
            ["test_gla:6", "test_gdn:20", "test_kda:18", "test_attn:6", "test_nsa:12", "test_solve_tril:3",
             "test_simple_gla:10"]),
    # linkedin/Liger-Kernel: fused training kernels (norms, losses, rope,
    # activations), mostly reductions over one row.
    "liger": ("devwork/liger", "test/transformers", ["src", "."],
              ["test_rms_norm:8", "test_cross_entropy:25", "test_rope:6", "test_group_norm:6", "test_softmax:3",
               "test_layer_norm:4"]),
    # Triton's own unit tests (python/test of the release/3.6.x branch):
    # the language's every op, dtype and layout in small kernels (dots of
    # every shape and dtype, scans, sorts, atomics, reductions, inline asm,
    # block pointers, tensor descriptors, pipelining, warp specialization).
    "triton_tests": ("devwork/tt/python/test", "unit", ["."],
                     ["language/test_core:40", "language/test_matmul:12", "language/test_pipeliner:2",
                      "language/test_tensor_descriptor:20", "language/test_warp_specialization:3",
                      "language/test_conversions:8", "language/test_standard:6", "language/test_block_pointer:8",
                      "cuda/test_tma_store_gemm:2"]),
}


def env_for(lib, root):
    paths = [os.path.normpath(f"/src/{lib}/{p}") for p in LIBS[lib][2]]
    return dict(os.environ, TRITON_CACHE_DIR=f"{root}/cache", PYTHONPATH=":".join(paths), PYTHONUNBUFFERED="1")


def collect(lib, test, env):
    r = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", f"{LIBS[lib][1]}/{test}.py"],
                       cwd=f"/src/{lib}", env=env, capture_output=True, text=True)
    # Test ids only: a warning pytest prints may quote one ("Test: x.py::t,").
    ids = [i for i in r.stdout.split("\n") if "::" in i and i.startswith(LIBS[lib][1] + "/")]
    if not ids:
        print(test, "collected nothing:", (r.stdout + r.stderr)[-600:], flush=True)
    return ids


def run(lib, test, every):
    name = f"{lib}-{test.replace('/', '-')}"
    root = f"{inductor_zoo.W}/{name}"
    os.makedirs(root, exist_ok=True)
    env = env_for(lib, root)
    ids = collect(lib, test, env)[::every]
    print(name, len(ids), "tests", flush=True)
    if not ids:
        return
    t0 = time.time()
    try:
        r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *ids], cwd=f"/src/{lib}",
                           env=env, timeout=LIMIT, capture_output=True, text=True)
        print(name, "rc", r.returncode, round(time.time() - t0, 1), "s", r.stdout[-300:], flush=True)
    except subprocess.TimeoutExpired:
        print(name, "TIMEOUT after", LIMIT, "s (keeping what compiled)", flush=True)
    inductor_zoo.finish(name)


if __name__ == "__main__":
    lib, specs = sys.argv[1], sys.argv[2:]
    inductor_zoo.W = f"/tmp/{lib}zoo"
    shutil.rmtree(f"/src/{lib}", ignore_errors=True)
    shutil.copytree(LIBS[lib][0], f"/src/{lib}")
    if specs == ["--probe"]:
        env = env_for(lib, "/tmp/probe")
        for spec in LIBS[lib][3]:
            print(spec, len(collect(lib, spec.split(":")[0], env)), flush=True)
        sys.exit(0)
    for spec in specs or LIBS[lib][3]:
        test, every = spec.split(":")
        run(lib, test, int(every))
