"""Grid3D sides oriented as warp-lang's: on the faces at lattice index 0 along their normal the
first side coordinate runs against axis+1 (so the normal, -axis there, is the cross product of
the two tangents); elsewhere both run along axes +1 and +2. Checked against hand-derived
positions, tangents, normals and inner/outer cell coordinates for the lower, interior and
upper faces of each axis, and through the spaces' side node maps: Q2 and Nedelec dofs
interpolated on the sides equal those interpolated on the cells."""

import numpy as np
import pytest

import warp_interactive as wp
import warp_interactive.fem as fem
from warp_interactive.fem.geometry import grid3d as g3

RES = np.array([2, 3, 2])
LO = np.array([-1.0, 0.0, 0.5])
HI = np.array([1.0, 1.5, 2.5])
SIZE = (HI - LO) / RES            # (1, 0.5, 1)
UV = (0.25, 0.75)                 # the side coordinates probed


@wp.kernel
def side_frames(arg: g3.Grid3DSideArg, side: int, uv: wp.vec3, out: wp.array(dtype=wp.vec3),
                cells: wp.array(dtype=int)):
    s = fem.make_free_sample(side, uv)
    out[0] = g3.grid3d_side_position(arg, s)
    out[1] = g3.grid3d_side_normal(arg, s)
    F = g3.grid3d_side_deformation_gradient(arg, s)
    out[2] = wp.vec3(F[0, 0], F[1, 0], F[2, 0])
    out[3] = wp.vec3(F[0, 1], F[1, 1], F[2, 1])
    out[4] = g3.grid3d_side_inner_cell_coords(arg, side, uv)
    out[5] = g3.grid3d_side_outer_cell_coords(arg, side, uv)
    cells[0] = g3.grid3d_side_inner_cell_index(arg, side)
    cells[1] = g3.grid3d_side_outer_cell_index(arg, side)


def _side_index(axis, i, j, k):
    counts = [(RES[a] + 1) * RES[(a + 1) % 3] * RES[(a + 2) % 3] for a in range(3)]
    return int(sum(counts[:axis]) + (i * RES[(axis + 1) % 3] + j) * RES[(axis + 2) % 3] + k)


def _cell(xyz):
    return int((xyz[0] * RES[1] + xyz[1]) * RES[2] + xyz[2])


@pytest.mark.parametrize("axis", [0, 1, 2])
@pytest.mark.parametrize("where", ["lower", "interior", "upper"])
def test_side_frames_match_hand_derived_values(axis, where):
    a1, a2 = (axis + 1) % 3, (axis + 2) % 3
    i = {"lower": 0, "interior": 1, "upper": int(RES[axis])}[where]
    j, k = RES[a1] - 1, 1 % RES[a2]
    geo = fem.Grid3D(wp.vec3i(*RES.tolist()), bounds_lo=wp.vec3(*LO), bounds_hi=wp.vec3(*HI))
    out, cells = wp.zeros(6, dtype=wp.vec3), wp.zeros(2, dtype=int)
    wp.launch(side_frames, dim=1, inputs=[geo.side_arg_value(), _side_index(axis, i, j, k), wp.vec3(UV[0], UV[1], 0.0),
                                         out, cells])
    pos, normal, t1, t2, inner_cc, outer_cc = out.numpy().astype(np.float64)
    flip = i == 0
    u = 1.0 - UV[0] if flip else UV[0]          # the cell coordinate along axis+1
    e = np.eye(3)

    want_pos = LO.copy()
    want_pos[axis] += i * SIZE[axis]
    want_pos[a1] += (j + u) * SIZE[a1]
    want_pos[a2] += (k + UV[1]) * SIZE[a2]
    np.testing.assert_allclose(pos, want_pos, atol=1e-6)
    np.testing.assert_allclose(normal, -e[axis] if flip else e[axis], atol=0)
    np.testing.assert_allclose(t1, (-1.0 if flip else 1.0) * SIZE[a1] * e[a1], atol=1e-7)
    np.testing.assert_allclose(t2, SIZE[a2] * e[a2], atol=1e-7)
    np.testing.assert_allclose(np.cross(t1, t2) / (SIZE[a1] * SIZE[a2]), normal, atol=1e-7)

    inner_xyz, outer_xyz = np.zeros(3, int), np.zeros(3, int)
    inner_xyz[axis], outer_xyz[axis] = max(i - 1, 0), min(i, RES[axis] - 1)
    inner_xyz[a1] = outer_xyz[a1] = j
    inner_xyz[a2] = outer_xyz[a2] = k
    assert tuple(cells.numpy()) == (_cell(inner_xyz), _cell(outer_xyz))
    for cc, xyz in ((inner_cc, inner_xyz), (outer_cc, outer_xyz)):
        want = np.zeros(3)
        want[axis] = i - xyz[axis]
        want[a1], want[a2] = u, UV[1]
        np.testing.assert_allclose(cc, want, atol=1e-7)
        # the cell coordinates name the side's point
        np.testing.assert_allclose(LO + (xyz + cc) * SIZE, want_pos, atol=1e-6)


@wp.func
def _g(x: wp.vec3):
    return wp.vec3(1.0 + x[0] * x[1], x[2] - 2.0 * x[0], x[1] * x[1] + 0.5)


@fem.integrand
def scalar_g(s: fem.Sample, domain: fem.Domain):
    return _g(domain(s))[0]


@fem.integrand
def vector_g(s: fem.Sample, domain: fem.Domain):
    return _g(domain(s))


@pytest.mark.parametrize("space_kind", ["Q2", "N1"])
def test_side_nodes_sit_where_their_cell_nodes_do(space_kind):
    """Interpolating onto the sides (side node coordinates, mapped to cell nodes) writes the
    dofs interpolating onto the cells writes: a side node put on the wrong cell node would
    take the function's value at another point."""
    geo = fem.Grid3D(wp.vec3i(*RES.tolist()), bounds_lo=wp.vec3(*LO), bounds_hi=wp.vec3(*HI))
    if space_kind == "Q2":
        space, func = fem.make_polynomial_space(geo, degree=2), scalar_g
    else:
        space = fem.make_polynomial_space(geo, degree=1, element_basis=fem.ElementBasis.NEDELEC_FIRST_KIND,
                                          dtype=wp.vec3)
        func = vector_g
    on_cells, on_sides = space.make_field(), space.make_field()
    fem.interpolate(func, dest=on_cells)
    unset = 1.0e6
    on_sides.dof_values.fill_(unset)
    fem.interpolate(func, dest=on_sides, at=fem.Sides(geo))
    want, got = on_cells.dof_values.numpy(), on_sides.dof_values.numpy()
    written = got != unset
    # Q2: every node but the cell centres lies on a side; N1: every edge does
    assert written.sum() == space.node_count() - (geo.cell_count() if space_kind == "Q2" else 0)
    assert np.ptp(want[written]) > 1.0
    np.testing.assert_allclose(got[written], want[written], rtol=1e-5, atol=1e-6)
