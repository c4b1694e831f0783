"""``fem.lookup`` on geometries whose cells lie on an index lattice: Grid2D, Grid3D, Nanogrid,
AdaptiveNanogrid (warp-lang's overloads, with a distance and a cell filter).

The cell holding the position is taken when it passes the filter. Otherwise the lattice
points within a box around the position are searched for the closest cell that passes, the
box's half-width growing from half the smallest index step threefold up to ``max_dist``: the
first box that holds a passing cell answers, as in warp-lang. With ``max_dist`` 0 only the
half-step box is searched; nothing found gives the null element.

One search serves the four geometries; each gives it (all ``wp.func``s):

- ``locate(arg, pos)``: the sample of the cell holding ``pos`` (null index where none does);
- ``index_pos(arg, pos)``: ``pos`` in lattice units (cell or voxel ``ijk`` spans ``[ijk, ijk + 1]``);
- ``index_unit(arg)``: the world lengths of one lattice step along each axis;
- ``index_box(arg, uvw, half)``: the (first, past-last) ``vec3i`` lattice points of the box;
- ``find_cell(arg, ijk)``: the cell at lattice point ``ijk``, ``NULL_ELEMENT_INDEX`` for none;
- ``closest_local(arg, cell, ijk, uvw)``: (coordinates of the cell's point closest to ``uvw``,
  squared world distance)."""

import functools
from typing import Any

from .. import _api as wp
from ..types import NULL_ELEMENT_INDEX, OUTSIDE, make_free_sample
from .lookup import _keep, make_cell_lookup


@wp.func
def _box_closest(rel: Any, size: Any):
    """Squared distance from ``rel`` to the box [0, size], and the closest point's position in
    the box scaled to [0, 1]."""
    p = wp.min(wp.max(rel, type(rel)(0.0)), size)
    d = rel - p
    return wp.dot(d, d), wp.cw_div(p, size)


@wp.func
def _smallest(v: Any):
    m = v[0]
    for k in range(1, type(v).length):
        m = wp.min(m, v[k])
    return m


