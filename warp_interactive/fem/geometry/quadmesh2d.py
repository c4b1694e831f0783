"""``fem.Quadmesh2D``: a mesh of (possibly distorted) quadrilaterals in the plane.

A cell's vertices are given counter-clockwise; its element coordinates ``(u, v)`` are those of
the bilinear map from the unit square (vertex 0 at (0, 0), 1 at (1, 0), 2 at (1, 1), 3 at
(0, 1)). Local edge ``k`` of a cell joins its vertices ``k`` and ``k + 1``.

Sides are the unique edges, numbered and given inner/outer cells by ``topology.unique_facets``
(as warp-lang does). Each side is oriented (its vertex pair possibly swapped) so that its normal
``(d_y, -d_x)`` (``d`` = end - start) points away from its inner cell; its coordinate ``t``
runs from its start to its end."""

from typing import Any

import numpy as np

from .. import _api as wp
from ..types import make_free_sample  # noqa: F401  (used by the generated lookups' callers)
from .geometry import Geometry
from .lookup import CellLookupMixin
from .topology import MeshTopology, read_cells, unique_facets


@wp.struct
class Quadmesh2DCellArg:
    quad_vertex_indices: wp.array2d(dtype=int)
    quad_edge_indices: wp.array2d(dtype=int)
    edge_vertex_indices: wp.array(dtype=wp.vec2i)
    positions: wp.array(dtype=wp.vec2)
    vertex_count: int
    cell_count: int
    bvh: wp.uint64      # the cells' BVH (build_bvh), 0 without


@wp.struct
class Quadmesh2DSideArg:
    cell: Quadmesh2DCellArg
    edge_quad_indices: wp.array(dtype=wp.vec2i)


@wp.func
def _vertex(arg: Any, cell: int, k: int):
    return arg.positions[arg.quad_vertex_indices[cell, k]]


@wp.func
def quadmesh2d_cell_position(arg: Any, s: Any):
    c = s.element_coords
    q = s.element_index
    u = c[0]
    v = c[1]
    return ((1.0 - u) * (1.0 - v) * _vertex(arg, q, 0) + u * (1.0 - v) * _vertex(arg, q, 1)
            + u * v * _vertex(arg, q, 2) + (1.0 - u) * v * _vertex(arg, q, 3))


@wp.func
def quadmesh2d_cell_deformation_gradient(arg: Any, s: Any):
    c = s.element_coords
    q = s.element_index
    u = c[0]
    v = c[1]
    p0 = _vertex(arg, q, 0)
    p1 = _vertex(arg, q, 1)
    p2 = _vertex(arg, q, 2)
    p3 = _vertex(arg, q, 3)
    du = (1.0 - v) * (p1 - p0) + v * (p2 - p3)
    dv = (1.0 - u) * (p3 - p0) + u * (p2 - p1)
    return wp.matrix_from_cols(du, dv)


@wp.func
def quadmesh2d_cell_inverse_deformation_gradient(arg: Quadmesh2DCellArg, s: Any):
    return wp.inverse(quadmesh2d_cell_deformation_gradient(arg, s))


@wp.func
def quadmesh2d_cell_measure(arg: Quadmesh2DCellArg, s: Any):
    return wp.abs(wp.determinant(quadmesh2d_cell_deformation_gradient(arg, s)))


@wp.func
def quadmesh2d_cell_normal(arg: Quadmesh2DCellArg, s: Any):
    return wp.vec2(0.0)


@wp.func
def _edge_points(arg: Any, side: int):
    e = arg.cell.edge_vertex_indices[side]
    return arg.cell.positions[e[0]], arg.cell.positions[e[1]]


@wp.func
def quadmesh2d_side_position(arg: Any, s: Any):
    pa, pb = _edge_points(arg, s.element_index)
    t = s.element_coords[0]
    return (1.0 - t) * pa + t * pb


@wp.func
def quadmesh2d_side_deformation_gradient(arg: Any, s: Any):
    pa, pb = _edge_points(arg, s.element_index)
    return pb - pa


@wp.func
def quadmesh2d_side_normal(arg: Quadmesh2DSideArg, s: Any):
    d = quadmesh2d_side_deformation_gradient(arg, s)
    return wp.normalize(wp.vec2(d[1], -d[0]))


@wp.func
def quadmesh2d_side_measure(arg: Any, s: Any):
    return wp.length(quadmesh2d_side_deformation_gradient(arg, s))


@wp.func
def quadmesh2d_side_inner_cell_index(arg: Any, side: int):
    return arg.edge_quad_indices[side][0]


@wp.func
def quadmesh2d_side_outer_cell_index(arg: Any, side: int):
    return arg.edge_quad_indices[side][1]


@wp.func
def quad_local_vertex(arg: Any, cell: int, vertex: int):
    k = int(0)
    for i in range(4):
        if arg.quad_vertex_indices[cell, i] == vertex:
            k = i
    return k


@wp.func
def quad_corner(k: int):
    """Reference coordinates of local vertex ``k`` (0: (0,0), 1: (1,0), 2: (1,1), 3: (0,1))."""
    return wp.vec2i(wp.where(k == 1 or k == 2, 1, 0), wp.where(k >= 2, 1, 0))


