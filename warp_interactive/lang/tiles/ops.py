"""Tile builtins, part 2: tile_map/tile_reduce over builtins and @wp.func, reductions, layout
(transpose, broadcast, view, squeeze, reshape, assign, astype), matmul, Cholesky and triangular
solves, scans and sort. See builtins_tile.py for the conventions."""

from ...types import scalars as sc
from ...types.tile import is_tile, tile_type
from .. import ir
from ..builtins.function import BuiltinFunction, INTRINSICS
from .core import _REQUIRED, bind, emit, mark_view, rebind, shape_arg, static, tile_var
from ...errors import CodegenTypeError, CodegenValueError, TypeMismatch
from ..builtins.registry import resolve, type_name
from ..ir import PyValue


# --- functions as arguments (tile_map, tile_reduce) -------------------------------------------------
class FuncRef(ir.Var):
    """A function passed to a tile template: C++ lambdas for its forward and adjoint calls, in
    place of a variable's name. Never declared (it is not in the function's variables)."""

    def __init__(self, forward, adjoint):
        super().__init__(id=-2, type=None)
        self._forward, self._adjoint = forward, adjoint

    @property
    def label(self):
        return self._forward

    @property
    def adj(self):
        return self._adjoint


def function_ref(tr, node, elem_types, name):
    """(FuncRef, result element type) for a builtin or @wp.func applied to ``elem_types``."""
    v = tr.eval(node)
    return callable_ref(tr, v.obj if isinstance(v, PyValue) else None, elem_types, name, node)


def struct_note(dtype):
    """`` (S is a Warp struct)`` for a struct element type: warp-lang's errors name it so."""
    return f" ({dtype.__name__} is a Warp struct)" if getattr(dtype, "_wp_struct_", None) is not None else ""


def callable_ref(tr, obj, elem_types, name, node=None):
    fwd = "[](auto&&... _x) {{ return {}(_x...); }}"
    adj = "[](auto&&... _x) {{ {}(_x...); }}"
    if isinstance(obj, BuiltinFunction):
        try:
            ov, ret = resolve(obj.key, list(elem_types))
        except TypeMismatch as e:
            structs = [t for t in elem_types if getattr(t, "_wp_struct_", None) is not None]
            if structs:
                raise tr.scope.error(f"wp.{name}(): wp.{obj.key} has no overload for elements of the Warp "
                                     f"struct {structs[0].__name__}", node, kind=CodegenTypeError) from None
            raise tr.scope.error(f"wp.{name}(): wp.{obj.key} cannot take the tile elements: {e}", node) from None
        if ov.context or ov.writes or ret is None:
            raise tr.scope.error(f"wp.{name}(): wp.{obj.key} cannot be applied to tile elements", node)
        template = ov.template(list(elem_types), ret) if ov.template else ""
        adjoint = adj.format(f"wp::{ov.adj_cpp()}{template}") if ov.differentiable \
            else "[](auto&&...) {}"
        return FuncRef(fwd.format(f"wp::{ov.cpp}{template}"), adjoint), ret
    if getattr(obj, "_wp_function_", False):
        args = [ir.Var(id=-3, type=t) for t in elem_types]
        try:
            ov, _ = obj.resolve_overload(args, lambda a, t: None)
        except TypeMismatch as e:
            raise tr.scope.error(f"wp.{name}(): {e}", node) from None
        rets = ov.return_types()
        if len(rets) != 1:
            raise tr.scope.error(f"wp.{name}(): {obj.key} must return one value, returns {len(rets)}", node)
        tr.calls.append(ov)
        return FuncRef(fwd.format(ov.cpp), adj.format(f"adj_{ov.cpp}")), rets[0]
    raise tr.scope.error(f"wp.{name}(): the first argument must be a builtin (wp.sin, wp.add...) or a "
                         f"@wp.func, got {getattr(obj, '__name__', obj)!r}", node)


