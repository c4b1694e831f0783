"""Arrays in kernels beyond element access: slices (``a[1:3]``, ``a[:, k]``, ``a[::-2, 1]``)
giving strided views of the same memory and gradient, ``a.ptr`` / ``a.ndim``, and
``wp.array(ptr=..., shape=..., dtype=...)`` over external memory, and ``wp.zeros(shape=...,
dtype=...)``: a stack array of a constant shape (``wp.fixedarray``), as in the reference.

Slice bounds and steps may be known only at run time: the ``view`` builtin clamps them as
Python's ``slice.indices`` does (native core.h); a constant zero step is a build error and a
run-time zero step is raised by the launch."""

import ast

import numpy as np

from ...types import scalars as sc
from ...types.array import array, _ArrayAlias
from ...types.array_factories import zeros
from ...types.fixedarray import fixedarray
from ...types.indexedarray import is_indexed
from ...types.array_slice import SLICE_BEGIN, SLICE_END, slice_t
from ..builtins.registry import Array, Index, Overload, add_builtin
from ..ir import PyValue

add_builtin("slice", {"start": Index, "stop": Index, "step": Index}, value_type=slice_t,
            cpp="make_slice", differentiable=False, hidden=True, export=False)
add_builtin("array_ptr", {"a": Array}, value_type=sc.uint64, differentiable=False,
            hidden=True, export=False)


def is_array_constructor(obj):
    return obj is array or isinstance(obj, _ArrayAlias)


def is_zeros(obj):
    return obj is zeros


SHAPE_NOT_CONSTANT = "the `shape` argument must be specified as a constant when zero-initializing an array"


class ArrayViewsMixin:
    def array_slice_view(self, base, node):
        """``a[i:j, k, ::s]``: integers drop their axis, slices keep it (NumPy's rule)."""
        elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if len(elts) > base.type.ndim:
            raise self.scope.error(f"too many indices ({len(elts)}) for an array of "
                                   f"{base.type.ndim} dimensions", node)
        idx = [self._slice_value(e, node) if isinstance(e, ast.Slice) else self.eval_index(e)
               for e in elts]
        return self.call_builtin("view", [base] + idx)

    def _slice_value(self, s, node):
        step = self._slice_part(s.step, 1)
        if step.constant == 0:
            raise self.scope.error("Slice step cannot be zero", node)
        start = self._slice_part(s.lower, SLICE_BEGIN)
        stop = self._slice_part(s.upper, SLICE_END)
        return self.call_builtin("slice", [start, stop, step])

    def _slice_part(self, e, default):
        if e is None:
            return self.scope.const(default, sc.int32)
        return self.eval_index(e)

    def array_attribute(self, var, attr):
        """``a.ptr`` (the data address, uint64) and ``a.ndim`` (a build-time constant)."""
        if attr == "ptr":
            if is_indexed(var.type):
                raise self.scope.error("an indexed array has no 'ptr' in kernels (its elements are "
                                       "reached through its index arrays)")
            return self.call_builtin("array_ptr", [var])
        if attr == "ndim":
            return self.scope.const(var.type.ndim, sc.int32)
        raise self.scope.error(f"arrays in kernels have the attributes shape, dtype, ndim and "
                               f"ptr, not '{attr}'")

    def array_from_ptr(self, obj, node, kwargs):
        """``wp.array(ptr=p, shape=(m, n), dtype=T)`` in a kernel: a contiguous array over the
        memory at address ``p`` (a uint64), with no gradient."""
        unknown = set(kwargs) - {"ptr", "shape", "dtype", "ndim"}
        if node.args or unknown or "ptr" not in kwargs or "shape" not in kwargs:
            raise self.scope.error("in kernels, wp.array() takes ptr=, shape= and dtype= keyword "
                                   "arguments only", node)
        dtype = self.eval(kwargs["dtype"]) if "dtype" in kwargs else PyValue(float)
        if not isinstance(dtype, PyValue):
            raise self.scope.error("wp.array(dtype=...) must be a type known at build time", node)
        dtype = sc.canonical_scalar(dtype.obj)
        ptr = self.eval_var(kwargs["ptr"])
        if not sc.is_int(ptr.type):
            raise self.scope.error("wp.array(ptr=...) in a kernel needs an integer address (uint64)", node)
        shape = self.eval(kwargs["shape"])
        shape = list(shape) if isinstance(shape, tuple) else [shape]
        dims = [self.to_var(d) if isinstance(d, PyValue) else d for d in shape]
        if not 1 <= len(dims) <= 4 or not all(sc.is_int(getattr(d, "type", None)) for d in dims):
            raise self.scope.error("wp.array(shape=...) in a kernel needs 1 to 4 integers", node)
        t = array(dtype=dtype, ndim=len(dims))
        tmpl = f"<{dtype._cpp}>"
        ov = Overload(name="array_from_ptr", input_types={}, value_func=None, cpp="array_from_ptr",
                      differentiable=False, template=lambda ts, ret: tmpl)
        return self.emit_call(ov, t, [ptr] + dims)

    def fixed_zeros(self, obj, node, kwargs):
        """``wp.zeros(shape=(2, 3), dtype=int)`` in a kernel or function: a zeroed stack array of
        that constant shape (``wp::fixedarray_t``, core.h)."""
        names = ["shape", "dtype"]
        if len(node.args) > 2 or set(kwargs) - set(names) or \
                any(n in kwargs for n in names[:len(node.args)]):
            raise self.scope.error("in kernels, wp.zeros() takes shape= and dtype= only (a stack "
                                   "array of a constant shape)", node)
        given = dict(zip(names, node.args), **kwargs)
        if "shape" not in given:
            raise self.scope.error("wp.zeros() in a kernel needs a shape", node)
        dtype = self.eval(given["dtype"]) if "dtype" in given else PyValue(float)
        if not isinstance(dtype, PyValue):
            raise self.scope.error("wp.zeros(dtype=...) must be a type known at build time", node)
        shape = self._constant_shape(self.eval(given["shape"]))
        if shape is None:
            raise self.scope.error(SHAPE_NOT_CONSTANT, node)
        try:
            t = fixedarray(dtype=dtype.obj, shape=shape)
        except ValueError as e:
            raise self.scope.error(f"wp.zeros() in a kernel: {e}", node) from None
        tmpl = f"<{t.size}, {t.dtype._cpp}>"
        ov = Overload(name="zeros", input_types={}, value_func=None, cpp="fixedarray_t",
                      differentiable=False, template=lambda ts, ret: tmpl)
        return self.emit_call(ov, t, [self.scope.const(d, sc.int32) for d in shape])

    @staticmethod
    def _constant_shape(value):
        """The dimensions of a shape known at build time (an int or a tuple of them), else None."""
        items = value if isinstance(value, tuple) else (value,)
        if isinstance(value, PyValue) and isinstance(value.obj, tuple):
            items = tuple(PyValue(x) for x in value.obj)
        out = []
        for v in items:
            c = v.obj if isinstance(v, PyValue) else getattr(v, "constant", None)
            if isinstance(c, bool) or not isinstance(c, (int, np.integer)):
                return None
            out.append(int(c))
        return out
