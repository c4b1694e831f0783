"""Continuous tensor-product Lagrange spaces (Q_k) on Grid2D / Grid3D.

Nodes form the lattice of ``k * res + 1`` points per axis; node ``(a, b[, c])`` of the lattice
has index ``(a * (k*res[1] + 1) + b) [* (k*res[2] + 1) + c]``. The functions below map an
element of a domain (a cell, or a side seen from its inner cell) and a node of that element
to the cell, cell coordinates, cell-local node and global node the fields need."""

import functools

import numpy as np

from .. import _api as wp

from ..geometry import grid2d, grid3d
from ..polynomial import Polynomial
from .tensor_shape import lagrange_1d, tensor_shape
from .side_maps import cell_element_funcs, side_to_cell_funcs
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
            return (k * x + n // K) * (k * arg.res[1] + 1) + k * y + n % K
    else:
        @wp.func
        def cell_node_index(arg: grid3d.Grid3DCellArg, cell: int, n: int):
            yz = arg.res[1] * arg.res[2]
            x = cell // yz
            r = cell - x * yz
            y = r // arg.res[2]
            z = r - y * arg.res[2]
            a = k * x + n // (K * K)
            b = k * y + (n // K) % K
            c = k * z + n % K
            return (a * (k * arg.res[1] + 1) + b) * (k * arg.res[2] + 1) + c
    return cell_node_index


@functools.lru_cache(maxsize=None)
def cell_element(dim, degree, family):
    """Element functions of the space on a Cells domain (the element is the cell)."""
    geo = grid2d if dim == 2 else grid3d
    CellArg = geo.Grid2DCellArg if dim == 2 else geo.Grid3DCellArg
    weight, weight_gradient, node_coords, node_weight = tensor_shape(dim, degree, family)
    NODES = (degree + 1) ** dim
    return cell_element_funcs(CellArg, NODES, weight, weight_gradient, node_coords, node_weight)


@functools.lru_cache(maxsize=None)
def side_element(dim, degree, family):
    """Element functions of the space on a sides domain: a side's nodes are those of the
    face of its inner cell it lies on (the trace of the space)."""
    K = degree + 1
    k = degree
    weight, weight_gradient, _nc, _nw = tensor_shape(dim, degree, family)
    _v, _d, nodes, weights = lagrange_1d(degree, family)
    NODES = wp.types.vector(K, wp.float32)(*[float(x) for x in nodes])
    WEIGHTS = wp.types.vector(K, wp.float32)(*[float(x) for x in weights])
    if dim == 2:
        SideArg = grid2d.Grid2DSideArg
        decode = grid2d._side_decode

        flipped = grid2d.side_flipped

        @wp.func
        def cell_node(arg: SideArg, element: int, m: int):
            d = decode(arg, element)
            fa = wp.where(d[1] == 0, 0, k)
            a = wp.where(flipped(d), k - m, m)      # the side's node m sits at cell node a along it
            if d[0] == 0:
                return fa * K + a
            return a * K + fa

        @wp.func
        def node_coords(m: int):
            return wp.vec3(NODES[m], 0.0, 0.0)

        @wp.func
        def node_weight(m: int):
            return WEIGHTS[m]
    else:
        SideArg = grid3d.Grid3DSideArg
        decode = grid3d._side_decode

        @wp.func
        def cell_node(arg: SideArg, element: int, m: int):
            d = decode(arg, element)
            idx = wp.vec3i(0)
            idx[d[0]] = wp.where(d[1] == 0, 0, k)
            idx[(d[0] + 1) % 3] = m // K
            idx[(d[0] + 2) % 3] = m % K
            return (idx[0] * K + idx[1]) * K + idx[2]

        @wp.func
        def node_coords(m: int):
            return wp.vec3(NODES[m // K], NODES[m % K], 0.0)

        @wp.func
        def node_weight(m: int):
            return WEIGHTS[m // K] * WEIGHTS[m % K]

    return dict(side_to_cell_funcs(grid2d.Grid2D if dim == 2 else grid3d.Grid3D), ElementArg=SideArg,
                node_count=K ** (dim - 1), cell_node=cell_node, node_coords=node_coords, node_weight=node_weight,
                cell_node_count=K ** dim, weight=weight, weight_gradient=weight_gradient)


class GridPolynomialSpace(PolynomialSpaceBase):
    """The continuous Q_k space of ``dtype`` values (a scalar or a vector type) on a grid."""

    def __init__(self, geometry, degree, dtype=float, family=None):
        if degree < 1:
            raise NotImplementedError("fem: degree-0 (piecewise constant) spaces are not supported yet")
        self.geometry = geometry
        self.degree = degree
        self.dtype = wp.float32 if dtype is float else dtype
        self.family = Polynomial.LOBATTO_GAUSS_LEGENDRE if family is None else family
        self.dim = geometry.dimension
        self.dof_mapper = None

    @property
    def name(self):
        return f"Q{self.degree}{self.family}_{self.geometry.name}"

    def node_count(self):
        k = self.degree
        return int(np.prod([k * r + 1 for r in self.geometry.res]))

    def space_key(self):
        """What the generated functions depend on (not the grid's size)."""
        return (type(self.geometry).__name__, self.degree, self.family)

    def element(self, element_kind):
        from ..types import ElementKind
        make = cell_element if element_kind == ElementKind.CELL else side_element
        funcs = dict(make(self.dim, self.degree, self.family))
        funcs["cell_node_index"] = cell_node_index_func(self.dim, self.degree)
        return funcs

    def node_positions(self, out=None):
        """The world position of every node (an array of vec2/vec3)."""
        k, res = self.degree, list(self.geometry.res)
        _v, _d, nodes, _w = lagrange_1d(k, self.family)
        axes = []
        for a in range(self.dim):
            cells = np.repeat(np.arange(res[a]), k)
            local = np.tile(nodes[:k], res[a])
            t = np.concatenate((cells + local, [res[a]]))
            axes.append(self.geometry.bounds_lo[a] + t * self.geometry.cell_size[a])
        grid = np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, self.dim)
        vt = wp.vec2 if self.dim == 2 else wp.vec3
        return wp.array(grid, dtype=vt)

    def make_field(self, space_partition=None):
        from ..field.fields import DiscreteField
        return DiscreteField(self, space_partition=space_partition)
