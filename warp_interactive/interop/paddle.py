"""Paddle: zero-copy tensors <-> wp arrays (through DLPack), gradients converted together.

As with torch: ``to_paddle(a)`` gives a tensor viewing the array whose gradient views
``a.grad`` (so ``paddle.optimizer`` steps with Warp's gradients); ``from_paddle(t)`` views the
tensor and, when it needs gradients, its gradient tensor. paddle is imported on first use only.
"""

from ..types import scalars as sc
from ..types.arraydesc import make_desc
from ..types.dtypes import scalar_of, type_repr


def _paddle():
    try:
        import paddle
    except ImportError:
        raise ImportError("Paddle is not installed: pip install paddlepaddle "
                          "(or warp_interactive[paddle])") from None
    return paddle


_NAMES = {sc.float16: "float16", sc.bfloat16: "bfloat16", sc.float32: "float32", sc.float64: "float64",
          sc.int8: "int8", sc.uint8: "uint8", sc.int16: "int16", sc.int32: "int32",
          sc.int64: "int64", sc.bool_: "bool"}


def dtype_to_paddle(warp_dtype):
    """The paddle dtype of a warp type (of its scalar, for vector/matrix types)."""
    name = _NAMES.get(scalar_of(warp_dtype))
    if name is None:
        raise TypeError(f"warp type {type_repr(warp_dtype)} has no Paddle equivalent")
    return getattr(_paddle(), name)


def dtype_from_paddle(paddle_dtype):
    """The warp scalar type of a paddle dtype (``paddle.float32`` -> ``wp.float32``)."""
    paddle = _paddle()
    for s, name in _NAMES.items():
        if paddle_dtype == getattr(paddle, name):
            return s
    raise TypeError(f"paddle dtype {paddle_dtype} has no warp_interactive equivalent "
                    "(supported: bool, int8..int64, uint8, float16/32/64, bfloat16)")


def device_from_paddle(paddle_device):
    """The wp Device of a paddle place or device string (``"cpu"``, ``"gpu:0"``...)."""
    from ..runtime.device import get_device
    if not isinstance(paddle_device, str):
        place = paddle_device
        if place.is_cpu_place():
            return get_device("cpu")
        if place.is_gpu_place():
            return get_device(f"cuda:{place.gpu_device_id()}")
        raise ValueError(f"paddle place {place} has no warp_interactive equivalent")
    name = paddle_device.lower()
    if name == "cpu":
        return get_device("cpu")
    if name.startswith("gpu") or name.startswith("cuda"):
        index = name.split(":")[1] if ":" in name else "0"
        return get_device(f"cuda:{index}")
    raise ValueError(f"paddle device {paddle_device!r} has no warp_interactive equivalent")


def device_to_paddle(warp_device):
    """The paddle device string of a wp device (``"cpu"``, ``"gpu:0"``)."""
    from ..runtime.device import get_device
    d = get_device(warp_device)
    return "cpu" if d.is_cpu else f"gpu:{d.ordinal}"


def stream_from_paddle(stream_or_device=None):
    """The wp Stream over a paddle CUDA stream (or the current stream of a paddle device)."""
    paddle = _paddle()
    s = stream_or_device
    if s is None or isinstance(s, str):
        s = paddle.device.current_stream(s)
    from .torch import _stream_class
    device = device_from_paddle(s.place if hasattr(s, "place") else s.device)
    return _stream_class()(device, cuda_stream=s.stream_base.cuda_stream
                           if hasattr(s, "stream_base") else s.cuda_stream)


def stream_to_paddle(stream_or_device=None):
    """The paddle ExternalStream over a wp CUDA stream (or a wp device's current stream)."""
    from ..runtime.device import Device, get_device
    s = stream_or_device
    if s is None or isinstance(s, (str, Device)):
        s = get_device(s).stream
    if s.device.is_cpu:
        raise RuntimeError(f"{s.device} streams have no paddle counterpart (paddle streams are CUDA streams)")
    return _paddle().device.Stream(device=device_to_paddle(s.device), stream_base=s.cuda_stream)


def _view(t, dtype):
    from .dlpack import from_dlpack
    return from_dlpack(_paddle().utils.dlpack.to_dlpack(t), dtype=dtype)


def from_paddle(t, dtype=None, requires_grad=None, grad=None, return_ctype=False):
    """A wp array sharing the memory of paddle tensor ``t`` (zero-copy).

    When ``t`` needs gradients (``stop_gradient=False``) or ``requires_grad=True``, the array's
    gradient is ``grad`` or ``t.grad`` (allocated if missing), so Warp writes ``t``'s gradient."""
    paddle = _paddle()
    if not isinstance(t, paddle.Tensor):
        raise TypeError(f"wp.from_paddle expects a paddle.Tensor, got {type(t).__name__}")
    a = _view(t, dtype)
    if requires_grad is None:
        requires_grad = not t.stop_gradient
    if requires_grad or grad is not None:
        if requires_grad:
            t.stop_gradient = False
        if grad is None:
            if t.grad is None:
                t.grad = paddle.zeros_like(t)
            grad = t.grad   # a view of paddle's own gradient buffer, which stays put
        a.grad = grad if not isinstance(grad, paddle.Tensor) else _view(grad, a.dtype)
        a.requires_grad = True
    if return_ctype:
        return make_desc(a.ptr, a.grad.ptr if a.grad is not None else 0, a.shape, a.strides)
    return a


def to_paddle(a, requires_grad=None):
    """A paddle tensor sharing the memory of wp array ``a`` (zero-copy, through DLPack).

    When the array requires grad (or ``requires_grad=True``) the tensor has
    ``stop_gradient=False`` and ``a.grad`` becomes a view of the tensor's gradient buffer
    (holding the same values), so a paddle optimiser steps with the gradients Warp computes."""
    paddle = _paddle()
    from ..types.array import array
    from .dlpack import to_dlpack
    if not isinstance(a, array) or a.is_annotation:
        raise TypeError(f"wp.to_paddle expects a wp.array, got {type(a).__name__}")
    if requires_grad is None:
        requires_grad = a.requires_grad
    t = paddle.utils.dlpack.from_dlpack(to_dlpack(a))
    if requires_grad:
        if a.grad is None:
            a.requires_grad = True
        if not a.is_contiguous:
            raise ValueError("wp.to_paddle with gradients needs a contiguous array (Paddle's "
                             "gradient buffer is dense): use .contiguous()")
        t.stop_gradient = False
        # Paddle copies a gradient assigned to a tensor into a buffer of its own; that buffer
        # stays put, so the array's gradient becomes a view of it: Warp writes, Paddle reads
        t.grad = paddle.utils.dlpack.from_dlpack(to_dlpack(a.grad))
        a.grad = _view(t.grad, a.dtype)
    return t
