"""Subscripts of tiles, warp-lang's NumPy-style tile indexing: ``t[i, j]`` an element, ``t[i]`` and
``t[5, :]`` a row, ``t[4:12, ::2]`` and ``t[::-1]`` strided windows, ``t[idx, :]`` / ``t[:, idx]``
a gather by a 1-d integer index tile along any axis, and ``t[0:4, :] = u`` / ``t[i] = row``
writes of a window. Slice bounds are compile-time integers (the result's shape is static);
integer indices may be computed in the kernel, and negative ones count from the end.

A constant index out of range, an empty slice or a mismatched shape is a build error at the
user's line. A run-time index out of range reads zeros and writes nothing (``tile_index`` in
tile.h maps it to -1), so no index can read or write outside the tile's memory."""

import ast

from ...errors import CodegenTypeError
from ...types import scalars as sc
from ...types.tile import is_tile, tile_type
from .. import ir
from .core import assign_element, emit, extract, int_const, mark_view
from ..builtins.function import INTRINSICS, tile_ops
from .ops import _strides4, gather
from .ops import tile_view as _tile_view_of_ints
from ..builtins.registry import type_name


def _elements(node):
    return node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]


def parse(tr, t, node, elts=None):
    """Per axis of tile ``t``: ("int", int or runtime Var) | ("slice", start, step, length) |
    ("gather", index tile). Missing trailing axes are full slices."""
    shape, elts = t.type.shape, _elements(node) if elts is None else elts
    if len(elts) > len(shape):
        raise tr.scope.error(f"too many indices ({len(elts)}) for a tile of shape {shape}", node)
    axes = []
    for k, (e, n) in enumerate(zip(elts, shape)):
        if isinstance(e, ast.Slice):
            axes.append(_slice(tr, e, n, k, node))
            continue
        v = tr.eval(e)
        if isinstance(v, ir.Var) and is_tile(v.type):
            if v.type.ndim != 1 or not sc.is_int(v.type.dtype):
                raise tr.scope.error(f"advanced tile indexing needs a 1-d integer index tile, got "
                                     f"{type_name(v.type)}", e)
            axes.append(("gather", v))
            continue
        v = tr.to_var(v, e)
        if not sc.is_int(v.type):
            raise tr.scope.error(f"tile indices must be integers or slices, got {type_name(v.type)}", e)
        c = v.constant
        if isinstance(c, int) and not isinstance(c, bool):
            if not -n <= c < n:
                raise tr.scope.error(f"index {c} is out of bounds for axis {k} of the tile of shape "
                                     f"{shape} (length {n})", e)
            axes.append(("int", c % n))
        else:
            axes.append(("int", v))
    return axes + [("slice", 0, 1, n) for n in shape[len(axes):]]


def _slice(tr, e, n, k, node):
    bounds = [_bound(tr, b) for b in (e.lower, e.upper, e.step)]
    if bounds[2] == 0:
        raise tr.scope.error("a tile slice's step cannot be zero", node)
    r = range(*slice(*bounds).indices(n))
    if not r:
        raise tr.scope.error(f"the slice {ast.unparse(e)} of axis {k} (length {n}) would make an empty "
                             f"tile (a zero-length axis)", node)
    return ("slice", r.start, r.step, len(r))


def _bound(tr, b):
    if b is None:
        return None
    v = tr.eval(b)
    c = v.obj if hasattr(v, "obj") else v.constant
    if not isinstance(c, int) or isinstance(c, bool):
        raise tr.scope.error("tile slice bounds must be compile-time constant integers (the result's "
                             "shape is static)", b)
    return c


def _index_var(tr, a):
    return int_const(tr, a) if isinstance(a, int) else a


def _window(tr, t, axes):
    """(shape, strides, static flat offset, runtime offset Var or None) of the view ``axes`` select."""
    strides = t.type.row_major_strides()
    shape, out_strides, off, dynamic = [], [], 0, None
    for a, n, s in zip(axes, t.type.shape, strides):
        if a[0] == "slice":
            shape.append(a[3])
            out_strides.append(a[2] * s)
            off += a[1] * s
        elif isinstance(a[1], int):
            off += a[1] * s
        else:
            part = emit(tr, "tile_index_offset", sc.int32, [a[1], int_const(tr, n), int_const(tr, s)],
                        differentiable=False)
            dynamic = part if dynamic is None else tr.call_builtin("add", [dynamic, part])
    return tuple(shape) or (1,), out_strides or [0], off, dynamic


def read(tr, t, node):
    """The value of ``t[...]``: an element, a view (a copy of a window) or a gather."""
    return read_axes(tr, t, None, node)


def read_axes(tr, t, elts, node):
    """``read`` with the subscript's elements given (``tile_view(t, offset=(slice(...), ...))``)."""
    axes = parse(tr, t, node, elts)
    if any(a[0] == "gather" for a in axes):
        return _gather_read(tr, t, axes, node)
    if all(a[0] == "int" for a in axes):
        return extract(tr, t, [_index_var(tr, a[1]) for a in axes])
    shape, strides, off, dynamic = _window(tr, t, axes)
    if dynamic is None:       # a view: writes into it reach t (builtins_tile.bind_tile)
        return mark_view(gather(tr, t, shape, off, strides), t, off, strides, None)
    out = tile_type(t.type.dtype, shape)
    total = tr.call_builtin("add", [dynamic, int_const(tr, off)])
    view = emit(tr, "tile_gather_at", out, [t, total], f"<{out._cpp}, {_strides4(strides)}>")
    return mark_view(view, t, 0, strides, total)


