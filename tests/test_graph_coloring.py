"""wp.utils graph colouring (assign / balance / get_groups) and wp.utils.create_warp_function.

References: brute-force checks of validity, exact chromatic numbers of small graphs, and for
balancing warp-lang 1.19's results on the same inputs (its documented test cases and runs of
warp-lang on this machine, recorded as the tables below)."""

import io
import contextlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import warp_interactive as wp

GCA = wp.utils.GraphColoringAlgorithm


def _edges(pairs):
    return wp.array(np.asarray(pairs, dtype=np.int32).reshape(-1, 2), dtype=wp.int32, device="cpu")


def _conflicts(pairs, colors):
    return sum(1 for a, b in pairs if a != b and colors[a] == colors[b])


def _balance(pairs, colors, count, target, max_iterations=None):
    c = wp.array(np.asarray(colors, dtype=np.int32), dtype=wp.int32, device="cpu")
    with contextlib.redirect_stderr(io.StringIO()) as err:
        ratio = wp.utils.graph_coloring_balance(_edges(pairs), c, count, target, max_iterations=max_iterations)
    return c.numpy().tolist(), ratio, err.getvalue()


# --- assignment -----------------------------------------------------------------------------------

CYCLE = lambda n: [(i, (i + 1) % n) for i in range(n)]   # noqa: E731


@pytest.mark.parametrize("algorithm", [GCA.MCS, GCA.GREEDY])
@pytest.mark.parametrize("pairs, nodes, chromatic", [
    ([(0, 1)], 2, 2),
    (CYCLE(3), 3, 3),
    (CYCLE(4), 4, 2),
    (CYCLE(6), 6, 2),
    ([(a, b) for a in range(5) for b in range(a + 1, 5)], 5, 5),    # complete graph K5
    ([(0, 3), (1, 3), (2, 3)], 5, 2),                               # a star and an isolated node
    (np.zeros((0, 2), int), 4, 1),                                   # no edges: one colour
])
def test_assign_small_graphs_use_their_chromatic_number(algorithm, pairs, nodes, chromatic):
    colors = wp.empty(nodes, dtype=wp.int32, device="cpu")
    count = wp.utils.graph_coloring_assign(_edges(pairs), colors, algorithm)
    c = colors.numpy()
    assert count == chromatic == c.max() + 1
    assert _conflicts(np.asarray(pairs).reshape(-1, 2).tolist(), c) == 0


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 40).flatmap(lambda n: st.tuples(
    st.just(n), st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=4 * n))))
def test_assign_is_a_valid_colouring(graph):
    n, pairs = graph
    for algorithm in (GCA.MCS, GCA.GREEDY):
        colors = wp.empty(n, dtype=wp.int32, device="cpu")
        count = wp.utils.graph_coloring_assign(_edges(pairs), colors, algorithm)
        c = colors.numpy()
        assert _conflicts(pairs, c) == 0
        assert count == c.max() + 1 and set(c.tolist()) == set(range(count))   # no colour unused
        degree = max([sum(1 for e in set(map(frozenset, pairs)) if v in e and len(e) == 2)
                      for v in range(n)] + [0])
        assert count <= degree + 1                                 # a greedy colouring's bound


# --- balancing: warp-lang's results on the same inputs -------------------------------------------

