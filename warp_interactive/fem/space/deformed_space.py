"""Function spaces on deformed geometries: the base geometry's space (same nodes and shape
functions), its element functions reading the base args inside the deformed ones (``elt``),
and its gradients mapped by the deformed geometry's Jacobians."""

import functools
from .. import _api as wp

from ..types import ElementKind
from .space_base import FunctionSpace


@functools.lru_cache(maxsize=None)
def _adapt(el_items, geo_cls, kind):
    el = dict(el_items)
    Arg = geo_cls.CellArg if kind == ElementKind.CELL else geo_cls.SideArg
    base_to_cell, base_cell_node, base_element_cell = el["to_cell"], el["cell_node"], el["element_cell"]
    base_cni = el["cell_node_index"]
    out = dict(el, ElementArg=Arg)

    @wp.func
    def to_cell(arg: Arg, element: int, coords: wp.vec3):
        return base_to_cell(arg.elt, element, coords)

    @wp.func
    def cell_node(arg: Arg, element: int, m: int):
        return base_cell_node(arg.elt, element, m)

    @wp.func
    def element_cell(arg: Arg, element: int):
        return base_element_cell(arg.elt, element)

    @wp.func
    def cell_node_index(arg: geo_cls.CellArg, cell: int, n: int):
        return base_cni(arg.elt, cell, n)

    out.update(to_cell=to_cell, cell_node=cell_node, element_cell=element_cell, cell_node_index=cell_node_index)
    if kind == ElementKind.CELL:
        @wp.func
        def cell_arg(arg: Arg):
            return arg
    else:
        @wp.func
        def cell_arg(arg: Arg):
            return arg.cell
    out["cell_arg"] = cell_arg
    if "piola" in el:     # the Piola maps of the deformed cells
        from .vector_space import piola_maps
        out["value_map"], out["inverse_map"] = piola_maps(geo_cls, el["piola"])
    if "to_outer_cell" in el:
        base_to_outer = el["to_outer_cell"]

        @wp.func
        def to_outer_cell(arg: Arg, element: int, coords: wp.vec3):
            return base_to_outer(arg.elt, element, coords)
        out["to_outer_cell"] = to_outer_cell
    if "element_node_index" in el:
        base_eni = el["element_node_index"]

        @wp.func
        def element_node_index(arg: Arg, element: int, m: int):
            return base_eni(arg.elt, element, m)
        out["element_node_index"] = element_node_index
    return out


class DeformedSpace(FunctionSpace):
    """``base`` (a space on ``geometry.base``) on the deformed ``geometry``."""

    def __init__(self, base, geometry):
        self.base = base
        self.geometry = geometry
        self.degree, self.dtype, self.family, self.dim = base.degree, base.dtype, base.family, base.dim
        self.dof_mapper = base.dof_mapper
        self.struct_tag = getattr(base, "struct_tag", "") + "Def" + type(geometry).__name__

    @property
    def name(self):
        return f"{self.base.name}_{self.geometry.name}"

    @property
    def value_size(self):
        return self.base.value_size

    @property
    def dof_dtype(self):
        return self.base.dof_dtype

    @property
    def topology(self):
        return self

    def node_count(self):
        return self.base.node_count()

    def space_key(self):
        return ("Deformed", type(self.geometry)) + tuple(self.base.space_key())

    def element(self, element_kind):
        items = tuple(sorted(self.base.element(element_kind).items()))
        return dict(_adapt(items, type(self.geometry), element_kind))

    def node_positions(self, out=None):
        raise NotImplementedError("fem: node positions of spaces on deformed geometries are not supported yet")

    def make_field(self, space_partition=None):
        from ..field.fields import DiscreteField
        return DiscreteField(self, space_partition=space_partition)

