"""Gradients through warp.sparse on a wp.Tape (bsr_mv, its transpose, bsr_mm, triplet
assembly) against central finite differences, and property tests (Hypothesis) of products and
sums over random sparsity patterns against SciPy."""

from typing import Any

import numpy as np
import pytest
import scipy.sparse as ssp
from hypothesis import given, settings, strategies as st

import warp_interactive as wp
import warp_interactive.sparse as sp
from sparse_ref import block_type, from_triplets, random_triplets, scipy_from_triplets, to_scipy, wp_values


@wp.kernel(module="wpi_test_sparse_grad")
def weighted_sum(y: wp.array(dtype=Any), w: wp.array(dtype=Any), out: wp.array(dtype=wp.float64)):
    i = wp.tid()
    wp.atomic_add(out, 0, wp.float64(wp.dot(y[i], w[i])))


def _loss(y, w):
    out = wp.zeros(1, dtype=wp.float64, requires_grad=True)
    wp.launch(weighted_sum, dim=y.shape[0], inputs=[y, w, out])
    return out


def _fd_check(params, forward, eps=1e-6, tol=1e-6):
    """Tape gradients of forward() (a (1,) float64 loss) w.r.t. each array in params against
    central differences (float64 everywhere)."""
    tape = wp.Tape()
    with tape:
        loss = forward()
    tape.backward(loss=loss)
    for p in params:
        grad = p.grad.numpy().reshape(-1).copy()
        flat = p.numpy().reshape(-1)
        for k in range(flat.size):
            base = flat[k]
            vals = []
            for d in (eps, -eps):
                flat[k] = base + d
                p.assign(flat.reshape(p.numpy().shape))
                vals.append(forward().numpy()[0])
            flat[k] = base
            p.assign(flat.reshape(p.numpy().shape))
            assert abs((vals[0] - vals[1]) / (2 * eps) - grad[k]) < tol * max(1.0, abs(grad[k])), (k, grad[k])
    tape.zero()


def _vec(rng, n, length):
    dt = wp.types.vector(length, wp.float64)
    return wp.array(rng.standard_normal((n, length)), dtype=dt, requires_grad=True)


def _matrix(shape, seed, nrow=5, ncol=4, count=12):
    rng = np.random.default_rng(seed)
    rows, cols, vals = random_triplets(rng, nrow, ncol, count, shape, wp.float64)
    A = from_triplets(nrow, ncol, rows, cols, vals, wp.float64, shape)
    A.values.requires_grad = True
    return A, rng


@pytest.mark.parametrize("shape", [(1, 1), (2, 2), (3, 1), (2, 3)])
@pytest.mark.parametrize("transpose", [False, True])
def test_mv_gradients(shape, transpose):
    A, rng = _matrix(shape, seed=11)
    R, C = shape
    nin, lin, nout, lout = (5, R, 4, C) if transpose else (4, C, 5, R)
    x = _vec(rng, nin, lin)
    w = _vec(rng, nout, lout)
    y = wp.zeros(nout, dtype=w.dtype, requires_grad=True)

    def forward():
        sp.bsr_mv(A, x, y, alpha=0.7, transpose=transpose)
        return _loss(y, w)

    _fd_check([A.values, x], forward)


@pytest.mark.parametrize("shape", [(1, 1), (2, 2), (3, 1)])
def test_mm_gradients(shape):
    A, rng = _matrix(shape, seed=12, nrow=4, ncol=4)
    R, C = shape
    B, _ = _matrix((C, R) if shape != (1, 1) else shape, seed=13, nrow=4, ncol=3)
    x = _vec(rng, 3, R if shape != (1, 1) else 1)
    w = _vec(rng, 4, R)

    def forward():
        P = sp.bsr_mm(A, B, alpha=1.5)
        y = wp.zeros(4, dtype=w.dtype, requires_grad=True)
        return _loss(sp.bsr_mv(P, x, y), w)

    _fd_check([A.values, B.values], forward)


