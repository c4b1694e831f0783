"""warp.optim.linear against SciPy: Krylov solvers on BSR, dense and diagonal operators and on
user LinearOperators, with and without preconditioners, batched systems, device-checked loops
and reusable solver states."""

import numpy as np
import pytest
import scipy.sparse as ssp
import scipy.sparse.linalg as sla

import warp_interactive as wp
import warp_interactive.optim.linear as la
import warp_interactive.sparse as sp

NP = {wp.float32: np.float32, wp.float64: np.float64}


def poisson_2d(n, dtype):
    """The 5-point Laplacian on an n x n grid (SciPy), and as a CSR BsrMatrix."""
    T = ssp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(n, n))
    ref = (ssp.kron(ssp.eye(n), T) + ssp.kron(T, ssp.eye(n))).tocoo()
    A = sp.bsr_from_triplets(n * n, n * n, wp.array(ref.row.astype(np.int32), dtype=int),
                             wp.array(ref.col.astype(np.int32), dtype=int),
                             wp.array(ref.data.astype(NP[dtype]), dtype=dtype))
    return A, ref.tocsr()


def spd_dense(n, seed, dtype):
    rng = np.random.default_rng(seed)
    B = rng.standard_normal((n, n))
    return (B @ B.T + n * np.eye(n)).astype(NP[dtype]), rng.standard_normal(n).astype(NP[dtype])


def residual(ref, x, b):
    return np.linalg.norm(ref @ x.astype(np.float64) - b) / np.linalg.norm(b)


SOLVERS = {"cg": la.cg, "cr": la.cr}


@pytest.mark.parametrize("dtype", [wp.float32, wp.float64])
@pytest.mark.parametrize("name", sorted(SOLVERS))
@pytest.mark.parametrize("precond", ["id", "diag", "diag_abs"])
def test_symmetric_solvers_on_poisson(dtype, name, precond):
    A, ref = poisson_2d(12, dtype)
    b = np.random.default_rng(0).standard_normal(144).astype(NP[dtype])
    x = wp.zeros(144, dtype=dtype)
    tol = 1e-5 if dtype is wp.float32 else 1e-10
    it, err, atol = SOLVERS[name](A, wp.array(b, dtype=dtype), x, tol=tol, maxiter=500,
                                  M=la.preconditioner(A, precond))
    assert err <= atol and 0 < it < 500
    assert residual(ref, x.numpy(), b) < 10 * tol
    want, info = sla.cg(ref, b.astype(np.float64), rtol=1e-12, maxiter=2000)
    np.testing.assert_allclose(x.numpy(), want, rtol=0, atol=1e3 * tol * np.abs(want).max())


@pytest.mark.parametrize("dtype", [wp.float32, wp.float64])
def test_dense_diagonal_and_user_operators(dtype):
    D, b = spd_dense(20, 1, dtype)
    x = wp.zeros(20, dtype=dtype)
    la.cg(wp.array(D, dtype=dtype), wp.array(b, dtype=dtype), x, tol=1e-6)
    np.testing.assert_allclose(x.numpy(), np.linalg.solve(D.astype(np.float64), b), rtol=1e-3, atol=1e-4)
    d = np.linspace(1.0, 3.0, 20).astype(NP[dtype])
    x.zero_()
    la.cr(wp.array(d, dtype=dtype), wp.array(b, dtype=dtype), x, tol=1e-7)
    np.testing.assert_allclose(x.numpy(), b / d, rtol=1e-4)
    Aw = wp.array(D, dtype=dtype)
    calls = []

    def matvec(xv, yv, zv, alpha, beta):
        calls.append(1)
        la.aslinearoperator(Aw).matvec(xv, yv, zv, alpha, beta)

    op = la.LinearOperator(Aw.shape, dtype, Aw.device, matvec)
    x.zero_()
    la.cg(op, wp.array(b, dtype=dtype), x, tol=1e-6)
    assert calls and op.scalar_type is dtype and op.batch_count == 1
    np.testing.assert_allclose(x.numpy(), np.linalg.solve(D.astype(np.float64), b), rtol=1e-3, atol=1e-4)


