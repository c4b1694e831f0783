"""The array descriptor that crosses into C (mirrors ``wp::array_t<T>`` in core.h)."""

import ctypes

MAX_DIMS = 4


class ArrayDesc(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_uint64),
        ("grad", ctypes.c_uint64),
        ("strides", ctypes.c_int64 * MAX_DIMS),
        ("shape", ctypes.c_int32 * MAX_DIMS),
        ("ndim", ctypes.c_int32),
        ("pad", ctypes.c_int32),
    ]


def make_desc(ptr, grad_ptr, shape, strides):
    d = ArrayDesc()
    d.data = ptr or 0
    d.grad = grad_ptr or 0
    for i, (n, s) in enumerate(zip(shape, strides)):
        d.shape[i] = n
        d.strides[i] = s
    d.ndim = len(shape)
    return d
