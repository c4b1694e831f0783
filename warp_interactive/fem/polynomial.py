"""1-D point families on [0, 1]: Gauss-Legendre, Gauss-Lobatto-Legendre and equispaced, with
the quadrature weights they carry (weights sum to 1)."""

from enum import Enum

import numpy as np


class Polynomial(Enum):
    """Families of 1-D points, for quadrature rules and interpolation nodes."""

    GAUSS_LEGENDRE = "GL"
    LOBATTO_GAUSS_LEGENDRE = "LGL"
    EQUISPACED_CLOSED = "closed"
    EQUISPACED_OPEN = "open"

    def __str__(self):
        return self.value


def is_closed(family: Polynomial):
    """Whether the family's points include the ends of the interval."""
    return family in (Polynomial.LOBATTO_GAUSS_LEGENDRE, Polynomial.EQUISPACED_CLOSED)


# warp-lang's order of the Gauss-Legendre points (indices into the ascending ones): the centre
# first, then symmetric pairs. It numbers the nodes of GL spaces and the points of quadratures.
_GL_ORDER = {3: [1, 0, 2], 4: [2, 1, 3, 0], 5: [2, 3, 1, 4, 0]}


def _gauss_legendre(n):
    x, w = np.polynomial.legendre.leggauss(n)
    order = _GL_ORDER.get(n, list(range(n)))
    return 0.5 * (x[order] + 1.0), 0.5 * w[order]


def _lobatto(n):
    """n >= 2 points: the ends and the roots of P'_{n-1}; weights 2 / (m (m+1) P_m(x)^2)."""
    m = n - 1
    pm = np.polynomial.legendre.Legendre.basis(m)
    inner = np.sort(pm.deriv().roots().real) if m > 1 else np.array([])
    x = np.concatenate(([-1.0], inner, [1.0]))
    w = 2.0 / (m * (m + 1) * pm(x) ** 2)
    return 0.5 * (x + 1.0), 0.5 * w


def _equispaced(n, closed):
    # open: the n inner points of n + 1 equal steps (open Newton-Cotes), as warp-lang's
    x = np.linspace(0.0, 1.0, n) if closed else (np.arange(n) + 1.0) / (n + 1)
    # weights of the interpolatory rule on these points (exact for degree n - 1)
    v = np.vander(x, n, increasing=True).T
    moments = 1.0 / np.arange(1, n + 1)
    return x, np.linalg.solve(v, moments)


def quadrature_1d(point_count: int, family: Polynomial):
    """(points, weights) of ``point_count`` points of ``family`` on [0, 1]."""
    if point_count < 1:
        raise ValueError("a quadrature needs at least one point")
    if family == Polynomial.GAUSS_LEGENDRE:
        return _gauss_legendre(point_count)
    if family == Polynomial.LOBATTO_GAUSS_LEGENDRE:
        if point_count == 1:
            return np.array([0.5]), np.array([1.0])
        return _lobatto(point_count)
    if family == Polynomial.EQUISPACED_CLOSED:
        if point_count == 1:
            return np.array([0.5]), np.array([1.0])
        return _equispaced(point_count, True)
    if family == Polynomial.EQUISPACED_OPEN:
        return _equispaced(point_count, False)
    raise ValueError(f"unknown point family {family!r}")


def lagrange_scales(coords):
    """1 / prod_{j != i} (x_i - x_j): the normalisation of each Lagrange basis polynomial."""
    n = len(coords)
    return np.array([1.0 / np.prod([coords[i] - coords[j] for j in range(n) if j != i]) for i in range(n)])
