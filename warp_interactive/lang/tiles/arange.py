"""``wp.tile_arange(stop)``, ``(start, stop)``, ``(start, stop, step)``: NumPy's half-open range as
a static 1-d tile, with warp-lang 1.19's rules.

The tile's length is a build-time number, so the bounds are compile-time constants (literals,
``wp.constant``s, names bound to literals). Element ``i`` is ``start + i * step`` computed in the
output dtype, so the length is counted from the bounds *as that dtype holds them*: a float32 range
is sized from float32 values (``(0.0, 3.0000001, 0.99999999)`` is ``[0, 1, 2]``), an integer
range exactly (no double rounding past 2**53). Bounds the dtype cannot hold, a zero step, an empty
range and non-numeric dtypes are build errors at the call, with warp-lang's messages.
"""

import math

import numpy as np

from ...errors import CodegenTypeError, CodegenValueError
from ...types import composite as comp
from ...types import scalars as sc
from ...types.tile import tile_type
from ..builtins.function import INTRINSICS
from .core import emit, is_struct, static, storage_arg
from ..builtins.registry import type_name
from ..ir import PyValue

_INT_LIMIT = 1 << 64     # an integer bound is carried as int64/uint64: wider ones are refused


def _constant(tr, name, node):
    v = tr.eval(node)
    # a name bound to a literal (``stop = 3``) is a Var whose value is known at build time
    obj = v.obj if isinstance(v, PyValue) else getattr(v, "constant", None)
    if isinstance(obj, sc.Scalar):          # a wp.constant(wp.int32(3)) arrives as its scalar
        obj = obj.value
    if isinstance(obj, bool) or not isinstance(obj, (int, float)):
        raise tr.scope.error(f"tile_arange() arguments must be compile time constants, but {name} is not",
                             node)
    return obj


def _as_float(value, dtype):
    """``value`` rounded once to the float ``dtype`` (an integer straight from its exact value)."""
    wide = np.float64 if dtype is sc.float64 else np.float32
    x = wide(value).item() if isinstance(value, float) else float(wide(np.uint64(value) if value >= 0
                                                                        else np.int64(value)))
    if dtype is sc.float16:
        return float(np.float16(x))
    if dtype is sc.bfloat16:
        return float(sc.bfloat16_bits_to_float32(sc.float32_to_bfloat16_bits(np.float32(x))))
    return x


def _bound(tr, name, value, dtype, node):
    """The bound ``value`` as ``dtype`` holds it (a build error when it cannot)."""
    out_of_range = f"tile_arange() {name}={value} is out of range for the output type {type_name(dtype)}"
    if sc.is_int(dtype):
        if isinstance(value, float):
            if not value.is_integer():
                raise tr.scope.error(f"tile_arange() {name}={value} has a fractional part, which the integer "
                                     f"output type {type_name(dtype)} cannot represent", node,
                                     kind=CodegenValueError)
            value = int(value)
        info = np.iinfo(dtype._np_dtype)
        if not info.min <= value <= info.max:
            raise tr.scope.error(out_of_range, node, kind=CodegenValueError)
        return value
    if isinstance(value, int) and not -_INT_LIMIT < value < _INT_LIMIT:
        raise tr.scope.error(f"tile_arange() {name}={value} is too wide to use as an integer bound; write "
                             f"it as a floating-point literal to build a {type_name(dtype)} range", node,
                             kind=CodegenValueError)
    with np.errstate(over="ignore"):
        held = _as_float(value, dtype)
    if math.isfinite(float(value)) and not math.isfinite(held):
        raise tr.scope.error(out_of_range, node, kind=CodegenValueError)
    return held


def _length(tr, start, stop, step, dtype):
    if step == 0:
        raise tr.scope.error("tile_arange() step cannot be zero", kind=CodegenValueError)
    if (step > 0 and start >= stop) or (step < 0 and start <= stop):
        raise tr.scope.error(f"tile_arange() requires a non-empty range, but start={start}, stop={stop}, "
                             f"step={step} produces no elements; zero-length tile dimensions are not "
                             f"supported", kind=CodegenValueError)
    if sc.is_int(dtype):
        return -((stop - start) // -step)            # exact ceiling division
    with np.errstate(over="ignore"):
        quotient = _as_float((stop - start) / step, dtype)   # counted at the output precision
    if not math.isfinite(quotient):
        raise tr.scope.error(f"tile_arange() start={start}, stop={stop}, step={step} spans more elements "
                             f"than can be counted; the step is too small for the range",
                             kind=CodegenValueError)
    return max(1, math.ceil(quotient))     # a non-empty range holds start even when rounding says 0


def _dtype(tr, kwargs):
    if "dtype" not in kwargs:
        return sc.float32
    obj = static(tr, kwargs, "dtype", what="a type")
    t = None if is_struct(obj) or comp.is_composite(obj) else sc.canonical_scalar(obj)
    if t is None or t is sc.bool_:
        shown = obj.__name__ if isinstance(obj, type) else repr(obj)
        raise tr.scope.error(f"tile_arange() requires a numeric scalar dtype, but got {shown}", kwargs["dtype"],
                             kind=CodegenTypeError)
    return t


def tile_arange(tr, obj, node, kwargs):
    names = ("start", "stop", "step")
    unknown = [k for k in kwargs if k not in names + ("dtype", "storage")]
    if unknown:
        raise tr.scope.error(f"tile_arange() got an unexpected keyword argument '{unknown[0]}'",
                             kind=CodegenTypeError)
    positional = list(node.args)
    if len(positional) > 3:
        raise tr.scope.error(f"tile_arange() accepts at most 3 positional arguments, got {len(positional)}",
                             kind=CodegenTypeError)
    given = dict(zip(("stop",) if len(positional) == 1 else names, positional))
    for k in names:
        if k in kwargs:
            given[k] = kwargs[k]
    if "stop" not in given:
        raise tr.scope.error("tile_arange() requires at least one positional argument specifying the range",
                             kind=CodegenTypeError)
    raw = {k: _constant(tr, k, n) for k, n in given.items()}
    dtype = _dtype(tr, kwargs)
    storage_arg(tr, kwargs, "tile_arange")
    start, stop, step = (_bound(tr, k, raw.get(k, d), dtype, given.get(k)) for k, d in zip(names, (0, 0, 1)))
    n = _length(tr, start, stop, step, dtype)
    t = tile_type(dtype, (int(n),))
    cast = float if sc.is_float(dtype) else int
    return emit(tr, "tile_arange", t, [tr.scope.const(cast(start), dtype), tr.scope.const(cast(step), dtype)],
                f"<{t._cpp}>", differentiable=False)


HANDLERS = {"tile_arange": tile_arange}
INTRINSICS.update(HANDLERS)
