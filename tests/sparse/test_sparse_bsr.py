"""warp.sparse against SciPy: tables over scalar types (f32, f64) and block shapes (1x1, 2x2,
3x3, 3x1, 2x3), with duplicate triplets, triplets outside the matrix, empty rows and columns,
masked and padded destinations, products, sums, transposes and diagonals."""

import numpy as np
import pytest
import scipy.sparse as ssp

import warp_interactive as wp
import warp_interactive.sparse as sp
from sparse_ref import (BLOCKS, DTYPES, TOL, assert_matches, assert_sorted_unique, block_type, from_triplets,
                        np_dtype, random_triplets, scipy_from_triplets, to_scipy, wp_values)

CASES = [(d, s) for d in DTYPES for s in BLOCKS]
IDS = [f"{d.__name__}-{s[0]}x{s[1]}" for d, s in CASES]


def _system(dtype, shape, seed=0, nrow=9, ncol=7, count=40, out_of_range=0):
    rng = np.random.default_rng(seed)
    rows, cols, vals = random_triplets(rng, nrow, ncol, count, shape, dtype, out_of_range)
    rows[rows == 4] = 5          # row 4 empty
    cols[cols == 2] = 3          # column 2 empty
    A = from_triplets(nrow, ncol, rows, cols, vals, dtype, shape)
    return A, scipy_from_triplets(nrow, ncol, rows, cols, vals, shape), rng


