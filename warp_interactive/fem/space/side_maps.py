"""How an element maps to its cells, as spaces' element tables use it. A cell element is its cell
(``cell_element_funcs``). A side element maps to its two cells:
``to_cell``/``to_outer_cell`` (side and side coordinates to the inner/outer cell and cell
coordinates), ``cell_arg`` (the cell arg inside the side arg) and ``element_cell`` (the inner
cell). The same for every space on the geometry, continuous or DG."""

import functools

from .. import _api as wp


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
