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
    (4, "int", TypeError, "dtype must be a scalar, vector or matrix type"),
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
