"""``fem.AdaptiveNanogrid`` (cells of several sizes) against brute force on the finest voxel
lattice: the cells tile the union of the input levels, interior side area equals the area of
the fine-voxel faces between different cells, boundary sides satisfy the divergence theorem,
each side's two cells touch it, a linear field is reproduced exactly across T-junctions (no
jumps on any side), and grading keeps face neighbours within one level."""

import numpy as np
import pytest

import warp_interactive as wp
import warp_interactive.fem as fem

from tests.fem.test_fem_nanogrid import jump_squared, x_dot_n

H = 0.25


def hierarchy(grading=None):
    """Level 0: a 4^3 block of fine voxels; level 1: a 4 x 2 x 2 block of coarse voxels without
    the 2^3 corner the fine block covers, plus one level-2 cell beside it."""
    fine = np.stack(np.meshgrid(*[np.arange(4)] * 3, indexing="ij"), -1).reshape(-1, 3)
    coarse = np.stack(np.meshgrid(np.arange(4), np.arange(2), np.arange(2), indexing="ij"), -1).reshape(-1, 3)
    coarse = coarse[~np.all(coarse < 2, axis=1)]
    coarsest = np.array([[0, 0, 1]])
    vols = [wp.Volume.allocate_by_voxels(wp.array(v.astype(np.int32), dtype=wp.vec3i), voxel_size=H * 2 ** l)
            for l, v in enumerate((fine, coarse, coarsest))]
    covered = set()
    for l, v in enumerate((fine, coarse, coarsest)):
        for c in v.tolist():
            for d in np.stack(np.meshgrid(*[np.arange(2 ** l)] * 3, indexing="ij"), -1).reshape(-1, 3).tolist():
                covered.add(tuple(np.array(c) * 2 ** l + d))
    return fem.adaptive_nanogrid_from_hierarchy(vols, grading=grading), covered


def cell_voxels(geo):
    cells = geo.cell_grid.get_voxels().numpy().reshape(-1, 3)
    levels = geo.cell_level.numpy()
    owner = {}
    for c, (ijk, l) in enumerate(zip(cells.tolist(), levels.tolist())):
        for d in np.stack(np.meshgrid(*[np.arange(2 ** l)] * 3, indexing="ij"), -1).reshape(-1, 3).tolist():
            key = tuple(np.array(ijk) + d)
            assert key not in owner
            owner[key] = c
    return owner


@fem.integrand
def one(s: fem.Sample):
    return 1.0


@fem.integrand
def linear(s: fem.Sample, domain: fem.Domain):
    x = fem.position(domain, s)
    return 1.0 + x[0] - 2.0 * x[1] + 3.0 * x[2]


@fem.integrand
def linear_error(s: fem.Sample, domain: fem.Domain, u: fem.Field):
    e = u(s) - linear(s, domain)
    return e * e


@pytest.mark.parametrize("grading", [None, "face"])
def test_cells_tile_the_levels_and_sides_match_the_fine_lattice(grading):
    geo, covered = hierarchy(grading)
    owner = cell_voxels(geo)
    assert set(owner) == covered
    volume = len(covered) * H ** 3
    assert float(fem.integrate(one, domain=fem.Cells(geo))) == pytest.approx(volume, rel=1e-5)
    # interior area: fine faces between voxels of different cells; boundary: faces of covered voxels with no neighbour
    interior = boundary = 0
    for v in covered:
        for a in range(3):
            for d in (-1, 1):
                n = list(v)
                n[a] += d
                n = tuple(n)
                if n not in covered:
                    boundary += 1
                elif d == 1 and owner[n] != owner[v]:
                    interior += 1
    sides = fem.Sides(geo)
    total = float(fem.integrate(one, domain=sides))
    bd = float(fem.integrate(one, domain=fem.BoundarySides(geo)))
    assert bd == pytest.approx(boundary * H * H, rel=1e-5)
    assert total - bd == pytest.approx(interior * H * H, rel=1e-5)
    assert float(fem.integrate(x_dot_n, domain=fem.BoundarySides(geo))) == pytest.approx(3.0 * volume, rel=1e-5)
    if grading == "face":
        levels = geo.cell_level.numpy()
        for v, c in owner.items():
            for a in range(3):
                n = list(v)
                n[a] += 1
                if tuple(n) in owner:
                    assert abs(int(levels[c]) - int(levels[owner[tuple(n)]])) <= 1


@pytest.mark.parametrize("degree", [1, 2])
def test_linear_field_is_continuous_across_t_junctions(degree):
    geo, _covered = hierarchy()
    assert len(set(geo.cell_level.numpy().tolist())) == 3
    space = fem.make_polynomial_space(geo, degree=degree)
    u = space.make_field()
    fem.interpolate(linear, dest=u)
    q = fem.RegularQuadrature(fem.Cells(geo), order=2 * degree + 1)
    assert float(fem.integrate(linear_error, quadrature=q, fields={"u": u})) < 1e-10
    assert float(fem.integrate(jump_squared, domain=fem.Sides(geo), fields={"u": u})) < 1e-10
    x = space.node_positions().numpy().astype(np.float64)
    np.testing.assert_allclose(u.dof_values.numpy(), 1.0 + x[:, 0] - 2.0 * x[:, 1] + 3.0 * x[:, 2], atol=1e-5)


@wp.func
def distance_refinement(x: wp.vec3):
    return wp.length(x - wp.vec3(0.3, 0.2, 0.1)) * 0.6 - 0.1


def test_from_field_refines_near_small_values_and_carves_negative_ones():
    base = np.stack(np.meshgrid(np.arange(4), np.arange(3), np.arange(2), indexing="ij"), -1).reshape(-1, 3)
    vol = wp.Volume.allocate_by_voxels(wp.array(base.astype(np.int32), dtype=wp.vec3i), voxel_size=0.5,
                                       translation=wp.vec3(0.25))
    field = fem.ImplicitField(domain=fem.Cells(fem.Nanogrid(vol)), func=distance_refinement)
    geo = fem.adaptive_nanogrid_from_field(vol, 3, refinement_field=field, grading="face")
    levels = geo.cell_level.numpy()
    assert set(levels.tolist()) <= {0, 1, 2} and 0 in levels.tolist()
    centers = fem.make_polynomial_space(geo, degree=0).node_positions().numpy()
    d = np.linalg.norm(centers - np.array([0.3, 0.2, 0.1]), axis=1)
    # the finest cells are the ones near the point, the coarsest far from it
    assert d[levels == 0].max() < d[levels == 2].min()
    # the field is negative within 1/6 of the point: fine cells all inside that ball are carved out
    assert d.min() > 0.05
    owner = cell_voxels(geo)
    assert float(fem.integrate(one, domain=fem.Cells(geo))) == pytest.approx(len(owner) * 0.125 ** 3, rel=1e-5)