def _gather_read(tr, t, axes, node):
    k = [i for i, a in enumerate(axes) if a[0] == "gather"]
    full = all(a[0] == "gather" or (a[0] == "slice" and a[1:] == (0, 1, n))
               for a, n in zip(axes, t.type.shape))
    if len(k) != 1 or not full:
        raise tr.scope.error("advanced tile indexing with an index tile requires ':' on all other axes "
                             "(one index tile per subscript)", node)
    return gather_axis(tr, t, axes[k[0]][1], k[0])


def gather_axis(tr, t, ix, axis):
    """``t`` with axis ``axis`` replaced by the entries ``ix`` picks (a copy)."""
    shape = t.type.shape
    outer = 1
    for d in shape[:axis]:
        outer *= d
    inner = t.type.size // (outer * shape[axis])
    out = tile_type(t.type.dtype, shape[:axis] + (ix.type.shape[0],) + shape[axis + 1:])
    return emit(tr, "tile_slice_indexed", out, [t, ix], f"<{out._cpp}, {outer}, {shape[axis]}, {inner}>")


def write(tr, t, target, value):
    """``t[...] = value``: the tile with an element or a window replaced (the name is rebound)."""
    axes = parse(tr, t, target)
    if any(a[0] == "gather" for a in axes):
        raise tr.scope.error("assignment through an index tile (t[idx, :] = ...) is not supported; "
                             "use wp.tile_store_indexed on an array", target)
    if all(a[0] == "int" for a in axes):
        return assign_element(tr, t, [_index_var(tr, a[1]) for a in axes], value)
    shape, strides, off, dynamic = _window(tr, t, axes)
    if not is_tile(value.type):
        raise tr.scope.error(f"assigning to a tile view requires a tile of matching shape {shape}, got "
                             f"{type_name(value.type)}", target)
    if value.type.shape != shape or type_name(value.type.dtype) != type_name(t.type.dtype):
        raise tr.scope.error(f"tile view shape mismatch: the view t{ast.unparse(target.slice)!s} is "
                             f"{type_name(tile_type(t.type.dtype, shape))}, the value is "
                             f"{type_name(value.type)} (it does not fit)", target)
    if dynamic is None:
        return emit(tr, "tile_scatter", t.type, [t, value], f"<{off}, {_strides4(strides)}>")
    total = tr.call_builtin("add", [dynamic, int_const(tr, off)])
    return emit(tr, "tile_scatter_at", t.type, [t, value, total], f"<{_strides4(strides)}>")


def is_element(tr, t, target):
    """True when ``target`` (a subscript of tile ``t``) names one element (``t[i, j] += x``)."""
    elts = _elements(target)
    return len(elts) == t.type.ndim and not any(isinstance(e, ast.Slice) for e in elts)


def struct_element_op(tr, op, current, value):
    """``t[i] += s`` / ``-=`` on a tile of structs: field-wise (codegen/struct_ops.py); any other
    in-place operator is warp-lang's TypeError."""
    name = current.type.__name__
    if op not in ("add", "sub"):
        what = "bitwise inplace operators (&=, |=, ^=) are" if op.startswith("bit_") else f"operator '{op}=' is"
        raise tr.scope.error(f"{what} not defined for tile elements of the Warp struct {name}: struct "
                             f"tiles add and subtract field by field", kind=CodegenTypeError)
    if type_name(value.type) != type_name(current.type):
        raise tr.scope.error(f"an element of a tile of {name} adds a {name}, got {type_name(value.type)}",
                             kind=CodegenTypeError)
    return emit(tr, f"struct_{op}", current.type, [current, value])


def check_augassign(tr, t, target):
    if not is_element(tr, t, target):
        raise tr.scope.error("Compound assignment to a tile view (t[0:4, :] += u, t[0] += row) is not "
                             "supported, as in warp-lang: write t[0:4, :] = t[0:4, :] + u", target)


# --- tile_view(t, offset=(slice(a, b, c), i, ...)): the subscript t[a:b:c, i] -------------------------
def _slice_offsets(node):
    """offset=(slice(a, b, c), i, ...) as subscript elements (ast.Slice for each slice(...)
    call), or None when no entry is a slice."""
    if node is None:
        return None
    elts = node.elts if isinstance(node, ast.Tuple) else [node]
    calls = [isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and e.func.id == "slice" for e in elts]
    if not any(calls):
        return None
    out = []
    for e, is_slice in zip(elts, calls):
        if not is_slice:
            out.append(e)
            continue
        bounds = list(e.args) + [None] * (3 - len(e.args))
        if len(e.args) == 1:
            bounds = [None, e.args[0], None]
        out.append(ast.Slice(lower=bounds[0], upper=bounds[1], step=bounds[2]))
    return out


def tile_view(tr, obj, node, kwargs):
    """``wp.tile_view``: slices in offset= make it the subscript; int offsets go to
    builtins_tile_ops.tile_view (this handler replaces that one in INTRINSICS)."""
    sliced = _slice_offsets(kwargs.get("offset", node.args[1] if len(node.args) > 1 else None))
    if sliced is None:
        return _tile_view_of_ints(tr, obj, node, kwargs)
    if "shape" in kwargs or len(node.args) > 2:
        raise tr.scope.error("wp.tile_view(): 'shape' together with a slice in offset= is not supported "
                             "(the slice gives the shape)", node)
    t = tr.eval_var(node.args[0] if node.args else kwargs["t"])
    if not is_tile(t.type):
        raise tr.scope.error(f"wp.tile_view(): 't' must be a tile, got {type_name(t.type)}", node)
    return read_axes(tr, t, sliced, node)


INTRINSICS["tile_view"] = tile_view


tile_ops.fill(read=read, write=write, check_augassign=check_augassign, struct_element_op=struct_element_op)
