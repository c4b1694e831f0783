"""warp-lang's spellings around tiles: ``wp.tile[dtype, *shape]`` annotations on @wp.func
parameters and results, ``wp.tile_stack(capacity=, dtype=)`` as a parameter type, the accepted
hints ``aligned=`` (loads/stores) and ``grid_stride=`` (kernels)."""

import numpy as np
import pytest

import warp_interactive as wp
from warp_interactive.types.tile import tile_type

M, N = 3, 5


@wp.func
def scaled(t: wp.tile[float, M, N], s: float) -> wp.tile[float, (M, N)]:
    return t * s


@wp.func
def add_tiles(a: wp.tile[wp.float64, 4], b: wp.tile[wp.float64, 4]):
    return a + b


@pytest.mark.parametrize("params,want", [
    ((float, 3, 5), tile_type(wp.float32, (3, 5))),
    ((float, (3, 5)), tile_type(wp.float32, (3, 5))),
    ((wp.float64, 7), tile_type(wp.float64, (7,))),
    ((int, 2, 3, 4), tile_type(wp.int32, (2, 3, 4))),
    ((wp.vec3, 6), tile_type(wp.vec3, (6,))),
])
def test_tile_subscript_is_the_tile_type(params, want):
    assert wp.tile[params] is want


@pytest.mark.parametrize("params,msg", [
    (float, "needs a dtype and a shape"),
    ((float, 0), "dimension 0 must be a positive int, got 0"),
    ((float, 4, -1), "dimension 1 must be a positive int, got -1"),
    ((float, 2.5), "dimension 0 must be a positive int, got 2.5"),
])
def test_tile_subscript_errors(params, msg):
    with pytest.raises(TypeError, match=msg):
        wp.tile[params]


def test_tile_annotated_funcs_in_kernels():
    @wp.kernel(module="unique")
    def k(a: wp.array2d(dtype=float), x: wp.array(dtype=wp.float64), out: wp.array2d(dtype=float),
          out64: wp.array(dtype=wp.float64)):
        t = wp.tile_load(a, shape=(M, N))
        wp.tile_store(out, scaled(t, 2.5), aligned=False)
        u = wp.tile_load(x, shape=4, aligned=True)
        wp.tile_store(out64, add_tiles(u, u))

    a = np.arange(M * N, dtype=np.float32).reshape(M, N)
    x = np.arange(4.0)
    out, out64 = wp.zeros((M, N), dtype=float), wp.zeros(4, dtype=wp.float64)
    wp.launch_tiled(k, dim=1, inputs=[wp.array(a), wp.array(x, dtype=wp.float64), out, out64], block_dim=4)
    np.testing.assert_array_equal(out.numpy(), a * 2.5)
    np.testing.assert_array_equal(out64.numpy(), 2 * x)


def test_tile_stack_type_outside_kernels():
    s = wp.tile_stack(capacity=8, dtype=int)
    assert s is wp.tile_stack(8, wp.int32)
    assert s.capacity == 8 and s.dtype is wp.int32
    assert wp.tile_stack(capacity=2, dtype=wp.vec3).dtype is wp.vec3


@pytest.mark.parametrize("capacity,dtype,exc,msg", [
    (0, int, ValueError, "capacity must be a positive int, got 0"),
    (True, int, ValueError, "capacity must be a positive int, got True"),
    (4, "int", TypeError, "dtype must be a scalar, vector, matrix or @wp.struct type"),
])
def test_tile_stack_type_errors(capacity, dtype, exc, msg):
    with pytest.raises(exc, match=msg):
        wp.tile_stack(capacity=capacity, dtype=dtype)


@pytest.mark.parametrize("grid_stride", [None, True, False])
def test_grid_stride_hint_keeps_results(grid_stride):
    @wp.kernel(module="unique", grid_stride=grid_stride)
    def k(a: wp.array(dtype=float)):
        i = wp.tid()
        a[i] = float(i) * 2.0

    a = wp.zeros(37, dtype=float)
    wp.launch(k, dim=37, inputs=[a])
    np.testing.assert_array_equal(a.numpy(), np.arange(37) * 2.0)


def test_grid_stride_must_be_a_bool():
    with pytest.raises(TypeError, match="grid_stride must be True, False or None, got 'yes'"):
        wp.kernel(lambda: None, grid_stride="yes")


@pytest.mark.parametrize("offset", [2**32 + 1, -(2**32) + 1, 2**31, 2**40])
def test_load_store_offsets_past_32_bits_stay_outside_the_array(offset):
    """An int64 offset is saturated to int32, never wrapped back inside the array."""
    @wp.kernel(module="unique")
    def k(a: wp.array(dtype=float), off: wp.int64, out: wp.array(dtype=float)):
        t = wp.tile_load(a, shape=4, offset=(off,))
        wp.tile_store(out, t + wp.tile_ones(shape=4, dtype=float))
        wp.tile_store(a, t, offset=(off,))

    a = wp.array(np.arange(1.0, 9.0, dtype=np.float32))
    out = wp.zeros(4, dtype=float)
    wp.launch_tiled(k, dim=1, inputs=[a, offset, out], block_dim=4)
    np.testing.assert_array_equal(out.numpy(), np.ones(4))           # read zeros, not a[1:5]
    np.testing.assert_array_equal(a.numpy(), np.arange(1.0, 9.0))    # nothing written


OPS = [("bit_and", np.bitwise_and), ("bit_or", np.bitwise_or), ("bit_xor", np.bitwise_xor),
       ("lshift", np.left_shift), ("rshift", np.right_shift)]


@pytest.mark.parametrize("vt,npt", [(wp.vec3i, np.int32), (wp.vec4ub, np.uint8), (wp.vec2l, np.int64)])
def test_bitwise_ops_on_integer_vectors_in_tile_map(vt, npt):
    """warp-lang applies the bitwise builtins component-wise to integer vectors."""
    n = vt._length_

    @wp.kernel(module="unique")
    def k(a: wp.array(dtype=vt), b: wp.array(dtype=vt), out: wp.array2d(dtype=vt)):
        ta, tb = wp.tile_load(a, shape=5), wp.tile_load(b, shape=5)
        wp.tile_store(out[0], wp.tile_map(wp.bit_and, ta, tb))
        wp.tile_store(out[1], wp.tile_map(wp.bit_or, ta, tb))
        wp.tile_store(out[2], wp.tile_map(wp.bit_xor, ta, tb))
        wp.tile_store(out[3], wp.tile_map(wp.lshift, ta, tb))
        wp.tile_store(out[4], wp.tile_map(wp.rshift, ta, tb))

    @wp.kernel(module="unique")
    def k2(a: wp.array(dtype=vt), b: wp.array(dtype=vt), inv: wp.array(dtype=vt)):
        i = wp.tid()
        inv[i] = ~a[i] & (a[i] | b[i])

    rng = np.random.default_rng(2)
    av = rng.integers(0, 100, (5, n)).astype(npt)
    bv = rng.integers(0, 5, (5, n)).astype(npt)
    out, inv = wp.zeros((5, 5), dtype=vt), wp.zeros(5, dtype=vt)
    wa, wb = wp.array(av, dtype=vt), wp.array(bv, dtype=vt)
    wp.launch_tiled(k, dim=1, inputs=[wa, wb, out], block_dim=1)
    wp.launch(k2, dim=5, inputs=[wa, wb, inv])
    for row, (_, f) in enumerate(OPS):
        np.testing.assert_array_equal(out.numpy()[row], f(av, bv).astype(npt))
    np.testing.assert_array_equal(inv.numpy(), (~av & (av | bv)).astype(npt))
