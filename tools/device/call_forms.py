"""Real kernels in the forms a cache holds that the corpus lacked: calls.

Runs on the device machine (H200, Triton 3.6.0), each kernel launched once
in its own process, into one Triton cache (/tmp/callforms/call-forms):
  noinline_loop     a @triton.jit(noinline=True) function that loads and
                    stores a block, called in a loop (a real call: .func in
                    the PTX, a CALL and a callee in the SASS)
  noinline_wide     a noinline function taking nine scalars and returning
                    eight, called in a loop (the call ABI's parameters)
  device_print      tl.device_print in a loop (vprintf: a .local array of
                    the arguments in the PTX)
  device_assert     tl.device_assert compiled with debug=True (__assertfail)
  inline_asm        tl.inline_asm_elementwise in a loop (PTX inline asm)
  while_atomic      a while loop, tl.atomic_add and tl.debug_barrier
Then inductor_zoo.py's pass (nvdisasm -c -gi .sass beside every cubin,
`ptxas -v` in ptxas-v.json) and one tar.xz in $OUT. tools/device/retarget.py
compiles the same .ttir for sm_100a afterwards.

    mkdir -p /src/kernels
    cp tools/device/call_forms.py tools/device/inductor_zoo.py /src/kernels/
    python3 /src/kernels/call_forms.py

(run from /src/kernels, as library_zoo.py runs a library from /src, so that
the debug info names a path outside any checkout:
tests/corpus/realworld/device/sm90-call-forms came from that run).
"""
import os, shutil, sys

sys.path.insert(0, os.path.dirname(__file__))
import inductor_zoo  # noqa: E402

ROOT = "/tmp/callforms"


def kernels():
    import triton
    import triton.language as tl

    # A noinline function takes scalars only (Triton 3.6): the block's
    # offsets are made inside it.
    @triton.jit(noinline=True)
    def block_step(x, out, n, i, pid):
        offs = pid * 256 + tl.arange(0, 256)
        m = offs < n
        v = tl.load(x + i * n + offs, mask=m, other=0.0)
        acc = tl.load(out + offs, mask=m, other=0.0)
        tl.store(out + offs, acc * 0.5 + tl.sqrt(tl.abs(v) + 1.0), mask=m)

    @triton.jit
    def noinline_loop(x, out, n, ITERS: tl.constexpr, BLOCK: tl.constexpr):
        pid = tl.program_id(0)
        for i in range(ITERS):
            block_step(x, out, n, i, pid)

    @triton.jit(noinline=True)
    def mix8(a, b, c, d, e, f, g, h, s):
        return (a * s + b, b * s + c, c * s + d, d * s + e, e * s + f,
                f * s + g, g * s + h, h * s + a)

    @triton.jit
    def noinline_wide(x, out, n, ITERS: tl.constexpr, BLOCK: tl.constexpr):
        pid = tl.program_id(0)
        a = tl.load(x + pid)
        b = a + 1.0
        c = a + 2.0
        d = a + 3.0
        e = a + 4.0
        f = a + 5.0
        g = a + 6.0
        h = a + 7.0
        for i in range(ITERS):
            a, b, c, d, e, f, g, h = mix8(a, b, c, d, e, f, g, h, 0.25)
        tl.store(out + pid, a + b + c + d + e + f + g + h)

    @triton.jit
    def device_print(x, out, n, ITERS: tl.constexpr, BLOCK: tl.constexpr):
        pid = tl.program_id(0)
        offs = pid * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        acc = tl.zeros([BLOCK], dtype=tl.float32)
        for i in range(ITERS):
            v = tl.load(x + i * n + offs, mask=m, other=0.0)
            acc += v
            if pid == 1000000:  # never true here: the call is compiled, not run
                tl.device_print("acc", acc)
        tl.store(out + offs, acc, mask=m)

    @triton.jit(debug=True)
    def device_assert(x, out, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        v = tl.load(x + offs, mask=m, other=0.0)
        tl.device_assert(v == v, "NaN input")
        tl.store(out + offs, v * 2.0, mask=m)

    @triton.jit
    def inline_asm(x, out, n, ITERS: tl.constexpr, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        acc = tl.zeros([BLOCK], dtype=tl.float32)
        for i in range(ITERS):
            v = tl.load(x + i * n + offs, mask=m, other=0.0)
            r = tl.inline_asm_elementwise("ex2.approx.f32 $0, $1;", "=r,r", [v],
                                          dtype=tl.float32, is_pure=True, pack=1)
            acc += r
        tl.store(out + offs, acc, mask=m)

    @triton.jit
    def while_atomic(x, counter, out, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        v = tl.load(x + offs, mask=m, other=0.0)
        steps = 0
        while tl.max(tl.abs(v), axis=0) > 1.0:
            v = v * 0.5
            steps += 1
        tl.debug_barrier()
        tl.atomic_add(counter, steps)
        tl.store(out + offs, v, mask=m)

    # Added after the run that made tests/corpus/realworld/device/
    # sm90-call-forms (the lines above are the ones its debug info names).
    # A noinline function with many values live across its own inner calls,
    # called from a loop whose trip count is only known at run time: the
    # call ABI's callee-saved registers go to the stack.
    @triton.jit(noinline=True)
    def poly(v, k):
        return ((v * k + 1.0) * v + k) * v + 0.5

    @triton.jit(noinline=True)
    def heavy_step(x, out, n, i, pid):
        offs = pid * 256 + tl.arange(0, 256)
        m = offs < n
        a = tl.load(x + i * n + offs, mask=m, other=0.0)
        b = tl.load(x + (i + 1) * n + offs, mask=m, other=0.0)
        acc = tl.load(out + offs, mask=m, other=0.0)
        s = tl.sum(a * b, axis=0)
        t = poly(s, 0.25)
        u = poly(t, s)
        tl.store(out + offs, acc + a * t + b * u, mask=m)

    @triton.jit
    def noinline_runtime_loop(x, out, n, iters, BLOCK: tl.constexpr):
        pid = tl.program_id(0)
        for i in range(iters):
            heavy_step(x, out, n, i, pid)

    return locals()


def run(name):
    """One kernel, launched once (in a process of its own)."""
    import torch
    k = kernels()[name]
    n, it, blk = 4096, 8, 256
    x = torch.randn(it * n, device="cuda")
    out = torch.zeros(n, device="cuda")
    grid = (n // blk,)
    if name == "device_assert":
        k[grid](x, out, n, BLOCK=blk)
    elif name == "noinline_runtime_loop":
        k[grid](x, out, n, it - 1, BLOCK=blk)
    elif name == "while_atomic":
        cnt = torch.zeros(1, dtype=torch.int32, device="cuda")
        k[grid](x, cnt, out, n, BLOCK=blk)
    else:
        k[grid](x, out, n, ITERS=it, BLOCK=blk)
    torch.cuda.synchronize()


NAMES = ["noinline_runtime_loop", "noinline_loop", "noinline_wide", "device_print", "device_assert",
         "inline_asm", "while_atomic"]

if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--one":
        run(sys.argv[2])
        sys.exit(0)
    import subprocess
    shutil.rmtree(ROOT, ignore_errors=True)
    for name in NAMES:
        env = dict(os.environ, TRITON_CACHE_DIR=f"{ROOT}/call-forms")
        r = subprocess.run([sys.executable, __file__, "--one", name], env=env,
                           capture_output=True, text=True)
        print(name, "ok" if r.returncode == 0 else "FAIL " + r.stderr[-600:], flush=True)
    inductor_zoo.W = ROOT
    inductor_zoo.OUT = os.environ["OUT"]
    inductor_zoo.finish("call-forms")
