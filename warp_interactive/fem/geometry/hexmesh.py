"""``fem.Hexmesh``: a mesh of (possibly distorted) hexahedra.

A cell's vertices are listed as warp-lang lists them: its bottom face counter-clockwise
(0: (0,0,0), 1: (1,0,0), 2: (1,1,0), 3: (0,1,0)), then its top face likewise (4..7 at z = 1);
its element coordinates are those of the trilinear map from the unit cube. Local faces are
numbered x = 0, x = 1, y = 0, y = 1, z = 0, z = 1 (``FACE_VERTICES``), local edges as in
``EDGE_VERTICES``.

Sides are the unique quadrilateral faces, numbered and given inner/outer cells by
``topology.unique_facets`` (as warp-lang does). A side's four vertices are stored going round
the face from its smallest vertex, in the direction whose second vertex is smaller than its
fourth, then reversed (v0, v3, v2, v1) where the normal ``(v2 - v0) x (v3 - v1)`` would point
into its inner cell. Its coordinates ``(u, v)`` are those of the bilinear map with v0 at (0, 0),
v1 at (1, 0), v2 at (1, 1), v3 at (0, 1); a cell on either side maps them to its own
coordinates through the cell corners of v0, v1 and v3. Edges are numbered likewise (needed
by the spaces of degree 2 and more), stored smallest vertex first."""

from typing import Any

import numpy as np

from .. import _api as wp
from .geometry import Geometry
from .lookup import CellLookupMixin
from .topology import MeshTopology, read_cells, unique_facets

FACE_VERTICES = [(0, 4, 7, 3), (1, 2, 6, 5), (0, 1, 5, 4), (3, 7, 6, 2), (0, 3, 2, 1), (4, 5, 6, 7)]
EDGE_VERTICES = [(0, 1), (1, 2), (3, 2), (0, 3), (4, 5), (5, 6), (7, 6), (4, 7), (0, 4), (1, 5), (2, 6), (3, 7)]
CORNERS = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1)]

# the reference corner (0 or 1 per axis) of each local vertex
CORNER_X = wp.constant(wp.types.vector(8, wp.int32)(*[c[0] for c in CORNERS]))
CORNER_Y = wp.constant(wp.types.vector(8, wp.int32)(*[c[1] for c in CORNERS]))
CORNER_Z = wp.constant(wp.types.vector(8, wp.int32)(*[c[2] for c in CORNERS]))


@wp.struct
class HexmeshCellArg:
    hex_vertex_indices: wp.array2d(dtype=int)
    hex_edge_indices: wp.array2d(dtype=int)
    hex_face_indices: wp.array2d(dtype=int)
    face_vertex_indices: wp.array(dtype=wp.vec4i)
    positions: wp.array(dtype=wp.vec3)
    vertex_count: int
    edge_count: int
    face_count: int
    bvh: wp.uint64      # the cells' BVH (build_bvh), 0 without


@wp.struct
class HexmeshSideArg:
    cell: HexmeshCellArg
    face_hex_indices: wp.array(dtype=wp.vec2i)


@wp.func
def hex_corner(k: int):
    """Reference corner of local vertex ``k``."""
    return wp.vec3i(CORNER_X[k], CORNER_Y[k], CORNER_Z[k])


@wp.func
def _corner_weights(c: wp.vec3, k: int):
    """Trilinear weight of local vertex ``k`` at ``c`` and its gradient."""
    a = hex_corner(k)
    wx = wp.where(a[0] == 1, c[0], 1.0 - c[0])
    wy = wp.where(a[1] == 1, c[1], 1.0 - c[1])
    wz = wp.where(a[2] == 1, c[2], 1.0 - c[2])
    sx = wp.where(a[0] == 1, wp.real(1.0), wp.real(-1.0))
    sy = wp.where(a[1] == 1, wp.real(1.0), wp.real(-1.0))
    sz = wp.where(a[2] == 1, wp.real(1.0), wp.real(-1.0))
    return wx * wy * wz, wp.vec3(sx * wy * wz, wx * sy * wz, wx * wy * sz)


@wp.func
def hexmesh_cell_position(arg: HexmeshCellArg, s: Any):
    p = wp.vec3(0.0)
    for k in range(8):
        w, _g = _corner_weights(s.element_coords, k)
        p += w * arg.positions[arg.hex_vertex_indices[s.element_index, k]]
    return p


