"""Continuous P1-P3 Lagrange spaces on Tetmesh.

A degree-k cell's nodes are the points of the barycentric lattice ``a / k`` (``a`` four
non-negative integers summing to k); node ``n`` is: ``n < 4`` vertex n; then ``k - 1`` nodes
per local edge ``e`` (``tetmesh.TET_EDGES``), the t-th (t = 1..k-1) at ``t / k`` from the
edge's first local vertex; then (k = 3) one node per local face ``f``, its centre (face f is
opposite vertex f). The shape function of lattice node ``a`` is the product over vertices i of
``prod_{j < a_i} (k l_i - j) / (j + 1)``.

Global nodes are numbered as warp-lang numbers them: the mesh vertices, then ``k - 1`` per
mesh edge (counted from its smaller vertex index), then one per face (k = 3)."""

import functools

import numpy as np

from .. import _api as wp
from ..geometry import tetmesh as tm
from .side_maps import cell_element_funcs, side_to_cell_funcs
from .space_base import PolynomialSpaceBase

EDGE_A = wp.constant(wp.types.vector(6, wp.int32)(*[a for a, _ in tm.TET_EDGES]))
EDGE_B = wp.constant(wp.types.vector(6, wp.int32)(*[b for _, b in tm.TET_EDGES]))

# weights of the nodal quadrature rules per node kind (vertex, edge, face), on the reference
# cell and face (measure 1): warp-lang's (uniform for the P1/P2 cell; for P3 positive weights
# exact for linear functions; on faces, positive weights for P2, the shape functions' integrals
# for P3), so nodal assembly (lumped mass, boundary projectors) weighs nodes as it does
TET_NODAL_WEIGHTS = {1: (1.0 / 4.0, 0.0, 0.0), 2: (0.1, 0.1, 0.0), 3: (0.007348845656, 0.020688129855, 0.180586764778)}
TRI_NODAL_WEIGHTS = {1: (1.0 / 3.0, 0.0, 0.0), 2: (0.022335964126, 0.310997369207, 0.0), 3: (1.0 / 30.0, 0.075, 0.45)}


@functools.lru_cache(maxsize=None)
def simplex_shape(degree):
    """(weight, weight_gradient, node_coords, node_weight, lattice) of the tet element."""
    k = degree
    KF = float(k)
    EN = max(k - 1, 1)
    W0, W1, W2 = TET_NODAL_WEIGHTS[k]

    @wp.func
    def lattice(n: int):
        a = wp.vec4i(0)
        if n < 4:
            a[n] = k
        elif n < 4 + 6 * (k - 1):
            e = (n - 4) // EN
            t = (n - 4) - e * EN + 1
            a[EDGE_A[e]] = k - t
            a[EDGE_B[e]] = t
        else:
            a = wp.vec4i(1)
            a[n - 4 - 6 * (k - 1)] = 0
        return a

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
    def bary(c: wp.vec3):
        return wp.vec4(1.0 - c[0] - c[1] - c[2], c[0], c[1], c[2])

    @wp.func
    def weight(c: wp.vec3, n: int):
        a = lattice(n)
        l = bary(c)
        return factor(a[0], l[0]) * factor(a[1], l[1]) * factor(a[2], l[2]) * factor(a[3], l[3])

    @wp.func
    def weight_gradient(c: wp.vec3, n: int):
        a = lattice(n)
        l = bary(c)
        f = wp.vec4(factor(a[0], l[0]), factor(a[1], l[1]), factor(a[2], l[2]), factor(a[3], l[3]))
        d = wp.vec4(factor_derivative(a[0], l[0]), factor_derivative(a[1], l[1]),
                    factor_derivative(a[2], l[2]), factor_derivative(a[3], l[3]))
        g = wp.vec4(d[0] * f[1] * f[2] * f[3], f[0] * d[1] * f[2] * f[3], f[0] * f[1] * d[2] * f[3],
                    f[0] * f[1] * f[2] * d[3])
        return wp.vec3(g[1] - g[0], g[2] - g[0], g[3] - g[0])

    @wp.func
    def node_coords(n: int):
        a = lattice(n)
        return wp.vec3(wp.real(a[1]) / KF, wp.real(a[2]) / KF, wp.real(a[3]) / KF)

    @wp.func
    def node_weight(n: int):
        if n < 4:
            return W0
        if n < 4 + 6 * (k - 1):
            return W1
        return W2

    return weight, weight_gradient, node_coords, node_weight


def node_count_per_cell(degree):
    return 4 + 6 * (degree - 1) + (4 if degree == 3 else 0)


@functools.lru_cache(maxsize=None)
def cell_node_index_func(degree):
    k = degree
    EN = max(k - 1, 1)

    @wp.func
    def cell_node_index(arg: tm.TetmeshCellArg, cell: int, n: int):
        if n < 4:
            return arg.tet_vertex_indices[cell, n]
        if n < 4 + 6 * (k - 1):
            e = (n - 4) // EN
            t = (n - 4) - e * EN + 1
            if arg.tet_vertex_indices[cell, EDGE_A[e]] > arg.tet_vertex_indices[cell, EDGE_B[e]]:
                t = k - t
            return arg.vertex_count + arg.tet_edge_indices[cell, e] * (k - 1) + t - 1
        f = n - 4 - 6 * (k - 1)
        return arg.vertex_count + arg.edge_count * (k - 1) + arg.tet_face_indices[cell, f]
    return cell_node_index


