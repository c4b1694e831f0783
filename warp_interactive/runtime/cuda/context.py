"""CUDA devices: discovery, properties and the primary context of each device.

Each device uses its primary context (the one the CUDA runtime, PyTorch, CuPy and JAX share),
retained once and made current around every driver call that needs it.
"""

from ...config import config
from ..device import Device
from .driver import call, drv


class CudaDevice(Device):
    """``"cuda:N"``: a GPU with its primary context, properties and current stream."""

    total_memory = 0          # set per device below (the CPU's is a property of Device)
    reads_host_memory = False

    def __init__(self, ordinal):
        super().__init__(f"cuda:{ordinal}", ordinal)
        d = drv()
        self.handle = call(d.cuDeviceGet, ordinal)
        attr = d.CUdevice_attribute
        get = lambda a: call(d.cuDeviceGetAttribute, getattr(attr, a), self.handle)  # noqa: E731
        self._name = call(d.cuDeviceGetName, 256, self.handle).split(b"\0")[0].decode()
        self._arch = 10 * get("CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR") + \
            get("CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR")
        self.sm_count = get("CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT")
        # the opt-in maximum (warp-lang's meaning): what a kernel may ask for with cuFuncSetAttribute
        self.max_shared_memory_per_block = get("CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN")
        self.is_mempool_supported = bool(get("CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED"))
        self.mempool_enabled = self.is_mempool_supported and config.enable_mempools_at_init
        self.is_uva = bool(get("CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING"))
        self.pci_bus_id = get("CU_DEVICE_ATTRIBUTE_PCI_BUS_ID")
        self.total_memory = call(d.cuDeviceTotalMem, self.handle)
        self.context = call(d.cuDevicePrimaryCtxRetain, self.handle)
        self._stream = None          # the current stream (runtime/cuda/streams.py)
        self.null_stream = None
        self.captures = []           # active graph captures on this device (graphs.py)
        self._builder = None

    @property
    def name(self):
        return self._name

    @property
    def launcher(self):
        from .modules import launcher
        return launcher

    @property
    def builder(self):
        """NVRTC for this device's architecture, loading into its context."""
        b = self._builder
        if b is None:
            from ...build.builders import CudaBuilder
            from .modules import CudaLoadedModule
            b = self._builder = CudaBuilder(self.arch, lambda *image: CudaLoadedModule(self, *image))
        return b

    @property
    def arch(self):
        return self._arch

    @property
    def free_memory(self):
        with self.activated():
            free, _total = call(drv().cuMemGetInfo)
        return int(free)

    @property
    def is_capturing(self):
        return bool(self.captures)

    @property
    def stream(self):
        """The current stream of this device (made on first use: a non-blocking stream)."""
        if self._stream is None:
            from .streams import Stream
            self._stream = Stream(self)
        return self._stream

    @stream.setter
    def stream(self, s):
        from .streams import Stream
        if not isinstance(s, Stream) or s.device is not self:
            raise ValueError(f"the stream must be a wp.Stream on {self}, got {s!r}")
        self._stream = s

    # --- a GPU's answers to what differs between kinds of device (runtime/device.py: the CPU's)
    def _make_memory(self):
        from ..memory import CudaMemory
        return CudaMemory()

    def transfer_memory(self, other):
        """A copy with a GPU on either side goes through the GPU's backend."""
        return self.memory

    def synchronize(self):
        from .streams import synchronize_device
        synchronize_device(self)

    def place(self, host, held=None):
        """A device copy of ``host``'s bytes (into ``held``, a DeviceBuffer, when the size is the
        same, so the address stays): its later host changes need another ``place``."""
        import numpy as np
        from . import memory
        if not isinstance(host, np.ndarray):
            host = np.frombuffer(bytes(host), np.uint8)     # a ctypes structure
        raw = np.ascontiguousarray(host).reshape(-1).view(np.uint8)
        buf = held if held is not None and held.nbytes == raw.nbytes else memory.DeviceBuffer(self, raw.nbytes)
        memory.upload(self, buf.ptr, raw)
        return buf.ptr, buf

    def profiler_range(self, start):
        """``cuProfilerStart``/``Stop`` in this device's context."""
        with self.activated():
            call(getattr(drv(), "cuProfilerStart" if start else "cuProfilerStop"))

    def set_mempool_enabled(self, enable):
        if enable and not self.is_mempool_supported:
            raise RuntimeError(f"Device {self} does not support memory pools")
        self.mempool_enabled = bool(enable)

    def check_custom_allocator(self):
        pass

    def peer_can_access(self, peer):
        """Whether ``peer``'s kernels can reach this GPU's memory: its own always, another
        GPU's as the driver says."""
        if peer is self:
            return True
        if not isinstance(peer, CudaDevice):
            return False
        return bool(call(drv().cuDeviceCanAccessPeer, peer.handle, self.handle))

    def make_current(self):
        call(drv().cuCtxSetCurrent, self.context)

    def activated(self):
        return _Activated(self)


class _Activated:
    """Makes a device's context current inside a ``with`` block, restoring the previous one."""

    def __init__(self, device):
        self.device = device

    def __enter__(self):
        d = drv()
        saved = call(d.cuCtxGetCurrent)
        # already current (the common case): no switch there and back
        self.saved = None if int(saved or 0) == int(self.device.context) else saved
        if self.saved is not None:
            call(d.cuCtxSetCurrent, self.device.context)
        return self.device

    def __exit__(self, *exc):
        if self.saved is not None:
            call(drv().cuCtxSetCurrent, self.saved)


def discover():
    """One CudaDevice per GPU the driver sees (cuInit first). Raises CudaError on driver trouble."""
    d = drv()
    check_driver_version(call(d.cuDriverGetVersion))
    err = d.cuInit(0)[0]
    if int(err) == int(d.CUresult.CUDA_ERROR_NO_DEVICE):
        return []
    if int(err) != 0:
        from ...errors import CudaError
        from .driver import error_text
        raise CudaError(f"cuInit failed with {error_text(err)}")
    count = call(d.cuDeviceGetCount)
    return [CudaDevice(i) for i in range(count)]


def check_driver_version(version):
    """cuda-bindings N needs a driver for CUDA N: say so plainly rather than failing later."""
    import cuda.bindings
    from ...errors import CudaError
    bindings = cuda.bindings.__version__
    if int(version) // 1000 < int(bindings.split(".")[0]):
        raise CudaError(
            f"the NVIDIA driver supports CUDA {version // 1000}.{version % 1000 // 10}, older than "
            f"cuda-bindings {bindings} needs; update the driver, or use the CUDA 12 packages: "
            "pip install warp_interactive[cuda12]")
