"""Utility builtins: select / where, len."""

from ...types import scalars as sc
from ...types.array import array
from ...errors import TypeMismatch
from .registry import Any, Array, Float, Index, Int, Matrix, Pattern, Scalar, Vector, Quaternion, Transformation, add_builtin, type_name

G_UTIL = "Utility"

# a condition: a bool, any integer (nonzero = true), or an array (non-null = true)
Condition = Pattern("Condition", lambda t: t is sc.bool_ or sc.is_int(t) or isinstance(t, array),
                    share=False)


def _same_value_type(ts):
    a, b = ts[1], ts[2]
    if a is not b and getattr(a, "_cpp", 1) != getattr(b, "_cpp", 2):
        raise TypeMismatch(f"both values must have one type, got {type_name(a)} and {type_name(b)}")
    if isinstance(a, array):
        raise TypeMismatch("cannot select between arrays")
    return a


add_builtin("select", {"cond": Condition, "value_if_false": Any, "value_if_true": Any},
            value_func=_same_value_type, group=G_UTIL, same_scalar=False,
            doc="`value_if_false` if `cond` is false (zero, null), else `value_if_true`.")
add_builtin("where", {"cond": Condition, "value_if_true": Any, "value_if_false": Any},
            value_func=_same_value_type, group=G_UTIL, same_scalar=False,
            doc="`value_if_true` if `cond` is true (nonzero, non-null), else `value_if_false`.")

for _pat, _doc in ((Quaternion, "4 for a quaternion."), (Matrix, "The number of rows of a matrix."),
                   (Transformation, "7 for a transform.")):
    add_builtin("len", {"a": _pat}, value_type=sc.int32, group=G_UTIL, differentiable=False, doc=_doc)


def _lower_bound_rule(ts):
    a, v = ts[0], ts[-1]
    if a.ndim != 1 or a.dtype is not v:
        raise TypeMismatch(f"needs a 1D array of {type_name(v)}, got {type_name(a)}")
    return sc.int32


add_builtin("lower_bound", {"arr": Array, "value": Scalar}, value_func=_lower_bound_rule, group=G_UTIL,
            differentiable=False, doc="The first index `i` with `arr[i] >= value` in a sorted 1D array "
                                      "(the last index if none: the closest element, as warp-lang).")
add_builtin("lower_bound", {"arr": Array, "arr_begin": Index, "arr_end": Index, "value": Scalar},
            value_func=_lower_bound_rule, group=G_UTIL, differentiable=False,
            doc="The first index `i` in `[arr_begin, arr_end)` with `arr[i] >= value` (`arr_end - 1` if "
                "none, `arr_begin` for an empty range, as warp-lang).")


def _same_types(ts):
    if ts[0] is not ts[1] and getattr(ts[0], "_cpp", 1) != getattr(ts[1], "_cpp", 2):
        raise TypeMismatch(f"both values must have one type, got {type_name(ts[0])} and {type_name(ts[1])}; "
                           "Can't test equality for objects with different types")   # warp-lang's words
    if not (sc.is_scalar(ts[0]) or hasattr(ts[0], "_wp_scalar_type_")):
        raise TypeMismatch(f"needs numbers, vectors or matrices, got {type_name(ts[0])}")
    return None


for _name, _doc in (("expect_eq", "Prints `expect_eq failed: a vs b` when `a != b`."),
                    ("expect_neq", "Prints `expect_neq failed: a vs b` when `a == b`.")):
    add_builtin(_name, {"a": Any, "b": Any}, value_func=_same_types, group=G_UTIL,
                differentiable=False, doc=_doc)
for _pat in (Float, Vector, Quaternion, Matrix):
    add_builtin("expect_near", {"a": _pat, "b": _pat, "tolerance": Float}, value_func=_same_types,
                group=G_UTIL, differentiable=False,
                doc="Prints `expect_near failed: a vs b` when a component differs by more than "
                    "`tolerance`.")
    add_builtin("expect_near", {"a": _pat, "b": _pat}, value_func=_same_types, group=G_UTIL,
                differentiable=False, doc="`expect_near(a, b, 1.0e-6)` (the default tolerance).")

add_builtin("block_dim", {}, value_type=sc.int32, group=G_UTIL, differentiable=False,
            doc="The number of threads in the current block: the CUDA block size on a GPU, 1 on the CPU.")

# reversed(range(start, stop, step)) in a for loop: the translator counts down from the last value
for _name in ("range_reversed_start", "range_reversed_stop"):
    add_builtin(_name, {"start": Int, "stop": Int, "step": Int}, value_func=lambda ts: ts[0],
                group=G_UTIL, differentiable=False, hidden=True, export=False)
