"""The structs every kernel launch hands to C: the array descriptor (``wp::array_t<T>``) and
the launch bounds (``wp::launch_bounds_t``), both in native/include/warp_interactive/core/core.h.

These ctypes layouts are the one Python-side source of truth: the launch paths, the fast plan's
packing formats and the JAX FFI handler (its static_assert) take their sizes from here, and
tests/datatypes/test_abi_layout.py compares every size and field offset with the compiled C++ structs."""

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


class IndexedArrayDesc(ctypes.Structure):
    """Mirrors ``wp::indexedarray_t<T>`` (native/include/warp_interactive/core/indexed.h): the data
    array's descriptor, then one index array per dimension (0: not indexed), then the indexed
    shape (warp-lang's indexedarray_t layout)."""
    _fields_ = [
        ("data", ctypes.c_uint64),
        ("grad", ctypes.c_uint64),
        ("strides", ctypes.c_int64 * MAX_DIMS),     # the data array's
        ("arr_shape", ctypes.c_int32 * MAX_DIMS),   # the data array's shape
        ("ndim", ctypes.c_int32),
        ("flags", ctypes.c_int32),
        ("indices", ctypes.c_uint64 * MAX_DIMS),    # 0: the dimension is not indexed
        ("shape", ctypes.c_int32 * MAX_DIMS),       # the indexed shape
    ]


class LaunchBounds(ctypes.Structure):
    """Mirrors ``wp::launch_bounds_t``."""
    _fields_ = [("shape", ctypes.c_int32 * MAX_DIMS), ("ndim", ctypes.c_int32),
                ("pad", ctypes.c_int32), ("size", ctypes.c_int64)]


ARRAY_DESC_SIZE = ctypes.sizeof(ArrayDesc)
INDEXED_ARRAY_DESC_SIZE = ctypes.sizeof(IndexedArrayDesc)
LAUNCH_BOUNDS_SIZE = ctypes.sizeof(LaunchBounds)


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
