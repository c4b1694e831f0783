"""``wp.fixedarray``: a stack array whose shape is known at build time (warp-lang's).

Kernels and ``@wp.func`` functions make one with ``wp.zeros(shape=(2, 3), dtype=int)``: its
elements live in the thread's own memory (``wp::fixedarray_t<size, T>``, core.h), zeroed. It is
an array to the code that uses it (indexing, slicing into views, ``shape``, ``ptr``, passing it
to a function that takes ``wp.array``), and a value to the code that copies it: a function
returns it by value (annotated ``-> wp.fixedarray(shape=..., dtype=...)``), an assignment copies
its elements. At Python scope ``wp.fixedarray(dtype=..., shape=...)`` is only an annotation: it
cannot be launched with (warp-lang refuses it too).
"""

import math

from .array import array
from .arraydesc import MAX_DIMS
from .generic import Any
from .scalars import canonical_scalar


class fixedarray(array):
    """A fixed-size, stack-allocated array of ``dtype`` elements (a kernel-side type)."""

    def __init__(self, dtype=Any, shape=None):
        self.dtype = canonical_scalar(dtype)
        self._grad, self._requires_grad, self._retain_grad = None, False, False
        if shape is None:
            shape = ()
        elif isinstance(shape, int):
            shape = (shape,)
        shape = tuple(int(s) for s in shape)
        if len(shape) > MAX_DIMS or any(s <= 0 for s in shape):
            raise ValueError(f"a fixedarray has 1 to {MAX_DIMS} positive dimensions, got shape {shape}")
        self.fixed_shape = shape
        self.ndim = len(shape) or 1
        self.shape, self.strides, self.ptr, self.device, self._ref, self._desc = None, None, None, None, None, None

    @property
    def is_annotation(self):
        return True

    @property
    def size(self):
        return math.prod(self.fixed_shape)

    def __eq__(self, other):
        return (isinstance(other, fixedarray) and other.dtype == self.dtype
                and other.fixed_shape == self.fixed_shape)

    def __hash__(self):
        return hash(("fixedarray", self.dtype, self.fixed_shape))

    def __repr__(self):
        from .dtypes import type_repr
        return f"fixedarray(shape={self.fixed_shape}, dtype={type_repr(self.dtype)})"


def is_fixed(t):
    """Whether ``t`` is a fixedarray type."""
    return isinstance(t, fixedarray)


def as_array_param(t):
    """The type a parameter takes for an argument of type ``t``: a fixedarray is passed to a
    function as a plain array over its elements (the function writes them in place), as
    warp-lang's fixedarray matches ``wp.array`` parameters."""
    return array(dtype=t.dtype, ndim=t.ndim) if isinstance(t, fixedarray) else t
