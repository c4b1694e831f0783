"""Continuous Q_k Lagrange spaces (k = 1..3) on Nanogrid.

In a cell, node ``n = (i * (k+1) + j) * (k+1) + l`` sits at lattice point ``(i, j, l)`` of the
element coordinates (``shape.tensor_shape``). Global nodes are numbered as warp-lang numbers
them: the grid's vertices (their index in the vertex volume), then ``k - 1`` nodes per edge
(edge volume index; along the edge's axis, from its lower end), then ``(k - 1)^2`` per face
(face volume index; ``p * (k-1) + q`` at lattice point ``(p + 1, q + 1)`` along axes
``axis + 1``, ``axis + 2``), then ``(k - 1)^3`` interior nodes per cell."""

import functools

import numpy as np

from .. import _api as wp
from ..geometry import adaptive_nanogrid as ang
from ..geometry import nanogrid as ng
from ..polynomial import Polynomial
from .tensor_shape import lagrange_1d, tensor_shape
from .side_maps import cell_element_funcs, side_to_cell_funcs
from .space_base import PolynomialSpaceBase


_LEVEL_BIT = wp.constant(ang.LEVEL_BIT)


@wp.func
def _boundary(i: int, k: int):
    return wp.where(i == 0 or i == k, 1, 0)


@wp.func
def _cell_level(arg: ng.NanogridCellArg, cell: int):
    return 0


@wp.func
def _cell_level(arg: ang.AdaptiveNanogridCellArg, cell: int):  # noqa: F811
    return arg.cell_level[cell]


@wp.func
def _encode(ijk: wp.vec3i, axis: int, level: int):
    # the stacked topology volumes' coordinates (adaptive_nanogrid's module doc); at level 0
    # the plain axis flag of Nanogrid's face and edge volumes
    for ax in range(3):
        flag = ((level >> ax) & 1) << _LEVEL_BIT
        c = ijk[ax]
        ijk[ax] = wp.where(c < 0, c & (~flag), c | flag)
    return ng.add_axis_flag(ijk, axis)


