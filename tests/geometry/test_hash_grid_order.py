"""The order ``wp.hash_grid_query`` yields points in, and ``wp.hash_grid_point_id``'s order, are
warp-lang's (so sums over neighbours round as they do there), checked against a brute-force
NumPy model of the rule observed from warp-lang 1.19:

- a coordinate's cell is floor(x * (1 / width)), multiplying by the inverse in the grid's
  precision (float64 grids in double, float32 grids in float32), wrapped into [0, dim);
- the cell key is (z * dim_y + y) * dim_x + x, and hash_grid_point_id lists the points by key,
  increasing ids within a cell;
- a query of radius r visits the cells floor((p - r) / w) .. floor((p + r) / w) per axis (at most
  dim of them) with x fastest, then y, then z, yielding each cell's points in that order.
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import warp_interactive as wp
from warp_interactive.geometry import hash_grid as hash_grid_module

MAX_OUT = 512


@wp.kernel
def _visit(grid: wp.uint64, queries: wp.array(dtype=wp.vec3), radius: float,
           out: wp.array2d(dtype=wp.int32), count: wp.array(dtype=wp.int32),
           order: wp.array(dtype=wp.int32)):
    t = wp.tid()
    if t < order.shape[0]:
        order[t] = wp.hash_grid_point_id(grid, t)
    if t < queries.shape[0]:
        k = int(0)
        for j in wp.hash_grid_query(grid, queries[t], radius):
            if k < out.shape[1]:
                out[t, k] = j
            k += 1
        count[t] = k


@wp.kernel
def _visit_d(grid: wp.uint64, queries: wp.array(dtype=wp.vec3d), radius: wp.float64,
             out: wp.array2d(dtype=wp.int32), count: wp.array(dtype=wp.int32),
             order: wp.array(dtype=wp.int32)):
    t = wp.tid()
    if t < order.shape[0]:
        order[t] = wp.hash_grid_point_id(grid, t)
    if t < queries.shape[0]:
        k = int(0)
        for j in wp.hash_grid_query(grid, queries[t], radius):
            if k < out.shape[1]:
                out[t, k] = j
            k += 1
        count[t] = k


def _cells(x, width, ft):
    """Unwrapped cell coordinates, as the rule bins them."""
    x = np.asarray(x, ft)
    return np.floor(x * (ft(1.0) / ft(width))).astype(np.int64)


def reference(points, queries, dims, width, radius, ft):
    """(hash_grid_point_id order, one neighbour sequence per query) by the rule above."""
    dims = np.array(dims)
    w = _cells(points, width, ft) % dims
    key = (w[:, 2] * dims[1] + w[:, 1]) * dims[0] + w[:, 0]
    order = np.argsort(key, kind="stable")
    by_cell = {}
    for i in order:
        by_cell.setdefault(int(key[i]), []).append(int(i))
    seqs = []
    for q in np.asarray(queries, ft):
        lo = _cells(q - ft(radius), width, ft)
        hi = np.minimum(_cells(q + ft(radius), width, ft), lo + dims - 1)
        seq = []
        for z in range(lo[2], hi[2] + 1):
            for y in range(lo[1], hi[1] + 1):
                for x in range(lo[0], hi[0] + 1):
                    cx, cy, cz = x % dims[0], y % dims[1], z % dims[2]
                    seq += by_cell.get(int((cz * dims[1] + cy) * dims[0] + cx), [])
        seqs.append(seq)
    return order, seqs


def ours(points, queries, dims, width, radius, dtype=wp.float32):
    vec, kernel = (wp.vec3d, _visit_d) if dtype is wp.float64 else (wp.vec3, _visit)
    grid = wp.HashGrid(*dims, device="cpu", dtype=dtype)
    grid.build(wp.array(points, dtype=vec, device="cpu"), width)
    out = wp.full((len(queries), MAX_OUT), -1, dtype=wp.int32, device="cpu")
    count = wp.zeros(len(queries), dtype=wp.int32, device="cpu")
    order = wp.zeros(len(points), dtype=wp.int32, device="cpu")
    wp.launch(kernel, max(len(points), len(queries)), device="cpu",
              inputs=[grid.id, wp.array(queries, dtype=vec, device="cpu"), radius, out, count, order])
    out, count = out.numpy(), count.numpy()
    return order.numpy(), [list(out[t, :count[t]]) for t in range(len(queries))]


def check(points, queries, dims, width, radius, dtype=wp.float32):
    ft = np.float64 if dtype is wp.float64 else np.float32
    want_order, want = reference(points, queries, dims, width, radius, ft)
    got_order, got = ours(points, queries, dims, width, radius, dtype)
    assert list(got_order) == list(want_order)
    assert max(len(s) for s in want) <= MAX_OUT
    for t, (g, w) in enumerate(zip(got, want)):
        assert g == w, f"query {t} at {queries[t]}"


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2 ** 31 - 1), n=st.integers(1, 300),
       dims=st.tuples(st.integers(1, 9), st.integers(1, 9), st.integers(1, 9)),
       width=st.sampled_from([0.05, 0.3, 0.7, 1.0, 1.3, 2.5]),
       radius_cells=st.floats(0.1, 4.0), spread=st.floats(0.5, 30.0))
def test_query_order_matches_the_rule_on_random_points(seed, n, dims, width, radius_cells, spread):
    rng = np.random.default_rng(seed)
    points = ((rng.random((n, 3)) - 0.3) * spread).astype(np.float32)
    queries = np.concatenate([points[:8], ((rng.random((8, 3)) - 0.3) * spread)]).astype(np.float32)
    check(points, queries, dims, width, np.float32(width * radius_cells))


BOUNDARY_WIDTHS = [0.1, 0.3, 1.1, 1e-3]


def _boundary_points(width, ft):
    """Multiples of the width, and one ulp either side of each."""
    x = np.arange(-30, 30).astype(ft) * ft(width)
    xs = np.concatenate([x, np.nextafter(x, ft(np.inf)), np.nextafter(x, ft(-np.inf))])
    return np.stack([xs, np.roll(xs, 7), np.roll(xs, 19)], 1)


@pytest.mark.parametrize("dtype", [wp.float32, wp.float64], ids=["float32", "float64"])
def test_boundary_points_tell_multiplying_from_dividing(dtype):
    """The boundary cases below have teeth: there floor(x * (1/w)) and floor(x / w) disagree."""
    ft = np.float64 if dtype is wp.float64 else np.float32
    differ = [(np.floor(p * (ft(1) / ft(w))) != np.floor(p / ft(w))).sum()
              for w in BOUNDARY_WIDTHS for p in [_boundary_points(w, ft)]]
    assert sum(differ) > 10, differ


@pytest.mark.parametrize("dtype", [wp.float32, wp.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("width", BOUNDARY_WIDTHS)
def test_points_on_cell_boundaries_bin_by_the_inverse_width(dtype, width):
    """A point on a cell boundary goes where floor(x * (1/w)) puts it, in the grid's precision."""
    ft = np.float64 if dtype is wp.float64 else np.float32
    points = _boundary_points(width, ft)
    check(points, points[::11], (5, 7, 3), width, ft(2 * width), dtype)


