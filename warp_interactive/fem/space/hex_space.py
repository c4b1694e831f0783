"""Continuous Q_k Lagrange spaces (k = 1..3) on Hexmesh.

In a cell, node ``n = (i * (k+1) + j) * (k+1) + l`` sits at the tensor lattice point
``(i, j, l)`` of the element coordinates (the shape functions of ``shape.tensor_shape``).
Global nodes are numbered as warp-lang numbers them: the mesh vertices, then ``k - 1`` nodes
per mesh edge (counted from its smaller vertex index), then ``(k - 1)^2`` per face (``p * (k-1)
+ q`` for the node at lattice point ``(p + 1, q + 1)`` of the face's own (u, v) coordinates),
then ``(k - 1)^3`` interior nodes per cell (``((i-1) * (k-1) + j-1) * (k-1) + l-1``)."""

import functools

import numpy as np

from .. import _api as wp
from ..geometry import hexmesh as hm
from ..polynomial import Polynomial
from .tensor_shape import lagrange_1d, tensor_shape
from .side_maps import cell_element_funcs, side_to_cell_funcs
from .space_base import PolynomialSpaceBase


def _edge_table():
    """Local edge of the cell edge along axis ``a`` whose other two corner coordinates are
    (b, c) (axes a+1, a+2): entry ``4 a + 2 b + c``."""
    table = []
    for a in range(3):
        for b in range(2):
            for c in range(2):
                ends = []
                for t in range(2):
                    corner = [0, 0, 0]
                    corner[a], corner[(a + 1) % 3], corner[(a + 2) % 3] = t, b, c
                    ends.append(hm.CORNERS.index(tuple(corner)))
                table.append([set(e) for e in hm.EDGE_VERTICES].index(set(ends)))
    return table


def _corner_vertex_table():
    """Local vertex at corner (x, y, z): entry ``4 x + 2 y + z``."""
    return [hm.CORNERS.index((x, y, z)) for x in range(2) for y in range(2) for z in range(2)]


EDGE_OF = wp.constant(wp.types.vector(12, wp.int32)(*_edge_table()))
EDGE_A = wp.constant(wp.types.vector(12, wp.int32)(*[a for a, _ in hm.EDGE_VERTICES]))
EDGE_B = wp.constant(wp.types.vector(12, wp.int32)(*[b for _, b in hm.EDGE_VERTICES]))
VERTEX_AT = wp.constant(wp.types.vector(8, wp.int32)(*_corner_vertex_table()))


@wp.func
def _on_boundary(i: int, k: int):
    return wp.where(i == 0 or i == k, 1, 0)


