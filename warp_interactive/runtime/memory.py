"""Arrays' storage: one memory backend per device, chosen once (``Device.memory``).

``types/array.py`` keeps an array's shape, strides, dtype and views; allocating, filling,
copying and moving its bytes go through ``array.device.memory``: ``CpuMemory`` (NumPy buffers
at a 64-byte boundary, page-locked when pinned) or ``CudaMemory`` (runtime/cuda/arrays.py).
A copy with a GPU on either side goes through the GPU's backend (``Device.transfer_memory``).
"""

import numpy as np

from .. import hooks
from . import host_pool
from ..config import config
from .memory_tracker import on_allocate, tracker as _tracker
from .device import is_cuda_available
from ..types.array import array, contiguous_strides, copy_count
from ..types.dtypes import element_shape, infer_dtype, np_dtype_of, type_repr, type_size


def aligned_empty(shape, np_dtype, align=64):
    """An uninitialised C-contiguous NumPy buffer at a 64-byte boundary: what XLA (JAX) needs
    to share CPU memory zero-copy, and a cache line for the kernels' threads."""
    np_dtype = np.dtype(np_dtype)
    nbytes = int(np.prod(shape)) * np_dtype.itemsize
    if nbytes + align >= host_pool.MIN_BYTES:
        raw = host_pool.take(nbytes + align)     # a freed large block's warm pages when one fits
    else:
        raw = np.empty(nbytes + align, dtype=np.uint8)
    off = (-raw.ctypes.data) % align
    return raw[off:off + nbytes].view(np_dtype).reshape(shape)


def host_zeros(shape, npd, pinned, zero=True):
    """Host memory (zeroed unless ``zero=False``): page-locked when ``pinned`` and CUDA is
    usable, else 64-byte aligned (see aligned_empty)."""
    out = None
    if pinned:
        if is_cuda_available():
            from .cuda.memory import PinnedBuffer
            nbytes = int(np.prod(shape)) * npd.itemsize
            out = PinnedBuffer(nbytes).numpy(npd, shape)
    if out is None:
        out = aligned_empty(shape, npd)
    if zero:    # every byte, a struct's padding too (assigning a zero element skips the padding)
        out.reshape(-1).view(np.uint8)[...] = 0
    return out


class CpuMemory:
    """Host memory owned by NumPy buffers: ``numpy()`` is a zero-copy view."""

    def allocate(self, a, shape):
        buf = host_zeros(shape + element_shape(a.dtype), np_dtype_of(a.dtype), a.pinned)
        a._set_view(buf.ctypes.data, shape, buf.strides[:len(shape)], buf)
        if _tracker.scoped or config.track_memory:
            on_allocate(a, buf)

    def init_from_host(self, a, src, ndim):
        buf = host_zeros(src.shape, np_dtype_of(a.dtype), a.pinned, zero=False)
        buf[...] = src
        a._set_view(buf.ctypes.data, buf.shape[:ndim], buf.strides[:ndim], buf)
        if _tracker.scoped or config.track_memory:
            on_allocate(a, buf)

    def to_numpy(self, a):
        if a.size == 0:
            return np.zeros(a.shape + element_shape(a.dtype), dtype=np_dtype_of(a.dtype))
        out = np.asarray(a)
        npd = np_dtype_of(a.dtype)
        if npd.fields is not None and out.dtype != npd:
            out = out.view(npd)     # a struct's dtype (its padding named '' in the interface's descr)
        return out

    def set_item(self, a, key, value):
        self.to_numpy(a)[key] = np.asarray(value)

    def assign(self, a, src_np):
        self.to_numpy(a)[...] = src_np.reshape(self.to_numpy(a).shape)

    def fill(self, a, value):
        view = self.to_numpy(a)
        view[...] = value

    def zero(self, a):
        view = self.to_numpy(a)
        if view.dtype.fields is not None:
            # every byte of a struct, its padding too, as wp.zeros (assigning a zero struct
            # writes the fields only); a same-size view works for strided arrays too
            view = view.view(np.dtype((np.void, view.dtype.itemsize)))
        view[...] = np.zeros((), dtype=view.dtype)

    def copy(self, dest, src, dest_offset, src_offset, count):
        """Copy ``count`` elements (all when 0) at flat offsets; the count copied."""
        s = self.to_numpy(src).reshape((src.size,) + element_shape(src.dtype)) if src.size else self.to_numpy(src)
        d = self.to_numpy(dest).reshape((dest.size,) + element_shape(dest.dtype)) if dest.size else self.to_numpy(dest)
        count = copy_count(dest, src, dest_offset, src_offset, count)
        part = s[src_offset:src_offset + count]
        if part.shape[1:] != d.shape[1:] and part[:1].size == d[:1].size:
            part = part.reshape((count,) + d.shape[1:])   # float64 <-> vec1d: the same scalars per element
        if dest.is_contiguous:
            d[dest_offset:dest_offset + count] = part
        else:
            flat = self.to_numpy(dest).copy().reshape(d.shape)
            flat[dest_offset:dest_offset + count] = part
            self.to_numpy(dest)[...] = flat.reshape(self.to_numpy(dest).shape)
        return count

    def interface_of(self, a):
        raise AttributeError("only arrays on CUDA devices have a __cuda_array_interface__")


