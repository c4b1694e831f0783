"""Generic type annotations: ``typing.Any`` and composites with ``Any`` in their shape or dtype
(``wp.types.vector(length=Any, dtype=float)``, ``wp.types.matrix(shape=(3, 3), dtype=Any)``,
``wp.array(dtype=Any)``). A kernel or function with one of them in its signature is generic:
it is specialised for the concrete types of each call or launch (lang/generics.py)."""

import typing

Any = typing.Any


def is_any(x):
    return x is typing.Any


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
        return is_any(self.dtype) or self.dtype is t._wp_scalar_type_

    def type_key(self):
        return ("generic", self.kind, tuple("Any" if is_any(s) else s for s in self.shape),
                "Any" if is_any(self.dtype) else self.dtype.__name__)

    def __eq__(self, other):
        return isinstance(other, GenericComposite) and self.type_key() == other.type_key()

    def __hash__(self):
        return hash(self.type_key())

    def __repr__(self):
        def show(x):
            return "Any" if is_any(x) else getattr(x, "__name__", repr(x))
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
