"""``wp.cuda_profiler_start/stop`` and ``wp.ScopedCudaProfiler``: the capture range of an
external CUDA profiler (Nsight Systems ``--capture-range=cudaProfilerApi``), per CUDA context.
On the CPU they do nothing, as warp-lang's."""

from .device import get_device


def _profiler(device, start):
    get_device(device).profiler_range(start)


def cuda_profiler_start(device=None):
    """Begin the profiler's data collection (``cuProfilerStart``) in ``device``'s context."""
    _profiler(device, True)


def cuda_profiler_stop(device=None):
    """End the profiler's data collection (``cuProfilerStop``) in ``device``'s context."""
    _profiler(device, False)


class ScopedCudaProfiler:
    """``with wp.ScopedCudaProfiler():`` profile the block (the device is resolved once)."""

    def __init__(self, device=None):
        self.device = get_device(device)

    def __enter__(self):
        cuda_profiler_start(self.device)
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        cuda_profiler_stop(self.device)