NO_EDGES = []
BALANCE_CASES = [
    # (edges, initial colours, colour count, target, max_iterations, colours, ratio, warns)
    ([(0, 2), (1, 2), (1, 4), (2, 3), (2, 5), (3, 4), (4, 5)], [1, 1, 0, 1, 2, 1], 3, 1.1, None,
     [1, 1, 0, 1, 2, 1], 4.0, False),
    ([(0, 1), (0, 2), (0, 3), (0, 4), (0, 6), (1, 6), (2, 5), (4, 6)], [0, 1, 1, 1, 1, 2, 2], 3, 1.1, 1,
     [0, 1, 1, 1, 1, 0, 2], 4.0, True),
    ([(0, 1), (0, 2), (0, 3), (0, 4), (0, 6), (1, 6), (2, 5), (4, 6)], [0, 1, 1, 1, 1, 2, 2], 3, 1.1, 2,
     [0, 1, 2, 1, 1, 0, 2], 1.5, False),
    ([(0, 1), (0, 2), (0, 3), (0, 4), (0, 6), (1, 6), (2, 5), (4, 6)], [0, 1, 1, 1, 1, 2, 2], 3, 1.1, 0,
     [0, 1, 1, 1, 1, 2, 2], 4.0, True),
    ([(0, 5), (1, 5), (2, 5), (4, 5), (0, 6), (1, 6), (2, 6), (4, 6), (5, 6)], [0, 0, 0, 1, 0, 2, 1], 3, 1.1, 3,
     [0, 0, 0, 2, 0, 2, 1], 4.0, True),                   # two colourings of equal ratio in turn
    (NO_EDGES, [0, 0, 0, 0, 0, 1], 2, 2.0, 1, [1, 0, 0, 0, 0, 1], 2.0, False),
    ([(1, 5), (2, 5), (3, 5), (4, 5), (5, 6)], [1, 1, 1, 1, 1, 0, 1], 2, 1.01, 1,
     [0, 1, 1, 1, 1, 0, 1], 2.5, False),
    (NO_EDGES, [0, 0, 0, 0, 1], 2, 4.0, 1, [0, 0, 0, 0, 1], 4.0, False),
    (NO_EDGES, [0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 2], 3, 1.1, None, [1, 0, 0, 0, 0, 0, 2, 1, 1, 2, 2], 1.6666666269302368, False),
    (NO_EDGES, [2, 2, 2, 2, 2, 2, 0, 1, 1], 3, 1.1, None, [0, 2, 2, 2, 2, 0, 0, 1, 1], 2.0, False),
    (NO_EDGES, [0] * 12 + [1], 2, 1.1, 4, [1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1], 1.600000023841858, True),
    (NO_EDGES, [0] * 10 + [1, 2], 3, 1.1, None, [1, 0, 0, 0, 0, 0, 1, 2, 1, 2, 1, 2], 1.6666666269302368, False),
    (NO_EDGES, [0] * 3 + [1] * 3 + [2] * 3 + [3] * 9, 4, 1.1, None,
     [0, 0, 0, 1, 1, 1, 2, 2, 2, 0, 3, 3, 3, 3, 3, 3, 2, 1], 1.5, False),
    (NO_EDGES, [0] * 4 + [1] * 6, 2, 1.1, None, [0] * 4 + [1] * 6, 1.5, False),   # two apart: stays
    (NO_EDGES, [0] + [1] * 100, 2, 1.1, None, None, 52 / 49, False),
]


@pytest.mark.parametrize("pairs, colors, count, target, iters, expect, ratio, warns", BALANCE_CASES)
def test_balance_matches_warp_lang(pairs, colors, count, target, iters, expect, ratio, warns):
    got, got_ratio, err = _balance(pairs, colors, count, target, iters)
    if expect is not None:
        assert got == expect
    else:
        assert sorted(np.bincount(got).tolist()) == [49, 52]
    assert got_ratio == pytest.approx(ratio, rel=1e-6)
    assert _conflicts(pairs, got) == 0
    if warns:
        assert f"reached the {iters}-iteration limit (achieved ratio {got_ratio:g}, target {target:g})" in err
    else:
        assert err == ""


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 30).flatmap(lambda n: st.tuples(
    st.just(n), st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=3 * n))))
def test_balance_keeps_the_colouring_valid_and_never_worsens(graph):
    n, pairs = graph
    colors = wp.empty(n, dtype=wp.int32, device="cpu")
    count = wp.utils.graph_coloring_assign(_edges(pairs), colors, GCA.GREEDY)
    before = np.bincount(colors.numpy(), minlength=count)
    got, ratio, _ = _balance(pairs, colors.numpy(), count, 1.1)
    after = np.bincount(got, minlength=count)
    assert _conflicts(pairs, got) == 0
    assert ratio == pytest.approx(after.max() / after.min(), rel=1e-6)
    assert ratio <= before.max() / before.min() + 1e-6


# --- groups ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("as_warp", [True, False])
def test_get_groups_lists_each_colours_nodes_in_order(as_warp):
    colors = wp.array([2, 0, 1, 0, 2, 2], dtype=wp.int32, device="cpu")
    groups = wp.utils.graph_coloring_get_groups(colors, 3, return_wp_array=as_warp)
    got = [g.numpy().tolist() if as_warp else g.tolist() for g in groups]
    assert got == [[1, 3], [2], [0, 4, 5]]
    assert all(isinstance(g, wp.array) == as_warp for g in groups)
    assert wp.utils.graph_coloring_get_groups(colors, 0) == ()


# --- errors (warp-lang's messages) ----------------------------------------------------------------

