"""Slices of vectors, quaternions, transforms and matrices in kernels (``v[1:3]``, ``t[::-1]``,
``m[1:, :2]``, ``v[::2] = w``), as in the reference. Slice bounds are compile-time constants:
a slice reads or writes a fixed set of components, each through the differentiable
``extract``/``assign`` builtins, so gradients flow through slices."""

import ast

from ...types import composite as comp
from .. import ir
from ..ir import PyValue


class SlicingMixin:
    def has_slice(self, node):
        elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        return any(isinstance(e, ast.Slice) for e in elts)

    def _axes(self, t, node):
        """Per axis of composite type ``t``: a list of indices (a slice) or one int."""
        elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        shape = t._shape_ if t._kind_ == "matrix" else (t._length_,)
        if len(elts) > len(shape):
            raise self.scope.error(f"too many indices ({len(elts)}) for a {t.__name__}", node)
        axes = []
        for e, n in zip(elts, shape):
            if isinstance(e, ast.Slice):
                bounds = [self._slice_bound(b) for b in (e.lower, e.upper, e.step)]
                if bounds[2] == 0:
                    raise self.scope.error("Slice step cannot be zero", node)
                axes.append(list(range(*slice(*bounds).indices(n))))
            else:
                axes.append(self._const_index(e, n, node))
        axes += [list(range(n)) for n in shape[len(axes):]]
        return axes

    def _slice_bound(self, b):
        if b is None:
            return None
        v = self.eval(b)
        if isinstance(v, ir.Var) and v.constant is not None and not v.literal:
            v = PyValue(v.constant)
        if not (isinstance(v, PyValue) and isinstance(v.obj, int)):
            raise self.scope.error("slice bounds in kernels must be compile-time integers", b)
        return v.obj

    def _const_index(self, e, n, node):
        v = self._slice_bound(e)
        if not -n <= v < n:
            raise self.scope.error(f"index {v} is out of range for length {n}", node)
        return v % n

    def read_slice(self, base, node):
        t = base.type
        if not comp.is_composite(t):
            raise self.scope.error("slices are supported on vectors, quaternions, transforms and "
                                   "matrices in kernels (not on arrays)", node)
        axes = self._axes(t, node)
        s = t._wp_scalar_type_
        if len(axes) == 1:
            parts = [self._extract(base, i) for i in axes[0]]
            return self._build(comp.vector(len(parts), s), parts)
        rows, cols = axes
        if isinstance(rows, int) and isinstance(cols, int):
            return self._extract(base, rows, cols)
        if isinstance(rows, int) or isinstance(cols, int):
            parts = [self._extract(base, rows, j) for j in cols] if isinstance(rows, int) \
                else [self._extract(base, i, cols) for i in rows]
            return self._build(comp.vector(len(parts), s), parts)
        parts = [self._extract(base, i, j) for i in rows for j in cols]
        # an empty slice is the 0x0 matrix whatever its axes' lengths (as the reference types it)
        return self._build(comp.matrix((len(rows), len(cols)) if parts else (0, 0), s), parts)

    def write_slice(self, target, value):
        """``v[a:b] = w`` (w a vector of the slice's length, or a scalar for every component)."""
        base = self.eval_var(target.value)
        t = base.type
        if not comp.is_composite(t):
            raise self.scope.error("slice assignment works on vectors, quaternions, transforms "
                                   "and matrices in kernels", target)
        axes = self._axes(t, target)
        cells = [(i,) for i in axes[0]] if len(axes) == 1 else \
            [(i, j) for i in _as_list(axes[0]) for j in _as_list(axes[1])]
        scalar = not comp.is_composite(value.type)
        if not scalar and value.type._length_ != len(cells):
            raise self.scope.error(f"cannot assign a {value.type.__name__} to a slice of "
                                   f"{len(cells)} components", target)
        out = base
        for k, cell in enumerate(cells):
            if scalar:
                v = value
            elif comp.is_matrix(value.type):
                v = self._extract(value, *divmod(k, value.type._shape_[1]))
            else:
                v = self._extract(value, k)
            out = self.call_builtin("assign", [out] + [self.index_const(c) for c in cell] + [v])
        self.write(target.value, out)

    def _extract(self, v, *idx):
        return self.call_builtin("extract", [v] + [self.index_const(i) for i in idx])

    def _build(self, t, parts):
        if not parts:
            out = self.scope.new_var(t)
            self.scope.emit(ir.Const(out=out, value=[]))
            return out
        return self.construct(t, parts)


def _as_list(axis):
    return [axis] if isinstance(axis, int) else axis