@pytest.mark.parametrize("dtype,shape", CASES, ids=IDS)
def test_from_triplets_sums_duplicates_and_drops_outside(dtype, shape):
    A, ref, _ = _system(dtype, shape, out_of_range=6)
    assert_matches(A, ref, dtype)
    assert_sorted_unique(A)
    R, C = shape
    blocks = {(r // R, c // C) for r, c in zip(*ref.nonzero())}
    assert A.nnz_sync() == len(blocks)
    assert A.shape == (9 * R, 7 * C) and A.block_shape == shape and A.scalar_type is dtype
    assert A.uncompress_rows().numpy()[: A.nnz].tolist() == sorted(r for r, _ in blocks)


@pytest.mark.parametrize("prune", [True, False])
def test_from_triplets_zero_blocks(prune):
    rows = np.array([0, 1, 1, 2], dtype=np.int32)
    cols = np.array([0, 1, 1, 2], dtype=np.int32)
    vals = np.array([1.0, 0.0, 0.0, 2.0], dtype=np.float32)
    A = from_triplets(3, 3, rows, cols, vals, wp.float32, (1, 1), prune_numerical_zeros=prune)
    assert A.nnz_sync() == (2 if prune else 3)
    np.testing.assert_array_equal(to_scipy(A).toarray(), np.diag([1.0, 0.0, 2.0]))


def test_from_triplets_count_and_3d_values():
    rows = wp.array([0, 1, 2, 0], dtype=int)
    cols = wp.array([1, 1, 0, 1], dtype=int)
    vals = wp.array(np.arange(16, dtype=np.float64).reshape(4, 2, 2), dtype=wp.float64)
    A = sp.bsr_zeros(3, 2, wp.mat22d)
    sp.bsr_set_from_triplets(A, rows, cols, vals, count=wp.array([3], dtype=int))
    ref = scipy_from_triplets(3, 2, rows.numpy()[:3], cols.numpy()[:3], vals.numpy()[:3], (2, 2))
    assert_matches(A, ref, wp.float64)


@pytest.mark.parametrize("dtype,shape", CASES, ids=IDS)
def test_masked_assignment_keeps_topology(dtype, shape):
    A, _, rng = _system(dtype, shape, seed=1)
    nnz = A.nnz_sync()
    cols_before = A.columns.numpy()[:nnz].copy()
    rows, cols, vals = random_triplets(rng, 9, 7, 30, shape, dtype)
    sp.bsr_set_from_triplets(A, wp.array(rows, dtype=int), wp.array(cols, dtype=int), wp_values(vals, dtype, shape),
                             topology="masked")
    assert A.nnz_sync() == nnz and np.array_equal(A.columns.numpy()[:nnz], cols_before)
    full = scipy_from_triplets(9, 7, rows, cols, vals, shape).toarray()
    mask = (to_scipy(sp.bsr_copy(A)).toarray() != 0) | _block_mask(A)
    np.testing.assert_allclose(to_scipy(A).toarray(), np.where(mask, full, 0.0), atol=TOL[dtype] * 10)


def _block_mask(A):
    """True on every scalar of the stored blocks."""
    R, C = A.block_shape
    mask = np.zeros(A.shape, dtype=bool)
    off, cols = A.offsets.numpy(), A.columns.numpy()
    for r in range(A.nrow):
        for k in range(off[r], off[r + 1]):
            mask[r * R:(r + 1) * R, cols[k] * C:(cols[k] + 1) * C] = True
    return mask


@pytest.mark.parametrize("dtype,shape", CASES, ids=IDS)
@pytest.mark.parametrize("alpha,beta", [(1.0, 0.0), (-0.5, 2.0)])
def test_mv_and_transpose(dtype, shape, alpha, beta):
    A, ref, rng = _system(dtype, shape, seed=2)
    R, C = shape
    x = rng.standard_normal(7 * C).astype(np_dtype(dtype))
    y0 = rng.standard_normal(9 * R).astype(np_dtype(dtype))
    y = wp.array(y0.reshape(9, R) if R > 1 else y0, dtype=wp.types.vector(R, dtype) if R > 1 else dtype)
    out = sp.bsr_mv(A, wp.array(x, dtype=dtype), y, alpha=alpha, beta=beta)
    assert out is y
    np.testing.assert_allclose(out.numpy().reshape(-1), alpha * (ref @ x) + beta * y0, rtol=TOL[dtype] * 10,
                               atol=TOL[dtype] * 30)
    xt = rng.standard_normal(9 * R).astype(np_dtype(dtype))
    yt = sp.bsr_mv(A, wp.array(xt, dtype=dtype), transpose=True, alpha=alpha)
    np.testing.assert_allclose(yt.numpy().reshape(-1), alpha * (ref.T @ xt), rtol=TOL[dtype] * 10,
                               atol=TOL[dtype] * 30)
    np.testing.assert_allclose((A @ wp.array(x, dtype=dtype)).numpy().reshape(-1), ref @ x, rtol=TOL[dtype] * 10,
                               atol=TOL[dtype] * 30)


def test_mv_aliasing_uses_a_copy_of_x():
    A, ref, rng = _system(wp.float64, (2, 2), nrow=6, ncol=6)
    x0 = rng.standard_normal((6, 2))
    x = wp.array(x0, dtype=wp.vec2d)
    sp.bsr_mv(A, x, x, alpha=1.0, beta=1.0)
    np.testing.assert_allclose(x.numpy().reshape(-1), ref @ x0.reshape(-1) + x0.reshape(-1), rtol=1e-12)


@pytest.mark.parametrize("dtype,shape", CASES, ids=IDS)
def test_mm_against_scipy(dtype, shape):
    A, ref, rng = _system(dtype, shape, seed=3)
    At = sp.bsr_transposed(A)
    assert_matches(At, ref.T, dtype)
    AtA = sp.bsr_mm(At, A, alpha=0.5)
    assert_matches(AtA, 0.5 * (ref.T @ ref), dtype, scale=10)
    assert_sorted_unique(AtA)
    # z := alpha x y + beta z with z's own topology, then @ operators
    Z = sp.bsr_mm(A, At)
    sp.bsr_mm(A, At, Z, alpha=2.0, beta=-1.0)
    assert_matches(Z, ref @ ref.T, dtype, scale=10)
    assert_matches(A @ At, ref @ ref.T, dtype, scale=10)


@pytest.mark.parametrize("dtype,shape", CASES, ids=IDS)
def test_axpy_scale_and_operators(dtype, shape):
    A, ref_a, rng = _system(dtype, shape, seed=4)
    B, ref_b, _ = _system(dtype, shape, seed=5)
    assert_matches(sp.bsr_axpy(A, sp.bsr_copy(B), alpha=2.0, beta=-3.0), 2.0 * ref_a - 3.0 * ref_b, dtype, 10)
    assert_matches(A + B, ref_a + ref_b, dtype)
    assert_matches(A - B, ref_a - ref_b, dtype)
    assert_matches(sp.bsr_copy(2.0 * A), 2.0 * ref_a, dtype)
    assert_matches(sp.bsr_copy(-A / 4.0), -0.25 * ref_a, dtype)
    C = sp.bsr_copy(A)
    C += B
    C -= 2.0 * A
    C *= 3.0
    assert_matches(C, 3.0 * (ref_b - ref_a), dtype, 10)
    sp.bsr_axpy(A, A, alpha=1.0, beta=1.0)      # x and y alias
    assert_matches(A, 2.0 * ref_a, dtype)


@pytest.mark.parametrize("dtype,shape", CASES, ids=IDS)
def test_axpy_masked_keeps_y_topology(dtype, shape):
    A, ref_a, _ = _system(dtype, shape, seed=6)
    B, ref_b, _ = _system(dtype, shape, seed=7)
    mask = _block_mask(B)
    sp.bsr_axpy(A, B, alpha=1.0, beta=1.0, topology="masked")
    np.testing.assert_allclose(to_scipy(B).toarray(), np.where(mask, (ref_a + ref_b).toarray(), 0.0),
                               atol=TOL[dtype] * 10)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("src,dst", [((2, 2), (1, 1)), ((1, 1), (2, 2)), ((3, 3), (1, 3)), ((2, 2), (2, 2))])
def test_copy_reblocks_and_casts(dtype, src, dst):
    A, ref, _ = _system(dtype, src, seed=8, nrow=6, ncol=6)
    other = wp.float64 if dtype is wp.float32 else wp.float32
    B = sp.bsr_copy(A, scalar_type=other, block_shape=dst)
    assert B.block_shape == dst and B.scalar_type is other
    assert_matches(B, ref, wp.float32)


@pytest.mark.parametrize("dtype,shape", [c for c in CASES if c[1][0] == c[1][1]],
                         ids=[i for c, i in zip(CASES, IDS) if c[1][0] == c[1][1]])
def test_diag_identity(dtype, shape):
    A, ref, rng = _system(dtype, shape, seed=9, nrow=7, ncol=7)
    R = shape[0]
    d = sp.bsr_get_diag(A).numpy().reshape(7, R, R)
    dense = ref.toarray()
    for i in range(7):
        np.testing.assert_allclose(d[i], dense[i * R:(i + 1) * R, i * R:(i + 1) * R], atol=TOL[dtype] * 10)
    I = sp.bsr_identity(5, block_type(dtype, shape))
    np.testing.assert_array_equal(to_scipy(I).toarray(), np.eye(5 * R))
    vals = rng.standard_normal((4, R, R)).astype(np_dtype(dtype))
    D = sp.bsr_diag(wp_values(vals, dtype, shape))
    np.testing.assert_allclose(to_scipy(D).toarray(), ssp.block_diag(list(vals)).toarray(), atol=TOL[dtype])
    sp.bsr_set_diag(D, wp_values(vals[:1], dtype, shape)[0] if R > 1 else float(vals[0, 0, 0]), 3, 5)
    assert D.shape == (3 * R, 5 * R)
    want = np.zeros((3 * R, 5 * R))
    for i in range(3):
        want[i * R:(i + 1) * R, i * R:(i + 1) * R] = vals[0]
    np.testing.assert_allclose(to_scipy(D).toarray(), want, atol=TOL[dtype])


def test_padded_rows_capacity_and_status():
    A = sp.bsr_zeros(3, 4, wp.float32, row_capacity=2)
    assert A.row_counts is not None and A.nnz == 6
    rows = wp.array([0, 0, 0, 1, 2], dtype=int)
    cols = wp.array([0, 1, 2, 3, 0], dtype=int)
    vals = wp.array([1.0, 2.0, 3.0, 4.0, 5.0], dtype=float)
    sp.bsr_set_from_triplets(A, rows, cols, vals, topology="padded")
    assert A.status_sync() == sp.BSR_STATUS_ROW_CAPACITY_EXCEEDED
    assert A.status_message() == "row capacity exceeded"
    np.testing.assert_array_equal(to_scipy(A).toarray(), [[1, 2, 0, 0], [0, 0, 0, 4], [5, 0, 0, 0]])
    x = wp.array([1.0, 1.0, 1.0, 1.0], dtype=float)
    np.testing.assert_array_equal(sp.bsr_mv(A, x).numpy(), [3.0, 4.0, 5.0])
    A.clear_status()
    assert A.status_sync() == sp.BSR_STATUS_SUCCESS
    sp.bsr_compress(A)
    assert A.row_counts is None and A.nnz_sync() == 4


def test_errors_name_the_problem():
    A = sp.bsr_zeros(2, 2, wp.mat22)
    with pytest.raises(ValueError, match="BsrMatrix block type must be either warp matrix or scalar"):
        sp.bsr_zeros(2, 2, wp.vec3)
    with pytest.raises(TypeError, match="Rows and columns arrays must be of type int32"):
        sp.bsr_set_from_triplets(A, wp.array([0], dtype=wp.int64), wp.array([0], dtype=wp.int64))
    with pytest.raises(ValueError, match="Values array type must correspond"):
        sp.bsr_set_from_triplets(A, wp.array([0], dtype=int), wp.array([0], dtype=int), wp.array([1.0], dtype=float))
    with pytest.raises(ValueError, match="Unsupported topology policy: dense"):
        sp.bsr_set_zero(A, topology="dense")
    with pytest.raises(ValueError, match="Incompatible block sizes for matrix multiplication"):
        sp.bsr_mm(A, sp.bsr_zeros(2, 2, wp.mat33))
    with pytest.raises(ValueError, match="Incompatible 'x' vector for bsr_mv"):
        sp.bsr_mv(A, wp.zeros(3, dtype=wp.vec2))
    with pytest.raises(ValueError, match="Matrices must have the same number of rows and columns"):
        sp.bsr_axpy(A, sp.bsr_zeros(3, 2, wp.mat22))


def test_bsr_matrix_t_in_a_user_kernel():
    """A kernel taking bsr_matrix_t reads the fields and the lookup functions."""
    A, ref, _ = _system(wp.float32, (1, 1), seed=10, nrow=5, ncol=5)
    dense = ref.toarray()

    @wp.kernel(module="wpi_test_sparse_struct")
    def lookup(M: sp.bsr_matrix_t(wp.float32), out: wp.array2d(dtype=float)):
        i, j = wp.tid()
        k = sp.bsr_block_index(i, j, M.offsets, M.columns)
        if k >= 0:
            out[i, j] = M.values[k]
        else:
            out[i, j] = -99.0

    out = wp.zeros((5, 5), dtype=float)
    wp.launch(lookup, dim=(5, 5), inputs=[A, out])
    mask = _block_mask(A)
    np.testing.assert_allclose(out.numpy(), np.where(mask, dense, -99.0), rtol=1e-6)
