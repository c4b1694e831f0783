"""``fem.Nanogrid(volume, rebuildable=True)`` rebuilt in place from new points: after each
rebuild the cells, vertices, faces, boundary faces and edges equal the brute-force ones of the
new voxel set, spaces made before the rebuild (``topology.rebuild()``) number and place their
nodes as spaces made on a fresh grid of the same voxels, and integrals agree."""

import numpy as np
import pytest

import warp_interactive as wp
import warp_interactive.fem as fem

from tests.fem.test_fem_nanogrid import brute_topology

VOXEL, ORIGIN = 0.5, (0.1, -0.2, 0.3)
RNG = np.random.default_rng(17)


def _voxels_of(points):
    return {tuple(r) for r in np.floor((points - ORIGIN) / VOXEL + 0.5).astype(np.int64).tolist()}


def _points(n, spread, shift=0.0):
    return (RNG.uniform(-spread, spread, (n, 3)) + shift).astype(np.float32)


@fem.integrand
def _moment(s: fem.Sample, domain: fem.Domain, u: fem.Field):
    x = domain(s)
    return (1.0 + x[0] * x[1] - x[2]) * u(s)


def _fresh(points):
    vol = wp.Volume.allocate_by_voxels(wp.array(points, dtype=wp.vec3), voxel_size=VOXEL, translation=ORIGIN)
    return fem.Nanogrid(vol)


@pytest.mark.parametrize("degree", [1, 2])
def test_rebuilt_grid_equals_a_fresh_grid_of_the_new_voxels(degree):
    first = _points(300, 3.0)
    vol = wp.Volume.allocate_by_voxels(wp.array(first, dtype=wp.vec3), voxel_size=VOXEL, translation=ORIGIN,
                                       rebuildable=True, max_active_voxels=2000)
    grid = fem.Nanogrid(vol, rebuildable=True)
    basis = fem.make_polynomial_basis_space(grid, degree=degree)
    space = fem.make_collocated_function_space(basis, dtype=float)
    status = wp.zeros(1, dtype=wp.uint32)
    for points in (_points(500, 4.0, 1.0), _points(120, 2.0, -3.0)):
        assert grid.rebuild(wp.array(points, dtype=wp.vec3), status=status) is status
        assert status.numpy()[0] == 0
        basis.topology.rebuild()
        cells = np.array(sorted(_voxels_of(points)))
        verts, faces, boundary, edges = brute_topology(cells)
        assert {tuple(r) for r in grid.cell_ijk.numpy().tolist()} == set(map(tuple, cells.tolist()))
        assert (grid.cell_count(), grid.vertex_count(), grid.side_count(), grid.boundary_side_count(),
                grid.edge_count()) == (len(cells), len(verts), len(faces), len(boundary), len(edges))
        fresh_space = fem.make_polynomial_space(_fresh(points), degree=degree)
        assert space.node_count() == fresh_space.node_count()
        np.testing.assert_allclose(space.node_positions().numpy(), fresh_space.node_positions().numpy(), atol=1e-6)
        got = fem.integrate(_moment, fields={"u": fem.make_test(space)}).numpy()
        want = fem.integrate(_moment, fields={"u": fem.make_test(fresh_space)}).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)


def test_a_grid_over_capacity_reports_it():
    vol = wp.Volume.allocate_by_voxels(wp.array(_points(50, 2.0), dtype=wp.vec3), voxel_size=VOXEL,
                                       translation=ORIGIN, rebuildable=True)
    grid = fem.Nanogrid(vol, rebuildable=True)
    status = wp.zeros(1, dtype=wp.uint32)
    with pytest.raises(ValueError, match="at least one active cell"):
        grid.rebuild(wp.array(_points(400, 40.0), dtype=wp.vec3), status=status)
    assert status.numpy()[0] & wp.Volume.REBUILD_VOXEL_CAPACITY_EXCEEDED


@pytest.mark.parametrize("make, message", [
    (lambda v: fem.Nanogrid(v, rebuildable=True), "Rebuildable Nanogrids require a rebuildable Volume"),
    (lambda v: fem.Nanogrid(v).rebuild(wp.array(_points(5, 1.0), dtype=wp.vec3)),
     "not constructed in rebuildable mode"),
])
def test_rebuild_errors(make, message):
    vol = wp.Volume.allocate_by_voxels(wp.array(_points(20, 1.0), dtype=wp.vec3), voxel_size=VOXEL)
    with pytest.raises(RuntimeError, match=message):
        make(vol)
