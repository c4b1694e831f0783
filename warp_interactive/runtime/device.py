"""Devices. The CPU is always present; CUDA devices are added by the CUDA backend when its
optional extra, a driver and a GPU are all there."""

import ctypes
import os
import threading

import numpy as np

from .. import hooks
from ..build.builders import cpu as _cpu_builder   # with the package: a warm load imports nothing
from .launchers import cpu as _cpu_launcher

_local = threading.local()
# Threads whose current device is not the default one: while there are none, a launch with no
# device= targets the default device without a thread-local lookup (runtime/launch.py)
_off_default = set()


def _set_current(device):
    """Make ``device`` (a Device, or None for the default) this thread's current device."""
    _local.device = device
    ident = threading.get_ident()
    if device is None or device is _default_device():
        _off_default.discard(ident)
    else:
        _off_default.add(ident)


class Device:
    """A place where arrays live and kernels run (``"cpu"`` or ``"cuda:N"``)."""

    def __init__(self, alias, ordinal=-1):
        self.alias = alias
        self.ordinal = ordinal
        self.is_cpu = alias == "cpu"
        self.is_cuda = not self.is_cpu
        self._memory = None

    @property
    def memory(self):
        """This device's memory backend (runtime/memory.py), chosen once."""
        m = self._memory
        if m is None:
            m = self._memory = self._make_memory()
        return m

    def _make_memory(self):
        return hooks.cpu_memory()

    # --- what differs between kinds of device: the CPU's answers here, a GPU's in CudaDevice
    # (runtime/cuda/context.py). Callers ask the device and never which kind it is.
    is_capturing = False    # a CUDA graph capture in progress (CPU captures: runtime/graph.py)
    reads_host_memory = True    # kernels here read host (NumPy) memory in place

    def transfer_memory(self, other):
        """The memory backend that copies between this device and ``other``: a GPU's when
        either is one (the CPU's own copies are NumPy's)."""
        return other.memory

    def synchronize(self):
        """Wait for this device's work: CPU launches are synchronous."""

    def place(self, host, held=None):
        """Kernel-visible memory with the contents of ``host`` (a contiguous NumPy array or a
        ctypes structure) as (address, what keeps it alive): on the CPU kernels read ``host``
        itself, so its later changes are seen. ``held`` is the previous result's keeper
        (a GPU reuses its memory)."""
        if isinstance(host, np.ndarray):
            return (host.ctypes.data if host.size else 0), host
        return ctypes.addressof(host), host

    def profiler_range(self, start):
        """Start or stop an external CUDA profiler's capture range: nothing on the CPU."""

    def set_mempool_enabled(self, enable):
        if enable:
            raise ValueError("Memory pools are only supported on CUDA devices")

    def check_custom_allocator(self):
        """Custom allocators are a GPU's (warp-lang's rule)."""
        raise RuntimeError("Custom allocators are only supported on CUDA devices")

    def peer_can_access(self, peer):
        """Whether ``peer``'s kernels can reach this device's memory (the CPU: no peer access)."""
        return False

    @property
    def launcher(self):
        """How a packed launch runs here (runtime/launchers.py; CudaDevice has its own)."""
        return _cpu_launcher

    @property
    def builder(self):
        """What builds and loads a module for this device (build/builders.py; CudaDevice has
        its own)."""
        return _cpu_builder

    @property
    def name(self):
        if self.is_cpu:
            return _cpu_name()
        return self.alias

    _custom_allocator = None    # a CUDA device's custom allocator (runtime/allocators.py)

    @property
    def default_allocator(self):
        """This device's built-in allocator (``allocate(nbytes) -> ptr``, ``deallocate``)."""
        return hooks.allocators_for(self, "default")

    @property
    def pinned_allocator(self):
        """The CPU's page-locked host allocator (plain host memory without CUDA)."""
        if not self.is_cpu:
            raise AttributeError("pinned_allocator is the CPU device's")
        return hooks.allocators_for(self, "pinned")

    def get_allocator(self):
        """The allocator new arrays here use: a custom one if set, else the built-in one."""
        return self._custom_allocator or self.default_allocator

    # the CPU's values of warp-lang's CUDA device properties (CudaDevice sets its own)
    sm_count = 0
    max_shared_memory_per_block = 0
    is_mempool_supported = False

    @property
    def stream(self):
        """The CPU's current stream (runtime/cpu_streams.py; made on first use)."""
        s = getattr(self, "_cpu_stream", None)
        if s is None:
            s = self._cpu_stream = hooks.new_cpu_stream(self)
        return s

    @stream.setter
    def stream(self, s):
        if not hooks.is_cpu_stream(s) or s.device is not self:
            raise ValueError(f"the stream must be a wp.Stream on {self}, got {s!r}")
        self._cpu_stream = s

    @property
    def total_memory(self):
        """The machine's physical memory in bytes (warp-lang asks psutil; 0 where unknown)."""
        return _sysconf_bytes("SC_PHYS_PAGES")

    @property
    def free_memory(self):
        """The physical memory available now, in bytes (0 where the system does not say)."""
        return _sysconf_bytes("SC_AVPHYS_PAGES")

    @property
    def arch(self):
        return 0

    def __str__(self):
        return self.alias

    def __repr__(self):
        return f'"{self.alias}"'

    def __eq__(self, other):
        if isinstance(other, str):
            return other == self.alias or (other == "cuda" and self.is_cuda and self.ordinal == 0)
        return self is other

    def __hash__(self):
        return hash(self.alias)


