"""Tensor-product Lagrange shape functions on the reference square and cube.

Node ``n`` of a degree-k element has one 1-D index per axis (``n = (ix * (k+1) + iy) * (k+1)
+ iz``, x slowest); its shape function is the product over axes of the 1-D Lagrange
polynomial of that index, on the nodes of the chosen point family (Gauss-Lobatto by default:
for degrees 1 and 2 these are the equispaced nodes)."""

import functools
from enum import Enum

import numpy as np

from .. import _api as wp

from ..polynomial import Polynomial, quadrature_1d


class ElementBasis(Enum):
    """Families of element bases (``make_polynomial_space(element_basis=...)``)."""

    LAGRANGE = "P"
    SERENDIPITY = "S"
    NONCONFORMING_POLYNOMIAL = "dP"
    NEDELEC_FIRST_KIND = "N1"       # H(curl): tangential dofs on edges, covariant Piola map
    RAVIART_THOMAS = "RT"           # H(div): normal flux dofs on faces, contravariant Piola map
    BSPLINE = "B"                   # uniform B-splines on grids (space/bspline_space.py)


@functools.lru_cache(maxsize=None)
def lagrange_1d(degree, family=Polynomial.LOBATTO_GAUSS_LEGENDRE):
    """(value, derivative, nodes, nodal weights) for the 1-D Lagrange basis of ``degree``:
    ``value(i, x)`` and ``derivative(i, x)`` are @wp.funcs."""
    nodes, weights = quadrature_1d(degree + 1, family)
    scales = [1.0 / np.prod([nodes[i] - nodes[j] for j in range(degree + 1) if j != i])
              for i in range(degree + 1)]
    NODES = wp.types.vector(degree + 1, wp.float32)(*[float(x) for x in nodes])
    SCALES = wp.types.vector(degree + 1, wp.float32)(*[float(s) for s in scales])
    COUNT = degree + 1

    @wp.func
    def lagrange_value(i: int, x: float):
        w = SCALES[i]
        for j in range(COUNT):
            if j != i:
                w *= x - NODES[j]
        return w

    @wp.func
    def lagrange_derivative(i: int, x: float):
        d = wp.real(0.0)
        for m in range(COUNT):
            if m != i:
                p = SCALES[i]
                for j in range(COUNT):
                    if j != i and j != m:
                        p *= x - NODES[j]
                d += p
        return d

    return lagrange_value, lagrange_derivative, nodes, weights


@functools.lru_cache(maxsize=None)
def tensor_shape(dim, degree, family=Polynomial.LOBATTO_GAUSS_LEGENDRE):
    """The @wp.funcs of the degree-``degree`` tensor element in ``dim`` dimensions:
    ``weight(coords, n)``, ``weight_gradient(coords, n)`` (by element coordinates),
    ``node_coords(n)`` and ``node_weight(n)`` (the nodal quadrature weight)."""
    value, deriv, nodes, weights = lagrange_1d(degree, family)
    K = degree + 1
    NODES = wp.types.vector(K, wp.float32)(*[float(x) for x in nodes])
    WEIGHTS = wp.types.vector(K, wp.float32)(*[float(x) for x in weights])
    if dim == 2:
        @wp.func
        def weight(c: wp.vec3, n: int):
            return value(n // K, c[0]) * value(n % K, c[1])

        @wp.func
        def weight_gradient(c: wp.vec3, n: int):
            i = n // K
            j = n % K
            return wp.vec2(deriv(i, c[0]) * value(j, c[1]), value(i, c[0]) * deriv(j, c[1]))

        @wp.func
        def node_coords(n: int):
            return wp.vec3(NODES[n // K], NODES[n % K], 0.0)

        @wp.func
        def node_weight(n: int):
            return WEIGHTS[n // K] * WEIGHTS[n % K]
    else:
        @wp.func
        def weight(c: wp.vec3, n: int):
            return value(n // (K * K), c[0]) * value((n // K) % K, c[1]) * value(n % K, c[2])

        @wp.func
        def weight_gradient(c: wp.vec3, n: int):
            i = n // (K * K)
            j = (n // K) % K
            k = n % K
            vi = value(i, c[0])
            vj = value(j, c[1])
            vk = value(k, c[2])
            return wp.vec3(deriv(i, c[0]) * vj * vk, vi * deriv(j, c[1]) * vk, vi * vj * deriv(k, c[2]))

        @wp.func
        def node_coords(n: int):
            return wp.vec3(NODES[n // (K * K)], NODES[(n // K) % K], NODES[n % K])

        @wp.func
        def node_weight(n: int):
            return WEIGHTS[n // (K * K)] * WEIGHTS[(n // K) % K] * WEIGHTS[n % K]
    return weight, weight_gradient, node_coords, node_weight

