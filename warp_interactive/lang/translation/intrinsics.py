"""Calls the translator handles itself: tid, print/printf, anonymous composite constructors."""

import ast

from ...types import composite as comp
from ...types import scalars as sc
from ...types.tile import is_tile
from .. import ir
from ..builtins import print_format
from ..builtins.function import INTRINSICS
from ..builtins.registry import Overload, type_name
from ..ir import PyValue

def _const_kw(tr, kwargs, name, default=None):
    node = kwargs.get(name)
    if node is None:
        return default
    v = tr.eval(node)
    if isinstance(v, tuple) and all(isinstance(x, PyValue) for x in v):
        return tuple(x.obj for x in v)   # shape=(3, 2)
    if not isinstance(v, PyValue):
        raise tr.scope.error(f"'{name}=' must be a compile-time constant", node)
    return v.obj


def _check_in_kernel(tr):
    if not tr.is_kernel:
        raise tr.scope.error("wp.tid() can only be called in a kernel: pass the index to the function")


def tid(tr, obj, node, kwargs):
    if node.args or kwargs:
        raise tr.scope.error("wp.tid() takes no arguments")
    _check_in_kernel(tr)
    tr.tid_arity = max(tr.tid_arity, 1)
    if tr.block_width > 1:     # a cooperative block's lanes share the launch's leading index
        return tr.call_builtin("tid_nd", [tr.index_const(0), tr.index_const(1)])
    return tr.call_builtin("tid", [])


def tid_tuple(tr, count):
    """``i, j = wp.tid()``: one index per launch dimension."""
    _check_in_kernel(tr)
    tr.tid_arity = max(tr.tid_arity, count)
    return tuple(tr.call_builtin("tid_nd", [tr.index_const(k), tr.index_const(count)])
                 for k in range(count))


def vector(tr, obj, node, kwargs):
    args = tr.args_of(node)
    dtype = sc.canonical_scalar(_const_kw(tr, kwargs, "dtype"))
    length = _const_kw(tr, kwargs, "length")
    _check_anonymous_vector(tr, args, length, dtype)
    dtype = dtype or _scalar_from_args(tr, args) or sc.float32
    length = length or (len(args) if len(args) > 1 else None)
    if len(args) == 1 and comp.is_vector(args[0].type):
        length = length or args[0].type._length_
    if length is None:
        raise tr.scope.error("wp.vector() needs length= or several components: the `length` "
                             "argument must be specified when filling a vector with a value")
    return tr.construct(comp.vector(length, dtype), args)


def _check_anonymous_vector(tr, args, length, dtype):
    """warp-lang's checks of ``wp.types.vector(...)``, with its messages (ending them)."""
    if not args and length is None:
        raise tr.scope.error("wp.vector() needs length= or several components: the `length` "
                             "argument must be specified when zero-initializing a vector")
    if len(args) == 1 and comp.is_vector(args[0].type) and length not in (None, args[0].type._length_):
        raise tr.scope.error(f"wp.vector(v, length={length}) of a {type_name(args[0].type)}: incompatible "
                             f"vector of length {length} given when copy constructing a vector of "
                             f"length {args[0].type._length_}")
    if len(args) > 1 and length not in (None, len(args)):
        raise tr.scope.error(f"wp.vector(..., length={length}): incompatible number of values given "
                             f"({len(args)}) when constructing a vector of length {length}")
    if len(args) > 1 and dtype is None and len({a.type for a in args}) > 1:
        got = ", ".join(type_name(a.type) for a in args)
        raise tr.scope.error(f"wp.vector({got}) without dtype=: all values given when constructing "
                             "a vector must have the same type")


def matrix(tr, obj, node, kwargs):
    args = tr.args_of(node)
    shape = _const_kw(tr, kwargs, "shape")
    dtype = sc.canonical_scalar(_const_kw(tr, kwargs, "dtype")) or _scalar_from_args(tr, args) \
        or sc.float32
    if shape is None:
        raise tr.scope.error("wp.matrix() needs shape=(rows, cols): the `shape` argument must be "
                             "specified when initializing a matrix by value")
    return tr.construct(comp.matrix(shape, dtype), args)


def quaternion(tr, obj, node, kwargs):
    args = tr.args_of(node)
    dtype = sc.canonical_scalar(_const_kw(tr, kwargs, "dtype")) or _scalar_from_args(tr, args) \
        or sc.float32
    return tr.construct(comp.quaternion(dtype), args)


