"""Quadrature formulas: where, in each element of a domain, integrands are evaluated.

Each quadrature gives kernels an ``Arg`` struct and four ``@wp.func``s taking it and the
element's index in the domain: ``point_count``, ``point_coords``, ``point_weight`` and
``point_index`` (a global index of the point, for fields stored per quadrature point)."""

import numpy as np

from . import _api as wp

from .polynomial import Polynomial, quadrature_1d


def _point_count(order, family):
    if family == Polynomial.GAUSS_LEGENDRE:
        return max(1, order // 2 + 1)
    if family == Polynomial.LOBATTO_GAUSS_LEGENDRE:
        return max(2, order // 2 + 2)
    if family == Polynomial.EQUISPACED_CLOSED:
        return max(2, 2 * (order // 2) + 1)
    return max(1, 2 * (order // 2) + 1)


def reference_rule(shape, order, family):
    """(points as (n, 3) coordinates, weights) of the tensor rule on a reference shape; the
    simplices are not supported yet."""
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
def _regular_count(arg: RegularQuadratureArg, element: int):
    return arg.points.shape[0]


@wp.func
def _regular_coords(arg: RegularQuadratureArg, element: int, q: int):
    return arg.points[q]


@wp.func
def _regular_weight(arg: RegularQuadratureArg, element: int, q: int):
    return arg.weights[q]


@wp.func
def _regular_index(arg: RegularQuadratureArg, element: int, q: int):
    return element * arg.points.shape[0] + q


class Quadrature:
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
        self.family = Polynomial.GAUSS_LEGENDRE if family is None else family
        self.points, self.weights = reference_rule(domain.reference_element, order, self.family)
        self._arrays = {}

    @property
    def name(self):
        return f"RegularQuadrature_{self.order}_{self.family}"

    def points_per_element(self):
        return len(self.weights)

    def total_point_count(self):
        return self.domain.element_count() * len(self.weights)

    def arg_value(self, device=None):
        device = wp.get_device(device)
        arrs = self._arrays.get(device.alias)
        if arrs is None:
            arrs = (wp.array(self.points.astype(np.float32), dtype=wp.vec3, device=device),
                    wp.array(self.weights.astype(np.float32), dtype=float, device=device))
            self._arrays[device.alias] = arrs
        a = RegularQuadratureArg()
        a.points, a.weights = arrs
        return a