def tile_map(tr, obj, node, kwargs):
    """``tile_map(op, a, *args)``: op per element; ``a`` is a tile, each further argument (up to
    eight in all) a tile of a's shape or a value broadcast to every element (warp-lang 1.19)."""
    if kwargs or not 2 <= len(node.args) <= 9:
        raise tr.scope.error("wp.tile_map(op, a, *args) takes a function, a tile and up to seven more "
                             "tiles or values")
    a = tr.eval_var(node.args[1])
    if not is_tile(a.type):
        raise tr.scope.error(f"wp.tile_map(): expected a tile, got {type_name(a.type)}", node.args[1])
    args = [a]
    for x in node.args[2:]:
        v = tr.eval_var(x)
        if is_tile(v.type) and v.type.shape != a.type.shape:
            raise tr.scope.error(f"wp.tile_map(): the tiles' shapes differ: {a.type.shape} and "
                                 f"{v.type.shape}", x)
        if v.literal:       # a literal takes the scalar type of a's elements
            scalar = getattr(a.type.dtype, "_wp_scalar_type_", a.type.dtype)
            v = tr.retype_literal(v, scalar) or v
        args.append(v)
    elem = [v.type.dtype if is_tile(v.type) else v.type for v in args]
    f, ret = function_ref(tr, node.args[0], elem, "tile_map")
    out = tile_type(ret, a.type.shape)
    return emit(tr, "tile_map", out, [f] + args, f"<{out._cpp}>")


def _axis_split(tr, t, axis, name):
    """(result type, OUTER, N, INNER) of reducing tile ``t`` along ``axis``."""
    shape = t.type.shape
    if not isinstance(axis, int) or not 0 <= axis < len(shape):
        raise tr.scope.error(f"wp.{name}(): axis must be a compile-time int in [0, {len(shape)}), got {axis!r}")
    outer = 1
    for d in shape[:axis]:
        outer *= d
    inner = 1
    for d in shape[axis + 1:]:
        inner *= d
    rest = shape[:axis] + shape[axis + 1:]
    return tile_type(t.type.dtype, rest or (1,)), outer, shape[axis], inner


def tile_reduce(tr, obj, node, kwargs):
    args = bind(tr, node, kwargs, [("op", _REQUIRED), ("a", _REQUIRED), ("axis", None)], "tile_reduce")
    t = tile_var(tr, args, "a", "tile_reduce")
    f, ret = function_ref(tr, args["op"], [t.type.dtype] * 2, "tile_reduce")
    if type_name(ret) != type_name(t.type.dtype):
        raise tr.scope.error(f"wp.tile_reduce(): the operator returns {type_name(ret)} for elements of "
                             f"{type_name(t.type.dtype)}; it must return the tile element type")
    if "axis" in args:
        out, outer, n, inner = _axis_split(tr, t, static(tr, args, "axis"), "tile_reduce")
        ident = _reduce_identity(tr, args["op"], t.type.dtype)
        return emit(tr, "tile_reduce_axis", out, [f, t], f"<{out._cpp}, {outer}, {n}, {inner}, {ident}>",
                    differentiable=False)
    out = tile_type(t.type.dtype, (1,))
    return emit(tr, "tile_reduce", out, [f, t], f"<{out._cpp}>", differentiable=False)


def _reduce_identity(tr, op_node, dtype):
    """The identity kind of a reduction operator, for an axis slice with no element (only in a
    partial cooperative CPU block; tile.h's tile_reduce_identity): warp-lang's rule, builtin add,
    mul, min and max have one (min/max of scalars), a @wp.func none (0: a run-time error)."""
    v = tr.eval(op_node)
    obj = v.obj if isinstance(v, PyValue) else None
    kind = {"add": 1, "mul": 2, "min": 3, "max": 4}.get(obj.key, 0) if isinstance(obj, BuiltinFunction) else 0
    if kind > 1 and not sc.is_scalar(dtype):
        return 0
    return kind


def tile_sum(tr, obj, node, kwargs):
    args = bind(tr, node, kwargs, [("a", _REQUIRED), ("axis", None)], "tile_sum")
    t = tile_var(tr, args, "a", "tile_sum")
    if "axis" in args:
        out, outer, n, inner = _axis_split(tr, t, static(tr, args, "axis"), "tile_sum")
        return emit(tr, "tile_sum_axis", out, [t], f"<{out._cpp}, {outer}, {n}, {inner}>")
    return emit(tr, "tile_sum", tile_type(t.type.dtype, (1,)), [t])


