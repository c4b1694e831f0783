"""Geometries deformed by an implicit field (``ImplicitField.make_deformed_geometry``): points
moved to ``func(x, values...)`` of their base positions ``x`` (or by it, ``relative=True``),
with the position gradient ``grad_func(x, values...)`` the field declares (warp-lang's
example maps a cube onto a cylinder this way). The cell and side functions are those of
field-deformed geometries (deformed.py), with these position and gradient functions."""

import functools
from typing import Any

from .. import _api as wp

from ..field.spread import Spread
from ..field.structs import make_struct
from .deformed import DeformedGeometry, _make_class, relative_funcs


@functools.lru_cache(maxsize=None)
def _implicit_funcs(spread, spread_grad, base_position, relative, dim):
    @wp.func
    def value(arg: Any, s: Any):
        return spread(base_position(arg.elt, s), arg.field)

    @wp.func
    def grad(arg: Any, s: Any):
        return spread_grad(base_position(arg.elt, s), arg.field)

    return relative_funcs(value, grad, base_position, relative, dim)


@functools.lru_cache(maxsize=None)
def implicit_deformed_class(base_cls, field_arg, func, grad_func, names, grad_names, relative):
    tag = f"{base_cls.__name__}_{func.key}_{grad_func.key}_{'rel' if relative else 'abs'}"
    CellArg = make_struct(f"ImplicitDeformed{tag}CellArg", {"elt": base_cls.CellArg, "field": field_arg,
                                                           "bvh": wp.uint64})
    SideArg = make_struct(f"ImplicitDeformed{tag}SideArg", {"elt": base_cls.SideArg, "field": field_arg,
                                                           "cell": CellArg})
    spread, spread_grad = Spread(func, names), Spread(grad_func, grad_names)
    dim = base_cls.dimension
    cell_pos, cell_G = _implicit_funcs(spread, spread_grad, base_cls.cell_position, relative, dim)
    side_pos, side_G = _implicit_funcs(spread, spread_grad, base_cls.side_position, relative, dim)
    return _make_class(base_cls, CellArg, SideArg, cell_pos, cell_G, side_pos, side_G, ImplicitDeformedGeometry)


class ImplicitDeformedGeometry(DeformedGeometry):
    """A base geometry with its points moved by an implicit field's function."""

    def __new__(cls, field, relative=True, build_bvh=False):
        if cls is ImplicitDeformedGeometry:
            if field.grad_func is None:
                raise ValueError("make_deformed_geometry: the implicit field needs a grad_func (the position gradient)")
            base = field.domain.geometry
            cls = implicit_deformed_class(type(base), field.EvalArg, field.func, field.grad_func,
                                          field.arg_names(field.func), field.arg_names(field.grad_func),
                                          bool(relative))
        return object.__new__(cls)

    @staticmethod
    def _base_geometry(field):
        return field.domain.geometry

    def _set_field(self, arg, device):
        arg.field = self.field.eval_arg_value(device)

    def _bvh_device(self):
        return wp.get_device()
