"""Sparse marching cubes: extraction from a list of cells instead of a dense grid.

``lipschitz_octree`` finds the cells an implicit function's level set may cross without sampling
the whole grid: a cell whose centre value is further from the threshold than the Lipschitz bound
times its half diagonal cannot contain the surface, so it is dropped with all its descendants.
``sparse_marching_cubes_from_cells`` runs marching cubes on given cells and their corner values,
with the dense extractor's tables, its crossing rule and its vertex numbering (grid edges in
(i, j, k, axis) order), so on the cells the surface crosses it gives the dense surface.
``sparse_marching_cubes`` chains the two. The topology (which edges are crossed, which vertex a
triangle uses) is computed on the host with NumPy; vertex positions come from a differentiable
kernel that gathers the corner values, so gradients flow back to them through a ``wp.Tape``.
"""

import math

import numpy as np

import warp_interactive as wp

from . import mc_tables as tables

_CORNERS = np.array(tables.CUBE_CORNER_OFFSETS, dtype=np.int64)
_EDGE_OFFSETS = np.array(tables.EDGE_OFFSETS, dtype=np.int64)
_EDGE_CORNERS = np.array(tables.EDGE_TO_CORNERS, dtype=np.int64)
_CASE_RANGE = np.array(tables.CASE_TO_TRI_RANGE, dtype=np.int64)
_TRI_EDGES = np.array(tables.TRI_LOCAL_INDICES, dtype=np.int64)


@wp.kernel(enable_backward=False)
def _cell_points(subs: wp.array(dtype=wp.vec3i), lower: wp.vec3, delta: wp.vec3, shift: float, size: float,
                 points: wp.array(dtype=wp.vec3)):
    """Grid points lower + delta * (sub + shift) * size: cell centres (shift 0.5) or corners."""
    i = wp.tid()
    s = subs[i]
    g = wp.vec3(float(s[0]) + shift, float(s[1]) + shift, float(s[2]) + shift) * size
    points[i] = lower + wp.cw_mul(delta, g)


@wp.kernel
def _flatten_corner_values(values: wp.array2d(dtype=wp.float32), flat: wp.array(dtype=wp.float32)):
    c, k = wp.tid()
    flat[c * 8 + k] = values[c, k]


@wp.kernel
def _edge_vertices(values: wp.array(dtype=wp.float32), ends: wp.array(dtype=wp.vec2i),
                   lows: wp.array(dtype=wp.vec4i), origin: wp.vec3, delta: wp.vec3, threshold: wp.float32,
                   verts: wp.array(dtype=wp.vec3)):
    v = wp.tid()
    e = ends[v]
    va = values[e[0]]
    vb = values[e[1]]
    t = wp.clamp((threshold - va) / (vb - va), 0.0, 1.0)
    low = lows[v]
    step = wp.vec3(wp.where(low[3] == 0, 1.0, 0.0), wp.where(low[3] == 1, 1.0, 0.0), wp.where(low[3] == 2, 1.0, 0.0))
    p0 = wp.vec3(float(low[0]), float(low[1]), float(low[2]))
    verts[v] = wp.lerp(origin + wp.cw_mul(delta, p0), origin + wp.cw_mul(delta, p0 + step), t)


def _evaluate(field, subs, lower, delta, shift, size, device):
    """The batched implicit function at the points of ``subs`` (an (n, 3) int array)."""
    points = wp.empty(len(subs), dtype=wp.vec3, device=device)
    if len(subs):
        wp.launch(_cell_points, dim=len(subs),
                  inputs=[wp.array(subs.astype(np.int32), dtype=wp.vec3i, device=device), lower, delta,
                          float(shift), float(size)],
                  outputs=[points], device=device, record_tape=False)
    values = field(points)
    if not hasattr(values, "numpy") or tuple(values.shape) != (len(subs),):
        raise ValueError(f"The field callable must return a wp.array of {len(subs)} float32 values (one per "
                         f"point), got {getattr(values, 'shape', type(values))}.")
    return values


def _octree(field, lower, delta, depth, threshold, lipschitz_bound, device):
    """(leaf subscripts at the finest level in Z order; number of centre evaluations)."""
    cells = np.zeros((1, 3), dtype=np.int64)
    diagonal = float(np.linalg.norm(np.array(delta, dtype=np.float64)))
    evaluations = 0
    for level in range(depth + 1):
        size = float(1 << (depth - level))
        values = _evaluate(field, cells, lower, delta, 0.5, size, device).numpy()
        evaluations += len(cells)
        reach = lipschitz_bound * 0.5 * size * diagonal
        cells = cells[np.abs(values.astype(np.float64) - threshold) <= reach]
        if level < depth:
            cells = (2 * cells[:, None, :] + _CORNERS[None]).reshape(-1, 3)
    return cells[np.argsort(_morton_codes(cells, depth), kind="stable")], evaluations


