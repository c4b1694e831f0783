"""``wp.geometry.IsoSurfaceNets``: surface nets, the dual of marching cubes, kept manifold.

A cell that the surface crosses gets one vertex per marching-cubes patch in it (most cells have
one; a cell whose corners above the threshold are not connected across the cell has several), at
the mean of that patch's edge crossings; a patch whose crossed edges all lie on the grid's
boundary is in no quad and gets none. Every crossed grid edge inside the grid is shared by four
cells, and in each of them by exactly one patch: their four vertices make the edge's quad, wound
so that its normal points to the above-threshold side (as marching cubes' triangles). Since the
patches come from the same face rule as marching cubes' tables, neighbouring cells agree on which
patches meet, and the quads close into a manifold surface. Vertices follow their cells' (i, j, k)
order, quads their edges' (i, j, k, axis) order; ``topology="triangle"`` splits each quad
(a, b, c, d) into (a, b, c) and (a, c, d).
"""

import warp_interactive as wp

from .dense_grid import (cell_case, crossed_edge_flags, dense_grid, device_tables, edge_crossing, edge_end,
                         edge_index, exclusive_slots)
from .iso_surface import IsoSurfaceBase, validate_field

_TOPOLOGIES = ("triangle", "quad")


@wp.func
def _used_patches(field: wp.array3d(dtype=wp.float32), i: int, j: int, k: int, case: int,
                  edge_patch: wp.array(dtype=wp.int32), edge_offsets: wp.array(dtype=wp.vec4i)):
    """Bit p set when patch p of the cell has a crossed edge inside the grid: a patch whose
    edges all lie on the grid's boundary is in no quad and gets no vertex."""
    last = wp.vec3i(field.shape[0] - 1, field.shape[1] - 1, field.shape[2] - 1)
    mask = int(0)
    for e in range(12):
        p = edge_patch[case * 12 + e]
        if p >= 0:
            o = edge_offsets[e]
            a = wp.vec3i(i + o[0], j + o[1], k + o[2])
            inside = 1
            for d in range(3):
                if d != o[3] and (a[d] == 0 or a[d] == last[d]):
                    inside = 0
            if inside == 1:
                mask = mask | (1 << p)
    return mask


@wp.func
def _bits_below(mask: int, p: int):
    n = int(0)
    for b in range(p):
        n += (mask >> b) & 1
    return n


@wp.kernel(enable_backward=False)
def _cell_patch_counts(field: wp.array3d(dtype=wp.float32), threshold: wp.float32,
                       corners: wp.array(dtype=wp.vec3i), edge_patch: wp.array(dtype=wp.int32),
                       edge_offsets: wp.array(dtype=wp.vec4i), counts: wp.array(dtype=wp.int32)):
    i, j, k = wp.tid()
    cell = (i * (field.shape[1] - 1) + j) * (field.shape[2] - 1) + k
    case = cell_case(field, threshold, i, j, k, corners)
    counts[cell] = _bits_below(_used_patches(field, i, j, k, case, edge_patch, edge_offsets), 4)


@wp.kernel
def _patch_vertices(field: wp.array3d(dtype=wp.float32), threshold: wp.float32, lower: wp.vec3, delta: wp.vec3,
                    corners: wp.array(dtype=wp.vec3i), patch_count: wp.array(dtype=wp.int32),
                    edge_patch: wp.array(dtype=wp.int32), edge_offsets: wp.array(dtype=wp.vec4i),
                    slots: wp.array(dtype=wp.int32), verts: wp.array(dtype=wp.vec3)):
    i, j, k = wp.tid()
    case = cell_case(field, threshold, i, j, k, corners)
    first = slots[(i * (field.shape[1] - 1) + j) * (field.shape[2] - 1) + k]
    used = _used_patches(field, i, j, k, case, edge_patch, edge_offsets)
    for p in range(patch_count[case]):
        if ((used >> p) & 1) == 0:
            continue
        total = wp.vec3(0.0, 0.0, 0.0)
        n = float(0.0)
        for e in range(12):
            if edge_patch[case * 12 + e] == p:
                o = edge_offsets[e]
                a = wp.vec3i(i + o[0], j + o[1], k + o[2])
                b = edge_end(a, o[3])
                t = edge_crossing(field, threshold, a, b)
                pa = wp.vec3(float(a[0]), float(a[1]), float(a[2]))
                pb = wp.vec3(float(b[0]), float(b[1]), float(b[2]))
                total = total + wp.lerp(pa, pb, t)
                n = n + 1.0
        verts[first + _bits_below(used, p)] = lower + wp.cw_mul(delta, total / n)


@wp.func
def _quad_corner(axis: int, q: int):
    """The q-th cell around an edge, as its offset from the edge's lower node: counter-clockwise
    about the edge's axis (in the plane of the two other axes, taken in cyclic order)."""
    u = wp.where(q == 1 or q == 2, 0, -1)
    v = wp.where(q >= 2, 0, -1)
    offset = wp.vec3i(0, 0, 0)
    offset[(axis + 1) % 3] = u
    offset[(axis + 2) % 3] = v
    return offset


@wp.kernel(enable_backward=False)
def _interior_crossed_edges(field: wp.array3d(dtype=wp.float32), crossed: wp.array(dtype=wp.int32),
                            flags: wp.array(dtype=wp.int32)):
    i, j, k, axis = wp.tid()
    e = edge_index(i, j, k, axis, field.shape[1], field.shape[2])
    node = wp.vec3i(i, j, k)
    last = wp.vec3i(field.shape[0] - 1, field.shape[1] - 1, field.shape[2] - 1)
    inside = 1
    for d in range(3):
        if d != axis and (node[d] == 0 or node[d] == last[d]):
            inside = 0
    flags[e] = crossed[e] * inside