def test_vector_valued_bsr_system():
    """A 2x2-block SPD matrix with vec2 right-hand side and unknowns."""
    n = 30
    D, b = spd_dense(2 * n, 2, wp.float64)
    D[np.abs(np.subtract.outer(np.arange(2 * n), np.arange(2 * n))) > 3] = 0.0
    D += 2 * n * np.eye(2 * n)
    blocks = D.reshape(n, 2, n, 2).transpose(0, 2, 1, 3)
    r, c = np.nonzero(np.abs(blocks).sum(axis=(2, 3)))
    A = sp.bsr_from_triplets(n, n, wp.array(r.astype(np.int32), dtype=int), wp.array(c.astype(np.int32), dtype=int),
                             wp.array(blocks[r, c], dtype=wp.mat22d))
    x = wp.zeros(n, dtype=wp.vec2d)
    la.cg(A, wp.array(b.reshape(n, 2), dtype=wp.vec2d), x, tol=1e-10, M=la.preconditioner(A, "diag"))
    np.testing.assert_allclose(x.numpy().reshape(-1), np.linalg.solve(D, b), rtol=1e-7, atol=1e-9)


def test_device_checked_loop_callback_and_state_reuse():
    A, ref = poisson_2d(8, wp.float64)
    b = wp.array(np.ones(64), dtype=wp.float64)
    x = wp.zeros(64, dtype=wp.float64)
    iters, r2, t2 = la.cg(A, b, x, tol=1e-8, check_every=0)
    assert int(iters.numpy()[0]) < 64 and r2.numpy()[0] <= t2.numpy()[0]
    assert residual(ref, x.numpy(), np.ones(64)) < 1e-7
    seen = []
    x.zero_()
    la.cg(A, b, x, tol=1e-8, check_every=5, callback=lambda i, err, tol: seen.append((i, err, tol)))
    assert seen[0][0] == 0 and all(s[0] % 5 == 0 for s in seen[1:-1]) and seen[-1][1] <= seen[-1][2]
    state = la.cg(A, b, x, tol=1e-8, run=False)
    assert isinstance(state, la.CG)
    for k in (1.0, 3.0):
        x.zero_()
        b2 = wp.array(np.full(64, k), dtype=wp.float64)
        state(b=b2)
        assert residual(ref, x.numpy(), np.full(64, k)) < 1e-7
    with pytest.raises(ValueError, match="Incompatible b.shape"):
        state(b=wp.zeros(10, dtype=wp.float64))


@pytest.mark.parametrize("restart", [3, 10])
def test_restarted_cg(restart):
    A, ref = poisson_2d(8, wp.float64)
    x = wp.zeros(64, dtype=wp.float64)
    it, err, atol = la.cg(A, wp.array(np.ones(64), dtype=wp.float64), x, tol=1e-9, maxiter=400, restart=restart)
    assert err <= atol and it % restart == 0
    assert residual(ref, x.numpy(), np.ones(64)) < 1e-8
    with pytest.raises(ValueError, match="restart must be positive"):
        la.cg(A, wp.zeros(64, dtype=wp.float64), x, restart=0)


def test_batched_systems_converge_independently():
    """Two independent blocks of one diagonal system, solved as a batch."""
    d = np.concatenate([np.linspace(1, 2, 10), np.linspace(100, 200, 6)])
    b = np.random.default_rng(3).standard_normal(16)
    offsets = wp.array([0, 10, 16], dtype=int)
    op = la.aslinearoperator(wp.array(d, dtype=wp.float64), batch_offsets=offsets)
    assert op.batch_count == 2
    x = wp.zeros(16, dtype=wp.float64)
    la.cg(op, wp.array(b, dtype=wp.float64), x, tol=1e-10, maxiter=50)
    np.testing.assert_allclose(x.numpy(), b / d, rtol=1e-8)


def nonsymmetric(n, seed, dtype):
    rng = np.random.default_rng(seed)
    D = rng.standard_normal((n, n))
    D[np.abs(rng.standard_normal((n, n))) < 1.2] = 0.0
    D += 0.3 * n * np.eye(n)
    r, c = np.nonzero(D)
    A = sp.bsr_from_triplets(n, n, wp.array(r.astype(np.int32), dtype=int), wp.array(c.astype(np.int32), dtype=int),
                             wp.array(D[r, c].astype(NP[dtype]), dtype=dtype))
    return A, ssp.csr_matrix(D), rng.standard_normal(n).astype(NP[dtype])


