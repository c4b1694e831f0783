"""Tile builtins (warp-lang's tile model), part 1: argument binding, construction, memory,
operators, thread values and element access. Part 2 (maps, reductions, layout, linear algebra,
scans, sort) is builtins_tile_ops.py.

Tile calls take keyword arguments with compile-time values (``shape=``, ``offset=``,
``storage=``, ``dtype=``), so each is a translator intrinsic (a handler in INTRINSICS) that
checks its arguments, works out the static result shape and emits a call of the C++ template in
``native/include/warp_interactive/tile/tile.h``. Every tile runs with a block width of one thread
(warp-lang's CPU semantics), on every target.
"""

import ast

from ...errors import CodegenTypeError, CodegenValueError
from ...types import composite as comp
from ...types import scalars as sc
from ...types.array import array
from ...types.indexedarray import is_indexed
from ...types.tile import STORAGE_MODES, atomic_add_scalar, is_tile, tile_type
from .. import ir
from . import refs as tile_refs
from ..builtins.function import INTRINSICS, tile_ops
from ..builtins.registry import Overload, type_name
from ..ir import PyValue

# --- argument binding -----------------------------------------------------------------------------
_REQUIRED = object()


def bind(tr, node, kwargs, params, name):
    """Positional and keyword argument nodes of a call, by parameter name (warp-lang's order);
    missing optional ones are absent. ``params``: (name, default or _REQUIRED) pairs."""
    names = [p for p, _ in params]
    if len(node.args) > len(names):
        raise tr.scope.error(f"wp.{name}() takes at most {len(names)} arguments, got {len(node.args)}")
    out = dict(zip(names, node.args))
    for k, v in kwargs.items():
        if k not in names:
            raise tr.scope.error(f"wp.{name}() got an unexpected keyword argument '{k}'; it takes "
                                 f"{', '.join(names)}")
        if k in out:
            raise tr.scope.error(f"wp.{name}() got argument '{k}' twice")
        out[k] = v
    for p, default in params:
        if p not in out and default is _REQUIRED:
            raise tr.scope.error(f"wp.{name}() needs the argument '{p}'")
    return out


def static(tr, args, key, default=None, what="a compile-time constant"):
    """The Python value of a compile-time argument (a tuple of constants becomes a tuple)."""
    node = args.get(key)
    if node is None:
        return default
    v = tr.eval(node)
    if isinstance(v, ir.Var) and v.constant is not None and not v.literal:
        v = PyValue(v.constant)      # a name bound to a literal (``n = 3``), as slice bounds take
    if isinstance(v, tuple) and all(isinstance(x, PyValue) for x in v):
        return tuple(x.obj for x in v)
    if isinstance(v, PyValue):
        return v.obj
    raise tr.scope.error(f"'{key}=' must be {what}, got a value computed in the kernel", node)


def shape_arg(tr, args, key="shape", name="tile"):
    shape = static(tr, args, key, what="a compile-time int or tuple of ints")
    if isinstance(shape, int) and not isinstance(shape, bool):
        shape = (shape,)
    if isinstance(shape, tuple) and not 1 <= len(shape) <= 4 and \
            all(isinstance(d, int) and not isinstance(d, bool) for d in shape):
        raise tr.scope.error(f"{name}() output must have between one and four dimensions, got "
                             f"{len(shape)} ({key}={shape!r})", args.get(key), kind=CodegenValueError)
    if not isinstance(shape, tuple) or not shape or \
            any(not isinstance(d, int) or isinstance(d, bool) or d <= 0 for d in shape) or len(shape) > 4:
        raise tr.scope.error(f"wp.{name}(): {key}= must be a tuple of 1 to 4 positive ints known at "
                             f"build time, got {shape!r}", args.get(key))
    return shape


def storage_arg(tr, args, name):
    storage = static(tr, args, "storage", "register")
    if storage not in STORAGE_MODES:
        raise tr.scope.error(f"wp.{name}(): unknown storage mode {storage!r}; expected 'register' "
                             f"or 'shared'", args.get("storage"))
    tr.tile_state.pending_storage = storage     # the next tile made remembers it (print() shows it)
    return storage


def is_struct(t):
    return getattr(t, "_wp_struct_", None) is not None


