"""``wp.geometry.IsoSurfaceMarchingCubes``: marching cubes on a dense grid of nodes.

Every grid edge whose two nodes fall on different sides of the threshold (a node at or above it
counts as above) carries one vertex, numbered in the order of the edges' (i, j, k, axis) index,
so a vertex is shared by all the cells around its edge and the mesh is welded. Triangles follow
in the order of their cells' (i, j, k) index. Both passes count first, then an exclusive scan
gives each thread its output slot, then a second launch writes. Vertex positions are computed by
a differentiable kernel from the field (recorded on a ``wp.Tape``); the topology kernels are not.
"""

import numpy as np

import warp_interactive as wp

from . import mc_tables as tables
from .iso_surface import IsoSurfaceBase, grid_frame, validate_field


@wp.func
def _edge_index(i: int, j: int, k: int, axis: int, ny: int, nz: int):
    return ((i * ny + j) * nz + k) * 3 + axis


@wp.kernel(enable_backward=False)
def _crossed_edges(field: wp.array3d(dtype=wp.float32), threshold: wp.float32, flags: wp.array(dtype=wp.int32)):
    i, j, k, axis = wp.tid()
    nx, ny, nz = field.shape[0], field.shape[1], field.shape[2]
    i1 = i + wp.where(axis == 0, 1, 0)
    j1 = j + wp.where(axis == 1, 1, 0)
    k1 = k + wp.where(axis == 2, 1, 0)
    crossed = 0
    if i1 < nx and j1 < ny and k1 < nz:
        above0 = wp.where(field[i, j, k] >= threshold, 1, 0)
        above1 = wp.where(field[i1, j1, k1] >= threshold, 1, 0)
        crossed = above0 ^ above1
    flags[_edge_index(i, j, k, axis, ny, nz)] = crossed


@wp.kernel
def _edge_vertices(field: wp.array3d(dtype=wp.float32), threshold: wp.float32, lower: wp.vec3, delta: wp.vec3,
                   flags: wp.array(dtype=wp.int32), slots: wp.array(dtype=wp.int32),
                   verts: wp.array(dtype=wp.vec3)):
    i, j, k, axis = wp.tid()
    e = _edge_index(i, j, k, axis, field.shape[1], field.shape[2])
    if flags[e] == 0:
        return
    i1 = i + wp.where(axis == 0, 1, 0)
    j1 = j + wp.where(axis == 1, 1, 0)
    k1 = k + wp.where(axis == 2, 1, 0)
    v0 = field[i, j, k]
    v1 = field[i1, j1, k1]
    t = wp.clamp((threshold - v0) / (v1 - v0), 0.0, 1.0)
    p0 = lower + wp.cw_mul(delta, wp.vec3(float(i), float(j), float(k)))
    p1 = lower + wp.cw_mul(delta, wp.vec3(float(i1), float(j1), float(k1)))
    verts[slots[e]] = wp.lerp(p0, p1, t)


@wp.func
def _cell_case(field: wp.array3d(dtype=wp.float32), threshold: wp.float32, i: int, j: int, k: int,
               corners: wp.array(dtype=wp.vec3i)):
    case = int(0)
    for c in range(8):
        o = corners[c]
        if field[i + o[0], j + o[1], k + o[2]] >= threshold:
            case = case | (1 << c)
    return case


@wp.kernel(enable_backward=False)
def _cell_triangle_counts(field: wp.array3d(dtype=wp.float32), threshold: wp.float32,
                          corners: wp.array(dtype=wp.vec3i), case_range: wp.array(dtype=wp.int32),
                          counts: wp.array(dtype=wp.int32)):
    i, j, k = wp.tid()
    case = _cell_case(field, threshold, i, j, k, corners)
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
    case = _cell_case(field, threshold, i, j, k, corners)
    start = case_range[case]
    count = case_range[case + 1] - start
    out = 3 * face_slots[(i * (ny - 1) + j) * (nz - 1) + k]
    for s in range(count):
        o = edge_offsets[tri_edges[start + s]]
        indices[out + s] = vertex_slots[_edge_index(i + o[0], j + o[1], k + o[2], o[3], ny, nz)]


_TABLES = {}


def device_tables(device):
    """The lookup tables as arrays on ``device`` (made once per device)."""
    key = str(device)
    if key not in _TABLES:
        _TABLES[key] = (
            wp.array(tables.CUBE_CORNER_OFFSETS, dtype=wp.vec3i, device=device),
            wp.array(tables.CASE_TO_TRI_RANGE, dtype=wp.int32, device=device),
            wp.array(tables.TRI_LOCAL_INDICES, dtype=wp.int32, device=device),
            wp.array(tables.EDGE_OFFSETS, dtype=wp.vec4i, device=device),
        )
    return _TABLES[key]


def _exclusive_slots(flags):
    """(slots, total): each entry's output position and the number of outputs."""
    slots = wp.empty_like(flags)
    wp.utils.array_scan(flags, slots, inclusive=False)
    tail = np.concatenate([slots[-1:].numpy(), flags[-1:].numpy()])
    return slots, int(tail.sum())


def extract_dense(field, threshold, lower, upper):
    """(verts, indices) of the level set: the two counted-and-scanned passes of the module."""
    validate_field(field)
    device = field.device
    nx, ny, nz = field.shape
    lower, delta = grid_frame(field.shape, lower, upper)
    threshold = float(threshold)
    corners, case_range, tri_edges, edge_offsets = device_tables(device)

    flags = wp.empty(nx * ny * nz * 3, dtype=wp.int32, device=device)
    wp.launch(_crossed_edges, dim=(nx, ny, nz, 3), inputs=[field, threshold, flags], device=device,
              record_tape=False)
    vertex_slots, n_verts = _exclusive_slots(flags)
    verts = wp.empty(n_verts, dtype=wp.vec3, device=device, requires_grad=field.requires_grad)
    if n_verts == 0:
        return verts, wp.empty(0, dtype=wp.int32, device=device)
    wp.launch(_edge_vertices, dim=(nx, ny, nz, 3), inputs=[field, threshold, lower, delta, flags, vertex_slots],
              outputs=[verts], device=device)

    cells = (nx - 1, ny - 1, nz - 1)
    counts = wp.empty(cells[0] * cells[1] * cells[2], dtype=wp.int32, device=device)
    wp.launch(_cell_triangle_counts, dim=cells, inputs=[field, threshold, corners, case_range, counts],
              device=device, record_tape=False)
    face_slots, n_faces = _exclusive_slots(counts)
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
