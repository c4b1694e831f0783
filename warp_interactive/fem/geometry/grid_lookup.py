"""``fem.lookup`` on grids with a distance and a cell filter (warp-lang's overloads).

The cell holding the (clamped) position is taken when it passes the filter. Otherwise the
cells within a box around the position are searched for the closest one that passes (closest
point on its box), the box's half-width growing from half the smallest cell size threefold up
to ``max_dist``: the first box that holds a passing cell answers, as in warp-lang. With
``max_dist`` 0 only the half-cell box is searched; nothing found gives the null element."""

import functools
from typing import Any

from .. import _api as wp
from ..types import NULL_ELEMENT_INDEX, Sample, make_free_sample
from .lookup import _keep


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


@functools.lru_cache(maxsize=None)
def grid_lookup_funcs(dim, locate):
    """The ``cell_lookup`` overloads of a ``dim``-D grid taking ``max_dist`` and/or a filter,
    given its direct ``locate(arg, pos)``."""
    V = wp.vec2 if dim == 2 else wp.vec3

    if dim == 2:
        @wp.func
        def corner(ijk: wp.vec3i):
            return wp.vec2(wp.real(ijk[0]), wp.real(ijk[1]))

        @wp.func
        def cell_of(arg: Any, ijk: wp.vec3i):
            return ijk[0] * arg.res[1] + ijk[1]
    else:
        @wp.func
        def corner(ijk: wp.vec3i):
            return wp.vec3(wp.real(ijk[0]), wp.real(ijk[1]), wp.real(ijk[2]))

        @wp.func
        def cell_of(arg: Any, ijk: wp.vec3i):
            return (ijk[0] * arg.res[1] + ijk[1]) * arg.res[2] + ijk[2]

    @wp.func
    def filtered(arg: Any, pos: V, max_dist: float, filter_array: Any, filter_target: Any):
        s = locate(arg, pos)
        if _keep(filter_array, s.element_index, filter_target):
            return s
        loc = wp.cw_div(pos - arg.origin, arg.cell_size)
        x = wp.min(wp.max(loc, V(0.0)), V(arg.res))
        h = _smallest(arg.cell_size)
        reach = wp.cw_div(V(h), arg.cell_size)
        max_offset = wp.ceil(max_dist / h)
        offset = wp.real(0.5)
        best = int(NULL_ELEMENT_INDEX)
        best_coords = wp.vec3(0.0)
        while best == NULL_ELEMENT_INDEX:
            lo = wp.vec3i(0)
            hi = wp.vec3i(1)
            for k in range(dim):
                lo[k] = wp.max(0, int(wp.floor(x[k] - offset * reach[k])))
                hi[k] = wp.min(arg.res[k], int(wp.floor(x[k] + offset * reach[k])) + 1)
            n1 = hi[1] - lo[1]
            n2 = hi[2] - lo[2]
            best_dist = h * h * offset * offset
            for t in range((hi[0] - lo[0]) * n1 * n2):
                ijk = lo + wp.vec3i(t // (n1 * n2), (t // n2) % n1, t % n2)
                cell = cell_of(arg, ijk)
                if _keep(filter_array, cell, filter_target):
                    d, c = _box_closest(wp.cw_mul(loc - corner(ijk), arg.cell_size), arg.cell_size)
                    if d <= best_dist:
                        best_dist = d
                        best = cell
                        best_coords = wp.vec3(0.0)
                        for k in range(dim):
                            best_coords[k] = c[k]
            if offset >= max_offset:
                break
            offset = wp.min(3.0 * offset, max_offset)
        return make_free_sample(best, best_coords)

    @wp.func
    def cell_lookup(arg: Any, pos: V):
        return locate(arg, pos)

    @wp.func
    def cell_lookup(arg: Any, pos: V, guess: Sample):  # noqa: F811  (a grid needs no guess)
        return locate(arg, pos)

    @wp.func
    def cell_lookup(arg: Any, pos: V, max_dist: float):  # noqa: F811
        return locate(arg, pos)

    @wp.func
    def cell_lookup(arg: Any, pos: V, max_dist: float, filter_array: wp.array(dtype=Any),  # noqa: F811
                    filter_target: Any):
        return filtered(arg, pos, max_dist, filter_array, filter_target)

    @wp.func
    def cell_lookup(arg: Any, pos: V, filter_array: wp.array(dtype=Any), filter_target: Any):  # noqa: F811
        return filtered(arg, pos, 0.0, filter_array, filter_target)

    return cell_lookup