def dtype_arg(tr, args, default=sc.float32, name=None, structs=True):
    """The tile's element type: a scalar, vector, matrix, quaternion, transform or (``structs``)
    a ``@wp.struct``; ``name``: the primitive, for warp-lang's error texts."""
    node = args.get("dtype")
    if node is None:
        return default
    obj = static(tr, args, "dtype", what="a type")
    if is_struct(obj):
        if not structs:
            raise tr.scope.error(f"wp.{name}(): dtype= must be a numeric scalar dtype, vector or matrix, "
                                 f"not the Warp struct {obj.__name__}", node, kind=CodegenTypeError)
        return obj
    t = sc.canonical_scalar(obj) if not comp.is_composite(obj) else obj
    if t is None or not (sc.is_scalar(t) or comp.is_composite(t)):
        raise tr.scope.error(f"dtype= must be a scalar, vector, matrix or @wp.struct type, got {obj!r}",
                             node, kind=CodegenTypeError)
    return t


def tile_var(tr, args, key, name):
    node = args[key]
    v = tr.eval_var(node)
    if not is_tile(v.type):
        raise tr.scope.error(f"wp.{name}(): '{key}' must be a tile, got {type_name(v.type)}", node)
    return v


def value_var(tr, node, dtype):
    """A runtime value of ``dtype`` (a literal adopts it)."""
    v = tr.eval_var(node)
    if v.literal:
        v = tr.retype_literal(v, dtype) or v
    if v.type is not dtype and type_name(v.type) != type_name(dtype):
        raise tr.scope.error(f"expected a {type_name(dtype)}, got {type_name(v.type)} (no implicit "
                             f"conversion)", node)
    return v


def int_const(tr, value):
    return tr.scope.const(int(value), sc.int32)


def f64_const(tr, value):
    return tr.scope.const(float(value), sc.float64)


def emit(tr, cpp, ret, args, template="", differentiable=True, replay=None, name=None):
    """A call of C++ ``wp::<cpp><template>(args)`` (adjoint ``wp::adj_<cpp><template>``)."""
    ov = Overload(name=name or cpp, input_types={f"a{i}": a.type for i, a in enumerate(args)},
                  value_func=None, cpp=cpp, differentiable=differentiable, replay=replay)
    out = tr.emit_call(ov, ret, args, template)
    storage = tr.tile_state.pending_storage
    if storage is not None and is_tile(ret):
        tr.tile_state.pending_storage = None
        if storage == "shared":
            out.tile_storage = storage
    return out


def rebind(tr, node, value, name, what, additive=False):
    """In-place forms (``tile_matmul(a, b, out)``): the named tile gets the new value
    (``additive``: the value is the old one plus a change, see bind_tile)."""
    if not isinstance(node, ast.Name):
        raise tr.scope.error(f"wp.{name}(): {what} must be a variable name (the call assigns a "
                             f"new value to it)", node)
    bind_tile(tr, node.id, value, additive)


# --- views alias their tile ------------------------------------------------------------------------
# In warp-lang a view (``row = t[i]``, ``wp.tile_view(t, ...)``, ``t[2:4, :]``) shares its tile's
# storage: writing into the view (``wp.tile_assign(row, x)``, ``row[j] = v``, in-place ops) changes
# ``t``. Tiles are values here, so a view records the window it was read from, and a new value of
# the view is written back into every name still bound to that tile.
def mark_view(view, parent, flat, strides, dynamic):
    """``view`` (a Var) was read from ``parent`` at flat offset ``flat`` (+ the run-time Var
    ``dynamic``) with element ``strides``."""
    view.tile_view_of = (parent, flat, tuple(strides), dynamic)
    return view


