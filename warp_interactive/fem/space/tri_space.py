"""Continuous P1 / P2 Lagrange spaces on Trimesh2D and Trimesh3D.

Nodes: the vertices, then (P2) one node per edge (``vertex_count + edge``). In a cell, nodes
0-2 are its vertices, 3-5 (P2) the midpoints of its local edges 0-2 (edge k opposite vertex k).
Shape functions are written in the barycentric element coordinates; their gradients are by
the reference parameters (c1, c2)."""

import functools

import numpy as np

from typing import Any

from .. import _api as wp
from ..geometry import trimesh2d as tm
from .side_maps import cell_element_funcs, side_to_cell_funcs
from .tet_space import TRI_NODAL_WEIGHTS
from .space_base import PolynomialSpaceBase


@functools.lru_cache(maxsize=None)
def tri_shape(degree):
    if degree == 1:
        @wp.func
        def weight(c: wp.vec3, n: int):
            return c[n]

        @wp.func
        def weight_gradient(c: wp.vec3, n: int):
            if n == 0:
                return wp.vec2(-1.0, -1.0)
            if n == 1:
                return wp.vec2(1.0, 0.0)
            return wp.vec2(0.0, 1.0)

        @wp.func
        def node_coords(n: int):
            c = wp.vec3(0.0)
            c[n] = 1.0
            return c

        @wp.func
        def node_weight(n: int):
            return 1.0 / 3.0
        return weight, weight_gradient, node_coords, node_weight

    @wp.func
    def dbary(i: int):
        if i == 0:
            return wp.vec2(-1.0, -1.0)
        if i == 1:
            return wp.vec2(1.0, 0.0)
        return wp.vec2(0.0, 1.0)

    @wp.func
    def weight(c: wp.vec3, n: int):
        if n < 3:
            return c[n] * (2.0 * c[n] - 1.0)
        k = n - 3
        return 4.0 * c[(k + 1) % 3] * c[(k + 2) % 3]

    @wp.func
    def weight_gradient(c: wp.vec3, n: int):
        if n < 3:
            return (4.0 * c[n] - 1.0) * dbary(n)
        k = n - 3
        i = (k + 1) % 3
        j = (k + 2) % 3
        return 4.0 * (c[i] * dbary(j) + c[j] * dbary(i))

    @wp.func
    def node_coords(n: int):
        c = wp.vec3(0.0)
        if n < 3:
            c[n] = 1.0
        else:
            k = n - 3
            c[(k + 1) % 3] = 0.5
            c[(k + 2) % 3] = 0.5
        return c

    # warp-lang's nodal rule for P2 triangles (positive at vertices too; the same as on tet faces)
    W_VERTEX, W_EDGE = TRI_NODAL_WEIGHTS[2][0], TRI_NODAL_WEIGHTS[2][1]

    @wp.func
    def node_weight(n: int):
        return wp.where(n < 3, W_VERTEX, W_EDGE)
    return weight, weight_gradient, node_coords, node_weight


@functools.lru_cache(maxsize=None)
def cell_node_index_func(degree):
    @wp.func
    def cell_node_index(arg: Any, cell: int, n: int):
        if n < 3:
            return arg.tri_vertex_indices[cell, n]
        return arg.vertex_count + arg.tri_edge_indices[cell, n - 3]
    return cell_node_index


@functools.lru_cache(maxsize=None)
def cell_element(geometry_cls, degree):
    weight, weight_gradient, node_coords, node_weight = tri_shape(degree)
    NODES = 3 if degree == 1 else 6
    CellArg = geometry_cls.CellArg
    return cell_element_funcs(CellArg, NODES, weight, weight_gradient, node_coords, node_weight)


@functools.lru_cache(maxsize=None)
def side_element(geometry_cls, degree):
    weight, weight_gradient, _nc, _nw = tri_shape(degree)
    SideArg = geometry_cls.SideArg
    NODES = 2 if degree == 1 else 3
    COORDS = wp.vec3(0.0, 1.0, 0.5)
    WEIGHTS = wp.vec3(0.5, 0.5, 0.0) if degree == 1 else wp.vec3(1.0 / 6.0, 1.0 / 6.0, 2.0 / 3.0)

    @wp.func
    def cell_node(arg: SideArg, element: int, m: int):
        cell = arg.edge_tri_indices[element][0]
        e = arg.edge_vertex_indices[element]
        if m < 2:
            return tm.local_vertex(arg.cell, cell, e[m])
        a = tm.local_vertex(arg.cell, cell, e[0])
        b = tm.local_vertex(arg.cell, cell, e[1])
        return 3 + (3 - a - b)       # the local edge opposite the third vertex

    @wp.func
    def node_coords(m: int):
        return wp.vec3(COORDS[m], 0.0, 0.0)

    @wp.func
    def node_weight(m: int):
        return WEIGHTS[m]

    return dict(side_to_cell_funcs(geometry_cls), ElementArg=SideArg, node_count=NODES, cell_node=cell_node,
                node_coords=node_coords,
                node_weight=node_weight, cell_node_count=3 if degree == 1 else 6, weight=weight, weight_gradient=weight_gradient)


class TrianglePolynomialSpace(PolynomialSpaceBase):
    """The continuous P1 or P2 space of ``dtype`` values on a Trimesh2D."""

    def __init__(self, geometry, degree, dtype=float):
        if degree not in (1, 2):
            raise NotImplementedError("fem: triangle spaces of degree 1 and 2 only, so far")
        self.geometry = geometry
        self.degree = degree
        self.dtype = wp.float32 if dtype is float else dtype
        self.family = "P"
        self.dim = geometry.dimension
        self.dof_mapper = None

    @property
    def name(self):
        return f"P{self.degree}_{self.geometry.name}"

    def node_count(self):
        g = self.geometry
        return g.vertex_count() + (g.side_count() if self.degree == 2 else 0)

    def space_key(self):
        return (type(self.geometry).__name__, self.degree)

    def element(self, element_kind):
        from ..types import ElementKind
        make = cell_element if element_kind == ElementKind.CELL else side_element
        funcs = dict(make(type(self.geometry), self.degree))
        funcs["cell_node_index"] = cell_node_index_func(self.degree)
        return funcs

    def node_positions(self, out=None):
        pos = self.geometry.positions.numpy()
        if self.degree == 2:
            e = self.geometry.edge_vertex_indices.numpy()
            pos = np.concatenate([pos, 0.5 * (pos[e[:, 0]] + pos[e[:, 1]])])
        vt = wp.vec2 if self.geometry.dimension == 2 else wp.vec3
        return wp.array(pos, dtype=vt)

    def make_field(self, space_partition=None):
        from ..field.fields import DiscreteField
        return DiscreteField(self, space_partition=space_partition)
