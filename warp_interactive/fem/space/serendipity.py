"""Serendipity spaces (S2, S3) on Grid2D: the tensor-product space without its interior nodes.

A degree-k cell has 4 vertex nodes and k - 1 nodes on each edge (4k in all), at the points of a
closed 1-D family (Gauss-Lobatto by default). Cell-local numbering, as warp-lang's: vertices
``v = 2 * i + j`` at ``(i, j)``, then edge nodes ``4 + 2 * e + t`` (``t = 0``: on an edge along x,
``t = 1``: along y; ``e = 2 * k + off``: the k-th interior point of the edge at ``off`` = 0/1).
Shape functions: an edge node's is its 1-D Lagrange polynomial along the edge times the linear
function that is 1 on its edge and 0 on the opposite one; a vertex's is the bilinear function
of the vertex times a correction that vanishes at the other nodes of its edges (degree 2: a
linear one, degree 3: a circle through the edges' interior points).

Global nodes: the grid's vertices ``x * (res[1] + 1) + y``, then k - 1 per edge in the order of
warp-lang's Grid2D sides (edges normal to x and y at cell ``(x, y)``'s lower faces numbered like
the cell, the x = res[0] edges, then the y = res[1] ones), along the edge by increasing
coordinate."""

import functools

import numpy as np

from .. import _api as wp

from ..geometry import grid2d
from ..polynomial import Polynomial, is_closed
from .grid_space import GridPolynomialSpace
from .tensor_shape import lagrange_1d
from .side_maps import cell_element_funcs, side_to_cell_funcs


