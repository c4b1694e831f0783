"""Tile builtins, part 4: tile_empty, tile_dot, tile_axpy, indexed loads/stores, tile_slice_indexed,
per-thread scatters, FFTs and the block-wide stack. See builtins_tile.py for the conventions."""

from ...types import composite as comp
from ...types import scalars as sc
from ...types.array import array
from ...types.indexedarray import is_indexed
from ...types.tile import TileStack, is_tile, tile_stack_type, tile_type
from .. import ir
from ..builtins.function import INTRINSICS, BuiltinFunction
from .core import _REQUIRED, _filled, _offset_vars, bind, carries_gradient, check_atomic_dtype, element_indices, emit, merge_lanes, rebind, shape_arg, static, storage_arg, tile_var, value_var_of
from .arith import operator
from .ops import callable_ref
from ...errors import CodegenTypeError, CodegenValueError
from ..annotations import type_key
from ..builtins.registry import Overload, type_name


def tile_dot(tr, obj, node, kwargs):
    """The sum over the tiles of the elementwise products (``dot``/``ddot`` for vector/matrix
    elements), a shape-(1,) tile; built from tile_map/tile_mul and tile_sum, so it differentiates."""
    args = bind(tr, node, kwargs, [("a", _REQUIRED), ("b", _REQUIRED)], "tile_dot")
    a, b = tile_var(tr, args, "a", "tile_dot"), tile_var(tr, args, "b", "tile_dot")
    if a.type is not b.type:
        raise tr.scope.error(f"wp.tile_dot(): the tiles differ: {type_name(a.type)} and {type_name(b.type)}")
    d = a.type.dtype
    if sc.is_scalar(d):
        prod = operator(tr, "mul", [a, b])
    else:
        key = "ddot" if comp.is_matrix(d) else "dot"
        f, ret = callable_ref(tr, BuiltinFunction(key), [d, d], "tile_dot", args["a"])
        prod = emit(tr, "tile_map", tile_type(ret, a.type.shape), [f, a, b],
                    f"<{tile_type(ret, a.type.shape)._cpp}>")
    return emit(tr, "tile_sum", tile_type(prod.type.dtype, (1,)), [prod])


def tile_axpy(tr, obj, node, kwargs):
    """``dest += alpha * src`` (dest is rebound)."""
    args = bind(tr, node, kwargs, [("alpha", _REQUIRED), ("src", _REQUIRED), ("dest", _REQUIRED)], "tile_axpy")
    src, dest = tile_var(tr, args, "src", "tile_axpy"), tile_var(tr, args, "dest", "tile_axpy")
    if src.type is not dest.type:
        raise tr.scope.error(f"wp.tile_axpy(): src and dest differ: {type_name(src.type)} and {type_name(dest.type)}")
    alpha = value_var_of(tr, tr.eval_var(args["alpha"]), src.type.dtype)
    scaled = emit(tr, "tile_mul_scalar", src.type, [src, alpha])
    rebind(tr, args["dest"], emit(tr, "tile_add", dest.type, [dest, scaled]), "tile_axpy", "dest", additive=True)


# --- indexed memory ----------------------------------------------------------------------------------
def _indices(tr, args, name):
    ix = tile_var(tr, args, "indices", name)
    if ix.type.ndim != 1 or not sc.is_int(ix.type.dtype):
        raise tr.scope.error(f"wp.{name}(): indices must be a 1-d tile of integers, got {type_name(ix.type)}")
    return ix


def _axis(tr, args, ndim, name):
    axis = static(tr, args, "axis", 0)
    if not isinstance(axis, int) or not 0 <= axis < ndim:
        raise tr.scope.error(f"wp.{name}(): axis must be a compile-time int in [0, {ndim}), got {axis!r}")
    return axis


def _array(tr, args, ndim, name):
    arr = tr.eval_var(args["a"])
    if not isinstance(arr.type, array) or arr.type.ndim != ndim or is_indexed(arr.type):
        raise tr.scope.error(f"wp.{name}(): needs a {ndim}-d array, got {type_name(arr.type)}", args["a"])
    return arr


