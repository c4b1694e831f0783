"""wp.dense_gemm / dense_chol / dense_subs / dense_solve and their batched forms (warp-lang's
hidden Utility builtins): results against NumPy, gradients of the differentiable ones against
NumPy's closed forms, and the batched forms with one problem per thread."""

import numpy as np
import pytest

import warp_interactive as wp


@wp.kernel
def k_gemm(m: int, n: int, p: int, t1: int, t2: int, A: wp.array(dtype=float), B: wp.array(dtype=float),
           C: wp.array(dtype=float)):
    wp.dense_gemm(m, n, p, t1, t2, A, B, C)


@wp.kernel
def k_chol(n: int, A: wp.array(dtype=float), reg: float, L: wp.array(dtype=float)):
    wp.dense_chol(n, A, reg, L)


@wp.kernel
def k_subs(n: int, L: wp.array(dtype=float), b: wp.array(dtype=float), x: wp.array(dtype=float)):
    wp.dense_subs(n, L, b, x)


@wp.kernel
def k_solve(n: int, A: wp.array(dtype=float), L: wp.array(dtype=float), b: wp.array(dtype=float),
            x: wp.array(dtype=float)):
    wp.dense_solve(n, A, L, b, x)


@wp.kernel
def k_gemm_batched(m: wp.array(dtype=int), n: wp.array(dtype=int), p: wp.array(dtype=int), t1: int, t2: int,
                   a0: wp.array(dtype=int), b0: wp.array(dtype=int), c0: wp.array(dtype=int),
                   A: wp.array(dtype=float), B: wp.array(dtype=float), C: wp.array(dtype=float)):
    wp.dense_gemm_batched(m, n, p, t1, t2, a0, b0, c0, A, B, C)


@wp.kernel
def k_chol_batched(a0: wp.array(dtype=int), dim: wp.array(dtype=int), A: wp.array(dtype=float), reg: float,
                   L: wp.array(dtype=float)):
    wp.dense_chol_batched(a0, dim, A, reg, L)


@wp.kernel
def k_solve_batched(b0: wp.array(dtype=int), a0: wp.array(dtype=int), dim: wp.array(dtype=int),
                    A: wp.array(dtype=float), L: wp.array(dtype=float), b: wp.array(dtype=float),
                    x: wp.array(dtype=float)):
    wp.dense_solve_batched(b0, a0, dim, A, L, b, x)


def _spd(rng, n):
    m = rng.standard_normal((n, n))
    return (m @ m.T + n * np.eye(n)).astype(np.float32)


def _op(M, t):
    return M.T if t else M


