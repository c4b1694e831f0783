"""``wp.geometry.IsoSurfaceMarchingCubes``: marching cubes on a dense grid of nodes.

Every grid edge whose two nodes fall on different sides of the threshold (a node at or above it
counts as above) carries one vertex, numbered in the order of the edges' (i, j, k, axis) index,
so a vertex is shared by all the cells around its edge and the mesh is welded. Triangles follow
in the order of their cells' (i, j, k) index. Both passes count first, then an exclusive scan
gives each thread its output slot, then a second launch writes. Vertex positions are computed by
a differentiable kernel from the field (recorded on a ``wp.Tape``); the topology kernels are not.
"""

import warp_interactive as wp

from . import mc_tables as tables
from .dense_grid import (cell_case, crossed_edge_flags, dense_grid, device_tables, edge_crossing, edge_end,
                         edge_index, exclusive_slots)
from .iso_surface import IsoSurfaceBase, validate_field


@wp.kernel
def _edge_vertices(field: wp.array3d(dtype=wp.float32), threshold: wp.float32, lower: wp.vec3, delta: wp.vec3,
                   flags: wp.array(dtype=wp.int32), slots: wp.array(dtype=wp.int32),
                   verts: wp.array(dtype=wp.vec3)):
    i, j, k, axis = wp.tid()
    e = edge_index(i, j, k, axis, field.shape[1], field.shape[2])
    if flags[e] == 0:
        return
    a = wp.vec3i(i, j, k)
    b = edge_end(a, axis)
    t = edge_crossing(field, threshold, a, b)
    p0 = lower + wp.cw_mul(delta, wp.vec3(float(a[0]), float(a[1]), float(a[2])))
    p1 = lower + wp.cw_mul(delta, wp.vec3(float(b[0]), float(b[1]), float(b[2])))
    verts[slots[e]] = wp.lerp(p0, p1, t)


@wp.kernel(enable_backward=False)
def _cell_triangle_counts(field: wp.array3d(dtype=wp.float32), threshold: wp.float32,
                          corners: wp.array(dtype=wp.vec3i), case_range: wp.array(dtype=wp.int32),
                          counts: wp.array(dtype=wp.int32)):
    i, j, k = wp.tid()
    case = cell_case(field, threshold, i, j, k, corners)
    cell = (i * (field.shape[1] - 1) + j) * (field.shape[2] - 1) + k
    counts[cell] = (case_range[case + 1] - case_range[case]) / 3


@wp.kernel(enable_backward=False)
def _cell_triangles(field: wp.array3d(dtype=wp.float32), threshold: wp.float32,
                    corners: wp.array(dtype=wp.vec3i), case_range: wp.array(dtype=wp.int32),
                    tri_edges: wp.array(dtype=wp.int32), edge_offsets: wp.array(dtype=wp.vec4i),
                    vertex_slots: wp.array(dtype=wp.int32), face_slots: wp.array(dtype=wp.int32),
                    indices: wp.array(dtype=wp.int32)):
    i, j, k = wp.tid()
    ny, nz = field.shape[1], field.shape[2]
    case = cell_case(field, threshold, i, j, k, corners)
    start = case_range[case]
    count = case_range[case + 1] - start
    out = 3 * face_slots[(i * (ny - 1) + j) * (nz - 1) + k]
    for s in range(count):
        o = edge_offsets[tri_edges[start + s]]
        indices[out + s] = vertex_slots[edge_index(i + o[0], j + o[1], k + o[2], o[3], ny, nz)]


def extract_dense(field, threshold, lower, upper):
    """(verts, indices) of the level set: the two counted-and-scanned passes of the module."""
    grid = dense_grid(field, threshold, lower, upper)
    device, threshold, cells = grid.device, grid.threshold, grid.cells
    corners, case_range, tri_edges, edge_offsets = device_tables(
        device, "CUBE_CORNER_OFFSETS", "CASE_TO_TRI_RANGE", "TRI_LOCAL_INDICES", "EDGE_OFFSETS")

    flags = crossed_edge_flags(grid, field)
    vertex_slots, n_verts = exclusive_slots(flags)
    verts = wp.empty(n_verts, dtype=wp.vec3, device=device, requires_grad=field.requires_grad)
    if n_verts == 0:
        return verts, wp.empty(0, dtype=wp.int32, device=device)
    wp.launch(_edge_vertices, dim=(*grid.nodes, 3),
              inputs=[field, threshold, grid.lower, grid.delta, flags, vertex_slots], outputs=[verts], device=device)

    counts = wp.empty(cells[0] * cells[1] * cells[2], dtype=wp.int32, device=device)
    wp.launch(_cell_triangle_counts, dim=cells, inputs=[field, threshold, corners, case_range, counts],
              device=device, record_tape=False)
    face_slots, n_faces = exclusive_slots(counts)
    indices = wp.empty(3 * n_faces, dtype=wp.int32, device=device)
    wp.launch(_cell_triangles, dim=cells,
              inputs=[field, threshold, corners, case_range, tri_edges, edge_offsets, vertex_slots, face_slots],
              outputs=[indices], device=device, record_tape=False)
    return verts, indices


