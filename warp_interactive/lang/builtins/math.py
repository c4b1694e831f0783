"""Scalar math builtins (and their component-wise vector forms where the reference has them)."""

from ...types import scalars as sc
from .registry import Float, Int, Matrix, Quaternion, Scalar, Transformation, Vector, add_builtin, same_as

GROUP = "Scalar Math"

_UNARY_FLOAT = {
    "sqrt": "Square root of `x` (`x >= 0`).",
    "cbrt": "Cube root of `x`.",
    "exp": "e to the power `x`.",
    "log": "Natural logarithm of `x` (`x > 0`).",
    "log2": "Base-2 logarithm of `x` (`x > 0`).",
    "log10": "Base-10 logarithm of `x` (`x > 0`).",
    "sin": "Sine of `x` (radians).",
    "cos": "Cosine of `x` (radians).",
    "tan": "Tangent of `x` (radians).",
    "asin": "Inverse sine of `x` (in [-1, 1]), in radians.",
    "acos": "Inverse cosine of `x` (in [-1, 1]), in radians.",
    "atan": "Inverse tangent of `x`, in radians.",
    "sinh": "Hyperbolic sine of `x`.",
    "cosh": "Hyperbolic cosine of `x`.",
    "tanh": "Hyperbolic tangent of `x`.",
    "degrees": "`x` radians in degrees.",
    "radians": "`x` degrees in radians.",
    "erf": "The error function of `x`.",
    "erfc": "The complementary error function `1 - erf(x)`.",
    "frac": "The fractional part of `x` with the sign of `x`: `x - trunc(x)`.",
}
_ROUNDING = {
    "floor": "The largest integer value not greater than `x`.",
    "ceil": "The smallest integer value not less than `x`.",
    "round": "`x` rounded to the nearest integer value, halfway cases away from zero.",
    "rint": "`x` rounded to the nearest integer value, halfway cases to even.",
    "trunc": "`x` rounded towards zero.",
}

for _name, _doc in _UNARY_FLOAT.items():
    add_builtin(_name, {"x": Float}, value_func=same_as(0), group=GROUP, doc=_doc)
for _name, _doc in _ROUNDING.items():
    # piecewise constant: the gradient is zero almost everywhere, so no adjoint flows
    add_builtin(_name, {"x": Float}, value_func=same_as(0), group=GROUP, doc=_doc,
                differentiable=False)

add_builtin("atan2", {"y": Float, "x": Float}, value_func=same_as(0), group=GROUP,
            doc="The angle of the point `(x, y)` from the x axis, in (-pi, pi].")

for _name, _doc in (("min", "The smaller of `a` and `b`."), ("max", "The larger of `a` and `b`.")):
    add_builtin(_name, {"a": Scalar, "b": Scalar}, value_func=same_as(0), group=GROUP, doc=_doc)
    add_builtin(_name, {"a": Vector, "b": Vector}, value_func=same_as(0), group="Vector Math",
                doc=f"The component-wise {_name}imum of `a` and `b`.")
    add_builtin(_name, {"a": Vector}, value_func=lambda ts: ts[0]._wp_scalar_type_,
                group="Vector Math", doc=f"The {_name}imum component of `a`.")

add_builtin("abs", {"x": Scalar}, value_func=same_as(0), group=GROUP, doc="The absolute value of `x`.")
add_builtin("abs", {"x": Vector}, value_func=same_as(0), group="Vector Math",
            doc="The component-wise absolute value of `x`.")
add_builtin("sign", {"x": Scalar}, value_func=same_as(0), group=GROUP, differentiable=False,
            doc="-1 if `x < 0`, else 1.")
add_builtin("sign", {"x": Vector}, value_func=same_as(0), group="Vector Math", differentiable=False,
            doc="The component-wise sign of `x`: -1 where a component is negative, else 1.")
add_builtin("clamp", {"x": Scalar, "a": Scalar, "b": Scalar}, value_func=same_as(0), group=GROUP,
            doc="`x` limited to the range [a, b].")
add_builtin("step", {"x": Scalar}, value_func=same_as(0), group=GROUP, differentiable=False,
            doc="1 if `x < 0`, else 0.")
add_builtin("nonzero", {"x": Scalar}, value_func=same_as(0), group=GROUP, differentiable=False,
            doc="1 if `x != 0`, else 0.")
add_builtin("pow", {"x": Float, "y": Float}, value_func=same_as(0), group=GROUP,
            doc="`x` to the power `y`.")
add_builtin("pow", {"x": Int, "y": Int}, value_func=same_as(0), group=GROUP,
            differentiable=False,
            doc="Integer power by repeated squaring (wraps on overflow; a negative `y` gives "
                "`trunc(1 / x**-y)`).")

for _pat in (Float, Vector, Matrix, Quaternion, Transformation):
    add_builtin("lerp", {"a": _pat, "b": _pat, "t": Float}, value_func=same_as(0), group=GROUP,
                doc="Linear interpolation `a * (1 - t) + b * t`.")
add_builtin("smoothstep", {"edge0": Float, "edge1": Float, "x": Float}, value_func=same_as(0),
            group=GROUP, doc="Hermite smooth step `3t^2 - 2t^3` of `t = (x - edge0) / (edge1 - edge0)` "
                             "clamped to [0, 1].")

for _name, _doc in (("isnan", "True if `x` is (has a component that is) NaN."),
                    ("isinf", "True if `x` is (has a component that is) infinite."),
                    ("isfinite", "True if `x` is (all its components are) finite.")):
    for _pat in (Scalar, Vector, Matrix, Quaternion):
        add_builtin(_name, {"x": _pat}, value_type=sc.bool_, group=GROUP, differentiable=False,
                    doc=_doc)
