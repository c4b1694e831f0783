"""warp-lang's device queries: memory pools, peer access and NVRTC's target architectures.

The CPU has no memory pool and no peer access (every query is False; enabling raises
warp-lang's ValueError). A CUDA device allocates from its stream-ordered memory pool where it
supports one (runtime/cuda/memory.py) unless ``set_mempool_enabled(device, False)``. A device
always reaches its own memory; between two GPUs the driver says whether access is supported.
"""

from .device import get_device


def is_mempool_supported(device=None):
    """Whether ``device`` supports stream-ordered memory pools (False for the CPU)."""
    return bool(getattr(get_device(device), "is_mempool_supported", False))


def is_mempool_enabled(device=None):
    """Whether ``device`` allocates arrays from its memory pool."""
    d = get_device(device)
    return is_mempool_supported(d) and getattr(d, "mempool_enabled", True)


def set_mempool_enabled(device, enable):
    """Allocate ``device``'s later arrays from its memory pool (``enable``) or not."""
    get_device(device).set_mempool_enabled(enable)


def _pair(target_device, peer_device):
    return get_device(target_device), get_device(peer_device)


def _own_memory(t, p):
    """``t`` is ``p`` and a device that reaches its own memory as a peer (a GPU)."""
    return t is p and t.peer_can_access(t)


def is_peer_access_supported(target_device, peer_device):
    """Whether ``peer_device`` can access ``target_device``'s memory on this system."""
    t, p = _pair(target_device, peer_device)
    return t.peer_can_access(p)


def is_peer_access_enabled(target_device, peer_device):
    """Whether ``peer_device`` can access ``target_device``'s memory now (a device: its own)."""
    return _own_memory(*_pair(target_device, peer_device))


def set_peer_access_enabled(target_device, peer_device, enable):
    """Peer access between two GPUs is not offered (a device always reaches its own memory)."""
    _set_access("Peer access", target_device, peer_device, enable)


def is_mempool_access_supported(target_device, peer_device):
    """Whether ``peer_device`` can access ``target_device``'s memory pool on this system."""
    return is_mempool_supported(target_device) and is_peer_access_supported(target_device, peer_device)


def is_mempool_access_enabled(target_device, peer_device):
    """Whether ``peer_device`` can access ``target_device``'s memory pool now."""
    t, p = _pair(target_device, peer_device)
    return _own_memory(t, p) and t.is_mempool_supported


def set_mempool_access_enabled(target_device, peer_device, enable):
    """Memory pool access between two GPUs is not offered (a device reaches its own pool)."""
    _set_access("Memory pool access", target_device, peer_device, enable)


def _set_access(what, target_device, peer_device, enable):
    t, p = _pair(target_device, peer_device)
    if not (t.peer_can_access(t) and p.peer_can_access(p)):     # not two GPUs
        if enable:
            raise ValueError(f"{what} is only supported between CUDA devices")
        return
    if t is p or not enable:
        return
    raise RuntimeError(f"{what} from {p} to {t} (two GPUs) is not supported by warp_interactive: "
                       "copy between the devices with wp.copy")


def get_cuda_supported_archs():
    """The CUDA architectures NVRTC can compile for (75 for sm_75 ...), sorted; an empty list
    without the CUDA extra or a GPU, as in warp-lang."""
    from .device import get_cuda_devices
    if not get_cuda_devices():
        return []
    try:
        from cuda.bindings import nvrtc
    except ImportError:
        return []
    err, n = nvrtc.nvrtcGetNumSupportedArchs()
    if int(err) != 0:
        return []
    err, archs = nvrtc.nvrtcGetSupportedArchs()
    return sorted(int(a) for a in archs) if int(err) == 0 else []


def can_access(device, resource):
    """Whether ``device`` can read and write the Warp array ``resource`` directly (for an
    indexed array: its data and every index array). Here a device reaches only its own memory
    (no peer or managed access is offered), so this is whether they live on ``device``."""
    from ..types.array import array
    from ..types.indexedarray import indexedarray
    d = get_device(device)
    if isinstance(resource, indexedarray) and resource.data is not None:
        parts = [resource.data, *(i for i in resource.indices if i is not None)]
    elif isinstance(resource, array) and getattr(resource, "device", None) is not None:
        parts = [resource]
    else:
        raise TypeError("wp.can_access() only supports concrete Warp arrays in this release")
    return all(get_device(p.device) is d for p in parts)
