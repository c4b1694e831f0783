"""Point queries on unstructured meshes: ``fem.lookup``, ``fem.element_coordinates`` and
``fem.element_closest_point`` for Trimesh2D, Quadmesh2D, Tetmesh and Hexmesh cells.

Element coordinates are found in the reference element's parameters (``(c1, c2)`` of a
triangle's barycentric coordinates, ``(u, v)`` of a quad, the three of a tet or hex): Newton
steps with the inverse deformation gradient give the (possibly extrapolated) coordinates of a
world position; the closest point of a cell then follows by projected gradient descent on the
squared distance, each step projected exactly (Euclidean, in parameter space) onto the
reference element. Straight triangles and tets are solved exactly instead
(``simplex_queries``: a point on a vertex gets that vertex's unit coordinates).

``lookup`` searches the cells whose bounding boxes (a ``wp.Bvh`` made by the geometry's
``build_bvh``) lie near the position, with a box that grows fourfold until it meets a cell,
and returns the closest one (the null element where the geometry has no BVH, as warp-lang)."""

import functools
from typing import Any

import numpy as np

from .. import _api as wp
from ..types import NULL_ELEMENT_INDEX, OUTSIDE, Sample, make_free_sample
from .simplex_queries import make_simplex_queries

_NEWTON_ITERATIONS = 8
_DESCENT_ITERATIONS = 64
_STEP_EPS = float(2.0 ** -40)         # squared parameter step under which iterations stop
_PAD_MIN = float(2.0 ** -16)          # first half-width of the search box, relative to max_dist (>= 1)
_PAD_MAX = float(2.0 ** 16)


@wp.func
def _bvh_point(p: wp.vec2):
    # BVH boxes are float32 at both precisions
    return wp.vec3f(wp.vec3(p[0], p[1], 0.0))


@wp.func
def _bvh_point(p: wp.vec3):  # noqa: F811
    return wp.vec3f(p)


@wp.func
def _project_unit_box(p: Any):
    return wp.min(wp.max(p, type(p)(0.0)), type(p)(1.0))


@functools.lru_cache(maxsize=None)
def _simplex_projection(n):
    """Euclidean projection onto {p >= 0, sum(p) <= 1} in dimension ``n`` (2 or 3): clamping
    at zero when that leaves the sum <= 1, else onto the face sum(p) = 1 (Michelot's active-set
    iteration, exact after at most n rounds)."""
    vec = wp.types.vector(n, wp.float32)

    @wp.func
    def project_simplex(p: vec):
        q = wp.max(p, vec(0.0))
        total = wp.real(0.0)
        for i in range(n):
            total += q[i]
        if total <= 1.0:
            return q
        active = vec(1.0)
        tau = wp.real(0.0)
        for _round in range(n):
            s = wp.real(0.0)
            count = wp.real(0.0)
            for i in range(n):
                s += active[i] * p[i]
                count += active[i]
            tau = (s - 1.0) / count
            for i in range(n):
                if p[i] - tau <= 0.0:
                    active[i] = 0.0
        return wp.max(p - vec(tau), vec(0.0))
    return project_simplex


@functools.lru_cache(maxsize=None)
def reference_maps(shape):
    """(parameter vector type, coords -> parameters, parameters -> coords, projection onto the
    reference element in parameters, centre in parameters) of a reference cell shape."""
    if shape == "triangle":
        @wp.func
        def to_params(c: wp.vec3):
            return wp.vec2(c[1], c[2])

        @wp.func
        def to_coords(p: wp.vec2):
            return wp.vec3(1.0 - p[0] - p[1], p[0], p[1])
        return wp.vec2, to_params, to_coords, _simplex_projection(2), wp.vec2(1.0 / 3.0)
    if shape == "square":
        @wp.func
        def to_params(c: wp.vec3):
            return wp.vec2(c[0], c[1])

        @wp.func
        def to_coords(p: wp.vec2):
            return wp.vec3(p[0], p[1], 0.0)
        return wp.vec2, to_params, to_coords, _project_unit_box, wp.vec2(0.5)

    @wp.func
    def same(c: wp.vec3):
        return c
    if shape == "tetrahedron":
        return wp.vec3, same, same, _simplex_projection(3), wp.vec3(0.25)
    if shape == "cube":
        return wp.vec3, same, same, _project_unit_box, wp.vec3(0.5)
    raise NotImplementedError(f"fem: point queries on {shape} cells are not supported")


