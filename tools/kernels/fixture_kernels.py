"""Extra kernels for tests/fixtures (placed at /src/kernels/fixture_kernels.py
when compiled, so debug locations are stable).

- gluon_tcgen05_matmul: Gluon kernel that asks explicitly for TMA loads,
  mbarriers and tcgen05 MMA into tensor memory.
- gluon_ws_matmul: the same pipeline split into warp-specialized partitions
  (TMA loader and MMA issuer, one warp and 24 registers each, plus the
  epilogue in the default partition), with the Triton 3.6 spelling of
  `gl.warp_specialize([(partition, args), ...], num_warps, num_regs)`.
"""
try:
    from triton.experimental import gluon
    from triton.experimental.gluon import language as gl
    from triton.experimental.gluon.language.nvidia.blackwell import (
        allocate_tensor_memory, mbarrier, tcgen05_commit, tcgen05_mma, tma)
    # The TMA load was renamed across releases.
    _tma_load = getattr(tma, "async_copy_global_to_shared", None) or getattr(tma, "async_load")
    GLUON_ERROR = None
except Exception as e:  # report a missing Gluon when a kernel is compiled
    GLUON_ERROR = e

if GLUON_ERROR is None:

    @gluon.jit
    def gluon_tcgen05_matmul(a_desc, b_desc, c_ptr, M, N, K, tmem_layout: gl.constexpr, acc_layout: gl.constexpr):
        BM: gl.constexpr = a_desc.block_type.shape[0]
        BK: gl.constexpr = a_desc.block_type.shape[1]
        BN: gl.constexpr = b_desc.block_type.shape[0]
        off_m = gl.program_id(0) * BM
        off_n = gl.program_id(1) * BN
        a_s = gl.allocate_shared_memory(a_desc.dtype, a_desc.block_type.shape, a_desc.layout)
        b_s = gl.allocate_shared_memory(b_desc.dtype, b_desc.block_type.shape, b_desc.layout)
        tma_bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
        mma_bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
        mbarrier.init(tma_bar, count=1)
        mbarrier.init(mma_bar, count=1)
        acc_t = allocate_tensor_memory(gl.float32, [BM, BN], tmem_layout)
        phase = 0
        use_acc = False
        for k in range(0, K, BK):
            mbarrier.expect(tma_bar, a_desc.block_type.nbytes + b_desc.block_type.nbytes)
            _tma_load(a_desc, [off_m, k], tma_bar, a_s)
            _tma_load(b_desc, [off_n, k], tma_bar, b_s)
            mbarrier.wait(tma_bar, phase)
            tcgen05_mma(a_s, b_s.permute((1, 0)), acc_t, use_acc=use_acc)
            tcgen05_commit(mma_bar)
            mbarrier.wait(mma_bar, phase)
            use_acc = True
            phase ^= 1
        mbarrier.invalidate(tma_bar)
        mbarrier.invalidate(mma_bar)
        acc = acc_t.load(acc_layout)
        offs_m = off_m + gl.arange(0, BM, gl.SliceLayout(1, acc_layout))
        offs_n = off_n + gl.arange(0, BN, gl.SliceLayout(0, acc_layout))
        gl.store(c_ptr + offs_m[:, None] * N + offs_n[None, :], acc.to(gl.float16))

    # Warp-specialized partitions; all take the same argument tuple.
    @gluon.jit
    def _ws_epilogue(a_desc, b_desc, c_ptr, N, K, a_bufs, b_bufs, ready, empty, acc_bar, acc_t):
        BM: gl.constexpr = a_desc.block_type.shape[0]
        BN: gl.constexpr = b_desc.block_type.shape[0]
        # tcgen05.ld 32x32b register layout of a 128x128 fp32 accumulator, 4 warps
        acc_layout: gl.constexpr = gl.DistributedLinearLayout(
            reg_bases=[[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64]],
            lane_bases=[[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp_bases=[[32, 0], [64, 0]],
            block_bases=[], shape=[128, 128])
        mbarrier.wait(acc_bar, 0)
        acc = acc_t.load(acc_layout)
        offs_m = gl.program_id(0) * BM + gl.arange(0, BM, gl.SliceLayout(1, acc_layout))
        offs_n = gl.program_id(1) * BN + gl.arange(0, BN, gl.SliceLayout(0, acc_layout))
        gl.store(c_ptr + offs_m[:, None] * N + offs_n[None, :], acc.to(gl.float16))

    @gluon.jit
    def _ws_loader(a_desc, b_desc, c_ptr, N, K, a_bufs, b_bufs, ready, empty, acc_bar, acc_t):
        BM: gl.constexpr = a_desc.block_type.shape[0]
        BK: gl.constexpr = a_desc.block_type.shape[1]
        BN: gl.constexpr = b_desc.block_type.shape[0]
        off_m = gl.program_id(0) * BM
        off_n = gl.program_id(1) * BN
        for i in range((K + BK - 1) // BK):
            s = i % 2
            ph = (i // 2) & 1
            mbarrier.wait(empty.index(s), ph ^ 1)
            mbarrier.expect(ready.index(s), a_desc.block_type.nbytes + b_desc.block_type.nbytes)
            _tma_load(a_desc, [off_m, i * BK], ready.index(s), a_bufs.index(s))
            _tma_load(b_desc, [off_n, i * BK], ready.index(s), b_bufs.index(s))

    @gluon.jit
    def _ws_mma(a_desc, b_desc, c_ptr, N, K, a_bufs, b_bufs, ready, empty, acc_bar, acc_t):
        BK: gl.constexpr = a_desc.block_type.shape[1]
        use_acc = False
        for i in range((K + BK - 1) // BK):
            s = i % 2
            ph = (i // 2) & 1
            mbarrier.wait(ready.index(s), ph)
            tcgen05_mma(a_bufs.index(s), b_bufs.index(s).permute((1, 0)), acc_t, use_acc=use_acc)
            tcgen05_commit(empty.index(s))
            use_acc = True
        tcgen05_commit(acc_bar)

    # gl.warp_specialize([(partition, args), ...], num_warps, num_regs)
    @gluon.jit
    def gluon_ws_matmul(a_desc, b_desc, c_ptr, M, N, K, tmem_layout: gl.constexpr, acc_layout: gl.constexpr):
        BM: gl.constexpr = a_desc.block_type.shape[0]
        BN: gl.constexpr = b_desc.block_type.shape[0]
        a_bufs = gl.allocate_shared_memory(a_desc.dtype, [2] + a_desc.block_type.shape, a_desc.layout)
        b_bufs = gl.allocate_shared_memory(b_desc.dtype, [2] + b_desc.block_type.shape, b_desc.layout)
        ready = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
        empty = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
        acc_bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
        for i in gl.static_range(2):
            mbarrier.init(ready.index(i), count=1)
            mbarrier.init(empty.index(i), count=1)
        mbarrier.init(acc_bar, count=1)
        acc_t = allocate_tensor_memory(gl.float32, [BM, BN], tmem_layout)
        args = (a_desc, b_desc, c_ptr, N, K, a_bufs, b_bufs, ready, empty, acc_bar, acc_t)
        gl.warp_specialize([(_ws_epilogue, args), (_ws_loader, args), (_ws_mma, args)], [1, 1], [24, 24])
