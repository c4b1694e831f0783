"""Generic type annotations: ``typing.Any``, the constrained type variables ``wp.Scalar``,
``wp.Float`` and ``wp.Int`` (or any ``typing.TypeVar``), and composites with one of them in their
shape or dtype (``wp.types.vector(length=Any, dtype=float)``, ``wp.types.matrix(shape=(3, 3),
dtype=wp.Float)``, ``wp.array(dtype=wp.Scalar)``). A kernel or function with one of them in its
signature is generic: it is specialised for the concrete types of each call or launch
(lang/definitions/generics.py); a type variable admits only the types it is constrained to."""

import typing

from . import scalars as _sc

Any = typing.Any
_INTS = (_sc.int8, _sc.uint8, _sc.int16, _sc.uint16, _sc.int32, _sc.uint32, _sc.int64, _sc.uint64)
_FLOATS = (_sc.float16, _sc.bfloat16, _sc.float32, _sc.float64)
Int = typing.TypeVar("Int", int, *_INTS)
Float = typing.TypeVar("Float", float, *_FLOATS)
Scalar = typing.TypeVar("Scalar", int, float, *_INTS, *_FLOATS)


def is_any(x):
    """True for an open annotation: ``Any`` or a type variable."""
    return x is typing.Any or isinstance(x, typing.TypeVar)


def admits(annotation, t):
    """True when the open ``annotation`` (``Any`` or a type variable) may be filled by type ``t``:
    a type variable with constraints admits those (Python's int/float as int32/float32...)."""
    if not isinstance(annotation, typing.TypeVar) or not annotation.__constraints__:
        return True
    return any(_sc.canonical_scalar(c) is t for c in annotation.__constraints__)


def open_name(x):
    """How an open annotation reads in messages and keys: ``Any``, ``Float``..."""
    return "Any" if x is typing.Any else x.__name__


class GenericComposite:
    """A vector/matrix/quaternion/transform type with ``Any`` somewhere in its shape or dtype.
    Only an annotation: it matches every concrete composite of its kind that agrees with it
    where it is not ``Any``."""

    def __init__(self, kind, shape, dtype):
        self.kind, self.shape, self.dtype = kind, tuple(shape), dtype

    def matches(self, t):
        if getattr(t, "_kind_", None) != self.kind or len(t._shape_) != len(self.shape):
            return False
        if any(not is_any(s) and s != n for s, n in zip(self.shape, t._shape_)):
            return False
        return admits(self.dtype, t._wp_scalar_type_) if is_any(self.dtype) else self.dtype is t._wp_scalar_type_

    def type_key(self):
        return ("generic", self.kind, tuple(open_name(s) if is_any(s) else s for s in self.shape),
                open_name(self.dtype) if is_any(self.dtype) else self.dtype.__name__)

    def __eq__(self, other):
        return isinstance(other, GenericComposite) and self.type_key() == other.type_key()

    def __hash__(self):
        return hash(self.type_key())

    def __repr__(self):
        def show(x):
            return open_name(x) if is_any(x) else getattr(x, "__name__", repr(x))
        dtype = show(self.dtype)
        if self.kind == "vector":
            return f"vector(length={show(self.shape[0])}, dtype={dtype})"
        if self.kind == "matrix":
            return f"matrix(shape=({', '.join(show(s) for s in self.shape)}), dtype={dtype})"
        return f"{self.kind}(dtype={dtype})"

    __name__ = property(__repr__)

    def __call__(self, *args):
        raise TypeError(f"{self!r} is a generic annotation, not a type: give a concrete "
                        "length/shape and dtype to construct values")
