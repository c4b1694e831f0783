"""FSAI against a NumPy reference of the adaptive algorithm (support growth by largest gradient,
energy stopping test, Cholesky fit of each row), and as a preconditioner of the Krylov solvers."""

import numpy as np
import pytest
import scipy.sparse as ssp

import warp_interactive as wp
import warp_interactive.optim.linear as la
import warp_interactive.sparse as sp

NP = {wp.float32: np.float32, wp.float64: np.float64}


def reference_fsai(A, max_size, kap_tol):
    """Dense NumPy FSAI: rows of G (lower triangular) with G A G^T unit diagonal."""
    n = A.shape[0]
    d = 1.0 / np.sqrt(np.diag(A))
    At = A * d[:, None] * d[None, :]
    G = np.zeros_like(A)
    for i in range(n):
        S = [i]
        z = np.linalg.solve(At[np.ix_(S, S)], np.eye(len(S))[0])
        energy = 1.0 / z[0]
        while len(S) < max_size:
            adjacent = {j for k in S for j in np.flatnonzero(A[k]) if j < i and j not in S}
            scores = {j: abs(At[j, S] @ z) for j in adjacent}
            if not scores or max(scores.values()) == 0.0:
                break
            best = min(j for j, v in scores.items() if v == max(scores.values()))
            S.append(best)
            z = np.linalg.solve(At[np.ix_(S, S)], np.eye(len(S))[0])
            gain = (energy - 1.0 / z[0]) / energy
            energy = 1.0 / z[0]
            if gain < kap_tol:
                break
        G[i, S] = z / np.sqrt(z[0]) * d[S]
    return G


def spd_system(n, seed, block, dtype):
    """A random sparse SPD matrix (diagonally dominant) with ``block`` x ``block`` blocks."""
    rng = np.random.default_rng(seed)
    nb = n // block
    pattern = ssp.random(nb, nb, density=0.25, random_state=seed).toarray() != 0
    pattern = pattern | pattern.T
    dense = np.kron(pattern, np.ones((block, block))) * rng.standard_normal((n, n))
    dense = (dense + dense.T) / 2
    dense += np.diag(np.abs(dense).sum(axis=1) + 1.0)
    rows, cols = np.nonzero(np.kron(pattern | np.eye(nb, dtype=bool), np.ones((1, 1)))[:nb, :nb])
    blocks = np.array([dense[r * block:(r + 1) * block, c * block:(c + 1) * block] for r, c in zip(rows, cols)])
    btype = dtype if block == 1 else wp.types.matrix(shape=(block, block), dtype=dtype)
    vals = blocks.reshape(-1) if block == 1 else blocks
    A = sp.bsr_from_triplets(nb, nb, wp.array(rows.astype(np.int32), dtype=int), wp.array(cols.astype(np.int32), dtype=int),
                             wp.array(vals.astype(NP[dtype]), dtype=btype))
    return A, dense


def dense_of(G):
    off, col, val = G.offsets.numpy(), G.columns.numpy(), G.values.numpy()
    return ssp.csr_matrix((val[:off[-1]], col[:off[-1]], off), shape=G.shape).toarray()