@wp.func
def _side_to_cell_coords(arg: Any, side: int, cell: int, side_coords: wp.vec3):
    e = arg.cell.edge_vertex_indices[side]
    a = quad_corner(quad_local_vertex(arg.cell, cell, e[0]))
    b = quad_corner(quad_local_vertex(arg.cell, cell, e[1]))
    t = side_coords[0]
    return wp.vec3((1.0 - t) * wp.real(a[0]) + t * wp.real(b[0]), (1.0 - t) * wp.real(a[1]) + t * wp.real(b[1]), 0.0)


@wp.func
def quadmesh2d_side_inner_cell_coords(arg: Any, side: int, side_coords: wp.vec3):
    return _side_to_cell_coords(arg, side, arg.edge_quad_indices[side][0], side_coords)


@wp.func
def quadmesh2d_side_outer_cell_coords(arg: Any, side: int, side_coords: wp.vec3):
    return _side_to_cell_coords(arg, side, arg.edge_quad_indices[side][1], side_coords)


def orient_edges_2d(edges, owners, cells, positions):
    """Swap each edge's vertices where its normal (d_y, -d_x) points into its inner cell."""
    centroid = positions[cells[owners[:, 0]]].mean(axis=1)
    pa, pb = positions[edges[:, 0]], positions[edges[:, 1]]
    d = pb - pa
    normal = np.stack([d[:, 1], -d[:, 0]], axis=1)
    flip = np.einsum("ij,ij->i", centroid - 0.5 * (pa + pb), normal) > 0.0
    edges = edges.copy()
    edges[flip] = edges[flip][:, ::-1]
    return edges


class Quadmesh2D(MeshTopology, CellLookupMixin, Geometry):
    """Quadrilaterals ``quad_vertex_indices`` (n x 4, counter-clockwise) over ``positions`` (vec2)."""

    cell_vertex_indices = "quad_vertex_indices"
    dimension = 2
    cell_dimension = 2
    reference_cell_shape = "square"
    reference_side_shape = "segment"
    CellArg = Quadmesh2DCellArg
    SideArg = Quadmesh2DSideArg
    orient_edges = staticmethod(orient_edges_2d)

    def __new__(cls, *args, **kwargs):
        # as in warp-lang, vec3 positions make a surface in 3-D
        positions = kwargs.get("positions", args[1] if len(args) > 1 else None)
        if cls is Quadmesh2D and getattr(getattr(positions, "dtype", None), "_length_", 2) == 3:
            cls = next(sub for sub in cls.__subclasses__() if sub.dimension == 3)     # surface3d.Quadmesh3D
        return super().__new__(cls, *args, **kwargs)

    def __init__(self, quad_vertex_indices, positions, build_bvh=False, temporary_store=None,
                 cell_env=None, env_count=None):
        self.quad_vertex_indices = quad_vertex_indices
        self.positions = positions
        self.scalar_type = wp.float32
        quads = read_cells(quad_vertex_indices, positions, "Quadmesh2D")
        edges, owners, quad_edges = unique_facets(quads, [(k, (k + 1) % 4) for k in range(4)])
        edges = self.orient_edges(edges, owners, quads, positions.numpy().astype(np.float64))
        device = positions.device
        self.edge_vertex_indices = wp.array(edges, dtype=wp.vec2i, device=device)
        self.edge_quad_indices = wp.array(owners, dtype=wp.vec2i, device=device)
        self.quad_edge_indices = wp.array(quad_edges, dtype=int, device=device)
        self.set_boundary(owners)
        if build_bvh:
            self.build_bvh(positions.device)

    def cell_arg_value(self, device=None):
        a = Quadmesh2DCellArg()
        a.quad_vertex_indices, a.quad_edge_indices = self.quad_vertex_indices, self.quad_edge_indices
        a.edge_vertex_indices, a.positions = self.edge_vertex_indices, self.positions
        a.vertex_count, a.cell_count = self.vertex_count(), self.cell_count()
        a.bvh = self.bvh_id(device)
        return a

    def side_arg_value(self, device=None):
        a = Quadmesh2DSideArg()
        a.cell = self.cell_arg_value(device)
        a.edge_quad_indices = self.edge_quad_indices
        return a

    cell_position = quadmesh2d_cell_position
    cell_deformation_gradient = quadmesh2d_cell_deformation_gradient
    cell_inverse_deformation_gradient = quadmesh2d_cell_inverse_deformation_gradient
    cell_measure = quadmesh2d_cell_measure
    cell_normal = quadmesh2d_cell_normal
    side_position = quadmesh2d_side_position
    side_normal = quadmesh2d_side_normal
    side_measure = quadmesh2d_side_measure
    side_deformation_gradient = quadmesh2d_side_deformation_gradient
    side_inner_cell_index = quadmesh2d_side_inner_cell_index
    side_outer_cell_index = quadmesh2d_side_outer_cell_index
    side_inner_cell_coords = quadmesh2d_side_inner_cell_coords
    side_outer_cell_coords = quadmesh2d_side_outer_cell_coords

