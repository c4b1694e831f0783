"""The tile programming model on the CPU: each primitive against NumPy, over dtypes and shapes."""

import numpy as np
import pytest

import warp_interactive as wp

TOL = {np.float32: 2e-5, np.float64: 1e-12}
RNG = np.random.default_rng(7)


def _rand(shape, dtype):
    return RNG.uniform(-1.0, 1.0, size=shape).astype(dtype)


def _wp_dtype(np_dtype):
    return {np.float32: wp.float32, np.float64: wp.float64, np.int32: wp.int32}[np_dtype]


# --- a tiled GEMM (the reference's example), several tile shapes and dtypes -------------------------
# kernels made inside (parametrized) tests get a module each: in this file's module every new case
# would rebuild, and record for the NVRTC check, all the file's kernels again
def make_gemm(tm, tn, tk, dtype):
    @wp.kernel(module="unique")
    def gemm(A: wp.array2d(dtype=dtype), B: wp.array2d(dtype=dtype), C: wp.array2d(dtype=dtype)):
        i, j = wp.tid()
        acc = wp.tile_zeros(shape=(tm, tn), dtype=dtype)
        count = A.shape[1] // tk
        for k in range(count):
            a = wp.tile_load(A, shape=(tm, tk), offset=(i * tm, k * tk))
            b = wp.tile_load(B, shape=(tk, tn), offset=(k * tk, j * tn))
            wp.tile_matmul(a, b, acc)
        wp.tile_store(C, acc, offset=(i * tm, j * tn))
    return gemm


