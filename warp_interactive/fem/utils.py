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
    """Each quad of ``grid_to_quads`` cut in two counter-clockwise triangles."""
    q = grid_to_quads(nx, ny)
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
    """Each hex of ``grid_to_hexes`` cut in six positively oriented tetrahedra (around its main
    diagonal)."""
    h = grid_to_hexes(nx, ny, nz)
    cuts = [(0, 1, 2, 6), (0, 2, 3, 6), (0, 3, 7, 6), (0, 7, 4, 6), (0, 4, 5, 6), (0, 5, 1, 6)]
    return np.concatenate([h[:, list(c)] for c in cuts], axis=0).astype(np.int32)
