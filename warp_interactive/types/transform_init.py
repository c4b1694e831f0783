"""Python-scope construction of transform values (``wp.transform(...)``, ``wp.transformd(...)``),
with the reference's forms and errors:

- ``()``: the identity; ``(s)``: every component ``s`` (numbers, NumPy scalars, bools);
- ``(p)``: translation ``p``, identity rotation; ``(p, q)`` or ``p=``/``q=`` keywords;
- seven components; another transform (any dtype): a copy, converted component by component.

A lone sequence of seven values is taken as the seven components (the reference rejects it;
``type(t)(flat)`` is how values are rebuilt from NumPy rows here).
"""

import inspect
import numbers

import numpy as np

_SIGNATURE = inspect.Signature((
    inspect.Parameter("p", inspect.Parameter.POSITIONAL_OR_KEYWORD, default=(0.0, 0.0, 0.0)),
    inspect.Parameter("q", inspect.Parameter.POSITIONAL_OR_KEYWORD, default=(0.0, 0.0, 0.0, 1.0)),
))

IDENTITY = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0)


def transform_flat(args, kwargs, scalar_value):
    """The seven components of a transform built from ``args``/``kwargs``, or None for the
    components form (more than two positional values: the caller flattens them).
    ``scalar_value(x)`` is a number for a warp scalar value, or None."""
    if kwargs:
        if len(args) > 2:
            # the keywords alone first: an unexpected one is named, not hidden behind the count
            _SIGNATURE.bind_partial(**kwargs)
        bound = _SIGNATURE.bind(*args, **kwargs)
        bound.apply_defaults()
        return _from_parts(*bound.args)
    if len(args) > 2:
        return None
    if not args:
        return np.array(IDENTITY)
    if len(args) == 2:
        return _from_parts(*args)
    return _from_one(args[0], scalar_value)


def _from_one(value, scalar_value):
    if getattr(value, "_kind_", None) == "transform":
        return np.asarray(value.numpy_view(), dtype=np.float64)   # a copy, any dtype
    s = scalar_value(value)
    if s is not None:
        return np.full(7, s)
    if isinstance(value, (numbers.Number, np.generic)):
        return np.full(7, float(value))
    if not hasattr(value, "__len__"):
        try:
            return np.full(7, float(value))
        except (TypeError, ValueError):
            raise TypeError("Invalid argument in transformation constructor: expected a scalar "
                            f"value, got {type(value).__name__}") from None
    if len(value) == 7:
        return _floats(value)
    return _from_parts(value, IDENTITY[3:])


def _from_parts(p, q):
    for name, part, n in (("p", p, 3), ("q", q, 4)):
        if not hasattr(part, "__len__"):
            raise TypeError(f"Invalid argument '{name}' in transformation constructor: expected a "
                            f"sequence, got {type(part).__name__}")
        if len(part) != n:
            raise ValueError(f"the {name} of a transform needs {n} components, got {len(part)}")
    return np.concatenate([_floats(p), _floats(q)])


def _floats(x):
    """The values of a sequence or a warp vector/quaternion as float64 (a warp value through its
    NumPy view: NumPy would read a float16 one's ctypes buffer as the integers it stores)."""
    view = getattr(x, "numpy_view", None)
    return np.asarray(view() if view is not None else x, dtype=np.float64).reshape(-1)
