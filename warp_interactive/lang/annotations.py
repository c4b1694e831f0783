"""What a parameter annotation means: its canonical type, whether it is concrete, its key.
(Apart from func.py so that the build checks, lang/translation/checks.py, use them without importing it.)"""

import hashlib

from ..errors import CodegenError
from ..types.annotation_text import resolve_annotation
from ..types import composite as comp
from ..types import scalars as sc
from ..types.array import array
from ..types.fixedarray import fixedarray
from ..types.indexedarray import is_indexed
from ..types.reference import Reference
from ..types.tuple_type import TupleType, tuple_annotation


def canonical_type(t):
    """Normalise an annotation: Python scalars -> wp scalars, ``array`` annotations as is."""
    t = sc.canonical_scalar(t)
    if t is array:
        return array(dtype=sc.float32)
    tup = tuple_annotation(t, canonical_type)     # tuple[vec3, float], tuple[int, ...]
    return t if tup is None else tup


def type_key(t):
    if isinstance(t, fixedarray):
        return ("fixedarray", type_key(t.dtype), t.fixed_shape)
    if isinstance(t, array):
        return ("indexedarray" if is_indexed(t) else "array", type_key(t.dtype), t.ndim)
    if hasattr(t, "_wp_struct_"):
        return ("struct", t._wp_struct_.cpp_name)
    return getattr(t, "_cpp", None) or getattr(t, "__name__", repr(t))


def is_concrete(t):
    if isinstance(t, array):     # wp.array(dtype=Any) is generic (lang/definitions/generics.py)
        return is_concrete(t.dtype)
    if isinstance(t, TupleType):
        return all(is_concrete(x) for x in t.types)
    return (sc.is_scalar(t) or comp.is_composite(t) or hasattr(t, "_wp_struct_")
            or hasattr(t, "_wp_native_fields_"))   # geometry query types


def ref_param_names(func):
    """The parameters of ``func`` annotated ``wp.ref[T]``."""
    return frozenset(n for n, t in getattr(func, "__annotations__", {}).items() if isinstance(t, Reference))


def annotations_of(func, src, kind):
    """Parameter name -> canonical type, in declaration order (None where unannotated)."""
    ann = getattr(func, "__annotations__", {})
    out = {}
    what = "kernel" if kind == "kernel" else "@wp.func"
    for a in src.tree.args.kwonlyargs[:1]:
        raise _param_error(src, a, f"{what} parameter '{a.arg}' is keyword-only (it follows '*'): "
                                   f"{what} parameters are positional (wp.launch passes inputs in "
                                   "order); remove the '*'")
    for a in src.tree.args.args:
        t = ann.get(a.arg)
        if isinstance(t, str):      # from __future__ import annotations: evaluated where defined
            t = resolve_annotation(t, func.__globals__, src.closure, f" of parameter '{a.arg}' of {src.name}")
        if t is None and kind == "kernel":
            raise _param_error(src, a, f"kernel parameter '{a.arg}' needs a type annotation")
        if isinstance(t, Reference):     # wp.ref[T]: a T passed in and back out (FuncOverload.ref_params)
            if kind == "kernel":
                raise _param_error(src, a, f"kernel parameter '{a.arg}' is a wp.ref[T]: kernels cannot "
                                           "take references; pass addressable values to a @wp.func instead")
            t = t.value_type
        try:
            out[a.arg] = canonical_type(t) if t is not None else None
        except TypeError:       # a list, a dict...: nothing a type could be
            raise _param_error(src, a, not_a_type(what, a.arg, t)) from None
    return out


def _param_error(src, a, msg):
    return CodegenError(msg, src.filename, src.first_line + a.lineno - 1, a.col_offset,
                        src.lines[a.lineno - 1], src.name)


def not_a_type(what, name, t):
    """The message for a parameter annotated with something that is not a Warp type."""
    hint = ""
    try:
        import numpy as np
        if isinstance(t, type) and issubclass(t, np.generic):     # np.float32 -> wp.float32
            hint = f" (for {t.__module__}.{t.__name__} write wp.{np.dtype(t).name})"
    except TypeError:
        pass
    return (f"{what} parameter '{name}' is annotated {t!r}, which is not a Warp type{hint}: annotate "
            "it with a Warp type such as float, int, wp.float64, wp.vec3, wp.mat33, "
            "wp.array(dtype=float) or a @wp.struct class")


def _hash(*parts):
    h = hashlib.sha256()
    for p in parts:
        h.update(repr(p).encode())
        h.update(b"\0")
    return h.hexdigest()[:8]