@pytest.mark.parametrize("np_dtype", [np.float32, np.float64])
@pytest.mark.parametrize("tm,tn,tk", [(16, 16, 16), (8, 32, 4), (5, 7, 3), (32, 16, 8)])
def test_tiled_gemm_matches_numpy(np_dtype, tm, tn, tk):
    m, n, k = tm * 3, tn * 2, tk * 4
    a, b = _rand((m, k), np_dtype), _rand((k, n), np_dtype)
    c = wp.zeros((m, n), dtype=_wp_dtype(np_dtype))
    wp.launch_tiled(make_gemm(tm, tn, tk, _wp_dtype(np_dtype)), dim=(m // tm, n // tn),
                    inputs=[wp.array(a), wp.array(b), c], block_dim=64)
    np.testing.assert_allclose(c.numpy(), a @ b, rtol=TOL[np_dtype] * 10, atol=TOL[np_dtype] * k)


# --- a reduction with tile_map over a @wp.func ---------------------------------------------------------
@wp.func
def square_plus(x: float):
    return x * x + 1.0


@wp.kernel
def map_reduce(x: wp.array2d(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    t = wp.tile_load(x[i], shape=64)
    s = wp.tile_sum(wp.tile_map(square_plus, t))
    wp.tile_store(out, s, offset=(i,))


def test_tile_map_over_func_and_sum():
    x = _rand((5, 64), np.float32)
    out = wp.zeros(5, dtype=float)
    wp.launch_tiled(map_reduce, dim=5, inputs=[wp.array(x), out], block_dim=32)
    np.testing.assert_allclose(out.numpy(), (x * x + 1.0).sum(axis=1), rtol=1e-5)


@wp.kernel
def reduce_ops(x: wp.array(dtype=float), out: wp.array(dtype=float), idx: wp.array(dtype=int)):
    t = wp.tile_load(x, shape=37)
    wp.tile_store(out, wp.tile_reduce(wp.max, t), offset=(0,))
    wp.tile_store(out, wp.tile_min(t), offset=(1,))
    wp.tile_store(out, wp.tile_max(t), offset=(2,))
    wp.tile_store(out, wp.tile_reduce(wp.add, t), offset=(3,))
    wp.tile_store(idx, wp.tile_argmin(t), offset=(0,))
    wp.tile_store(idx, wp.tile_argmax(t), offset=(1,))
    wp.tile_store(out, wp.tile_sum(wp.tile_map(wp.abs, t)), offset=(4,))


def test_reductions():
    x = _rand(37, np.float32)
    out, idx = wp.zeros(5, dtype=float), wp.zeros(2, dtype=int)
    wp.launch_tiled(reduce_ops, dim=1, inputs=[wp.array(x), out, idx], block_dim=16)
    o = out.numpy()
    np.testing.assert_allclose(o, [x.max(), x.min(), x.max(), x.sum(), np.abs(x).sum()], rtol=1e-5)
    assert list(idx.numpy()) == [int(np.argmin(x)), int(np.argmax(x))]


def test_integer_factorial_reduce():
    @wp.kernel(module="unique")
    def factorial(out: wp.array(dtype=int)):
        t = wp.tile_arange(1, 10, dtype=int)
        wp.tile_store(out, wp.tile_reduce(wp.mul, t))

    out = wp.zeros(1, dtype=int)
    wp.launch_tiled(factorial, dim=[1], inputs=[out], block_dim=16)
    assert out.numpy()[0] == 362880


@pytest.mark.parametrize("axis", [0, 1])
def test_sum_along_axis(axis):
    @wp.kernel(module="unique")
    def sums(x: wp.array2d(dtype=float), out: wp.array(dtype=float)):
        t = wp.tile_load(x, shape=(3, 5))
        wp.tile_store(out, wp.tile_sum(t, axis=axis))

    x = _rand((3, 5), np.float32)
    out = wp.zeros(x.shape[1 - axis], dtype=float)
    wp.launch_tiled(sums, dim=1, inputs=[wp.array(x), out], block_dim=8)
    np.testing.assert_allclose(out.numpy(), x.sum(axis=axis), rtol=1e-5)


# --- Cholesky solve and scans -----------------------------------------------------------------------------
@pytest.mark.parametrize("np_dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 4, 9])
def test_cholesky_solve(np_dtype, n):
    dt = _wp_dtype(np_dtype)

    @wp.kernel(module="unique")
    def solve(A: wp.array2d(dtype=dt), b: wp.array(dtype=dt), L_out: wp.array2d(dtype=dt),
              x_out: wp.array(dtype=dt)):
        a = wp.tile_load(A, shape=(n, n))
        rhs = wp.tile_load(b, shape=n)
        L = wp.tile_cholesky(a)
        x = wp.tile_cholesky_solve(L, rhs)
        wp.tile_store(L_out, L)
        wp.tile_store(x_out, x)

    m = _rand((n, n), np_dtype)
    a = m @ m.T + n * np.eye(n, dtype=np_dtype)
    b = _rand(n, np_dtype)
    L_out, x_out = wp.zeros((n, n), dtype=dt), wp.zeros(n, dtype=dt)
    wp.launch_tiled(solve, dim=1, inputs=[wp.array(a), wp.array(b), L_out, x_out], block_dim=32)
    tol = 1e-4 if np_dtype == np.float32 else 1e-10
    np.testing.assert_allclose(L_out.numpy(), np.linalg.cholesky(a), rtol=tol, atol=tol)
    np.testing.assert_allclose(x_out.numpy(), np.linalg.solve(a, b), rtol=tol, atol=tol)


def test_triangular_solves_with_matrix_rhs():
    @wp.kernel(module="unique")
    def tri(L: wp.array2d(dtype=wp.float64), Y: wp.array2d(dtype=wp.float64),
            lo: wp.array2d(dtype=wp.float64), up: wp.array2d(dtype=wp.float64)):
        l = wp.tile_load(L, shape=(5, 5))
        y = wp.tile_load(Y, shape=(5, 3))
        wp.tile_store(lo, wp.tile_lower_solve(l, y))
        wp.tile_store(up, wp.tile_upper_solve(wp.tile_transpose(l), y))

    l = np.tril(_rand((5, 5), np.float64)) + 3 * np.eye(5)
    y = _rand((5, 3), np.float64)
    lo, up = wp.zeros((5, 3), dtype=wp.float64), wp.zeros((5, 3), dtype=wp.float64)
    wp.launch_tiled(tri, dim=1, inputs=[wp.array(l), wp.array(y), lo, up], block_dim=8)
    np.testing.assert_allclose(lo.numpy(), np.linalg.solve(l, y), rtol=1e-10)
    np.testing.assert_allclose(up.numpy(), np.linalg.solve(l.T, y), rtol=1e-10)


@pytest.mark.parametrize("np_dtype", [np.float32, np.float64, np.int32])
def test_scans(np_dtype):
    dt = _wp_dtype(np_dtype)

    @wp.kernel(module="unique")
    def scans(x: wp.array(dtype=dt), inc: wp.array(dtype=dt), exc: wp.array(dtype=dt),
              mx: wp.array(dtype=dt), mn: wp.array(dtype=dt)):
        t = wp.tile_load(x, shape=23)
        wp.tile_store(inc, wp.tile_scan_inclusive(t))
        wp.tile_store(exc, wp.tile_scan_exclusive(t))
        wp.tile_store(mx, wp.tile_scan_max_inclusive(t))
        wp.tile_store(mn, wp.tile_scan_min_inclusive(t))

    x = (RNG.integers(-9, 9, 23) if np_dtype == np.int32 else _rand(23, np_dtype)).astype(np_dtype)
    outs = [wp.zeros(23, dtype=dt) for _ in range(4)]
    wp.launch_tiled(scans, dim=1, inputs=[wp.array(x)] + outs, block_dim=8)
    want = [np.cumsum(x), np.concatenate([[0], np.cumsum(x)[:-1]]), np.maximum.accumulate(x),
            np.minimum.accumulate(x)]
    for got, w in zip(outs, want):
        np.testing.assert_allclose(got.numpy(), w.astype(np_dtype), rtol=1e-5)


def test_sort_moves_values_with_keys():
    @wp.kernel(module="unique")
    def sort(k: wp.array(dtype=float), v: wp.array(dtype=int)):
        keys = wp.tile_load(k, shape=19)
        values = wp.tile_load(v, shape=19)
        wp.tile_sort(keys, values)
        wp.tile_store(k, keys)
        wp.tile_store(v, values)

    keys = RNG.integers(0, 6, 19).astype(np.float32)   # repeated keys: the sort is stable
    k, v = wp.array(keys), wp.array(np.arange(19, dtype=np.int32))
    wp.launch_tiled(sort, dim=1, inputs=[k, v], block_dim=8)
    order = np.argsort(keys, kind="stable")
    np.testing.assert_array_equal(k.numpy(), keys[order])
    np.testing.assert_array_equal(v.numpy(), order)


def test_float16_tiles_accumulate_in_float32():
    @wp.kernel(module="unique")
    def k(a: wp.array2d(dtype=wp.float16), b: wp.array2d(dtype=wp.float16), c: wp.array2d(dtype=wp.float16),
          s: wp.array(dtype=wp.float16)):
        x = wp.tile_load(a, shape=(8, 4))
        y = wp.tile_load(b, shape=(4, 6))
        m = wp.tile_matmul(x, y)
        wp.tile_store(c, m + m)
        wp.tile_store(s, wp.tile_sum(x))

    a, b = RNG.random((8, 4)).astype(np.float16), RNG.random((4, 6)).astype(np.float16)
    c, s = wp.zeros((8, 6), dtype=wp.float16), wp.zeros(1, dtype=wp.float16)
    wp.launch_tiled(k, dim=1, inputs=[wp.array(a), wp.array(b), c, s], block_dim=4)
    want = 2 * (a.astype(np.float32) @ b.astype(np.float32))
    np.testing.assert_allclose(c.numpy().astype(np.float32), want, rtol=3e-3, atol=3e-3)
    np.testing.assert_allclose(float(s.numpy()[0]), a.astype(np.float32).sum(), rtol=3e-3)
