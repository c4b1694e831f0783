"""Shape-function families that no space of this package uses yet, as @wp.func quadruples
(weight, weight_gradient, node_coords, node_weight) for ``fem.ShapeFunction`` objects
(shape_functions.py):

- ``lattice_shape(dim, k)``: Lagrange P_k on the triangle (``dim == 2``, coordinates the three
  barycentrics) or tetrahedron (``dim == 3``, coordinates the last three barycentrics), nodes
  on the barycentric lattice: vertices, ``k - 1`` per edge, then faces/interior (degree 3);
- ``nonconforming``: P_k on a smaller simplex (or a triangle inside the square) whose nodes lie
  inside the element, so the element's nodes are its own (discontinuous spaces);
- Whitney forms on simplices (``whitney_shape``): Nédélec first kind (one tangential dof per
  edge) and Raviart-Thomas (one flux dof per side), lowest order;
- ``square_vector_shape``: the same two on the square (one dof per side);
- ``bspline_shape``: uniform tensor B-splines of degree 1-3 on one cell (control points at
  the Greville abscissae, so they reproduce linear functions).

Node quadrature weights are the integrals of the shape functions over the element (measure 1),
computed here with NumPy, so node quadrature is exact for what the shape functions reproduce."""

import functools
import math
from typing import Any

import numpy as np

from .. import _api as wp


def _tri_lattice(k):
    """Barycentric lattice multi-indices of the P_k triangle's nodes, in node order."""
    out = [tuple(k if i == v else 0 for i in range(3)) for v in range(3)]
    for e in range(3):                  # edge e opposite vertex e, from vertex e+1 to e+2
        i, j = (e + 1) % 3, (e + 2) % 3
        for t in range(1, k):
            a = [0, 0, 0]
            a[i], a[j] = k - t, t
            out.append(tuple(a))
    if k == 3:
        out.append((1, 1, 1))
    return out


def _tet_lattice(k):
    from ..geometry.tetmesh import TET_EDGES
    out = [tuple(k if i == v else 0 for i in range(4)) for v in range(4)]
    for a_, b_ in TET_EDGES:
        for t in range(1, k):
            a = [0, 0, 0, 0]
            a[a_], a[b_] = k - t, t
            out.append(tuple(a))
    if k == 3:
        for f in range(4):
            out.append(tuple(0 if i == f else 1 for i in range(4)))
    return out


def lattice(dim, k):
    return _tri_lattice(k) if dim == 2 else _tet_lattice(k)


def _lattice_value_np(a, k, l):
    """NumPy value of the lattice node ``a``'s shape function at barycentrics ``l`` (rows)."""
    w = np.ones(l.shape[0])
    for i, ai in enumerate(a):
        for j in range(ai):
            w *= (k * l[:, i] - j) / (j + 1)
    return w


@functools.lru_cache(maxsize=None)
def _bary_funcs(dim, k):
    """value(l, n) and partials(l, n) (by each barycentric) of P_k lattice node ``n``."""
    B = dim + 1
    nodes = lattice(dim, k)
    LV = wp.types.vector(B, wp.float32)
    LI = wp.types.matrix(shape=(len(nodes), B), dtype=wp.float32)
    TABLE = LI(*[float(x) for a in nodes for x in a])
    KF = float(k)

    @wp.func
    def factor(a: int, l: float):
        w = wp.real(1.0)
        for j in range(a):
            w *= (KF * l - wp.real(j)) / wp.real(j + 1)
        return w

    @wp.func
    def factor_derivative(a: int, l: float):
        d = wp.real(0.0)
        for m in range(a):
            p = KF / wp.real(m + 1)
            for j in range(a):
                if j != m:
                    p *= (KF * l - wp.real(j)) / wp.real(j + 1)
            d += p
        return d

    @wp.func
    def value(l: Any, n: int):
        w = wp.real(1.0)
        for i in range(B):
            w *= factor(int(TABLE[n, i]), l[i])
        return w

    @wp.func
    def partials(l: Any, n: int):
        g = LV(0.0)
        for i in range(B):
            p = factor_derivative(int(TABLE[n, i]), l[i])
            for j in range(B):
                if j != i:
                    p *= factor(int(TABLE[n, j]), l[j])
            g[i] = p
        return g

    return value, partials


