"""C++ spelling of types and constants."""

import math

from ..types import composite as comp
from ..types import scalars as sc
from ..types.array import array


# Python names that C++ (or the C library's macros) reserve: as struct members they get a
# trailing underscore (a kernel parameter named `do` or `new`, a struct field named `class`).
CPP_RESERVED = frozenset("""
alignas alignof and_eq asm auto bitand bitor bool case catch char char8_t char16_t char32_t class
compl concept const consteval constexpr constinit const_cast continue co_await co_return co_yield
decltype default delete do double dynamic_cast enum explicit export extern float friend goto
inline int long mutable namespace new noexcept not_eq nullptr operator or_eq private protected
public register reinterpret_cast requires short signed sizeof static static_assert static_cast
struct switch template this thread_local throw typedef typeid typename union unsigned using
virtual void volatile wchar_t xor xor_eq NULL EOF errno stdin stdout stderr INFINITY NAN
""".split())


def member(name):
    """The C++ spelling of a struct member (kernel parameter or @wp.struct field) ``name``."""
    return name + "_" if name in CPP_RESERVED else name


def cpp_type(t):
    if isinstance(t, array):
        return f"wp::array_t<{cpp_type(t.dtype)}>"
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
        return f"wp::half({text}f)"
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