def tile_load_indexed(tr, obj, node, kwargs):
    args = bind(tr, node, kwargs, [("a", _REQUIRED), ("indices", _REQUIRED), ("shape", _REQUIRED),
                                   ("offset", None), ("axis", None), ("storage", None)], "tile_load_indexed")
    shape = shape_arg(tr, args, name="tile_load_indexed")
    storage_arg(tr, args, "tile_load_indexed")
    arr, ix = _array(tr, args, len(shape), "tile_load_indexed"), _indices(tr, args, "tile_load_indexed")
    axis = _axis(tr, args, len(shape), "tile_load_indexed")
    if ix.type.shape[0] != shape[axis]:
        raise tr.scope.error(f"wp.tile_load_indexed(): {ix.type.shape[0]} indices for an axis of length "
                             f"{shape[axis]}")
    offs = _offset_vars(tr, args, len(shape), "tile_load_indexed")
    t = tile_type(arr.type.dtype, shape)
    return emit(tr, "tile_load_indexed", t, [arr, ix] + offs, f"<{t._cpp}, {len(shape)}, {axis}>")


def _store_indexed(returns):
    def handler(tr, obj, node, kwargs):
        name = obj.key
        args = bind(tr, node, kwargs, [("a", _REQUIRED), ("indices", _REQUIRED), ("t", _REQUIRED),
                                       ("offset", None), ("axis", None)], name)
        t = tile_var(tr, args, "t", name)
        arr, ix = _array(tr, args, t.type.ndim, name), _indices(tr, args, name)
        axis = _axis(tr, args, t.type.ndim, name)
        if type_name(arr.type.dtype) != type_name(t.type.dtype) or ix.type.shape[0] != t.type.shape[axis]:
            raise tr.scope.error(f"wp.{name}(): the tile ({type_name(t.type)}) must match the array's dtype "
                                 f"and have {ix.type.shape[0]} elements along axis {axis}")
        if returns:
            check_atomic_dtype(tr, t, name, args["t"])
        offs = _offset_vars(tr, args, t.type.ndim, name)
        return emit(tr, name, t.type if returns else None, [arr, ix, t] + offs, f"<{t.type.ndim}, {axis}>",
                    replay="tile_atomic_add_indexed_replay" if returns else "")
    return handler


def tile_slice_indexed(tr, obj, node, kwargs):
    """``t[indices, ...]``: the rows (axis 0) ``indices`` picks, negative ones from the end (the
    subscript form ``t[:, indices]`` gathers along any axis: builtins_tile_index.py)."""
    args = bind(tr, node, kwargs, [("t", _REQUIRED), ("indices", _REQUIRED)], "tile_slice_indexed")
    t = tile_var(tr, args, "t", "tile_slice_indexed")
    value = tr.eval(args["indices"])
    ix = value[0] if isinstance(value, tuple) and len(value) == 1 else value
    if not isinstance(ix, ir.Var) or not is_tile(ix.type) or ix.type.ndim != 1 or not sc.is_int(ix.type.dtype):
        raise tr.scope.error("wp.tile_slice_indexed(): indices must be a 1-d tile of integers (or a tuple "
                             "holding one) selecting along axis 0", args["indices"])
    row = t.type.size // t.type.shape[0]
    out = tile_type(t.type.dtype, (ix.type.shape[0],) + t.type.shape[1:])
    # (outer, n, inner) = (1, rows, row size): t[idx, :] and t[:, idx] share the C++ (tile/gather_fft_stack.h)
    return emit(tr, "tile_slice_indexed", out, [t, ix], f"<{out._cpp}, 1, {t.type.shape[0]}, {row}>")


def _scatter(cpp):
    def handler(tr, obj, node, kwargs):
        if len(node.args) < 4 or kwargs.keys() - {"atomic"}:
            raise tr.scope.error(f"wp.{cpp}(a, i, ..., value, has_value) takes a tile, one index per "
                                 f"dimension, a value and has_value")
        t = tr.eval_var(node.args[0])
        if not is_tile(t.type) or len(node.args) != t.type.ndim + 3:
            raise tr.scope.error(f"wp.{cpp}(): expected a tile and {getattr(t.type, 'ndim', 1)} indices")
        idx = element_indices(tr, t, [tr.eval_index(i) for i in node.args[1:-2]])
        value = value_var_of(tr, tr.eval_var(node.args[-2]), t.type.dtype) \
            if sc.is_scalar(t.type.dtype) else tr.eval_var(node.args[-2])
        has = tr.as_bool(tr.eval_var(node.args[-1]))
        # differentiable in one-lane blocks (a struct dtype has no adjoint arithmetic)
        diff = sc.is_float(t.type.dtype) or comp.is_composite(t.type.dtype)
        new = emit(tr, cpp, t.type, [t, value, has] + idx, differentiable=diff)
        new = merge_lanes(tr, t, new, mode=int(cpp == "tile_scatter_add"))    # every lane's value (blocks)
        rebind(tr, node.args[0], new, cpp, "the tile")
    return handler


