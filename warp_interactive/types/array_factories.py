"""``wp.zeros``/``empty``/``full``/``ones`` and their ``*_like`` forms, with warp-lang 1.19's
signatures: ``retain_grad``, ``pinned``, and keyword arguments passed on to ``wp.array``
(``strides=``: an allocation of that layout, its capacity the bytes the strides reach)."""

import numpy as np

from .. import hooks
from ..state import state
from . import array_values
from .array import array
from .dtypes import type_size
from .scalars import uint8


def _shape_arg(shape, n, fn):
    shape = shape if shape is not None else n
    if shape is None:
        raise TypeError(f"wp.{fn}() needs a shape")
    return shape


def empty(shape=None, dtype=float, device=None, requires_grad=False, pinned=False,
          retain_grad=False, n=None, strides=None, **kwargs):
    """A new array (zeroed here: uninitialised memory is never handed out)."""
    shape = _shape_arg(shape, n, "empty")
    if strides is None:
        out = array(shape=shape, dtype=dtype, device=device, requires_grad=requires_grad,
                    pinned=pinned, retain_grad=retain_grad, **kwargs)
    else:
        out = _strided(shape, dtype, device, requires_grad, pinned, retain_grad, strides)
    return _zero_on_replay(out, data=False)


def _zero_on_replay(a, data=True):
    """Inside a CPU graph capture, an array made zeroed (its data, and any array's gradient) is
    zeroed again by each replay at this point of the graph, as a CUDA capture replays the memset
    of a ``wp.zeros``: a replay must not start from what the previous one left there."""
    if state.capturing[0]:
        for part in ((a,) if data else ()) + ((a.grad,) if a.grad is not None else ()):
            hooks.defer(part.device, lambda part=part: part.device.memory.zero(part))
    return a


def zeros(shape=None, dtype=float, device=None, requires_grad=False, pinned=False,
          retain_grad=False, n=None, **kwargs):
    return _zero_on_replay(empty(_shape_arg(shape, n, "zeros"), dtype, device, requires_grad, pinned,
                                 retain_grad, **kwargs))


def _strided(shape, dtype, device, requires_grad, pinned, retain_grad, strides):
    """An array of ``shape`` laid out with byte ``strides`` in a zeroed buffer of the bytes they
    reach (a gapped or transposed layout)."""
    shape = (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(int(s) for s in shape)
    strides = tuple(int(s) for s in strides)
    if len(strides) != len(shape):
        raise ValueError(f"Invalid number of strides, expected {len(shape)} strides, got {len(strides)}")
    if any(s < 0 for s in strides):
        raise NotImplementedError(f"Negative strides are not supported, got {strides}")
    size = type_size(dtype)
    capacity = 0 if 0 in shape else size + sum((n - 1) * s for n, s in zip(shape, strides))
    buf = array(shape=(capacity,), dtype=uint8, device=device, pinned=pinned)
    out = array(ptr=buf.ptr, shape=shape, strides=strides, dtype=dtype, device=buf.device)
    out._ref, out._capacity = buf, capacity      # the buffer lives as long as the array
    if requires_grad:
        out.grad = _strided(shape, dtype, device, False, pinned, False, strides)
    out.retain_grad = retain_grad
    return out


def full(shape=None, value=0, dtype=None, device=None, requires_grad=False, pinned=False,
         retain_grad=False, **kwargs):
    if dtype is None:
        dtype = array_values.dtype_of_value(value)
    return zeros(shape, dtype, device, requires_grad, pinned, retain_grad, **kwargs).fill_(value)


def ones(shape=None, dtype=float, device=None, requires_grad=False, pinned=False,
         retain_grad=False, **kwargs):
    return full(shape, 1, dtype, device, requires_grad, pinned, retain_grad, **kwargs)


def empty_like(src, device=None, requires_grad=None, pinned=None, retain_grad=False):
    rg = src.requires_grad if requires_grad is None else requires_grad
    pinned = src.pinned if pinned is None else pinned
    return empty(src.shape, src.dtype, device or src.device, rg, pinned, retain_grad)


def zeros_like(src, device=None, requires_grad=None, pinned=None, retain_grad=False):
    return _zero_on_replay(empty_like(src, device, requires_grad, pinned, retain_grad))


def full_like(src, value, device=None, requires_grad=None, pinned=None, retain_grad=False):
    return empty_like(src, device, requires_grad, pinned, retain_grad).fill_(value)


def ones_like(src, device=None, requires_grad=None, pinned=None, retain_grad=False):
    return full_like(src, 1, device, requires_grad, pinned, retain_grad)


def from_ptr(ptr, length, dtype=None, shape=None, device=None):
    """An array over existing memory (deprecated in warp-lang, kept for its users): ``ptr`` is
    the address of a pointer-sized word holding the data's address (warp-lang reads it through
    ``ctypes``, as here); 0 makes an empty array. Prefer ``wp.array(ptr=address, ...)``."""
    import ctypes
    from ..logger import log_warning
    log_warning("This version of wp.from_ptr() is deprecated. To create an array from a C pointer, use the "
                "array constructor and pass the ptr argument as a uint64 value representing the start "
                "address in memory where the existing array resides.", DeprecationWarning, stacklevel=2)
    address = 0 if ptr == 0 else ctypes.cast(ptr, ctypes.POINTER(ctypes.c_size_t)).contents.value
    return array(dtype=dtype, length=length, ptr=address, shape=shape, device=device, requires_grad=False)
