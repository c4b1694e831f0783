"""``fem.Grid3D``: a regular 3-D grid of box cells.

Cell ``(x, y, z)`` has index ``(x * res[1] + y) * res[2] + z``; element coordinates are the
position in the cell scaled to [0, 1]^3. Sides are the faces, grouped by the axis of their
normal (x, then y, then z); a face normal to axis ``a`` at lattice index ``i`` along it and
cell indices ``(j, k)`` along axes ``a + 1`` and ``a + 2`` (mod 3) has index
``offset[a] + (i * n[a+1] + j) * n[a+2] + k``. Its coordinates are the positions along those
two axes, the first one reversed on the faces at ``i = 0`` (``side_flipped``, as in warp-lang) so
that the normal is the cross product of the two tangents. Inner cell, outer cell and normal as
in Grid2D."""

from typing import Any

import numpy as np

from .. import _api as wp

from ..types import make_free_sample
from .geometry import Geometry
from .grid_lookup import grid_lookup_funcs


@wp.struct
class Grid3DCellArg:
    res: wp.vec3i
    cell_size: wp.vec3
    origin: wp.vec3


@wp.struct
class Grid3DSideArg:
    cell: Grid3DCellArg
    axis_offsets: wp.vec3i


@wp.func
def _cell_xyz(arg: Grid3DCellArg, cell: int):
    yz = arg.res[1] * arg.res[2]
    x = cell // yz
    r = cell - x * yz
    y = r // arg.res[2]
    return wp.vec3i(x, y, r - y * arg.res[2])


@wp.func
def grid3d_cell_position(arg: Grid3DCellArg, s: Any):
    xyz = _cell_xyz(arg, s.element_index)
    c = s.element_coords
    rel = wp.vec3(wp.real(xyz[0]) + c[0], wp.real(xyz[1]) + c[1], wp.real(xyz[2]) + c[2])
    return arg.origin + wp.cw_mul(rel, arg.cell_size)


@wp.func
def grid3d_cell_deformation_gradient(arg: Grid3DCellArg, s: Any):
    return wp.diag(arg.cell_size)


@wp.func
def grid3d_cell_inverse_deformation_gradient(arg: Grid3DCellArg, s: Any):
    return wp.diag(wp.cw_div(wp.vec3(1.0), arg.cell_size))


@wp.func
def grid3d_cell_measure(arg: Grid3DCellArg, s: Any):
    return arg.cell_size[0] * arg.cell_size[1] * arg.cell_size[2]


@wp.func
def grid3d_cell_normal(arg: Grid3DCellArg, s: Any):
    return wp.vec3(0.0)


@wp.func
def _grid3d_locate(arg: Grid3DCellArg, pos: wp.vec3):
    # outside the grid: its closest point (the position clamped to the bounds)
    rel = wp.cw_div(pos - arg.origin, arg.cell_size)
    r = wp.vec3(wp.clamp(rel[0], 0.0, wp.real(arg.res[0])), wp.clamp(rel[1], 0.0, wp.real(arg.res[1])),
                wp.clamp(rel[2], 0.0, wp.real(arg.res[2])))
    x = wp.min(int(wp.floor(r[0])), arg.res[0] - 1)
    y = wp.min(int(wp.floor(r[1])), arg.res[1] - 1)
    z = wp.min(int(wp.floor(r[2])), arg.res[2] - 1)
    c = wp.vec3(r[0] - wp.real(x), r[1] - wp.real(y), r[2] - wp.real(z))
    return make_free_sample((x * arg.res[1] + y) * arg.res[2] + z, c)


