"""warp-lang's CUDA-side queries and scopes: memory-pool figures, mempool/peer access scopes,
kernel properties and occupancy, device aliases, IPC handles, the toolkit version.

On the CPU each does what warp-lang's does on the CPU: the memory-pool figures and IPC raise
its ValueError/RuntimeError, the occupancy query answers ``(1, 1)``, the cluster query ``1``.
On a GPU they ask the driver (cuda-bindings, imported on first use).
"""

import operator

from .device import get_device
from . import device_access


# --- memory-pool figures ------------------------------------------------------------------------
def _mempool_device(device):
    d = get_device(device)
    if not d.is_cuda:
        raise ValueError("Memory pools are only supported on CUDA devices")
    if not d.is_mempool_supported:
        raise RuntimeError(f"Device {d} does not support memory pools")
    return d


def _pool_attribute(device, name, value=None):
    """Reads (or, given ``value``, sets) the attribute ``name`` of ``device``'s default pool."""
    from .cuda.driver import call, drv
    d = drv()
    pool = call(d.cuDeviceGetDefaultMemPool, device.handle)
    attr = getattr(d.CUmemPool_attribute, name)
    if value is None:
        return int(call(d.cuMemPoolGetAttribute, pool, attr))
    call(d.cuMemPoolSetAttribute, pool, attr, d.cuuint64_t(int(value)))
    return None


def get_mempool_release_threshold(device=None):
    """Bytes of unused memory ``device``'s pool keeps reserved before releasing it to the OS."""
    return _pool_attribute(_mempool_device(device), "CU_MEMPOOL_ATTR_RELEASE_THRESHOLD")


def set_mempool_release_threshold(device, threshold):
    """Sets the release threshold: bytes, or a fraction of the device's memory when in [0, 1]."""
    d = _mempool_device(device)
    if threshold < 0:
        raise ValueError("Memory pool release threshold must be non-negative")
    if 0.0 < threshold <= 1.0 and isinstance(threshold, float):
        threshold = int(threshold * d.total_memory)
    _pool_attribute(d, "CU_MEMPOOL_ATTR_RELEASE_THRESHOLD", int(threshold))


def get_mempool_used_mem_current(device=None):
    """Bytes of ``device``'s pool the application uses now."""
    return _pool_attribute(_mempool_device(device), "CU_MEMPOOL_ATTR_USED_MEM_CURRENT")


def get_mempool_used_mem_high(device=None):
    """The high-water mark of the bytes used from ``device``'s pool."""
    return _pool_attribute(_mempool_device(device), "CU_MEMPOOL_ATTR_USED_MEM_HIGH")


# --- scopes ---------------------------------------------------------------------------------------
class ScopedMempool:
    """Allocates from ``device``'s memory pool (``enable``) or not inside the scope; restores
    the previous setting on exit (on the CPU, enabling raises warp-lang's ValueError)."""

    def __init__(self, device, enable):
        self.device = get_device(device)
        self.enable = enable

    def __enter__(self):
        self.saved_setting = device_access.is_mempool_enabled(self.device)
        device_access.set_mempool_enabled(self.device, self.enable)

    def __exit__(self, exc_type, exc_value, traceback):
        device_access.set_mempool_enabled(self.device, self.saved_setting)


class ScopedMempoolAccess:
    """Enables (or disables) ``peer_device``'s access to ``target_device``'s memory pool inside
    the scope; restores the previous setting on exit."""

    def __init__(self, target_device, peer_device, enable):
        self.target_device, self.peer_device, self.enable = target_device, peer_device, enable

    def __enter__(self):
        self.saved_setting = device_access.is_mempool_access_enabled(self.target_device, self.peer_device)
        device_access.set_mempool_access_enabled(self.target_device, self.peer_device, self.enable)

    def __exit__(self, exc_type, exc_value, traceback):
        device_access.set_mempool_access_enabled(self.target_device, self.peer_device, self.saved_setting)


class ScopedPeerAccess:
    """Enables (or disables) ``peer_device``'s access to ``target_device``'s memory inside the
    scope; restores the previous setting on exit."""

    def __init__(self, target_device, peer_device, enable):
        self.target_device, self.peer_device, self.enable = target_device, peer_device, enable

    def __enter__(self):
        self.saved_setting = device_access.is_peer_access_enabled(self.target_device, self.peer_device)
        device_access.set_peer_access_enabled(self.target_device, self.peer_device, self.enable)

    def __exit__(self, exc_type, exc_value, traceback):
        device_access.set_peer_access_enabled(self.target_device, self.peer_device, self.saved_setting)


# --- kernels: properties and occupancy ------------------------------------------------------------
def _check_kernel(kernel, api_name):
    from ..lang.definitions.kernel import Kernel
    if not isinstance(kernel, Kernel):
        raise TypeError(f"{api_name}() expected a wp.Kernel, got {type(kernel)}")