def _sysconf_bytes(pages):
    try:
        return os.sysconf(pages) * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return 0


def _cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "CPU"


cpu = Device("cpu")
_devices = {"cpu": cpu}


def add_devices(devices):
    """Make ``devices`` known by their aliases (the CUDA probe)."""
    for d in devices:
        _devices[d.alias] = d


# more names of CUDA devices (wp.map_cuda_device): a device keeps its own alias (its hash and
# str), so that dicts keyed by devices stay valid
_aliases = {}


def alias_device(device, alias):
    """Lets ``get_device(alias)`` name ``device``; a RuntimeError if ``alias`` names another."""
    known = _devices.get(alias) or _aliases.get(alias)
    if known is not None and known is not device:
        raise RuntimeError(f"Device alias '{alias}' already exists")
    if known is None:
        _aliases[alias] = device
    return device


def unalias_device(alias):
    """Forgets an alias made by alias_device."""
    if alias not in _aliases:
        raise RuntimeError(f"Invalid CUDA device alias '{alias}'")
    del _aliases[alias]


def _probe_cuda():
    """Register the CUDA devices (once); the reason CUDA is unusable, or None."""
    return hooks.cuda_probe()   # runtime/cuda_backend.py (hooks.py)


def _cuda_unavailable_reason():
    reason = _probe_cuda()
    return reason or f"this machine has {len(get_cuda_devices())} CUDA device(s)"


def get_device(ident=None):
    """The device named by ``ident`` (a Device, "cpu", "cuda", "cuda:N" or None = current)."""
    if ident is None:
        return _local.__dict__.get("device") or _default_device()  # no AttributeError raised
    if isinstance(ident, Device):
        return ident
    if ident in _devices:
        return _devices[ident]
    if ident in _aliases:
        return _aliases[ident]
    if isinstance(ident, str) and (ident == "cuda" or ident.startswith("cuda:")):
        key = "cuda:0" if ident == "cuda" else ident
        _probe_cuda()
        if key in _devices:
            return _devices[key]
        raise RuntimeError(f'device "{ident}" is not available: {_cuda_unavailable_reason()}')
    raise ValueError(f"unknown device {ident!r}: expected 'cpu', 'cuda' or 'cuda:N'")


_default = []


def _default_device():
    """The first CUDA device when there is one (as in the reference), else the CPU."""
    if not _default:
        _probe_cuda()
        _default.append(get_preferred_device())
    return _default[0]


def set_device(ident):
    """Make ``ident`` the current device for this thread."""
    _set_current(get_device(ident))


def get_devices():
    _probe_cuda()
    return list(_devices.values())


def get_cuda_devices():
    _probe_cuda()
    return [d for d in _devices.values() if d.is_cuda]


def get_cuda_device(ordinal=None):
    """The CUDA device ``ordinal`` (default: the current device if it is a GPU, else cuda:0)."""
    if ordinal is None:
        current = get_device()
        return current if current.is_cuda else get_device("cuda:0")
    return get_device(f"cuda:{int(ordinal)}")


def cuda_device_for(device=None):
    """``device`` when it is a GPU, else the current CUDA device: the GPU that memory given by
    a bare CUDA pointer is taken to be on."""
    device = get_device(device)
    return device if device.is_cuda else get_cuda_device()


def get_cuda_device_count():
    return len(get_cuda_devices())


def is_cuda_available():
    return get_cuda_device_count() > 0


def is_cpu_available():
    """True: the CPU device is always there (the reference can be built without it)."""
    return True


def is_device_available(device):
    """True if ``device`` (a Device or a name) is present on this machine."""
    try:
        get_device(device)
    except (RuntimeError, ValueError):
        return False
    return True


def get_preferred_device():
    cuda = get_cuda_devices()
    return cuda[0] if cuda else cpu


DeviceLike = Device | str | None
"""What a ``device=`` argument accepts: a Device, an alias ("cpu", "cuda:0"...), or None for
the current default device."""


class ScopedDevice:
    """``with wp.ScopedDevice("cpu"):`` makes a device current inside the block."""

    def __init__(self, device):
        self.device = get_device(device)

    def __enter__(self):
        self._saved = getattr(_local, "device", None)
        _set_current(self.device)
        return self.device

    def __exit__(self, *exc):
        _set_current(self._saved)


hooks.get_device = get_device   # wp.array resolves devices through this (hooks.py)


def cpu_thread_count():
    return os.cpu_count() or 1
