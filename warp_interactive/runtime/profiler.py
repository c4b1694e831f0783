"""``wp.cuda_profiler_start/stop`` and ``wp.ScopedCudaProfiler``: the capture range of an
external CUDA profiler (Nsight Systems ``--capture-range=cudaProfilerApi``), per CUDA context.
On the CPU they do nothing, as warp-lang's."""

from .device import get_device


def _profiler(device, name):
    device = get_device(device)
    if not device.is_cuda:
        return
    from .cuda.driver import call, drv
    with device.activated():
        call(getattr(drv(), name))


def cuda_profiler_start(device=None):
    """Begin the profiler's data collection (``cuProfilerStart``) in ``device``'s context."""
    _profiler(device, "cuProfilerStart")


def cuda_profiler_stop(device=None):
    """End the profiler's data collection (``cuProfilerStop``) in ``device``'s context."""
    _profiler(device, "cuProfilerStop")


class ScopedCudaProfiler:
    """``with wp.ScopedCudaProfiler():`` profile the block (the device is resolved once)."""

    def __init__(self, device=None):
        self.device = get_device(device)

    def __enter__(self):
        cuda_profiler_start(self.device)
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        cuda_profiler_stop(self.device)
