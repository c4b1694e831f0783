"""Starred arguments in kernel calls, as warp-lang 1.19 has them: ``wp.vec4(*v3, 1.0)``,
``wp.max(*v)``, ``wp.matrix_from_rows(*m[:2])``, ``wp.vec3i(*arr[0:3])``.

A starred vector, quaternion or matrix gives its components (a matrix its rows), a starred
tuple its values; a slice of one of them (bounds known when the kernel is built, negative ones
counting from the end) gives those components. A 1-d array is starred only through a slice with
constant, non-negative bounds and an explicit end (its length is known only at run time), and
gives those elements (loads, with their adjoints). The call is rewritten with the starred
argument replaced by its elements, already translated (``Evaluated`` nodes), so every kind of
call (builtins, constructors, user functions) takes them as ordinary arguments.
"""

import ast
import builtins as py_builtins

from ...types import composite as comp
from ...types.array import array
from .. import ir
from ..builtins.registry import type_name
from ..ir import PyValue


class Evaluated(ast.expr):
    """An argument translated already: evaluating it gives ``value`` back."""

    _fields = ()

    def __init__(self, value, **kwargs):
        super().__init__(**kwargs)
        self.value = value


def eval_evaluated(tr, node):
    return node.value


def has_starred(node):
    return any(isinstance(a, ast.Starred) for a in node.args)


def expand(tr, node):
    """The call ``node`` with each starred argument replaced by its elements."""
    args = []
    for a in node.args:
        if not isinstance(a, ast.Starred):
            args.append(a)
            continue
        elements = _elements(tr, a)
        if not elements:
            raise tr.scope.error("Starred expression results in empty sequence.", a)
        args.extend(ast.copy_location(Evaluated(v), a) for v in elements)
    return ast.copy_location(ast.Call(func=node.func, args=args, keywords=node.keywords), node)


def _elements(tr, starred):
    value = starred.value
    if isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Slice):
        target = tr.eval(value.value)
        t = getattr(target, "type", None)
        if isinstance(target, ir.Var) and comp.is_composite(t):
            bounds = _slice(tr, value.slice, len_of=t._shape_[0])
        elif isinstance(target, ir.Var) and isinstance(t, array):
            bounds = _array_bounds(tr, value.slice, t)
        elif isinstance(target, tuple):
            return list(target[slice(*_slice(tr, value.slice, len_of=len(target)))])
        else:
            raise tr.scope.error("Starred expressions with slices are only supported for arrays, "
                                 f"vectors, quaternions, and matrices. Got {_describe(target)}.",
                                 starred)
        return [_item(tr, target, i, starred) for i in range(*bounds)]
    target = tr.eval(value)
    if isinstance(target, tuple):
        return list(target)
    t = getattr(target, "type", None)
    if isinstance(target, ir.Var) and comp.is_composite(t):
        return [_item(tr, target, i, starred) for i in range(t._shape_[0])]
    if isinstance(target, ir.Var) and isinstance(t, array):
        raise tr.scope.error("Starred expressions apply to arrays only if they are sliced with "
                             "bounds known at compile-time (e.g. *arr[0:3]).", starred)
    raise tr.scope.error("Starred expressions are only supported for arrays (with slice), "
                         f"vectors, quaternions, and matrices. Got {_describe(target)}.", starred)


def _item(tr, target, i, node):
    """``target[i]``, translated as any subscript (a component, a matrix row, an array load)."""
    sub = ast.Subscript(value=ast.copy_location(Evaluated(target), node),
                        slice=ast.copy_location(ast.Constant(i), node), ctx=ast.Load())
    return tr.eval(ast.copy_location(sub, node))


def _constant(tr, node):
    v = tr.eval(node)
    c = v.obj if isinstance(v, PyValue) else getattr(v, "constant", None)
    if c is None:
        raise tr.scope.error("Slice component must be a compile-time constant.", node)
    if not isinstance(c, int) or isinstance(c, py_builtins.bool):
        raise tr.scope.error("Slice component must be an integer.", node)
    return c


def _slice(tr, s, len_of):
    """(start, stop, step) of a constant slice over ``len_of`` items (Python's rules)."""
    parts = [None if p is None else _constant(tr, p) for p in (s.lower, s.upper, s.step)]
    if parts[2] == 0:
        raise tr.scope.error("Slice step cannot be zero.", s)
    return slice(*parts).indices(len_of)


def _array_bounds(tr, s, t):
    if t.ndim != 1:
        raise tr.scope.error("Starred expressions with slices are only supported for 1D arrays, "
                             f"got {t.ndim}D array.", s)
    start = 0 if s.lower is None else _constant(tr, s.lower)
    step = 1 if s.step is None else _constant(tr, s.step)
    if s.upper is None:
        raise tr.scope.error("Starred expression on arrays requires explicit upper bound (e.g., "
                             "*array[0:3], not *array[0:]).", s)
    stop = _constant(tr, s.upper)
    if step == 0:
        raise tr.scope.error("Slice step cannot be zero.", s)
    if start < 0 or stop < 0:
        raise tr.scope.error("Starred expression slice bounds cannot be negative for arrays.", s)
    if step < 0:
        raise tr.scope.error("Starred expression slice step cannot be negative for arrays.", s)
    return start, stop, step


def _describe(v):
    if isinstance(v, ir.Var):
        return type_name(v.type)
    if isinstance(v, PyValue):
        return type(v.obj).__name__
    return "tuple"
