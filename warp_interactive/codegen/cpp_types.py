"""C++ spelling of types and constants."""

import math

from ..types import composite as comp
from ..types import scalars as sc
from ..types.array import array
from ..types.fixedarray import fixedarray
from ..types.indexedarray import is_indexed


# Every user name that becomes a C++ member (a kernel parameter in the argument struct, a
# @wp.struct field) is spelled with this prefix, so no Python name can collide with a C++
# keyword (`do`, `new`, `true`), a predefined macro (`__LINE__`, `linux`, `unix`, `__x86_64__`)
# or one of the package's own macros (`WPI_...`). Local variables and parameters are already
# `var_<id>`/`var_<name>`, functions and structs `<name>_<hash>`.
MEMBER_PREFIX = "u_"


def member(name):
    """The C++ spelling of a struct member (kernel parameter or @wp.struct field) ``name``."""
    return MEMBER_PREFIX + name


def field(t, name):
    """The C++ member for field ``name`` of a value of type ``t``: user structs' members carry
    the prefix, the native headers' structs (geometry query results) keep their own names."""
    return member(name) if hasattr(t, "_wp_struct_") else name


def cpp_type(t):
    if isinstance(t, fixedarray):
        return f"wp::fixedarray_t<{t.size}, {cpp_type(t.dtype)}>"
    if isinstance(t, array):
        kind = "indexedarray_t" if is_indexed(t) else "array_t"
        return f"wp::{kind}<{cpp_type(t.dtype)}>"
    cpp = getattr(t, "_cpp", None)
    if cpp is None:
        raise TypeError(f"type {t!r} has no C++ equivalent")
    return cpp


def scalar_literal(value, t):
    if t is sc.bool_:
        return "true" if value else "false"
    if sc.is_float(t):
        v = float(value)
        if math.isinf(v):
            text = "INFINITY" if v > 0 else "-INFINITY"
            return f"{t._cpp}({text})"
        if math.isnan(v):
            return f"{t._cpp}(NAN)"
        text = repr(v)
        if t is sc.float32:
            return f"{text}f"
        if t is sc.float64:
            return text
        return f"{t._cpp}({text}f)"   # half, bfloat16: from a float
    suffix = {8: "ll"}.get(t.size, "")
    if t._kind == "uint":
        suffix = "u" + suffix
    return f"{t._cpp}({int(value)}{suffix})"


def literal(value, t):
    """A C++ expression for constant ``value`` of type ``t`` (None = default-constructed)."""
    if value is None:
        return f"{cpp_type(t)}{{}}"
    if sc.is_scalar(t):
        return scalar_literal(value, t)
    if comp.is_composite(t):
        s = t._wp_scalar_type_
        parts = ", ".join(scalar_literal(v, s) for v in value)
        if t._kind_ == "transform":
            p = ", ".join(scalar_literal(v, s) for v in value[:3])
            q = ", ".join(scalar_literal(v, s) for v in value[3:])
            return f"{cpp_type(t)}(wp::vec_t<3, {s._cpp}>({p}), wp::quat_t<{s._cpp}>({q}))"
        return f"{cpp_type(t)}({parts})"
    raise TypeError(f"cannot write a constant of type {t!r}")


def c_string(text):
    out = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
    return f'"{out}"'