@pytest.mark.parametrize("dtype", [wp.float32, wp.float64])
@pytest.mark.parametrize("name", ["bicgstab", "gmres"])
@pytest.mark.parametrize("precond,left", [(None, False), ("diag", False), ("diag", True)])
def test_nonsymmetric_solvers(dtype, name, precond, left):
    A, ref, b = nonsymmetric(70, 4, dtype)
    assert abs(ref - ref.T).max() > 0.1
    x = wp.zeros(70, dtype=dtype)
    tol = 1e-5 if dtype is wp.float32 else 1e-10
    M = la.preconditioner(A, precond) if precond else None
    solver = la.bicgstab if name == "bicgstab" else la.gmres
    kwargs = {"restart": 10} if name == "gmres" else {}
    it, err, atol = solver(A, wp.array(b, dtype=dtype), x, tol=tol, maxiter=300, M=M, is_left_preconditioner=left,
                           **kwargs)
    assert it < 300
    want = sla.spsolve(ref.tocsc(), b.astype(np.float64))
    assert residual(ref, x.numpy(), b) < 20 * tol
    np.testing.assert_allclose(x.numpy(), want, atol=1e3 * tol * np.abs(want).max())


@pytest.mark.parametrize("name", ["bicgstab", "gmres"])
def test_left_preconditioned_convergence_is_on_the_true_residual(name):
    """With a left preconditioner that shrinks residuals (large diagonal), the solve stops on
    ||b - A x|| <= tol ||b||, not on the preconditioned residual (which is within it at x = 0)."""
    rng = np.random.default_rng(2)
    n = 30
    D = (rng.standard_normal((n, n)) + 3e4 * np.eye(n)) * rng.uniform(1.0, 10.0, n)
    A = wp.array(D, dtype=wp.float64)
    b = D @ rng.standard_normal(n)
    x = wp.zeros(n, dtype=wp.float64)
    M = la.preconditioner(A, "diag")
    Mb = b / np.diag(D)
    assert np.linalg.norm(Mb) < 1e-3 * np.linalg.norm(b)
    it, err, atol = getattr(la, name)(A, wp.array(b, dtype=wp.float64), x, tol=1e-3, maxiter=200, M=M,
                                      is_left_preconditioner=True)
    assert it > 0 and err <= atol
    assert np.linalg.norm(D @ x.numpy() - b) <= 1e-3 * np.linalg.norm(b) * (1 + 1e-9)


def test_gmres_state_and_batches():
    """GMRES as a reusable state, and a batched diagonal-plus-skew system."""
    A, ref, b = nonsymmetric(40, 5, wp.float64)
    state = la.gmres(A, wp.array(b, dtype=wp.float64), wp.zeros(40, dtype=wp.float64), tol=1e-10, restart=8, run=False)
    assert isinstance(state, la.GMRES)
    for k in (1.0, -2.0):
        x = wp.zeros(40, dtype=wp.float64)
        state(b=wp.array(k * b, dtype=wp.float64), x=x)
        np.testing.assert_allclose(ref @ x.numpy(), k * b, atol=1e-8)
    d = np.concatenate([np.linspace(1, 2, 12), np.linspace(5, 9, 8)])
    op = la.aslinearoperator(wp.array(d, dtype=wp.float64), batch_offsets=wp.array([0, 12, 20], dtype=int))
    x = wp.zeros(20, dtype=wp.float64)
    la.gmres(op, wp.array(np.ones(20), dtype=wp.float64), x, tol=1e-12, restart=6, maxiter=60)
    np.testing.assert_allclose(x.numpy(), 1.0 / d, rtol=1e-9)


