"""Host-side (NumPy) topology of unstructured meshes: the unique edges or faces of a cell array.

Facets are numbered as warp-lang numbers them, so that fields' node values line up with its
own: grouped by their smallest vertex index, and within a group in the order they are first
met walking the cells in order and each cell's local facets in order. A facet's inner cell is
the first cell holding it (the smaller index), its outer cell the other one (the inner one on
the boundary)."""

import numpy as np


def unique_facets(cells, local):
    """(facet vertices sorted ascending (m x f), per-facet (inner, outer) cells (m x 2), per-cell
    local facet -> facet index (n x len(local))) of ``cells`` (n x v vertex indices), whose
    local facets are the vertex positions listed in ``local``."""
    n = len(cells)
    verts = np.sort(cells[:, np.asarray(local)], axis=2).reshape(n * len(local), -1)     # (n*l, f)
    _uniq, first, inverse = np.unique(verts, axis=0, return_index=True, return_inverse=True)
    order = np.lexsort((first, verts[first, 0]))          # by smallest vertex, then first occurrence
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    facet_of = rank[np.asarray(inverse).reshape(-1)]
    owner = np.repeat(np.arange(n), len(local))
    inner = np.full(len(order), n, dtype=np.int64)
    np.minimum.at(inner, facet_of, owner)
    outer = np.full(len(order), -1, dtype=np.int64)
    np.maximum.at(outer, facet_of, owner)
    return (verts[first[order]].astype(np.int32), np.stack([inner, outer], axis=1).astype(np.int32),
            facet_of.reshape(n, len(local)).astype(np.int32))


def check_indices(cells, vertex_count, name):
    """Raise ValueError naming the first out-of-range vertex index (in flattened order), with
    warp-lang's wording."""
    flat = cells.reshape(-1)
    bad = np.nonzero((flat < 0) | (flat >= vertex_count))[0]
    if bad.size:
        i = int(bad[0])
        raise ValueError(f"fem.{name}: Vertex index {int(flat[i])} at flattened array index {i} "
                         f"is out of bounds; expected a value in [0, {vertex_count})")


def read_cells(cells, positions, name):
    """The cell array ``cells`` (a wp.array, n x v) on the host as int64, checked against the
    vertex count of ``positions`` (warp-lang's message on an out-of-range index)."""
    host = cells.numpy().astype(np.int64)
    check_indices(host, positions.shape[0], name)
    return host


class MeshTopology:
    """Counts, name and boundary of an unstructured mesh. The class names the attributes that
    hold its cells' vertex indices (``cell_vertex_indices``) and its sides' vertex indices
    (``side_vertex_indices``); ``edge_vertex_indices`` holds its edges (the sides in 2-D);
    ``set_boundary`` records the sides whose two cells are one."""

    cell_vertex_indices = None
    side_vertex_indices = "edge_vertex_indices"

    @property
    def name(self):
        return f"{type(self).__name__}_{self.cell_count()}"

    def cell_count(self):
        return getattr(self, self.cell_vertex_indices).shape[0]

    def vertex_count(self):
        return self.positions.shape[0]

    def side_count(self):
        return getattr(self, self.side_vertex_indices).shape[0]

    def edge_count(self):
        return self.edge_vertex_indices.shape[0]

    def set_boundary(self, owners):
        self._boundary = np.nonzero(owners[:, 0] == owners[:, 1])[0].astype(np.int32)

    def boundary_side_indices(self):
        return self._boundary
