"""Helpers of the warp.sparse tests: random triplets, their SciPy reference, and a BsrMatrix
read back as a SciPy CSR matrix (active blocks only)."""

import numpy as np
import scipy.sparse as ssp

import warp_interactive as wp
import warp_interactive.sparse as sp

DTYPES = [wp.float32, wp.float64]
BLOCKS = [(1, 1), (2, 2), (3, 3), (3, 1), (2, 3)]
TOL = {wp.float32: 2e-5, wp.float64: 1e-12}


def block_type(dtype, shape):
    return dtype if shape == (1, 1) else wp.types.matrix(shape=shape, dtype=dtype)


def np_dtype(dtype):
    return np.float32 if dtype is wp.float32 else np.float64


def random_triplets(rng, nrow, ncol, count, shape, dtype, out_of_range=0):
    """Triplets with duplicates (count > distinct positions) and, when asked, some outside the
    matrix; rows/columns may stay empty."""
    rows = rng.integers(0, nrow, count).astype(np.int32)
    cols = rng.integers(0, ncol, count).astype(np.int32)
    if out_of_range:
        bad = rng.choice(count, size=min(out_of_range, count), replace=False)
        rows[bad[::2]] = nrow + 1
        cols[bad[1::2]] = -1
    vals = rng.standard_normal((count, *shape)).astype(np_dtype(dtype))
    return rows, cols, vals


def scipy_from_triplets(nrow, ncol, rows, cols, vals, shape):
    """The dense (scalar) matrix of the triplets, duplicates summed, out-of-range dropped."""
    R, C = shape
    keep = (rows >= 0) & (rows < nrow) & (cols >= 0) & (cols < ncol)
    rows, cols, vals = rows[keep], cols[keep], vals[keep]
    ii, jj = np.meshgrid(np.arange(R), np.arange(C), indexing="ij")
    r = (rows[:, None, None] * R + ii[None]).reshape(-1)
    c = (cols[:, None, None] * C + jj[None]).reshape(-1)
    return ssp.coo_matrix((vals.astype(np.float64).reshape(-1), (r, c)), shape=(nrow * R, ncol * C)).tocsr()


def wp_values(vals, dtype, shape):
    n = vals.shape[0]
    return wp.array(vals.reshape(n) if shape == (1, 1) else vals, dtype=block_type(dtype, shape))


def from_triplets(nrow, ncol, rows, cols, vals, dtype, shape, **kwargs):
    return sp.bsr_from_triplets(nrow, ncol, wp.array(rows, dtype=int), wp.array(cols, dtype=int),
                                wp_values(vals, dtype, shape), **kwargs)


def to_scipy(A):
    """The active blocks of ``A`` summed into a SciPy CSR matrix of scalars."""
    R, C = A.block_shape
    nrow = A.nrow
    off = A.offsets.numpy()[: nrow + 1]
    counts = np.diff(off) if A.row_counts is None else A.row_counts.numpy()[:nrow]
    rows = np.repeat(np.arange(nrow), counts)
    idx = np.concatenate([np.arange(off[r], off[r] + counts[r]) for r in range(nrow)]) if nrow else np.zeros(0, int)
    idx = idx.astype(np.int64)
    cols = A.columns.numpy()[idx] if idx.size else idx
    vals = A.values.numpy()[idx].reshape(-1, R, C) if idx.size else np.zeros((0, R, C))
    return scipy_from_triplets(A.nrow, A.ncol, rows.astype(np.int32), cols.astype(np.int32), vals, (R, C))


def assert_matches(A, ref, dtype, scale=1.0):
    got = to_scipy(A).toarray()
    want = ref.toarray() if hasattr(ref, "toarray") else np.asarray(ref)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=TOL[dtype] * 10, atol=TOL[dtype] * 10 * max(1.0, scale))


def assert_sorted_unique(A):
    """Compact matrices keep each row's columns sorted and distinct."""
    off = A.offsets.numpy()[: A.nrow + 1]
    cols = A.columns.numpy()
    for r in range(A.nrow):
        row = cols[off[r]: off[r + 1]]
        assert np.all(np.diff(row) > 0), f"row {r} columns {row}"
