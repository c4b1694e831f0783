"""print() of tiles of scalars, in warp-lang 1.19's format: NumPy-like brackets (a 2-d tile's
rows on their own lines, indented one space), then ` = tile(shape=(...), storage=...)`."""

import ctypes

import numpy as np
import pytest

import warp_interactive as wp


def printed(capfd, fn):
    capfd.readouterr()
    fn()
    wp.synchronize()
    ctypes.CDLL(None).fflush(None)
    return capfd.readouterr().out


@wp.kernel(enable_backward=False)
def print_1d(x: wp.array(dtype=wp.int32)):
    t = wp.tile_load(x, shape=(8,))
    print(t)


@wp.kernel(enable_backward=False)
def print_2d_shared(x: wp.array2d(dtype=float)):
    t = wp.tile_load(x, shape=(2, 3), storage="shared")
    wp.print(t)


@wp.kernel(enable_backward=False)
def print_3d(x: wp.array3d(dtype=wp.float64)):
    t = wp.tile_load(x, shape=(2, 2, 2))
    print(t)


@wp.kernel(enable_backward=False)
def print_big(x: wp.array(dtype=float)):
    print(wp.tile_load(x, shape=(40,)) * 2.0)     # more than printf's 32 arguments per call


def _text(values, shape, storage, fmt):
    """The expected text, written independently of print_format.py: NumPy's nesting."""
    a = np.asarray(values).reshape(shape)

    def rec(v, depth):
        if v.ndim == 1:
            return "[" + " ".join(fmt % x for x in v) + "]"
        sep = "\n" + " " * (depth + 1) if v.ndim == 2 else "\n\n" + " " * (depth + 1)
        return "[" + sep.join(rec(r, depth + 1) for r in v) + "]"
    dims = ",".join(str(d) for d in shape)
    return f"{rec(a, 0)} = tile(shape=({dims}), storage={storage})\n"


CASES = [
    (print_1d, np.arange(1, 9, dtype=np.int32), (8,), wp.int32, "register", "%d"),
    (print_2d_shared, np.array([[1.5, -2, 3], [4, 5.25, 6]], dtype=np.float32), (2, 3), float, "shared", "%g"),
    (print_3d, np.arange(8, dtype=np.float64) / 4, (2, 2, 2), wp.float64, "register", "%g"),
    (print_big, np.arange(40, dtype=np.float32), (40,), float, "register", "%g"),
]


@pytest.mark.parametrize("kernel,values,shape,dtype,storage,fmt", CASES)
def test_print_tile(capfd, kernel, values, shape, dtype, storage, fmt):
    arr = wp.array(values.reshape(shape) if kernel is print_3d else values, dtype=dtype)
    out = printed(capfd, lambda: wp.launch_tiled(kernel, dim=1, inputs=[arr], block_dim=1))
    want = values * 2 if kernel is print_big else values
    assert out == _text(want, shape, storage, fmt)


@pytest.mark.parametrize("block_dim", [4, 7])
def test_cooperative_block_prints_a_tile_once(capfd, block_dim):
    """warp-lang prints a tile once per block (lane 0), not once per lane."""
    old = wp.config.enable_cpu_blocks
    wp.config.enable_cpu_blocks = True
    try:
        arr = wp.array(np.arange(1, 9, dtype=np.int32), dtype=wp.int32)
        out = printed(capfd, lambda: wp.launch_tiled(print_1d, dim=2, inputs=[arr], block_dim=block_dim))
    finally:
        wp.config.enable_cpu_blocks = old
    assert out == _text(np.arange(1, 9, dtype=np.int32), (8,), "register", "%d") * 2     # two blocks