@functools.lru_cache(maxsize=None)
def cell_node_index_func(geo_cls, degree):
    k = degree
    K = k + 1
    E = k - 1

    @wp.func
    def cell_node_index(arg: geo_cls.CellArg, cell: int, n: int):
        ijl = wp.vec3i(n // (K * K), (n // K) % K, n % K)
        on = wp.vec3i(_boundary(ijl[0], k), _boundary(ijl[1], k), _boundary(ijl[2], k))
        count = on[0] + on[1] + on[2]
        ijk = arg.cell_ijk[cell]
        level = _cell_level(arg, cell)
        if count == 3:
            v = ijk + wp.vec3i((ijl[0] // k) << level, (ijl[1] // k) << level, (ijl[2] // k) << level)
            return wp.volume_lookup_index(arg.vertex_grid, v[0], v[1], v[2])
        offset = arg.vertex_count
        coarse = wp.vec3i(ijk[0] >> level, ijk[1] >> level, ijk[2] >> level)
        if count == 2:
            # an edge node: along the one axis whose lattice index is inside
            a = wp.where(on[0] == 0, 0, wp.where(on[1] == 0, 1, 2))
            e = coarse
            e[(a + 1) % 3] = e[(a + 1) % 3] + ijl[(a + 1) % 3] // k
            e[(a + 2) % 3] = e[(a + 2) % 3] + ijl[(a + 2) % 3] // k
            e = _encode(e, a, level)
            edge = wp.volume_lookup_index(arg.edge_grid, e[0], e[1], e[2])
            return offset + E * edge + ijl[a] - 1
        offset += E * arg.edge_count
        if count == 1:
            a = wp.where(on[0] == 1, 0, wp.where(on[1] == 1, 1, 2))
            f = coarse
            f[a] = f[a] + ijl[a] // k
            f = _encode(f, a, level)
            face = wp.volume_lookup_index(arg.face_grid, f[0], f[1], f[2])
            return offset + E * E * face + (ijl[(a + 1) % 3] - 1) * E + ijl[(a + 2) % 3] - 1
        offset += E * E * arg.face_count
        return offset + E * E * E * cell + ((ijl[0] - 1) * E + ijl[1] - 1) * E + ijl[2] - 1

    return cell_node_index


@functools.lru_cache(maxsize=None)
def cell_element(geo_cls, degree, family):
    weight, weight_gradient, node_coords, node_weight = tensor_shape(3, degree, family)
    return cell_element_funcs(geo_cls.CellArg, (degree + 1) ** 3, weight, weight_gradient, node_coords,
                              node_weight)


@functools.lru_cache(maxsize=None)
def side_element(geo_cls, degree, family):
    """A side's nodes are the (k+1)^2 nodes of its inner cell on it, node ``m = p * (k+1) + q``
    at lattice point (p, q) of the side's (u, v) coordinates."""
    k = degree
    K = k + 1
    weight, weight_gradient, _nc, _nw = tensor_shape(3, degree, family)
    _v, _d, nodes, weights = lagrange_1d(degree, family)
    NODES = wp.types.vector(K, wp.float32)(*[float(x) for x in nodes])
    WEIGHTS = wp.types.vector(K, wp.float32)(*[float(x) for x in weights])
    SideArg = geo_cls.SideArg

    @wp.func
    def cell_node(arg: SideArg, element: int, m: int):
        flags = arg.face_flags[element]
        axis = flags & 3
        flip = (flags >> 2) & 1
        ijl = wp.vec3i(0)
        ijl[axis] = k * (1 - flip)
        ijl[(axis + 1 + flip) % 3] = m // K
        ijl[(axis + 2 - flip) % 3] = m % K
        return (ijl[0] * K + ijl[1]) * K + ijl[2]

    @wp.func
    def node_coords(m: int):
        return wp.vec3(NODES[m // K], NODES[m % K], 0.0)

    @wp.func
    def node_weight(m: int):
        return WEIGHTS[m // K] * WEIGHTS[m % K]

    return dict(side_to_cell_funcs(geo_cls), ElementArg=SideArg, node_count=K * K, cell_node=cell_node,
                node_coords=node_coords, node_weight=node_weight, cell_node_count=K ** 3, weight=weight,
                weight_gradient=weight_gradient)


class NanogridPolynomialSpace(PolynomialSpaceBase):
    """The continuous Q_k space (k = 1..3) of ``dtype`` values on a Nanogrid."""

    def __init__(self, geometry, degree, dtype=float, family=None):
        if degree not in (1, 2, 3):
            raise NotImplementedError(f"fem: Nanogrid spaces of degree 1 to 3 only, not {degree}")
        self.geometry = geometry
        self.degree = degree
        self.dtype = wp.float32 if dtype is float else dtype
        self.family = Polynomial.LOBATTO_GAUSS_LEGENDRE if family is None else family
        if self.family not in (Polynomial.LOBATTO_GAUSS_LEGENDRE, Polynomial.EQUISPACED_CLOSED):
            raise ValueError("fem: a continuous space needs a closed point family (nodes on the cell's boundary)")
        self.dim = 3
        self.dof_mapper = None
        if degree > 1:     # the edge and face volumes the node numbering reads
            geometry.edge_count()
            geometry.topology_face_count()

    @property
    def name(self):
        return f"Q{self.degree}{self.family}_{self.geometry.name}"

    def node_count(self):
        g, e = self.geometry, self.degree - 1
        if e == 0:
            return g.vertex_count()
        return g.vertex_count() + g.edge_count() * e + g.topology_face_count() * e * e + g.cell_count() * e ** 3

    def space_key(self):
        return (type(self.geometry).__name__, self.degree, self.family)

    def element(self, element_kind):
        from ..types import ElementKind
        make = cell_element if element_kind == ElementKind.CELL else side_element
        funcs = dict(make(type(self.geometry), self.degree, self.family))
        funcs["cell_node_index"] = cell_node_index_func(type(self.geometry), self.degree)
        return funcs

    def node_positions(self, out=None):
        """Every node's world position (written once per cell that holds it, same value)."""
        g = self.geometry
        index = _cell_node_indices(self)                                  # (cells, N)
        _v, _d, nodes, _w = lagrange_1d(self.degree, self.family)
        lattice = np.stack(np.meshgrid(*[np.asarray(nodes, np.float64)] * 3, indexing="ij"), -1).reshape(-1, 3)
        scale = (1 << g.cell_levels())[:, None, None].astype(np.float64)
        uvw = g._cells[:, None, :].astype(np.float64) + lattice[None] * scale - 0.5
        tr = np.array(g.cell_grid.get_grid_info().translation, dtype=np.float64)
        pos = uvw.reshape(-1, 3) @ g._transform.T + tr
        all_pos = np.zeros((self.node_count(), 3))
        all_pos[index.reshape(-1)] = pos
        if out is not None:
            out.assign(all_pos.astype(np.float32))
            return out
        return wp.array(all_pos.astype(np.float32), dtype=wp.vec3, device=g.cell_ijk.device)

    def make_field(self, space_partition=None):
        from ..field.fields import DiscreteField
        return DiscreteField(self, space_partition=space_partition)


@functools.lru_cache(maxsize=None)
def _cell_node_kernel(geo_cls, degree):
    node_index = cell_node_index_func(geo_cls, degree)

    @wp.kernel
    def cell_nodes(arg: geo_cls.CellArg, out: wp.array2d(dtype=int)):
        c, n = wp.tid()
        out[c, n] = node_index(arg, c, n)
    return cell_nodes


def _cell_node_indices(space):
    """(cells x nodes per cell) global node indices, by the device function itself."""
    g, N = space.geometry, (space.degree + 1) ** 3
    device = g.cell_ijk.device
    out = wp.empty((g.cell_count(), N), dtype=int, device=device)
    wp.launch(_cell_node_kernel(type(g), space.degree), dim=(g.cell_count(), N), inputs=[g.cell_arg_value(device), out],
              device=device)
    return out.numpy()
