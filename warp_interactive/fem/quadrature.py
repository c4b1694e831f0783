"""Quadrature formulas: where, in each element of a domain, integrands are evaluated.

Each quadrature gives kernels an ``Arg`` struct and four ``@wp.func``s taking it, the
element's index in the domain and its index in the geometry: ``point_count``,
``point_coords``, ``point_weight`` and ``point_index`` (a global index of the point, for fields
stored per quadrature point). Some quadratures choose their funcs per instance (``point_funcs``)."""

import functools
from typing import Any

import numpy as np

from . import _api as wp
from .precision import FollowsPrecision, follow_precision

from .polynomial import Polynomial, quadrature_1d


def _point_count(order, family):
    if family == Polynomial.GAUSS_LEGENDRE:
        return max(1, order // 2 + 1)
    if family == Polynomial.LOBATTO_GAUSS_LEGENDRE:
        return max(2, order // 2 + 2)
    if family == Polynomial.EQUISPACED_CLOSED:
        return max(2, 2 * (order // 2) + 1)
    return max(1, 2 * (order // 2) + 1)


def _symmetric_simplex_rule(shape, order):
    """The symmetric low-order rules warp-lang uses on simplices when no point family is asked
    for (order <= 2), in its point order: the centroid (exact to degree 1), then the 3-point
    triangle rule with points at (2/3, 1/6, 1/6) and the 4-point tetrahedron rule with points
    at (a, a, a) and b on each axis, a = (5 - sqrt 5) / 20, b = 1 - 3a (both exact to degree 2).
    None for higher orders (the collapsed Gauss rules then)."""
    if order > 2:
        return None
    if shape == "triangle":
        if order <= 1:
            return np.array([[1.0 / 3.0] * 3]), np.array([1.0])
        a, b = 1.0 / 6.0, 2.0 / 3.0
        return np.array([(b, a, a), (a, b, a), (a, a, b)]), np.full(3, 1.0 / 3.0)
    if order <= 1:
        return np.array([[0.25] * 3]), np.array([1.0])
    a = (5.0 - np.sqrt(5.0)) / 20.0
    b = 1.0 - 3.0 * a
    return np.array([(a, a, a), (b, a, a), (a, b, a), (a, a, b)]), np.full(4, 0.25)


def reference_rule(shape, order, family):
    """(points as (n, 3) coordinates, weights summing to 1) of the rule of ``order`` on a
    reference shape: tensor Gauss rules on segments, squares and cubes; on triangles and
    tetrahedra the symmetric rules up to order 2 when ``family`` is None, else collapsed
    tensor rules."""
    if family is None and shape in ("triangle", "tetrahedron"):
        rule = _symmetric_simplex_rule(shape, order)
        if rule is not None:
            return rule
    family = Polynomial.GAUSS_LEGENDRE if family is None else family
    x, w = quadrature_1d(_point_count(order, family), family)
    if shape == "segment":
        pts = [(a, 0.0, 0.0) for a in x]
        wts = list(w)
    elif shape == "square":
        pts = [(a, b, 0.0) for a in x for b in x]
        wts = [wa * wb for wa in w for wb in w]
    elif shape == "cube":
        pts = [(a, b, c) for a in x for b in x for c in x]
        wts = [wa * wb * wc for wa in w for wb in w for wc in w]
    elif shape == "triangle":
        return _collapsed_triangle_rule(order, family)
    elif shape == "tetrahedron":
        return _collapsed_tet_rule(order, family)
    else:
        raise NotImplementedError(f"no quadrature on reference {shape} elements yet")
    return np.array(pts, dtype=np.float64), np.array(wts, dtype=np.float64)


def _collapsed_triangle_rule(order, family):
    """The square's tensor rule mapped onto the triangle by collapsing one side (u = x,
    v = (1 - x) y; the Jacobian 1 - x costs one more point along x); points as barycentric
    coordinates (1 - u - v, u, v), weights summing to 1."""
    x, wx = quadrature_1d(_point_count(order + 1, family), family)
    y, wy = quadrature_1d(_point_count(order, family), family)
    pts, wts = [], []
    for a, wa in zip(x, wx):
        for b, wb in zip(y, wy):
            u, v = a, (1.0 - a) * b
            pts.append((1.0 - u - v, u, v))
            wts.append(2.0 * wa * wb * (1.0 - a))
    return np.array(pts, dtype=np.float64), np.array(wts, dtype=np.float64)


def _collapsed_tet_rule(order, family):
    """The cube's tensor rule collapsed onto the tetrahedron (u = x, v = (1 - x) y,
    w = (1 - x)(1 - y) z; the Jacobian (1 - x)^2 (1 - y) costs two more points along x, one
    along y); points as the coordinates (u, v, w) of vertices 1-3, weights summing to 1."""
    x, wx = quadrature_1d(_point_count(order + 2, family), family)
    y, wy = quadrature_1d(_point_count(order + 1, family), family)
    z, wz = quadrature_1d(_point_count(order, family), family)
    pts, wts = [], []
    for a, wa in zip(x, wx):
        for b, wb in zip(y, wy):
            for c, wc in zip(z, wz):
                pts.append((a, (1.0 - a) * b, (1.0 - a) * (1.0 - b) * c))
                wts.append(6.0 * wa * wb * wc * (1.0 - a) ** 2 * (1.0 - b))
    return np.array(pts, dtype=np.float64), np.array(wts, dtype=np.float64)


@wp.struct
class RegularQuadratureArg:
    points: wp.array(dtype=wp.vec3)
    weights: wp.array(dtype=float)


@wp.func
def _regular_count(arg: RegularQuadratureArg, element: int, elt: int):
    return arg.points.shape[0]


@wp.func
def _regular_coords(arg: RegularQuadratureArg, element: int, elt: int, q: int):
    return arg.points[q]


@wp.func
def _regular_weight(arg: RegularQuadratureArg, element: int, elt: int, q: int):
    return arg.weights[q]


@wp.func
def _regular_index(arg: RegularQuadratureArg, element: int, elt: int, q: int):
    return element * arg.points.shape[0] + q


def point_funcs(quadrature):
    """(point_count, point_coords, point_weight, point_index) of a quadrature (or quadrature
    class): the @wp.funcs kernels call, which some quadratures choose per instance."""
    q = quadrature
    return q.point_count, q.point_coords, q.point_weight, q.point_index


class Quadrature(FollowsPrecision):
    """Base of the quadrature formulas."""

    def __init__(self, domain):
        self.domain = domain

    def total_point_count(self):
        raise NotImplementedError

    @property
    def name(self):
        return type(self).__name__


class RegularQuadrature(Quadrature):
    """The same tensor-product rule of ``order`` (exact for polynomials of that degree) in
    every element of ``domain``; ``family`` picks its points (Gauss-Legendre by default)."""

    Arg = RegularQuadratureArg
    point_count = _regular_count
    point_coords = _regular_coords
    point_weight = _regular_weight
    point_index = _regular_index

    def __init__(self, domain, order, family=None):
        super().__init__(domain)
        self.order = order
        self.family = family
        self.points, self.weights = reference_rule(domain.reference_shape, order, family)
        self._arrays = {}

    @property
    def name(self):
        return f"RegularQuadrature_{self.order}_{self.family}"

    def points_per_element(self):
        return len(self.weights)

    def max_points_per_element(self):
        return len(self.weights)

    def total_point_count(self):
        return self.domain.element_count() * len(self.weights)

    def arg_value(self, device=None):
        device = wp.get_device(device)
        arrs = self._arrays.get(device.alias)
        if arrs is None:
            arrs = (wp.array(self.points, dtype=wp.vec3, device=device),
                    wp.array(self.weights, dtype=wp.real, device=device))
            self._arrays[device.alias] = arrs
        a = RegularQuadratureArg()
        a.points, a.weights = arrs
        return a


@wp.struct
class ExplicitQuadratureArg:
    points: wp.array2d(dtype=wp.vec3)
    weights: wp.array2d(dtype=float)


@wp.struct
class ExplicitQuadratureArg64:
    points: wp.array2d(dtype=wp.vec3d)
    weights: wp.array2d(dtype=wp.float64)


@wp.func
def _explicit_count(arg: Any, element: int, elt: int):
    return arg.points.shape[1]


def _explicit_funcs(by_geometry):
    """coords, weight, index reading row ``elt`` (the geometry's element) or ``element`` (the
    domain's) of the arrays."""
    G = int(by_geometry)

    @wp.func
    def coords(arg: Any, element: int, elt: int, q: int):
        return arg.points[wp.where(G == 1, elt, element), q]

    @wp.func
    def weight(arg: Any, element: int, elt: int, q: int):
        return arg.weights[wp.where(G == 1, elt, element), q]

    @wp.func
    def index(arg: Any, element: int, elt: int, q: int):
        return arg.points.shape[1] * wp.where(G == 1, elt, element) + q
    return coords, weight, index


_EXPLICIT_FUNCS = {g: _explicit_funcs(g) for g in (False, True)}


class ExplicitQuadrature(Quadrature):
    """Given points (element coordinates) and weights per element: 2-D arrays of shape
    (elements, points per element), with a row per element of the domain or of the whole
    geometry (then the domain's elements read their geometry element's row, and point indices
    count geometry elements)."""

    point_count = _explicit_count

    def __init__(self, domain, points, weights):
        if points.shape != weights.shape:
            raise ValueError("Points and weights arrays must have the same shape")
        super().__init__(domain)
        if points.shape[0] == domain.geometry_element_count():
            self._whole_geo = True
        elif points.shape[0] == domain.element_count():
            self._whole_geo = False
        else:
            raise NotImplementedError("The number of rows of points and weights must match the element count "
                                      "of either the domain or the geometry")
        self.point_coords, self.point_weight, self.point_index = _EXPLICIT_FUNCS[self._whole_geo]
        self.Arg = ExplicitQuadratureArg64 if domain.geometry.scalar_type == wp.float64 else ExplicitQuadratureArg
        self._points, self._weights = points, weights

    @property
    def name(self):
        return f"ExplicitQuadrature_{self.domain.name}_{self._whole_geo}"

    def total_point_count(self):
        return self._weights.size

    def max_points_per_element(self):
        return self._points.shape[1]

    def arg_value(self, device=None):
        device = wp.get_device(device)
        a = self.Arg()
        a.points, a.weights = self._points.to(device), self._weights.to(device)
        return a


@functools.lru_cache(maxsize=None)
def _nodal_funcs(geometry_cls, el_items):
    """count/coords/weight/index of the nodes of a space's cell element as quadrature points;
    the index is the node's (local to a space partition when ``to_local`` is not empty)."""
    from .field.structs import make_struct
    el = dict(el_items)
    N, node_coords, node_weight = el["cell_node_count"], el["node_coords"], el["node_weight"]
    cell_node_index = el["cell_node_index"]
    Arg = make_struct(f"NodalQuadrature{geometry_cls.__name__}Arg",
                      {"cell": geometry_cls.CellArg, "to_local": wp.array(dtype=int)})

    @wp.func
    def count(arg: Any, element: int, elt: int):
        return N

    @wp.func
    def coords(arg: Any, element: int, elt: int, q: int):
        return node_coords(q)

    @wp.func
    def weight(arg: Any, element: int, elt: int, q: int):
        return node_weight(q)

    @wp.func
    def index(arg: Any, element: int, elt: int, q: int):
        n = cell_node_index(arg.cell, elt, q)
        if arg.to_local.shape[0] > 0:
            n = arg.to_local[n]
        return n
    return Arg, (count, coords, weight, index)


class NodalQuadrature(Quadrature):
    """The nodes of ``space`` (or of ``basis_space``) in each cell of ``domain`` as quadrature
    points, weighted by the nodes' quadrature weights; a point's index is its node's (in the
    numbering of ``space_partition`` when given). Unlike ``assembly="nodal"`` it assumes nothing
    of the integrand."""

    def __init__(self, domain, space=None, basis_space=None, space_partition=None):
        from .types import ElementKind
        super().__init__(domain)
        space = space if space is not None else getattr(basis_space, "_scalar", basis_space)
        if space is None:
            raise ValueError("One of space, basis_space or space_partition must be provided")
        if domain.element_kind != ElementKind.CELL:
            raise NotImplementedError("fem.NodalQuadrature: cell domains only, so far")
        self.space, self.space_partition = space, space_partition
        el = space.element(ElementKind.CELL)
        self._nodes = el["cell_node_count"]
        self.Arg, funcs = _nodal_funcs(type(domain.geometry), tuple(sorted(el.items())))
        self.point_count, self.point_coords, self.point_weight, self.point_index = funcs

    @property
    def name(self):
        return f"NodalQuadrature_{self.domain.name}_{self.space.name}"

    def total_point_count(self):
        return self.domain.element_count() * self._nodes

    def max_points_per_element(self):
        return self._nodes

    def arg_value(self, device=None):
        device = wp.get_device(device)
        a = self.Arg()
        a.cell = self.domain.geometry.cell_arg_value(device)
        part = self.space_partition
        a.to_local = part.space_to_partition(device) if part is not None else wp.empty(0, dtype=int, device=device)
        return a
