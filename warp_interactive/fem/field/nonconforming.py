"""``fem.NonconformingField``: a discrete field of one geometry evaluated on the elements of
another (a contact surface between two separately meshed bodies).

At a sample of the domain, the field's geometry looks up the cell closest to the sample's
world position; where that cell's point is within ``sqrt(LOOKUP_EPS)`` of the position the
field's value there is taken, elsewhere the ``background`` (a uniform value, or a field on the
domain). Gradients and divergences are looked up the same way."""

import functools
from typing import Any

from .. import _api as wp
from .. import operator as op
from ..types import NULL_ELEMENT_INDEX
from .other import UniformField
from .structs import make_struct

LOOKUP_EPS = 1.0e-6     # squared distance within which a looked-up point counts as the position


@functools.lru_cache(maxsize=None)
def _lookup_eval(position, lookup, cell_position, field_eval, bg_eval):
    @wp.func
    def eval_nc(f: Any, s: Any):
        pos = position(f.elt, s)
        cell_arg = f.field.elt
        ns = lookup(cell_arg, pos)
        if ns.element_index != NULL_ELEMENT_INDEX:
            if wp.length_sq(pos - cell_position(cell_arg, ns)) <= LOOKUP_EPS:
                return field_eval(f.field, ns)
        return bg_eval(f.bg, s)
    return eval_nc


class NonconformingField:
    """``field`` (a discrete field, on the cells of a geometry that supports cell lookups)
    evaluated on ``domain`` (of another geometry); ``background`` (a value of the field's type,
    or a field on ``domain``) where the domain's points lie outside the field's geometry."""

    def __init__(self, domain, field, background=0.0):
        from ..domain import Cells
        self.domain = domain
        self.field = field.on(Cells(field.geometry)) if hasattr(field, "on") else field
        if not hasattr(background, "eval_arg_value"):
            background = UniformField(domain, self.dtype(background))
        elif background.geometry is not domain.geometry:
            raise ValueError("Background field must be conforming to the domain")
        self.background = background.on(domain)
        self._make()

    def _make(self):
        f, bg = self.field, self.background
        self.EvalArg = make_struct(f"Nonconforming_{self.domain.ElementArg.__name__}_{f.EvalArg.__name__}_"
                                   f"{bg.EvalArg.__name__}",
                                   {"elt": self.domain.ElementArg, "field": f.EvalArg, "bg": bg.EvalArg})
        field_ops, bg_ops = op.table(f.EvalArg), op.table(bg.EvalArg)
        geo = f.geometry
        ops = {"scalar_type": field_ops.get("scalar_type", wp.float32), "degree": self.degree}
        for name in ("__call__", "grad", "div"):
            if field_ops.get(name) is not None and bg_ops.get(name) is not None:
                ops[name] = _lookup_eval(self.domain.element_position, geo.cell_lookup, geo.cell_position,
                                         field_ops[name], bg_ops[name])
        # the same value on both sides of a side of the domain
        for name, same in (("inner", "__call__"), ("outer", "__call__"), ("average", "__call__"),
                           ("grad_outer", "grad"), ("grad_average", "grad"), ("div_outer", "div")):
            if same in ops:
                ops[name] = ops[same]
        op.register(self.EvalArg, ops, "a nonconforming field")

    @property
    def dtype(self):
        return self.field.dtype

    @property
    def degree(self):
        return self.field.degree

    @property
    def geometry(self):
        return self.domain.geometry

    @property
    def name(self):
        return f"{self.domain.name}_{self.field.name}_{self.background.name}"

    def on(self, domain):
        return self

    def eval_arg_value(self, device=None):
        geo = self.field.geometry
        if hasattr(geo, "supports_cell_lookup") and not geo.supports_cell_lookup(device):
            raise RuntimeError(
                f"The NonconformingField's geometry of type '{geo.name}' does not support global cell lookups on "
                "this device. If relevant, check that the geometry's BVH has been built for this device "
                "(see `Geometry.build_bvh()`, `Geometry.update_bvh()`).")
        a = self.EvalArg()
        a.elt = self.domain.element_arg_value(device)
        a.field = self.field.eval_arg_value(device)
        a.bg = self.background.eval_arg_value(device)
        return a