def _typed_identity(kind):
    """``wp.identity(n=, dtype=)``, ``wp.quat_identity(dtype=)``, ``wp.transform_identity(dtype=)``."""
    def handler(tr, obj, node, kwargs):
        dtype = sc.canonical_scalar(_const_kw(tr, kwargs, "dtype", sc.float32))
        if kind == "identity":
            n = _const_kw(tr, kwargs, "n")
            if n is None and node.args:
                n = tr.eval(node.args[0])
                n = n.obj if isinstance(n, PyValue) else None
            if not isinstance(n, int):
                raise tr.scope.error("wp.identity() needs n= as a compile-time integer")
            t, tmpl = comp.matrix((n, n), dtype), f"<{n}, {dtype._cpp}>"
        else:
            make = comp.quaternion if kind == "quat_identity" else comp.transformation
            t, tmpl = make(dtype), f"<{dtype._cpp}>"
        ov = Overload(name=kind, input_types={}, value_func=None, cpp=kind,
                      differentiable=False, template=lambda ts, ret: tmpl)
        return tr.emit_call(ov, t, [])
    return handler


def quat_from_axis_angle(tr, obj, node, kwargs):
    """``quat_from_axis_angle(axis, angle)``, or the axis as three components ``(x, y, z, angle)``."""
    args = tr.args_of(node)
    if len(args) == 4 and not kwargs:
        s = _scalar_from_args(tr, args) or sc.float32
        args = [tr.construct(comp.vector(3, s), args[:3]), args[3]]
    return tr.call_registered(obj, node, kwargs, args)


def _scalar_from_args(tr, args):
    for a in args:
        if not a.literal:
            s = comp.is_composite(a.type) and a.type._wp_scalar_type_ or \
                (a.type if sc.is_scalar(a.type) else None)
            if s:
                return s
    return None


# --- printing ------------------------------------------------------------------------------------
def printf(tr, obj, node, kwargs):
    if not node.args or not isinstance(node.args[0], ast.Constant) or \
            not isinstance(node.args[0].value, str):
        raise tr.scope.error("wp.printf() needs a string literal format as its first argument")
    args = [tr.eval_var(a) for a in node.args[1:]]
    if len(args) > print_format.MAX_PRINTF_ARGS:
        raise tr.scope.error("the maximum number of variadic arguments that can be passed to `printf` is "
                             f"{print_format.MAX_PRINTF_ARGS}")
    tr.scope.emit(ir.Print(fmt=node.args[0].value, args=args))


def emit_print(tr, node):
    """``print(a, b, ...)``: one printf call per statement, so threads' lines never interleave;
    the reverse pass prints the adjoints of the values (see print_format.py)."""
    parts, adj_parts, args = [], [], []
    for a in node.args:
        v = tr.eval(a)
        if isinstance(v, PyValue) and isinstance(v.obj, str):
            parts.append(v.obj.replace("%", "%%"))
            adj_parts.append(parts[-1])
            continue
        v = tr.to_var(v, a)
        storage = getattr(v, "tile_storage", None)     # a tile made with storage="shared"
        parts.append(print_format.tile_format(v.type, storage) if storage else
                     print_format.value_format(v.type))
        adj_parts.append(print_format.value_format(v.type, adjoint=True))
        args.append(v)
    adj_fmt = print_format.ADJ_PREFIX + print_format.line_format(adj_parts) if args else ""
    # a statement printing a tile prints once per block (lane 0), as warp-lang's tile print does
    once = getattr(tr, "block_width", 1) > 1 and any(is_tile(v.type) for v in args)
    tr.scope.emit(ir.Print(fmt=print_format.line_format(parts), args=args, adj_fmt=adj_fmt, block_once=once))


_CORE = {
    "tid": tid,
    "quat_from_axis_angle": quat_from_axis_angle,
    "printf": printf,
    "vector": vector,
    "matrix": matrix,
    "quaternion": quaternion,
    "identity": _typed_identity("identity"),
    "quat_identity": _typed_identity("quat_identity"),
    "transform_identity": _typed_identity("transform_identity"),
}
INTRINSICS.update(_CORE)   # the one table (lang/builtins/function.py) the translator reads
