"""``fem.Trimesh2D``: a triangle mesh in the plane.

Element coordinates of a cell are barycentric, ``(c0, c1, c2)`` for its vertices in the order
given; the reference triangle's parameters are ``(c1, c2)``. Sides are the unique edges (host
numpy at construction): edge ``(a, b)`` with ``a < b`` by vertex index, its side coordinate
``t`` running from a to b; its inner cell is the first triangle met holding it, its outer cell
the other one (the inner one on the boundary). Local edge ``k`` of a triangle is the one
opposite its vertex ``k``."""

from typing import Any

import numpy as np

from .. import _api as wp
from ..types import make_free_sample  # noqa: F401
from .geometry import Geometry
from .topology import check_indices


@wp.struct
class Trimesh2DCellArg:
    tri_vertex_indices: wp.array2d(dtype=int)
    tri_edge_indices: wp.array2d(dtype=int)
    positions: wp.array(dtype=wp.vec2)
    vertex_count: int


@wp.struct
class Trimesh2DSideArg:
    cell: Trimesh2DCellArg
    edge_vertex_indices: wp.array(dtype=wp.vec2i)
    edge_tri_indices: wp.array(dtype=wp.vec2i)


@wp.func
def _jacobian(arg: Trimesh2DCellArg, cell: int):
    p0 = arg.positions[arg.tri_vertex_indices[cell, 0]]
    return wp.matrix_from_cols(arg.positions[arg.tri_vertex_indices[cell, 1]] - p0,
                               arg.positions[arg.tri_vertex_indices[cell, 2]] - p0)


@wp.func
def trimesh2d_cell_position(arg: Trimesh2DCellArg, s: Any):
    c = s.element_coords
    t = s.element_index
    return (c[0] * arg.positions[arg.tri_vertex_indices[t, 0]] + c[1] * arg.positions[arg.tri_vertex_indices[t, 1]]
            + c[2] * arg.positions[arg.tri_vertex_indices[t, 2]])


@wp.func
def trimesh2d_cell_deformation_gradient(arg: Trimesh2DCellArg, s: Any):
    return _jacobian(arg, s.element_index)


@wp.func
def trimesh2d_cell_inverse_deformation_gradient(arg: Trimesh2DCellArg, s: Any):
    return wp.inverse(_jacobian(arg, s.element_index))


@wp.func
def trimesh2d_cell_measure(arg: Trimesh2DCellArg, s: Any):
    return 0.5 * wp.abs(wp.determinant(_jacobian(arg, s.element_index)))


@wp.func
def trimesh2d_cell_normal(arg: Trimesh2DCellArg, s: Any):
    return wp.vec2(0.0)


@wp.func
def _edge_points(arg: Trimesh2DSideArg, side: int):
    e = arg.edge_vertex_indices[side]
    return arg.cell.positions[e[0]], arg.cell.positions[e[1]]


@wp.func
def trimesh2d_side_position(arg: Trimesh2DSideArg, s: Any):
    pa, pb = _edge_points(arg, s.element_index)
    t = s.element_coords[0]
    return (1.0 - t) * pa + t * pb


@wp.func
def trimesh2d_side_normal(arg: Trimesh2DSideArg, s: Any):
    pa, pb = _edge_points(arg, s.element_index)
    d = pb - pa
    n = wp.normalize(wp.vec2(d[1], -d[0]))
    inner = arg.edge_tri_indices[s.element_index][0]
    centre = (arg.cell.positions[arg.cell.tri_vertex_indices[inner, 0]] +
              arg.cell.positions[arg.cell.tri_vertex_indices[inner, 1]] +
              arg.cell.positions[arg.cell.tri_vertex_indices[inner, 2]]) / 3.0
    if wp.dot(n, centre - pa) > 0.0:     # outward from the inner cell
        n = -n
    return n


@wp.func
def trimesh2d_side_measure(arg: Trimesh2DSideArg, s: Any):
    pa, pb = _edge_points(arg, s.element_index)
    return wp.length(pb - pa)


@wp.func
def trimesh2d_side_deformation_gradient(arg: Trimesh2DSideArg, s: Any):
    pa, pb = _edge_points(arg, s.element_index)
    return pb - pa


@wp.func
def trimesh2d_side_inner_cell_index(arg: Trimesh2DSideArg, side: int):
    return arg.edge_tri_indices[side][0]


@wp.func
def trimesh2d_side_outer_cell_index(arg: Trimesh2DSideArg, side: int):
    return arg.edge_tri_indices[side][1]


@wp.func
def local_vertex(arg: Trimesh2DCellArg, cell: int, vertex: int):
    k = int(0)
    for i in range(3):
        if arg.tri_vertex_indices[cell, i] == vertex:
            k = i
    return k