def _morton_codes(cells, bits):
    """Z-order keys of (n, 3) subscripts below 2**bits: bit b of i, j, k at 3 b, 3 b + 1,
    3 b + 2. Leaves are listed (and their triangles emitted) in this order, as warp-lang's octree
    lists them."""
    codes = np.zeros(len(cells), dtype=np.uint64)
    for b in range(bits):
        for axis in range(3):
            codes |= ((cells[:, axis].astype(np.uint64) >> np.uint64(b)) & np.uint64(1)) << np.uint64(3 * b + axis)
    return codes


def _corner_ids(cells):
    """(unique corner subscripts, (n * 8,) index of each cell corner into them)."""
    corners = (cells[:, None, :] + _CORNERS[None]).reshape(-1, 3)
    unique, inverse = np.unique(corners, axis=0, return_inverse=True)
    return unique, inverse.reshape(-1)


def _topology(cells, corner_values, threshold):
    """(faces as vertex numbers, per vertex: the two corner slots it interpolates and its grid
    edge as (i, j, k, axis)), for cells relative to their minimum subscript."""
    above = corner_values >= threshold
    cases = (above.astype(np.int64) << np.arange(8)).sum(axis=1)
    lengths = _CASE_RANGE[cases + 1] - _CASE_RANGE[cases]
    cell_of = np.repeat(np.arange(len(cells)), lengths)
    first = np.cumsum(lengths) - lengths
    local = _TRI_EDGES[_CASE_RANGE[cases][cell_of] + np.arange(len(cell_of)) - first[cell_of]]
    low = cells[cell_of] + _EDGE_OFFSETS[local, :3]
    axis = _EDGE_OFFSETS[local, 3]
    dims = low.max(axis=0, initial=0) + 2
    keys = ((low[:, 0] * dims[1] + low[:, 1]) * dims[2] + low[:, 2]) * 3 + axis
    _, source, faces = np.unique(keys, return_index=True, return_inverse=True)
    ends = cell_of[source, None] * 8 + _EDGE_CORNERS[local[source]]
    lows = np.concatenate([low[source], axis[source, None]], axis=1)
    return faces.reshape(-1).astype(np.int32), ends, lows


def _extract(cells, values, slots, origin, delta, threshold, device):
    """Marching cubes over ``cells`` ((n, 3) int64), corner k of cell c having the value
    ``values[slots[8 c + k]]``; ``origin`` (float64) is the position of subscript (0, 0, 0)."""
    if len(cells) == 0:
        return wp.empty(0, dtype=wp.vec3, device=device), wp.empty(0, dtype=wp.int32, device=device)
    base = cells.min(axis=0)
    rel = cells - base
    corner_values = values.numpy()[slots].reshape(-1, 8)
    faces, ends, lows = _topology(rel, corner_values, threshold)
    # the offset goes into the origin in double precision: float32 subscripts past 2**24 would
    # merge neighbouring corners
    shifted = wp.vec3(*(np.asarray(origin, dtype=np.float64) + base * np.asarray(delta, dtype=np.float64)))
    verts = wp.empty(len(ends), dtype=wp.vec3, device=device, requires_grad=values.requires_grad)
    if len(ends):
        wp.launch(_edge_vertices, dim=len(ends),
                  inputs=[values, wp.array(slots[ends].astype(np.int32), dtype=wp.vec2i, device=device),
                          wp.array(lows.astype(np.int32), dtype=wp.vec4i, device=device), shifted,
                          wp.vec3(*delta), float(threshold)],
                  outputs=[verts], device=device)
    return verts, wp.array(faces, dtype=wp.int32, device=device)


def _check_field(field, lipschitz_bound):
    if isinstance(field, wp.Function) or not callable(field):
        raise TypeError("field must be a batched callable, field(points: wp.array(dtype=wp.vec3)) -> "
                        "wp.array(dtype=wp.float32); wrap a single-point @wp.func in a kernel launched over the "
                        f"points (got {type(field).__name__}).")
    if not float(lipschitz_bound) > 0.0:
        raise ValueError(f"lipschitz_bound must be positive, got {lipschitz_bound}.")


def _cells_array(cells):
    data = cells.numpy() if hasattr(cells, "numpy") else np.asarray(cells)
    data = np.asarray(data, dtype=np.int64)
    if data.size % 3 or (data.ndim == 2 and data.shape[1] != 3):
        raise ValueError(f"cells must be n (i, j, k) subscripts (a wp.vec3i array or an (n, 3) int array), "
                         f"got shape {data.shape}.")
    return data.reshape(-1, 3)


