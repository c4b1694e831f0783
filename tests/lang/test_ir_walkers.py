"""The one IR walker and the one call-graph walker (lang/analysis/walk.py) against independent
references: every statement reached through any field that holds a block (found by looking at
the dataclass fields, not at a list of statement kinds), and reachability by brute force over
random graphs; the analyses built on them (dependencies, tiles, ModuleIR) against the same."""

import dataclasses

import pytest
from hypothesis import given, settings, strategies as st

import warp_interactive as wp
from warp_interactive.lang import ir, lower
from warp_interactive.lang.analysis.deps import function_deps
from warp_interactive.lang.analysis.walk import child_blocks, reach, reached_irs, statements


def _reference_statements(block):
    """Depth first, in field order, through every dataclass field holding an ir.Block."""
    out = []
    for s in block.stmts:
        out.append(s)
        for f in dataclasses.fields(s):
            b = getattr(s, f.name)
            if isinstance(b, ir.Block):
                out.extend(_reference_statements(b))
    return out


@wp.func
def wk_leaf(x: float):
    y = x
    n = int(0)
    while y > 1.0:          # a condition block of its own
        y = y * 0.5
        n += 1
    return y + float(n)


@wp.func
def wk_mid(x: float):
    if x > 0.0:
        return wk_leaf(x)
    return -wk_leaf(-x)


@wp.kernel
def wk_kernel(a: wp.array(dtype=float), n: int):
    i = wp.tid()
    s = float(0.0)
    for j in range(n):
        if j % 2 == 0:
            s += wk_mid(a[i] + float(j))
        else:
            k = int(j)
            while k > 0:
                k -= 3
                if k == 1:
                    break
            s -= float(k)
    a[i] = s


@wp.kernel
def wk_tiled(a: wp.array(dtype=float)):
    t = wp.tile_load(a, shape=4)
    wp.tile_store(a, t * 2.0)


@pytest.mark.parametrize("which", ["kernel", "callee", "callee of callee"])
def test_statements_visit_what_a_field_walk_visits(which):
    fir = wk_kernel.ir
    if which != "kernel":
        fir = fir.calls[0].ir
    if which == "callee of callee":
        fir = fir.calls[0].ir
    got, want = list(statements(fir.body)), _reference_statements(fir.body)
    assert [id(s) for s in got] == [id(s) for s in want]
    assert any(isinstance(s, ir.While) for s in got) or which == "callee"
    # a list of statements walks the same as its block
    assert [id(s) for s in statements(fir.body.stmts)] == [id(s) for s in got]


def test_child_blocks_are_in_program_order():
    loops = [s for s in statements(wk_kernel.ir.body) if isinstance(s, ir.While)]
    assert loops and all(child_blocks(w) == (w.cond_block, w.body) for w in loops)
    ifs = [s for s in statements(wk_kernel.ir.body) if isinstance(s, ir.If)]
    assert ifs and all(child_blocks(s)[0] is s.body for s in ifs)
    assert child_blocks(ir.Break()) == () and list(statements(None)) == []


@st.composite
def graphs(draw):
    n = draw(st.integers(1, 12))
    edges = {i: draw(st.lists(st.integers(0, n - 1), max_size=4)) for i in range(n)}
    roots = draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=3))
    return edges, roots


@settings(max_examples=200, deadline=None)
@given(graphs())
def test_reach_is_the_transitive_closure_once_each(g):
    edges, roots = g
    closure = set(roots)
    while True:     # brute force: add successors until nothing changes
        more = closure | {j for i in closure for j in edges[i]}
        if more == closure:
            break
        closure = more
    got = list(reach(roots, lambda i: edges[i], key=lambda i: i))
    assert sorted(got) == sorted(closure) and len(got) == len(set(got))
    assert got[0] == roots[-1]


@settings(max_examples=200, deadline=None)
@given(graphs(), st.sets(st.integers(0, 11), max_size=4))
def test_reach_neither_gives_nor_follows_nodes_already_seen(g, seen):
    edges, roots = g
    closure = {r for r in roots if r not in seen}
    while True:
        more = closure | {j for i in closure for j in edges[i] if j not in seen}
        if more == closure:
            break
        closure = more
    given_seen = set(seen)
    got = list(reach(roots, lambda i: edges[i], key=lambda i: i, seen=given_seen))
    assert sorted(got) == sorted(closure)
    assert given_seen == set(seen) | closure          # the caller's set records what was given


def test_function_deps_and_reached_irs_agree_with_the_calls():
    mid = wk_kernel.ir.calls[0]
    leaf = mid.ir.calls[0]
    assert set(function_deps([wk_kernel.ir])) == {mid.function, leaf.function}
    assert [id(f) for f in reached_irs(wk_kernel.ir)] == [id(wk_kernel.ir), id(mid.ir), id(leaf.ir)]


def test_uses_tiles_follows_the_walk():
    assert wk_tiled.uses_tiles and not wk_kernel.uses_tiles


def test_lower_reaches_every_function_once():
    mir = lower([wk_kernel, wk_tiled])
    mid = wk_kernel.ir.calls[0]
    assert set(mir.functions) == {mid.cpp, mid.ir.calls[0].cpp}
    assert set(mir.kernels) == {wk_kernel.cpp, wk_tiled.cpp}