@pytest.mark.parametrize("dims", [(1, 1, 1), (2, 3, 1), (64, 1, 1)])
def test_a_radius_wider_than_the_grid_visits_each_cell_once(dims):
    rng = np.random.default_rng(3)
    points = (rng.random((120, 3)) * 6 - 3).astype(np.float32)
    want_order, want = reference(points, points[:5], dims, 0.5, 50.0, np.float32)
    assert all(sorted(s) == list(range(120)) for s in want)
    check(points, points[:5], dims, 0.5, 50.0)


def test_the_numpy_sort_for_huge_axes_gives_the_same_order(monkeypatch):
    """Axes too long for the native sort's float coordinates sort in NumPy, in the same order."""
    rng = np.random.default_rng(4)
    points = ((rng.random((200, 3)) - 0.5) * 12).astype(np.float32)
    monkeypatch.setattr(hash_grid_module, "NATIVE_AXIS_LIMIT", 4)
    check(points, points[:12], (6, 5, 3), 0.8, 1.3)


def test_nan_and_far_points_bin_where_queries_look_for_them():
    points = np.array([[np.nan, 0.5, 0.5], [1e30, -1e30, 0.0], [0.5, 0.5, 0.5], [-1e30, 2.0, np.inf]],
                      np.float32)
    queries = np.array([[0.5, 0.5, 0.5], [1.5, 0.5, 0.5], [2.5, 2.5, 0.5]], np.float32)
    order, seqs = ours(points, queries, (3, 4, 4), 1.0, 0.2)
    assert list(order) == [0, 2, 1, 3]
    # NaN coordinates bin into cell 0; far ones clamp to +-1e9 cells before wrapping
    # (1e9 % 3 == 1, -1e9 % 3 == 2, +-1e9 % 4 == 0), as the queries bin them
    assert seqs == [[0, 2], [1], [3]]


@pytest.mark.parametrize("dtype", [wp.float32, wp.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("base", [2.0 ** 24 - 24, -(2.0 ** 24) + 8, 2.0 ** 24 + 16, -3.0e6],
                         ids=["below-2^24", "above--2^24", "past-2^24", "negative"])
def test_cells_near_the_float32_exact_limit_wrap_as_the_rule_says(dtype, base):
    """Cells are wrapped by the native sort while float32 holds them exactly (|cell| < 2**24)
    and by NumPy past that: both put large and negative cells where the queries look."""
    ft = np.float64 if dtype is wp.float64 else np.float32
    rng = np.random.default_rng(5)
    steps = rng.integers(0, 40, (60, 3)).astype(np.float64)
    points = (base + 2.0 * steps).astype(ft)
    check(points, points[::7], (7, 5, 3), 1.0, ft(2.5), dtype)
