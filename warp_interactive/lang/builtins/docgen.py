"""The function reference page, generated from the builtin registry.

    python -m warp_interactive.lang.builtins.docgen > docs/functions.md

A test compares docs/functions.md with this output, so the page never goes stale.
"""

import sys

from . import core as builtins_core  # noqa: F401  (declares the builtins)
from .registry import registry

GROUP_ORDER = ("Scalar Math", "Vector Math", "Matrix Math", "Quaternion Math", "Transformations",
               "Spatial Math", "Utility", "Random", "Noise", "Atomics", "Operators")


# calls the translator handles itself (lang/translation/intrinsics.py): keyword arguments, compile-time shapes
INTRINSIC_DOCS = {
    "vector": ("vector(*components, length: int = None, dtype: Scalar = None)",
               "A vector of `length` components of `dtype` (inferred from the arguments): zero, "
               "filled from one scalar, from components, or converted from another vector."),
    "matrix": ("matrix(*components, shape: (int, int), dtype: Scalar = None)",
               "A `shape` matrix from row-major components, one scalar (fill), or nothing (zero)."),
    "quaternion": ("quaternion(*components, dtype: Scalar = None)",
                   "A quaternion from `(x, y, z, w)`, from `(vector3, w)`, or zero."),
    "identity": ("identity(n: int, dtype: Scalar = float32)", "The `n x n` identity matrix."),
    "quat_identity": ("quat_identity(dtype: Float = float32)", "The identity rotation `(0, 0, 0, 1)`."),
    "transform_identity": ("transform_identity(dtype: Float = float32)",
                           "The identity transform (zero translation, identity rotation)."),
    "printf": ("printf(fmt: str, *args)", "C-style formatted print from a kernel."),
    "print": ("print(value)", "Print a value (any scalar, vector, matrix...) as `print(value)` does."),
    "cast": ("cast(a, dtype)", "The bits of `a` reinterpreted as `dtype` (a scalar or composite type "
                               "of the same size): `cast(float32(1.0), int32) == 0x3f800000`."),
    "volume_sample_grad": ("volume_sample_grad(id, uvw, sampling_mode, grad, dtype=float32)",
                           "Sample a float volume at index-space `uvw` and write the gradient to "
                           "`grad` (a vec3 variable); vec3 volumes are not supported yet."),
}


def _intrinsics():
    from ..translation.intrinsics import INTRINSICS
    out = ["## Constructors and special calls", ""]
    for name in sorted(INTRINSICS):
        if name in INTRINSIC_DOCS:
            sig, doc = INTRINSIC_DOCS[name]
            out += [f"- `{sig}`", f"  {doc}"]
    return out + [""]


def _entries():
    groups = {}
    for name in sorted(registry):
        for ov in registry[name].overloads:
            if ov.hidden or not ov.export:
                continue
            groups.setdefault(ov.group, []).append(ov)
    return groups


def _returns(ov):
    """The return rule in words: a fixed type, or 'depends on the arguments'."""
    try:
        fixed = ov.value_func([])
    except Exception:
        return ""
    return f" -> {getattr(fixed, '__name__', fixed)}" if fixed is not None else ""


def render():
    groups = _entries()
    order = [g for g in GROUP_ORDER if g in groups] + sorted(set(groups) - set(GROUP_ORDER))
    n_overloads = sum(len(v) for v in groups.values())
    n_names = len({ov.name for v in groups.values() for ov in v})
    out = ["# Kernel function reference", "",
           "Generated from the builtin registry by `python -m warp_interactive.lang.builtins.docgen`; do not edit.",
           f"{n_names} builtins, {n_overloads} overloads. Generic argument types: `Scalar` (any "
           "numeric scalar), `Float` (float16, bfloat16, float32, float64), `Int` (any integer), `Vector`/`Matrix` "
           "(any length/shape), `FloatVector`/`FloatMatrix` (floating-point components), "
           "`Quaternion`, `Transformation`, `Array`, `Any`; arguments of one overload share one "
           "scalar type unless noted.", ""]
    out += _intrinsics()
    for g in order:
        out += [f"## {g}", ""]
        for ov in groups[g]:
            flags = "" if ov.differentiable else "  *(not differentiable)*"
            out.append(f"- `{ov.signature()}{_returns(ov)}`{flags}")
            if ov.doc:
                out.append(f"  {ov.doc}")
        out.append("")
    return "\n".join(out)


if __name__ == "__main__":
    sys.stdout.write(render())