@functools.lru_cache(maxsize=None)
def cell_element(degree):
    weight, weight_gradient, node_coords, node_weight = simplex_shape(degree)
    NODES = node_count_per_cell(degree)
    CellArg = tm.TetmeshCellArg
    return cell_element_funcs(CellArg, NODES, weight, weight_gradient, node_coords, node_weight)


@wp.func
def _local_edge(la: int, lb: int):
    """The local edge joining local vertices la and lb, and whether it runs from la."""
    e = int(0)
    forward = int(1)
    for i in range(6):
        if EDGE_A[i] == la and EDGE_B[i] == lb:
            e = i
        if EDGE_A[i] == lb and EDGE_B[i] == la:
            e = i
            forward = 0
    return e, forward


@functools.lru_cache(maxsize=None)
def side_element(degree):
    """A face's nodes: its 3 vertices, ``k - 1`` per face edge (fv0-fv1, fv1-fv2, fv2-fv0, from
    the first), then (k = 3) its centre; mapped to the nodes of its inner cell."""
    k = degree
    EN = max(k - 1, 1)
    weight, weight_gradient, _nc, _nw = simplex_shape(degree)
    W0, W1, W2 = TRI_NODAL_WEIGHTS[k]
    SideArg = tm.TetmeshSideArg
    FACE_NODES = 3 + 3 * (k - 1) + (1 if k == 3 else 0)

    @wp.func
    def cell_node(arg: SideArg, element: int, m: int):
        cell = arg.face_tet_indices[element][0]
        fv = arg.face_vertex_indices[element]
        if m < 3:
            return tm.tet_local_vertex(arg.cell, cell, fv[m])
        if m < 3 + 3 * (k - 1):
            fe = (m - 3) // EN
            t = (m - 3) - fe * EN + 1
            la = tm.tet_local_vertex(arg.cell, cell, fv[fe])
            lb = tm.tet_local_vertex(arg.cell, cell, fv[(fe + 1) % 3])
            e, forward = _local_edge(la, lb)
            if forward == 0:
                t = k - t
            return 4 + e * (k - 1) + t - 1
        opposite = 6 - (tm.tet_local_vertex(arg.cell, cell, fv[0]) + tm.tet_local_vertex(arg.cell, cell, fv[1])
                        + tm.tet_local_vertex(arg.cell, cell, fv[2]))
        return 4 + 6 * (k - 1) + opposite

    @wp.func
    def node_coords(m: int):
        c = wp.vec3(1.0 / 3.0)
        if m < 3:
            c = wp.vec3(0.0)
            c[m] = 1.0
        elif m < 3 + 3 * (k - 1):
            fe = (m - 3) // EN
            t = wp.real((m - 3) - fe * EN + 1) / wp.real(k)
            c = wp.vec3(0.0)
            c[fe] = 1.0 - t
            c[(fe + 1) % 3] = t
        return c

    @wp.func
    def node_weight(m: int):
        if m < 3:
            return W0
        if m < 3 + 3 * (k - 1):
            return W1
        return W2

    return dict(side_to_cell_funcs(tm.Tetmesh), ElementArg=SideArg,
                node_count=FACE_NODES, cell_node=cell_node,
                node_coords=node_coords, node_weight=node_weight, cell_node_count=node_count_per_cell(k), weight=weight,
                weight_gradient=weight_gradient)


class TetPolynomialSpace(PolynomialSpaceBase):
    """The continuous P_k space (k = 1..3) of ``dtype`` values on a Tetmesh."""

    def __init__(self, geometry, degree, dtype=float):
        if degree not in (1, 2, 3):
            raise NotImplementedError(f"fem: tet mesh spaces of degree 1 to 3 only, not {degree}")
        self.geometry = geometry
        self.degree = degree
        self.dtype = wp.float32 if dtype is float else dtype
        self.family = "P"
        self.dim = 3
        self.dof_mapper = None

    @property
    def name(self):
        return f"P{self.degree}_{self.geometry.name}"

    def node_count(self):
        g, k = self.geometry, self.degree
        return g.vertex_count() + g.edge_count() * (k - 1) + (g.side_count() if k == 3 else 0)

    def space_key(self):
        return ("Tetmesh", self.degree)

    def element(self, element_kind):
        from ..types import ElementKind
        make = cell_element if element_kind == ElementKind.CELL else side_element
        funcs = dict(make(self.degree))
        funcs["cell_node_index"] = cell_node_index_func(self.degree)
        return funcs

    def node_positions(self, out=None):
        g, k = self.geometry, self.degree
        pos = g.positions.numpy().astype(np.float64)
        e = g.edge_vertex_indices.numpy()            # (smaller, larger) vertex
        t = (np.arange(1, k) / k)[None, :, None]
        parts = [pos, ((1 - t) * pos[e[:, 0]][:, None] + t * pos[e[:, 1]][:, None]).reshape(-1, 3)]
        if k == 3:
            parts.append(pos[g.face_vertex_indices.numpy()].mean(axis=1))
        all_pos = np.concatenate(parts)
        if out is not None:
            out.assign(all_pos)
            return out
        return wp.array(all_pos, dtype=wp.vec3, device=g.positions.device)

    def make_field(self, space_partition=None):
        from ..field.fields import DiscreteField
        return DiscreteField(self, space_partition=space_partition)
