"""The CUDA side of ``wp.array``: allocation, host <-> device transfers (strided views too),
copies, and ``__cuda_array_interface__`` in both directions. types/array.py calls these for
arrays whose device is a CUDA device."""

import numpy as np

from ...types.dtypes import element_shape, np_dtype_of, type_size
from . import memory


def allocate(device, shape, dtype, zero=True):
    """(pointer, owner) of fresh contiguous memory for ``shape`` elements of ``dtype``."""
    n = int(np.prod(shape)) if shape else 0
    if device._custom_allocator is not None and n:   # wp.set_device_allocator's
        buf = memory.CustomAllocation(device, device._custom_allocator, n * type_size(dtype))
        if zero:
            memory.memset_zero(device, buf.ptr, buf.nbytes)
        return buf.ptr, buf
    buf = memory.DeviceBuffer(device, n * type_size(dtype))
    if zero:
        memory.memset_zero(device, buf.ptr, buf.nbytes)
    return buf.ptr, buf


def _span(a):
    """(lowest byte offset, byte count) covering every element of the view ``a``."""
    lo = sum(min(0, (n - 1) * s) for n, s in zip(a.shape, a.strides))
    hi = sum(max(0, (n - 1) * s) for n, s in zip(a.shape, a.strides))
    return lo, hi - lo + type_size(a.dtype)


def _host_view(a, raw, lo):
    """A NumPy view over downloaded bytes ``raw`` laid out as ``a`` (offset ``lo``)."""
    npd = np_dtype_of(a.dtype)
    es = element_shape(a.dtype)
    inner = []
    acc = npd.itemsize
    for n in reversed(es):
        inner.insert(0, acc)
        acc *= n
    return np.ndarray(tuple(a.shape) + es, dtype=npd, buffer=raw, offset=-lo,
                      strides=tuple(a.strides) + tuple(inner))


def to_numpy(a):
    """A contiguous host copy of the CUDA array ``a`` (waits for the work queued before)."""
    if a.size == 0:
        return np.zeros(tuple(a.shape) + element_shape(a.dtype), dtype=np_dtype_of(a.dtype))
    lo, nbytes = _span(a)
    raw = memory.download(a.device, a.ptr + lo, nbytes)
    return np.ascontiguousarray(_host_view(a, raw, lo))


def from_numpy(a, host):
    """Write ``host`` (broadcast to ``a``'s shape) into the CUDA array ``a``."""
    if a.size == 0:
        return
    npd = np_dtype_of(a.dtype)
    target = tuple(a.shape) + element_shape(a.dtype)
    host = np.broadcast_to(np.asarray(host, dtype=npd), target)
    if a.is_contiguous:
        memory.upload(a.device, a.ptr, np.ascontiguousarray(host))
        return
    lo, nbytes = _span(a)
    raw = memory.download(a.device, a.ptr + lo, nbytes)   # keep the bytes between elements
    _host_view(a, raw, lo)[...] = host
    memory.upload(a.device, a.ptr + lo, raw)


def fill(a, value):
    """Set every element to ``value``: a memset when its bytes repeat every 1, 2 or 4 bytes
    (any scalar of up to 4 bytes, vectors of one repeated value...), which graph capture
    records; otherwise an upload from the host."""
    npd = np_dtype_of(a.dtype)
    one = np.broadcast_to(np.asarray(value, dtype=npd), element_shape(a.dtype) or ()).copy()
    raw = one.tobytes()
    if a.is_contiguous and a.size:
        for width in (1, 2, 4):
            if len(raw) % width == 0 and raw == raw[:width] * (len(raw) // width):
                word = int.from_bytes(raw[:width], "little")
                memory.memset(a.device, a.ptr, word, width, a.size * len(raw) // width)
                return
    from_numpy(a, one)


def zero(a):
    if a.is_contiguous:
        memory.memset_zero(a.device, a.ptr, a.size * type_size(a.dtype))
    else:
        from_numpy(a, np.zeros((), dtype=np_dtype_of(a.dtype)))


def copy(dest, src, dest_offset, src_offset, count):
    """``count`` elements from ``src`` to ``dest`` (flat offsets); at least one is on a GPU."""
    size = type_size(src.dtype)
    if dest.is_contiguous and src.is_contiguous and type_size(dest.dtype) == size:
        nbytes = count * size
        dptr, sptr = dest.ptr + dest_offset * size, src.ptr + src_offset * size
        if dest.device.is_cuda and src.device.is_cuda:
            memory.device_to_device(dest.device, dptr, sptr, nbytes)
        elif dest.device.is_cuda:
            host = np.ctypeslib.as_array((np.ctypeslib.ctypes.c_ubyte * nbytes).from_address(sptr))
            memory.upload(dest.device, dptr, host)
        else:
            raw = memory.download(src.device, sptr, nbytes)
            np.ctypeslib.as_array((np.ctypeslib.ctypes.c_ubyte * nbytes).from_address(dptr))[:] = raw
        return
    # strided views: through the host
    s = to_numpy(src).reshape((src.size,) + element_shape(src.dtype))
    d = to_numpy(dest).reshape((dest.size,) + element_shape(dest.dtype)).copy()
    d[dest_offset:dest_offset + count] = s[src_offset:src_offset + count]
    if dest.device.is_cuda:
        from_numpy(dest, d.reshape(tuple(dest.shape) + element_shape(dest.dtype)))
    else:
        to_numpy(dest)[...] = d.reshape(to_numpy(dest).shape)


# --- __cuda_array_interface__ ----------------------------------------------------------------------
def interface_of(a):
    """Our array's ``__cuda_array_interface__`` (version 3; the stream is the device's current)."""
    npd = np_dtype_of(a.dtype)
    es = element_shape(a.dtype)
    inner, acc = [], npd.itemsize
    for n in reversed(es):
        inner.insert(0, acc)
        acc *= n
    strides = None if a.is_contiguous else tuple(a.strides) + tuple(inner)
    iface = {"data": (a.ptr or 0, False), "shape": tuple(a.shape) + es, "strides": strides,
             "typestr": npd.str, "version": 3, "stream": a.device.stream.ptr}
    if npd.fields is not None:
        iface["descr"] = npd.descr
    return iface


def parse_interface(obj):
    """(pointer, shape, byte strides or None, NumPy dtype, stream) of ``obj``'s CUDA interface."""
    iface = obj.__cuda_array_interface__
    ptr = int(iface["data"][0] or 0)
    shape = tuple(int(s) for s in iface["shape"])
    npd = np.dtype(iface.get("descr") if iface.get("descr") and len(iface["descr"]) > 1 else iface["typestr"])
    strides = iface.get("strides")
    if iface.get("mask") is not None:
        raise TypeError("arrays with a __cuda_array_interface__ mask are not supported")
    return ptr, shape, (tuple(int(s) for s in strides) if strides else None), npd, iface.get("stream")


def device_of_pointer(ptr):
    from ..device import get_device
    if not ptr:
        return get_device("cuda")
    return get_device(f"cuda:{memory.pointer_device_ordinal(ptr)}")


def wait_for_producer(device, stream):
    """The interface's ``stream`` says where the data is produced: order our work after it."""
    if stream is None or stream in (1, 2):   # legacy / per-thread default streams: synchronous
        return
    from .driver import call, drv
    d = drv()
    with device.activated():
        ev = call(d.cuEventCreate, int(d.CUevent_flags.CU_EVENT_DISABLE_TIMING))
        call(d.cuEventRecord, ev, d.CUstream(int(stream)))
        call(d.cuStreamWaitEvent, device.stream.handle, ev, 0)
        d.cuEventDestroy(ev)