@wp.func
def hexmesh_cell_deformation_gradient(arg: HexmeshCellArg, s: Any):
    F = wp.mat33(0.0)
    for k in range(8):
        _w, g = _corner_weights(s.element_coords, k)
        F += wp.outer(arg.positions[arg.hex_vertex_indices[s.element_index, k]], g)
    return F


@wp.func
def hexmesh_cell_inverse_deformation_gradient(arg: HexmeshCellArg, s: Any):
    return wp.inverse(hexmesh_cell_deformation_gradient(arg, s))


@wp.func
def hexmesh_cell_measure(arg: HexmeshCellArg, s: Any):
    return wp.abs(wp.determinant(hexmesh_cell_deformation_gradient(arg, s)))


@wp.func
def hexmesh_cell_normal(arg: HexmeshCellArg, s: Any):
    return wp.vec3(0.0)


@wp.func
def _face_point(arg: HexmeshSideArg, side: int, k: int):
    return arg.cell.positions[arg.cell.face_vertex_indices[side][k]]


@wp.func
def hexmesh_side_position(arg: HexmeshSideArg, s: Any):
    u = s.element_coords[0]
    v = s.element_coords[1]
    f = s.element_index
    return ((1.0 - u) * (1.0 - v) * _face_point(arg, f, 0) + u * (1.0 - v) * _face_point(arg, f, 1)
            + u * v * _face_point(arg, f, 2) + (1.0 - u) * v * _face_point(arg, f, 3))


@wp.func
def hexmesh_side_deformation_gradient(arg: HexmeshSideArg, s: Any):
    u = s.element_coords[0]
    v = s.element_coords[1]
    f = s.element_index
    p0 = _face_point(arg, f, 0)
    p1 = _face_point(arg, f, 1)
    p2 = _face_point(arg, f, 2)
    p3 = _face_point(arg, f, 3)
    return wp.matrix_from_cols((1.0 - v) * (p1 - p0) + v * (p2 - p3), u * (p2 - p1) + (1.0 - u) * (p3 - p0))


@wp.func
def _side_cross(arg: HexmeshSideArg, s: Any):
    F = hexmesh_side_deformation_gradient(arg, s)
    return wp.cross(wp.vec3(F[0, 0], F[1, 0], F[2, 0]), wp.vec3(F[0, 1], F[1, 1], F[2, 1]))


@wp.func
def hexmesh_side_normal(arg: HexmeshSideArg, s: Any):
    return wp.normalize(_side_cross(arg, s))


@wp.func
def hexmesh_side_measure(arg: HexmeshSideArg, s: Any):
    return wp.length(_side_cross(arg, s))


@wp.func
def hexmesh_side_inner_cell_index(arg: HexmeshSideArg, side: int):
    return arg.face_hex_indices[side][0]


@wp.func
def hexmesh_side_outer_cell_index(arg: HexmeshSideArg, side: int):
    return arg.face_hex_indices[side][1]


@wp.func
def hex_local_vertex(arg: HexmeshCellArg, cell: int, vertex: int):
    k = int(0)
    for i in range(8):
        if arg.hex_vertex_indices[cell, i] == vertex:
            k = i
    return k


@wp.func
def face_frame(arg: HexmeshCellArg, face: int, cell: int):
    """The reference corners, in ``cell``, of the face's vertices 0, 1 and 3 (its origin and
    the ends of its u and v axes)."""
    fv = arg.face_vertex_indices[face]
    return (hex_corner(hex_local_vertex(arg, cell, fv[0])), hex_corner(hex_local_vertex(arg, cell, fv[1])),
            hex_corner(hex_local_vertex(arg, cell, fv[3])))


@wp.func
def _side_to_cell_coords(arg: HexmeshSideArg, side: int, cell: int, side_coords: wp.vec3):
    c0, c1, c3 = face_frame(arg.cell, side, cell)
    o = wp.vec3(wp.real(c0[0]), wp.real(c0[1]), wp.real(c0[2]))
    du = wp.vec3(wp.real(c1[0] - c0[0]), wp.real(c1[1] - c0[1]), wp.real(c1[2] - c0[2]))
    dv = wp.vec3(wp.real(c3[0] - c0[0]), wp.real(c3[1] - c0[1]), wp.real(c3[2] - c0[2]))
    return o + side_coords[0] * du + side_coords[1] * dv


@wp.func
def hexmesh_side_inner_cell_coords(arg: HexmeshSideArg, side: int, side_coords: wp.vec3):
    return _side_to_cell_coords(arg, side, arg.face_hex_indices[side][0], side_coords)