@pytest.mark.parametrize("t1,t2", [(0, 0), (1, 0), (0, 1), (1, 1)])
@pytest.mark.parametrize("m,n,p", [(2, 4, 3), (1, 1, 5), (3, 2, 1)])
def test_gemm_and_its_gradient(m, n, p, t1, t2):
    rng = np.random.default_rng(m * 100 + n * 10 + p + 7 * t1 + 3 * t2)
    A = rng.standard_normal((p, m) if t1 else (m, p)).astype(np.float32)
    B = rng.standard_normal((n, p) if t2 else (p, n)).astype(np.float32)
    a = wp.array(A.ravel(), requires_grad=True)
    b = wp.array(B.ravel(), requires_grad=True)
    c = wp.full(m * n, 5.0, dtype=float, requires_grad=True)    # overwritten, not accumulated
    tape = wp.Tape()
    with tape:
        wp.launch(k_gemm, 1, inputs=[m, n, p, t1, t2, a, b, c])
    C = _op(A, t1) @ _op(B, t2)
    np.testing.assert_allclose(c.numpy(), C.ravel(), rtol=1e-5, atol=1e-6)
    W = rng.standard_normal((m, n)).astype(np.float32)
    tape.backward(grads={c: W.ravel()})
    # d<W, op(A) op(B)> / d op(A) = W op(B)^T, / d op(B) = op(A)^T W
    np.testing.assert_allclose(a.grad.numpy(), _op(W @ _op(B, t2).T, t1).ravel(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(b.grad.numpy(), _op(_op(A, t1).T @ W, t2).ravel(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("n,reg", [(1, 0.0), (3, 0.0), (5, 0.5), (8, 2.0)])
def test_chol_subs_solve_match_numpy(n, reg):
    rng = np.random.default_rng(n)
    A = _spd(rng, n)
    rhs = rng.standard_normal(n).astype(np.float32)
    a, bb = wp.array(A.ravel()), wp.array(rhs)
    L = wp.full(n * n, 7.0, dtype=float)
    wp.launch(k_chol, 1, inputs=[n, a, reg, L])
    ref = np.linalg.cholesky(A.astype(np.float64) + reg * np.eye(n))
    got = L.numpy().reshape(n, n)
    np.testing.assert_allclose(np.tril(got), ref, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(got[np.triu_indices(n, 1)], 7.0)    # the upper triangle is untouched
    x1, x2 = wp.zeros(n, dtype=float), wp.zeros(n, dtype=float)
    wp.launch(k_subs, 1, inputs=[n, L, bb, x1])
    wp.launch(k_solve, 1, inputs=[n, a, L, bb, x2])
    expect = np.linalg.solve(A.astype(np.float64) + reg * np.eye(n), rhs)
    np.testing.assert_allclose(x1.numpy(), expect, rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal(x2.numpy(), x1.numpy())


def test_solve_gradient_is_warp_langs_closed_form():
    n = 4
    rng = np.random.default_rng(3)
    A = _spd(rng, n)
    rhs = rng.standard_normal(n).astype(np.float32)
    a, bb = wp.array(A.ravel(), requires_grad=True), wp.array(rhs, requires_grad=True)
    L = wp.zeros(n * n, dtype=float)
    wp.launch(k_chol, 1, inputs=[n, a, 0.0, L])
    x = wp.zeros(n, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(k_solve, 1, inputs=[n, a, L, bb, x])
    w = rng.standard_normal(n).astype(np.float32)
    tape.backward(grads={x: w})
    Ad = A.astype(np.float64)
    db = np.linalg.solve(Ad, w)                      # d<w, A^-1 b>/db = A^-T w
    np.testing.assert_allclose(bb.grad.numpy(), db, rtol=1e-4, atol=1e-5)
    xs = np.linalg.solve(Ad, rhs)
    np.testing.assert_allclose(a.grad.numpy().reshape(n, n), -np.outer(db, xs), rtol=1e-4, atol=1e-5)
    # the same as central differences of <w, A^-1 b> in A's entries
    eps, fd = 1e-6, np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            E = np.zeros((n, n))
            E[i, j] = eps
            fd[i, j] = (w @ np.linalg.solve(Ad + E, rhs) - w @ np.linalg.solve(Ad - E, rhs)) / (2 * eps)
    np.testing.assert_allclose(a.grad.numpy().reshape(n, n), fd, rtol=1e-3, atol=1e-4)


@wp.kernel
def k_chol_solve_square(n: int, A: wp.array(dtype=float), L: wp.array(dtype=float), b: wp.array(dtype=float),
                        x: wp.array(dtype=float)):
    wp.dense_chol(n, A, 0.0, L)
    wp.dense_solve(n, A, L, b, x)


@wp.kernel
def k_square(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = x[i] * x[i]


@wp.kernel
def k_overwrite(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = 100.0


@pytest.mark.parametrize("overwrite_x", [False, True], ids=["x-kept", "x-overwritten-later"])
def test_factor_and_solve_in_one_taped_kernel(overwrite_x):
    """The factor written and read by the same launch: the tape keeps L's pre-launch copy for the
    adjoint, whose replay must factor into it again (it read zeros, and A's gradient was NaN),
    and a later overwrite of x on the tape must not change the gradient (warp-lang's tape gets
    that one wrong)."""
    n = 3
    rng = np.random.default_rng(0)
    A = _spd(rng, n)
    rhs = rng.standard_normal(n).astype(np.float32)
    a, bb = wp.array(A.ravel(), requires_grad=True), wp.array(rhs, requires_grad=True)
    L = wp.zeros(n * n, dtype=float, requires_grad=True)
    x, y = wp.zeros(n, dtype=float, requires_grad=True), wp.zeros(n, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(k_chol_solve_square, 1, inputs=[n, a, L, bb, x])
        wp.launch(k_square, n, inputs=[x, y])
        if overwrite_x:
            wp.launch(k_overwrite, n, inputs=[x])
    tape.backward(grads={y: wp.ones(n, dtype=float)})
    Ad = A.astype(np.float64)
    xs = np.linalg.solve(Ad, rhs)
    db = np.linalg.solve(Ad.T, 2 * xs)               # d(sum x^2)/db = A^-T 2x
    np.testing.assert_allclose(bb.grad.numpy(), db, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(a.grad.numpy().reshape(n, n), -np.outer(db, xs), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(L.numpy().reshape(n, n)[np.tril_indices(n)],
                               np.linalg.cholesky(Ad)[np.tril_indices(n)], rtol=1e-5)


@pytest.mark.parametrize("t1,t2", [(0, 0), (1, 1)])
def test_batched_one_problem_per_thread(t1, t2):
    rng = np.random.default_rng(11)
    sizes = [(2, 3, 4), (1, 5, 2), (3, 3, 3)]
    As, Bs, a0, b0, c0 = [], [], [], [], []
    oa = ob = oc = 0
    for m, n, p in sizes:
        As.append(rng.standard_normal(m * p).astype(np.float32))
        Bs.append(rng.standard_normal(p * n).astype(np.float32))
        a0.append(oa), b0.append(ob), c0.append(oc)
        oa, ob, oc = oa + m * p, ob + p * n, oc + m * n
    ints = [wp.array(np.array(v, dtype=np.int32)) for v in zip(*sizes)]
    C = wp.zeros(oc, dtype=float)
    wp.launch(k_gemm_batched, len(sizes), inputs=[*ints, t1, t2, wp.array(a0, dtype=int), wp.array(b0, dtype=int),
                                                   wp.array(c0, dtype=int), wp.array(np.concatenate(As)),
                                                   wp.array(np.concatenate(Bs)), C])
    for k, (m, n, p) in enumerate(sizes):
        Ak = As[k].reshape((p, m) if t1 else (m, p))
        Bk = Bs[k].reshape((n, p) if t2 else (p, n))
        np.testing.assert_allclose(C.numpy()[c0[k]:c0[k] + m * n], (_op(Ak, t1) @ _op(Bk, t2)).ravel(),
                                   rtol=1e-5, atol=1e-6)


def test_batched_chol_and_solve():
    rng = np.random.default_rng(5)
    dims = [3, 1, 4]
    mats = [_spd(rng, d) for d in dims]
    rhs = [rng.standard_normal(d).astype(np.float32) for d in dims]
    a_start = np.cumsum([0] + [d * d for d in dims[:-1]]).astype(np.int32)
    b_start = np.cumsum([0] + dims[:-1]).astype(np.int32)
    A = wp.array(np.concatenate([m.ravel() for m in mats]))
    L = wp.zeros(A.shape[0], dtype=float)
    dim = wp.array(np.array(dims, dtype=np.int32))
    wp.launch(k_chol_batched, len(dims), inputs=[wp.array(a_start), dim, A, 0.25, L])
    x = wp.zeros(int(sum(dims)), dtype=float)
    wp.launch(k_solve_batched, len(dims), inputs=[wp.array(b_start), wp.array(a_start), dim, A, L,
                                                   wp.array(np.concatenate(rhs)), x])
    for k, d in enumerate(dims):
        reg = mats[k].astype(np.float64) + 0.25 * np.eye(d)
        got_L = L.numpy()[a_start[k]:a_start[k] + d * d].reshape(d, d)
        np.testing.assert_allclose(np.tril(got_L), np.linalg.cholesky(reg), rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(x.numpy()[b_start[k]:b_start[k] + d], np.linalg.solve(reg, rhs[k]),
                                   rtol=1e-4, atol=1e-5)


def test_needs_float32_arrays():
    @wp.kernel
    def k_bad(A: wp.array(dtype=wp.float64), L: wp.array(dtype=float)):
        wp.dense_chol(2, A, 0.0, L)

    with pytest.raises(Exception, match="dense_chol"):
        wp.launch(k_bad, 1, inputs=[wp.zeros(4, dtype=wp.float64), wp.zeros(4, dtype=float)])


@pytest.mark.parametrize("name", ["dense_gemm", "dense_gemm_batched", "dense_chol", "dense_chol_batched",
                                  "dense_subs", "dense_solve", "dense_solve_batched"])
def test_names_exist(name):
    assert callable(getattr(wp, name))
