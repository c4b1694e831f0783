"""Discontinuous (DG) polynomial spaces: a continuous space's shape functions, with nodes of
their own in every cell.

Node ``n`` of cell ``c`` has index ``c * N + n`` (``N`` nodes per cell), as warp-lang numbers
them. On sides, an element has ``2 N`` nodes: those of its inner cell, then those of its outer
cell (on the boundary both are the same cell, so the two halves name the same nodes and
their contributions to jumps cancel, as they should). Evaluation on sides is two-sided
(field/evaluation.py ``two_sided_basis_funcs``): a node of the inner half is zero on the outer
side and the other way round."""

import functools
from typing import Any

from .. import _api as wp

from ..types import ElementKind, make_free_sample
from .side_maps import side_to_cell_funcs
from .space_base import PolynomialSpaceBase


@functools.lru_cache(maxsize=None)
def dg_node_index_func(nodes):
    N = nodes

    @wp.func
    def cell_node_index(arg: Any, cell: int, n: int):
        return cell * N + n
    return cell_node_index


@functools.lru_cache(maxsize=None)
def two_sided_side_element(geometry_cls, cell_el_items):
    """The element table of a DG space on sides, from its cell element table."""
    cel = dict(cell_el_items)
    N = cel["cell_node_count"]
    SideArg = geometry_cls.SideArg
    inner_index, outer_index = geometry_cls.side_inner_cell_index, geometry_cls.side_outer_cell_index

    @wp.func
    def cell_node(arg: SideArg, element: int, m: int):
        return wp.where(m < N, m, m - N)

    @wp.func
    def element_node_index(arg: SideArg, element: int, m: int):
        if m < N:
            return inner_index(arg, element) * N + m
        return outer_index(arg, element) * N + m - N

    return dict(side_to_cell_funcs(geometry_cls), ElementArg=SideArg, node_count=2 * N, cell_node=cell_node,
                element_node_index=element_node_index, two_sided=N,
                cell_node_count=N, weight=cel["weight"], weight_gradient=cel["weight_gradient"])


@functools.lru_cache(maxsize=None)
def _node_position_kernel(geometry_cls, node_coords, nodes, vec_type):
    position = geometry_cls.cell_position
    N = nodes

    @wp.kernel
    def node_positions(arg: geometry_cls.CellArg, out: wp.array(dtype=vec_type)):
        c, n = wp.tid()
        out[c * N + n] = position(arg, make_free_sample(c, node_coords(n)))
    return node_positions


class DiscontinuousSpace(PolynomialSpaceBase):
    """The DG version of a continuous polynomial ``base`` space (same degree, shape functions
    and value type)."""

    def __init__(self, base):
        self.base = base
        self.geometry = base.geometry
        self.degree = base.degree
        self.dtype = base.dtype
        self.family = base.family
        self.dim = base.dim
        self.dof_mapper = None
        self._cell_el = base.element(ElementKind.CELL)
        self.nodes_per_cell = self._cell_el["cell_node_count"]
        self._cell_el["cell_node_index"] = dg_node_index_func(self.nodes_per_cell)

    struct_tag = "DG"

    @property
    def name(self):
        return f"{self.base.name}_D"

    def node_count(self):
        return self.geometry.cell_count() * self.nodes_per_cell

    def space_key(self):
        return ("DG",) + tuple(self.base.space_key())

    def element(self, element_kind):
        if element_kind == ElementKind.CELL:
            return dict(self._cell_el)
        funcs = dict(two_sided_side_element(type(self.geometry), tuple(sorted(self._cell_el.items()))))
        funcs["cell_node_index"] = self._cell_el["cell_node_index"]
        return funcs

    def node_positions(self, out=None):
        vt = wp.vec2 if self.geometry.dimension == 2 else wp.vec3
        out = wp.empty(self.node_count(), dtype=vt) if out is None else out
        kernel = _node_position_kernel(type(self.geometry), self._cell_el["node_coords"], self.nodes_per_cell, vt)
        wp.launch(kernel, dim=(self.geometry.cell_count(), self.nodes_per_cell),
                  inputs=[self.geometry.cell_arg_value(out.device), out], device=out.device)
        return out

    def make_field(self, space_partition=None):
        from ..field.fields import DiscreteField
        return DiscreteField(self, space_partition=space_partition)



_CENTERS = {"square": (0.5, 0.5, 0.0), "cube": (0.5, 0.5, 0.5), "triangle": (1.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0),
            "tetrahedron": (0.25, 0.25, 0.25)}


@functools.lru_cache(maxsize=None)
def constant_shape(shape, cell_dimension):
    """weight, weight_gradient, node_coords, node_weight of the one shape function of a
    degree-0 space: 1 over the cell, its node at the cell's centre (the 1-point rule's point,
    where warp-lang puts it)."""
    CENTER = wp.vec3(*_CENTERS[shape])
    GRAD = wp.types.vector(cell_dimension, wp.float32)

    @wp.func
    def weight(c: wp.vec3, n: int):
        return 1.0

    @wp.func
    def weight_gradient(c: wp.vec3, n: int):
        return GRAD(0.0)

    @wp.func
    def node_coords(n: int):
        return CENTER

    @wp.func
    def node_weight(n: int):
        return 1.0
    return weight, weight_gradient, node_coords, node_weight


@functools.lru_cache(maxsize=None)
def _constant_cell_element(geometry_cls):
    from .side_maps import cell_element_funcs
    funcs = constant_shape(geometry_cls.reference_cell_shape, geometry_cls.cell_dimension)
    return cell_element_funcs(geometry_cls.CellArg, 1, *funcs)


class _ConstantBase:
    """What DiscontinuousSpace reads of a continuous base space, for the degree-0 space (which
    has no continuous version: warp-lang makes degree 0 discontinuous)."""

    def __init__(self, geometry, dtype):
        self.geometry = geometry
        self.degree = 0
        self.dtype = wp.float32 if dtype is float else dtype
        self.family = None
        self.dim = geometry.dimension
        self._cell_el = _constant_cell_element(type(geometry))

    @property
    def name(self):
        return f"P0_{self.geometry.name}"

    def space_key(self):
        return (type(self.geometry).__name__, 0)

    def element(self, element_kind):
        return dict(self._cell_el)


def piecewise_constant_space(geometry, dtype=float):
    """The degree-0 space: one node per cell (node ``c`` in cell ``c``), values constant in each
    cell, zero gradients; on sides, the two cells' values (as any DG space)."""
    return DiscontinuousSpace(_ConstantBase(geometry, dtype))
