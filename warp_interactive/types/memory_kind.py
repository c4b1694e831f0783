"""``wp.MemoryKind``: the class of memory behind an array (``a.memory_kind``), warp-lang's codes."""

import enum


class MemoryKind(enum.IntEnum):
    """What kind of memory backs an array (not where it resides now, nor who may access it)."""
    UNKNOWN = 0
    HOST = 1
    PINNED = 2
    CUDA_DEVICE = 3
    CUDA_MEMPOOL = 4
    CUDA_MANAGED = 5


def memory_kind_of(a):
    """The kind of ``a``'s memory: its device's, or what its allocation reports (an allocation
    object may carry ``memory_kind``; a view asks the array it views)."""
    device = getattr(a, "device", None)
    if device is None or getattr(a, "ptr", None) is None:
        return MemoryKind.UNKNOWN
    if device.is_cpu:
        return MemoryKind.PINNED if a.pinned else MemoryKind.HOST
    ref, seen = getattr(a, "_ref", None), 0
    while ref is not None and seen < 64:
        kind = getattr(ref, "memory_kind", None)
        if kind is not None and not hasattr(ref, "_ref"):
            return MemoryKind(kind)
        ref, seen = getattr(ref, "_ref", None), seen + 1
    return MemoryKind.CUDA_DEVICE
