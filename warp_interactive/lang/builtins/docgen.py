"""The function reference page, generated from the builtin registry.

    python -m warp_interactive.lang.builtins.docgen > docs/functions.md

A test compares docs/functions.md with this output, so the page never goes stale.
"""

import sys

from . import core as builtins_core  # noqa: F401  (declares the builtins)
from . import geometry as builtins_geometry  # noqa: F401  (declares the geometry builtins)
from . import special  # noqa: F401  (declares the intrinsics and tiles)
from .registry import intrinsics, registry

GROUP_ORDER = (special.CONSTRUCT, "Scalar Math", "Vector Math", "Matrix Math", "Quaternion Math",
               "Transformations", "Spatial Math", "Utility", "Random", "Noise", "Atomics", "Operators")


def _entries():
    """Group -> records: the intrinsics' records first, then the registry's listed overloads."""
    groups = {}
    for rec in intrinsics.values():
        groups.setdefault(rec.group, []).append(rec)
    for name in sorted(registry):
        for ov in registry[name].overloads:
            if ov.hidden or not ov.export:
                continue
            groups.setdefault(ov.group, []).append(ov)
    return groups


def _returns(ov):
    """The return rule in words: a fixed type, or 'depends on the arguments'."""
    if not hasattr(ov, "value_func"):
        return ""           # an intrinsic: its signature says what it gives
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
    for g in order:
        out += [f"## {g}", ""]
        for ov in groups[g]:
            flags = "" if ov.differentiable else "  *(not differentiable)*"
            sig = ov.signature() if callable(ov.signature) else ov.signature
            out.append(f"- `{sig}{_returns(ov)}`{flags}")
            if ov.doc:
                out.append(f"  {ov.doc}")
        out.append("")
    return "\n".join(out)


if __name__ == "__main__":
    sys.stdout.write(render())