def _fft(cpp):
    def handler(tr, obj, node, kwargs):
        args = bind(tr, node, kwargs, [("inout", _REQUIRED)], cpp)
        t = tile_var(tr, args, "inout", cpp)
        d = t.type.dtype
        if t.type.ndim < 2 or not (comp.is_vector(d) and d._length_ == 2 and d._wp_scalar_type_ in
                                   (sc.float32, sc.float64)):
            raise tr.scope.error(f"wp.{cpp}(): needs a tile of vec2f/vec2d (complex numbers) with at least "
                                 f"two dimensions, got {type_name(t.type)}")
        new = emit(tr, cpp, t.type, [t], f"<{t.type.shape[-1]}>")
        rebind(tr, args["inout"], new, cpp, "inout")
    return handler


# --- the block-wide stack --------------------------------------------------------------------------------
def tile_stack(tr, obj, node, kwargs):
    args = bind(tr, node, kwargs, [("capacity", _REQUIRED), ("dtype", _REQUIRED)], "tile_stack")
    cap = static(tr, args, "capacity")
    value = getattr(cap, "value", cap)
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:     # warp-lang's words
        raise tr.scope.error(f"tile_stack() requires capacity to be a positive integer, got {value!r}",
                             args["capacity"], kind=CodegenValueError)
    dtype = static(tr, args, "dtype", what="a type")
    try:
        t = tile_stack_type(dtype, cap)
    except (TypeError, ValueError) as e:
        raise tr.scope.error(f"wp.tile_stack(): capacity must be a positive int and dtype a type, both "
                             f"known at build time ({e})") from None
    out = tr.scope.new_var(t)
    tr.scope.emit(ir.Const(out=out, value=None))   # count 0 (declared zero)
    return out


def _stack_arg(tr, node, name):
    s = tr.eval_var(node)
    if not isinstance(s.type, TileStack):
        raise tr.scope.error(f"wp.{name}(): expected a tile stack, got {type_name(s.type)}", node)
    return s


def _multi(tr, cpp, args, outs, differentiable=False):
    # (writes: the body emits the adjoint of a call with several outputs only for out-parameter calls)
    ov = Overload(name=cpp, input_types={f"a{i}": a.type for i, a in enumerate(args)}, value_func=None,
                  cpp=cpp, differentiable=differentiable, writes=(0,) if differentiable else ())
    tr.scope.emit(ir.Call(out=outs, func=ov, args=args))


def tile_stack_push(tr, obj, node, kwargs):
    args = bind(tr, node, kwargs, [("s", _REQUIRED), ("value", _REQUIRED), ("has_value", _REQUIRED)],
                "tile_stack_push")
    s = _stack_arg(tr, args["s"], "tile_stack_push")
    value = tr.eval_var(args["value"])
    if value.literal:
        value = tr.retype_literal(value, s.type.dtype) or value
    if type_key(value.type) != type_key(s.type.dtype):     # (C++ would convert it silently)
        raise tr.scope.error(f"tile_stack_push() value type {type_name(value.type)} does not match stack "
                             f"dtype {type_name(s.type.dtype)}", args["value"], kind=CodegenTypeError)
    has = tr.as_bool(tr.eval_var(args["has_value"]))
    slot, new = tr.scope.new_var(sc.int32), tr.scope.new_var(s.type)
    _multi(tr, "tile_stack_push", [s, value, has], [slot, new], carries_gradient(s.type.dtype))
    rebind(tr, args["s"], new, "tile_stack_push", "s")
    return slot


def tile_stack_pop(tr, obj, node, kwargs):
    args = bind(tr, node, kwargs, [("s", _REQUIRED)], "tile_stack_pop")
    s = _stack_arg(tr, args["s"], "tile_stack_pop")
    value, slot, new = tr.scope.new_var(s.type.dtype), tr.scope.new_var(sc.int32), tr.scope.new_var(s.type)
    _multi(tr, "tile_stack_pop", [s], [value, slot, new], carries_gradient(s.type.dtype))
    rebind(tr, args["s"], new, "tile_stack_pop", "s")
    return value, slot


def tile_stack_count(tr, obj, node, kwargs):
    args = bind(tr, node, kwargs, [("s", _REQUIRED)], "tile_stack_count")
    return emit(tr, "tile_stack_count", sc.int32, [_stack_arg(tr, args["s"], "tile_stack_count")],
                differentiable=False)


