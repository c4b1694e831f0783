"""``wp.geometry.tri_tri_adjacency`` and ``find_triangle_neighbor_edge_index``: which triangle
lies across each edge of a triangle mesh.

Local edge ``j`` of a triangle is the one opposite its local vertex ``j`` (joining vertices
``(j + 1) % 3`` and ``(j + 2) % 3``). The matching is topology, done on the host with NumPy: every
edge is keyed by its sorted vertex pair, the keys sorted, and equal neighbours paired.
"""

import numpy as np

import warp_interactive as wp


def _edge_pairs(tris, vertex_count):
    """(edge slots 3 t + j, partner slots): the pairs of triangle edges with the same vertices."""
    a = tris[:, [1, 2, 0]].reshape(-1).astype(np.int64)
    b = tris[:, [2, 0, 1]].reshape(-1).astype(np.int64)
    keys = np.minimum(a, b) * vertex_count + np.maximum(a, b)
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    same = sorted_keys[1:] == sorted_keys[:-1]
    if (same[1:] & same[:-1]).any():
        edge = int(sorted_keys[1:-1][same[1:] & same[:-1]][0])
        raise ValueError(f"the mesh is not edge-manifold: edge ({edge // vertex_count}, {edge % vertex_count}) "
                         f"has more than two triangles")
    first = order[:-1][same]
    second = order[1:][same]
    return np.concatenate([first, second]), np.concatenate([second, first])


def tri_tri_adjacency(indices, vertex_count=None, return_neighbor_edge_indices: bool = True):
    """Triangle-triangle adjacency of an edge-manifold mesh (one or two triangles per edge; the
    triangles' orientations need not agree).

    indices: a (num_tris, 3) int32 wp.array. Returns ``triangle_neighbors`` ((num_tris, 3) int32:
    the triangle across local edge j, -1 on a boundary), and with ``return_neighbor_edge_indices``
    also ``neighbor_edge_indices`` (that shared edge's local index in the neighbour)."""
    if getattr(indices, "ndim", None) != 2 or indices.shape[1] != 3:
        raise ValueError("indices must be a (num_tris, 3) array of triangle vertex indices")
    device = indices.device
    tris = indices.numpy()
    if vertex_count is None:
        vertex_count = int(tris.max()) + 1 if len(tris) else 0
    neighbors = np.full(3 * len(tris), -1, dtype=np.int32)
    edges = np.full(3 * len(tris), -1, dtype=np.int32)
    if len(tris):
        if tris.min() < 0 or tris.max() >= vertex_count:
            raise ValueError(f"triangle vertex indices must lie in [0, {vertex_count}), got "
                             f"[{tris.min()}, {tris.max()}]")
        slots, partners = _edge_pairs(tris, max(int(vertex_count), 1))
        neighbors[slots] = partners // 3
        edges[slots] = partners % 3
    neighbors = wp.array(neighbors.reshape(-1, 3), dtype=wp.int32, device=device)
    if not return_neighbor_edge_indices:
        return neighbors
    return neighbors, wp.array(edges.reshape(-1, 3), dtype=wp.int32, device=device)


@wp.func
def find_triangle_neighbor_edge_index(triangle_neighbors: wp.array2d(dtype=wp.int32), triangle: wp.int32,
                                      neighbor: wp.int32) -> wp.int32:
    """The local edge j of ``triangle`` with ``triangle_neighbors[triangle, j] == neighbor``, or -1
    when the two are not adjacent."""
    for j in range(3):
        if triangle_neighbors[triangle, j] == neighbor:
            return j
    return -1


def _orient(p, a, b, c):
    """Twice the signed area of the triangles (a, b, c) (index arrays into p, float64)."""
    return ((p[b, 0] - p[a, 0]) * (p[c, 1] - p[a, 1]) - (p[b, 1] - p[a, 1]) * (p[c, 0] - p[a, 0]))


