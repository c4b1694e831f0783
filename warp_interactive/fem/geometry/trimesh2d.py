"""``fem.Trimesh2D``: a triangle mesh in the plane.

Element coordinates of a cell are barycentric, ``(c0, c1, c2)`` for its vertices in the order
given; the reference triangle's parameters are ``(c1, c2)``. Sides are the unique edges,
numbered and given inner/outer cells by ``topology.unique_facets`` (as warp-lang does); each
is stored in the direction (a, b) whose normal ``(d_y, -d_x)`` points away from its inner cell,
its side coordinate ``t`` running from a to b. Local edge ``k`` of a triangle is the one
opposite its vertex ``k``."""

from typing import Any

import numpy as np

from .. import _api as wp
from ..types import make_free_sample  # noqa: F401
from .geometry import Geometry
from .lookup import CellLookupMixin
from .quadmesh2d import orient_edges_2d
from .topology import MeshTopology, read_cells, unique_facets


@wp.struct
class Trimesh2DCellArg:
    tri_vertex_indices: wp.array2d(dtype=int)
    tri_edge_indices: wp.array2d(dtype=int)
    positions: wp.array(dtype=wp.vec2)
    vertex_count: int
    bvh: wp.uint64      # the cells' BVH (build_bvh), 0 without


@wp.struct
class Trimesh2DSideArg:
    cell: Trimesh2DCellArg
    edge_vertex_indices: wp.array(dtype=wp.vec2i)
    edge_tri_indices: wp.array(dtype=wp.vec2i)


@wp.func
def _jacobian(arg: Any, cell: int):
    p0 = arg.positions[arg.tri_vertex_indices[cell, 0]]
    return wp.matrix_from_cols(arg.positions[arg.tri_vertex_indices[cell, 1]] - p0,
                               arg.positions[arg.tri_vertex_indices[cell, 2]] - p0)


@wp.func
def trimesh2d_cell_vertex(arg: Any, cell: int, k: int):
    return arg.positions[arg.tri_vertex_indices[cell, k]]


@wp.func
def trimesh2d_cell_position(arg: Any, s: Any):
    c = s.element_coords
    t = s.element_index
    return (c[0] * arg.positions[arg.tri_vertex_indices[t, 0]] + c[1] * arg.positions[arg.tri_vertex_indices[t, 1]]
            + c[2] * arg.positions[arg.tri_vertex_indices[t, 2]])


@wp.func
def trimesh2d_cell_deformation_gradient(arg: Any, s: Any):
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
def _edge_points(arg: Any, side: int):
    e = arg.edge_vertex_indices[side]
    return arg.cell.positions[e[0]], arg.cell.positions[e[1]]


@wp.func
def trimesh2d_side_position(arg: Any, s: Any):
    pa, pb = _edge_points(arg, s.element_index)
    t = s.element_coords[0]
    return (1.0 - t) * pa + t * pb


@wp.func
def trimesh2d_side_normal(arg: Trimesh2DSideArg, s: Any):
    pa, pb = _edge_points(arg, s.element_index)
    d = pb - pa
    return wp.normalize(wp.vec2(d[1], -d[0]))


@wp.func
def trimesh2d_side_measure(arg: Any, s: Any):
    pa, pb = _edge_points(arg, s.element_index)
    return wp.length(pb - pa)


@wp.func
def trimesh2d_side_deformation_gradient(arg: Any, s: Any):
    pa, pb = _edge_points(arg, s.element_index)
    return pb - pa


@wp.func
def trimesh2d_side_inner_cell_index(arg: Any, side: int):
    return arg.edge_tri_indices[side][0]


@wp.func
def trimesh2d_side_outer_cell_index(arg: Any, side: int):
    return arg.edge_tri_indices[side][1]


@wp.func
def local_vertex(arg: Any, cell: int, vertex: int):
    k = int(0)
    for i in range(3):
        if arg.tri_vertex_indices[cell, i] == vertex:
            k = i
    return k


@wp.func
def _side_to_cell_coords(arg: Any, side: int, cell: int, side_coords: wp.vec3):
    e = arg.edge_vertex_indices[side]
    c = wp.vec3(0.0)
    c[local_vertex(arg.cell, cell, e[0])] = 1.0 - side_coords[0]
    c[local_vertex(arg.cell, cell, e[1])] = side_coords[0]
    return c