def bind_tile(tr, name, value, additive=False):
    """Bind ``name`` to ``value``; when ``name`` was a view, write the value back into its tile.
    ``additive`` (``+=``, ``-=``, tile_axpy): where the view's elements alias (a stride of 0: a
    broadcast of a shared tile), each adds its change to its element, as in warp-lang."""
    old = tr.scope.symbols.get(name)
    value = tr.scope.bind(name, value)
    tile_refs.written(tr, name, value)     # a @wp.func's tile parameter: the caller's tile too
    info = getattr(old, "tile_view_of", None)
    if info is None or not is_tile(getattr(value, "type", None)):
        return value
    parent, flat, strides, dynamic = info
    names = [n for n, v in tr.scope.symbols.items() if v is parent and not tile_refs.is_hidden(n)]
    if not names:           # the tile was rebound since the view was taken: nothing aliases it
        return value
    s = ", ".join(str(x) for x in list(strides) + [0] * (4 - len(strides)))
    if additive and dynamic is None and 0 in strides:
        merged = emit(tr, "tile_scatter_delta", parent.type, [parent, old, value], f"<{flat}, {s}>")
    elif dynamic is None:
        merged = emit(tr, "tile_scatter", parent.type, [parent, value], f"<{flat}, {s}>")
    else:
        merged = emit(tr, "tile_scatter_at", parent.type, [parent, value, dynamic], f"<{s}>")
    for n in names:
        merged = bind_tile(tr, n, merged)
    if dynamic is None and 0 in strides:
        # aliasing elements (a broadcast): the view reads its tile again, so every copy of an
        # element shows the tile's one value, as views of warp-lang's shared memory do
        value = emit(tr, "tile_gather", value.type, [merged], f"<{value.type._cpp}, {flat}, {s}>")
        tr.scope.bind(name, value)
        tile_refs.written(tr, name, value)
    mark_view(value, merged, flat, strides, dynamic)
    return value


# --- construction ---------------------------------------------------------------------------------
def _filled(fill):
    def handler(tr, obj, node, kwargs):
        name = obj.key
        args = bind(tr, node, kwargs, [("shape", _REQUIRED), ("dtype", None), ("storage", None)], name)
        shape = shape_arg(tr, args, name=name)
        dtype = dtype_arg(tr, args, name=name, structs=fill == 0.0)
        storage_arg(tr, args, name)
        t = tile_type(dtype, shape)
        if is_struct(dtype):          # every field zero, as ``S()`` in a kernel
            value = tr.scope.new_var(dtype)
            tr.scope.emit(ir.Const(out=value, value=None))
            return emit(tr, "tile_full", t, [value], f"<{t._cpp}>", differentiable=False)
        scalar = dtype if sc.is_scalar(dtype) else dtype._wp_scalar_type_
        value = tr.scope.const(float(fill) if sc.is_float(scalar) else int(fill), scalar)
        if not sc.is_scalar(dtype):
            value = tr.construct(dtype, [value])
        return emit(tr, "tile_full", t, [value], f"<{t._cpp}>", differentiable=False)
    return handler


def tile_full(tr, obj, node, kwargs):
    args = bind(tr, node, kwargs, [("shape", _REQUIRED), ("value", _REQUIRED), ("dtype", None),
                                   ("storage", None)], "tile_full")
    shape = shape_arg(tr, args, name="tile_full")
    storage_arg(tr, args, "tile_full")
    value = tr.eval_var(args["value"])
    dtype = dtype_arg(tr, args, default=None) or (sc.float32 if value.literal and value.type is sc.float32
                                                  else value.type)
    value = value_var(tr, args["value"], dtype)
    t = tile_type(dtype, shape)
    return emit(tr, "tile_full", t, [value], f"<{t._cpp}>")


def _random(kind):
    def handler(tr, obj, node, kwargs):
        name = obj.key
        args = bind(tr, node, kwargs, [("shape", _REQUIRED), ("rng", _REQUIRED), ("min", None),
                                       ("max", None), ("storage", None)], name)
        shape = shape_arg(tr, args, name=name)
        storage_arg(tr, args, name)
        rng = value_var(tr, args["rng"], sc.uint32)
        dtype = sc.float32 if kind == "f" else sc.int32
        extra = []
        if ("min" in args) != ("max" in args):
            raise tr.scope.error(f"wp.{name}(): give both min= and max=, or neither")
        if "min" in args:
            extra = [value_var(tr, args["min"], dtype), value_var(tr, args["max"], dtype)]
        elif kind == "f":
            extra = [tr.scope.const(0.0, dtype), tr.scope.const(1.0, dtype)]
        t = tile_type(dtype, shape)
        return emit(tr, f"tile_rand{kind}", t, [rng] + extra, f"<{t._cpp}>", differentiable=False)
    return handler


# --- memory ---------------------------------------------------------------------------------------
def _array_and_offset(tr, args, name, ndim_of_tile):
    arr = tr.eval_var(args["a"])
    if not isinstance(arr.type, array) or is_indexed(arr.type):   # warp-lang: no indexed arrays
        raise tr.scope.error(f"wp.{name}(): the first argument must be an array, got "
                             f"{type_name(arr.type)}", args["a"])
    if arr.type.ndim != ndim_of_tile:
        raise tr.scope.error(f"wp.{name}(): a {ndim_of_tile}-d tile needs a {ndim_of_tile}-d array, "
                             f"got a {arr.type.ndim}-d array", args["a"])
    offs = _offset_vars(tr, args, ndim_of_tile, name)
    return arr, offs


