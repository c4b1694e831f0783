"""``fem.Grid2D``: a regular 2-D grid of rectangular cells.

Cell ``(x, y)`` has index ``x * res[1] + y``; element coordinates are the position inside the
cell scaled to [0, 1]^2 (the third coordinate is unused). Sides are the grid's edges:
first those normal to x (``(res[0] + 1) * res[1]`` of them, index ``i * res[1] + j`` for the
edge at ``x = i``, cell row ``j``), then those normal to y (``j * res[0] + i`` after them).
A side's inner cell is the one below it along its normal axis (the first one for the sides at
the lower boundary); its normal points from the inner cell to the outer one, outward on the
boundary. Side coordinates run along the side's other axis, or against it (``side_flipped``) as
in warp-lang, so that the normal is the side's tangent turned clockwise."""

import numpy as np

from typing import Any

from .. import _api as wp

from ..types import make_free_sample
from .geometry import Geometry
from .grid_lookup import grid_lookup_funcs


@wp.struct
class Grid2DCellArg:
    res: wp.vec2i
    cell_size: wp.vec2
    origin: wp.vec2


@wp.struct
class Grid2DSideArg:
    cell: Grid2DCellArg
    axis_offset: int     # index of the first side normal to y


@wp.func
def _cell_xy(arg: Grid2DCellArg, cell: int):
    x = cell // arg.res[1]
    return wp.vec2i(x, cell - x * arg.res[1])


@wp.func
def grid2d_cell_position(arg: Grid2DCellArg, s: Any):
    xy = _cell_xy(arg, s.element_index)
    c = s.element_coords
    return arg.origin + wp.cw_mul(wp.vec2(wp.real(xy[0]) + c[0], wp.real(xy[1]) + c[1]), arg.cell_size)


@wp.func
def grid2d_cell_deformation_gradient(arg: Grid2DCellArg, s: Any):
    return wp.mat22(arg.cell_size[0], 0.0, 0.0, arg.cell_size[1])


@wp.func
def grid2d_cell_inverse_deformation_gradient(arg: Grid2DCellArg, s: Any):
    return wp.mat22(1.0 / arg.cell_size[0], 0.0, 0.0, 1.0 / arg.cell_size[1])


@wp.func
def grid2d_cell_measure(arg: Grid2DCellArg, s: Any):
    return arg.cell_size[0] * arg.cell_size[1]


@wp.func
def grid2d_cell_normal(arg: Grid2DCellArg, s: Any):
    return wp.vec2(0.0)


@wp.func
def _grid2d_locate(arg: Grid2DCellArg, pos: wp.vec2):
    # outside the grid: its closest point (the position clamped to the bounds)
    rel = wp.cw_div(pos - arg.origin, arg.cell_size)
    rx = wp.clamp(rel[0], 0.0, wp.real(arg.res[0]))
    ry = wp.clamp(rel[1], 0.0, wp.real(arg.res[1]))
    x = wp.min(int(wp.floor(rx)), arg.res[0] - 1)
    y = wp.min(int(wp.floor(ry)), arg.res[1] - 1)
    c = wp.vec3(rx - wp.real(x), ry - wp.real(y), 0.0)
    return make_free_sample(x * arg.res[1] + y, c)


@wp.func
def _side_decode(arg: Grid2DSideArg, side: int):
    """(axis of the normal, lattice index along it, cell index along the other axis)"""
    if side < arg.axis_offset:
        i = side // arg.cell.res[1]
        return wp.vec3i(0, i, side - i * arg.cell.res[1])
    k = side - arg.axis_offset
    j = k // arg.cell.res[0]
    return wp.vec3i(1, j, k - j * arg.cell.res[0])


@wp.func
def _axis_cell(axis: int, a: int, b: int, arg: Grid2DCellArg):
    """The cell at index a along ``axis`` and b along the other one."""
    if axis == 0:
        return a * arg.res[1] + b
    return b * arg.res[1] + a


@wp.func
def side_flipped(d: wp.vec3i):
    """Whether the side's coordinate runs against its axis (warp-lang's orientation: the sides
    normal to x except the first, and the first ones normal to y, run along it), so that the
    normal is the tangent turned clockwise."""
    return (d[0] == 0) == (d[1] == 0)


@wp.func
def _along(d: wp.vec3i, t: Any):
    return wp.where(side_flipped(d), 1.0 - t, t)


@wp.func
def grid2d_side_position(arg: Grid2DSideArg, s: Any):
    d = _side_decode(arg, s.element_index)
    axis = d[0]
    other = 1 - axis
    p = arg.cell.origin
    p[axis] = p[axis] + wp.real(d[1]) * arg.cell.cell_size[axis]
    p[other] = p[other] + (wp.real(d[2]) + _along(d, s.element_coords[0])) * arg.cell.cell_size[other]
    return p


@wp.func
def grid2d_side_normal(arg: Grid2DSideArg, s: Any):
    d = _side_decode(arg, s.element_index)
    n = wp.vec2(0.0)
    if d[1] == 0:
        n[d[0]] = -1.0
    else:
        n[d[0]] = 1.0
    return n