def _in_circle(p, a, b, c, d):
    """> 0 where d lies inside the circumcircle of the counter-clockwise triangle (a, b, c)."""
    rows = [p[v] - p[d] for v in (a, b, c)]
    m = np.stack([np.stack([r[:, 0], r[:, 1], r[:, 0] ** 2 + r[:, 1] ** 2], 1) for r in rows], 1)
    return np.linalg.det(m)


def _flip_candidates(tris, p, ref, area_epsilon, ref_area_epsilon):
    """(t, j, n, e) of the interior edges, each once, whose flip makes them Delaunay and keeps
    both new triangles above the area thresholds (in the reference configuration too)."""
    slots, partners = _edge_pairs(tris, int(tris.max()) + 1)
    keep = slots < partners
    t, j = slots[keep] // 3, slots[keep] % 3
    n, e = partners[keep] // 3, partners[keep] % 3
    a, b, c = tris[t, j], tris[t, (j + 1) % 3], tris[t, (j + 2) % 3]
    d = tris[n, e]
    ok = _in_circle(p, a, b, c, d) > 0.0
    ok &= (_orient(p, a, b, d) > 2 * area_epsilon) & (_orient(p, a, d, c) > 2 * area_epsilon)
    if ref is not None:
        ok &= (_orient(ref, a, b, d) > 2 * ref_area_epsilon) & (_orient(ref, a, d, c) > 2 * ref_area_epsilon)
    return t[ok], j[ok], d[ok], n[ok]


def delaunay_edge_flip(positions, indices, ref_positions=None, max_passes: int = 1000, area_epsilon: float = 0.0,
                       ref_area_epsilon: float = 1.0e-10):
    """Flip non-Delaunay interior edges of a counter-clockwise 2D triangulation, in place in
    ``indices`` ((num_tris, 3) int32), until every edge is Delaunay or ``max_passes`` passes ran.
    Each pass flips a set of edges no two of which share a triangle (Lawson's flips; the
    in-circle test in float64). A flip is refused when a new triangle's signed area is not above
    ``area_epsilon`` (or, with ``ref_positions``, its area there above ``ref_area_epsilon``).
    Returns a (1,) int32 array on the device of ``indices``: the number of edges flipped."""
    if getattr(indices, "ndim", None) != 2 or indices.shape[1] != 3:
        raise ValueError("indices must be a (num_tris, 3) array of triangle vertex indices")
    device = indices.device
    if positions.device != device or (ref_positions is not None and ref_positions.device != device):
        raise ValueError("positions, ref_positions and indices must be on the same device")
    if int(max_passes) < 1:
        raise ValueError("max_passes must be at least 1")
    for name, value in (("area_epsilon", area_epsilon), ("ref_area_epsilon", ref_area_epsilon)):
        if not np.isfinite(value) or value < 0.0:
            raise ValueError(f"{name} must be a finite, non-negative number")
    tris = indices.numpy().astype(np.int64)
    p = positions.numpy().astype(np.float64).reshape(-1, 2)
    ref = ref_positions.numpy().astype(np.float64).reshape(-1, 2) if ref_positions is not None else None
    flips = 0
    for _ in range(int(max_passes)) if len(tris) else ():
        t, j, d, n = _flip_candidates(tris, p, ref, float(area_epsilon), float(ref_area_epsilon))
        used = np.zeros(len(tris), bool)
        done = 0
        for k in range(len(t)):
            if used[t[k]] or used[n[k]]:
                continue
            used[t[k]] = used[n[k]] = True
            a, b, c = tris[t[k], j[k]], tris[t[k], (j[k] + 1) % 3], tris[t[k], (j[k] + 2) % 3]
            tris[t[k]] = (a, b, d[k])
            tris[n[k]] = (a, d[k], c)
            done += 1
        flips += done
        if done == 0:
            break
    indices.assign(wp.array(tris.astype(np.int32), dtype=wp.int32, device=device))
    return wp.array([flips], dtype=wp.int32, device=device)