@wp.func
def hexmesh_side_outer_cell_coords(arg: HexmeshSideArg, side: int, side_coords: wp.vec3):
    return _side_to_cell_coords(arg, side, arg.face_hex_indices[side][1], side_coords)


def order_faces(hexes, owners, hex_faces, positions):
    """Each face's vertices going round it as warp-lang stores them (see the module doc)."""
    n = len(owners)
    local = np.argmax(hex_faces[owners[:, 0]] == np.arange(n)[:, None], axis=1)     # in its inner cell
    cycle = hexes[owners[:, 0][:, None], np.asarray(FACE_VERTICES)[local]]           # (n, 4)
    start = np.argmin(cycle, axis=1)
    cycle = np.take_along_axis(cycle, (start[:, None] + np.arange(4)[None]) % 4, axis=1)
    backward = cycle[:, 1] > cycle[:, 3]
    cycle[backward] = cycle[backward][:, [0, 3, 2, 1]]
    centroid = positions[hexes[owners[:, 0]]].mean(axis=1)
    p = positions[cycle]
    normal = np.cross(p[:, 2] - p[:, 0], p[:, 3] - p[:, 1])
    flip = np.einsum("ij,ij->i", centroid - p.mean(axis=1), normal) > 0.0
    cycle[flip] = cycle[flip][:, [0, 3, 2, 1]]
    return cycle.astype(np.int32)


class Hexmesh(MeshTopology, CellLookupMixin, Geometry):
    """Hexahedra ``hex_vertex_indices`` (n x 8) over ``positions`` (vec3)."""

    cell_vertex_indices = "hex_vertex_indices"
    side_vertex_indices = "face_vertex_indices"
    dimension = 3
    cell_dimension = 3
    reference_cell_shape = "cube"
    reference_side_shape = "square"
    CellArg = HexmeshCellArg
    SideArg = HexmeshSideArg

    def __init__(self, hex_vertex_indices, positions, assume_parallelepiped_cells=False, build_bvh=False,
                 temporary_store=None, cell_env=None, env_count=None):
        self.hex_vertex_indices = hex_vertex_indices
        self.positions = positions
        self.parallelepiped_cells = assume_parallelepiped_cells
        self.scalar_type = wp.float32
        hexes = read_cells(hex_vertex_indices, positions, "Hexmesh")
        _faces, owners, hex_faces = unique_facets(hexes, FACE_VERTICES)
        faces = order_faces(hexes, owners, hex_faces, positions.numpy().astype(np.float64))
        edges, _edge_owners, hex_edges = unique_facets(hexes, EDGE_VERTICES)
        device = positions.device
        self.face_vertex_indices = wp.array(faces, dtype=wp.vec4i, device=device)
        self.face_hex_indices = wp.array(owners, dtype=wp.vec2i, device=device)
        self.hex_face_indices = wp.array(hex_faces, dtype=int, device=device)
        self.edge_vertex_indices = wp.array(edges, dtype=wp.vec2i, device=device)
        self.hex_edge_indices = wp.array(hex_edges, dtype=int, device=device)
        self.set_boundary(owners)
        if build_bvh:
            self.build_bvh(positions.device)

    def cell_arg_value(self, device=None):
        a = HexmeshCellArg()
        a.hex_vertex_indices, a.positions = self.hex_vertex_indices, self.positions
        a.hex_edge_indices, a.hex_face_indices = self.hex_edge_indices, self.hex_face_indices
        a.face_vertex_indices = self.face_vertex_indices
        a.vertex_count, a.edge_count, a.face_count = self.vertex_count(), self.edge_count(), self.side_count()
        a.bvh = self.bvh_id(device)
        return a

    def side_arg_value(self, device=None):
        a = HexmeshSideArg()
        a.cell = self.cell_arg_value(device)
        a.face_hex_indices = self.face_hex_indices
        return a

    cell_position = hexmesh_cell_position
    cell_deformation_gradient = hexmesh_cell_deformation_gradient
    cell_inverse_deformation_gradient = hexmesh_cell_inverse_deformation_gradient
    cell_measure = hexmesh_cell_measure
    cell_normal = hexmesh_cell_normal
    side_position = hexmesh_side_position
    side_normal = hexmesh_side_normal
    side_measure = hexmesh_side_measure
    side_deformation_gradient = hexmesh_side_deformation_gradient
    side_inner_cell_index = hexmesh_side_inner_cell_index
    side_outer_cell_index = hexmesh_side_outer_cell_index
    side_inner_cell_coords = hexmesh_side_inner_cell_coords
    side_outer_cell_coords = hexmesh_side_outer_cell_coords
