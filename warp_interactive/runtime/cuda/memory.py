"""Device memory (stream-ordered where the device supports memory pools), pinned host memory,
and copies between them. Every operation is ordered on the device's current stream."""

import ctypes

import numpy as np

from .driver import call, drv


class DeviceBuffer:
    """``nbytes`` of memory on a CUDA device; freed (stream-ordered) when garbage collected."""

    def __init__(self, device, nbytes, stream=None):
        self.device, self.nbytes = device, nbytes
        if device.captures:
            raise RuntimeError(f"cannot allocate an array on {device} during a graph capture: "
                               "allocate the arrays the graph uses before wp.capture_begin()")
        d = drv()
        stream = stream or device.stream
        with device.activated():
            if nbytes == 0:
                self.ptr, self._async = 0, False
            elif device.is_mempool_supported and getattr(device, "mempool_enabled", True):
                self.ptr, self._async = int(call(d.cuMemAllocAsync, nbytes, stream.handle)), True
            else:
                self.ptr, self._async = int(call(d.cuMemAlloc, nbytes)), False
        self._stream = stream

    @property
    def memory_kind(self):
        """warp-lang's MemoryKind code: 4 (a memory-pool allocation) or 3 (device memory)."""
        return 4 if self._async else 3

    def __del__(self):
        if not getattr(self, "ptr", 0):
            return
        try:
            d = drv()
            if self._async:
                d.cuMemFreeAsync(self.ptr, self.device.stream.handle)
            else:
                d.cuMemFree(self.ptr)
        except Exception:  # interpreter shutdown: the driver may be gone already
            pass


class PinnedBuffer:
    """Page-locked host memory (fast, asynchronous copies); exposed as a NumPy array."""

    def __init__(self, nbytes):
        self.nbytes = nbytes
        self.ptr = 0
        if nbytes:
            # the driver allocates page-locked memory in the current context (none is current in
            # a thread that never touched a GPU: CUDA_ERROR_INVALID_CONTEXT); PORTABLE makes it
            # page-locked for every context, as a CPU array may feed any GPU
            with _host_context():
                self.ptr = int(call(drv().cuMemHostAlloc, nbytes, _CU_MEMHOSTALLOC_PORTABLE))

    def numpy(self, dtype, shape):
        if not self.nbytes:
            return np.zeros(shape, dtype)
        raw = (ctypes.c_byte * self.nbytes).from_address(self.ptr)
        raw._owner = self        # the NumPy array's base keeps the page-locked memory alive
        out = np.frombuffer(raw, dtype=dtype).reshape(shape)
        return out

    def __del__(self):
        if getattr(self, "ptr", 0):
            try:
                with _host_context():
                    drv().cuMemFreeHost(self.ptr)
            except Exception:  # interpreter shutdown: the driver may be gone already
                pass


_CU_MEMHOSTALLOC_PORTABLE = 1


def _host_context():
    """A context current for host-memory calls: the current GPU's, else cuda:0's."""
    from ..device import get_cuda_device
    return get_cuda_device().activated()


def _stream_of(device):
    return device.stream.handle


def memset_zero(device, ptr, nbytes):
    if nbytes:
        with device.activated():
            call(drv().cuMemsetD8Async, ptr, 0, nbytes, _stream_of(device))


def memset(device, ptr, word, width, count):
    """``count`` words of ``width`` bytes (1, 2 or 4), each ``word``."""
    fn = {1: "cuMemsetD8Async", 2: "cuMemsetD16Async", 4: "cuMemsetD32Async"}[width]
    if count:
        with device.activated():
            call(getattr(drv(), fn), ptr, word, count, _stream_of(device))


def _no_capture(device, what):
    if device.captures:
        raise RuntimeError(f"{what} cannot be part of a graph captured on {device} (it goes through "
                           "the host and waits for the GPU): do it before wp.capture_begin(), or use "
                           "kernels, wp.copy between device arrays, zero_() or fill_() with a "
                           "value whose bytes repeat every 4 bytes")


def upload(device, dst_ptr, host):
    """Host (a contiguous NumPy array) -> device; waits, as ``host`` may be pageable."""
    _no_capture(device, "a copy from host memory to the device")
    if host.nbytes:
        with device.activated():
            call(drv().cuMemcpyHtoDAsync, dst_ptr, host.ctypes.data, host.nbytes, _stream_of(device))
            device.stream.synchronize()


def download(device, src_ptr, nbytes):
    """Device -> a new host byte buffer (NumPy uint8); waits for the stream."""
    _no_capture(device, "a copy from the device to host memory")
    out = np.empty(nbytes, dtype=np.uint8)
    if nbytes:
        with device.activated():
            call(drv().cuMemcpyDtoHAsync, out.ctypes.data, src_ptr, nbytes, _stream_of(device))
            device.stream.synchronize()
    return out


def device_to_device(device, dst_ptr, src_ptr, nbytes):
    """A copy between device pointers (same device, or peers under unified addressing)."""
    if nbytes:
        with device.activated():
            call(drv().cuMemcpyAsync, dst_ptr, src_ptr, nbytes, _stream_of(device))


def pointer_device_ordinal(ptr):
    """The ordinal of the device that owns ``ptr`` (for arrays from __cuda_array_interface__)."""
    d = drv()
    attr = d.CUpointer_attribute.CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL
    return int(call(d.cuPointerGetAttribute, attr, ptr))


class CustomAllocation:
    """Memory of one CUDA array from a custom allocator (runtime/allocators.py), given back
    through the allocator's ``deallocate`` when garbage collected."""

    def __init__(self, device, allocator, nbytes):
        self.device, self.allocator, self.nbytes = device, allocator, nbytes
        self.memory_kind = int(getattr(allocator, "memory_kind", 3))   # 3: MemoryKind.CUDA_DEVICE
        self.ptr = int(allocator.allocate(nbytes)) if nbytes else 0
        if nbytes and not self.ptr:
            raise RuntimeError(f"the custom allocator {allocator!r} returned a null pointer for "
                               f"{nbytes} bytes on {device}")

    def __del__(self):
        if getattr(self, "ptr", 0):
            try:
                with self.device.activated():
                    self.allocator.deallocate(self.ptr, self.nbytes)
            except Exception:   # interpreter shutdown
                pass