def _exact_simplices(geo_cls):
    return (geo_cls.reference_cell_shape in ("triangle", "tetrahedron") and geo_cls.dimension == geo_cls.cell_dimension
            and getattr(geo_cls, "cell_vertex", None) is not None)


@functools.lru_cache(maxsize=None)
def element_coordinates_func(geo_cls):
    """``fem.element_coordinates(domain, cell, pos)``: the cell's coordinates of ``pos``,
    extrapolated outside the cell."""
    if _exact_simplices(geo_cls):
        return make_simplex_queries(geo_cls)[0]
    _P, to_params, to_coords, _project, center = reference_maps(geo_cls.reference_cell_shape)
    position, inv_grad = geo_cls.cell_position, geo_cls.cell_inverse_deformation_gradient

    @wp.func
    def cell_coordinates(arg: geo_cls.CellArg, cell: int, pos: Any):
        p = center
        for _k in range(_NEWTON_ITERATIONS):
            s = make_free_sample(cell, to_coords(p))
            dp = inv_grad(arg, s) * (pos - position(arg, s))
            p = p + dp
            if wp.length_sq(dp) < _STEP_EPS:
                break
        return to_coords(p)
    return cell_coordinates


@functools.lru_cache(maxsize=None)
def element_closest_point_func(geo_cls):
    """``fem.element_closest_point(domain, cell, pos)``: (coordinates of the point of the cell
    closest to ``pos``, squared distance)."""
    _P, to_params, to_coords, project, _center = reference_maps(geo_cls.reference_cell_shape)
    position, grad = geo_cls.cell_position, geo_cls.cell_deformation_gradient
    coordinates = element_coordinates_func(geo_cls)

    @wp.func
    def cell_closest_point(arg: geo_cls.CellArg, cell: int, pos: Any):
        p = project(to_params(coordinates(arg, cell, pos)))
        for _k in range(_DESCENT_ITERATIONS):
            s = make_free_sample(cell, to_coords(p))
            F = grad(arg, s)
            step = wp.transpose(F) * (pos - position(arg, s)) / wp.ddot(F, F)
            q = project(p + step)
            moved = wp.length_sq(q - p)
            p = q
            if moved < _STEP_EPS:
                break
        c = to_coords(p)
        return c, wp.length_sq(pos - position(arg, make_free_sample(cell, c)))
    return cell_closest_point


@wp.func
def _keep(filter_array: int, cell: int, filter_target: int):
    return True


@wp.func
def _keep(filter_array: wp.array(dtype=Any), cell: int, filter_target: Any):  # noqa: F811
    return filter_array[cell] == filter_target


@functools.lru_cache(maxsize=None)
def _lookup_root(geo_cls):
    closest = element_closest_point_func(geo_cls)

    @wp.func
    def lookup_root(arg: geo_cls.CellArg, pos: Any, max_dist: float, filter_array: Any, filter_target: Any):
        best = int(NULL_ELEMENT_INDEX)
        best_coords = wp.vec3(OUTSIDE)
        if arg.bvh != wp.uint64(0):
            pad = wp.max(max_dist, 1.0) * _PAD_MIN
            q = _bvh_point(pos)
            while best == NULL_ELEMENT_INDEX:
                query = wp.bvh_query_aabb(arg.bvh, q - wp.vec3f(wp.vec3(pad)), q + wp.vec3f(wp.vec3(pad)))
                cell = int(0)
                best_dist = pad * pad
                while wp.bvh_query_next(query, cell):
                    if _keep(filter_array, cell, filter_target):
                        coords, dist = closest(arg, cell, pos)
                        if dist <= best_dist:
                            best_dist = dist
                            best = cell
                            best_coords = coords
                if pad >= _PAD_MAX:
                    break
                pad = wp.min(4.0 * pad, _PAD_MAX)
        return make_free_sample(best, best_coords)
    return lookup_root


