"""``wp.tile_arange`` against NumPy's ``arange`` (warp-lang 1.19's rules): the length is the
ceiling of the span over the step, counted from the bounds as the output dtype holds them, exact
for integers; bounds may be literals, ``wp.constant``s or names bound to literals; bad ranges,
bounds and dtypes are build errors at the call with warp-lang's messages."""

import linecache

import numpy as np
import pytest

import warp_interactive as wp

_count = [0]


def kernel_for(expr, dtype_name, width=8):
    """A tiled kernel storing ``expr`` (a tile) into ``out``; its source is registered with
    linecache so errors show the line."""
    _count[0] += 1
    name = f"arange_{_count[0]}"
    src = (f"import warp_interactive as wp\nimport numpy as np\nC64 = wp.constant(wp.int64(9007199254740993))\n"
           f"S64 = wp.constant(wp.int64(9007199254740992))\nF32 = wp.constant(wp.float32(3.0000001))\n"
           f"def {name}(out: wp.array(dtype=wp.{dtype_name})):\n    n = 3\n    t = {expr}\n"
           f"    wp.tile_store(out, t)\n")
    filename = f"<wpi-test-tile-arange-{name}>"
    linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
    scope = {}
    exec(compile(src, filename, "exec"), scope)
    return wp.Kernel(scope[name], module=f"tile_arange_{name}")


# (expression, output dtype, NumPy reference)
CASES = [
    ("wp.tile_arange(5, dtype=int)", "int32", np.arange(5)),
    ("wp.tile_arange(2, 9, dtype=int)", "int32", np.arange(2, 9)),
    ("wp.tile_arange(0, 10, 3, dtype=int)", "int32", np.arange(0, 10, 3)),
    ("wp.tile_arange(0, 9, 3, dtype=int)", "int32", np.arange(0, 9, 3)),
    ("wp.tile_arange(10, 0, -3, dtype=int)", "int32", np.arange(10, 0, -3)),
    ("wp.tile_arange(start=1, stop=4, step=1, dtype=int)", "int32", np.arange(1, 4)),
    ("wp.tile_arange(n, dtype=float)", "float32", np.arange(3, dtype=np.float32)),
    ("wp.tile_arange(0.0, 0.3, 0.1, dtype=float)", "float32", np.arange(0.0, 0.3, 0.1, dtype=np.float32)),
    ("wp.tile_arange(0.0, 2.0, 0.3, dtype=float)", "float32", np.arange(0.0, 2.0, 0.3, dtype=np.float32)),
    ("wp.tile_arange(0.3, dtype=float)", "float32", np.arange(0.3, dtype=np.float32)),
    ("wp.tile_arange(0.0, F32, 0.99999999, dtype=wp.float32)", "float32", np.array([0.0, 1.0, 2.0])),
    ("wp.tile_arange(0.0, 10.0, dtype=wp.int32)", "int32", np.arange(10)),
    ("wp.tile_arange(0, C64, S64, dtype=wp.int64)", "int64", np.array([0, 2**53], dtype=np.int64)),
    ("wp.tile_arange(0, 2147483650, 2147483649, dtype=wp.int64)", "int64", np.array([0, 2147483649])),
    ("wp.tile_arange(-1.5, 1.5, 0.5, dtype=wp.float64)", "float64", np.arange(-1.5, 1.5, 0.5)),
    ("wp.tile_arange(0.0, 1.0, 0.25, dtype=wp.float16)", "float16", np.arange(0.0, 1.0, 0.25)),
]


@pytest.mark.parametrize("expr, dtype_name, want", CASES, ids=[c[0] for c in CASES])
def test_tile_arange_matches_numpy(expr, dtype_name, want):
    dtype = getattr(wp, dtype_name)
    sentinel = -7
    out = wp.array(np.full(len(want) + 2, sentinel, dtype=dtype._np_dtype), dtype=dtype)
    wp.launch_tiled(kernel_for(expr, dtype_name), dim=1, inputs=[out], block_dim=8)
    got = out.numpy()
    np.testing.assert_array_equal(got[:len(want)], want.astype(dtype._np_dtype))
    assert (got[len(want):] == sentinel).all()       # the tile is exactly as long as the range


ERRORS = [
    ("wp.tile_arange(0, 10, 0, dtype=int)", ValueError, r"tile_arange\(\) step cannot be zero"),
    ("wp.tile_arange(5, 5, dtype=int)", ValueError, r"requires a non-empty range"),
    ("wp.tile_arange(0, 10, -1, dtype=int)", ValueError, r"requires a non-empty range"),
    ("wp.tile_arange(5, 5, 1, 99, dtype=int)", TypeError, r"accepts at most 3 positional arguments, got 4"),
    ("wp.tile_arange(0, out[0], 1, dtype=int)", RuntimeError,
     r"arguments must be compile time constants, but stop is not"),
    ("wp.tile_arange(0, 6, dtype=wp.bool)", TypeError, r"requires a numeric scalar dtype, but got bool"),
    ("wp.tile_arange(0, 4, dtype=wp.vec3)", TypeError, r"requires a numeric scalar dtype"),
    ("wp.tile_arange(0, 1099511627776, dtype=wp.int32)", ValueError, r"stop=1099511627776 is out of range"),
    ("wp.tile_arange(0.0, 3.5, dtype=wp.int32)", ValueError, r"stop=3.5 has a fractional part"),
    ("wp.tile_arange(0.0, 1.0e300, dtype=wp.float32)", ValueError, r"stop=1e\+300 is out of range"),
    ("wp.tile_arange(0, 1180591620717411303424, 18446744073709551616, dtype=wp.float32)", ValueError, r"too wide to use as an integer bound"),
    ("wp.tile_arange(0.0, 1.0e-46, 1.0e-46, dtype=wp.float32)", ValueError, r"step cannot be zero"),
    ("wp.tile_arange(0.0, 1.0e30, 1.0e-30, dtype=wp.float32)", ValueError, r"spans more elements than can be"),
    ("wp.tile_arange(4, dtype=int, storage='global')", RuntimeError, r"unknown storage mode"),
]


@pytest.mark.parametrize("expr, kind, message", ERRORS, ids=[e[0] for e in ERRORS])
def test_tile_arange_errors(expr, kind, message):
    dtype_name = "int32" if "vec3" not in expr and "bool" not in expr else ("vec3" if "vec3" in expr else "bool")
    k = kernel_for(expr, dtype_name)
    with pytest.raises(kind, match=message) as info:
        wp.launch_tiled(k, dim=1, inputs=[wp.zeros(8, dtype=getattr(wp, dtype_name))], block_dim=8)
    assert "wp.tile_arange(" in str(info.value)          # the user's line is shown
