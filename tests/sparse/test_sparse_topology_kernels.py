"""The device-side topology of warp.sparse (sparse/segments.py): triplet assembly with long rows
(the heapsort path), duplicates summed in input order (bit for bit), and bsr_mm's three ways of
building a product (marker, merge, pairs) against SciPy and against each other."""

import numpy as np
import pytest

import warp_interactive as wp
import warp_interactive.sparse as sp
import warp_interactive.sparse.products as products
from sparse_ref import (assert_matches, assert_sorted_unique, block_type, from_triplets, np_dtype,
                        random_triplets, scipy_from_triplets, to_scipy)


@pytest.mark.parametrize("dtype", [wp.float32, wp.float64])
@pytest.mark.parametrize("row_length", [5, 33, 300])
def test_triplets_long_rows_sum_duplicates_in_input_order(dtype, row_length):
    """Rows of up to 300 triplets in random order with many duplicates: the same topology as
    SciPy, and each block the sequential sum of its duplicates in input order (exact bits)."""
    rng = np.random.default_rng(row_length)
    nrow, ncol = 4, 40
    count = nrow * row_length
    rows = rng.integers(0, nrow, count).astype(np.int32)
    cols = rng.integers(0, ncol, count).astype(np.int32)
    vals = rng.standard_normal(count).astype(np_dtype(dtype))
    A = from_triplets(nrow, ncol, rows, cols, vals, dtype, (1, 1), prune_numerical_zeros=False)
    assert_sorted_unique(A)
    ref = scipy_from_triplets(nrow, ncol, rows, cols, vals[:, None, None], (1, 1))
    ref.sort_indices()
    nnz = A.nnz_sync()
    np.testing.assert_array_equal(A.offsets.numpy(), ref.indptr)
    np.testing.assert_array_equal(A.columns.numpy()[:nnz], ref.indices)
    sums = {}
    for r, c, v in zip(rows, cols, vals):
        sums[(r, c)] = sums[(r, c)] + v if (r, c) in sums else v
    want = np.array([sums[k] for k in sorted(sums)], dtype=np_dtype(dtype))
    np.testing.assert_array_equal(A.values.numpy()[:nnz], want)


def test_triplets_pruned_zero_blocks_and_count():
    """Zero blocks are dropped (a block with one nonzero coefficient stays), and only the first
    ``count`` triplets are read."""
    mat = wp.types.matrix(shape=(2, 2), dtype=wp.float64)
    vals = np.zeros((5, 2, 2))
    vals[1, 1, 0] = 1e-300
    vals[3] = 2.0
    vals[4] = 5.0
    A = sp.bsr_zeros(3, 3, mat)
    sp.bsr_set_from_triplets(A, wp.array([0, 1, 2, 2, 0], dtype=int), wp.array([0, 1, 2, 0, 1], dtype=int),
                             wp.array(vals, dtype=mat), count=wp.array([4], dtype=int))
    nnz = A.nnz_sync()
    assert nnz == 2
    np.testing.assert_array_equal(A.columns.numpy()[:nnz], [1, 0])
    np.testing.assert_array_equal(A.values.numpy()[:nnz], vals[[1, 3]])


def _padded_unsorted(rng, dtype, shape, nrow, ncol):
    """A matrix whose rows hold unsorted columns, a duplicate and unused capacity (row_counts)."""
    B = sp.bsr_zeros(nrow, ncol, block_type(dtype, shape))
    offsets = np.arange(0, 4 * nrow + 1, 4, dtype=np.int32)
    B.offsets = wp.array(offsets, dtype=int)
    B.row_counts = wp.array(np.full(nrow, 3, dtype=np.int32), dtype=int)
    B.columns = wp.array(rng.integers(0, ncol, 4 * nrow).astype(np.int32), dtype=int)
    B.values = wp.array(rng.standard_normal((4 * nrow, *shape)).reshape(4 * nrow, *([] if shape == (1, 1) else shape))
                        .astype(np_dtype(dtype)), dtype=block_type(dtype, shape))
    B.nnz = 4 * nrow
    return B


@pytest.mark.parametrize("dtype", [wp.float32, wp.float64])
@pytest.mark.parametrize("shape", [(1, 1), (2, 2), (3, 1)])
def test_mm_ways_agree_bit_for_bit(monkeypatch, dtype, shape):
    """The marker, merge and pair products give SciPy's matrix, sorted rows, and the same bits
    (each block sums its products in the same order); an unsorted padded y (merge does not
    apply: pairs) too."""
    rng = np.random.default_rng(11)
    rows, cols, vals = random_triplets(rng, 9, 7, 40, shape, dtype, out_of_range=4)
    x = from_triplets(9, 7, rows, cols, vals, dtype, shape)
    y_shape = (shape[1], shape[0])
    rows, cols, vals = random_triplets(rng, 7, 8, 30, y_shape, dtype)
    y = from_triplets(7, 8, rows, cols, vals, dtype, y_shape)
    results = {}
    for way in ("marker", "merge", "pairs"):
        monkeypatch.setattr(products, "CPU_PRODUCT", way)
        z = sp.bsr_mm(x, y, alpha=0.5)
        assert_matches(z, 0.5 * (to_scipy(x) @ to_scipy(y)), dtype, scale=10)
        assert_sorted_unique(z)
        results[way] = (z.columns.numpy()[:z.nnz_sync()], z.values.numpy()[:z.nnz])
    for way in ("merge", "pairs"):
        np.testing.assert_array_equal(results[way][0], results["marker"][0])
        np.testing.assert_array_equal(results[way][1], results["marker"][1])
    yp = _padded_unsorted(rng, dtype, y_shape, 7, 8)
    for way in ("marker", "merge"):
        monkeypatch.setattr(products, "CPU_PRODUCT", way)
        z = sp.bsr_mm(x, yp)
        assert_matches(z, to_scipy(x) @ to_scipy(yp), dtype, scale=10)
        assert_sorted_unique(z)


@pytest.mark.parametrize("way", ["marker", "merge", "pairs"])
def test_mm_max_new_nnz_and_reuse(monkeypatch, capsys, way):
    """A product past max_new_nnz keeps its first blocks (with a warning); reuse_topology
    recomputes values on the kept topology."""
    monkeypatch.setattr(products, "CPU_PRODUCT", way)
    rng = np.random.default_rng(5)
    x = from_triplets(6, 6, *random_triplets(rng, 6, 6, 20, (1, 1), wp.float64), wp.float64, (1, 1))
    full = to_scipy(x) @ to_scipy(x)
    full.sort_indices()
    z = sp.bsr_mm(x, x, max_new_nnz=5)
    assert "max_new_nnz" in capsys.readouterr().out
    assert z.nnz_sync() == 5
    np.testing.assert_array_equal(z.columns.numpy()[:5], full.indices[:5])
    np.testing.assert_allclose(z.values.numpy()[:5], full.data[:5], rtol=1e-12)
    work = sp.bsr_mm_work_arrays()
    z = sp.bsr_mm(x, x, work_arrays=work)
    x.values.assign(2.0 * x.values.numpy())
    sp.bsr_mm(x, x, z, work_arrays=work, reuse_topology=True)
    assert_matches(z, 4.0 * full, wp.float64, scale=10)
    np.testing.assert_array_equal(z.columns.numpy()[:z.nnz_sync()], full.indices)