def make_cell_lookup(Arg, search, position):
    """warp-lang's five ``fem.lookup(domain, pos[, guess | max_dist][, filter_array,
    filter_target])`` overloads over a geometry's ``search(arg, pos, max_dist, filter_array,
    filter_target)`` (``filter_array`` 0: no filter); a guess sample only bounds the search
    radius (its distance through ``position``, the geometry's ``cell_position``)."""

    @wp.func
    def cell_lookup(arg: Arg, pos: Any):
        return search(arg, pos, 0.0, 0, 0)

    @wp.func
    def cell_lookup(arg: Arg, pos: Any, guess: Sample):  # noqa: F811
        return search(arg, pos, wp.length(position(arg, guess) - pos), 0, 0)

    @wp.func
    def cell_lookup(arg: Arg, pos: Any, max_dist: float):  # noqa: F811
        return search(arg, pos, max_dist, 0, 0)

    @wp.func
    def cell_lookup(arg: Arg, pos: Any, max_dist: float, filter_array: wp.array(dtype=Any),  # noqa: F811
                    filter_target: Any):
        return search(arg, pos, max_dist, filter_array, filter_target)

    @wp.func
    def cell_lookup(arg: Arg, pos: Any, filter_array: wp.array(dtype=Any), filter_target: Any):  # noqa: F811
        return search(arg, pos, 0.0, filter_array, filter_target)
    return cell_lookup


@functools.lru_cache(maxsize=None)
def cell_lookup_func(geo_cls):
    """``fem.lookup`` on a mesh: the closest cell among those the BVH search meets."""
    return make_cell_lookup(geo_cls.CellArg, _lookup_root(geo_cls), geo_cls.cell_position)


@functools.lru_cache(maxsize=None)
def sampled_bounds_kernel(geo_cls, n=4):
    """A kernel writing each cell's bounding box from its positions at a lattice of (n + 1)
    points per parameter (projected onto the reference cell), widened by a tenth of its
    extent: boxes for curved cells (deformed geometries), whose vertices do not bound them."""
    _P, _to_params, to_coords, project, center = reference_maps(geo_cls.reference_cell_shape)
    position = geo_cls.cell_position
    nk = n + 1 if _P == wp.vec3 else 1

    if nk == 1:
        @wp.func
        def lattice(i: int, j: int, k: int):
            return project(wp.vec2(wp.real(i), wp.real(j)) / wp.real(n))
    else:
        @wp.func
        def lattice(i: int, j: int, k: int):
            return project(wp.vec3(wp.real(i), wp.real(j), wp.real(k)) / wp.real(n))

    @wp.kernel
    def cell_bounds(arg: geo_cls.CellArg, lowers: wp.array(dtype=wp.vec3f), uppers: wp.array(dtype=wp.vec3f)):
        cell = wp.tid()
        lo = wp.vec3f(1.0e30)
        hi = wp.vec3f(-1.0e30)
        for i in range(n + 1):
            for j in range(n + 1):
                for k in range(nk):
                    x = _bvh_point(position(arg, make_free_sample(cell, to_coords(lattice(i, j, k)))))
                    lo = wp.min(lo, x)
                    hi = wp.max(hi, x)
        pad = 0.1 * (hi - lo) + wp.vec3f(1.0e-6)
        lowers[cell] = lo - pad
        uppers[cell] = hi + pad
    return cell_bounds


class CellLookupMixin:
    """``build_bvh``/``update_bvh`` and the point-query functions of a mesh whose CellArg has
    a ``bvh`` (uint64) field and whose class names ``cell_vertex_indices`` (the attribute
    holding its cells' vertex indices)."""

    _bvh = None

    def _cell_bounds(self):
        cells = getattr(self, self.cell_vertex_indices).numpy()
        pos = self.positions.numpy().astype(np.float32)
        if pos.shape[1] == 2:
            pos = np.hstack([pos, np.zeros((len(pos), 1), np.float32)])
        corners = pos[cells]                              # (n, vertices, 3)
        return corners.min(axis=1), corners.max(axis=1)

    def _bvh_device(self):
        return self.positions.device

    def build_bvh(self, device=None):
        """Build the BVH of the cells' bounding boxes that ``fem.lookup`` searches."""
        lo, hi = self._cell_bounds()
        device = device if device is not None else self._bvh_device()
        self._bvh = wp.Bvh(wp.array(lo, dtype=wp.vec3f, device=device), wp.array(hi, dtype=wp.vec3f, device=device))
        return self._bvh

    def update_bvh(self, device=None):
        """Refit the BVH after the positions moved (builds it when there is none)."""
        if self._bvh is None:
            return self.build_bvh(device)
        lo, hi = self._cell_bounds()
        self._bvh.lowers.assign(lo)
        self._bvh.uppers.assign(hi)
        self._bvh.refit()
        return self._bvh

    def bvh_id(self, device=None):
        return 0 if self._bvh is None else self._bvh.id

    def supports_cell_lookup(self, device=None):
        return self._bvh is not None

    @property
    def cell_lookup(self):
        return cell_lookup_func(type(self))