def simplex_quadrature_np(dim, n=6):
    """(points (rows of ``dim`` parameters), weights summing to 1) on the reference triangle or
    tetrahedron: collapsed Gauss-Legendre (exact for degree <= 2 n - 1 - dim)."""
    x, w = np.polynomial.legendre.leggauss(n)
    x, w = 0.5 * (x + 1.0), 0.5 * w
    if dim == 2:
        u, v = np.meshgrid(x, x, indexing="ij")
        wu, wv = np.meshgrid(w, w, indexing="ij")
        pts = np.stack([u.ravel(), ((1 - u) * v).ravel()], 1)
        wts = (wu * wv * (1 - u)).ravel()
    else:
        u, v, t = np.meshgrid(x, x, x, indexing="ij")
        wu, wv, wt = np.meshgrid(w, w, w, indexing="ij")
        pts = np.stack([u.ravel(), ((1 - u) * v).ravel(), ((1 - u) * (1 - v) * t).ravel()], 1)
        wts = (wu * wv * wt * (1 - u) ** 2 * (1 - v)).ravel()
    return pts, wts / wts.sum()


def _bary_np(dim, params):
    return np.concatenate([1.0 - params.sum(axis=1, keepdims=True), params], axis=1)


@functools.lru_cache(maxsize=None)
def lattice_shape(dim, k, shrink=1.0):
    """P_k on the triangle (dim 2) or tetrahedron (dim 3); with ``shrink < 1``, the P_k of the
    simplex scaled by ``shrink`` about the centroid (nodes inside: the non-conforming element)."""
    value, partials = _bary_funcs(dim, k)
    nodes = lattice(dim, k)
    B = dim + 1
    G = 1.0 / B
    S, INV_S = float(shrink), 1.0 / float(shrink)
    # node weights: the shape functions' integrals over the element
    pts, wts = simplex_quadrature_np(dim)
    lbig = _bary_np(dim, pts)
    lsmall = G + (lbig - G) * INV_S
    NW = wp.types.vector(len(nodes), wp.float32)(*[float(wts @ _lattice_value_np(a, k, lsmall)) for a in nodes])
    NC = wp.types.matrix(shape=(len(nodes), 4), dtype=wp.float32)(
        *[G + S * (ai / k - G) for a in nodes for ai in (tuple(a) + (0,) * (4 - B))])

    if dim == 2:
        @wp.func
        def weight(c: wp.vec3, n: int):
            return value(wp.vec3(G) + (c - wp.vec3(G)) * INV_S, n)

        @wp.func
        def weight_gradient(c: wp.vec3, n: int):
            g = partials(wp.vec3(G) + (c - wp.vec3(G)) * INV_S, n) * INV_S
            return wp.vec2(g[1] - g[0], g[2] - g[0])

        @wp.func
        def node_coords(n: int):
            return wp.vec3(NC[n, 0], NC[n, 1], NC[n, 2])
    else:
        @wp.func
        def bary(c: wp.vec3):
            return wp.vec4(1.0 - c[0] - c[1] - c[2], c[0], c[1], c[2])

        @wp.func
        def weight(c: wp.vec3, n: int):
            return value(wp.vec4(G) + (bary(c) - wp.vec4(G)) * INV_S, n)

        @wp.func
        def weight_gradient(c: wp.vec3, n: int):
            g = partials(wp.vec4(G) + (bary(c) - wp.vec4(G)) * INV_S, n) * INV_S
            return wp.vec3(g[1] - g[0], g[2] - g[0], g[3] - g[0])

        @wp.func
        def node_coords(n: int):
            return wp.vec3(NC[n, 1], NC[n, 2], NC[n, 3])

    @wp.func
    def node_weight(n: int):
        return NW[n]

    return weight, weight_gradient, node_coords, node_weight


# the embedded triangle of the square's non-conforming element (symmetric about the diagonal)
_SQUARE_TRIANGLE = np.array([[0.1, 0.1], [0.9, 0.3], [0.3, 0.9]])


@functools.lru_cache(maxsize=None)
def square_nonconforming_shape(k):
    """P_k on a triangle inside the unit square, seen as functions on the whole square."""
    value, partials = _bary_funcs(2, k)
    nodes = lattice(2, k)
    V = _SQUARE_TRIANGLE
    M = np.linalg.inv(np.vstack([V.T, np.ones(3)]))     # (x, y, 1) -> barycentrics
    TO_BARY = wp.mat33(*[float(x) for x in M.ravel()])
    GX = wp.vec3(*[float(x) for x in M[:, 0]])
    GY = wp.vec3(*[float(x) for x in M[:, 1]])
    g1, w1 = np.polynomial.legendre.leggauss(k + 1)
    g1, w1 = 0.5 * (g1 + 1.0), 0.5 * w1
    X, Y = np.meshgrid(g1, g1, indexing="ij")
    W = np.outer(w1, w1).ravel()
    lq = (M @ np.vstack([X.ravel(), Y.ravel(), np.ones(X.size)])).T
    NW = wp.types.vector(len(nodes), wp.float32)(*[float(W @ _lattice_value_np(a, k, lq)) for a in nodes])
    pos = [np.array(a, dtype=float) / k @ V for a in nodes]
    NC = wp.types.matrix(shape=(len(nodes), 2), dtype=wp.float32)(*[float(x) for p in pos for x in p])

    @wp.func
    def weight(c: wp.vec3, n: int):
        return value(TO_BARY * wp.vec3(c[0], c[1], 1.0), n)

    @wp.func
    def weight_gradient(c: wp.vec3, n: int):
        g = partials(TO_BARY * wp.vec3(c[0], c[1], 1.0), n)
        return wp.vec2(wp.dot(g, GX), wp.dot(g, GY))

    @wp.func
    def node_coords(n: int):
        return wp.vec3(NC[n, 0], NC[n, 1], 0.0)

    @wp.func
    def node_weight(n: int):
        return NW[n]

    return weight, weight_gradient, node_coords, node_weight