@wp.func
def trimesh2d_side_inner_cell_coords(arg: Any, side: int, side_coords: wp.vec3):
    return _side_to_cell_coords(arg, side, arg.edge_tri_indices[side][0], side_coords)


@wp.func
def trimesh2d_side_outer_cell_coords(arg: Any, side: int, side_coords: wp.vec3):
    return _side_to_cell_coords(arg, side, arg.edge_tri_indices[side][1], side_coords)


class Trimesh2D(MeshTopology, CellLookupMixin, Geometry):
    """Triangles ``tri_vertex_indices`` (n x 3) over ``positions`` (vec2)."""

    cell_vertex_indices = "tri_vertex_indices"
    dimension = 2
    cell_dimension = 2
    reference_cell_shape = "triangle"
    reference_side_shape = "segment"
    CellArg = Trimesh2DCellArg
    SideArg = Trimesh2DSideArg
    orient_edges = staticmethod(orient_edges_2d)

    def __new__(cls, *args, **kwargs):
        # as in warp-lang, vec3 positions make a surface in 3-D
        positions = kwargs.get("positions", args[1] if len(args) > 1 else None)
        if cls is Trimesh2D and getattr(getattr(positions, "dtype", None), "_length_", 2) == 3:
            cls = next(sub for sub in cls.__subclasses__() if sub.dimension == 3)     # surface3d.Trimesh3D
        return super().__new__(cls, *args, **kwargs)

    def __init__(self, tri_vertex_indices, positions, build_bvh=False, temporary_store=None, cell_env=None,
                 env_count=None):
        self.tri_vertex_indices = tri_vertex_indices
        self.positions = positions
        self.scalar_type = wp.float32
        tris = read_cells(tri_vertex_indices, positions, "Trimesh2D")
        # numbered walking each triangle's edges (0,1), (1,2), (2,0), as warp-lang does
        edges, owners, walk = unique_facets(tris, [(0, 1), (1, 2), (2, 0)])
        edges = self.orient_edges(edges, owners, tris, positions.numpy().astype(np.float64))
        tri_edges = walk[:, [1, 2, 0]]           # local edge k: the one opposite vertex k
        device = positions.device
        self.edge_vertex_indices = wp.array(edges, dtype=wp.vec2i, device=device)
        self.edge_tri_indices = wp.array(owners, dtype=wp.vec2i, device=device)
        self.tri_edge_indices = wp.array(tri_edges, dtype=int, device=device)
        self.set_boundary(owners)
        if build_bvh:
            self.build_bvh(positions.device)

    def cell_arg_value(self, device=None):
        a = Trimesh2DCellArg()
        a.tri_vertex_indices, a.tri_edge_indices = self.tri_vertex_indices, self.tri_edge_indices
        a.positions, a.vertex_count = self.positions, self.vertex_count()
        a.bvh = self.bvh_id(device)
        return a

    def side_arg_value(self, device=None):
        a = Trimesh2DSideArg()
        a.cell = self.cell_arg_value(device)
        a.edge_vertex_indices, a.edge_tri_indices = self.edge_vertex_indices, self.edge_tri_indices
        return a

    cell_vertex = trimesh2d_cell_vertex
    cell_position = trimesh2d_cell_position
    cell_deformation_gradient = trimesh2d_cell_deformation_gradient
    cell_inverse_deformation_gradient = trimesh2d_cell_inverse_deformation_gradient
    cell_measure = trimesh2d_cell_measure
    cell_normal = trimesh2d_cell_normal
    side_position = trimesh2d_side_position
    side_normal = trimesh2d_side_normal
    side_measure = trimesh2d_side_measure
    side_deformation_gradient = trimesh2d_side_deformation_gradient
    side_inner_cell_index = trimesh2d_side_inner_cell_index
    side_outer_cell_index = trimesh2d_side_outer_cell_index
    side_inner_cell_coords = trimesh2d_side_inner_cell_coords
    side_outer_cell_coords = trimesh2d_side_outer_cell_coords