@wp.func
def _side_decode(arg: Grid3DSideArg, side: int):
    """(normal axis, lattice index along it, cell index along axis+1, along axis+2)"""
    axis = int(0)
    if side >= arg.axis_offsets[2]:
        axis = 2
    elif side >= arg.axis_offsets[1]:
        axis = 1
    r = side - arg.axis_offsets[axis]
    n2 = arg.cell.res[(axis + 2) % 3]
    n1 = arg.cell.res[(axis + 1) % 3]
    k = r % n2
    r = r // n2
    j = r % n1
    return wp.vec4i(axis, r // n1, j, k)


@wp.func
def _axis_cell(axis: int, i: int, j: int, k: int, arg: Grid3DCellArg):
    xyz = wp.vec3i(0)
    xyz[axis] = i
    xyz[(axis + 1) % 3] = j
    xyz[(axis + 2) % 3] = k
    return (xyz[0] * arg.res[1] + xyz[1]) * arg.res[2] + xyz[2]


@wp.func
def side_flipped(d: wp.vec4i):
    """Whether the side's first coordinate runs against axis+1 (warp-lang's orientation: the
    sides at lattice index 0 along their normal), so that the normal is the cross product of
    the side's two tangents."""
    return d[1] == 0


@wp.func
def _first_coord(d: wp.vec4i, t: Any):
    return wp.where(side_flipped(d), 1.0 - t, t)


@wp.func
def grid3d_side_position(arg: Grid3DSideArg, s: Any):
    d = _side_decode(arg, s.element_index)
    a = d[0]
    a1 = (a + 1) % 3
    a2 = (a + 2) % 3
    cs = arg.cell.cell_size
    p = arg.cell.origin
    p[a] = p[a] + wp.real(d[1]) * cs[a]
    p[a1] = p[a1] + (wp.real(d[2]) + _first_coord(d, s.element_coords[0])) * cs[a1]
    p[a2] = p[a2] + (wp.real(d[3]) + s.element_coords[1]) * cs[a2]
    return p


@wp.func
def grid3d_side_normal(arg: Grid3DSideArg, s: Any):
    d = _side_decode(arg, s.element_index)
    n = wp.vec3(0.0)
    n[d[0]] = wp.where(d[1] == 0, wp.real(-1.0), wp.real(1.0))
    return n


@wp.func
def grid3d_side_measure(arg: Grid3DSideArg, s: Any):
    d = _side_decode(arg, s.element_index)
    cs = arg.cell.cell_size
    return cs[(d[0] + 1) % 3] * cs[(d[0] + 2) % 3]


@wp.func
def grid3d_side_deformation_gradient(arg: Grid3DSideArg, s: Any):
    d = _side_decode(arg, s.element_index)
    a1 = (d[0] + 1) % 3
    a2 = (d[0] + 2) % 3
    t1 = wp.vec3(0.0)
    t2 = wp.vec3(0.0)
    t1[a1] = wp.where(side_flipped(d), -arg.cell.cell_size[a1], arg.cell.cell_size[a1])
    t2[a2] = arg.cell.cell_size[a2]
    return wp.matrix_from_cols(t1, t2)


@wp.func
def grid3d_side_inner_cell_index(arg: Grid3DSideArg, side: int):
    d = _side_decode(arg, side)
    return _axis_cell(d[0], wp.max(d[1] - 1, 0), d[2], d[3], arg.cell)


@wp.func
def grid3d_side_outer_cell_index(arg: Grid3DSideArg, side: int):
    d = _side_decode(arg, side)
    return _axis_cell(d[0], wp.min(d[1], arg.cell.res[d[0]] - 1), d[2], d[3], arg.cell)


@wp.func
def _side_to_cell_coords(d: wp.vec4i, along: float, side_coords: wp.vec3):
    c = wp.vec3(0.0)
    c[d[0]] = along
    c[(d[0] + 1) % 3] = _first_coord(d, side_coords[0])
    c[(d[0] + 2) % 3] = side_coords[1]
    return c


@wp.func
def grid3d_side_inner_cell_coords(arg: Grid3DSideArg, side: int, side_coords: wp.vec3):
    d = _side_decode(arg, side)
    return _side_to_cell_coords(d, wp.where(d[1] == 0, wp.real(0.0), wp.real(1.0)), side_coords)


@wp.func
def grid3d_side_outer_cell_coords(arg: Grid3DSideArg, side: int, side_coords: wp.vec3):
    d = _side_decode(arg, side)
    return _side_to_cell_coords(d, wp.where(d[1] == arg.cell.res[d[0]], wp.real(1.0), wp.real(0.0)), side_coords)


class Grid3D(Geometry):
    """A regular grid of ``res[0] x res[1] x res[2]`` cells between ``bounds_lo`` and ``bounds_hi``."""

    dimension = 3
    cell_dimension = 3
    reference_cell_shape = "cube"
    reference_side_shape = "square"
    CellArg = Grid3DCellArg
    SideArg = Grid3DSideArg

    def __init__(self, res, bounds_lo=None, bounds_hi=None, scalar_type=wp.float32):
        if scalar_type not in (wp.float32, wp.float64):
            raise TypeError(f"fem.Grid3D: scalar_type must be wp.float32 or wp.float64, got {scalar_type}")
        self.res = wp.vec3i(*[int(r) for r in res])
        self.bounds_lo = wp.vec3(0.0) if bounds_lo is None else wp.vec3(*bounds_lo)
        self.bounds_hi = wp.vec3(1.0) if bounds_hi is None else wp.vec3(*bounds_hi)
        self.scalar_type = scalar_type
        ext = np.array(self.bounds_hi) - np.array(self.bounds_lo)
        self.cell_size = wp.vec3(*(ext / np.array(self.res)))
        self._boundary_sides = None

    @property
    def name(self):
        return f"Grid3D_{self.res[0]}x{self.res[1]}x{self.res[2]}"

    def cell_count(self):
        return self.res[0] * self.res[1] * self.res[2]

    def vertex_count(self):
        return (self.res[0] + 1) * (self.res[1] + 1) * (self.res[2] + 1)

    def _axis_counts(self):
        n = list(self.res)
        return [(n[a] + 1) * n[(a + 1) % 3] * n[(a + 2) % 3] for a in range(3)]

    def side_count(self):
        return sum(self._axis_counts())

    def edge_count(self):
        nx, ny, nz = self.res
        return nx * (ny + 1) * (nz + 1) + (nx + 1) * ny * (nz + 1) + (nx + 1) * (ny + 1) * nz

    def boundary_side_indices(self):
        if self._boundary_sides is None:
            n, counts, out, off = list(self.res), self._axis_counts(), [], 0
            for a in range(3):
                n1, n2 = n[(a + 1) % 3], n[(a + 2) % 3]
                for i in (0, n[a]):
                    base = off + i * n1 * n2
                    out.append(np.arange(base, base + n1 * n2))
                off += counts[a]
            self._boundary_sides = np.sort(np.concatenate(out)).astype(np.int32)
        return self._boundary_sides

    def cell_arg_value(self, device=None):
        a = Grid3DCellArg()
        a.res, a.cell_size, a.origin = self.res, self.cell_size, self.bounds_lo
        return a

    def side_arg_value(self, device=None):
        a = Grid3DSideArg()
        a.cell = self.cell_arg_value(device)
        c = self._axis_counts()
        a.axis_offsets = wp.vec3i(0, c[0], c[0] + c[1])
        return a

    cell_position = grid3d_cell_position
    cell_deformation_gradient = grid3d_cell_deformation_gradient
    cell_inverse_deformation_gradient = grid3d_cell_inverse_deformation_gradient
    cell_measure = grid3d_cell_measure
    cell_normal = grid3d_cell_normal
    cell_lookup = grid_lookup_funcs(3, Grid3DCellArg, _grid3d_locate, grid3d_cell_position)
    side_position = grid3d_side_position
    side_normal = grid3d_side_normal
    side_measure = grid3d_side_measure
    side_deformation_gradient = grid3d_side_deformation_gradient
    side_inner_cell_index = grid3d_side_inner_cell_index
    side_outer_cell_index = grid3d_side_outer_cell_index
    side_inner_cell_coords = grid3d_side_inner_cell_coords
    side_outer_cell_coords = grid3d_side_outer_cell_coords