def _node_ij(degree, n):
    """(i, j) lattice indices (0..degree) of cell-local node ``n``."""
    if n < 4:
        return (n // 2) * degree, (n % 2) * degree
    e, t = divmod(n - 4, 2)
    k, off = divmod(e, 2)
    return (1 + k, off * degree) if t == 0 else (off * degree, 1 + k)


@functools.lru_cache(maxsize=None)
def serendipity_shape(degree, family):
    """weight(coords, n), weight_gradient(coords, n), node_coords(n), node_weight(n)."""
    value, deriv, nodes, _w = lagrange_1d(degree, family)
    K = degree + 1
    NODES = wp.types.vector(K, wp.float32)(*[float(x) for x in nodes])
    ij = [_node_ij(degree, n) for n in range(4 * degree)]
    II = wp.types.vector(4 * degree, wp.int32)(*[a for a, _ in ij])
    JJ = wp.types.vector(4 * degree, wp.int32)(*[b for _, b in ij])
    x1 = float(nodes[1])
    if degree == 2:     # cx * cy * (cx + cy - 2 + x1) / x1: 1 at the vertex, 0 at the edges' midpoints
        C0, C2, SCALE = x1 - 2.0, 0.0, 1.0 / x1
    else:               # cx * cy * (|c - (1/2, 1/2)|^2 - r2) / (1/2 - r2), r2: the edge points' circle
        r2 = 0.25 + (0.5 - x1) ** 2
        C0, C2, SCALE = -r2, 1.0, 1.0 / (0.5 - r2)
    VERTEX_W = 0.25 / (degree * degree)
    EDGE_W = (0.25 - VERTEX_W) / (degree - 1)
    D = degree

    @wp.func
    def vertex_factor(cx: float, cy: float):
        """(f, df/dcx, df/dcy) of the vertex correction."""
        if C2 == 0.0:
            return cx + cy + C0, 1.0, 1.0
        return (cx - 0.5) * (cx - 0.5) + (cy - 0.5) * (cy - 0.5) + C0, 2.0 * cx - 1.0, 2.0 * cy - 1.0

    @wp.func
    def weight(c: wp.vec3, n: int):
        i = II[n]
        j = JJ[n]
        cx = wp.where(i == 0, 1.0 - c[0], c[0])
        cy = wp.where(j == 0, 1.0 - c[1], c[1])
        if n < 4:
            f, _fx, _fy = vertex_factor(cx, cy)
            return cx * cy * f * SCALE
        if j == 0 or j == D:          # on an edge along x
            return value(i, c[0]) * cy
        return cx * value(j, c[1])

    @wp.func
    def weight_gradient(c: wp.vec3, n: int):
        i = II[n]
        j = JJ[n]
        gx = wp.where(i == 0, wp.real(-1.0), wp.real(1.0))
        gy = wp.where(j == 0, wp.real(-1.0), wp.real(1.0))
        cx = wp.where(i == 0, 1.0 - c[0], c[0])
        cy = wp.where(j == 0, 1.0 - c[1], c[1])
        if n < 4:
            f, fx, fy = vertex_factor(cx, cy)
            return wp.vec2(gx * cy * (f + cx * fx), gy * cx * (f + cy * fy)) * SCALE
        if j == 0 or j == D:
            return wp.vec2(deriv(i, c[0]) * cy, value(i, c[0]) * gy)
        return wp.vec2(gx * value(j, c[1]), cx * deriv(j, c[1]))

    @wp.func
    def node_coords(n: int):
        return wp.vec3(NODES[II[n]], NODES[JJ[n]], 0.0)

    @wp.func
    def node_weight(n: int):
        return wp.where(n < 4, VERTEX_W, EDGE_W)

    return weight, weight_gradient, node_coords, node_weight


@functools.lru_cache(maxsize=None)
def cell_node_index_func(degree):
    E = degree - 1

    @wp.func
    def cell_node_index(arg: grid2d.Grid2DCellArg, cell: int, n: int):
        r0 = arg.res[0]
        r1 = arg.res[1]
        x = cell // r1
        y = cell - x * r1
        if n < 4:
            return (x + n // 2) * (r1 + 1) + y + n % 2
        e = (n - 4) // 2
        t = n - 4 - 2 * e
        k = e // 2
        off = e - 2 * k
        cc = r0 * r1
        side = int(0)
        if t == 0:                     # the edge normal to y at y + off, column x
            if y + off == r1:
                side = 2 * cc + r1 + x
            else:
                side = cc + x * r1 + y + off
        else:                          # the edge normal to x at x + off, row y
            if x + off == r0:
                side = 2 * cc + y
            else:
                side = (x + off) * r1 + y
        return (r0 + 1) * (r1 + 1) + E * side + k
    return cell_node_index


@functools.lru_cache(maxsize=None)
def cell_element(degree, family):
    weight, weight_gradient, node_coords, node_weight = serendipity_shape(degree, family)
    return cell_element_funcs(grid2d.Grid2DCellArg, 4 * degree, weight, weight_gradient, node_coords, node_weight)


@functools.lru_cache(maxsize=None)
def side_element(degree, family):
    """A side's nodes: its two vertices and its edge nodes, along the side, with the 1-D
    family's weights (the trace of the space)."""
    weight, weight_gradient, _nc, _nw = serendipity_shape(degree, family)
    _v, _d, nodes, weights = lagrange_1d(degree, family)
    K = degree + 1
    NODES = wp.types.vector(K, wp.float32)(*[float(x) for x in nodes])
    WEIGHTS = wp.types.vector(K, wp.float32)(*[float(x) for x in weights])
    decode = grid2d._side_decode

    flipped = grid2d.side_flipped

    @wp.func
    def cell_node(arg: grid2d.Grid2DSideArg, element: int, m_side: int):
        d = decode(arg, element)
        m = wp.where(flipped(d), K - 1 - m_side, m_side)    # the side's node, counted along the axis
        fa = wp.where(d[1] == 0, 0, 1)          # the inner cell's lower or upper face
        along = wp.where(m == 0, 0, 1)
        if d[0] == 0:                           # normal to x: the nodes run along y
            if m == 0 or m == K - 1:
                return 2 * fa + along
            return 4 + 2 * (2 * (m - 1) + fa) + 1
        if m == 0 or m == K - 1:
            return 2 * along + fa
        return 4 + 2 * (2 * (m - 1) + fa)

    @wp.func
    def node_coords(m: int):
        return wp.vec3(NODES[m], 0.0, 0.0)

    @wp.func
    def node_weight(m: int):
        return WEIGHTS[m]

    return dict(side_to_cell_funcs(grid2d.Grid2D), ElementArg=grid2d.Grid2DSideArg, node_count=K,
                cell_node=cell_node, node_coords=node_coords, node_weight=node_weight,
                cell_node_count=4 * degree, weight=weight, weight_gradient=weight_gradient)


class SerendipityGridSpace(GridPolynomialSpace):
    """The continuous serendipity space S_k (k = 2, 3) of ``dtype`` values on a Grid2D."""

    # fields name their argument structs by degree, family and geometry: without a tag of its own
    # an S2 field would share the Q2 field's struct, and so its registered functions and kernels
    struct_tag = "Serendipity"

    def __init__(self, geometry, degree, dtype=float, family=None):
        family = Polynomial.LOBATTO_GAUSS_LEGENDRE if family is None else family
        if not is_closed(family):
            raise ValueError("A closed polynomial family is required to define serendipity elements")
        if degree not in (2, 3):
            raise NotImplementedError("Serendipity element only implemented for order 2 or 3")
        super().__init__(geometry, degree, dtype, family)

    @property
    def name(self):
        return f"S{self.degree}{self.family}_{self.geometry.name}"

    def node_count(self):
        r0, r1 = self.geometry.res
        sides = (r0 + 1) * r1 + (r1 + 1) * r0
        return (r0 + 1) * (r1 + 1) + (self.degree - 1) * sides

    def space_key(self):
        return ("Grid2D", "serendipity", self.degree, self.family)

    def element(self, element_kind):
        from ..types import ElementKind
        make = cell_element if element_kind == ElementKind.CELL else side_element
        funcs = dict(make(self.degree, self.family))
        funcs["cell_node_index"] = cell_node_index_func(self.degree)
        return funcs

    def node_positions(self, out=None):
        """The world position of every node (vertices, then the edges' nodes)."""
        k = self.degree
        r0, r1 = (int(r) for r in self.geometry.res)
        _v, _d, nodes, _w = lagrange_1d(k, self.family)
        inner = np.asarray(nodes[1:k], dtype=np.float64)
        vx, vy = np.meshgrid(np.arange(r0 + 1), np.arange(r1 + 1), indexing="ij")
        pts = [np.stack([vx.ravel(), vy.ravel()], axis=1).astype(np.float64)]
        ci, cj = np.meshgrid(np.arange(r0), np.arange(r1), indexing="ij")      # by cell index x * r1 + y
        cells = list(zip(ci.ravel(), cj.ravel()))
        along_y = [np.stack([np.full(k - 1, a), b + inner], axis=1) for a, b in cells]     # cells' x-faces
        along_x = [np.stack([a + inner, np.full(k - 1, b)], axis=1) for a, b in cells]     # cells' y-faces
        top_x = [np.stack([np.full(k - 1, r0), b + inner], axis=1) for b in range(r1)]
        top_y = [np.stack([a + inner, np.full(k - 1, r1)], axis=1) for a in range(r0)]
        pts += along_y + along_x + top_x + top_y
        grid = np.concatenate(pts)
        lo, h = np.asarray(self.geometry.bounds_lo, dtype=np.float64), np.asarray(self.geometry.cell_size)
        return wp.array((lo + grid * h), dtype=wp.vec2)
