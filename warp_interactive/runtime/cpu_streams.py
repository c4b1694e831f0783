"""Streams and events on the CPU device (warp-lang has none there; see docs/cuda.md).

A CPU launch, copy or fill runs to completion when it is issued, in issue order. So a CPU
stream is an ordered queue that is always drained: every ordering a program asks for with
streams (work in order on a stream, ``record_event`` / ``wait_event`` / ``wait_stream`` between
streams) already holds, whichever CPU stream the work was issued on. What remains to do is:

- an event records the moment it was reached (``get_event_elapsed_time`` between two events
  made with ``enable_timing=True``);
- a CPU stream waiting for a CUDA event or stream blocks the host until that GPU work is done
  (the CPU work issued after it may read what the GPU wrote), and a CUDA stream waiting for a
  CPU event needs nothing (the CPU work before it has completed);
- inside a CPU graph capture, recording an event is itself recorded and happens at replay.

Programs written for streams (``wp.ScopedStream``, ``wp.copy(..., stream=s)``, MPI halo exchanges
synchronised with events) therefore run unchanged on CPU ranks.
"""

import time

from .. import hooks
from .cuda.streams import Event, Stream
from .device import get_device
from .graph import capturing_on, defer


class CpuStream(Stream):
    """``wp.Stream("cpu")``: an ordered queue of CPU work (always drained, see the module doc)."""

    def __init__(self, device=None, priority=0, cuda_stream=None, owner=True):
        if cuda_stream is not None:
            raise RuntimeError("a CPU stream cannot wrap a CUDA stream handle (cuda_stream=...)")
        self.device = get_device(device)
        self.priority = int(priority)
        self.handle = None
        self.owner = False
        self.ptr = 0

    @property
    def cuda_stream(self):
        return 0

    @property
    def is_capturing(self):
        return capturing_on(self.device)

    def record_event(self, event=None):
        event = event or CpuEvent(self.device)
        if not isinstance(event, CpuEvent):
            raise RuntimeError(f"cannot record {event!r} of {event.device} on a stream of {self.device}")
        if not defer(self.device, event._reach):
            event._reach()
        return event

    def wait_event(self, event):
        # CPU work before the event has run already; GPU work before a CUDA event may not have
        if not isinstance(event, CpuEvent):
            event.synchronize()

    def wait_stream(self, other, event=None):
        if isinstance(other, CpuStream):
            return          # its work so far has run
        self.wait_event(other.record_event(event))

    def synchronize(self):
        """Nothing to wait for: the stream's work ran when it was issued."""

    def __del__(self):
        pass

    def __repr__(self):
        return f"<wp.Stream on {self.device}>"


class CpuEvent(Event):
    """``wp.Event("cpu")``: a point in CPU work; with ``enable_timing`` it keeps the time reached."""

    def __init__(self, device=None, enable_timing=False, interprocess=False):
        if interprocess:
            raise RuntimeError("CPU events cannot be shared between processes (interprocess=True)")
        self.device = get_device(device)
        self.enable_timing = bool(enable_timing)
        self.handle = None
        self.recorded = False
        self._time = None

    def _reach(self):
        self.recorded = True
        if self.enable_timing:
            self._time = time.perf_counter()

    def synchronize(self):
        """Nothing to wait for: the work before the event has run."""

    def is_complete(self):
        return True

    def __del__(self):
        pass


def elapsed_ms(start, end):
    """Milliseconds between two CPU events recorded with ``enable_timing=True``."""
    for name, e in (("start_event", start), ("end_event", end)):
        if not isinstance(e, CpuEvent):
            raise RuntimeError(f"get_event_elapsed_time: {name} is on {e.device}, the other on the CPU")
        if not e.enable_timing:
            raise RuntimeError(f"get_event_elapsed_time: {name} was made without enable_timing=True")
        if e._time is None:
            raise RuntimeError(f"get_event_elapsed_time: {name} has not been recorded")
    return (end._time - start._time) * 1000.0


# the CPU's kinds, for wp.Stream/wp.Event on the CPU device and Device.stream (hooks.py: they
# build on the CUDA classes, which import device.py)
hooks.cpu_kinds.update(stream=CpuStream, event=CpuEvent, elapsed_ms=elapsed_ms)
hooks.new_cpu_stream = CpuStream
hooks.is_cpu_stream = lambda s: isinstance(s, CpuStream)
