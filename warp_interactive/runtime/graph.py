"""Graphs: ``wp.capture_begin/capture_end/capture_launch`` and ``wp.ScopedCapture``.

On a CUDA device a capture is a CUDA stream capture: launches, copies and memsets queued on the
device's current stream become a CUDA graph, replayed by one ``cuGraphLaunch``.

On the CPU the same API records instead of running: each ``wp.launch`` is packed once (its
argument struct and entry point resolved) and kept, as are ``wp.copy``, ``zero_`` and ``fill_``;
``capture_launch`` replays them in order with no Python-side argument packing. As on a GPU,
nothing recorded runs before ``capture_launch``, so reading an array of the capturing device
inside the capture is an error rather than a silent stale read.
"""

import enum

from ..config import config
from ..state import state
from .. import hooks
from . import launch_state
from .device import get_device

_cpu_captures = {}      # device alias -> Graph being recorded
_writes = {}            # device alias -> what the capture in progress writes (Graph.writes)
replay_check = [None]   # set by runtime/tape_hooks.py: checks a replay's writes for the tapes


class CaptureMode(enum.IntEnum):
    """How a CUDA stream capture treats other threads' unsafe CUDA calls (CUstreamCaptureMode)."""
    GLOBAL = 0
    THREAD_LOCAL = 1
    RELAXED = 2


class Graph:
    """A captured sequence of work on one device, replayed by ``wp.capture_launch``."""

    def __init__(self, device):
        self.device = device
        self.ops = []           # CPU: Launch commands and callables, in order
        self.exec = None        # CUDA: the instantiated graph
        self.keep = []          # CPU: the arrays the recorded launches point into
        self.handle = None
        self.writes = []        # ("launch", kernel, values) / ("array", array, operation): what
                                # a replay writes, checked while a tape needs (runtime/tape_watch.py)

    def launch(self, stream=None):
        if self.device.is_cpu:
            for op in self.ops:
                op() if callable(op) else op.launch()
            return
        from .cuda.graphs import launch_graph
        launch_graph(self, stream)

    def __len__(self):
        return len(self.ops)

    def __del__(self):
        if self.exec is not None:
            try:
                from .cuda.graphs import destroy_graph
            except ImportError:     # interpreter shutdown
                return
            destroy_graph(self)


def _start(n):
    state.capturing[0] += n
    launch_state.set_reason("capture", state.capturing[0] > 0)   # a capture must see every launch


def capture_begin(device=None, stream=None, force_module_load=None, external=False, apic=False,
                  capture_mode=CaptureMode.THREAD_LOCAL):
    """Start recording the work queued on ``device`` (default: current) into a graph.
    ``capture_mode`` (a wp.CaptureMode) is the CUDA stream capture's mode; ``apic=True``
    (warp-lang's recording for ``capture_save``) is not offered."""
    capture_mode = CaptureMode(capture_mode)
    _refuse_apic(apic)
    device = get_device(stream.device if stream is not None else device)
    if device.is_cpu:
        if not config.cuda_graph_cpu:
            raise RuntimeError("graph capture on the CPU is turned off (wp.config.cuda_graph_cpu = "
                               "False): capture on a CUDA device, or turn it on to record and "
                               "replay CPU launches")
        if device.alias in _cpu_captures:
            raise RuntimeError("a graph capture is already in progress on cpu: end it with "
                               "wp.capture_end() first")
        _cpu_captures[device.alias] = Graph(device)
    else:
        from .cuda.graphs import begin_capture
        begin_capture(device, stream, force_module_load, external, capture_mode)
    _writes[device.alias] = []
    _start(1)


