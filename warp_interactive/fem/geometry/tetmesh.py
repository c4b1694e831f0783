"""``fem.Tetmesh``: a tetrahedral mesh.

A cell's element coordinates are the barycentric coordinates of its vertices 1, 2, 3 (that of
vertex 0 is one minus their sum). Its local edges are (0,1), (1,2), (2,0), (0,3), (1,3), (2,3)
and its local face ``k`` is the one opposite its vertex ``k``.

Sides are the unique triangular faces, numbered and given inner/outer cells by
``topology.unique_facets`` (as warp-lang does, walking each cell's faces (k, k+1, k+2 mod 4)).
A face's vertices are stored smallest first, the other two swapped where needed so that its
normal ``(v1 - v0) x (v2 - v0)`` points away from its inner cell; its coordinates are the
barycentric coordinates of those three vertices. Edges are numbered likewise (needed by the
spaces of degree 2 and more)."""

from typing import Any

import numpy as np

from .. import _api as wp
from .geometry import Geometry
from .lookup import CellLookupMixin
from .topology import MeshTopology, read_cells, unique_facets

TET_EDGES = [(0, 1), (1, 2), (2, 0), (0, 3), (1, 3), (2, 3)]


@wp.struct
class TetmeshCellArg:
    tet_vertex_indices: wp.array2d(dtype=int)
    tet_edge_indices: wp.array2d(dtype=int)
    tet_face_indices: wp.array2d(dtype=int)
    positions: wp.array(dtype=wp.vec3)
    vertex_count: int
    edge_count: int
    bvh: wp.uint64      # the cells' BVH (build_bvh), 0 without


@wp.struct
class TetmeshSideArg:
    cell: TetmeshCellArg
    face_vertex_indices: wp.array(dtype=wp.vec3i)
    face_tet_indices: wp.array(dtype=wp.vec2i)


@wp.func
def _vertex(arg: TetmeshCellArg, cell: int, k: int):
    return arg.positions[arg.tet_vertex_indices[cell, k]]


@wp.func
def tetmesh_cell_position(arg: TetmeshCellArg, s: Any):
    c = s.element_coords
    t = s.element_index
    return ((1.0 - c[0] - c[1] - c[2]) * _vertex(arg, t, 0) + c[0] * _vertex(arg, t, 1) + c[1] * _vertex(arg, t, 2)
            + c[2] * _vertex(arg, t, 3))


@wp.func
def tetmesh_cell_deformation_gradient(arg: TetmeshCellArg, s: Any):
    t = s.element_index
    p0 = _vertex(arg, t, 0)
    return wp.matrix_from_cols(_vertex(arg, t, 1) - p0, _vertex(arg, t, 2) - p0, _vertex(arg, t, 3) - p0)


@wp.func
def tetmesh_cell_inverse_deformation_gradient(arg: TetmeshCellArg, s: Any):
    return wp.inverse(tetmesh_cell_deformation_gradient(arg, s))


@wp.func
def tetmesh_cell_measure(arg: TetmeshCellArg, s: Any):
    return wp.abs(wp.determinant(tetmesh_cell_deformation_gradient(arg, s))) / 6.0


@wp.func
def tetmesh_cell_normal(arg: TetmeshCellArg, s: Any):
    return wp.vec3(0.0)


@wp.func
def _face_point(arg: TetmeshSideArg, side: int, k: int):
    return arg.cell.positions[arg.face_vertex_indices[side][k]]


@wp.func
def tetmesh_side_position(arg: TetmeshSideArg, s: Any):
    c = s.element_coords
    f = s.element_index
    return c[0] * _face_point(arg, f, 0) + c[1] * _face_point(arg, f, 1) + c[2] * _face_point(arg, f, 2)


@wp.func
def tetmesh_side_deformation_gradient(arg: TetmeshSideArg, s: Any):
    f = s.element_index
    p0 = _face_point(arg, f, 0)
    return wp.matrix_from_cols(_face_point(arg, f, 1) - p0, _face_point(arg, f, 2) - p0)


@wp.func
def _face_cross(arg: TetmeshSideArg, f: int):
    p0 = _face_point(arg, f, 0)
    return wp.cross(_face_point(arg, f, 1) - p0, _face_point(arg, f, 2) - p0)


@wp.func
def tetmesh_side_normal(arg: TetmeshSideArg, s: Any):
    return wp.normalize(_face_cross(arg, s.element_index))


@wp.func
def tetmesh_side_measure(arg: TetmeshSideArg, s: Any):
    return 0.5 * wp.length(_face_cross(arg, s.element_index))


@wp.func
def tetmesh_side_inner_cell_index(arg: TetmeshSideArg, side: int):
    return arg.face_tet_indices[side][0]


@wp.func
def tetmesh_side_outer_cell_index(arg: TetmeshSideArg, side: int):
    return arg.face_tet_indices[side][1]


