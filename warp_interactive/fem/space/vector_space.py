"""Lowest-order Raviart-Thomas (H(div): one flux dof per face) and Nedelec first-kind
(H(curl): one tangential dof per edge) spaces on Grid3D.

Their shape functions are vectors in reference coordinates (``weight`` gives a vec3,
``weight_gradient`` its 3x3 reference gradient) with one scalar dof per node; values reach
world space through the Piola maps (``piola_maps``): contravariant ``F / det F`` for RT (the
normal flux through a face is preserved), covariant ``F^-T`` for Nedelec (the tangential
component along an edge). On a grid both shape functions point along +axis and equal 1 on
their face/edge in both cells that share it, so no orientation signs are needed.

Node numbering is warp-lang's: RT node ``2 a + o`` of a cell is its face normal to axis ``a``
at coordinate ``o``, numbered globally as the lattice of axis-``a`` faces (axis 0 faces, then
1, then 2); Nedelec node ``4 a + 2 e1 + e2`` is its edge along ``a`` at coordinates
``(e1, e2)`` on axes ``(a + 1, a + 2)``, numbered as the lattice of axis-``a`` edges."""

import functools

from .. import _api as wp

from ..geometry import grid3d
from ..types import ElementKind
from .side_maps import cell_element_funcs, side_to_cell_funcs
from .space_base import PolynomialSpaceBase

RT, N1 = "RT", "N1"


@wp.func
def _axis_vec(a: int, t: float):
    return wp.vec3(wp.where(a == 0, t, 0.0), wp.where(a == 1, t, 0.0), wp.where(a == 2, t, 0.0))


@wp.func
def _cell_xyz(res: wp.vec3i, cell: int):
    yz = res[1] * res[2]
    x = cell // yz
    r = cell - x * yz
    y = r // res[2]
    return wp.vec3i(x, y, r - y * res[2])


@wp.func
def _rt_weight(c: wp.vec3, n: int):
    a = n // 2
    return _axis_vec(a, wp.where(n - 2 * a == 1, c[a], 1.0 - c[a]))


@wp.func
def _rt_weight_gradient(c: wp.vec3, n: int):
    a = n // 2
    s = wp.where(n - 2 * a == 1, 1.0, -1.0)
    return wp.diag(_axis_vec(a, s))


@wp.func
def _rt_node_coords(n: int):
    a = n // 2
    c = wp.vec3(0.5)
    c[a] = float(n - 2 * a)
    return c


@wp.func
def _rt_node_weight(n: int):
    return 1.0 / 6.0


@wp.func
def _rt_node_index(arg: grid3d.Grid3DCellArg, cell: int, n: int):
    a = n // 2
    res = arg.res
    xyz = _cell_xyz(res, cell)
    a1 = (a + 1) % 3
    a2 = (a + 2) % 3
    offset = int(0)
    if a > 0:
        offset += (res[0] + 1) * res[1] * res[2]
    if a > 1:
        offset += (res[1] + 1) * res[2] * res[0]
    return offset + res[a1] * res[a2] * (xyz[a] + n - 2 * a) + res[a2] * xyz[a1] + xyz[a2]


