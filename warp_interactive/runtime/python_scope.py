"""Builtins called in Python scope (outside kernels)."""

import numpy as np

from .. import hooks
from ..types import composite as comp
from ..types import scalars as sc


def _dtype_of(args, kwargs):
    dt = kwargs.get("dtype")
    if dt is not None:
        return sc.canonical_scalar(dt)
    for a in args:
        if isinstance(a, comp.Composite):
            return a._wp_scalar_type_
        if isinstance(a, sc.Scalar):
            return type(a)
    return sc.float32


def _vector(args, kwargs):
    dtype = _dtype_of(args, kwargs)
    flat = np.concatenate([np.asarray(a.value if isinstance(a, sc.Scalar) else a, dtype=float).reshape(-1)
                           for a in args]) if args else np.zeros(0)
    length = kwargs.get("length") or flat.size
    t = comp.vector(length, dtype)
    return t(flat[0]) if flat.size == 1 and length > 1 else (t(flat) if flat.size else t())


def _matrix(args, kwargs):
    dtype = _dtype_of(args, kwargs)
    shape = kwargs.get("shape")
    if shape is None:
        raise TypeError("wp.matrix() needs shape=(rows, cols)")
    t = comp.matrix(shape, dtype)
    if not args:
        return t()
    flat = np.concatenate([np.asarray(a.value if isinstance(a, sc.Scalar) else a, dtype=float).reshape(-1)
                           for a in args])
    return t(flat[0]) if flat.size == 1 else t(flat)


def _quaternion(args, kwargs):
    t = comp.quaternion(_dtype_of(args, kwargs))
    return t(*args) if args else t()


def _identity(args, kwargs):
    n = kwargs.get("n", args[0] if args else None)
    t = comp.matrix((n, n), _dtype_of((), kwargs))
    return t(np.eye(n))


def _quat_identity(args, kwargs):
    return comp.quaternion(_dtype_of((), kwargs))(0.0, 0.0, 0.0, 1.0)


def _transform_identity(args, kwargs):
    return comp.transformation(_dtype_of((), kwargs))(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0)


def _set_part(name, part):
    """``wp.transform_set_translation(t, p)`` / ``..._rotation(t, q)`` in Python: changes ``t``
    itself, as the reference's in-place builtins do."""
    def impl(args, kwargs):
        values = list(args) + [kwargs.pop(k) for k in ("xform", "p", "q") if k in kwargs]
        if kwargs or len(values) != 2 or not isinstance(values[0], comp.Composite) or \
                values[0]._kind_ != "transform":
            raise TypeError(f"wp.{name}(xform, value) needs a transform and a value, got {args!r}")
        setattr(values[0], part, values[1])
    return impl


def _print(args, kwargs):
    print(*args, **kwargs)


def _cast(args, kwargs):
    """Python scope: the bits of a number or composite read as ``dtype`` (same size)."""
    a = args[0]
    dtype = kwargs.get("dtype", args[1] if len(args) > 1 else None)
    if isinstance(a, comp.Composite):   # a ctypes array: its bytes are exactly its storage
        raw = bytes(a)
    elif isinstance(a, sc.Scalar):
        bits = a.value if type(a) is not sc.bfloat16 else sc.to_storage(sc.bfloat16, a.value)
        raw = np.asarray(bits, dtype=type(a)._np_dtype).tobytes()
    else:
        raw = np.asarray(a, dtype=np.float32 if isinstance(a, float) else np.int32).tobytes()
    to = dtype if comp.is_composite(dtype) else sc.canonical_scalar(dtype)
    to_scalar = to._wp_scalar_type_ if comp.is_composite(to) else to
    size = to_scalar.size * (int(np.prod(to._shape_)) if comp.is_composite(to) else 1)
    if len(raw) != size:
        raise TypeError(f"wp.cast(): cannot reinterpret {len(raw)} bytes as {to.__name__} ({size} bytes)")
    if comp.is_composite(to):
        return to.from_buffer_copy(raw)
    out = np.frombuffer(raw, dtype=to_scalar._np_dtype)
    if to is sc.bfloat16:
        return float(sc.bfloat16_bits_to_float32(out)[0])
    return out[0].item()


from ..lang.translation.intrinsics_transform import python_transformation  # noqa: E402

PYTHON_IMPLS = {
    "transformation": python_transformation,
    "vector": _vector, "matrix": _matrix, "quaternion": _quaternion, "identity": _identity,
    "quat_identity": _quat_identity, "transform_identity": _transform_identity,
    "print": _print, "cast": _cast,
    "transform_set_translation": _set_part("transform_set_translation", "p"),
    "transform_set_rotation": _set_part("transform_set_rotation", "q"),
}


def call_in_python(key, args, kwargs):
    impl = PYTHON_IMPLS.get(key)
    if impl is not None:
        return impl(args, kwargs)
    from .native_eval import evaluate
    return evaluate(key, args, kwargs)


hooks.python_call = call_in_python   # wp.sin(1.0) &c. outside kernels (hooks.py)


def _mod_operands(a, b):
    """``v % 3.0`` on a vector: the number applies to every component, as in the reference."""
    if isinstance(a, comp.Composite) and not isinstance(b, comp.Composite):
        b = type(a)(*[_number(b)] * a._length_)
    elif isinstance(b, comp.Composite) and not isinstance(a, comp.Composite):
        a = type(b)(*[_number(a)] * b._length_)
    return a, b


def _number(x):
    return x.value if isinstance(x, sc.Scalar) else x


def _mod(a, b):
    """Python-scope ``a % b`` on warp scalars and vectors: ``wp.mod`` (the truncated remainder,
    ``wp.int32(-7) % 3 == -1``), as the reference's operators call its builtin."""
    if not isinstance(b, (sc.Scalar, comp.Composite, int, float)):
        return NotImplemented
    return call_in_python("mod", _mod_operands(a, b), {})


def _rmod(b, a):
    if not isinstance(a, (sc.Scalar, comp.Composite, int, float)):
        return NotImplemented
    return call_in_python("mod", _mod_operands(a, b), {})


# the operators live on the types (a lower layer), the builtin's evaluation here: registered at
# import (scalars' own arithmetic is types/scalar_ops.py)
comp.Composite.__mod__ = _mod
comp.Composite.__rmod__ = _rmod