def _extreme(cpp, index):
    def handler(tr, obj, node, kwargs):
        args = bind(tr, node, kwargs, [("a", _REQUIRED)], cpp)
        t = tile_var(tr, args, "a", cpp)
        if not sc.is_scalar(t.type.dtype):
            raise tr.scope.error(f"wp.{cpp}(): needs a tile of scalars, got {type_name(t.type)}"
                                 f"{struct_note(t.type.dtype)}", kind=CodegenTypeError)
        out = tile_type(sc.int32 if index else t.type.dtype, (1,))
        return emit(tr, cpp, out, [t], differentiable=not index)
    return handler


# --- layout -----------------------------------------------------------------------------------------
def gather(tr, t, out_shape, offset, strides, differentiable=True):
    """``out[i...] = t.data[offset + sum(i_k * strides_k)]`` (flat element strides, may be 0)."""
    out = tile_type(t.type.dtype, out_shape)
    s = list(strides) + [0] * (4 - len(strides))
    return emit(tr, "tile_gather", out, [t], f"<{out._cpp}, {offset}, {s[0]}, {s[1]}, {s[2]}, {s[3]}>",
                differentiable=differentiable)


def tile_transpose(tr, obj, node, kwargs):
    args = bind(tr, node, kwargs, [("a", _REQUIRED)], "tile_transpose")
    t = tile_var(tr, args, "a", "tile_transpose")
    if t.type.ndim != 2:
        raise tr.scope.error(f"wp.tile_transpose(): needs a 2-d tile, got shape {t.type.shape}")
    r, c = t.type.shape
    return gather(tr, t, (c, r), 0, (1, c))


def tile_broadcast(tr, obj, node, kwargs):
    args = bind(tr, node, kwargs, [("a", _REQUIRED), ("shape", _REQUIRED)], "tile_broadcast")
    t = tile_var(tr, args, "a", "tile_broadcast")
    shape = shape_arg(tr, args, name="tile_broadcast")
    src, src_strides = t.type.shape, t.type.row_major_strides()
    lead = len(shape) - len(src)
    if lead < 0:
        raise tr.scope.error(f"wp.tile_broadcast(): cannot broadcast shape {src} to fewer dimensions {shape}")
    strides = []
    for k, d in enumerate(shape):
        m = k - lead
        if m < 0 or src[m] == 1:
            strides.append(0)
        elif src[m] == d:
            strides.append(src_strides[m])
        else:
            raise tr.scope.error(f"wp.tile_broadcast(): shape {src} cannot broadcast to {shape} "
                                 f"(dimension {k}: {src[m]} vs {d})")
    out = gather(tr, t, shape, 0, strides)
    if getattr(t, "tile_storage", None) == "shared":
        # warp-lang's broadcast of a shared tile is a view of its memory (repeated elements alias)
        mark_view(out, t, 0, strides, None)
    return out


def _offsets(tr, args, t, name):
    """offset= of a view/assign: per leading axis an int (known at build time) or a run-time int
    Var; padded with zeros to the tile's rank. Returns (offsets, how many were given)."""
    node = args.get("offset")
    if node is None:
        return [0] * t.type.ndim, 0
    v = tr.eval(node)
    if isinstance(v, PyValue) and isinstance(v.obj, (tuple, list)):
        v = tuple(PyValue(x) for x in v.obj)
    items = list(v) if isinstance(v, tuple) else [v]
    if len(items) > t.type.ndim:
        raise tr.scope.error(f"wp.{name}(): offset= has {len(items)} entries for a {t.type.ndim}-d tile", node)
    out = []
    for item in items:
        if isinstance(item, PyValue) and isinstance(item.obj, int) and not isinstance(item.obj, bool):
            out.append(item.obj)
            continue
        var = tr.to_var(item, node)
        if not sc.is_int(var.type):
            raise tr.scope.error(f"wp.{name}(): offsets must be integers or slices, got {type_name(var.type)}",
                                 node)
        c = var.constant
        out.append(c if isinstance(c, int) and not isinstance(c, bool) else var)
    return out + [0] * (t.type.ndim - len(out)), len(out)


