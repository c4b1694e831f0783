"""CUDA streams and events, and the synchronize functions.

A device's work goes to its current stream (``wp.get_stream()``), which ``wp.set_stream`` and
``wp.ScopedStream`` change; every launch, copy and allocation is ordered on it.
``wp.Stream("cpu")`` / ``wp.Event("cpu")`` make the CPU's kind (runtime/cpu_streams.py).
"""

from ... import hooks
from .driver import call, drv




def _on_cpu(cls, base, device, kind):
    """The class to make for ``device``: the CPU kind when it is the CPU."""
    if cls is base:
        from ..device import get_device
        if get_device(device).is_cpu:
            return hooks.cpu_kinds[kind]
    return cls


class Stream:
    """``wp.Stream(device)``: an ordered queue of work on one device (on the CPU, see
    runtime/cpu_streams.py)."""

    def __new__(cls, device=None, *args, **kwargs):
        return super().__new__(_on_cpu(cls, Stream, device, "stream"))

    def __init__(self, device=None, priority=0, cuda_stream=None, owner=True):
        from ..device import get_device
        device = get_device(device)
        self.device = device
        d = drv()
        if cuda_stream is not None:       # wrap a stream made elsewhere (torch, cupy...)
            self.handle = d.CUstream(int(cuda_stream))
            self.owner = False
        else:
            with device.activated():
                flags = int(d.CUstream_flags.CU_STREAM_NON_BLOCKING)
                self.handle = call(d.cuStreamCreateWithPriority, flags, int(priority))
            self.owner = owner
        self.ptr = int(self.handle)

    @property
    def cuda_stream(self):
        return self.ptr

    @property
    def is_capturing(self):
        d = drv()
        st = call(d.cuStreamIsCapturing, self.handle)
        return int(st) == int(d.CUstreamCaptureStatus.CU_STREAM_CAPTURE_STATUS_ACTIVE)

    def record_event(self, event=None):
        event = event or Event(self.device)
        call(drv().cuEventRecord, event.handle, self.handle)
        return event

    def wait_event(self, event):
        if event.device.is_cpu:
            return          # the CPU work before a CPU event has run already
        call(drv().cuStreamWaitEvent, self.handle, event.handle, 0)

    def wait_stream(self, other, event=None):
        if other.device.is_cpu:
            return
        self.wait_event(other.record_event(event))

    def synchronize(self):
        call(drv().cuStreamSynchronize, self.handle)

    def __del__(self):
        if getattr(self, "owner", False):
            try:
                drv().cuStreamDestroy(self.handle)
            except Exception:  # interpreter shutdown: the driver may be gone already
                pass

    def __repr__(self):
        return f"<wp.Stream {self.ptr:#x} on {self.device}>"


class Event:
    """``wp.Event(device, enable_timing=False)``: a marker in a stream's work."""

    def __new__(cls, device=None, *args, **kwargs):
        return super().__new__(_on_cpu(cls, Event, device, "event"))

    def __init__(self, device=None, enable_timing=False, interprocess=False):
        from ..device import get_device
        device = get_device(device)
        self.device = device
        d = drv()
        flags = 0 if enable_timing else int(d.CUevent_flags.CU_EVENT_DISABLE_TIMING)
        if interprocess:
            flags |= int(d.CUevent_flags.CU_EVENT_INTERPROCESS) | int(d.CUevent_flags.CU_EVENT_DISABLE_TIMING)
        with device.activated():
            self.handle = call(d.cuEventCreate, flags)
        self.enable_timing = enable_timing

    def synchronize(self):
        call(drv().cuEventSynchronize, self.handle)

    def is_complete(self):
        d = drv()
        return int(d.cuEventQuery(self.handle)[0]) == 0

    def __del__(self):
        try:
            drv().cuEventDestroy(self.handle)
        except Exception:
            pass


def get_stream(device=None):
    """The current stream of ``device`` (the current device by default)."""
    from ..device import get_device
    return get_device(device).stream


def set_stream(stream, device=None, sync=False):
    """Make ``stream`` current on its device (``sync``: first wait for the old stream's work)."""
    from ..device import get_device
    d = stream.device if device is None else get_device(device)
    if sync:
        stream.wait_stream(d.stream)
    d.stream = stream


class ScopedStream:
    """``with wp.ScopedStream(stream):`` makes the stream (and its device) current in the block."""

    def __init__(self, stream, sync_enter=True, sync_exit=False):
        self.stream, self.sync_enter, self.sync_exit = stream, sync_enter, sync_exit

    def __enter__(self):
        if self.stream is None:
            return None
        from ..device import ScopedDevice
        self._device_scope = ScopedDevice(self.stream.device)
        self._device_scope.__enter__()
        self._saved = self.stream.device.stream
        set_stream(self.stream, sync=self.sync_enter)
        return self.stream

    def __exit__(self, *exc):
        if self.stream is None:
            return
        set_stream(self._saved, sync=self.sync_exit)
        self._device_scope.__exit__(*exc)


def record_event(event=None):
    """Record an event on the current stream of the current device."""
    return get_stream().record_event(event)


def wait_event(event):
    """Make the current stream wait for ``event``."""
    get_stream().wait_event(event)


def wait_stream(other_stream, event=None):
    """Make the current stream wait for the work queued so far on ``other_stream``."""
    get_stream().wait_stream(other_stream, event)


def get_event_elapsed_time(start_event, end_event, synchronize=True):
    """Milliseconds between two events recorded with ``enable_timing=True``."""
    if start_event.device.is_cpu or end_event.device.is_cpu:
        return hooks.cpu_kinds["elapsed_ms"](start_event, end_event)
    if synchronize:
        end_event.synchronize()
    return float(call(drv().cuEventElapsedTime, start_event.handle, end_event.handle))


def synchronize_stream(stream=None):
    (stream or get_stream()).synchronize()


def synchronize_event(event):
    event.synchronize()


def synchronize_device(device):
    with device.activated():
        call(drv().cuCtxSynchronize)
