"""Uniform B-spline spaces of degree 1-3 on Grid2D / Grid3D
(``make_polynomial_space(grid, degree=k, element_basis=fem.ElementBasis.BSPLINE)``).

A degree-k space has ``res + k`` control points per axis (node ``(a, b[, c])`` has index
``(a * (res[1] + k) + b) [* (res[2] + k) + c]``); cell ``(x, y[, z])`` uses the ``(k + 1)^dim``
control points from ``(x, y[, z])`` on, with the tensor B-spline pieces of
space/shape_families.py as shape functions. A control point's position is its Greville abscissa
(``(x - (k - 1) / 2)`` cells from the grid's origin), so interpolating a linear function at the
control points reproduces it. Values are smooth (C^(k-1)) across cells. Sides are not supported
yet."""

import functools

import numpy as np

from .. import _api as wp

from ..geometry import grid2d, grid3d
from ..types import ElementKind
from .shape_families import bspline_shape
from .side_maps import cell_element_funcs
from .space_base import PolynomialSpaceBase


@functools.lru_cache(maxsize=None)
def cell_node_index_func(dim, degree):
    K = degree + 1
    k = degree
    if dim == 2:
        @wp.func
        def cell_node_index(arg: grid2d.Grid2DCellArg, cell: int, n: int):
            x = cell // arg.res[1]
            y = cell - x * arg.res[1]
            return (x + n // K) * (arg.res[1] + k) + y + n % K
    else:
        @wp.func
        def cell_node_index(arg: grid3d.Grid3DCellArg, cell: int, n: int):
            yz = arg.res[1] * arg.res[2]
            x = cell // yz
            r = cell - x * yz
            y = r // arg.res[2]
            z = r - y * arg.res[2]
            a = x + n // (K * K)
            b = y + (n // K) % K
            c = z + n % K
            return (a * (arg.res[1] + k) + b) * (arg.res[2] + k) + c
    return cell_node_index


@functools.lru_cache(maxsize=None)
def cell_element(dim, degree):
    CellArg = grid2d.Grid2DCellArg if dim == 2 else grid3d.Grid3DCellArg
    return cell_element_funcs(CellArg, (degree + 1) ** dim, *bspline_shape(dim, degree))


class BSplineGridSpace(PolynomialSpaceBase):
    """The degree-``degree`` B-spline space of ``dtype`` values on a grid."""

    family = None
    struct_tag = "B"

    def __init__(self, geometry, degree, dtype=float):
        if degree not in (1, 2, 3):
            raise NotImplementedError("fem: B-spline spaces exist for degrees 1 to 3")
        self.geometry = geometry
        self.degree = degree
        self.dtype = wp.float32 if dtype is float else dtype
        self.dim = geometry.dimension
        self.dof_mapper = None

    @property
    def name(self):
        return f"B{self.degree}_{self.geometry.name}"

    def node_count(self):
        return int(np.prod([r + self.degree for r in self.geometry.res]))

    def space_key(self):
        return (type(self.geometry).__name__, "B", self.degree)

    def element(self, element_kind):
        if element_kind != ElementKind.CELL:
            raise NotImplementedError("fem: B-spline spaces on sides are not supported yet")
        funcs = dict(cell_element(self.dim, self.degree))
        funcs["cell_node_index"] = cell_node_index_func(self.dim, self.degree)
        return funcs

    def node_positions(self, out=None):
        """The control points' positions (Greville abscissae)."""
        k, geo = self.degree, self.geometry
        axes = [geo.bounds_lo[a] + (np.arange(geo.res[a] + k) - 0.5 * (k - 1)) * geo.cell_size[a]
                for a in range(self.dim)]
        grid = np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, self.dim)
        return wp.array(grid, dtype=wp.vec2 if self.dim == 2 else wp.vec3)

    def make_field(self, space_partition=None):
        from ..field.fields import DiscreteField
        return DiscreteField(self, space_partition=space_partition)
