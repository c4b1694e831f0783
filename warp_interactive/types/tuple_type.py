"""Tuples as ``@wp.func`` parameters (warp-lang 1.19: ``values: tuple[wp.vec3, float]``,
``tuple[int, ...]``, or ``Any`` given a tuple). ``TupleType`` is the type of a tuple argument:
its element types. The call passes the elements as separate C++ arguments and the function
binds its parameter's name to a tuple of them (lang/translation/translator.py), so no tuple type reaches
C++. ``TupleOf`` is the generic annotation ``tuple[T, ...]``."""

import typing

from .generic import GenericComposite, is_any


class TupleType:
    """A tuple argument's type: the element types in order (compared by their names)."""

    def __init__(self, types):
        self.types = tuple(types)

    def _key(self):
        return tuple(_label(t) for t in self.types)

    @property
    def __name__(self):
        return f"tuple[{', '.join(self._key())}]"

    @property
    def _cpp(self):     # lang/annotations.type_key reads it: one key per element-type list
        return self.__name__

    def __eq__(self, other):
        return isinstance(other, TupleType) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        return self.__name__


class TupleOf(GenericComposite):
    """``tuple[T, ...]``: any number of elements of type T (T may be Any)."""

    def __init__(self, elem):
        self.elem = elem
        super().__init__("tuple", (), elem)

    def matches(self, t):
        return isinstance(t, TupleType) and all(is_any(self.elem) or _label(self.elem) == _label(x)
                                                for x in t.types)

    def type_key(self):
        return ("generic", "tuple", "Any" if is_any(self.elem) else getattr(self.elem, "__name__", repr(self.elem)))

    def __repr__(self):
        return f"tuple[{'Any' if is_any(self.elem) else getattr(self.elem, '__name__', self.elem)}, ...]"


def _label(t):
    """A name telling element types apart (arrays by dtype and ndim, structs by C++ name)."""
    if hasattr(t, "ndim") and hasattr(t, "dtype") and not isinstance(t, type):
        return f"array({_label(t.dtype)}, {t.ndim})"
    st = getattr(t, "_wp_struct_", None)
    if st is not None:
        return st.cpp_name
    return getattr(t, "__name__", repr(t))


def tuple_annotation(t, canonical):
    """``tuple[...]`` as a TupleType (concrete elements) or TupleOf (``tuple[T, ...]``); None
    when ``t`` is no tuple annotation. ``canonical`` normalises each element annotation."""
    if typing.get_origin(t) is not tuple:
        return None
    args = typing.get_args(t)
    if len(args) == 2 and args[1] is Ellipsis:
        return TupleOf(canonical(args[0]))
    return TupleType(canonical(a) for a in args)
