"""A Gluon kernel whose author converts a layout inside a loop.

The kernel sums BLOCK x BLOCK tiles: each tile is loaded in a row-major
blocked layout and converted, on every iteration, to the column-major one
the accumulator has: the conversion moves data between threads and warps
(shared memory). No TTIR stage: Gluon kernels start at TTGIR, so the
conversion is the author's gl.convert_layout, not a compiler pass's.

Runs on the device's GPU (checked against torch), then writes the Triton
cache of the run, with nvdisasm SASS and `ptxas -v` beside each cubin
(inductor_zoo.finish, which writes $OUT/gluon-conversion.tar.xz).

    python3 tools/device/gluon_conversion.py

Run on the device's H100 on 2026-12-07 (Triton 3.6.0): max abs error
against torch 9.5e-07. The kernel is
tests/lit/checks/Inputs/gluon-conversion-in-loop; its debug locations name
the path it ran from, /work/main/tools/device/gluon_conversion.py, mapped
in the tests to the copy of this script that ran (py/ beside it).
"""
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(__file__))
import inductor_zoo  # noqa: E402

ROOT = "/tmp/gluon-conversion"
shutil.rmtree(ROOT, ignore_errors=True)
os.environ["TRITON_CACHE_DIR"] = f"{ROOT}/cache"

import torch  # noqa: E402
from triton.experimental import gluon  # noqa: E402
from triton.experimental.gluon import language as gl  # noqa: E402


@gluon.jit
def tile_sum_kernel(x_ptr, out_ptr, n_tiles, BLOCK: gl.constexpr):
    rows_l: gl.constexpr = gl.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0])
    cols_l: gl.constexpr = gl.BlockedLayout([4, 1], [8, 4], [1, 4], [0, 1])
    r = gl.arange(0, BLOCK, layout=gl.SliceLayout(1, rows_l))
    c = gl.arange(0, BLOCK, layout=gl.SliceLayout(0, rows_l))
    offs = r[:, None] * BLOCK + c[None, :]
    acc = gl.zeros([BLOCK, BLOCK], gl.float32, layout=cols_l)
    for t in range(n_tiles):
        tile = gl.load(x_ptr + t * BLOCK * BLOCK + offs)
        acc += gl.convert_layout(tile, cols_l)
    ro = gl.arange(0, BLOCK, layout=gl.SliceLayout(1, cols_l))
    co = gl.arange(0, BLOCK, layout=gl.SliceLayout(0, cols_l))
    gl.store(out_ptr + ro[:, None] * BLOCK + co[None, :], acc)


def main():
    block, tiles = 64, 8
    x = torch.randn(tiles, block, block, device="cuda", dtype=torch.float32)
    out = torch.empty(block, block, device="cuda", dtype=torch.float32)
    tile_sum_kernel[(1,)](x, out, tiles, BLOCK=block, num_warps=4)
    torch.cuda.synchronize()
    err = (out - x.sum(0)).abs().max().item()
    print("max abs error", err)
    inductor_zoo.W = os.path.dirname(ROOT)
    inductor_zoo.finish(os.path.basename(ROOT))


if __name__ == "__main__":
    main()