def _offset_vars(tr, args, ndim, name):
    node = args.get("offset")
    if node is None:
        return [int_const(tr, 0) for _ in range(4)]
    v = tr.eval(node)
    if isinstance(v, PyValue) and isinstance(v.obj, (tuple, list)):   # a tuple from Python scope
        v = tuple(PyValue(x) for x in v.obj)
    items = list(v) if isinstance(v, tuple) else [v]
    if len(items) != ndim:
        raise tr.scope.error(f"wp.{name}(): offset= needs {ndim} entries (one per dimension), got "
                             f"{len(items)}", node)
    out = []
    for item in items:
        var = tr.to_var(item, node)
        if not sc.is_int(var.type):
            raise tr.scope.error(f"wp.{name}(): offsets must be integers, got {type_name(var.type)}", node)
        if var.literal:
            var = int_const(tr, var.constant)
        elif var.type is not sc.int32:   # saturated: an offset past 32 bits stays outside the array
            var = emit(tr, "tile_offset_i32", sc.int32, [var], differentiable=False)
        out.append(var)
    return out + [int_const(tr, 0) for _ in range(4 - ndim)]


def tile_load(tr, obj, node, kwargs):
    args = bind(tr, node, kwargs, [("a", _REQUIRED), ("shape", _REQUIRED), ("offset", None),
                                   ("storage", None), ("bounds_check", None), ("aligned", None)],
                "tile_load")
    shape = shape_arg(tr, args, name="tile_load")
    storage_arg(tr, args, "tile_load")
    arr, offs = _array_and_offset(tr, args, "tile_load", len(shape))
    t = tile_type(arr.type.dtype, shape)
    return emit(tr, "tile_load", t, [arr] + offs, f"<{t._cpp}, {len(shape)}>")


def check_atomic_dtype(tr, t, name, node):
    """Tile atomic adds take warp-lang's ``wp.atomic_add`` dtypes: a bool or 8/16-bit integer tile
    is refused (as in warp-lang: CUDA has no atomicAdd for them, so the add would be lost there)."""
    if not (is_struct(t.type.dtype) or atomic_add_scalar(t.type.dtype)):
        raise tr.scope.error(f"wp.{name}() only supports tiles of int32, int64, uint32, uint64, float16, "
                             f"bfloat16, float32 or float64 values (and vectors, matrices and structs of them), "
                             f"got {type_name(t.type.dtype)}", node)


def _store_like(cpp, returns):
    def handler(tr, obj, node, kwargs):
        name = obj.key
        args = bind(tr, node, kwargs, [("a", _REQUIRED), ("t", _REQUIRED), ("offset", None),
                                       ("bounds_check", None), ("aligned", None)], name)
        t = tile_var(tr, args, "t", name)
        arr, offs = _array_and_offset(tr, args, name, t.type.ndim)
        if type_name(arr.type.dtype) != type_name(t.type.dtype):
            raise tr.scope.error(f"wp.{name}(): a tile of {type_name(t.type.dtype)} cannot be stored "
                                 f"in an array of {type_name(arr.type.dtype)}", args["t"])
        if returns:
            check_atomic_dtype(tr, t, name, args["t"])
        ret = t.type if returns else None
        replay = "tile_atomic_add_replay" if returns else ""
        return emit(tr, cpp, ret, [arr, t] + offs, f"<{t.type.ndim}>", replay=replay)
    return handler


# --- operators: lang/tiles/arith.py; helpers it shares ---------------------------------------
def value_var_of(tr, v, dtype):
    scalar = dtype._wp_scalar_type_ if comp.is_composite(dtype) else dtype
    if v.literal:
        v = tr.retype_literal(v, scalar) or v
    if v.type is not scalar and type_name(v.type) != type_name(scalar):
        raise tr.scope.error(f"a tile of {type_name(dtype)} combines with {type_name(scalar)} values, "
                             f"got {type_name(v.type)}")
    return v