def capture_end(device=None, stream=None):
    """Stop recording; returns the Graph to pass to ``wp.capture_launch``."""
    device = get_device(stream.device if stream is not None else device)
    if device.is_cpu:
        graph = _cpu_captures.pop(device.alias, None)
        if graph is None:
            raise RuntimeError("wp.capture_end() without a capture in progress on cpu "
                               "(call wp.capture_begin() first)")
        graph.writes = _writes.pop(device.alias, [])
        _start(-1)
        return graph
    from .cuda.graphs import end_capture
    graph = Graph(device)
    try:
        graph = end_capture(device, graph, stream)
        graph.writes = _writes.pop(device.alias, [])
        return graph
    finally:
        _start(-1)


def capture_launch(graph, stream=None):
    """Run a captured graph (CUDA: one graph launch on ``stream``; CPU: the recorded launches)."""
    if not isinstance(graph, Graph):
        raise TypeError(f"wp.capture_launch expects the Graph returned by wp.capture_end(), "
                        f"got {type(graph).__name__}")
    if state.tape_writes[0] and graph.writes and config.tape_copy_on_write:
        replay_check[0](graph)
    graph.launch(stream)


def _refuse_apic(apic):
    if apic:
        raise NotImplementedError(
            "graph capture with apic=True (warp-lang's API capture, for saving graphs with "
            "wp.capture_save) is not offered by warp_interactive: capture with apic=False")


class ScopedCapture:
    """``with wp.ScopedCapture() as capture: ...`` then ``wp.capture_launch(capture.graph)``."""

    def __init__(self, device=None, stream=None, force_module_load=None, external=False,
                 apic=False, capture_mode=CaptureMode.THREAD_LOCAL):
        _refuse_apic(apic)
        self.device, self.stream = device, stream
        self.force_module_load, self.external = force_module_load, external
        self.apic, self.capture_mode = False, CaptureMode(capture_mode)
        self.graph = None

    def __enter__(self):
        capture_begin(self.device, self.stream, self.force_module_load, self.external,
                      capture_mode=self.capture_mode)
        return self

    def __exit__(self, exc_type, *exc):
        graph = capture_end(self.device, self.stream)
        if exc_type is None:
            self.graph = graph


# --- hooks called by wp.launch and the array operations while a capture is active -----------------
def record_launch(cmd, values=()):
    """Keep a packed launch in the CPU capture of its device; False when there is none.
    The graph holds the launch's argument objects too: the packed struct has only pointers."""
    g = _cpu_captures.get(cmd.device.alias)
    if g is None:
        return False
    cmd._resolve()       # build/load now, so the replay only calls the entry point
    g.ops.append(cmd)
    g.keep.append(list(values))
    return True


def note_launch(device, kernel, values):
    """A launch inside a capture on ``device``: a replay writes what it writes."""
    notes = _writes.get(device.alias)
    if notes is not None:
        notes.append(("launch", kernel, list(values)))


def note_write(arr, operation):
    """An array write (``fill_``, ``zero_``, ``wp.copy``) inside a capture on its device."""
    notes = _writes.get(getattr(getattr(arr, "device", None), "alias", None))
    if notes is not None:
        notes.append(("array", arr, operation))


def defer(device, fn):
    """Record ``fn`` (a copy, a fill) in the CPU capture of ``device``; False when there is none."""
    g = _cpu_captures.get(getattr(device, "alias", None))
    if g is None:
        return False
    g.ops.append(fn)
    return True


def capturing_on(device):
    """True while a CPU capture records ``device``'s work."""
    return getattr(device, "alias", None) in _cpu_captures


def check_readable(device):
    if device is not None and device.alias in _cpu_captures:
        raise RuntimeError(
            f"cannot read an array on {device} while a graph capture is in progress on it: the "
            "launches recorded so far run at wp.capture_launch(), not during the capture "
            "(read the array after capture_end/capture_launch)")
    if device is not None and device.is_capturing:     # a CUDA graph capture
        raise RuntimeError(f"cannot copy an array from {device} to the host during a graph capture "
                           "(a synchronous copy is not allowed in a CUDA graph)")


# wp.array's fill_/zero_/copy defer and numpy() checks through these (hooks.py)
hooks.defer, hooks.check_readable, hooks.note_write = defer, check_readable, note_write