@pytest.mark.parametrize("edge", [(-1, 0), (0, -1), (2, 0), (0, 2)])
def test_out_of_range_edges_are_refused(edge):
    msg = f"Graph edge 0 has endpoints {edge}, but valid node indices are in the range [0, 2)."
    with pytest.raises(RuntimeError, match="^Graph coloring failed: " + msg.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")):
        wp.utils.graph_coloring_assign(_edges([edge]), wp.empty(2, dtype=wp.int32, device="cpu"))
    with pytest.raises(RuntimeError, match="Graph coloring balance failed: Graph edge 0"):
        wp.utils.graph_coloring_balance(_edges([edge]), wp.array([0, 1], dtype=wp.int32, device="cpu"), 2, 1.1)


@pytest.mark.parametrize("bad", [-(2**31), -1, 2, 2**31 - 1])
def test_out_of_range_colours_are_refused_and_left_alone(bad):
    colors = wp.array([0, bad], dtype=wp.int32, device="cpu")
    with pytest.raises(RuntimeError, match=rf"Node 1 has color {bad}, but valid colors are in the range \[0, 2\)\."):
        wp.utils.graph_coloring_balance(_edges([(0, 1)]), colors, 2, 1.1)
    assert colors.numpy().tolist() == [0, bad]


@pytest.mark.parametrize("iters, error", [(-1, ValueError), (2**31, ValueError), (True, TypeError),
                                          (1.5, TypeError), ("1", TypeError)])
def test_bad_iteration_limits_are_refused(iters, error):
    with pytest.raises(error, match="max_iterations"):
        _balance([(0, 1)], [0, 1], 2, 1.1, iters)


@pytest.mark.parametrize("edges, colors, message", [
    (wp.zeros((1, 2), dtype=wp.int64, device="cpu"), wp.zeros(2, dtype=wp.int32, device="cpu"),
     "edges array must have dtype int32, got int64"),
    (wp.zeros((1, 3), dtype=wp.int32, device="cpu"), wp.zeros(2, dtype=wp.int32, device="cpu"),
     r"edges array must have shape \(edge_count, 2\), got shape \(1, 3\)"),
    (wp.zeros(2, dtype=wp.int32, device="cpu"), wp.zeros(2, dtype=wp.int32, device="cpu"),
     "edges array must be 2-dimensional, got 1 dimensions"),
    (wp.zeros((1, 2), dtype=wp.int32, device="cpu"), wp.zeros((2, 1), dtype=wp.int32, device="cpu"),
     "node_colors array must be 1-dimensional, got 2 dimensions"),
    (wp.zeros((0, 2), dtype=wp.int32, device="cpu"), wp.zeros(0, dtype=wp.int32, device="cpu"),
     "Cannot color an empty graph"),
])
def test_assign_argument_errors(edges, colors, message):
    with pytest.raises(RuntimeError, match=message):
        wp.utils.graph_coloring_assign(edges, colors)


# --- create_warp_function ------------------------------------------------------------------------

def _scaled_sum(a, b):
    return a + 2.0 * b


@pytest.mark.parametrize("make, key, x, y, expect", [
    (lambda: _scaled_sum, "_scaled_sum", 1.0, 3.0, 7.0),
    (lambda: (lambda a, b: a * b - 1.0), None, 3.0, 4.0, 11.0),
])
def test_create_warp_function_is_callable_from_kernels(make, key, x, y, expect):
    fn, module = wp.utils.create_warp_function(make())
    assert isinstance(fn, wp.Function) and isinstance(module, wp.Module)
    if key is not None:
        assert fn.key == key and module.name == f"map_{key}"
    else:
        assert fn.key.startswith("func_") and len(fn.key) == 21

    @wp.kernel
    def apply(a: wp.array(dtype=float), b: wp.array(dtype=float), out: wp.array(dtype=float)):
        i = wp.tid()
        out[i] = fn(a[i], b[i])

    a = wp.array([x], dtype=float, device="cpu")
    b = wp.array([y], dtype=float, device="cpu")
    out = wp.zeros(1, dtype=float, device="cpu")
    wp.launch(apply, dim=1, inputs=[a, b, out], device="cpu")
    assert out.numpy()[0] == pytest.approx(expect)


def test_create_warp_function_refuses_non_functions():
    with pytest.raises(TypeError, match="expected a Python function"):
        wp.utils.create_warp_function(wp.sin)