@wp.kernel(enable_backward=False)
def _edge_quads(field: wp.array3d(dtype=wp.float32), threshold: wp.float32, corners: wp.array(dtype=wp.vec3i),
                edge_patch: wp.array(dtype=wp.int32), local_edge: wp.array(dtype=wp.int32),
                edge_offsets: wp.array(dtype=wp.vec4i), flags: wp.array(dtype=wp.int32),
                quad_slots: wp.array(dtype=wp.int32),
                vertex_slots: wp.array(dtype=wp.int32), triangles: int, indices: wp.array(dtype=wp.int32)):
    i, j, k, axis = wp.tid()
    ny, nz = field.shape[1], field.shape[2]
    e = edge_index(i, j, k, axis, ny, nz)
    if flags[e] == 0:
        return
    quad = wp.vec4i(0, 0, 0, 0)
    for q in range(4):
        o = _quad_corner(axis, q)
        c = wp.vec3i(i + o[0], j + o[1], k + o[2])
        case = cell_case(field, threshold, c[0], c[1], c[2], corners)
        cube_edge = local_edge[((-o[0]) + 2 * (-o[1]) + 4 * (-o[2])) * 3 + axis]
        cell = (c[0] * (ny - 1) + c[1]) * (nz - 1) + c[2]
        used = _used_patches(field, c[0], c[1], c[2], case, edge_patch, edge_offsets)
        quad[q] = vertex_slots[cell] + _bits_below(used, edge_patch[case * 12 + cube_edge])
    if field[i, j, k] >= threshold:   # the above side is behind the axis: turn the quad over
        quad = wp.vec4i(quad[0], quad[3], quad[2], quad[1])
    s = quad_slots[e]
    if triangles != 0:
        for n in range(3):
            indices[6 * s + n] = quad[n]
        indices[6 * s + 3] = quad[0]
        indices[6 * s + 4] = quad[2]
        indices[6 * s + 5] = quad[3]
    else:
        for n in range(4):
            indices[4 * s + n] = quad[n]


def _check_topology(topology):
    if topology not in _TOPOLOGIES:
        raise ValueError(f"topology must be 'triangle' or 'quad', got {topology!r}.")


def extract_nets(field, threshold, lower, upper, topology):
    _check_topology(topology)
    grid = dense_grid(field, threshold, lower, upper)
    device, threshold, cells, (nx, ny, nz) = grid.device, grid.threshold, grid.cells, grid.nodes
    lower, delta = grid.lower, grid.delta
    corners, patch_count, edge_patch, edge_offsets, local_edge = device_tables(
        device, "CUBE_CORNER_OFFSETS", "CASE_POLYGON_COUNT", "EDGE_POLYGON", "EDGE_OFFSETS", "LOCAL_EDGE")

    counts = wp.empty(cells[0] * cells[1] * cells[2], dtype=wp.int32, device=device)
    wp.launch(_cell_patch_counts, dim=cells, inputs=[field, threshold, corners, edge_patch, edge_offsets, counts],
              device=device, record_tape=False)
    vertex_slots, n_verts = exclusive_slots(counts)
    verts = wp.empty(n_verts, dtype=wp.vec3, device=device, requires_grad=field.requires_grad)
    if n_verts == 0:
        return verts, wp.empty(0, dtype=wp.int32, device=device)
    wp.launch(_patch_vertices, dim=cells,
              inputs=[field, threshold, lower, delta, corners, patch_count, edge_patch, edge_offsets, vertex_slots],
              outputs=[verts], device=device)

    crossed = crossed_edge_flags(grid, field)
    flags = wp.empty_like(crossed)
    wp.launch(_interior_crossed_edges, dim=(nx, ny, nz, 3), inputs=[field, crossed, flags], device=device,
              record_tape=False)
    quad_slots, n_quads = exclusive_slots(flags)
    per_quad = 6 if topology == "triangle" else 4
    indices = wp.empty(per_quad * n_quads, dtype=wp.int32, device=device)
    wp.launch(_edge_quads, dim=(nx, ny, nz, 3),
              inputs=[field, threshold, corners, edge_patch, local_edge, edge_offsets, flags, quad_slots,
                      vertex_slots,
                      int(topology == "triangle")],
              outputs=[indices], device=device, record_tape=False)
    return verts, indices


class IsoSurfaceNets(IsoSurfaceBase):
    """Surface nets on an ``nx * ny * nz`` node grid: ``surface(field, threshold)`` fills
    ``verts`` (one per surface patch of each crossed cell) and ``indices`` (flat int32: six per
    quad split into two triangles, or four per quad with ``topology="quad"``). Differentiable in
    the vertex positions, like ``IsoSurfaceMarchingCubes``."""

    def __init__(self, nx: int, ny: int, nz: int, *, lower=None, upper=None, topology: str = "triangle"):
        _check_topology(topology)
        super().__init__(nx, ny, nz, lower, upper)
        self.topology = topology

    def surface(self, field, threshold: float) -> None:
        validate_field(field)
        self._check_field_shape(field)
        self.verts, self.indices = extract_nets(field, threshold, self.lower, self.upper, self.topology)

    @classmethod
    def extract(cls, field, threshold: float = 0.0, *, lower=None, upper=None, topology: str = "triangle"):
        """(verts, indices): the ``threshold`` level set of the 3D float32 ``field``."""
        return extract_nets(field, threshold, lower, upper, topology)