@wp.func
def tet_local_vertex(arg: TetmeshCellArg, cell: int, vertex: int):
    k = int(0)
    for i in range(4):
        if arg.tet_vertex_indices[cell, i] == vertex:
            k = i
    return k


@wp.func
def _face_to_tet_coords(arg: TetmeshSideArg, side: int, cell: int, side_coords: wp.vec3):
    fv = arg.face_vertex_indices[side]
    bary = wp.vec4(0.0)
    for k in range(3):
        bary[tet_local_vertex(arg.cell, cell, fv[k])] = side_coords[k]
    return wp.vec3(bary[1], bary[2], bary[3])


@wp.func
def tetmesh_side_inner_cell_coords(arg: TetmeshSideArg, side: int, side_coords: wp.vec3):
    return _face_to_tet_coords(arg, side, arg.face_tet_indices[side][0], side_coords)


@wp.func
def tetmesh_side_outer_cell_coords(arg: TetmeshSideArg, side: int, side_coords: wp.vec3):
    return _face_to_tet_coords(arg, side, arg.face_tet_indices[side][1], side_coords)


def orient_faces(faces, owners, cells, positions):
    """Swap each face's last two vertices where its normal points into its inner cell."""
    centroid = positions[cells[owners[:, 0]]].mean(axis=1)
    p0, p1, p2 = (positions[faces[:, k]] for k in range(3))
    normal = np.cross(p1 - p0, p2 - p0)
    flip = np.einsum("ij,ij->i", centroid - (p0 + p1 + p2) / 3.0, normal) > 0.0
    faces = faces.copy()
    faces[flip] = faces[flip][:, [0, 2, 1]]
    return faces


class Tetmesh(MeshTopology, CellLookupMixin, Geometry):
    """Tetrahedra ``tet_vertex_indices`` (n x 4) over ``positions`` (vec3)."""

    cell_vertex_indices = "tet_vertex_indices"
    side_vertex_indices = "face_vertex_indices"
    dimension = 3
    cell_dimension = 3
    reference_cell_shape = "tetrahedron"
    reference_side_shape = "triangle"
    CellArg = TetmeshCellArg
    SideArg = TetmeshSideArg

    def __init__(self, tet_vertex_indices, positions, build_bvh=False, temporary_store=None,
                 cell_env=None, env_count=None):
        self.tet_vertex_indices = tet_vertex_indices
        self.positions = positions
        self.scalar_type = wp.float32
        tets = read_cells(tet_vertex_indices, positions, "Tetmesh")
        faces, owners, tet_faces = unique_facets(tets, [(k, (k + 1) % 4, (k + 2) % 4) for k in range(4)])
        faces = orient_faces(faces, owners, tets, positions.numpy().astype(np.float64))
        edges, _edge_owners, tet_edges = unique_facets(tets, TET_EDGES)
        device = positions.device
        self.face_vertex_indices = wp.array(faces, dtype=wp.vec3i, device=device)
        self.face_tet_indices = wp.array(owners, dtype=wp.vec2i, device=device)
        # local face k of the walk above is the one opposite vertex (k + 3) % 4
        self.tet_face_indices = wp.array(tet_faces[:, [1, 2, 3, 0]], dtype=int, device=device)
        self.edge_vertex_indices = wp.array(edges, dtype=wp.vec2i, device=device)
        self.tet_edge_indices = wp.array(tet_edges, dtype=int, device=device)
        self.set_boundary(owners)
        if build_bvh:
            self.build_bvh(positions.device)

    def cell_arg_value(self, device=None):
        a = TetmeshCellArg()
        a.tet_vertex_indices, a.positions = self.tet_vertex_indices, self.positions
        a.tet_edge_indices, a.tet_face_indices = self.tet_edge_indices, self.tet_face_indices
        a.vertex_count, a.edge_count = self.vertex_count(), self.edge_count()
        a.bvh = self.bvh_id(device)
        return a

    def side_arg_value(self, device=None):
        a = TetmeshSideArg()
        a.cell = self.cell_arg_value(device)
        a.face_vertex_indices, a.face_tet_indices = self.face_vertex_indices, self.face_tet_indices
        return a

    cell_vertex = _vertex
    cell_position = tetmesh_cell_position
    cell_deformation_gradient = tetmesh_cell_deformation_gradient
    cell_inverse_deformation_gradient = tetmesh_cell_inverse_deformation_gradient
    cell_measure = tetmesh_cell_measure
    cell_normal = tetmesh_cell_normal
    side_position = tetmesh_side_position
    side_normal = tetmesh_side_normal
    side_measure = tetmesh_side_measure
    side_deformation_gradient = tetmesh_side_deformation_gradient
    side_inner_cell_index = tetmesh_side_inner_cell_index
    side_outer_cell_index = tetmesh_side_outer_cell_index
    side_inner_cell_coords = tetmesh_side_inner_cell_coords
    side_outer_cell_coords = tetmesh_side_outer_cell_coords