def _flat_corner_values(corner_values, n, device):
    """The corner values as one contiguous float32 array of 8 n values on ``device``, staying on
    the tape (a kernel copy) when they are a Warp array."""
    if not hasattr(corner_values, "numpy"):
        data = np.asarray(corner_values, dtype=np.float32)
        if data.size != 8 * n:
            raise ValueError(f"corner_values must hold 8 values per cell ({8 * n}), got {data.size}.")
        return wp.array(data.reshape(-1), dtype=wp.float32, device=device)
    if corner_values.size != 8 * n:
        raise ValueError(f"corner_values must hold 8 values per cell ({8 * n}), got {corner_values.size}.")
    if corner_values.ndim == 1 and corner_values.is_contiguous:
        return corner_values
    values2d = corner_values.reshape((n, 8)) if corner_values.ndim == 1 else corner_values
    flat = wp.empty(8 * n, dtype=wp.float32, device=device, requires_grad=corner_values.requires_grad)
    if n:
        wp.launch(_flatten_corner_values, dim=(n, 8), inputs=[values2d], outputs=[flat], device=device)
    return flat


def sparse_marching_cubes_from_cells(cells, corner_values, origin=(0.0, 0.0, 0.0), cell_width: float = 1.0,
                                     threshold: float = 0.0, device=None):
    """(verts, indices) of the ``threshold`` level set over the given cells.

    cells: n integer subscripts (wp.vec3i array, (n, 3) int array); cell (i, j, k) spans
    ``origin + cell_width * [(i, j, k), (i+1, j+1, k+1)]``. corner_values: (n, 8) or (8 n,)
    float32, corner order ``IsoSurfaceMarchingCubes.CUBE_CORNER_OFFSETS``. A Warp array of corner
    values with ``requires_grad`` gives vertex positions differentiable with respect to them.
    """
    if not float(cell_width) > 0.0:
        raise ValueError(f"cell_width must be positive, got {cell_width}.")
    device = wp.get_device(device if device is not None else getattr(corner_values, "device", None))
    cells = _cells_array(cells)
    values = _flat_corner_values(corner_values, len(cells), device)
    slots = np.arange(8 * len(cells), dtype=np.int64)
    width = float(cell_width)
    return _extract(cells, values, slots, origin, (width, width, width), threshold, device)


def lipschitz_octree(field, origin, root_width: float, max_depth: int, threshold: float = 0.0,
                     lipschitz_bound: float = 1.0, device=None):
    """(cells, cell_width): the finest-level cells of the cube ``origin + [0, root_width]^3``,
    subdivided ``max_depth`` times, that the ``threshold`` level set of ``field`` may cross.

    field: a batched callable, ``field(points: wp.array(dtype=wp.vec3)) -> wp.array(dtype=wp.float32)``,
    Lipschitz with constant ``lipschitz_bound``. cells: a wp.vec3i array of subscripts in units
    of ``cell_width = root_width / 2**max_depth``, in Z (Morton) order, ready for
    ``sparse_marching_cubes_from_cells``.
    """
    _check_field(field, lipschitz_bound)
    if int(max_depth) < 0 or not float(root_width) > 0.0:
        raise ValueError(f"max_depth must be >= 0 and root_width positive, got {max_depth} and {root_width}.")
    device = wp.get_device(device)
    width = float(root_width) / (1 << max_depth)
    leaves, _ = _octree(field, wp.vec3(*origin), wp.vec3(width, width, width), max_depth, float(threshold),
                        float(lipschitz_bound), device)
    return wp.array(leaves.astype(np.int32), dtype=wp.vec3i, device=device), width


def sparse_marching_cubes(field, nx: int, ny: int, nz: int, *, lower=None, upper=None, threshold: float = 0.0,
                          lipschitz_bound: float = 1.0, device=None, return_stats: bool = False):
    """(verts, indices[, stats]): the surface ``IsoSurfaceMarchingCubes`` extracts from the
    ``nx * ny * nz`` node grid between ``lower`` and ``upper``, sampling the batched callable
    ``field`` only near the level set (a Lipschitz octree over the grid, each axis padded to a
    power of two and the padding cells dropped). stats: resolution, leaf_cells, culled_cells,
    field_evaluations."""
    from .iso_surface import grid_frame
    _check_field(field, lipschitz_bound)
    shape = (int(nx), int(ny), int(nz))
    if min(shape) < 2:
        raise ValueError(f"The grid must have at least 2 nodes on each axis to span a cell, got {shape}.")
    device = wp.get_device(device)
    lower, delta = grid_frame(shape, lower, upper)
    depth = max(math.ceil(math.log2(n - 1)) if n > 2 else 0 for n in shape)
    leaves, evaluations = _octree(field, lower, delta, depth, float(threshold), float(lipschitz_bound), device)
    inside = np.all(leaves < np.array(shape) - 1, axis=1)
    cells = leaves[inside]
    corners, slots = _corner_ids(cells)
    values = _evaluate(field, corners, lower, delta, 0.0, 1.0, device) if len(cells) else None
    verts, indices = _extract(cells, values, slots, np.array(lower, dtype=np.float64), tuple(delta),
                              float(threshold), device)
    if not return_stats:
        return verts, indices
    stats = {"resolution": 1 << depth, "leaf_cells": int(len(cells)), "culled_cells": int((~inside).sum()),
             "field_evaluations": evaluations + len(corners)}
    return verts, indices, stats