@functools.lru_cache(maxsize=None)
def whitney_shape(dim, kind):
    """Lowest-order Nédélec first kind (``kind == "N1"``: ``l_a grad l_b - l_b grad l_a`` on edge
    (a, b), unit circulation along it) or Raviart-Thomas (``"RT"``: ``(p - V_f) * (dim - 1)!`` for the
    side opposite vertex f, unit flux through it) on the reference triangle or tetrahedron;
    values and gradients by the reference parameters."""
    from ..geometry.tetmesh import TET_EDGES
    B = dim + 1
    VT = wp.types.vector(dim, wp.float32)
    LT = wp.types.vector(B, wp.float32)
    MT = wp.types.matrix(shape=(dim, dim), dtype=wp.float32)
    grads = np.vstack([-np.ones(dim), np.eye(dim)])            # grad l_i by the parameters
    DL = wp.types.matrix(shape=(B, dim), dtype=wp.float32)(*[float(x) for x in grads.ravel()])
    verts = np.vstack([np.zeros(dim), np.eye(dim)])
    if kind == "N1":
        pairs = [((e + 1) % 3, (e + 2) % 3) for e in range(3)] if dim == 2 else list(TET_EDGES)
        centers = [0.5 * (verts[a] + verts[b]) for a, b in pairs]
    else:
        pairs = [(f, f) for f in range(B)]
        centers = [(verts.sum(axis=0) - verts[f]) / dim for f in range(B)]
    N = len(pairs)
    PA = wp.types.vector(N, wp.int32)(*[a for a, _ in pairs])
    PB = wp.types.vector(N, wp.int32)(*[b for _, b in pairs])
    CT = wp.types.matrix(shape=(N, 3), dtype=wp.float32)(
        *[float(x) for c in centers for x in (list(c) + [0.0] * (3 - dim))])
    V = wp.types.matrix(shape=(B, dim), dtype=wp.float32)(*[float(x) for x in verts.ravel()])
    SCALE, NWEIGHT = float(math.factorial(dim - 1)), 1.0 / N     # 1 / (dim * volume): unit flux
    OFFSET = 1 if dim == 2 else 0       # triangles: coordinates are (l0, l1, l2), parameters (l1, l2)
    IS_N1 = kind == "N1"

    @wp.func
    def params(c: wp.vec3):
        p = VT(0.0)
        for i in range(dim):
            p[i] = c[i + OFFSET]
        return p

    @wp.func
    def bary(p: Any):
        l = LT(0.0)
        s = wp.real(0.0)
        for i in range(dim):
            l[i + 1] = p[i]
            s += p[i]
        l[0] = 1.0 - s
        return l

    @wp.func
    def row(m: Any, i: int):
        r = VT(0.0)
        for j in range(dim):
            r[j] = m[i, j]
        return r

    @wp.func
    def weight(c: wp.vec3, n: int):
        p = params(c)
        if wp.static(IS_N1):
            l = bary(p)
            return l[PA[n]] * row(DL, PB[n]) - l[PB[n]] * row(DL, PA[n])
        return SCALE * (p - row(V, PA[n]))

    @wp.func
    def weight_gradient(c: wp.vec3, n: int):
        if wp.static(IS_N1):
            ga = row(DL, PA[n])
            gb = row(DL, PB[n])
            return wp.outer(gb, ga) - wp.outer(ga, gb)
        return MT(0.0) + SCALE * wp.identity(n=dim, dtype=wp.float32)

    @wp.func
    def node_coords(n: int):
        c = wp.vec3(CT[n, 0], CT[n, 1], CT[n, 2])
        if wp.static(dim == 2):
            return wp.vec3(1.0 - c[0] - c[1], c[0], c[1])
        return c

    @wp.func
    def node_weight(n: int):
        return NWEIGHT

    return weight, weight_gradient, node_coords, node_weight


