"""The operators integrands apply to fields and domains: ``fem.grad(u, s)``, ``fem.normal(domain, s)``...

Each field kind and domain passes its values to integrands as a struct of its own type; the
struct type carries a table of what each operator means for it (``register``). An operator is
resolved when the integrand is translated, by the type of its first argument
(lang/translation/dispatch.py), to the ``@wp.func`` of that table; so ``grad`` of a quadratic test field on
a grid and ``grad`` of a discrete field on a mesh are different functions, each translated and
cached like any other."""

from ..lang.builtins.registry import type_name

# struct type -> (operator name -> @wp.func or compile-time value, description)
_TABLES = {}


def register(struct_type, ops, description):
    """Declare what the operators mean for values of ``struct_type``."""
    struct_type._fem_ops_ = dict(ops)
    struct_type._fem_describe_ = description
    if "__call__" in ops:
        struct_type._wp_call_ = call_operator


def table(t):
    return getattr(t, "_fem_ops_", None)


class Operator:
    """``fem.<name>(value, ...)`` in an integrand."""

    def __init__(self, name, doc):
        self.__name__ = name
        self.name = name
        self.__doc__ = doc

    def _wp_resolve_call_(self, types):
        if not types:
            raise TypeError("needs a field or domain argument")
        ops = table(types[0])
        if ops is None:
            raise TypeError(f"applies to fields and domains, not to a {type_name(types[0])}")
        impl = ops.get(self.name)
        if impl is None:
            raise TypeError(f"is not defined for {types[0]._fem_describe_}")
        return impl

    def __call__(self, *args, **kwargs):
        raise RuntimeError(f"fem.{self.name}() is evaluated in integrands only")

    def __repr__(self):
        return f"fem.{self.name}"


call_operator = Operator("__call__", "A field's value at a sample: ``u(s)``.")

_DOCS = {
    "inner": "The field's value on the inner side of a side (its value in cells).",
    "outer": "The field's value on the outer side of a side (its value in cells).",
    "grad": "The field's gradient.",
    "grad_outer": "The field's gradient on the outer side of a side.",
    "div": "The divergence of a vector field.",
    "div_outer": "The divergence on the outer side of a side.",
    "curl": "The curl of a vector field.",
    "D": "The symmetric part of the gradient of a vector field.",
    "jump": "Inner minus outer value across a side (zero in cells and on the boundary).",
    "average": "The mean of the inner and outer values across a side.",
    "grad_jump": "Inner minus outer gradient across a side.",
    "grad_average": "The mean of the inner and outer gradients across a side.",
    "degree": "The polynomial degree of a field.",
    "node_count": "The number of nodes of the element the sample is in.",
    "node_index": "The global index of a node of the sample's element.",
    "at_node": "The sample moved to a node of the field's element.",
    "position": "The world position of a sample.",
    "normal": "The unit normal of a side at a sample (outward on the boundary).",
    "measure": "The measure (length, area, volume) of a sample's element.",
    "measure_ratio": "The ratio of a side's measure to its cells'.",
    "deformation_gradient": "The derivative of world positions by element coordinates.",
    "inverse_deformation_gradient": "The inverse of deformation_gradient (cells).",
    "lookup": "The element and coordinates holding a world position.",
    "element_coordinates": "The coordinates of a world position in an element (extrapolated outside it).",
    "element_closest_point": "The coordinates of an element's point closest to a world position, and the "
                             "squared distance.",
    "to_inner_cell": "A side sample moved to the same point of the side's inner cell.",
    "to_outer_cell": "A side sample moved to the same point of the side's outer cell.",
    "to_cell_side": "A cell sample on one of its sides moved to that side.",
    "scalar_type": "The scalar type of a field or domain (float32 or float64).",
    "partition_lookup": "As lookup, restricted to a partition.",
    "cells": "The cells of a sides domain, or a field on sides seen from cells (for lookups).",
}

OPERATORS = {name: Operator(name, doc) for name, doc in _DOCS.items()}