def test_triplet_assembly_gradients():
    rng = np.random.default_rng(14)
    rows, cols, vals = random_triplets(rng, 4, 4, 10, (2, 2), wp.float64)
    values = wp_values(vals, wp.float64, (2, 2))
    values.requires_grad = True
    x = _vec(rng, 4, 2)
    w = _vec(rng, 4, 2)
    r_d, c_d = wp.array(rows, dtype=int), wp.array(cols, dtype=int)

    def forward():
        A = sp.bsr_from_triplets(4, 4, r_d, c_d, values)
        y = wp.zeros(4, dtype=w.dtype, requires_grad=True)
        return _loss(sp.bsr_mv(A, x, y), w)

    _fd_check([values], forward)


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_products_and_sums_over_random_patterns(data):
    """Random shapes, densities (empty matrices included) and 1x1/2x2 blocks: A @ B, A + B,
    A^T and A x match SciPy."""
    shape = data.draw(st.sampled_from([(1, 1), (2, 2)]))
    n, m, k = (data.draw(st.integers(1, 8)) for _ in range(3))
    seed = data.draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    counts = [data.draw(st.integers(0, 3 * n * m)) for _ in range(3)]
    A_t = random_triplets(rng, n, m, counts[0], shape, wp.float64)
    B_t = random_triplets(rng, m, k, counts[1], shape, wp.float64)
    C_t = random_triplets(rng, n, m, counts[2], shape, wp.float64)
    A = from_triplets(n, m, *A_t, wp.float64, shape)
    B = from_triplets(m, k, *B_t, wp.float64, shape)
    C = from_triplets(n, m, *C_t, wp.float64, shape)
    ra, rb, rc = (scipy_from_triplets(p, q, *t, shape) for (p, q), t in (((n, m), A_t), ((m, k), B_t), ((n, m), C_t)))
    np.testing.assert_allclose(to_scipy(A @ B).toarray(), (ra @ rb).toarray(), atol=1e-10)
    np.testing.assert_allclose(to_scipy(A + C).toarray(), (ra + rc).toarray(), atol=1e-12)
    np.testing.assert_allclose(to_scipy(A.T).toarray(), ra.T.toarray(), atol=0)
    x = rng.standard_normal(m * shape[1])
    np.testing.assert_allclose(sp.bsr_mv(A, wp.array(x, dtype=wp.float64)).numpy().reshape(-1), ra @ x, atol=1e-10)
    assert isinstance(ra, ssp.csr_matrix) and block_type(wp.float64, shape) is A.values.dtype


@pytest.mark.parametrize("x_grad", [False, True])
def test_taped_topology_and_cpu_products_leave_backward_working(x_grad):
    """Assembly, bsr_mm and bsr_mv of matrices without gradients run kernels that have no adjoint
    (topology, the CPU product and row loops); recorded on a tape they must not make backward()
    raise (warp-lang skips such kernels), and the gradient of a vector that wants one is A^T w."""
    rng = np.random.default_rng(21)
    rows, cols, vals = random_triplets(rng, 6, 6, 20, (2, 2), wp.float64)
    r_d, c_d = wp.array(rows, dtype=int), wp.array(cols, dtype=int)
    v_d = wp_values(vals, wp.float64, (2, 2))
    vec2 = wp.types.vector(2, wp.float64)
    x = wp.array(rng.standard_normal((6, 2)), dtype=vec2, requires_grad=x_grad)
    w = wp.array(rng.standard_normal((6, 2)), dtype=vec2)
    tape = wp.Tape()
    with tape:
        A = sp.bsr_from_triplets(6, 6, r_d, c_d, v_d)
        AA = sp.bsr_mm(A, A)
        y = wp.zeros(6, dtype=vec2, requires_grad=x_grad)
        sp.bsr_mv(AA, x, y)
        loss = _loss(y, w)
    S = scipy_from_triplets(6, 6, rows, cols, vals, (2, 2)).toarray()
    np.testing.assert_allclose(y.numpy().ravel(), S @ S @ x.numpy().ravel(), rtol=1e-12, atol=1e-12)
    tape.backward(loss=loss)
    if x_grad:
        np.testing.assert_allclose(x.grad.numpy().ravel(), (S @ S).T @ w.numpy().ravel(), rtol=1e-12, atol=1e-12)