@functools.lru_cache(maxsize=None)
def cell_node_index_func(degree):
    k = degree
    K = k + 1
    E = k - 1
    FACE = E * E
    INTERIOR = E * E * E

    @wp.func
    def face_node(arg: hm.HexmeshCellArg, cell: int, ijl: wp.vec3i, axis: int):
        f = 2 * axis + wp.where(ijl[axis] == k, 1, 0)
        face = arg.hex_face_indices[cell, f]
        c0, c1, c3 = hm.face_frame(arg, face, cell)
        rel = ijl - k * c0
        p = wp.dot(rel, c1 - c0)
        q = wp.dot(rel, c3 - c0)
        return arg.vertex_count + arg.edge_count * E + face * FACE + (p - 1) * E + q - 1

    @wp.func
    def cell_node_index(arg: hm.HexmeshCellArg, cell: int, n: int):
        ijl = wp.vec3i(n // (K * K), (n // K) % K, n % K)
        bi = _on_boundary(ijl[0], k)
        bj = _on_boundary(ijl[1], k)
        bl = _on_boundary(ijl[2], k)
        count = bi + bj + bl
        if count == 3:
            return arg.hex_vertex_indices[cell, VERTEX_AT[4 * (ijl[0] // k) + 2 * (ijl[1] // k) + ijl[2] // k]]
        if count == 0:
            return (arg.vertex_count + arg.edge_count * E + arg.face_count * FACE + cell * INTERIOR
                    + ((ijl[0] - 1) * E + ijl[1] - 1) * E + ijl[2] - 1)
        if count == 1:
            return face_node(arg, cell, ijl, wp.where(bi == 1, 0, wp.where(bj == 1, 1, 2)))
        # an edge node: the edge along the one axis not on the boundary
        a = wp.where(bi == 0, 0, wp.where(bj == 0, 1, 2))
        local = EDGE_OF[4 * a + 2 * (ijl[(a + 1) % 3] // k) + ijl[(a + 2) % 3] // k]
        t = ijl[a]
        # t counts from the edge's lower corner (EDGE_VERTICES lists it first), the mesh
        # numbers the edge's nodes from its smaller vertex index
        if arg.hex_vertex_indices[cell, EDGE_A[local]] > arg.hex_vertex_indices[cell, EDGE_B[local]]:
            t = k - t
        return arg.vertex_count + arg.hex_edge_indices[cell, local] * E + t - 1

    return cell_node_index


@functools.lru_cache(maxsize=None)
def cell_element(degree, family):
    weight, weight_gradient, node_coords, node_weight = tensor_shape(3, degree, family)
    return cell_element_funcs(hm.HexmeshCellArg, (degree + 1) ** 3, weight, weight_gradient, node_coords,
                              node_weight)


@functools.lru_cache(maxsize=None)
def side_element(degree, family):
    """A side's nodes are the (k+1)^2 nodes of its inner cell on it, node ``m = p * (k+1) + q``
    at lattice point (p, q) of the side's (u, v) coordinates."""
    k = degree
    K = k + 1
    weight, weight_gradient, _nc, _nw = tensor_shape(3, degree, family)
    _v, _d, nodes, weights = lagrange_1d(degree, family)
    NODES = wp.types.vector(K, wp.float32)(*[float(x) for x in nodes])
    WEIGHTS = wp.types.vector(K, wp.float32)(*[float(x) for x in weights])
    SideArg = hm.HexmeshSideArg

    @wp.func
    def cell_node(arg: SideArg, element: int, m: int):
        c0, c1, c3 = hm.face_frame(arg.cell, element, arg.face_hex_indices[element][0])
        ijl = k * c0 + (m // K) * (c1 - c0) + (m % K) * (c3 - c0)
        return (ijl[0] * K + ijl[1]) * K + ijl[2]

    @wp.func
    def node_coords(m: int):
        return wp.vec3(NODES[m // K], NODES[m % K], 0.0)

    @wp.func
    def node_weight(m: int):
        return WEIGHTS[m // K] * WEIGHTS[m % K]

    return dict(side_to_cell_funcs(hm.Hexmesh), ElementArg=SideArg, node_count=K * K, cell_node=cell_node,
                node_coords=node_coords, node_weight=node_weight, cell_node_count=K ** 3, weight=weight,
                weight_gradient=weight_gradient)


class HexPolynomialSpace(PolynomialSpaceBase):
    """The continuous Q_k space (k = 1..3) of ``dtype`` values on a Hexmesh."""

    def __init__(self, geometry, degree, dtype=float, family=None):
        if degree not in (1, 2, 3):
            raise NotImplementedError(f"fem: hex mesh spaces of degree 1 to 3 only, not {degree}")
        self.geometry = geometry
        self.degree = degree
        self.dtype = wp.float32 if dtype is float else dtype
        self.family = Polynomial.LOBATTO_GAUSS_LEGENDRE if family is None else family
        if self.family not in (Polynomial.LOBATTO_GAUSS_LEGENDRE, Polynomial.EQUISPACED_CLOSED):
            raise ValueError("fem: a continuous space needs a closed point family (nodes on the cell's boundary)")
        self.dim = 3
        self.dof_mapper = None

    @property
    def name(self):
        return f"Q{self.degree}{self.family}_{self.geometry.name}"

    def node_count(self):
        g, e = self.geometry, self.degree - 1
        return g.vertex_count() + g.edge_count() * e + g.side_count() * e * e + g.cell_count() * e ** 3

    def space_key(self):
        return ("Hexmesh", self.degree, self.family)

    def element(self, element_kind):
        from ..types import ElementKind
        make = cell_element if element_kind == ElementKind.CELL else side_element
        funcs = dict(make(self.degree, self.family))
        funcs["cell_node_index"] = cell_node_index_func(self.degree)
        return funcs

    def node_positions(self, out=None):
        """Every node's position: the trilinear map of the cells evaluated at their lattice
        points (nodes shared by several cells are written once per cell, same value)."""
        g, k = self.geometry, self.degree
        _v, _d, nodes, _w = lagrange_1d(k, self.family)
        pos = g.positions.numpy().astype(np.float64)
        hexes = g.hex_vertex_indices.numpy()
        lattice = np.stack(np.meshgrid(*[np.asarray(nodes)] * 3, indexing="ij"), axis=-1).reshape(-1, 3)
        corners = np.asarray(hm.CORNERS, dtype=np.float64)                                  # (8, 3)
        w = np.prod(np.where(corners[None] == 1, lattice[:, None], 1.0 - lattice[:, None]), axis=2)   # (N, 8)
        cell_pos = np.einsum("nv,cvd->cnd", w, pos[hexes])                                   # (cells, N, 3)
        index = _cell_node_indices(self)
        all_pos = np.zeros((self.node_count(), 3))
        all_pos[index.reshape(-1)] = cell_pos.reshape(-1, 3)
        if out is not None:
            out.assign(all_pos)
            return out
        return wp.array(all_pos, dtype=wp.vec3, device=g.positions.device)

    def make_field(self, space_partition=None):
        from ..field.fields import DiscreteField
        return DiscreteField(self, space_partition=space_partition)


@functools.lru_cache(maxsize=None)
def _cell_node_kernel(degree):
    node_index = cell_node_index_func(degree)
    N = (degree + 1) ** 3

    @wp.kernel
    def cell_nodes(arg: hm.HexmeshCellArg, out: wp.array2d(dtype=int)):
        c, n = wp.tid()
        out[c, n] = node_index(arg, c, n)
    return cell_nodes, N


def _cell_node_indices(space):
    """(cells x nodes per cell) global node indices, by the device function itself."""
    kernel, N = _cell_node_kernel(space.degree)
    g = space.geometry
    out = wp.empty((g.cell_count(), N), dtype=int, device=g.positions.device)
    wp.launch(kernel, dim=(g.cell_count(), N), inputs=[g.cell_arg_value(), out], device=g.positions.device)
    return out.numpy()