@wp.func
def _side_to_cell_coords(arg: Trimesh2DSideArg, side: int, cell: int, side_coords: wp.vec3):
    e = arg.edge_vertex_indices[side]
    c = wp.vec3(0.0)
    c[local_vertex(arg.cell, cell, e[0])] = 1.0 - side_coords[0]
    c[local_vertex(arg.cell, cell, e[1])] = side_coords[0]
    return c


@wp.func
def trimesh2d_side_inner_cell_coords(arg: Trimesh2DSideArg, side: int, side_coords: wp.vec3):
    return _side_to_cell_coords(arg, side, arg.edge_tri_indices[side][0], side_coords)


@wp.func
def trimesh2d_side_outer_cell_coords(arg: Trimesh2DSideArg, side: int, side_coords: wp.vec3):
    return _side_to_cell_coords(arg, side, arg.edge_tri_indices[side][1], side_coords)


def build_edges(tris):
    """(edge vertex pairs (a < b), per-edge (inner, outer) triangles, per-triangle local edge ->
    edge index) of a triangle index array."""
    n = len(tris)
    local = np.stack([tris[:, [1, 2]], tris[:, [2, 0]], tris[:, [0, 1]]], axis=1)      # (n, 3, 2)
    pairs = np.sort(local.reshape(-1, 2), axis=1)
    edges, inverse = np.unique(pairs, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    owner = np.repeat(np.arange(n), 3)
    inner = np.full(len(edges), -1, dtype=np.int64)
    outer = np.full(len(edges), -1, dtype=np.int64)
    for k in range(len(inverse)):                 # first triangle met is the inner one
        e = inverse[k]
        if inner[e] < 0:
            inner[e] = owner[k]
        else:
            outer[e] = owner[k]
    outer = np.where(outer < 0, inner, outer)
    return edges.astype(np.int32), np.stack([inner, outer], axis=1).astype(np.int32), \
        inverse.reshape(n, 3).astype(np.int32)


class Trimesh2D(Geometry):
    """Triangles ``tri_vertex_indices`` (n x 3) over ``positions`` (vec2)."""

    dimension = 2
    cell_dimension = 2
    reference_cell_shape = "triangle"
    reference_side_shape = "segment"
    CellArg = Trimesh2DCellArg
    SideArg = Trimesh2DSideArg

    def __init__(self, tri_vertex_indices, positions, build_bvh=False, temporary_store=None):
        self.tri_vertex_indices = tri_vertex_indices
        self.positions = positions
        self.scalar_type = wp.float32
        tris = tri_vertex_indices.numpy().astype(np.int64)
        check_indices(tris, positions.shape[0], "Trimesh2D")
        edges, owners, tri_edges = build_edges(tris)
        device = positions.device
        self.edge_vertex_indices = wp.array(edges, dtype=wp.vec2i, device=device)
        self.edge_tri_indices = wp.array(owners, dtype=wp.vec2i, device=device)
        self.tri_edge_indices = wp.array(tri_edges, dtype=int, device=device)
        self._boundary = np.nonzero(owners[:, 0] == owners[:, 1])[0].astype(np.int32)

    @property
    def name(self):
        return f"Trimesh2D_{self.cell_count()}"

    def cell_count(self):
        return self.tri_vertex_indices.shape[0]

    def vertex_count(self):
        return self.positions.shape[0]

    def side_count(self):
        return self.edge_vertex_indices.shape[0]

    def boundary_side_indices(self):
        return self._boundary

    def cell_arg_value(self, device=None):
        a = Trimesh2DCellArg()
        a.tri_vertex_indices, a.tri_edge_indices = self.tri_vertex_indices, self.tri_edge_indices
        a.positions, a.vertex_count = self.positions, self.vertex_count()
        return a

    def side_arg_value(self, device=None):
        a = Trimesh2DSideArg()
        a.cell = self.cell_arg_value(device)
        a.edge_vertex_indices, a.edge_tri_indices = self.edge_vertex_indices, self.edge_tri_indices
        return a

    cell_position = trimesh2d_cell_position
    cell_deformation_gradient = trimesh2d_cell_deformation_gradient
    cell_inverse_deformation_gradient = trimesh2d_cell_inverse_deformation_gradient
    cell_measure = trimesh2d_cell_measure
    cell_normal = trimesh2d_cell_normal
    cell_lookup = None
    side_position = trimesh2d_side_position
    side_normal = trimesh2d_side_normal
    side_measure = trimesh2d_side_measure
    side_deformation_gradient = trimesh2d_side_deformation_gradient
    side_inner_cell_index = trimesh2d_side_inner_cell_index
    side_outer_cell_index = trimesh2d_side_outer_cell_index
    side_inner_cell_coords = trimesh2d_side_inner_cell_coords
    side_outer_cell_coords = trimesh2d_side_outer_cell_coords
