"""``wp.address_of(expr)`` in kernels and functions: the address (a ``uint64``) of a local
variable, an array element, a struct field or a vector/matrix component, for native snippets
(``@wp.func_native``) that read or write through it, as warp-lang's.

The expression is walked from its root (a local name, or an array element ``a[i, j]``) through
field and constant component accesses, summing their byte offsets (struct fields: the ctypes
layout the C++ structs share, types/struct.py). The local itself is addressed, not a copy, so a
write through the address is what the next read of that name sees."""

import ast

from ...types import composite as comp
from ...types import scalars as sc
from ...types.array import array
from ..builtins.registry import Overload
from ..ir import PyValue

_COMPONENTS = {"x": 0, "y": 1, "z": 2, "w": 3}
_WHAT = ("wp.address_of() takes a local variable, an array element (a[i]), a struct field (s.f) or "
         "a vector/matrix component (v.y, m[i, j])")


def address_of(expr):
    """The address of an addressable expression, as a ``wp.uint64`` (kernels and functions only)."""
    raise RuntimeError("wp.address_of() can only be called inside a @wp.kernel or @wp.func body")


def _ov(name):
    return Overload(name=name, input_types={}, value_func=None, cpp=name, differentiable=False)


class AddressMixin:
    def address_of_call(self, obj, node, kwargs):
        if kwargs or len(node.args) != 1:
            raise self.scope.error("wp.address_of() takes one expression", node)
        root, args, offset, _ = self._address(node.args[0], node)
        off = self.scope.const(offset, sc.int64)
        return self.emit_call(_ov(root), sc.uint64, [off] + args)

    def _address(self, e, node):
        """(C++ function, its arguments, byte offset, type of the addressed value)."""
        if isinstance(e, ast.Name):
            v = self.eval(e)
            if isinstance(v, PyValue) or getattr(v, "literal", False) or not hasattr(v, "type"):
                raise self.scope.error(f"{_WHAT}; '{e.id}' is not a variable", node)
            return "address_of_value", [v], 0, v.type
        if isinstance(e, ast.Attribute):
            root, args, offset, t = self._address(e.value, node)
            return (root, args) + self._member(t, e.attr, offset, node)
        if isinstance(e, ast.Subscript):
            base = self.eval(e.value) if isinstance(e.value, (ast.Name, ast.Attribute)) else None
            if base is not None and isinstance(getattr(base, "type", None), array):
                elts = e.slice.elts if isinstance(e.slice, ast.Tuple) else [e.slice]
                if len(elts) != base.type.ndim:
                    raise self.scope.error(f"wp.address_of() of an array element needs {base.type.ndim} "
                                           "indices", node)
                return "address_of_elem", [base] + [self.eval_index(x) for x in elts], 0, base.type.dtype
            root, args, offset, t = self._address(e.value, node)
            for x in (e.slice.elts if isinstance(e.slice, ast.Tuple) else [e.slice]):
                offset, t = self._component(t, self._constant_index(x, node), offset, node)
            return root, args, offset, t
        raise self.scope.error(_WHAT, node)

    def _member(self, t, attr, offset, node):
        if hasattr(t, "_wp_struct_") and attr in t._wp_struct_.fields:
            return offset + t._wp_struct_.offsets()[attr], t._wp_struct_.fields[attr]
        if comp.is_composite(t) and t._kind_ != "matrix" and attr in _COMPONENTS:
            return self._component(t, _COMPONENTS[attr], offset, node)
        raise self.scope.error(f"{_WHAT}; no field '{attr}' here", node)

    def _component(self, t, k, offset, node):
        """Component k of a vector (a row of a matrix), with its byte offset."""
        if not comp.is_composite(t):
            raise self.scope.error(f"{_WHAT}; this value has no components", node)
        s = t._wp_scalar_type_
        if t._kind_ == "matrix":
            rows, cols = t._shape_
            if not -rows <= k < rows:
                raise self.scope.error(f"row {k} is out of range for a {rows}x{cols} matrix", node)
            return offset + (k % rows) * cols * s.size, comp.vector(cols, s)
        n = t._length_
        if not -n <= k < n:
            raise self.scope.error(f"component {k} is out of range for {n} components", node)
        return offset + (k % n) * s.size, s

    def _constant_index(self, x, node):
        v = self.eval(x)
        c = v.obj if isinstance(v, PyValue) else getattr(v, "constant", None)
        if isinstance(c, bool) or not isinstance(c, int):
            raise self.scope.error("wp.address_of(): a component index must be a constant", node)
        return c
