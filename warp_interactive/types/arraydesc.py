"""The array descriptor that crosses into C (mirrors ``wp::array_t<T>`` in core.h)."""

import ctypes

MAX_DIMS = 4
RETAIN_GRAD = 1     # flags bit: stores leave the element's gradient (wp.array(retain_grad=True))


class ArrayDesc(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_uint64),
        ("grad", ctypes.c_uint64),
        ("strides", ctypes.c_int64 * MAX_DIMS),
        ("shape", ctypes.c_int32 * MAX_DIMS),
        ("ndim", ctypes.c_int32),
        ("flags", ctypes.c_int32),      # RETAIN_GRAD
    ]


def make_desc(ptr, grad_ptr, shape, strides, retain_grad=False):
    d = ArrayDesc()
    d.flags = RETAIN_GRAD if retain_grad else 0
    d.data = ptr or 0
    d.grad = grad_ptr or 0
    for i, (n, s) in enumerate(zip(shape, strides)):
        d.shape[i] = n
        d.strides[i] = s
    d.ndim = len(shape)
    return d
