import triton
import triton.language as tl


@triton.jit
def sin_f32(x, y, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y + offs, tl.sin(tl.load(x + offs, mask=m)), mask=m)


@triton.jit
def sincos_loop_f32(x, y, n, ITERS, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for i in range(ITERS):
        v = tl.load(x + i * n + offs)
        acc += tl.sin(v) * tl.cos(v * 0.5)
    tl.store(y + offs, acc)


@triton.jit
def sin_f64(x, y, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y + offs, tl.sin(tl.load(x + offs, mask=m)), mask=m)


@triton.jit
def matmul_sin(a, b, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # A large accumulator (spills at 1 warp) plus libdevice sin in the loop
    # (a PTX local array): both in one stack frame.
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        av = tl.load(a + rm[:, None] * K + (k * BK + rk)[None, :])
        bv = tl.load(b + (k * BK + rk)[:, None] * N + rn[None, :])
        acc = tl.dot(av, bv, acc)
        acc = tl.sin(acc)
    tl.store(c + rm[:, None] * N + rn[None, :], acc.to(tl.float16))


@triton.jit
def matmul_plain(a, b, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        av = tl.load(a + rm[:, None] * K + (k * BK + rk)[None, :])
        bv = tl.load(b + (k * BK + rk)[:, None] * N + rn[None, :])
        acc = tl.dot(av, bv, acc)
    tl.store(c + rm[:, None] * N + rn[None, :], acc.to(tl.float16))


@triton.jit
def matmul_clamp(a, b, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # The accumulator is read in the iteration that made it (a clamp), so
    # the pipeliner must wait for every wgmma: pendings = 0.
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        av = tl.load(a + rm[:, None] * K + (k * BK + rk)[None, :])
        bv = tl.load(b + (k * BK + rk)[:, None] * N + rn[None, :])
        acc = tl.dot(av, bv, acc)
        acc = tl.minimum(acc, 1.0e4)
    tl.store(c + rm[:, None] * N + rn[None, :], acc.to(tl.float16))


@triton.jit
def matmul_where(a, b, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        av = tl.load(a + rm[:, None] * K + (k * BK + rk)[None, :])
        bv = tl.load(b + (k * BK + rk)[:, None] * N + rn[None, :])
        acc = tl.dot(av, bv, acc)
        acc = tl.where(acc != acc, 0.0, acc)
    tl.store(c + rm[:, None] * N + rn[None, :], acc.to(tl.float16))


@triton.jit
def matmul_rescale(a, b, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # The carried accumulator is rescaled before the next dot (as attention
    # rescales its output): it is read by something other than a dot, so the
    # pipeliner cannot keep the wgmma in flight (WGMMAPipeline.cpp, rule 3).
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        av = tl.load(a + rm[:, None] * K + (k * BK + rk)[None, :])
        bv = tl.load(b + (k * BK + rk)[:, None] * N + rn[None, :])
        acc = acc * 0.5
        acc = tl.dot(av, bv, acc)
    tl.store(c + rm[:, None] * N + rn[None, :], acc.to(tl.float16))


@triton.jit
def matmul_f16acc(a, b, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # An f16 accumulator: the pipeliner makes only f32 accumulation async
    # (WGMMAPipeline.cpp, rule 2.1).
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float16)
    for k in range(0, tl.cdiv(K, BK)):
        av = tl.load(a + rm[:, None] * K + (k * BK + rk)[None, :])
        bv = tl.load(b + (k * BK + rk)[:, None] * N + rn[None, :])
        acc = tl.dot(av, bv, acc, out_dtype=tl.float16)
    tl.store(c + rm[:, None] * N + rn[None, :], acc)
