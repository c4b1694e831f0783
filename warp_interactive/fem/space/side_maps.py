"""How an element maps to its cells, as spaces' element tables use it. A cell element is its cell
(``cell_element_funcs``). A side element maps to its two cells:
``to_cell``/``to_outer_cell`` (side and side coordinates to the inner/outer cell and cell
coordinates), ``cell_arg`` (the cell arg inside the side arg) and ``element_cell`` (the inner
cell). The same for every space on the geometry, continuous or DG."""

import functools

from .. import _api as wp
from .tensor_shape import lagrange_1d, tensor_shape


@functools.lru_cache(maxsize=None)
def side_to_cell_funcs(geometry_cls):
    """{to_cell, to_outer_cell, cell_arg, element_cell} of ``geometry_cls``'s sides."""
    SideArg = geometry_cls.SideArg
    inner_index, outer_index = geometry_cls.side_inner_cell_index, geometry_cls.side_outer_cell_index
    inner_coords, outer_coords = geometry_cls.side_inner_cell_coords, geometry_cls.side_outer_cell_coords

    @wp.func
    def to_cell(arg: SideArg, element: int, coords: wp.vec3):
        return inner_index(arg, element), inner_coords(arg, element, coords)

    @wp.func
    def to_outer_cell(arg: SideArg, element: int, coords: wp.vec3):
        return outer_index(arg, element), outer_coords(arg, element, coords)

    @wp.func
    def cell_arg(arg: SideArg):
        return arg.cell

    @wp.func
    def element_cell(arg: SideArg, element: int):
        return inner_index(arg, element)

    return dict(to_cell=to_cell, to_outer_cell=to_outer_cell, cell_arg=cell_arg, element_cell=element_cell)


def cell_element_funcs(CellArg, node_count, weight, weight_gradient, node_coords, node_weight):
    """The element table of a space on a Cells domain: the element is the cell and its nodes are
    the cell's nodes. The callers cache it per (geometry, degree): one set of funcs per space."""

    @wp.func
    def to_cell(arg: CellArg, element: int, coords: wp.vec3):
        return element, coords

    @wp.func
    def cell_arg(arg: CellArg):
        return arg

    @wp.func
    def cell_node(arg: CellArg, element: int, m: int):
        return m

    @wp.func
    def element_cell(arg: CellArg, element: int):
        return element

    return dict(ElementArg=CellArg, element_cell=element_cell, node_count=node_count, to_cell=to_cell,
                cell_arg=cell_arg, cell_node=cell_node, node_coords=node_coords, node_weight=node_weight,
                cell_node_count=node_count, weight=weight, weight_gradient=weight_gradient)


@functools.lru_cache(maxsize=None)
def side_lattice_funcs(side_dim, degree, family):
    """``node_coords(m)``, ``node_weight(m)`` of the nodes of a Q_k side on the ``(k+1)^side_dim``
    lattice of its coordinates (``side_dim`` 1 or 2; node ``m = p * (k+1) + q`` at lattice point
    ``(p, q)``), with the 1-D family's points and weights: the side's own tensor element."""
    if side_dim == 2:
        _w, _g, node_coords, node_weight = tensor_shape(2, degree, family)
        return node_coords, node_weight
    _v, _d, nodes, weights = lagrange_1d(degree, family)
    NODES = wp.types.vector(degree + 1, wp.float32)(*[float(x) for x in nodes])
    WEIGHTS = wp.types.vector(degree + 1, wp.float32)(*[float(x) for x in weights])

    @wp.func
    def node_coords(m: int):
        return wp.vec3(NODES[m], 0.0, 0.0)

    @wp.func
    def node_weight(m: int):
        return WEIGHTS[m]
    return node_coords, node_weight


def lattice_side_element(geometry_cls, side_dim, degree, family, cell_node, cell_shape, cell_node_count):
    """The element table of a space on a sides domain whose side nodes lie on the side's
    lattice (``side_lattice_funcs``): ``cell_node(arg, side, m)`` the inner cell's node that side
    node ``m`` is, ``cell_shape`` the cell element's (weight, weight_gradient)."""
    node_coords, node_weight = side_lattice_funcs(side_dim, degree, family)
    weight, weight_gradient = cell_shape
    return dict(side_to_cell_funcs(geometry_cls), ElementArg=geometry_cls.SideArg,
                node_count=(degree + 1) ** side_dim, cell_node=cell_node, node_coords=node_coords,
                node_weight=node_weight, cell_node_count=cell_node_count, weight=weight,
                weight_gradient=weight_gradient)
