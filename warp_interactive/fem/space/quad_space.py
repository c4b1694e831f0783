"""Continuous Q_k Lagrange spaces (k = 1..3) on Quadmesh2D and Quadmesh3D.

In a cell, node ``n = i * (k+1) + j`` sits at the tensor lattice point ``(i, j)`` of the
element coordinates (the shape functions of ``shape.tensor_shape``). Global nodes are
numbered as warp-lang numbers them: the mesh vertices, then ``(k-1)^2`` interior nodes per
cell (``(i-1) * (k-1) + (j-1)``), then ``k-1`` nodes per edge, counted from the edge's start
vertex (so two cells sharing an edge name its nodes alike whatever their own orientation)."""

import functools
from typing import Any

import numpy as np

from .. import _api as wp
from ..geometry import quadmesh2d as qm
from ..polynomial import Polynomial
from .tensor_shape import lagrange_1d, tensor_shape
from .side_maps import cell_element_funcs, side_to_cell_funcs
from .space_base import PolynomialSpaceBase


@functools.lru_cache(maxsize=None)
def cell_node_index_func(degree):
    k = degree
    K = k + 1
    INTERIOR = (k - 1) * (k - 1)
    EDGE = k - 1

    @wp.func
    def cell_node_index(arg: Any, cell: int, n: int):
        i = n // K
        j = n - i * K
        on_i = i == 0 or i == k
        on_j = j == 0 or j == k
        if on_i and on_j:
            return arg.quad_vertex_indices[cell, wp.where(i == 0, wp.where(j == 0, 0, 3), wp.where(j == 0, 1, 2))]
        if not on_i and not on_j:
            return arg.vertex_count + cell * INTERIOR + (i - 1) * (k - 1) + (j - 1)
        # an edge node: its local edge, and its position counted from that edge's local start
        local = int(0)
        p = int(0)
        if j == 0:
            local = 0
            p = i
        elif i == k:
            local = 1
            p = j
        elif j == k:
            local = 2
            p = k - i
        else:
            local = 3
            p = k - j
        edge = arg.quad_edge_indices[cell, local]
        if arg.edge_vertex_indices[edge][0] != arg.quad_vertex_indices[cell, local]:
            p = k - p
        return arg.vertex_count + arg.cell_count * INTERIOR + edge * EDGE + p - 1
    return cell_node_index


@functools.lru_cache(maxsize=None)
def cell_element(geometry_cls, degree, family):
    weight, weight_gradient, node_coords, node_weight = tensor_shape(2, degree, family)
    NODES = (degree + 1) ** 2
    CellArg = geometry_cls.CellArg
    return cell_element_funcs(CellArg, NODES, weight, weight_gradient, node_coords, node_weight)


@functools.lru_cache(maxsize=None)
def side_element(geometry_cls, degree, family):
    """A side's nodes are the k+1 nodes of its inner cell on it, counted from the side's start."""
    k = degree
    K = k + 1
    weight, weight_gradient, _nc, _nw = tensor_shape(2, degree, family)
    _v, _d, nodes, weights = lagrange_1d(degree, family)
    NODES = wp.types.vector(K, wp.float32)(*[float(x) for x in nodes])
    WEIGHTS = wp.types.vector(K, wp.float32)(*[float(x) for x in weights])
    SideArg = geometry_cls.SideArg

    @wp.func
    def cell_node(arg: SideArg, element: int, m: int):
        cell = arg.edge_quad_indices[element][0]
        e = arg.cell.edge_vertex_indices[element]
        a = qm.quad_corner(qm.quad_local_vertex(arg.cell, cell, e[0]))
        b = qm.quad_corner(qm.quad_local_vertex(arg.cell, cell, e[1]))
        i = a[0] * k + m * (b[0] - a[0])
        j = a[1] * k + m * (b[1] - a[1])
        return i * K + j

    @wp.func
    def node_coords(m: int):
        return wp.vec3(NODES[m], 0.0, 0.0)

    @wp.func
    def node_weight(m: int):
        return WEIGHTS[m]

    return dict(side_to_cell_funcs(geometry_cls), ElementArg=SideArg,
                node_count=K, cell_node=cell_node,
                node_coords=node_coords, node_weight=node_weight, cell_node_count=K * K, weight=weight,
                weight_gradient=weight_gradient)


class QuadPolynomialSpace(PolynomialSpaceBase):
    """The continuous Q_k space (k = 1..3) of ``dtype`` values on a Quadmesh2D."""

    def __init__(self, geometry, degree, dtype=float, family=None):
        if degree not in (1, 2, 3):
            raise NotImplementedError(f"fem: quad mesh spaces of degree 1 to 3 only, not {degree}")
        self.geometry = geometry
        self.degree = degree
        self.dtype = wp.float32 if dtype is float else dtype
        self.family = Polynomial.LOBATTO_GAUSS_LEGENDRE if family is None else family
        if self.family not in (Polynomial.LOBATTO_GAUSS_LEGENDRE, Polynomial.EQUISPACED_CLOSED):
            raise ValueError("fem: a continuous space needs a closed point family (nodes on the cell's boundary)")
        self.dim = geometry.dimension
        self.dof_mapper = None

    @property
    def name(self):
        return f"Q{self.degree}{self.family}_{self.geometry.name}"

    def node_count(self):
        g, k = self.geometry, self.degree
        return g.vertex_count() + g.cell_count() * (k - 1) ** 2 + g.side_count() * (k - 1)

    def space_key(self):
        return (type(self.geometry).__name__, self.degree, self.family)

    def element(self, element_kind):
        from ..types import ElementKind
        make = cell_element if element_kind == ElementKind.CELL else side_element
        funcs = dict(make(type(self.geometry), self.degree, self.family))
        funcs["cell_node_index"] = cell_node_index_func(self.degree)
        return funcs

    def node_positions(self, out=None):
        g, k = self.geometry, self.degree
        _v, _d, nodes, _w = lagrange_1d(k, self.family)
        pos = g.positions.numpy().astype(np.float64)
        quads = g.quad_vertex_indices.numpy()
        inner = np.asarray(nodes[1:k])
        u, v = np.meshgrid(inner, inner, indexing="ij")
        u, v = u.reshape(-1), v.reshape(-1)
        p = pos[quads]                                              # (cells, 4, 2)
        d = g.dimension
        interior = ((1 - u)[None, :, None] * (1 - v)[None, :, None] * p[:, None, 0]
                    + u[None, :, None] * (1 - v)[None, :, None] * p[:, None, 1]
                    + u[None, :, None] * v[None, :, None] * p[:, None, 2]
                    + (1 - u)[None, :, None] * v[None, :, None] * p[:, None, 3]).reshape(-1, d)
        e = g.edge_vertex_indices.numpy()
        t = inner[None, :, None]
        edge = ((1 - t) * pos[e[:, 0]][:, None] + t * pos[e[:, 1]][:, None]).reshape(-1, d)
        all_pos = np.concatenate([pos, interior, edge])
        if out is not None:
            out.assign(all_pos)
            return out
        return wp.array(all_pos, dtype=wp.vec2 if d == 2 else wp.vec3, device=g.positions.device)

    def make_field(self, space_partition=None):
        from ..field.fields import DiscreteField
        return DiscreteField(self, space_partition=space_partition)