@pytest.mark.parametrize("ptype", ["block_jacobi_direct", "block_jacobi_sequential", "block_jacobi_tile"])
def test_block_jacobi_applies_inverse_diagonal_blocks(ptype):
    """M x = D_i^-1 x_i per block (NumPy's solve), a singular block acts as the identity, and a
    CG with it converges on a block system."""
    n = 6
    rng = np.random.default_rng(6)
    blocks = [(lambda B: B @ B.T + 3 * np.eye(3))(rng.standard_normal((3, 3))) for _ in range(n)]
    blocks[4] = np.zeros((3, 3))
    rows = np.arange(n, dtype=np.int32)
    A = sp.bsr_from_triplets(n, n, wp.array(rows, dtype=int), wp.array(rows, dtype=int),
                             wp.array(np.array(blocks), dtype=wp.mat33d), prune_numerical_zeros=False)
    M = la.preconditioner(A, ptype)
    x = rng.standard_normal((n, 3))
    y = wp.zeros(n, dtype=wp.vec3d)
    M.matvec(wp.array(x, dtype=wp.vec3d), y, y, 2.0, 0.0)
    want = np.array([2.0 * (np.linalg.solve(B, v) if i != 4 else v) for i, (B, v) in enumerate(zip(blocks, x))])
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("size", [1, 2, 5, 8])
@pytest.mark.parametrize("ptype", ["block_jacobi_direct", "block_jacobi_sequential"])
@pytest.mark.parametrize("dtype", [wp.float32, wp.float64])
def test_block_jacobi_any_block_size_and_spd_fallback(ptype, size, dtype):
    """Blocks of any size are inverted (NumPy's inverse); a negative definite block is inverted
    by the direct variant and is the identity for the SPD ones; a nonsymmetric well-conditioned
    block likewise; a singular one is the identity for all."""
    mat = dtype if size == 1 else wp.types.matrix(shape=(size, size), dtype=dtype)
    rng = np.random.default_rng(size)
    blocks = np.array([(lambda B: B @ B.T + size * np.eye(size))(rng.standard_normal((size, size))) for _ in range(5)])
    blocks[1] = -blocks[1]
    blocks[2] = blocks[2] + np.triu(np.ones((size, size)), 1) * 0.5
    blocks[3] = 0.0
    values = blocks.reshape(-1) if size == 1 else blocks
    M = la.preconditioner(sp.bsr_diag(wp.array(values, dtype=mat)), ptype)
    x = rng.standard_normal(5 * size)
    y = rng.standard_normal(5 * size)
    z = wp.array(y, dtype=dtype)
    M.matvec(wp.array(x, dtype=dtype), z, z, 2.0, -1.0)
    inv = [np.linalg.inv(B) if i != 3 else np.eye(size) for i, B in enumerate(blocks)]
    if ptype != "block_jacobi_direct" and size > 1:    # 1x1 blocks: Jacobi, as warp-lang
        inv[1] = inv[2] = np.eye(size)
    want = 2.0 * np.concatenate([Bi @ v for Bi, v in zip(inv, x.reshape(5, size))]) - y
    tol = 1e-10 if dtype is wp.float64 else 2e-4
    np.testing.assert_allclose(z.numpy(), want, rtol=tol, atol=tol)


def test_preconditioner_errors():
    A = sp.bsr_zeros(3, 3, wp.types.matrix(shape=(2, 3), dtype=wp.float64))
    with pytest.raises(ValueError, match=r"requires square matrix blocks, got \(2, 3\)"):
        la.preconditioner(A, "block_jacobi_direct")
    with pytest.raises(ValueError, match=r"requires square matrix blocks, got \(3, 2\)"):
        la.preconditioner(sp.bsr_zeros(2, 3, wp.types.matrix(shape=(3, 2), dtype=wp.float64)), "block_jacobi_tile")
    with pytest.raises(ValueError, match="requires a square matrix, got 3x5 blocks"):
        la.preconditioner(sp.bsr_zeros(3, 5, wp.mat33d), "block_jacobi_sequential")
    with pytest.raises(ValueError, match="Unsupported preconditioner type 'ilu'"):
        la.preconditioner(A, "ilu")
    assert la.preconditioner(A, "id") is None


@pytest.mark.parametrize("solver, kwargs", [(la.cg, {}), (la.cr, {}), (la.bicgstab, {}), (la.gmres, {"restart": 2})],
                         ids=["cg", "cr", "bicgstab", "gmres"])
def test_device_checked_state_reuses_its_iteration_buffer(solver, kwargs):
    """A reusable state with ``check_every=0`` returns the same iteration-count array on every
    call, and a call rewrites it (a stale value there does not leak into the next solve)."""
    A, ref = poisson_2d(3, wp.float32)
    b = wp.array(np.arange(1, 10, dtype=np.float32), dtype=wp.float32)
    x = wp.zeros_like(b)
    state = solver(A, b, x, maxiter=40, tol=1e-5, check_every=0, use_cuda_graph=False, run=False, **kwargs)
    first, err, atol = state()
    count = int(first.numpy()[0])
    assert 0 < count <= 40 and err.numpy()[0] <= atol.numpy()[0]
    first.fill_(123)
    x.zero_()
    again, err, atol = state()
    assert again.ptr == first.ptr and int(again.numpy()[0]) == count
    assert err.numpy()[0] <= atol.numpy()[0]
    assert residual(ref, x.numpy(), np.arange(1, 10)) < 1e-4
