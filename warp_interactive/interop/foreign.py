"""Foreign memory as wp arrays: a (pointer, shape, byte strides) view that keeps its owner alive.

Every converter (array protocols, DLPack, torch, paddle) ends here, so element-type checks and
their error messages are the same whatever the source.
"""

import numpy as np

from ..types.array import contiguous_strides, array
from ..types.arraydesc import MAX_DIMS
from ..types.dtypes import element_shape, scalar_of, type_repr
from ..types.scalars import bool_, canonical_scalar, dtype_from_numpy, int8, is_int, uint8


class IncompatibleDtypeError(TypeError, RuntimeError):
    """A foreign buffer's elements cannot be viewed as the requested dtype. A TypeError (wrong
    type of data), and a RuntimeError as warp-lang raises it, so code written for either catches it."""


def can_reinterpret(source, target):
    """warp-lang's aliasing rule for zero-copy imports: the same scalar type, integers of the same
    size whatever their signedness (int64 data as uint64), or bool bytes as int8/uint8."""
    if source is target:
        return True
    if is_int(source) and is_int(target):
        return source.size == target.size
    return source is bool_ and target in (int8, uint8)


def element_layout(shape, strides, scalar, dtype, what, source_label=None):
    """Split a foreign (shape, byte strides) of ``scalar`` elements into the wp array's
    (element type, shape, strides): ``dtype=vec3`` takes the last dimension as the vector.
    ``source_label`` names the source element type in its framework's terms, for errors."""
    if dtype is None:
        dtype = scalar
    else:
        dtype = canonical_scalar(dtype)
        if not can_reinterpret(scalar, scalar_of(dtype)):
            label = source_label or f"{what} of {type_repr(scalar)}"
            raise IncompatibleDtypeError(
                f"Incompatible data types: {label} and Warp {type_repr(dtype)}: cannot view {what} "
                f"of {type_repr(scalar)} as an array of {type_repr(dtype)} (the scalar types "
                "differ; allowed: the same type, same-size integers, bool as int8/uint8)")
    es = element_shape(dtype)
    if es:
        inner = tuple(shape[len(shape) - len(es):])
        if len(shape) <= len(es) or inner != es:
            raise ValueError(f"{what} of shape {tuple(shape)} does not fit dtype {type_repr(dtype)}: "
                             f"its inner dimensions must be {es}")
        if tuple(strides[len(shape) - len(es):]) != contiguous_strides(es, scalar.size):
            raise ValueError(f"{what} has non-contiguous inner dimensions (strides {tuple(strides)} "
                             f"bytes): dtype {type_repr(dtype)} needs its {es} elements packed")
        shape, strides = shape[:len(shape) - len(es)], strides[:len(strides) - len(es)]
    if len(shape) == 0:   # a 0-d value is a one-element array
        shape, strides = (1,), (scalar.size * max(1, int(np.prod(es))),)
    if len(shape) > MAX_DIMS:
        raise ValueError(f"{what} has {len(shape)} dimensions; arrays have at most {MAX_DIMS}")
    return dtype, tuple(shape), tuple(strides)


def wrap(ptr, shape, strides, dtype, device, owner, requires_grad=False, grad=None):
    """A wp.array over foreign memory (``shape``/``strides`` already in the array's terms)."""
    a = array.__new__(array)
    a.dtype, a.device, a._requires_grad, a._grad = dtype, device, bool(requires_grad), None
    a._set_view(int(ptr), shape, strides, owner)
    if grad is not None:
        if tuple(grad.strides) != tuple(strides) or tuple(grad.shape) != tuple(shape):
            raise ValueError(f"the gradient's layout (shape {grad.shape}, strides {grad.strides}) "
                             f"must match the array's (shape {shape}, strides {strides})")
        a._grad = grad
        a._requires_grad = True
    return a


def scalar_from_typestr(typestr, what):
    try:
        return dtype_from_numpy(np.dtype(typestr))
    except TypeError:
        raise TypeError(f"{what} has element type {np.dtype(typestr)} (typestr {typestr!r}), "
                        "which has no warp_interactive equivalent") from None


def from_interface(iface, dtype, device, owner, what="the array"):
    """A wp array from an ``__array_interface__``/``__cuda_array_interface__`` dict."""
    scalar = scalar_from_typestr(iface["typestr"], what)
    shape = tuple(int(s) for s in iface["shape"])
    strides = iface.get("strides")
    strides = tuple(int(s) for s in strides) if strides else contiguous_strides(shape, scalar.size)
    dtype, shape, strides = element_layout(shape, strides, scalar, dtype, what)
    ptr = iface["data"][0] if iface.get("data") else 0
    a = wrap(ptr or 0, shape, strides, dtype, device, owner)
    if iface.get("data") and iface["data"][1]:    # the protocol's read-only flag
        a._set_writability(True)
    return a


def from_cuda_array_interface(obj, dtype=None, device=None):
    """A wp array sharing the memory of a CuPy/Numba/PyTorch... CUDA array (zero-copy).

    The protocol does not say which GPU holds the memory: ``device`` (default: the current
    CUDA device) must be the one. A producer stream in the interface is waited for."""
    from ..runtime.device import cuda_device_for, get_device
    iface = obj.__cuda_array_interface__
    if iface.get("mask") is not None:
        raise ValueError("masked __cuda_array_interface__ arrays are not supported")
    device = cuda_device_for(None) if device is None else get_device(device)
    stream = iface.get("stream")
    if stream:   # producer's work on its stream must finish before we read (protocol v3)
        from ..runtime.utils import synchronize_device
        synchronize_device(device)
    return from_interface(iface, dtype, device, obj, "the __cuda_array_interface__ array")


def _stream_handle(device):
    """The raw handle of ``device``'s current stream, or None (the legacy default stream)."""
    s = getattr(device, "stream", None)
    h = getattr(s, "cuda_stream", None)
    return int(h) if h else None
