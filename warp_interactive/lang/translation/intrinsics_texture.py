"""``wp.texture_sample(tex, coords, dtype=..., lod=...)`` in kernels: the texture's struct, the
coordinates as float32 scalars (a vec2f/vec3f is taken apart), the level of detail (-1, the base
level, when not given) and the result type as the C++ template argument
(native/include/warp_interactive/geometry/texture.h samples; its adjoint gives d/dcoords and d/dlod)."""

from ...types import composite as comp
from ...types import scalars as sc
from ..builtins.function import INTRINSICS
from ..builtins.registry import Overload, type_name
from .intrinsics import _const_kw

_RESULTS = {sc.float32: "wp::float32", comp.vector(2, sc.float32): "wp::vec_t<2, wp::float32>",
            comp.vector(4, sc.float32): "wp::vec_t<4, wp::float32>"}


def _float_arg(tr, v, what):
    if v.literal:
        typed = tr.retype_literal(v, sc.float32)
        if typed is not None:
            return typed
    if v.type is not sc.float32:
        raise tr.scope.error(f"wp.texture_sample(): {what} must be float32, got {type_name(v.type)}")
    return v


def _coordinates(tr, ndim, args):
    """``ndim`` float32 coordinates from (u), (uv) / (u, v) or (uvw) / (u, v, w)."""
    if len(args) == 1 and comp.is_vector(args[0].type):
        t = args[0].type
        if ndim == 1 or t._length_ != ndim or t._wp_scalar_type_ is not sc.float32:
            raise tr.scope.error(f"wp.texture_sample() of a {ndim}D texture takes "
                                 f"{'a float' if ndim == 1 else f'a vec{ndim}f or {ndim} floats'}, "
                                 f"got {type_name(t)}")
        return [tr.call_builtin("extract", [args[0], tr.index_const(i)]) for i in range(ndim)]
    if len(args) != ndim:
        raise tr.scope.error(f"wp.texture_sample() of a {ndim}D texture takes {ndim} coordinate(s)"
                             f"{'' if ndim == 1 else f' or one vec{ndim}f'}, got {len(args)} argument(s)")
    return [_float_arg(tr, a, "a coordinate") for a in args]


def texture_sample(tr, obj, node, kwargs):
    args = tr.args_of(node)
    unknown = set(kwargs) - {"dtype", "lod"}
    if unknown:
        raise tr.scope.error(f"wp.texture_sample() got unexpected keyword argument(s) {sorted(unknown)}")
    ndim = getattr(args[0].type, "_wp_texture_ndim_", None) if args else None
    if ndim is None:
        got = type_name(args[0].type) if args else "no arguments"
        raise tr.scope.error(f"wp.texture_sample() takes a texture (wp.Texture1D/2D/3D) first, got {got}")
    dtype = _const_kw(tr, kwargs, "dtype")
    dtype = sc.canonical_scalar(dtype) if dtype is not None else None
    if dtype not in _RESULTS:
        name = "nothing" if dtype is None else getattr(dtype, "__name__", repr(dtype))
        raise tr.scope.error(f"wp.texture_sample() needs dtype=: unsupported texture type `{name}`. "
                             "Supported types: float, vec2f, vec4f")
    coords = _coordinates(tr, ndim, args[1:])
    lod = tr.eval_var(kwargs["lod"]) if "lod" in kwargs else tr.scope.const(-1.0, sc.float32)
    lod = _float_arg(tr, lod, "lod")
    inputs = [args[0]] + coords + [lod]
    names = ["tex", "u", "v", "w"][:ndim + 1] + ["lod"]
    ov = Overload(name="texture_sample", input_types={n: a.type for n, a in zip(names, inputs)},
                  value_func=None, cpp="texture_sample", differentiable=True,
                  template=lambda ts, ret: f"<{_RESULTS[ret]}>")
    return tr.emit_call(ov, dtype, inputs)


INTRINSICS["texture_sample"] = texture_sample
