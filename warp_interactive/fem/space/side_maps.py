"""How a side of a geometry maps to its two cells, as spaces' side element tables use it:
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
