"""``wp.ref[T]``: a ``@wp.func`` parameter passed by reference (writes to it reach the caller's
local, array element, struct field or component), as warp-lang's. ``wp.ref[T]`` is a
``Reference`` carrying ``T``; the translator passes such a parameter in and its final value
back out (lang/tiles/refs.py)."""


class Reference:
    """A pass-by-reference annotation of the value type ``dtype``."""

    def __init__(self, dtype):
        self.value_type = dtype

    @property
    def dtype(self):
        return self.value_type

    def __repr__(self):
        return f"wp.ref[{getattr(self.value_type, '__name__', repr(self.value_type))}]"

    def __eq__(self, other):
        return isinstance(other, Reference) and self.value_type is other.value_type

    def __hash__(self):
        return hash((Reference, self.value_type))


class ref:
    """``wp.ref[T]``: annotate a ``@wp.func`` parameter to receive an addressable argument (a
    local, an array element, a struct field, a vector/matrix component, or another reference
    parameter) by reference: the function's writes to it change the caller's storage. Literals,
    constants and temporaries are refused; kernels cannot take references."""

    def __class_getitem__(cls, dtype):
        return Reference(dtype)


def is_reference(t):
    return isinstance(t, Reference)


def strip_reference(t):
    return t.value_type if isinstance(t, Reference) else t