def element_indices(tr, t, idx):
    """Index Vars of one element of tile ``t``: constant ones checked (a build error when out of
    range) and counted from the end when negative; run-time ones wrapped the same way by
    ``tile_index``, which gives -1 when outside (a read gives zero, a write is dropped)."""
    if len(idx) != t.type.ndim:
        raise tr.scope.error(f"a {t.type.ndim}-d tile takes {t.type.ndim} indices, got {len(idx)}")
    out = []
    for k, (v, n) in enumerate(zip(idx, t.type.shape)):
        c = v.constant
        if isinstance(c, int) and not isinstance(c, bool):
            if not -n <= c < n:
                raise tr.scope.error(f"index {c} is out of bounds for axis {k} of the tile of shape "
                                     f"{t.type.shape} (length {n})")
            out.append(int_const(tr, c % n))
        else:
            out.append(emit(tr, "tile_index", sc.int32, [v, int_const(tr, n)], differentiable=False))
    return out


def extract(tr, t, idx):
    return emit(tr, "tile_extract", t.type.dtype, [t] + element_indices(tr, t, idx))


def assign_element(tr, t, idx, value):
    idx = element_indices(tr, t, idx)
    value = value_var_of(tr, value, t.type.dtype) if sc.is_scalar(t.type.dtype) else value
    return emit(tr, "tile_assign_elem", t.type, [t, value] + idx)


def carries_gradient(dtype):
    """Whether values of ``dtype`` carry gradients through a block-wide merge or a stack (float
    scalars, vectors, matrices...; structs and integers do not)."""
    scalar = dtype._wp_scalar_type_ if comp.is_composite(dtype) else dtype
    return sc.is_scalar(scalar) and sc.is_float(scalar)


def merge_lanes(tr, old, new, mode=0):
    """In a cooperative CPU block each lane holds its own copy of a tile: after a per-lane write
    (``t[lane] = x``, ``t[0] += x``, ``t[0] &= x``, tile_scatter_add/masked) every lane gets the
    block's tile with all lanes' writes (``mode``: 0 the last write wins, 1 (or True) their
    increments added, 2/3/4 and/or/xor-ed, as warp-lang's shared tiles do it: cpu_blocks.h). A
    block-wide operation: every lane must reach it. One lane per block: ``new`` itself."""
    if tr.block_width == 1:
        return new
    return emit(tr, "block_merge_tile", new.type, [old, new, tr.index_const(int(mode))],
                differentiable=carries_gradient(new.type.dtype))


def tile_extract(tr, obj, node, kwargs):
    if kwargs or len(node.args) < 2:
        raise tr.scope.error("wp.tile_extract(a, i, ...) takes a tile and one index per dimension")
    t = tr.eval_var(node.args[0])
    if not is_tile(t.type):
        raise tr.scope.error(f"wp.tile_extract(): expected a tile, got {type_name(t.type)}")
    return extract(tr, t, [tr.eval_index(i) for i in node.args[1:]])


# --- thread values <-> tiles ---------------------------------------------------------------------------
def tile_from_value(tr, obj, node, kwargs):
    """``tile(x)``: each lane of the block contributes x (its value at the tile's last index);
    the block is one lane wide unless the kernel was built for cooperative CPU blocks."""
    args = bind(tr, node, kwargs, [("x", _REQUIRED), ("preserve_type", None)], "tile")
    x = tr.eval_var(args["x"])
    preserve = bool(static(tr, args, "preserve_type", False))
    w = tr.block_width
    if sc.is_scalar(x.type) or (preserve and comp.is_composite(x.type)):
        t = tile_type(x.type, (w,))
        return emit(tr, "tile_from_value", t, [x], f"<{t._cpp}>")
    if comp.is_vector(x.type):
        n, s = x.type._length_, x.type._wp_scalar_type_
        t = tile_type(s, (n, w))
        return emit(tr, "tile_from_vector", t, [x], f"<{t._cpp}, {n}>")
    if comp.is_matrix(x.type):      # (rows, cols, block_dim), as warp-lang
        (r, c), s = x.type._shape_, x.type._wp_scalar_type_
        t = tile_type(s, (r, c, w))
        return emit(tr, "tile_from_matrix", t, [x], f"<{t._cpp}, {r}, {c}>")
    raise tr.scope.error(f"wp.tile(): expected a scalar, vector or matrix (or preserve_type=True for "
                         f"quaternions), got {type_name(x.type)}")


