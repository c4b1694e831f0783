"""PyTorch: zero-copy tensors <-> wp arrays, gradients converted together.

``from_torch(t)`` views the tensor's memory; when the tensor requires grad, the wp array's
gradient views ``t.grad`` (allocated here if missing), so Warp's tape writes the gradients that
a torch optimiser reads. ``to_torch(a)`` is the reverse: the tensor views the array, and its
``.grad`` views ``a.grad``. torch is imported on first use only.
"""

from ..runtime.device import cpu as _cpu
from ..types import scalars as sc
from ..types.arraydesc import MAX_DIMS, make_desc
from ..types.dtypes import scalar_of, type_repr
from .foreign import element_layout, wrap


def _torch():
    try:
        import torch
    except ImportError:
        raise ImportError("PyTorch is not installed: pip install torch "
                          "(or warp_interactive[torch])") from None
    return torch


# --- dtypes ----------------------------------------------------------------------------------
_NAMES = {sc.float16: "float16", sc.bfloat16: "bfloat16", sc.float32: "float32", sc.float64: "float64",
          sc.int8: "int8", sc.uint8: "uint8", sc.int16: "int16", sc.uint16: "uint16",
          sc.int32: "int32", sc.uint32: "uint32", sc.int64: "int64", sc.uint64: "uint64",
          sc.bool_: "bool"}
_from_torch_cache = {}


# warp-lang maps the wider unsigned types to the signed torch type of the same width (torch's own
# uint16/32/64 support few operations); from_torch views such tensors back as unsigned on request.
_TO_TORCH_NAMES = {**_NAMES, sc.uint16: "int16", sc.uint32: "int32", sc.uint64: "int64"}


def dtype_to_torch(warp_dtype):
    """The torch dtype of a warp type (of its scalar, for vector/matrix types). As in warp-lang,
    ``wp.uint16``/``uint32``/``uint64`` give the signed torch type of the same width."""
    return _torch_dtype(warp_dtype, _TO_TORCH_NAMES)


def _torch_dtype(warp_dtype, names=_NAMES):
    name = names.get(scalar_of(warp_dtype))
    if name is None or not hasattr(_torch(), name):
        raise TypeError(f"warp type {type_repr(warp_dtype)} has no PyTorch equivalent")
    return getattr(_torch(), name)


def dtype_from_torch(torch_dtype):
    """The warp scalar type of a torch dtype (``torch.float32`` -> ``wp.float32``)."""
    t = _from_torch_cache.get(torch_dtype)
    if t is None:
        torch = _torch()
        table = {getattr(torch, n): s for s, n in _NAMES.items() if hasattr(torch, n)}
        t = table.get(torch_dtype)
        if t is None:
            raise TypeError(f"torch dtype {torch_dtype} has no warp_interactive equivalent "
                            "(supported: bool, int8..int64, uint8..uint64, float16/32/64, bfloat16)")
        _from_torch_cache[torch_dtype] = t
    return t


# --- devices and streams ---------------------------------------------------------------------
_device_cache = {}


def device_from_torch(torch_device):
    """The wp Device of a torch device (``"cuda"`` means torch's current CUDA device)."""
    d = _device_cache.get(torch_device)
    if d is not None:
        return d
    from ..runtime.device import get_device
    td = _torch().device(torch_device) if isinstance(torch_device, str) else torch_device
    if td.type == "cpu":
        d = get_device("cpu")
    elif td.type == "cuda":
        index = td.index if td.index is not None else _torch().cuda.current_device()
        d = get_device(f"cuda:{index}")
    else:
        raise ValueError(f"torch device {td} has no warp_interactive equivalent (cpu and cuda do)")
    if td.type == "cpu" or td.index is not None:   # "cuda" alone follows torch's current device
        _device_cache[torch_device] = d
    return d


def device_to_torch(warp_device):
    """The torch device name of a wp device (``"cpu"``, ``"cuda:0"``...)."""
    from ..runtime.device import get_device
    d = get_device(warp_device)
    return "cpu" if d.is_cpu else f"cuda:{d.ordinal}"


def stream_from_torch(stream_or_device=None):
    """The wp Stream over a torch CUDA stream (or the current stream of a torch device)."""
    torch = _torch()
    s = stream_or_device
    if not isinstance(s, torch.cuda.Stream):
        s = torch.cuda.current_stream(s)
    from .. import runtime
    Stream = getattr(runtime, "Stream", None) or _stream_class()
    return Stream(device_from_torch(s.device), cuda_stream=s.cuda_stream)


def stream_to_torch(stream_or_device=None):
    """The torch ExternalStream over a wp CUDA stream (or the current stream of a wp device)."""
    from ..runtime.device import Device, get_device
    s = stream_or_device
    if s is None or isinstance(s, (str, Device)):
        s = get_device(s).stream
    if s.device.is_cpu:
        raise RuntimeError(f"{s.device} streams have no torch counterpart (torch streams are CUDA streams)")
    return _torch().cuda.ExternalStream(s.cuda_stream, device=device_to_torch(s.device))


def _stream_class():
    from ..runtime.cuda import streams
    cls = getattr(streams, "Stream", None)
    if cls is None:
        raise RuntimeError("CUDA streams need the CUDA backend (pip install warp_interactive[cuda])")
    return cls