def _window(tr, t, off, shape, name):
    """(static flat offset, strides, run-time offset Var or None) of a ``shape`` window at ``off``
    (its dims are t's trailing ones). A constant offset that leaves the tile is a build error; a
    run-time one that does makes the window invalid (reads zeros, writes nothing: tile.h)."""
    lead = t.type.ndim - len(shape)
    if lead < 0:
        raise tr.scope.error(f"wp.{name}(): shape {shape} has more dimensions than the tile {t.type.shape}")
    st = t.type.row_major_strides()
    flat, dynamic = 0, None
    for k, (o, n, s) in enumerate(zip(off, t.type.shape, st)):
        size = shape[k - lead] if k >= lead else 1
        if isinstance(o, int):
            if o < 0 or o + size > n:
                raise tr.scope.error(f"wp.{name}(): a window of shape {shape} at offset {tuple(off)} is out "
                                     f"of bounds of the tile of shape {t.type.shape}")
            flat += o * s
            continue
        part = emit(tr, "tile_window_offset", sc.int32,
                    [o, tr.scope.const(n - size + 1, sc.int32), tr.scope.const(s, sc.int32)], differentiable=False)
        dynamic = part if dynamic is None else tr.call_builtin("add", [dynamic, part])
    return flat, st[lead:], dynamic


def _strides4(strides):
    return ", ".join(str(x) for x in list(strides) + [0] * (4 - len(strides)))


def tile_view(tr, obj, node, kwargs):
    args = bind(tr, node, kwargs, [("t", _REQUIRED), ("offset", None), ("shape", None)], "tile_view")
    t = tile_var(tr, args, "t", "tile_view")
    off, given = _offsets(tr, args, t, "tile_view")
    shape = shape_arg(tr, args, name="tile_view") if "shape" in args else t.type.shape[given:]
    if not shape:
        shape = (1,)
    flat, strides, dynamic = _window(tr, t, off, shape, "tile_view")
    if dynamic is None:
        return mark_view(gather(tr, t, shape, flat, strides), t, flat, strides, None)
    out = tile_type(t.type.dtype, shape)
    total = tr.call_builtin("add", [dynamic, tr.scope.const(flat, sc.int32)])
    view = emit(tr, "tile_gather_at", out, [t, total], f"<{out._cpp}, {_strides4(strides)}>")
    return mark_view(view, t, 0, strides, total)


def tile_assign(tr, obj, node, kwargs):
    args = bind(tr, node, kwargs, [("dst", _REQUIRED), ("src", _REQUIRED), ("offset", None)], "tile_assign")
    dst, src = tile_var(tr, args, "dst", "tile_assign"), tile_var(tr, args, "src", "tile_assign")
    if type_name(dst.type.dtype) != type_name(src.type.dtype):
        if not (sc.is_scalar(dst.type.dtype) and sc.is_scalar(src.type.dtype)):
            raise tr.scope.error(f"wp.tile_assign(): dtypes differ: {type_name(dst.type)} and {type_name(src.type)}")
        # scalar tiles convert to the destination's dtype, as in warp-lang (gradient flows back)
        conv = tile_type(dst.type.dtype, src.type.shape)
        src = emit(tr, "tile_astype", conv, [src], f"<{conv._cpp}>")
    off, _ = _offsets(tr, args, dst, "tile_assign")
    flat, strides, dynamic = _window(tr, dst, off, src.type.shape, "tile_assign")
    if dynamic is None:
        new = emit(tr, "tile_scatter", dst.type, [dst, src], f"<{flat}, {_strides4(strides)}>")
    else:
        total = tr.call_builtin("add", [dynamic, tr.scope.const(flat, sc.int32)])
        new = emit(tr, "tile_scatter_at", dst.type, [dst, src, total], f"<{_strides4(strides)}>")
    rebind(tr, args["dst"], new, "tile_assign", "dst")


def _reshaped(tr, t, shape):
    out = tile_type(t.type.dtype, shape)
    return gather(tr, t, shape, 0, out.row_major_strides())


