"""``fem.Trimesh3D`` and ``fem.Quadmesh3D``: triangle and quad meshes of a surface in 3-D.

Cells, sides and their coordinates are those of Trimesh2D / Quadmesh2D (the same device
functions, read through vec3 positions). What changes with the embedding: a cell's
deformation gradient is 3 x 2, so its "inverse" is the pseudo-inverse ``(F^T F)^-1 F^T``
(world gradients of shape functions then lie in the surface's tangent plane), its measure is
``|F_u x F_v|`` and its normal ``F_u x F_v`` normalized; sides (edges) have no normal, as in
warp-lang. Each edge is stored in the direction that makes ``edge x cell normal`` point away
from its inner cell (warp-lang's orientation), where the cell normal is ``(p1 - p0) x (p2 - p0)``
for a triangle and ``(p2 - p0) x (p3 - p1)`` for a quad."""

from typing import Any

import numpy as np

from .. import _api as wp
from . import quadmesh2d as qm
from . import trimesh2d as tm


@wp.struct
class Trimesh3DCellArg:
    tri_vertex_indices: wp.array2d(dtype=int)
    tri_edge_indices: wp.array2d(dtype=int)
    positions: wp.array(dtype=wp.vec3)
    vertex_count: int
    bvh: wp.uint64


@wp.struct
class Trimesh3DSideArg:
    cell: Trimesh3DCellArg
    edge_vertex_indices: wp.array(dtype=wp.vec2i)
    edge_tri_indices: wp.array(dtype=wp.vec2i)


@wp.struct
class Quadmesh3DCellArg:
    quad_vertex_indices: wp.array2d(dtype=int)
    quad_edge_indices: wp.array2d(dtype=int)
    edge_vertex_indices: wp.array(dtype=wp.vec2i)
    positions: wp.array(dtype=wp.vec3)
    vertex_count: int
    cell_count: int
    bvh: wp.uint64


@wp.struct
class Quadmesh3DSideArg:
    cell: Quadmesh3DCellArg
    edge_quad_indices: wp.array(dtype=wp.vec2i)


@wp.func
def _columns_cross(F: Any):
    return wp.cross(wp.vec3(F[0, 0], F[1, 0], F[2, 0]), wp.vec3(F[0, 1], F[1, 1], F[2, 1]))


@wp.func
def _pseudo_inverse(F: Any):
    Ft = wp.transpose(F)
    return wp.inverse(Ft * F) * Ft


@wp.func
def trimesh3d_cell_inverse_deformation_gradient(arg: Trimesh3DCellArg, s: Any):
    return _pseudo_inverse(tm.trimesh2d_cell_deformation_gradient(arg, s))


@wp.func
def trimesh3d_cell_measure(arg: Trimesh3DCellArg, s: Any):
    return 0.5 * wp.length(_columns_cross(tm.trimesh2d_cell_deformation_gradient(arg, s)))


@wp.func
def trimesh3d_cell_normal(arg: Trimesh3DCellArg, s: Any):
    return wp.normalize(_columns_cross(tm.trimesh2d_cell_deformation_gradient(arg, s)))


@wp.func
def quadmesh3d_cell_inverse_deformation_gradient(arg: Quadmesh3DCellArg, s: Any):
    return _pseudo_inverse(qm.quadmesh2d_cell_deformation_gradient(arg, s))


@wp.func
def quadmesh3d_cell_measure(arg: Quadmesh3DCellArg, s: Any):
    return wp.length(_columns_cross(qm.quadmesh2d_cell_deformation_gradient(arg, s)))


@wp.func
def quadmesh3d_cell_normal(arg: Quadmesh3DCellArg, s: Any):
    return wp.normalize(_columns_cross(qm.quadmesh2d_cell_deformation_gradient(arg, s)))


def orient_edges_3d(edges, owners, cells, positions):
    """Swap each edge's vertices where ``edge x cell normal`` points into its inner cell."""
    p = positions[cells[owners[:, 0]]]                       # (edges, 3 or 4, 3)
    if p.shape[1] == 3:
        normal = np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0])
    else:
        normal = np.cross(p[:, 2] - p[:, 0], p[:, 3] - p[:, 1])
    pa, pb = positions[edges[:, 0]], positions[edges[:, 1]]
    outward = np.cross(pb - pa, normal)
    flip = np.einsum("ij,ij->i", p.mean(axis=1) - 0.5 * (pa + pb), outward) > 0.0
    edges = edges.copy()
    edges[flip] = edges[flip][:, ::-1]
    return edges


class Trimesh3D(tm.Trimesh2D):
    """Triangles ``tri_vertex_indices`` (n x 3) over ``positions`` (vec3): a surface in 3-D."""

    dimension = 3
    cell_dimension = 2
    CellArg = Trimesh3DCellArg
    SideArg = Trimesh3DSideArg

    orient_edges = staticmethod(orient_edges_3d)

    def cell_arg_value(self, device=None):
        a = Trimesh3DCellArg()
        a.tri_vertex_indices, a.tri_edge_indices = self.tri_vertex_indices, self.tri_edge_indices
        a.positions, a.vertex_count = self.positions, self.vertex_count()
        a.bvh = self.bvh_id(device)
        return a

    def side_arg_value(self, device=None):
        a = Trimesh3DSideArg()
        a.cell = self.cell_arg_value(device)
        a.edge_vertex_indices, a.edge_tri_indices = self.edge_vertex_indices, self.edge_tri_indices
        return a

    cell_inverse_deformation_gradient = trimesh3d_cell_inverse_deformation_gradient
    cell_measure = trimesh3d_cell_measure
    cell_normal = trimesh3d_cell_normal
    side_normal = None


class Quadmesh3D(qm.Quadmesh2D):
    """Quadrilaterals ``quad_vertex_indices`` (n x 4) over ``positions`` (vec3): a surface in 3-D."""

    dimension = 3
    cell_dimension = 2
    CellArg = Quadmesh3DCellArg
    SideArg = Quadmesh3DSideArg
    orient_edges = staticmethod(orient_edges_3d)

    def cell_arg_value(self, device=None):
        a = Quadmesh3DCellArg()
        a.quad_vertex_indices, a.quad_edge_indices = self.quad_vertex_indices, self.quad_edge_indices
        a.edge_vertex_indices, a.positions = self.edge_vertex_indices, self.positions
        a.vertex_count, a.cell_count = self.vertex_count(), self.cell_count()
        a.bvh = self.bvh_id(device)
        return a

    def side_arg_value(self, device=None):
        a = Quadmesh3DSideArg()
        a.cell = self.cell_arg_value(device)
        a.edge_quad_indices = self.edge_quad_indices
        return a

    cell_inverse_deformation_gradient = quadmesh3d_cell_inverse_deformation_gradient
    cell_measure = quadmesh3d_cell_measure
    cell_normal = quadmesh3d_cell_normal
    side_normal = None
