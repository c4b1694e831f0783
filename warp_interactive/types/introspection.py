"""``wp.types``' introspection helpers, with the reference's names and meanings:
``type_size`` counts scalar components, ``type_size_in_bytes`` counts bytes, ``type_repr`` names
a type as the reference prints it (``vec3f``, ``array(ndim=1, dtype=float32)``)."""

import typing

from . import composite as comp
from . import scalars as sc
from .array import array
from .dtypes import type_size as _bytes
from .generic import GenericComposite

_SHORT = {"float16": "h", "bfloat16": "bf", "float32": "f", "float64": "d", "int8": "b", "uint8": "ub",
          "int16": "s", "uint16": "us", "int32": "i", "uint32": "ui", "int64": "l", "uint64": "ul"}


def _t(t):
    return sc.canonical_scalar(t)


def type_is_scalar(t):
    return sc.is_scalar(_t(t)) and _t(t) is not sc.bool_


def type_is_int(t):
    return sc.is_int(_t(t))


def type_is_float(t):
    return sc.is_float(_t(t))


def type_is_vector(t):
    return comp.is_composite(t) and t._kind_ == "vector"


def type_is_matrix(t):
    return comp.is_composite(t) and t._kind_ == "matrix"


def type_is_quaternion(t):
    return comp.is_composite(t) and t._kind_ == "quaternion"


def type_is_transformation(t):
    return comp.is_composite(t) and t._kind_ == "transform"


def type_is_composite(t):
    return comp.is_composite(t)


def type_is_struct(t):
    return getattr(t, "_wp_struct_", None) is not None


def type_is_array(t):
    return isinstance(t, array)


def type_is_tile(t):
    return False


def type_is_value(t):
    return _t(t) in (sc.bool_,) or sc.is_scalar(_t(t)) or comp.is_composite(t)


def _of(pred):
    return lambda x: pred(type(x)) if not isinstance(x, type) else pred(x)


is_scalar, is_int, is_float = _of(type_is_scalar), _of(type_is_int), _of(type_is_float)
is_vector, is_matrix = _of(type_is_vector), _of(type_is_matrix)
is_quaternion, is_transformation = _of(type_is_quaternion), _of(type_is_transformation)
is_composite, is_struct = _of(type_is_composite), _of(type_is_struct)
is_value = _of(type_is_value)


def is_array(x):
    return isinstance(x, array)


def is_tile(x):
    return False


def type_length(t):
    """Components along the first axis: 3 for vec3, 3 for mat33 (its rows), 1 for scalars."""
    t = _t(t)
    if comp.is_composite(t):
        return t._shape_[0]
    return 1


def type_size(t):
    """Scalar components in one element: 1 for scalars, 9 for mat33 (the reference's meaning)."""
    t = _t(t)
    if comp.is_composite(t):
        return t._length_
    return 1


def type_size_in_bytes(t):
    return _bytes(t)


def type_ctype(t):
    t = _t(t)
    return t._ctype if sc.is_scalar(t) else t


def type_repr(t):
    """The reference's name for a type (vec3f, mat22d, transformh, array(ndim=2, dtype=...))."""
    if t is typing.Any:
        return "Any"
    t = _t(t)
    if isinstance(t, array):
        kind = "indexedarray" if t._is_indexed else "array"
        if t.shape is None:
            return f"{kind}(ndim={t.ndim}, dtype={type_repr(t.dtype)})"
        return f"{kind}(shape={t.shape}, dtype={type_repr(t.dtype)})"
    if isinstance(t, GenericComposite):
        return repr(t)
    if comp.is_composite(t):
        return _composite_repr(t)
    if type_is_struct(t):
        return t.__name__
    return getattr(t, "__name__", repr(t))


def _composite_repr(t):
    s = t._wp_scalar_type_
    sn = _SHORT.get(s.__name__)
    shape = t._shape_
    if t._kind_ == "transform":
        return f"transform{sn}" if sn else f"transform(dtype={type_repr(s)})"
    if t._kind_ == "quaternion":
        return f"quat{sn}" if sn else f"quat(dtype={type_repr(s)})"
    if t._kind_ == "vector":
        return f"vec{shape[0]}{sn}" if sn and shape[0] <= 4 else \
            f"vector(length={shape[0]}, dtype={type_repr(s)})"
    return f"mat{shape[0]}{shape[1]}{sn}" if sn and max(shape) <= 4 else \
        f"matrix(shape=({shape[0]}, {shape[1]}), dtype={type_repr(s)})"


def types_equal(a, b, match_generic=False):
    """True if ``a`` and ``b`` are the same kernel type (Python's float/int mean float32/int32;
    arrays compare dtype and ndim); with ``match_generic``, ``Any`` matches anything."""
    a, b = _t(a), _t(b)
    if a is b:
        return True
    if match_generic and (a is typing.Any or b is typing.Any):
        return True
    if isinstance(a, array) and isinstance(b, array):
        return a.ndim == b.ndim and a._is_indexed == b._is_indexed and \
            types_equal(a.dtype, b.dtype, match_generic)
    if isinstance(a, GenericComposite) or isinstance(b, GenericComposite):
        if not match_generic:
            return a == b
        g, c = (a, b) if isinstance(a, GenericComposite) else (b, a)
        return g == c or (comp.is_composite(c) and g.matches(c))
    if comp.is_composite(a) and comp.is_composite(b):
        return a._kind_ == b._kind_ and a._shape_ == b._shape_ and \
            a._wp_scalar_type_ is b._wp_scalar_type_
    return False


__all__ = [n for n in dict(globals()) if n.startswith(("type_is_", "is_", "type_"))] + ["types_equal"]
