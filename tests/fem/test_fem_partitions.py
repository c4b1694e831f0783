"""Geometry and space partitions against brute force on a grid's lattice: which cells, frontier
and boundary sides a cell mask gives, which nodes a space partition holds and in what order
(nodes no frontier touches, then frontier nodes, each ascending; then the halo), and integrals
on a partition equal to the same integrals over the cells' subdomain, renumbered."""

import numpy as np
import pytest

import warp_interactive as wp
import warp_interactive.fem as fem

from tests.fem.test_fem_assembly import mass, to_scipy
from tests.fem.test_fem_quadratures import linear_f

NX, NY = 5, 4
MASK = np.zeros(NX * NY, dtype=np.int32)
MASK[[0, 1, 5, 6, 7, 12, 18, 19]] = 1          # cell (x, y) has index x * NY + y


def _cell_xy(c):
    return c // NY, c % NY


def _neighbours(c):
    x, y = _cell_xy(c)
    return [(x + dx) * NY + y + dy for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))
            if 0 <= x + dx < NX and 0 <= y + dy < NY]


def _q_nodes(c, k):
    """Global Q_k lattice nodes of cell c (node (a, b) has index a * (k NY + 1) + b)."""
    x, y = _cell_xy(c)
    return {(k * x + i) * (k * NY + 1) + k * y + j for i in range(k + 1) for j in range(k + 1)}


def _partition():
    geo = fem.Grid2D(res=wp.vec2i(NX, NY))
    return geo, fem.ExplicitGeometryPartition(geo, wp.array(MASK, dtype=int))


def test_a_cell_mask_gives_its_cells_and_frontier():
    geo, part = _partition()
    cells = np.nonzero(MASK)[0]
    assert part.cell_count() == len(cells)
    frontier = {tuple(sorted((c, n))) for c in cells for n in _neighbours(c) if not MASK[n]}
    assert part.frontier_side_count() == len(frontier)
    boundary = sum(4 - len(_neighbours(c)) for c in cells)
    assert part.boundary_side_count() == boundary
    interior = {tuple(sorted((c, n))) for c in cells for n in _neighbours(c) if MASK[n]}
    # a side is the partition's when its inner cell is: each frontier side counts once or not
    assert len(interior) + boundary <= part.side_count() <= len(interior) + boundary + len(frontier)
    domain = fem.Cells(geometry=part)
    assert domain.element_count() == len(cells) and domain.geometry is geo
    assert fem.integrate(linear_f, domain=domain) == pytest.approx(
        sum((1.0 + 2.0 * (x + 0.5) / NX - 3.0 * (y + 0.5) / NY) / (NX * NY) for x, y in map(_cell_xy, cells)),
        rel=1e-5)


@pytest.mark.parametrize("degree", [0, 1, 2])
@pytest.mark.parametrize("with_halo", [True, False])
def test_space_partition_nodes_and_their_order(degree, with_halo):
    geo, part = _partition()
    space = fem.make_polynomial_space(geo, degree=degree)
    sp = fem.make_space_partition(space_topology=space.topology, geometry_partition=part, with_halo=with_halo)
    cells = np.nonzero(MASK)[0]
    nodes = (lambda c: {c}) if degree == 0 else (lambda c: _q_nodes(c, degree))
    owned = set().union(*map(nodes, cells))
    # a frontier side sees every node of its two cells
    touched = set().union(*[nodes(c) | nodes(n) for c in cells for n in _neighbours(c) if not MASK[n]])
    indices = sp.space_node_indices().numpy().tolist()
    if not with_halo:
        assert indices == sorted(owned) and sp.interior_node_count() == len(owned)
        return
    interior, frontier = sorted(owned - touched), sorted(owned & touched)
    assert indices[:len(owned)] == interior + frontier
    assert (sp.interior_node_count(), sp.owned_node_count()) == (len(interior), len(owned))
    assert sorted(indices[len(owned):]) == sorted(touched - owned) and sp.node_count() == len(owned | touched)


def test_integrals_on_a_partition_are_the_subdomain_integrals_renumbered():
    geo, part = _partition()
    space = fem.make_polynomial_space(geo, degree=1)
    sp = fem.make_space_partition(space_topology=space.topology, geometry_partition=part)
    idx = sp.space_node_indices().numpy()
    sub = fem.Subdomain(fem.Cells(geo), element_mask=wp.array(MASK, dtype=int))
    full_m = to_scipy(fem.integrate(mass, fields={"u": fem.make_trial(space, domain=sub),
                                                  "v": fem.make_test(space, domain=sub)})).toarray()
    test, trial = fem.make_test(space, space_partition=sp), fem.make_trial(space, space_partition=sp)
    m = to_scipy(fem.integrate(mass, fields={"u": trial, "v": test})).toarray()
    assert m.shape == (sp.node_count(), sp.node_count())
    np.testing.assert_allclose(m, full_m[np.ix_(idx, idx)], rtol=1e-6, atol=1e-9)
    full_r = fem.integrate(_rhs, fields={"v": fem.make_test(space, domain=sub)}).numpy()
    r = fem.integrate(_rhs, fields={"v": test}).numpy()
    np.testing.assert_allclose(r, full_r[idx], rtol=1e-6, atol=1e-9)
    # a test field on the partition's cells numbers its nodes as the partition does
    assert fem.make_test(space, domain=fem.Cells(geometry=part)).space_partition.node_count() == sp.node_count()


@fem.integrand
def _rhs(s: fem.Sample, domain: fem.Domain, v: fem.Field):
    x = domain(s)
    return (1.0 + x[0] * x[1]) * v(s)


def test_linear_partition_splits_the_cells_in_runs():
    geo = fem.Grid2D(res=wp.vec2i(NX, NY))
    runs = [fem.LinearGeometryPartition(geo, r, 3).host_cell_indices().tolist() for r in range(3)]
    assert sum(runs, []) == list(range(NX * NY)) and [len(r) for r in runs] == [6, 7, 7]


def test_a_mask_of_the_wrong_length_is_refused():
    geo = fem.Grid2D(res=wp.vec2i(NX, NY))
    with pytest.raises(ValueError, match="the cell mask has 3 entries, the geometry 20 cells"):
        fem.ExplicitGeometryPartition(geo, wp.zeros(3, dtype=int))


def test_make_space_partition_takes_warp_lang_1_19_arguments():
    space = fem.make_polynomial_space(fem.Grid2D(wp.vec2i(2)), degree=1)
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'space_topology'"):
        fem.make_space_partition()
    with pytest.raises(TypeError, match="unexpected keyword argument 'space'"):
        fem.make_space_partition(space=space)
    assert fem.make_space_partition(space.topology).node_count() == space.node_count()
