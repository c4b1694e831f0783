"""``wp.transformation(p, q, dtype=...)``: the anonymous transform constructor, in kernels and in
Python (``wp.types.transformation(dtype)`` is the type factory)."""

from ...types import composite as comp
from ...types import scalars as sc
from ..builtins.function import INTRINSICS
from .intrinsics import _const_kw, _scalar_from_args
from ..builtins.registry import Overload


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
    """``wp.transformation(p, q=None, dtype=None)`` or ``wp.transformation(*components, dtype=None)``
    in a kernel (also ``wp.types.transformation(x)``): the reference's two overloads."""
    args = tr.args_of(node)
    if set(kwargs) & {"p", "q"}:
        values = {k: tr.eval_var(v) for k, v in kwargs.items() if k != "dtype"}
        try:
            p, q = _positional(args, values | ({"dtype": None} if "dtype" in kwargs else {}),
                               "wp.transformation()")
        except TypeError as e:
            raise tr.scope.error(str(e)) from None
        if p is None:
            raise tr.scope.error("wp.transformation() needs p when q is given")
        args = [p] if q is None else [p, q]
    elif set(kwargs) - {"dtype"}:
        raise tr.scope.error(f"wp.transformation() got unexpected keyword arguments "
                             f"{sorted(set(kwargs) - {'dtype'})}")
    dtype = sc.canonical_scalar(_const_kw(tr, kwargs, "dtype")) or _scalar_from_args(tr, args) \
        or sc.float32
    return tr.construct(comp.transformation(dtype), args)


def constructor_keywords(tr, t, args, kwargs):
    """The positional arguments of a composite constructor called with keywords in a kernel: a
    transform takes p= and q= (q only with p), as the reference; any other keyword is refused
    with its error (ignoring it would silently build a zero value)."""
    kwargs = _template_keywords(tr, t, kwargs)
    if not kwargs:
        return args
    is_transform = getattr(t, "_kind_", None) == "transform"
    for name in kwargs:
        if not is_transform or name not in ("p", "q") or (name == "q" and not args and "p" not in kwargs):
            raise tr.scope.error(f"{t.__name__}() got an unexpected keyword argument '{name}'")
    try:
        p, q = _positional(args, {k: tr.eval_var(v) for k, v in kwargs.items()}, f"{t.__name__}()")
    except TypeError as e:
        raise tr.scope.error(str(e)) from None
    return [p] if q is None else [p, q]


_TEMPLATE_KEYWORDS = {"vector": ("length", "dtype"), "matrix": ("shape", "dtype"),
                      "quaternion": ("dtype",), "transform": ("dtype",)}


def _template_keywords(tr, t, kwargs):
    """The keywords left once those that restate the type's own template are taken away:
    ``mat32d(m, shape=(3, 2))`` and ``vec3(x, length=3)`` are the plain constructor (as the
    reference); one that contradicts the type is the reference's error."""
    own = {"length": getattr(t, "_length_", None), "shape": getattr(t, "_shape_", None),
           "dtype": t._wp_scalar_type_}
    template = "vec_t" if t._kind_ == "vector" else "mat_t" if t._kind_ == "matrix" else None
    rest = {}
    for name, node in kwargs.items():
        if name not in _TEMPLATE_KEYWORDS.get(t._kind_, ()) or template is None:
            rest[name] = node
            continue
        value = _const_kw(tr, {name: node}, name)
        if name == "dtype":
            value = sc.canonical_scalar(value)
        elif name == "shape":
            value = tuple(value) if isinstance(value, (tuple, list)) else value
        if value != own[name]:
            raise tr.scope.error(f"{t.__name__}(..., {name}={value!r}) contradicts the type: remove "
                                 f"the extraneous `{name}` parameter when calling the templated "
                                 f"version of `wp.{template}()`")
    return rest


def constructor_args(tr, t, args):
    """The arguments of ``transform_t<T>(...)`` for a transform constructor call in a kernel:
    ``(p)`` gains the identity rotation; the reference's errors for the other misuses."""
    types = [a.type for a in args]
    if len(args) == 1 and comp.is_vector(types[0]) and types[0]._length_ == 3:
        return [args[0], _quat_identity(tr, t._wp_scalar_type_)]
    if len(args) == 1 and comp.is_composite(types[0]) and types[0]._kind_ == "transform" and \
            types[0] is not t:
        raise tr.scope.error(
            f"copy constructing a transform requires matching source and target dtypes, got "
            f"`{types[0]._wp_scalar_type_.__name__}` and `{t._wp_scalar_type_.__name__}`")
    if all(sc.is_scalar(x) for x in types) and len(args) not in (0, 1, 7):
        raise tr.scope.error(f"incompatible number of values given ({len(args)}) when "
                             f"constructing a transform; expected 0, 1, or 7")
    return args


def _quat_identity(tr, dtype):
    ov = Overload(name="quat_identity", input_types={}, value_func=None, cpp="quat_identity",
                  differentiable=False, template=lambda ts, ret: f"<{dtype._cpp}>")
    return tr.emit_call(ov, comp.quaternion(dtype), [])


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