class CudaMemory:
    """Device memory of one GPU (runtime/cuda/arrays.py: driver allocations and transfers)."""

    def __init__(self):
        from .cuda import arrays
        self.cu = arrays

    def allocate(self, a, shape):
        ptr, owner = self.cu.allocate(a.device, shape, a.dtype)
        a._set_view(ptr, shape, contiguous_strides(shape, type_size(a.dtype)), owner)
        if _tracker.scoped or config.track_memory:
            on_allocate(a, owner)

    def init_from_host(self, a, src, ndim):
        self.allocate(a, tuple(src.shape[:ndim]))
        self.cu.from_numpy(a, src)

    def to_numpy(self, a):
        return self.cu.to_numpy(a)

    def set_item(self, a, key, value):
        host = self.to_numpy(a)
        host[key] = np.asarray(value)
        self.cu.from_numpy(a, host)

    def assign(self, a, src_np):
        self.cu.from_numpy(a, src_np.reshape(tuple(a.shape) + element_shape(a.dtype)))

    def fill(self, a, value):
        self.cu.fill(a, value)

    def zero(self, a):
        self.cu.zero(a)

    def copy(self, dest, src, dest_offset, src_offset, count):
        count = copy_count(dest, src, dest_offset, src_offset, count)
        self.cu.copy(dest, src, dest_offset, src_offset, count)
        return count

    def interface_of(self, a):
        return self.cu.interface_of(a)


_cpu_memory = CpuMemory()


def from_cuda_interface(a, obj, copy):
    """Zero-copy view of a CUDA array from another library (a copy if ``copy=True``)."""
    from .cuda import arrays as cu
    ptr, shape, strides, npd, stream = cu.parse_interface(obj)
    if a.dtype is None:
        a.dtype = infer_dtype(np.empty(0, dtype=npd))
    es = element_shape(a.dtype)
    if npd != np_dtype_of(a.dtype) or (es and tuple(shape[-len(es):]) != es):
        raise ValueError(f"the CUDA array (typestr {npd.str}, shape {shape}) does not fit dtype "
                         f"{type_repr(a.dtype)}")
    ndim = len(shape) - len(es)
    device = cu.device_of_pointer(ptr)
    cu.wait_for_producer(device, stream)
    strides = strides[:ndim] if strides else contiguous_strides(shape[:ndim], type_size(a.dtype))
    view = array.__new__(array)
    view.dtype, view.device, view._requires_grad, view._grad = a.dtype, device, False, None
    view.pinned = False
    view._set_view(ptr, shape[:ndim], strides, obj)
    if copy:    # into memory of a's device (a download when that is the CPU)
        a._allocate(view.shape)
        a.device.transfer_memory(device).copy(a, view, 0, 0, view.size)
    else:
        a.device = device
        a._set_view(ptr, view.shape, view.strides, obj)


hooks.from_cuda_interface = from_cuda_interface


hooks.cpu_memory = lambda: _cpu_memory   # Device.memory on the CPU (hooks.py)
