"""Cholesky factorisation and triangular solves on tiles: values against NumPy and adjoints
against central finite differences, for both fill modes, several sizes and right-hand sides."""

import numpy as np
import pytest

import warp_interactive as wp

RNG = np.random.default_rng(17)
F64 = wp.float64


def _spd(n):
    b = RNG.uniform(-1, 1, (n, n))
    return b @ b.T + n * np.eye(n)


def _tri(n, lower):
    m = RNG.uniform(-1, 1, (n, n)) + 3 * np.eye(n)
    return np.tril(m) if lower else np.triu(m)


def _kernel(op, n, rhs, mode):
    """out = op(A[, y]) for static shapes; ``rhs`` is the right-hand side's shape or None."""
    if op == "cholesky":
        @wp.kernel(module="unique")
        def k(a: wp.array2d(dtype=F64), y: wp.array2d(dtype=F64), out: wp.array2d(dtype=F64)):
            wp.tile_store(out, wp.tile_cholesky(wp.tile_load(a, shape=(n, n)), fill_mode=mode))
        return k
    solve = {"lower": wp.tile_lower_solve, "upper": wp.tile_upper_solve}.get(op)
    if len(rhs) == 1:
        @wp.kernel(module="unique")
        def k1(a: wp.array2d(dtype=F64), y: wp.array(dtype=F64), out: wp.array(dtype=F64)):
            ta, ty = wp.tile_load(a, shape=(n, n)), wp.tile_load(y, shape=rhs)
            if wp.static(solve is None):
                wp.tile_store(out, wp.tile_cholesky_solve(ta, ty, fill_mode=mode))
            else:
                wp.tile_store(out, solve(ta, ty))
        return k1

    @wp.kernel(module="unique")
    def k2(a: wp.array2d(dtype=F64), y: wp.array2d(dtype=F64), out: wp.array2d(dtype=F64)):
        ta, ty = wp.tile_load(a, shape=(n, n)), wp.tile_load(y, shape=rhs)
        if wp.static(solve is None):
            wp.tile_store(out, wp.tile_cholesky_solve(ta, ty, fill_mode=mode))
        else:
            wp.tile_store(out, solve(ta, ty))
    return k2


def _reference(op, a, y, mode):
    """NumPy: only the triangle each primitive documents as read is used."""
    if op == "cholesky":
        if mode == "lower":
            return np.linalg.cholesky(np.tril(a) + np.tril(a, -1).T)
        u = np.linalg.cholesky((np.triu(a) + np.triu(a, 1).T).T).T
        return u
    if op == "lower":
        return np.linalg.solve(np.tril(a), y)
    if op == "upper":
        return np.linalg.solve(np.triu(a), y)
    f = np.tril(a) if mode == "lower" else np.triu(a)
    full = f @ f.T if mode == "lower" else f.T @ f
    return np.linalg.solve(full, y)


def _inputs(op, n, rhs, mode):
    if op == "cholesky":
        return _spd(n), np.zeros((1, 1))
    if op == "cholesky_solve":
        f = np.linalg.cholesky(_spd(n))
        a = f if mode == "lower" else f.T
    else:
        a = _tri(n, op == "lower")
    return a, RNG.uniform(-1, 1, rhs)


def _run(k, a, y, out_shape, weights=None):
    arrs = [wp.array(a, dtype=F64, requires_grad=True), wp.array(y, dtype=F64, requires_grad=True)]
    out = wp.zeros(out_shape, dtype=F64, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch_tiled(k, dim=1, inputs=arrs + [out], block_dim=16)
    if weights is not None:
        out.grad = wp.array(weights, dtype=F64)
        tape.backward()
    return out.numpy(), arrs


CASES = [("cholesky", n, None, m) for n in (1, 3, 5) for m in ("lower", "upper")] + \
        [(op, n, rhs, "lower") for op in ("lower", "upper") for n, rhs in ((4, (4,)), (3, (3, 2)), (5, (5, 3)))] + \
        [("cholesky_solve", n, rhs, m) for n, rhs in ((4, (4,)), (3, (3, 2))) for m in ("lower", "upper")]


@pytest.mark.parametrize("op,n,rhs,mode", CASES)
def test_values_and_adjoints(op, n, rhs, mode):
    k = _kernel(op, n, rhs, mode)
    a, y = _inputs(op, n, rhs, mode)
    out_shape = (n, n) if op == "cholesky" else rhs
    weights = RNG.uniform(-1, 1, out_shape)
    got, arrs = _run(k, a, y, out_shape, weights)
    np.testing.assert_allclose(got, _reference(op, a, y, mode), rtol=1e-10, atol=1e-12)
    eps = 1e-6
    for which, v in ((0, a), (1, y)) if op != "cholesky" else ((0, a),):
        fd = np.zeros_like(v)
        for idx in np.ndindex(v.shape):
            vals = [a.copy(), y.copy()]
            vals[which][idx] += eps
            up = (_run(k, *vals, out_shape)[0] * weights).sum()
            vals[which][idx] -= 2 * eps
            fd[idx] = (up - (_run(k, *vals, out_shape)[0] * weights).sum()) / (2 * eps)
        np.testing.assert_allclose(arrs[which].grad.numpy(), fd, rtol=1e-5, atol=1e-7)


def test_unread_triangle_gets_no_gradient():
    """warp-lang: gradients are with respect to the triangle that fill_mode reads."""
    k = _kernel("cholesky", 4, None, "upper")
    _, arrs = _run(k, _spd(4), np.zeros((1, 1)), (4, 4), np.ones((4, 4)))
    g = arrs[0].grad.numpy()
    assert np.all(np.tril(g, -1) == 0) and np.any(np.triu(g) != 0)


def test_bad_fill_mode_is_a_build_error():
    @wp.kernel(module="unique")
    def k(a: wp.array2d(dtype=F64)):
        wp.tile_store(a, wp.tile_cholesky(wp.tile_load(a, shape=(2, 2)), fill_mode="diagonal"))

    with pytest.raises(wp.WarpCodegenError, match='fill_mode must be "lower" or "upper".*diagonal'):
        wp.launch_tiled(k, dim=1, inputs=[wp.zeros((2, 2), dtype=F64)], block_dim=4)