def box_search_func(locate, index_pos, index_unit, index_box, find_cell, closest_local, null_coord):
    """``search(arg, pos, max_dist, filter_array, filter_target)`` (``filter_array`` 0: no
    filter) from a geometry's lattice functions (module docstring); a null answer has
    coordinates ``null_coord``."""

    @wp.func
    def search(arg: Any, pos: Any, max_dist: float, filter_array: Any, filter_target: Any):
        s = locate(arg, pos)
        if s.element_index != NULL_ELEMENT_INDEX:
            if _keep(filter_array, s.element_index, filter_target):
                return s
        uvw = index_pos(arg, pos)
        size = index_unit(arg)
        h = _smallest(size)
        scales = wp.cw_div(type(size)(h), size)
        max_offset = wp.ceil(max_dist / h)
        offset = wp.real(0.5)
        best = int(NULL_ELEMENT_INDEX)
        best_coords = wp.vec3(null_coord)
        while best == NULL_ELEMENT_INDEX:
            lo, hi = index_box(arg, uvw, offset * scales)
            n1 = hi[1] - lo[1]
            n2 = hi[2] - lo[2]
            best_dist = h * h * offset * offset
            for t in range((hi[0] - lo[0]) * n1 * n2):
                ijk = lo + wp.vec3i(t // (n1 * n2), (t // n2) % n1, t % n2)
                cell = find_cell(arg, ijk)
                if cell != NULL_ELEMENT_INDEX:
                    if _keep(filter_array, cell, filter_target):
                        coords, dist = closest_local(arg, cell, ijk, uvw)
                        if dist <= best_dist:
                            best_dist = dist
                            best = cell
                            best_coords = coords
            if offset >= max_offset:
                break
            offset = wp.min(3.0 * offset, max_offset)
        return make_free_sample(best, best_coords)
    return search


@wp.func
def voxel_index_unit(arg: Any):
    """World lengths of a voxel's edges (``arg.cell_grid`` a volume)."""
    return wp.vec3(wp.length(wp.volume_index_to_world_dir(arg.cell_grid, wp.vec3(1.0, 0.0, 0.0))),
                   wp.length(wp.volume_index_to_world_dir(arg.cell_grid, wp.vec3(0.0, 1.0, 0.0))),
                   wp.length(wp.volume_index_to_world_dir(arg.cell_grid, wp.vec3(0.0, 0.0, 1.0))))


@wp.func
def _floor3(x: wp.vec3):
    return wp.vec3i(int(wp.floor(x[0])), int(wp.floor(x[1])), int(wp.floor(x[2])))


@wp.func
def voxel_index_box(arg: Any, uvw: wp.vec3, half: wp.vec3):
    return _floor3(uvw - half), _floor3(uvw + half) + wp.vec3i(1)


def voxel_lookup_funcs(CellArg, index_pos, find_cell, closest_local, position):
    """The ``cell_lookup`` overloads of a Nanogrid-like geometry (cells made of voxels of
    ``arg.cell_grid``; no cell at a voxel: ``find_cell`` gives -1)."""

    @wp.func
    def locate(arg: CellArg, pos: wp.vec3):
        uvw = index_pos(arg, pos)
        ijk = _floor3(uvw)
        cell = find_cell(arg, ijk)
        coords = wp.vec3(OUTSIDE)
        if cell != NULL_ELEMENT_INDEX:
            coords, _dist = closest_local(arg, cell, ijk, uvw)
        return make_free_sample(cell, coords)

    search = box_search_func(locate, index_pos, voxel_index_unit, voxel_index_box, find_cell, closest_local, OUTSIDE)
    return make_cell_lookup(CellArg, search, position)


@functools.lru_cache(maxsize=None)
def _grid_lattice(dim):
    V = wp.vec2 if dim == 2 else wp.vec3

    if dim == 2:
        @wp.func
        def corner(ijk: wp.vec3i):
            return wp.vec2(wp.real(ijk[0]), wp.real(ijk[1]))

        @wp.func
        def find_cell(arg: Any, ijk: wp.vec3i):
            return ijk[0] * arg.res[1] + ijk[1]
    else:
        @wp.func
        def corner(ijk: wp.vec3i):
            return wp.vec3(wp.real(ijk[0]), wp.real(ijk[1]), wp.real(ijk[2]))

        @wp.func
        def find_cell(arg: Any, ijk: wp.vec3i):
            return (ijk[0] * arg.res[1] + ijk[1]) * arg.res[2] + ijk[2]

    @wp.func
    def index_pos(arg: Any, pos: V):
        return wp.cw_div(pos - arg.origin, arg.cell_size)

    @wp.func
    def index_unit(arg: Any):
        return arg.cell_size

    @wp.func
    def index_box(arg: Any, uvw: V, half: V):
        # the box around the position clamped to the grid, clipped to the grid's cells (type(uvw),
        # not V: a closure's vector type stays float32 in the float64 twin)
        x = wp.min(wp.max(uvw, type(uvw)(0.0)), type(uvw)(arg.res))
        lo = wp.vec3i(0)
        hi = wp.vec3i(1)
        for k in range(dim):
            lo[k] = wp.max(0, int(wp.floor(x[k] - half[k])))
            hi[k] = wp.min(arg.res[k], int(wp.floor(x[k] + half[k])) + 1)
        return lo, hi

    @wp.func
    def closest_local(arg: Any, cell: int, ijk: wp.vec3i, uvw: V):
        d, c = _box_closest(wp.cw_mul(uvw - corner(ijk), arg.cell_size), arg.cell_size)
        coords = wp.vec3(0.0)
        for k in range(dim):
            coords[k] = c[k]
        return coords, d
    return index_pos, index_unit, index_box, find_cell, closest_local


def grid_lookup_funcs(dim, CellArg, locate, position):
    """The ``cell_lookup`` overloads of a ``dim``-D grid, given its direct ``locate(arg, pos)``
    (the cell of the position clamped to the grid: never null)."""
    index_pos, index_unit, index_box, find_cell, closest_local = _grid_lattice(dim)
    search = box_search_func(locate, index_pos, index_unit, index_box, find_cell, closest_local, 0.0)
    return make_cell_lookup(CellArg, search, position)
