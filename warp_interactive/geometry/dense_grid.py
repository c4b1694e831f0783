"""What the dense-grid extractors (marching cubes, surface nets) share: the grid set-up, the
cell-corner and grid-edge functions of their kernels, the scan that turns counts into output
slots, and the lookup tables as device arrays.

Grid edges are numbered ``((i * ny + j) * nz + k) * 3 + axis`` (the edge leaving node (i, j, k)
along ``axis``); a node at or above the threshold counts as above.
"""

from typing import NamedTuple

import numpy as np

import warp_interactive as wp

from . import mc_tables as tables
from .iso_surface import grid_frame, validate_field


class DenseGrid(NamedTuple):
    device: object
    nodes: tuple       # (nx, ny, nz)
    cells: tuple       # (nx - 1, ny - 1, nz - 1)
    lower: object      # wp.vec3: node (0, 0, 0)
    delta: object      # wp.vec3: node spacing
    threshold: float


def dense_grid(field, threshold, lower, upper):
    """The checked field's grid: device, node and cell counts, frame and threshold."""
    validate_field(field)
    nodes = tuple(field.shape)
    lower, delta = grid_frame(nodes, lower, upper)
    return DenseGrid(field.device, nodes, tuple(n - 1 for n in nodes), lower, delta, float(threshold))


_TABLE_TYPES = {"CUBE_CORNER_OFFSETS": wp.vec3i, "EDGE_OFFSETS": wp.vec4i}
_TABLES = {}


def device_tables(device, *names):
    """The named ``mc_tables`` tables as arrays on ``device`` (each made once per device)."""
    out = []
    for name in names:
        key = (str(device), name)
        if key not in _TABLES:
            _TABLES[key] = wp.array(getattr(tables, name), dtype=_TABLE_TYPES.get(name, wp.int32), device=device)
        out.append(_TABLES[key])
    return out


def exclusive_slots(flags):
    """(slots, total): each entry's output position and the number of outputs."""
    slots = wp.empty_like(flags)
    wp.utils.array_scan(flags, slots, inclusive=False)
    tail = np.concatenate([slots[-1:].numpy(), flags[-1:].numpy()])
    return slots, int(tail.sum())


@wp.func
def edge_index(i: int, j: int, k: int, axis: int, ny: int, nz: int):
    return ((i * ny + j) * nz + k) * 3 + axis


@wp.func
def edge_end(a: wp.vec3i, axis: int):
    """The node one step from ``a`` along ``axis``."""
    return wp.vec3i(a[0] + wp.where(axis == 0, 1, 0), a[1] + wp.where(axis == 1, 1, 0),
                    a[2] + wp.where(axis == 2, 1, 0))


@wp.func
def edge_crossing(field: wp.array3d(dtype=wp.float32), threshold: wp.float32, a: wp.vec3i, b: wp.vec3i):
    """Where the threshold crosses the edge from node a to node b, as a fraction of the edge."""
    v0 = field[a[0], a[1], a[2]]
    v1 = field[b[0], b[1], b[2]]
    return wp.clamp((threshold - v0) / (v1 - v0), 0.0, 1.0)


@wp.func
def cell_case(field: wp.array3d(dtype=wp.float32), threshold: wp.float32, i: int, j: int, k: int,
              corners: wp.array(dtype=wp.vec3i)):
    """The cell's marching-cubes case: bit c set when corner ``corners[c]`` is above."""
    case = int(0)
    for c in range(8):
        o = corners[c]
        if field[i + o[0], j + o[1], k + o[2]] >= threshold:
            case = case | (1 << c)
    return case


@wp.kernel(enable_backward=False)
def crossed_edges(field: wp.array3d(dtype=wp.float32), threshold: wp.float32, flags: wp.array(dtype=wp.int32)):
    """flags[edge] = 1 where the edge's two nodes lie on different sides (0 past the grid)."""
    i, j, k, axis = wp.tid()
    b = edge_end(wp.vec3i(i, j, k), axis)
    crossed = 0
    if b[0] < field.shape[0] and b[1] < field.shape[1] and b[2] < field.shape[2]:
        above0 = wp.where(field[i, j, k] >= threshold, 1, 0)
        above1 = wp.where(field[b[0], b[1], b[2]] >= threshold, 1, 0)
        crossed = above0 ^ above1
    flags[edge_index(i, j, k, axis, field.shape[1], field.shape[2])] = crossed


def crossed_edge_flags(grid, field):
    """The ``crossed_edges`` flags of every grid edge."""
    nx, ny, nz = grid.nodes
    flags = wp.empty(nx * ny * nz * 3, dtype=wp.int32, device=grid.device)
    wp.launch(crossed_edges, dim=(nx, ny, nz, 3), inputs=[field, grid.threshold, flags], device=grid.device,
              record_tape=False)
    return flags