# --- tensors -----------------------------------------------------------------------------------
def _layout(t, dtype):
    """(wp element type, shape, byte strides) of tensor ``t`` viewed as ``dtype``."""
    scalar = _from_torch_cache.get(t.dtype) or dtype_from_torch(t.dtype)
    size = scalar.size
    shape = tuple(t.shape)
    strides = tuple(s * size for s in t.stride())
    if (dtype is None or dtype is scalar) and 0 < len(shape) <= MAX_DIMS:
        return scalar, shape, strides    # the common case: no element dimensions to split off
    return element_layout(shape, strides, scalar, dtype, "the torch tensor", f"Torch type {t.dtype}")


def _device_of(t):
    if t.is_cpu:     # torch's placement (torch.Tensor.is_cpu)
        return _cpu
    return device_from_torch(t.device)


def tensor_view(t, dtype=None):
    """A wp array viewing tensor ``t`` (no gradient): what ``wp.launch`` uses for tensors."""
    dtype, shape, strides = _layout(t, dtype)
    return wrap(t.data_ptr(), shape, strides, dtype, _device_of(t), t)


def _grad_tensor(t, grad):
    """The tensor holding ``t``'s gradient: ``grad``, else ``t.grad``, else a new zero one laid
    out like ``t`` (the wp array shares strides between data and gradient).

    The new one becomes ``t.grad`` only while torch's grad mode is on. With it off (inside a
    ``torch.autograd.Function.forward``, or ``torch.no_grad()``), torch itself fills ``t.grad``
    from what the Function's backward returns: attaching the buffer there too would make torch
    add the returned gradient onto its own memory and double it."""
    torch = _torch()
    if grad is not None:
        return grad
    if t.grad is not None:
        return t.grad
    g = torch.empty_strided(t.shape, t.stride(), dtype=t.dtype, device=t.device).zero_()
    if torch.is_grad_enabled():
        t.grad = g
    return g


def from_torch(t, dtype=None, requires_grad=None, grad=None, return_ctype=False, retain_grad=False):
    """A wp array sharing the memory of torch tensor ``t`` (zero-copy).

    ``dtype`` views the data as a vector/matrix type (``dtype=wp.vec3`` on an (N, 3) tensor).
    When ``t`` requires grad (or ``requires_grad=True``), the array's gradient is ``grad`` or
    ``t.grad`` (allocated if missing), so gradients computed by Warp land in ``t.grad``.
    ``return_ctype=True`` returns the bare kernel descriptor instead of a wp.array: the cheapest
    form, accepted by ``wp.launch`` only. ``retain_grad`` is the array's ``retain_grad``."""
    torch = _torch()
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"wp.from_torch expects a torch.Tensor, got {type(t).__name__}")
    dtype, shape, strides = _layout(t, dtype)
    if requires_grad is None:
        requires_grad = t.requires_grad
    g = None
    if requires_grad or grad is not None:
        if requires_grad and not t.requires_grad:
            t.requires_grad_(True)
        gt = _grad_tensor(t, grad)
        if isinstance(gt, torch.Tensor):
            gdtype, gshape, gstrides = _layout(gt, dtype)
            g = wrap(gt.data_ptr(), gshape, gstrides, dtype, _device_of(gt), gt)
        else:
            g = gt   # already a wp array
    if return_ctype:
        return make_desc(t.data_ptr(), g.ptr if g is not None else 0, shape, strides)
    a = wrap(t.data_ptr(), shape, strides, dtype, _device_of(t), t,
             requires_grad=bool(requires_grad), grad=g)
    a._capacity = _storage_bytes_from(t)
    if retain_grad:
        a.retain_grad = True
    return a


def _storage_bytes_from(t):
    """The bytes of the tensor's storage from its first element on: a view's ``capacity`` is
    what remains of the storage it views, as in warp-lang (0 for a tensor without memory)."""
    ptr = t.data_ptr()
    if not ptr:
        return 0
    storage = t.untyped_storage()
    return storage.nbytes() - (ptr - storage.data_ptr())


def to_torch(a, requires_grad=None):
    """A torch tensor sharing the memory of wp array ``a`` (zero-copy).

    Vector/matrix elements become trailing dimensions. When the array requires grad (or
    ``requires_grad=True``) the tensor requires grad and its ``.grad`` views ``a.grad``, so a
    torch optimiser steps with the gradients Warp computes."""
    torch = _torch()
    from ..types.array import array
    if not isinstance(a, array) or a.is_annotation:
        raise TypeError(f"wp.to_torch expects a wp.array, got {type(a).__name__}")
    if requires_grad is None:
        requires_grad = a.requires_grad
    t = _tensor_of(torch, a)
    if requires_grad:
        if a.grad is None:
            a.requires_grad = True
        t.requires_grad_(True)
        t.grad = _tensor_of(torch, a.grad)
    return t


def _tensor_of(torch, a):
    if a.device.is_cpu:
        if a.size == 0:
            return torch.empty(tuple(a.numpy().shape), dtype=_torch_dtype(a.dtype))
        if scalar_of(a.dtype) is sc.bfloat16:   # NumPy has no bfloat16: share its bits
            return torch.from_numpy(a.device.memory.to_numpy(a)).view(torch.bfloat16)
        return torch.from_numpy(a.numpy())
    return torch.utils.dlpack.from_dlpack(a)