@pytest.mark.parametrize("block", [1, 3])
@pytest.mark.parametrize("max_size,kap_tol", [(1, 1e-3), (4, 1e-3), (8, 0.0), (8, 0.2)])
def test_fsai_factor_matches_numpy_reference(block, max_size, kap_tol):
    A, dense = spd_system(24, seed=block + max_size, block=block, dtype=wp.float64)
    M = la.FSAI(A, max_row_size=max_size, kap_tolerance=kap_tol)
    G = dense_of(M.G)
    np.testing.assert_allclose(G, reference_fsai(dense, max_size, kap_tol), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(np.diag(G @ dense @ G.T), 1.0, rtol=1e-9)
    np.testing.assert_allclose(dense_of(M.GT), G.T, rtol=1e-12, atol=0)
    assert M.truncated_rows == 0
    x = np.random.default_rng(0).standard_normal(24)
    z = wp.zeros(24, dtype=wp.float64)
    y = wp.array(np.ones(24), dtype=wp.float64)
    M.matvec(wp.array(x, dtype=wp.float64), y, z, 2.0, -1.0)
    np.testing.assert_allclose(z.numpy(), 2.0 * G.T @ (G @ x) - 1.0, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("dtype", [wp.float32, wp.float64])
@pytest.mark.parametrize("solver", ["cg", "cr", "bicgstab", "gmres"])
def test_fsai_preconditioned_solves(dtype, solver):
    """preconditioner(A, "fsai") solves a block SPD system in fewer iterations than none."""
    A, dense = spd_system(48, seed=3, block=3, dtype=dtype)
    b = np.random.default_rng(1).standard_normal(48)
    tol = 1e-5 if dtype is wp.float32 else 1e-10
    counts = []
    for M in (None, la.preconditioner(A, "fsai")):
        x = wp.zeros(48, dtype=dtype)
        it, err, atol = getattr(la, solver)(A, wp.array(b.astype(NP[dtype]), dtype=dtype), x, M=M, tol=tol, maxiter=500)
        assert err <= atol
        np.testing.assert_allclose(dense @ x.numpy(), b, atol=50 * tol * np.linalg.norm(b))
        counts.append(it)
    assert counts[1] <= counts[0]


def test_fsai_errors():
    with pytest.raises(ValueError, match="square BSR matrix with square blocks"):
        la.FSAI(sp.bsr_zeros(3, 4, wp.float64))
    with pytest.raises(TypeError, match="float16, float32 and float64"):
        la.FSAI(sp.bsr_zeros(3, 3, wp.int32))
    with pytest.raises(ValueError, match="max_row_size"):
        la.FSAI(sp.bsr_identity(3, wp.float64), max_row_size=65)
    A = sp.bsr_diag(wp.array([1.0, -2.0, 0.0], dtype=wp.float64))
    with pytest.raises(ValueError, match=r"finite positive diagonals \(2 invalid rows\)"):
        la.FSAI(A)
    with pytest.raises(ValueError, match="defer_pattern requires reuse_pattern"):
        la.FSAI(sp.bsr_identity(3, wp.float64), defer_pattern=True)
    with pytest.raises(ValueError, match="regularize_refit are not available"):
        la.FSAI(sp.bsr_identity(3, wp.float64), reuse_pattern=True, regularize_refit=True)
    with pytest.raises(ValueError, match="Construct FSAI with reuse_pattern=True"):
        la.FSAI(sp.bsr_identity(3, wp.float64)).update()


def refit_reference(A, G):
    """Each row of G refit on its own support for the dense SPD matrix A (NumPy)."""
    d = 1.0 / np.sqrt(np.diag(A))
    At = A * d[:, None] * d[None, :]
    out = np.zeros_like(G)
    for i in range(A.shape[0]):
        S = [i] + [j for j in np.flatnonzero(G[i]) if j != i]
        z = np.linalg.solve(At[np.ix_(S, S)], np.eye(len(S))[0])
        out[i, S] = z / np.sqrt(z[0]) * d[S]
    return out


def with_values(A, dense, block):
    """A copy of A's topology holding the entries of ``dense``."""
    B = sp.bsr_copy(A)
    off, col = A.offsets.numpy(), A.columns.numpy()
    rows = np.repeat(np.arange(A.nrow), np.diff(off))
    blocks = np.array([dense[r * block:(r + 1) * block, c * block:(c + 1) * block] for r, c in zip(rows, col[:off[-1]])])
    B.values.assign(blocks.reshape(B.values.numpy().shape).astype(B.values.numpy().dtype))
    return B


@pytest.mark.parametrize("block", [1, 3])
@pytest.mark.parametrize("dtype", [wp.float32, wp.float64])
def test_fsai_update_refits_on_fixed_supports(block, dtype):
    """update() on new values of the same topology: G refit row by row on its set-up support
    (NumPy reference), in place (same arrays), GT its transpose, status zero; update() without
    a matrix reuses ``source`` (its values changed in place)."""
    A, dense = spd_system(24, seed=7, block=block, dtype=dtype)
    M = la.FSAI(A, max_row_size=6, kap_tolerance=0.0, reuse_pattern=True)
    G0 = dense_of(M.G)
    ptrs = (M.G.values.ptr, M.GT.values.ptr)
    rng = np.random.default_rng(3)
    sym = (lambda R: (R + R.T) / 2)(rng.uniform(0.5, 1.5, dense.shape))
    dense2 = dense * sym
    dense2[np.diag_indices_from(dense2)] = np.abs(dense2).sum(axis=1) + 2.0
    A2 = with_values(A, dense2, block)
    assert M.update(A2) is M and M.source is A2
    tol = dict(rtol=1e-9, atol=1e-12) if dtype is wp.float64 else dict(rtol=2e-4, atol=1e-5)
    G = dense_of(M.G)
    np.testing.assert_array_equal(G != 0, G0 != 0)
    np.testing.assert_allclose(G, refit_reference(dense2.astype(NP[dtype]).astype(np.float64), G0), **tol)
    np.testing.assert_allclose(dense_of(M.GT), G.T, rtol=0, atol=0)
    assert (M.G.values.ptr, M.GT.values.ptr) == ptrs
    assert M.update_status.numpy().tolist() == [0, 0, 0, 0]
    A2.values.assign(with_values(A, dense, block).values.numpy())      # back to A's values, in place
    M.update()
    np.testing.assert_allclose(dense_of(M.G), G0, **tol)


def test_fsai_update_failures_keep_the_factor():
    """A changed topology, a non-positive diagonal and a fixed support whose local system is
    not positive definite are each refused with their count in update_status; G is unchanged."""
    A, dense = spd_system(24, seed=2, block=1, dtype=wp.float64)
    M = la.FSAI(A, max_row_size=4, kap_tolerance=0.0, reuse_pattern=True)
    G0 = dense_of(M.G)
    moved = sp.bsr_copy(A)
    cols = moved.columns.numpy()
    off = moved.offsets.numpy()
    r = int(np.argmax(np.diff(off)))                        # a row with off-diagonal entries
    k = off[r] + (1 if cols[off[r]] == r else 0)
    free = sorted(set(range(24)) - set(cols[off[r]:off[r + 1]]))
    cols[k] = free[0]
    moved.columns.assign(cols)
    with pytest.raises(ValueError, match=r"topology changed \(1 rows\)"):
        M.update(moved)
    assert M.update_status.numpy().tolist() == [1, 0, 0, 0]
    bad_diag = dense.copy()
    bad_diag[3, 3] = -1.0
    bad_diag[5, 5] = 0.0
    with pytest.raises(ValueError, match=r"finite positive diagonals \(2 invalid rows\)"):
        M.update(with_values(A, bad_diag, 1))
    assert M.update_status.numpy().tolist() == [0, 2, 0, 0]
    indefinite = dense.copy()
    i = next(i for i in range(24) if np.count_nonzero(G0[i]) > 1)
    j = next(j for j in np.flatnonzero(G0[i]) if j != i)
    indefinite[i, j] = indefinite[j, i] = 2.0 * np.sqrt(dense[i, i] * dense[j, j])
    failing = sum(not np.all(np.linalg.eigvalsh(indefinite[np.ix_(S, S)]) > 0)
                  for S in (np.flatnonzero(G0[r]) for r in range(24)))
    assert failing >= 1
    with pytest.raises(ValueError, match=f"local factorization of {failing} rows failed"):
        M.update(with_values(A, indefinite, 1))
    assert M.update_status.numpy().tolist() == [0, 0, failing, 0]
    np.testing.assert_array_equal(dense_of(M.G), G0)
    padded = sp.bsr_zeros(3, 3, wp.float64, row_capacity=2)
    assert padded.row_counts is not None
    with pytest.raises(ValueError, match="requires compact BSR storage"):
        la.FSAI(padded, reuse_pattern=True)
