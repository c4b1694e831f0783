"""``wp.transformation(p, q, dtype=...)``: the anonymous transform constructor, in kernels and in
Python (``wp.types.transformation(dtype)`` is the type factory)."""

from ..types import composite as comp
from ..types import scalars as sc
from .builtin_function import INTRINSICS
from .intrinsics import _const_kw, _scalar_from_args


def _positional(args, kwargs, what):
    """(p, q) from positional and p=/q= keyword arguments."""
    extra = set(kwargs) - {"p", "q", "dtype"}
    if extra or len(args) > 2 or (len(args) == 2 and ({"p", "q"} & set(kwargs))):
        raise TypeError(f"{what} takes (p, q, dtype=...), got {len(args)} positional arguments "
                        f"and keywords {sorted(kwargs)}")
    p = args[0] if args else kwargs.get("p")
    q = args[1] if len(args) > 1 else kwargs.get("q")
    return p, q


def transformation(tr, obj, node, kwargs):
    args = tr.args_of(node)
    values = {k: tr.eval_var(v) for k, v in kwargs.items() if k != "dtype"}
    try:
        p, q = _positional(args, values | ({"dtype": None} if "dtype" in kwargs else {}),
                           "wp.transformation()")
    except TypeError as e:
        raise tr.scope.error(str(e)) from None
    given = [a for a in (p, q) if a is not None]
    dtype = sc.canonical_scalar(_const_kw(tr, kwargs, "dtype")) or _scalar_from_args(tr, given) \
        or sc.float32
    if p is None or q is None:
        raise tr.scope.error("wp.transformation() in a kernel needs both p and q")
    return tr.construct(comp.transformation(dtype), [p, q])


def _dtype_of(values, kwargs):
    if kwargs.get("dtype") is not None:
        return sc.canonical_scalar(kwargs["dtype"])
    for v in values:
        if isinstance(v, comp.Composite):
            return v._wp_scalar_type_
    return sc.float32


def python_transformation(args, kwargs):
    """``wp.transformation(p, q, dtype=...)`` called in Python (runtime/python_scope.py)."""
    p, q = _positional(args, kwargs, "wp.transformation()")
    t = comp.transformation(_dtype_of([a for a in (p, q) if a is not None], kwargs))
    if p is None and q is None:
        return t()
    return t(p if p is not None else (0.0, 0.0, 0.0), q if q is not None else (0.0, 0.0, 0.0, 1.0))


INTRINSICS["transformation"] = transformation
