"""Generic kernels and functions: which annotations are generic, which concrete types fill them,
and the concrete type of a launch argument (to specialise a generic kernel at launch).

``typing.Any`` stands for any type; ``wp.array(dtype=Any)`` for an array of any element type
(its ``ndim`` still counts); ``wp.types.vector(length=Any, dtype=float)`` and friends for any
composite agreeing with them where they are not ``Any``."""

import builtins as py_builtins

import numpy as np

from ...types import composite as comp
from ...types import scalars as sc
from ...types.array import array
from ...types.indexedarray import is_indexed
from ...types.generic import Any, GenericComposite, admits, is_any, open_name  # noqa: F401
from ..builtins.registry import type_name


def is_generic(t):
    if is_any(t) or isinstance(t, GenericComposite):
        return True
    return isinstance(t, array) and t.shape is None and is_generic(t.dtype)


def fits(annotation, t):
    """True when the concrete type ``t`` can fill the (possibly generic) ``annotation``."""
    if is_any(annotation):
        return admits(annotation, t)
    if isinstance(annotation, GenericComposite):
        return annotation.matches(t)
    if isinstance(annotation, array):
        return isinstance(t, array) and t.ndim == annotation.ndim and fits(annotation.dtype, t.dtype) \
            and is_indexed(t) == is_indexed(annotation)
    from ..annotations import type_key
    return type_key(annotation) == type_key(t)


def describe(annotation):
    if is_any(annotation):
        return open_name(annotation)
    if isinstance(annotation, array) and is_generic(annotation.dtype):
        return f"{'indexedarray' if is_indexed(annotation) else 'array'}(dtype={describe(annotation.dtype)}, ndim={annotation.ndim})"
    return repr(annotation) if isinstance(annotation, GenericComposite) else type_name(annotation)


def type_of_value(value):
    """The kernel type a launch argument value has, or None if it cannot be told."""
    if isinstance(value, array):
        return type(value)(dtype=value.dtype, ndim=value.ndim)
    if isinstance(value, py_builtins.bool) or isinstance(value, np.bool_):
        return sc.bool_
    if isinstance(value, int):
        return sc.int32
    if isinstance(value, float):
        return sc.float32
    if isinstance(value, np.generic):
        return sc.dtype_from_numpy(value.dtype)
    t = type(value)
    if sc.is_scalar(t) or comp.is_composite(t) or getattr(t, "_wp_struct_", None) is not None:
        return t
    for k in ("_wp_native_type_",):       # geometry handles declare the type they pass as
        if hasattr(value, k):
            return getattr(value, k)
    return None


def specialise(name, annotations, values, what="kernel"):
    """Concrete parameter types for a generic kernel from its launch arguments; raises a
    TypeError naming the kernel, the argument, what the signature asks and what was given."""
    if len(values) != len(annotations):
        raise TypeError(f"{what} {name} takes {len(annotations)} arguments, got {len(values)}")
    out = {}
    for (arg, ann), value in zip(annotations.items(), values):
        if not is_generic(ann):
            out[arg] = ann
            continue
        t = type_of_value(value)
        if t is None or not fits(ann, t):
            given = type_name(t) if t is not None else type(value).__name__
            raise TypeError(f"{what} {name}: argument '{arg}' is declared {describe(ann)}, "
                            f"which a value of type {given} cannot fill")
        out[arg] = t
    return out


def check_overload(name, annotations, types, what="kernel"):
    """Concrete types given to ``wp.overload`` (a list or a dict by name) checked against the
    generic signature; returns them as a dict."""
    if isinstance(types, dict):
        unknown = set(types) - set(annotations)
        if unknown:
            raise TypeError(f"wp.overload({name}): no parameter named {', '.join(sorted(unknown))}")
        types = [types.get(arg, ann) for arg, ann in annotations.items()]
    types = list(types)
    if len(types) != len(annotations):
        raise TypeError(f"wp.overload({name}): {what} takes {len(annotations)} arguments, "
                        f"{len(types)} types were given")
    from ..annotations import canonical_type
    out = {}
    for (arg, ann), t in zip(annotations.items(), types):
        t = canonical_type(t)
        if is_generic(t):
            raise TypeError(f"wp.overload({name}): argument '{arg}' needs a concrete type, got "
                            f"{describe(t)}")
        if not fits(ann, t):
            raise TypeError(f"wp.overload({name}): argument '{arg}' is declared {describe(ann)}, "
                            f"which {type_name(t)} cannot fill")
        out[arg] = t
    return out