def tile_reshape(tr, obj, node, kwargs):
    args = bind(tr, node, kwargs, [("t", _REQUIRED), ("shape", _REQUIRED)], "tile_reshape")
    t = tile_var(tr, args, "t", "tile_reshape")
    _check_dense(tr, t)
    shape = static(tr, args, "shape", what="a compile-time tuple of ints")
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    if shape.count(-1) == 1:
        known = 1
        for d in shape:
            known *= d if d != -1 else 1
        shape = tuple(t.type.size // known if d == -1 else d for d in shape)
    size = 1
    for d in shape:
        size *= d
    if size != t.type.size or any(d <= 0 for d in shape):
        raise tr.scope.error(f"wp.tile_reshape(): cannot reshape {t.type.shape} ({t.type.size} elements) "
                             f"to {shape}: New shape {shape} has total size {size} which does not match "
                             f"original size {t.type.size}", kind=CodegenValueError)     # (warp-lang's words)
    return _reshaped(tr, t, shape)


def _check_dense(tr, t):
    """warp-lang reshapes a view in place, so it refuses a view whose elements are not its tile's
    row-major run (``t[::2, ::2]``, ``t[::-1]``, ``t[:, 1:3]``, a broadcast of shared storage):
    its words, with the view's element strides in its tile."""
    info = getattr(t, "tile_view_of", None)
    if info is None:
        return
    strides, dense, n = tuple(info[2]), [], 1
    for d in reversed(t.type.shape):
        dense.insert(0, n)
        n *= d
    if strides == tuple(dense):      # (exactly, as warp-lang compares them)
        return
    raise tr.scope.error(f"tile_reshape() requires a contiguous tile; a tile view with shape {t.type.shape} and "
                         f"strides {strides} cannot be reshaped in place. Copy the view into a new tile first, "
                         f"e.g. with wp.tile_assign().", kind=CodegenValueError)


def tile_squeeze(tr, obj, node, kwargs):
    args = bind(tr, node, kwargs, [("t", _REQUIRED), ("axis", None)], "tile_squeeze")
    t = tile_var(tr, args, "t", "tile_squeeze")
    axis = static(tr, args, "axis", None)
    ndim = t.type.ndim
    if axis is None:
        axes = set(range(ndim))
    else:   # negative axes count from the end, as in NumPy and warp-lang
        axes = set()
        for a in ((axis,) if isinstance(axis, int) else axis):
            if not isinstance(a, int) or not -ndim <= a < ndim:
                raise tr.scope.error(f"tile_squeeze() axis {a} is out of bounds for tile with {ndim} "
                                     f"dimensions", kind=CodegenValueError)
            if t.type.shape[a] != 1:
                raise tr.scope.error(f"tile_squeeze(): cannot select an axis to squeeze out which has "
                                     f"size not equal to one, axis={a}, size={t.type.shape[a]}",
                                     kind=CodegenValueError)
            axes.add(a % ndim)
    shape = tuple(d for k, d in enumerate(t.type.shape) if not (k in axes and d == 1)) or (1,)
    return _reshaped(tr, t, shape)


def tile_astype(tr, obj, node, kwargs):
    args = bind(tr, node, kwargs, [("t", _REQUIRED), ("dtype", _REQUIRED)], "tile_astype")
    t = tile_var(tr, args, "t", "tile_astype")
    dtype = sc.canonical_scalar(static(tr, args, "dtype", what="a type"))
    if dtype is None or not sc.is_scalar(t.type.dtype):
        raise tr.scope.error("wp.tile_astype(): converts tiles of scalars to a scalar dtype")
    out = tile_type(dtype, t.type.shape)
    return emit(tr, "tile_astype", out, [t], f"<{out._cpp}>")


HANDLERS = {
    "tile_map": tile_map,
    "tile_reduce": tile_reduce,
    "tile_sum": tile_sum,
    "tile_max": _extreme("tile_max", False),
    "tile_min": _extreme("tile_min", False),
    "tile_argmax": _extreme("tile_argmax", True),
    "tile_argmin": _extreme("tile_argmin", True),
    "tile_transpose": tile_transpose,
    "tile_broadcast": tile_broadcast,
    "tile_view": tile_view,
    "tile_assign": tile_assign,
    "tile_reshape": tile_reshape,
    "tile_squeeze": tile_squeeze,
    "tile_astype": tile_astype,
}
INTRINSICS.update(HANDLERS)