@wp.func
def grid2d_side_measure(arg: Grid2DSideArg, s: Any):
    d = _side_decode(arg, s.element_index)
    return arg.cell.cell_size[1 - d[0]]


@wp.func
def grid2d_side_deformation_gradient(arg: Grid2DSideArg, s: Any):
    d = _side_decode(arg, s.element_index)
    t = wp.vec2(0.0)
    t[1 - d[0]] = wp.where(side_flipped(d), -arg.cell.cell_size[1 - d[0]], arg.cell.cell_size[1 - d[0]])
    return t


@wp.func
def grid2d_side_inner_cell_index(arg: Grid2DSideArg, side: int):
    d = _side_decode(arg, side)
    return _axis_cell(d[0], wp.max(d[1] - 1, 0), d[2], arg.cell)


@wp.func
def grid2d_side_outer_cell_index(arg: Grid2DSideArg, side: int):
    d = _side_decode(arg, side)
    return _axis_cell(d[0], wp.min(d[1], arg.cell.res[d[0]] - 1), d[2], arg.cell)


@wp.func
def grid2d_side_inner_cell_coords(arg: Grid2DSideArg, side: int, side_coords: wp.vec3):
    d = _side_decode(arg, side)
    c = wp.vec3(0.0)
    c[d[0]] = wp.where(d[1] == 0, wp.real(0.0), wp.real(1.0))
    c[1 - d[0]] = _along(d, side_coords[0])
    return c


@wp.func
def grid2d_side_outer_cell_coords(arg: Grid2DSideArg, side: int, side_coords: wp.vec3):
    d = _side_decode(arg, side)
    c = wp.vec3(0.0)
    c[d[0]] = wp.where(d[1] == arg.cell.res[d[0]], wp.real(1.0), wp.real(0.0))
    c[1 - d[0]] = _along(d, side_coords[0])
    return c


class Grid2D(Geometry):
    """A regular grid of ``res[0] x res[1]`` cells between ``bounds_lo`` and ``bounds_hi``."""

    dimension = 2
    cell_dimension = 2
    reference_cell_shape = "square"
    reference_side_shape = "segment"
    CellArg = Grid2DCellArg
    SideArg = Grid2DSideArg

    def __init__(self, res, bounds_lo=None, bounds_hi=None, scalar_type=wp.float32):
        if scalar_type not in (wp.float32, wp.float64):
            raise TypeError(f"fem.Grid2D: scalar_type must be wp.float32 or wp.float64, got {scalar_type}")
        self.res = wp.vec2i(*[int(r) for r in res])
        self.bounds_lo = wp.vec2(0.0) if bounds_lo is None else wp.vec2(*bounds_lo)
        self.bounds_hi = wp.vec2(1.0) if bounds_hi is None else wp.vec2(*bounds_hi)
        self.scalar_type = scalar_type
        ext = np.array(self.bounds_hi) - np.array(self.bounds_lo)
        self.cell_size = wp.vec2(*(ext / np.array(self.res)))
        self._boundary_sides = None

    @property
    def name(self):
        return f"Grid2D_{self.res[0]}x{self.res[1]}"

    def cell_count(self):
        return self.res[0] * self.res[1]

    def vertex_count(self):
        return (self.res[0] + 1) * (self.res[1] + 1)

    def side_count(self):
        return (self.res[0] + 1) * self.res[1] + (self.res[1] + 1) * self.res[0]

    def boundary_side_indices(self):
        """The sides on the boundary, in side order (a host array, made once)."""
        if self._boundary_sides is None:
            nx, ny = self.res
            x_sides = [i * ny + j for i in (0, nx) for j in range(ny)]
            off = (nx + 1) * ny
            y_sides = [off + j * nx + i for j in (0, ny) for i in range(nx)]
            self._boundary_sides = np.array(sorted(x_sides + y_sides), dtype=np.int32)
        return self._boundary_sides

    def cell_arg_value(self, device=None):
        a = Grid2DCellArg()
        a.res, a.cell_size, a.origin = self.res, self.cell_size, self.bounds_lo
        return a

    def side_arg_value(self, device=None):
        a = Grid2DSideArg()
        a.cell = self.cell_arg_value(device)
        a.axis_offset = (self.res[0] + 1) * self.res[1]
        return a

    cell_position = grid2d_cell_position
    cell_deformation_gradient = grid2d_cell_deformation_gradient
    cell_inverse_deformation_gradient = grid2d_cell_inverse_deformation_gradient
    cell_measure = grid2d_cell_measure
    cell_normal = grid2d_cell_normal
    cell_lookup = grid_lookup_funcs(2, Grid2DCellArg, _grid2d_locate, grid2d_cell_position)
    side_position = grid2d_side_position
    side_normal = grid2d_side_normal
    side_measure = grid2d_side_measure
    side_deformation_gradient = grid2d_side_deformation_gradient
    side_inner_cell_index = grid2d_side_inner_cell_index
    side_outer_cell_index = grid2d_side_outer_cell_index
    side_inner_cell_coords = grid2d_side_inner_cell_coords
    side_outer_cell_coords = grid2d_side_outer_cell_coords