def tile_stack_clear(tr, obj, node, kwargs):
    args = bind(tr, node, kwargs, [("s", _REQUIRED)], "tile_stack_clear")
    s = _stack_arg(tr, args["s"], "tile_stack_clear")
    rebind(tr, args["s"], emit(tr, "tile_stack_clear", s.type, [s], differentiable=False),
           "tile_stack_clear", "s")


# --- block-parallel BVH and mesh queries ---------------------------------------------------------------
class TileQuery:
    """``BvhQueryTiled`` / ``MeshQueryAABBTiled``: a query advanced one result per step."""

    def __init__(self, name):
        self.__name__, self._cpp = name, "wp::tile_bvh_query_t"


BVH_QUERY, MESH_QUERY = TileQuery("BvhQueryTiled"), TileQuery("MeshQueryAABBTiled")
_VEC3 = comp.vector(3, sc.float32)


def _query(cpp, qtype):
    def handler(tr, obj, node, kwargs):
        if kwargs or len(node.args) != 3:
            raise tr.scope.error(f"wp.{obj.key}(id, a, b) takes a uint64 id and two vec3")
        args = [tr.eval_var(node.args[0])] + [tr.eval_var(a) for a in node.args[1:]]
        if args[0].literal:
            args[0] = tr.retype_literal(args[0], sc.uint64)
        if args[0].type is not sc.uint64 or any(a.type is not _VEC3 for a in args[1:]):
            raise tr.scope.error(f"wp.{obj.key}(): expected (uint64, vec3, vec3), got "
                                 f"({', '.join(type_name(a.type) for a in args)})")
        return emit(tr, cpp, qtype, args, differentiable=False)
    return handler


def _query_next(qtype):
    def handler(tr, obj, node, kwargs):
        name = obj.key
        args = bind(tr, node, kwargs, [("query", _REQUIRED)], name)
        q = tr.eval_var(args["query"])
        if q.type is not qtype:
            raise tr.scope.error(f"wp.{name}(): expected a {qtype.__name__}, got {type_name(q.type)}")
        out, new = tr.scope.new_var(tile_type(sc.int32, (1,))), tr.scope.new_var(q.type)
        _multi(tr, "tile_query_next", [q], [out, new])
        rebind(tr, args["query"], new, name, "query")
        return out
    return handler


def tile_query_valid(tr, obj, node, kwargs):
    args = bind(tr, node, kwargs, [("query", _REQUIRED)], "tile_query_valid")
    q = tr.eval_var(args["query"])
    if not isinstance(q.type, TileQuery):
        raise tr.scope.error(f"wp.tile_query_valid(): expected a tiled BVH or mesh query, got {type_name(q.type)}")
    return emit(tr, "tile_query_valid", sc.bool_, [q], differentiable=False)


HANDLERS = {
    "tile_bvh_query_aabb": _query("tile_bvh_query_aabb", BVH_QUERY),
    "tile_bvh_query_ray": _query("tile_bvh_query_ray", BVH_QUERY),
    "tile_bvh_query_next": _query_next(BVH_QUERY),
    "tile_mesh_query_aabb": _query("tile_mesh_query_aabb", MESH_QUERY),
    "tile_mesh_query_aabb_next": _query_next(MESH_QUERY),
    "tile_query_valid": tile_query_valid,
    # the reference's deprecated aliases (1.18): the same queries under their older names
    "bvh_query_aabb_tiled": _query("tile_bvh_query_aabb", BVH_QUERY),
    "bvh_query_ray_tiled": _query("tile_bvh_query_ray", BVH_QUERY),
    "bvh_query_next_tiled": _query_next(BVH_QUERY),
    "mesh_query_aabb_tiled": _query("tile_mesh_query_aabb", MESH_QUERY),
    "mesh_query_aabb_next_tiled": _query_next(MESH_QUERY),
    "tile_empty": _filled(0.0),   # contents undefined in the reference; zero here
    "tile_dot": tile_dot,
    "tile_axpy": tile_axpy,
    "tile_load_indexed": tile_load_indexed,
    "tile_store_indexed": _store_indexed(False),
    "tile_atomic_add_indexed": _store_indexed(True),
    "tile_slice_indexed": tile_slice_indexed,
    "tile_scatter_add": _scatter("tile_scatter_add"),
    "tile_scatter_masked": _scatter("tile_scatter_masked"),
    "tile_fft": _fft("tile_fft"),
    "tile_ifft": _fft("tile_ifft"),
    "tile_stack": tile_stack,
    "tile_stack_push": tile_stack_push,
    "tile_stack_pop": tile_stack_pop,
    "tile_stack_count": tile_stack_count,
    "tile_stack_clear": tile_stack_clear,
}
INTRINSICS.update(HANDLERS)
