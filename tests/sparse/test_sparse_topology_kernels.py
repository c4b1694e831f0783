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


def _sequential_sums(nrow, ncol, rows, cols, vals):
    """Per (row, column) inside the matrix: its values summed in input order, sorted by key."""
    sums = {}
    for r, c, v in zip(rows, cols, vals):
        if 0 <= r < nrow and 0 <= c < ncol:
            sums[(r, c)] = sums[(r, c)] + v if (r, c) in sums else v
    keys = sorted(sums)
    return keys, np.array([sums[k] for k in keys])


@pytest.mark.parametrize("requires_grad", [False, True], ids=["values_carried", "taped_gather"])
@pytest.mark.parametrize("nrow,row_length", [(700, 3), (600, 20), (3, 400)])
def test_triplets_both_assembly_ways_sum_in_input_order(requires_grad, nrow, row_length):
    """Without a gradient the values travel with the sorted entries; with one, a taped gather
    sums them: the same topology and bits either way, over many rows (several CPU chunks of
    rows and of entries), rows of 17-32 entries and heapsorted rows, duplicates and triplets
    outside the matrix (dropped)."""
    rng = np.random.default_rng(nrow + row_length)
    ncol = 50
    rows, cols, vals = random_triplets(rng, nrow, ncol, nrow * row_length, (1, 1), wp.float64, out_of_range=40)
    vals = vals.reshape(-1)
    values = wp.array(vals, dtype=wp.float64, requires_grad=requires_grad)
    A = sp.bsr_from_triplets(nrow, ncol, wp.array(rows, dtype=int), wp.array(cols, dtype=int), values,
                             prune_numerical_zeros=False)
    keys, want = _sequential_sums(nrow, ncol, rows, cols, vals)
    nnz = A.nnz_sync()
    assert nnz == len(keys)
    np.testing.assert_array_equal(A.offsets.numpy(), np.searchsorted([k[0] for k in keys], np.arange(nrow + 1)))
    np.testing.assert_array_equal(A.columns.numpy()[:nnz], [k[1] for k in keys])
    np.testing.assert_array_equal(A.values.numpy()[:nnz], want)


def test_triplets_work_arrays_reused_across_sizes_and_tapes():
    """Assemblies reuse work arrays between calls: a large assembly, then a smaller one, then the
    large one again give SciPy's matrices; a taped assembly keeps its gradient right when other
    assemblies run between its forward and backward passes."""
    rng = np.random.default_rng(7)
    cases = [(300, 40, 5000), (20, 10, 60), (300, 40, 5000)]
    for nrow, ncol, count in cases:
        rows, cols, vals = random_triplets(rng, nrow, ncol, count, (2, 2), wp.float32)
        A = from_triplets(nrow, ncol, rows, cols, vals, wp.float32, (2, 2))
        assert_matches(A, scipy_from_triplets(nrow, ncol, rows, cols, vals, (2, 2)), wp.float32)
    rows, cols, vals = random_triplets(rng, 30, 30, 400, (1, 1), wp.float64)
    values = wp.array(vals.reshape(-1), dtype=wp.float64, requires_grad=True)
    weights = rng.standard_normal(400)
    tape = wp.Tape()
    with tape:
        A = sp.bsr_from_triplets(30, 30, wp.array(rows, dtype=int), wp.array(cols, dtype=int), values)
    for nrow, ncol, count in cases:     # other assemblies overwrite the work arrays meanwhile
        other = random_triplets(rng, nrow, ncol, count, (1, 1), wp.float64)
        from_triplets(nrow, ncol, *other, wp.float64, (1, 1))
    nnz = A.nnz_sync()
    keys, _ = _sequential_sums(30, 30, rows, cols, vals.reshape(-1))
    block_of = {k: b for b, k in enumerate(keys)}
    block_grad = rng.standard_normal(A.values.shape[0])     # storage past nnz: no block's
    A.values.grad = wp.array(block_grad, dtype=wp.float64)
    tape.backward()
    want = np.array([block_grad[block_of[(r, c)]] for r, c in zip(rows, cols)])
    np.testing.assert_array_equal(values.grad.numpy(), want)


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