def _forward_function(kernel, device, api_name):
    """The loaded CUfunction of ``kernel``'s forward entry on the CUDA ``device``."""
    if kernel.is_generic:
        raise RuntimeError(f"{api_name}() requires a concrete overload of generic kernel '{kernel.key}'; "
                           "create one with wp.overload() and pass the returned kernel")
    from .launch import _load_entry
    return _load_entry(kernel, device, False).entry("forward")


def get_cuda_kernel_properties(kernel, device=None, block_dim=None):
    """``{"register_count": registers per thread, "local_memory_size": bytes per thread}`` of
    ``kernel`` compiled for the CUDA ``device``; a RuntimeError on the CPU (as warp-lang)."""
    _check_kernel(kernel, "get_cuda_kernel_properties")
    if block_dim is not None:
        if isinstance(block_dim, bool) or not _is_index(block_dim) or operator.index(block_dim) <= 0:
            raise ValueError(f"block_dim must be a positive integer, got {block_dim!r}")
    d = get_device(device)
    if not d.is_cuda:
        raise RuntimeError(f"get_cuda_kernel_properties() requires a CUDA device, got '{d}'")
    fn = _forward_function(kernel, d, "get_cuda_kernel_properties")
    from .cuda.driver import call, drv
    attr = drv().CUfunction_attribute
    with d.activated():
        regs = call(drv().cuFuncGetAttribute, attr.CU_FUNC_ATTRIBUTE_NUM_REGS, fn)
        local = call(drv().cuFuncGetAttribute, attr.CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, fn)
    return {"register_count": int(regs), "local_memory_size": int(local)}


def _is_index(value):
    try:
        operator.index(value)
    except TypeError:
        return False
    return True


def get_suggested_block_size(kernel, device=None):
    """``(block_size, min_grid_size)`` maximising ``kernel``'s occupancy on the CUDA ``device``
    (the driver's occupancy calculator); ``(1, 1)`` on the CPU, as warp-lang."""
    _check_kernel(kernel, "get_suggested_block_size")
    d = get_device(device)
    if not d.is_cuda:
        return (1, 1)
    fn = _forward_function(kernel, d, "get_suggested_block_size")
    from .cuda.driver import call, drv
    with d.activated():
        min_grid, block = call(drv().cuOccupancyMaxPotentialBlockSize, fn, None, 0, 0)
    return (int(block), int(min_grid))


def get_cuda_max_cluster_dim(kernel, device=None, *, block_dim=None, dynamic_smem_bytes=0):
    """The largest thread-block cluster ``kernel`` can launch with: 1 on the CPU and on GPUs
    before sm_90 (as warp-lang). Launches here do not use clusters, so 1 on every device."""
    get_device(device)
    return 1


# --- device aliases -----------------------------------------------------------------------------
def map_cuda_device(alias, context=None):
    """Names the device of a CUDA context ``alias`` (the current context when ``context`` is
    None); the device itself for one already known."""
    from . import device as registry
    cuda = registry.get_cuda_devices()
    if context is None:
        if not cuda:
            raise RuntimeError(f"Unable to determine CUDA context for device alias '{alias}'")
        from .cuda.driver import call, drv
        context = call(drv().cuCtxGetCurrent)
        if not int(context or 0):    # no context bound to this thread
            raise RuntimeError(f"Unable to determine CUDA context for device alias '{alias}'")
    match = [d for d in cuda if int(d.context) == int(context)]
    if not match:
        raise RuntimeError(f"CUDA context {int(context):#x} is not the primary context of a device "
                           "warp_interactive knows; only primary contexts can be mapped here")
    return registry.alias_device(match[0], alias)


def unmap_cuda_device(alias):
    """Removes the alias ``alias`` made by map_cuda_device."""
    from . import device as registry
    registry.unalias_device(alias)


# --- IPC ----------------------------------------------------------------------------------------
def event_from_ipc_handle(handle, device=None):
    """An event opened from another process's IPC handle: CUDA only (as warp-lang: the CPU
    raises); not offered here on CUDA either."""
    d = get_device(device)
    raise RuntimeError(f"IPC is not supported on device {d}.")


def from_ipc_handle(handle, dtype, shape, strides=None, device=None):
    """An array opened from another process's IPC memory handle: CUDA only (as warp-lang: the
    CPU raises); not offered here on CUDA either."""
    d = get_device(device)
    raise RuntimeError(f"IPC is not supported on device {d}.")


def get_cuda_toolkit_version():
    """``(major, minor)`` of the CUDA toolkit kernels are compiled with (NVRTC's version here:
    there is no prebuilt native CUDA library), None without the CUDA extra."""
    try:
        from cuda.bindings import nvrtc
    except ImportError:
        return None
    err, major, minor = nvrtc.nvrtcVersion()
    return (int(major), int(minor)) if int(err) == 0 else None