@wp.func
def _n1_parts(n: int):
    a = n // 4
    return a, (n // 2) % 2, n % 2


@wp.func
def _n1_weight(c: wp.vec3, n: int):
    a, e1, e2 = _n1_parts(n)
    l1 = c[(a + 1) % 3]
    l2 = c[(a + 2) % 3]
    t1 = wp.where(e1 == 1, l1, 1.0 - l1)
    t2 = wp.where(e2 == 1, l2, 1.0 - l2)
    return _axis_vec(a, t1 * t2)


@wp.func
def _n1_weight_gradient(c: wp.vec3, n: int):
    a, e1, e2 = _n1_parts(n)
    a1 = (a + 1) % 3
    a2 = (a + 2) % 3
    l1 = c[a1]
    l2 = c[a2]
    t1 = wp.where(e1 == 1, l1, 1.0 - l1)
    t2 = wp.where(e2 == 1, l2, 1.0 - l2)
    row = _axis_vec(a1, wp.where(e1 == 1, 1.0, -1.0) * t2) + _axis_vec(a2, t1 * wp.where(e2 == 1, 1.0, -1.0))
    return wp.outer(_axis_vec(a, 1.0), row)


@wp.func
def _n1_node_coords(n: int):
    a, e1, e2 = _n1_parts(n)
    c = wp.vec3(0.5)
    c[(a + 1) % 3] = float(e1)
    c[(a + 2) % 3] = float(e2)
    return c


@wp.func
def _n1_node_weight(n: int):
    return 1.0 / 12.0


@wp.func
def _n1_node_index(arg: grid3d.Grid3DCellArg, cell: int, n: int):
    a, e1, e2 = _n1_parts(n)
    res = arg.res
    xyz = _cell_xyz(res, cell)
    a1 = (a + 1) % 3
    a2 = (a + 2) % 3
    offset = int(0)
    if a > 0:
        offset += (res[1] + 1) * (res[2] + 1) * res[0]
    if a > 1:
        offset += (res[2] + 1) * (res[0] + 1) * res[1]
    return offset + (res[a1] + 1) * (res[a2] + 1) * xyz[a] + (res[a2] + 1) * (xyz[a1] + e1) + xyz[a2] + e2


@wp.func
def _face_of_side(arg: grid3d.Grid3DSideArg, side: int):
    """(normal axis, offset of the side in its inner cell: 0 at the cell's lower face)."""
    d = grid3d._side_decode(arg, side)
    return d[0], wp.where(d[1] == 0, 0, 1)


@wp.func
def _rt_side_cell_node(arg: grid3d.Grid3DSideArg, side: int, m: int):
    a, o = _face_of_side(arg, side)
    return 2 * a + o


@wp.func
def _rt_side_node_coords(m: int):
    return wp.vec3(0.5, 0.5, 0.0)


@wp.func
def _rt_side_node_weight(m: int):
    return 1.0


@wp.func
def _n1_side_cell_node(arg: grid3d.Grid3DSideArg, side: int, m: int):
    # nodes 0, 1: the edges along axis a+1 at side coordinate v = m; 2, 3: along a+2 at u = m - 2
    a, o = _face_of_side(arg, side)
    if m < 2:
        return 4 * ((a + 1) % 3) + 2 * m + o
    return 4 * ((a + 2) % 3) + 2 * o + m - 2


@wp.func
def _n1_side_node_coords(m: int):
    if m < 2:
        return wp.vec3(0.5, float(m), 0.0)
    return wp.vec3(float(m - 2), 0.5, 0.0)


@wp.func
def _n1_side_node_weight(m: int):
    return 0.25


_SHAPES = {
    RT: (6, _rt_weight, _rt_weight_gradient, _rt_node_coords, _rt_node_weight, _rt_node_index,
         1, _rt_side_cell_node, _rt_side_node_coords, _rt_side_node_weight),
    N1: (12, _n1_weight, _n1_weight_gradient, _n1_node_coords, _n1_node_weight, _n1_node_index,
         4, _n1_side_cell_node, _n1_side_node_coords, _n1_side_node_weight),
}


@functools.lru_cache(maxsize=None)
def piola_maps(geometry_cls, kind):
    """value_map(cell_arg, cell, coords) (reference vector -> world vector) and its inverse."""
    F_of, inv_F_of = geometry_cls.cell_deformation_gradient, geometry_cls.cell_inverse_deformation_gradient
    from ..types import make_free_sample
    if kind == RT:
        @wp.func
        def value_map(arg: geometry_cls.CellArg, cell: int, cc: wp.vec3):
            F = F_of(arg, make_free_sample(cell, cc))
            return F / wp.abs(wp.determinant(F))

        @wp.func
        def inverse_map(arg: geometry_cls.CellArg, cell: int, cc: wp.vec3):
            F = F_of(arg, make_free_sample(cell, cc))
            return inv_F_of(arg, make_free_sample(cell, cc)) * wp.abs(wp.determinant(F))
    else:
        @wp.func
        def value_map(arg: geometry_cls.CellArg, cell: int, cc: wp.vec3):
            return wp.transpose(inv_F_of(arg, make_free_sample(cell, cc)))

        @wp.func
        def inverse_map(arg: geometry_cls.CellArg, cell: int, cc: wp.vec3):
            return wp.transpose(F_of(arg, make_free_sample(cell, cc)))
    return value_map, inverse_map


@functools.lru_cache(maxsize=None)
def _elements(kind, geometry_cls):
    (N, weight, weight_gradient, node_coords, node_weight, node_index,
     NS, side_cell_node, side_node_coords, side_node_weight) = _SHAPES[kind]
    value_map, inverse_map = piola_maps(geometry_cls, kind)
    extra = dict(cell_node_index=node_index, piola=kind, value_map=value_map, inverse_map=inverse_map)
    cell = dict(cell_element_funcs(geometry_cls.CellArg, N, weight, weight_gradient, node_coords, node_weight),
                **extra)
    side = dict(side_to_cell_funcs(geometry_cls), ElementArg=geometry_cls.SideArg, node_count=NS,
                cell_node=side_cell_node, node_coords=side_node_coords, node_weight=side_node_weight,
                cell_node_count=N, weight=weight, weight_gradient=weight_gradient, **extra)
    return cell, side


class VectorBasisSpace(PolynomialSpaceBase):
    """A Raviart-Thomas (``kind="RT"``) or Nedelec (``"N1"``) space of degree 1 on a Grid3D:
    vec3 values, one scalar dof per node."""

    def __init__(self, geometry, kind, degree=1, dtype=None):
        if degree != 1:
            raise NotImplementedError(f"fem: only degree-1 {'Raviart-Thomas' if kind == RT else 'Nedelec'} "
                                      "spaces are supported")
        if dtype not in (None, wp.vec3):
            raise NotImplementedError(f"fem: {kind} spaces on {type(geometry).__name__} hold vec3 values, "
                                      f"not {dtype}")
        self.geometry = geometry
        self.kind = kind
        self.degree = 1
        self.dtype = wp.vec3
        self.family = None
        self.dim = geometry.dimension
        self.struct_tag = kind

    @property
    def value_size(self):
        return 1

    @property
    def dof_dtype(self):
        return wp.float32

    @property
    def name(self):
        return f"{self.kind}{self.degree}_{self.geometry.name}"

    def node_count(self):
        g = self.geometry
        return g.side_count() if self.kind == RT else g.edge_count()

    def space_key(self):
        return (type(self.geometry).__name__, self.kind, self.degree)

    def element(self, element_kind):
        cell, side = _elements(self.kind, type(self.geometry))
        return dict(cell if element_kind == ElementKind.CELL else side)

    def make_field(self, space_partition=None):
        from ..field.fields import DiscreteField
        return DiscreteField(self, space_partition=space_partition)
