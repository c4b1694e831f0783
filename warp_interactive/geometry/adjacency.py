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