def untile(tr, obj, node, kwargs):
    if kwargs or len(node.args) != 1:
        raise tr.scope.error("wp.untile(a) takes one tile")
    t = tr.eval_var(node.args[0])
    if not is_tile(t.type):
        raise tr.scope.error(f"wp.untile(): expected a tile, got {type_name(t.type)}")
    shape, w = t.type.shape, tr.block_width
    if shape == (w,):
        return emit(tr, "untile_value", t.type.dtype, [t])
    if len(shape) == 2 and shape[1] == w and sc.is_scalar(t.type.dtype):
        v = comp.vector(shape[0], t.type.dtype)
        return emit(tr, "untile_vector", v, [t], f"<{shape[0]}, {t.type.dtype._cpp}>")
    if len(shape) == 3 and shape[2] == w and sc.is_scalar(t.type.dtype):
        m = comp.matrix(shape[:2], t.type.dtype)
        return emit(tr, "untile_matrix", m, [t], f"<{shape[0]}, {shape[1]}, {t.type.dtype._cpp}>")
    raise tr.scope.error(f"wp.untile(): the tile must have shape (block_dim,), (M, block_dim) or (M, N, "
                         f"block_dim) with a block width of {w}, got {shape}")


def tile_from_thread(tr, obj, node, kwargs):
    args = bind(tr, node, kwargs, [("shape", _REQUIRED), ("value", _REQUIRED), ("thread_idx", _REQUIRED),
                                   ("storage", None)], "tile_from_thread")
    shape = shape_arg(tr, args, name="tile_from_thread")
    storage_arg(tr, args, "tile_from_thread")
    value = tr.eval_var(args["value"])
    idx = tr.eval(args["thread_idx"])
    w = tr.block_width
    # one lane (warp-lang's CPU default): the block's only thread gives its value whatever
    # thread_idx names, as warp-lang's CPU tiles do; cooperative lanes check it
    if isinstance(idx, PyValue) and w > 1 and not 0 <= idx.obj < w:
        raise tr.scope.error(f"wp.tile_from_thread(): thread_idx {idx.obj} is outside the block (it has "
                             f"{w} lane{'s' if w > 1 else ''}: 0 to {w - 1})", args["thread_idx"])
    t = tile_type(value.type, shape)
    if w > 1:     # a cooperative CPU block: lane thread_idx's value, in every lane
        value = emit(tr, "block_broadcast", value.type, [value, tr.eval_var(args["thread_idx"])],
                     differentiable=carries_gradient(value.type))
    return emit(tr, "tile_full", t, [value], f"<{t._cpp}>")


# --- stack budget ---------------------------------------------------------------------------------------
# Tiles live on the block thread's stack (8 MB by default for the pool's threads); an adjoint
# doubles them. Past this budget a kernel would crash the process, so it is a build error instead.
TILE_STACK_BUDGET = 3 << 20


def check_stack_budget(tr, variables):
    from ...types.dtypes import type_size
    total = sum(v.type.size * type_size(v.type.dtype) for v in variables if is_tile(v.type))
    if total > TILE_STACK_BUDGET:
        biggest = max((v for v in variables if is_tile(v.type)), key=lambda v: v.type.size)
        raise tr.scope.error(
            f"the tiles of this function need {total / 2**20:.1f} MB of the block's stack (the budget is "
            f"{TILE_STACK_BUDGET >> 20} MB; the largest is {type_name(biggest.type)}): use smaller tiles",
            tr.src.tree)


HANDLERS = {
    "tile_zeros": _filled(0.0),
    "tile_ones": _filled(1.0),
    "tile_full": tile_full,
    "tile_randf": _random("f"),
    "tile_randi": _random("i"),
    "tile_load": tile_load,
    "tile_store": _store_like("tile_store", returns=False),
    "tile_atomic_add": _store_like("tile_atomic_add", returns=True),
    "tile_extract": tile_extract,
    "tile": tile_from_value,
    "untile": untile,
    "tile_from_thread": tile_from_thread,
}
INTRINSICS.update(HANDLERS)
# parts 2 and 3 (builtins_tile_ops.py, builtins_tile_linalg.py) register theirs when the
# translator imports them (lang/translation/expressions.py): they import this file, never the reverse


tile_ops.fill(is_struct=is_struct, bind_tile=bind_tile, merge_lanes=merge_lanes,
              check_stack_budget=check_stack_budget)