@functools.lru_cache(maxsize=None)
def square_vector_shape(kind):
    """Lowest-order Raviart-Thomas (node ``2 a + o``: the side normal to axis ``a`` at ``o``,
    value along +a, 1 on that side, 0 on the opposite one) or Nédélec (node ``2 a + e``: the side
    along axis ``a`` at ``e`` on the other axis, value along +a) on the unit square."""
    IS_RT = kind == "RT"

    @wp.func
    def axis(a: int, t: float):
        return wp.vec2(wp.where(a == 0, t, 0.0), wp.where(a == 1, t, 0.0))

    @wp.func
    def normal_axis(a: int):
        return wp.where(wp.static(IS_RT), a, 1 - a)

    @wp.func
    def weight(c: wp.vec3, n: int):
        a = n // 2
        b = normal_axis(a)
        return axis(a, wp.where(n % 2 == 1, c[b], 1.0 - c[b]))

    @wp.func
    def weight_gradient(c: wp.vec3, n: int):
        a = n // 2
        return wp.outer(axis(a, 1.0), axis(normal_axis(a), wp.where(n % 2 == 1, 1.0, -1.0)))

    @wp.func
    def node_coords(n: int):
        a = n // 2
        b = normal_axis(a)
        c = wp.vec3(0.5, 0.5, 0.0)
        c[b] = float(n % 2)
        return c

    @wp.func
    def node_weight(n: int):
        return 0.25

    return weight, weight_gradient, node_coords, node_weight


# 1-D uniform B-spline pieces on [0, 1] (power-basis coefficients, constant term first), their
# control points (Greville abscissae) and integrals over the cell
_BSPLINE_PIECES = {
    1: [[1, -1], [0, 1]],
    2: [[0.5, -1, 0.5], [0.5, 1, -1], [0, 0, 0.5]],
    3: [[1 / 6, -0.5, 0.5, -1 / 6], [2 / 3, 0, -1, 0.5], [1 / 6, 0.5, 0.5, -0.5], [0, 0, 0, 1 / 6]],
}


def bspline_1d(k):
    """(coefficients (k+1, k+1), control points, integrals) of the degree-k pieces."""
    coef = np.array(_BSPLINE_PIECES[k], dtype=float)
    control = np.arange(k + 1) - 0.5 * (k - 1)
    integrals = coef @ (1.0 / np.arange(1, k + 2))
    return coef, control, integrals


@functools.lru_cache(maxsize=None)
def bspline_shape(dim, k):
    """Tensor B-splines of degree ``k`` on the unit square (``dim == 2``) or cube."""
    coef, control, integrals = bspline_1d(k)
    K = k + 1
    C = wp.types.matrix(shape=(K, K), dtype=wp.float32)(*[float(x) for x in coef.ravel()])
    CP = wp.types.vector(K, wp.float32)(*[float(x) for x in control])
    IW = wp.types.vector(K, wp.float32)(*[float(x) for x in integrals])

    @wp.func
    def piece(i: int, t: float):
        v = wp.real(0.0)
        for d in range(K):
            v = v * t + C[i, K - 1 - d]
        return v

    @wp.func
    def piece_derivative(i: int, t: float):
        v = wp.real(0.0)
        for d in range(K - 1):
            v = v * t + wp.real(K - 1 - d) * C[i, K - 1 - d]
        return v

    if dim == 2:
        @wp.func
        def weight(c: wp.vec3, n: int):
            return piece(n // K, c[0]) * piece(n % K, c[1])

        @wp.func
        def weight_gradient(c: wp.vec3, n: int):
            i = n // K
            j = n % K
            return wp.vec2(piece_derivative(i, c[0]) * piece(j, c[1]), piece(i, c[0]) * piece_derivative(j, c[1]))

        @wp.func
        def node_coords(n: int):
            return wp.vec3(CP[n // K], CP[n % K], 0.0)

        @wp.func
        def node_weight(n: int):
            return IW[n // K] * IW[n % K]
    else:
        @wp.func
        def weight(c: wp.vec3, n: int):
            return piece(n // (K * K), c[0]) * piece((n // K) % K, c[1]) * piece(n % K, c[2])

        @wp.func
        def weight_gradient(c: wp.vec3, n: int):
            i = n // (K * K)
            j = (n // K) % K
            m = n % K
            return wp.vec3(piece_derivative(i, c[0]) * piece(j, c[1]) * piece(m, c[2]),
                           piece(i, c[0]) * piece_derivative(j, c[1]) * piece(m, c[2]),
                           piece(i, c[0]) * piece(j, c[1]) * piece_derivative(m, c[2]))

        @wp.func
        def node_coords(n: int):
            return wp.vec3(CP[n // (K * K)], CP[(n // K) % K], CP[n % K])

        @wp.func
        def node_weight(n: int):
            return IW[n // (K * K)] * IW[(n // K) % K] * IW[n % K]

    return weight, weight_gradient, node_coords, node_weight
