"""Mesh construction helpers (``fem.utils``): regular grids cut into quads, triangles, hexes."""

import numpy as np


def _vertex(i, j, ny):
    return i * (ny + 1) + j


def grid_to_quads(nx, ny):
    """Quads of an ``nx x ny`` grid of vertices ``i * (ny + 1) + j``, counter-clockwise."""
    i, j = np.meshgrid(np.arange(nx), np.arange(ny), indexing="ij")
    i, j = i.ravel(), j.ravel()
    return np.stack([_vertex(i, j, ny), _vertex(i + 1, j, ny), _vertex(i + 1, j + 1, ny),
                     _vertex(i, j + 1, ny)], axis=1).astype(np.int32)


def grid_to_tris(nx, ny):
    """Each quad of ``grid_to_quads`` cut in two counter-clockwise triangles, the quads taken
    in warp-lang's order for triangles (x fastest, unlike ``grid_to_quads``)."""
    q = grid_to_quads(nx, ny).reshape(nx, ny, 4).transpose(1, 0, 2).reshape(-1, 4)
    t = np.empty((2 * len(q), 3), dtype=np.int32)
    t[0::2] = q[:, [0, 1, 2]]
    t[1::2] = q[:, [0, 2, 3]]
    return t


def grid_to_hexes(nx, ny, nz):
    """Hexes of an ``nx x ny x nz`` grid of vertices ``(i * (ny + 1) + j) * (nz + 1) + k``."""
    i, j, k = (a.ravel() for a in np.meshgrid(np.arange(nx), np.arange(ny), np.arange(nz), indexing="ij"))

    def v(a, b, c):
        return ((i + a) * (ny + 1) + (j + b)) * (nz + 1) + (k + c)
    return np.stack([v(0, 0, 0), v(1, 0, 0), v(1, 1, 0), v(0, 1, 0),
                     v(0, 0, 1), v(1, 0, 1), v(1, 1, 1), v(0, 1, 1)], axis=1).astype(np.int32)


def grid_to_tets(nx, ny, nz):
    """Each cell of an ``nx x ny x nz`` grid of vertices ``(i * (ny + 1) + j) * (nz + 1) + k`` cut
    in five tetrahedra, as warp-lang cuts them: four corner tets around a central one, the
    pattern mirrored along each axis in odd cells (so that neighbouring cells' diagonals
    match); the cells in (i, j, k) order, five consecutive tets each."""
    # the pattern's tets, as corners (4 x + 2 y + z) of the unit cell
    pattern = np.array([[0, 1, 2, 4], [3, 2, 1, 7], [5, 1, 7, 4], [6, 7, 4, 2], [4, 1, 2, 7]])
    bits = np.stack([(pattern >> 2) & 1, (pattern >> 1) & 1, pattern & 1], axis=-1)       # (5, 4, 3)
    cells = np.stack(np.meshgrid(np.arange(nx), np.arange(ny), np.arange(nz), indexing="ij"), axis=-1).reshape(-1, 3)
    corners = bits[None] ^ (cells % 2)[:, None, None, :]            # mirrored per cell parity
    v = cells[:, None, None, :] + corners                           # (cells, 5, 4, 3) lattice points
    index = (v[..., 0] * (ny + 1) + v[..., 1]) * (nz + 1) + v[..., 2]
    return index.reshape(-1, 4).astype(np.int32)
