"""Memory allocators: the ``wp.Allocator`` protocol, each device's built-in allocators
(``device.default_allocator``, the CPU's ``pinned_allocator``), and custom allocators for CUDA
devices (``wp.set_device_allocator``, ``wp.set_cuda_allocator``, ``wp.ScopedAllocator``): CUDA
arrays allocated while one is set take their memory from its ``allocate`` and give it back through
its ``deallocate`` when the last array using it goes away. As in warp-lang, custom allocators are
for CUDA devices only (CPU arrays are NumPy buffers)."""

from typing import Protocol, runtime_checkable

import numpy as np

from ..types.memory_kind import MemoryKind
from .cuda.memory import CustomAllocation, DeviceBuffer, PinnedBuffer  # noqa: F401
from .. import hooks
from .device import cuda_device_for, get_cuda_devices, get_device


@runtime_checkable
class Allocator(Protocol):
    """Anything with ``allocate(size_in_bytes) -> int`` (a pointer) and
    ``deallocate(ptr, size_in_bytes)``; a ``memory_kind`` attribute says what it hands out."""

    def allocate(self, size_in_bytes: int) -> int: ...

    def deallocate(self, ptr: int, size_in_bytes: int) -> None: ...


def validate_allocator(allocator):
    if allocator is None:
        return
    if not isinstance(allocator, Allocator) or not callable(getattr(allocator, "allocate", None)) \
            or not callable(getattr(allocator, "deallocate", None)):
        raise TypeError("allocator must implement the Allocator protocol (allocate(size_in_bytes) -> "
                        f"int, deallocate(ptr, size_in_bytes) -> None), got {type(allocator)!r}")


class _BufferAllocator:
    """A built-in allocator: each allocation is a buffer object kept until ``deallocate``."""

    def __init__(self, make, memory_kind):
        self._make, self._live, self.memory_kind = make, {}, memory_kind

    def allocate(self, size_in_bytes):
        buf = self._make(int(size_in_bytes))
        ptr = int(buf.ptr if hasattr(buf, "ptr") else buf.ctypes.data)
        if ptr:
            self._live[ptr] = buf
        return ptr

    def deallocate(self, ptr, size_in_bytes):
        self._live.pop(int(ptr), None)


def _host_buffer(nbytes):
    raw = np.empty(max(nbytes, 1) + 64, dtype=np.uint8)     # at a 64-byte boundary
    off = (-raw.ctypes.data) % 64
    return raw[off:off + max(nbytes, 1)]


def _pinned_buffer(nbytes):
    from .device import is_cuda_available
    if not is_cuda_available():
        return _host_buffer(nbytes)
    return PinnedBuffer(max(nbytes, 1))


def default_allocator_for(device):
    """The built-in allocator of ``device`` (one object per device)."""
    alloc = device.__dict__.get("_default_allocator")
    if alloc is None:
        if device.is_cpu:
            alloc = _BufferAllocator(_host_buffer, MemoryKind.HOST)
        else:
            alloc = _BufferAllocator(lambda n: DeviceBuffer(device, n), MemoryKind.CUDA_DEVICE)
        device._default_allocator = alloc
    return alloc


def pinned_allocator_for(device):
    """The CPU's page-locked allocator (one object)."""
    alloc = device.__dict__.get("_pinned_allocator")
    if alloc is None:
        alloc = device._pinned_allocator = _BufferAllocator(_pinned_buffer, MemoryKind.PINNED)
    return alloc


class CudaManagedAllocator:
    """CUDA managed (unified) memory, on the current CUDA device."""

    memory_kind = MemoryKind.CUDA_MANAGED

    def __init__(self, device=None):
        self._device = device

    def allocate(self, size_in_bytes):
        device = get_device(self._device) if self._device is not None else _current_cuda()
        from .cuda.driver import call, drv
        with device.activated():
            try:
                return int(call(drv().cuMemAllocManaged, int(size_in_bytes), 1))  # CU_MEM_ATTACH_GLOBAL
            except Exception as e:
                raise RuntimeError(f"Failed to allocate {size_in_bytes} bytes with "
                                   f"CudaManagedAllocator: {e}") from None

    def deallocate(self, ptr, size_in_bytes):
        if ptr:
            from .cuda.driver import drv
            drv().cuMemFree(ptr)


def _current_cuda():
    if not get_cuda_devices():
        raise RuntimeError("CudaManagedAllocator needs a CUDA device (none is available)")
    return cuda_device_for(None)


def set_device_allocator(device, allocator):
    """Use ``allocator`` for new arrays on the CUDA ``device`` (None: the built-in one)."""
    device = get_device(device)
    device.check_custom_allocator()
    validate_allocator(allocator)
    device._custom_allocator = allocator


def set_cuda_allocator(allocator):
    """Use ``allocator`` on every CUDA device (None: the built-in ones)."""
    validate_allocator(allocator)
    devices = get_cuda_devices()
    if not devices:
        raise RuntimeError("set_cuda_allocator: no CUDA devices available")
    for device in devices:
        device._custom_allocator = allocator


def get_device_allocator(device):
    """The allocator new arrays on ``device`` use: a custom one if set, else the built-in one."""
    device = get_device(device)
    return device.__dict__.get("_custom_allocator") or default_allocator_for(device)


class ScopedAllocator:
    """``with wp.ScopedAllocator(device, allocator):`` a custom allocator for the block."""

    def __init__(self, device, allocator):
        self.device = get_device(device)
        self.device.check_custom_allocator()
        validate_allocator(allocator)
        self.allocator = allocator

    def __enter__(self):
        self.saved = self.device.__dict__.get("_custom_allocator")
        self.device._custom_allocator = self.allocator
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        self.device._custom_allocator = self.saved


# Device.default_allocator / pinned_allocator ask through this (hooks.py: device.py is imported here)
hooks.allocators_for = (lambda device, which: default_allocator_for(device) if which == "default"
                        else pinned_allocator_for(device))