_LEGACY_BOUNDS = {"domain_bounds_lower_corner": "lower", "domain_bounds_upper_corner": "upper"}
_UNSET = object()   # a legacy bound passed at all (even as None) is warned about


def _deprecated(message, stacklevel):
    wp.logger.log_warning(message, DeprecationWarning, stacklevel=stacklevel + 1)


class IsoSurfaceMarchingCubes(IsoSurfaceBase):
    """Marching cubes on an ``nx * ny * nz`` node grid: ``surface(field, threshold)`` fills
    ``verts`` (one per crossed grid edge, shared by its cells) and ``indices`` (flat int32,
    three per triangle). ``extract`` does the same without an instance. Differentiable: with
    ``field.requires_grad`` the vertex positions carry gradients back to the field."""

    CUBE_CORNER_OFFSETS = tables.CUBE_CORNER_OFFSETS
    EDGE_TO_CORNERS = tables.EDGE_TO_CORNERS
    CASE_TO_TRI_RANGE = tables.CASE_TO_TRI_RANGE
    TRI_LOCAL_INDICES = tables.TRI_LOCAL_INDICES

    def __init__(self, nx: int, ny: int, nz: int, lower=None, upper=None, *,
                 domain_bounds_lower_corner=_UNSET, domain_bounds_upper_corner=_UNSET):
        bounds = {"lower": lower, "upper": upper}
        legacy = {"domain_bounds_lower_corner": domain_bounds_lower_corner,
                  "domain_bounds_upper_corner": domain_bounds_upper_corner}
        for old, new in _LEGACY_BOUNDS.items():
            if legacy[old] is _UNSET:
                continue
            if bounds[new] is not None:
                raise TypeError(f"Cannot specify both `{new}` and `{old}`.")
            _deprecated(f"IsoSurfaceMarchingCubes argument `{old}` is deprecated. Use `{new}` instead.", 2)
            bounds[new] = legacy[old]
        super().__init__(nx, ny, nz, bounds["lower"], bounds["upper"])

    @property
    def domain_bounds_lower_corner(self):
        _deprecated("IsoSurfaceMarchingCubes.domain_bounds_lower_corner is deprecated. Use `lower` instead.", 2)
        return self.lower

    @domain_bounds_lower_corner.setter
    def domain_bounds_lower_corner(self, value):
        _deprecated("IsoSurfaceMarchingCubes.domain_bounds_lower_corner is deprecated. Use `lower` instead.", 2)
        self.lower = value

    @property
    def domain_bounds_upper_corner(self):
        _deprecated("IsoSurfaceMarchingCubes.domain_bounds_upper_corner is deprecated. Use `upper` instead.", 2)
        return self.upper

    @domain_bounds_upper_corner.setter
    def domain_bounds_upper_corner(self, value):
        _deprecated("IsoSurfaceMarchingCubes.domain_bounds_upper_corner is deprecated. Use `upper` instead.", 2)
        self.upper = value

    def surface(self, field, threshold: float) -> None:
        validate_field(field)
        self._check_field_shape(field)
        self.verts, self.indices = extract_dense(field, threshold, self.lower, self.upper)

    @classmethod
    def extract(cls, field, threshold: float = 0.0, *, lower=None, upper=None):
        """(verts, indices): the ``threshold`` level set of the 3D float32 ``field``, its node
        (0, 0, 0) at ``lower`` and its last node at ``upper`` (default: integer coordinates)."""
        return extract_dense(field, threshold, lower, upper)

    @classmethod
    def extract_surface_marching_cubes(cls, field, threshold: float = 0.0, *, lower=None, upper=None):
        """Deprecated spelling of ``extract``."""
        _deprecated("MarchingCubes.extract_surface_marching_cubes() is deprecated. "
                    "Use IsoSurfaceMarchingCubes.extract() instead.", 2)
        return extract_dense(field, threshold, lower, upper)
