"""init, synchronize, timers."""

import time

from .. import hooks
from ..state import state

_initialized = [False]


def init():
    """Initialise the runtime (idempotent; launches do it on demand)."""
    if _initialized[0]:
        return
    from .native import runtime_module
    from ..compiler.cpu import prepare_pch
    runtime_module()            # loads the native runtime
    prepare_pch()               # the first build finds the precompiled headers ready or started
    _initialized[0] = True


def synchronize():
    """Wait for all work on all devices (CPU launches are synchronous)."""
    from .device import get_cuda_devices
    for d in get_cuda_devices():
        synchronize_device(d)


def synchronize_device(device=None):
    from .device import get_device
    get_device(device).synchronize()


class ScopedTimer:
    """``with wp.ScopedTimer("name"):`` prints how long the block took (and records it)."""

    indent = -1
    history = state.timer_history   # (name, ms) of every timer that ended (owned by state)

    def __init__(self, name, active=True, print=True, detailed=False, dict=None, use_nvtx=False,
                 color=None, synchronize=False, cuda_filter=None, report_func=None, skip_tape=False):
        self.name, self.active, self.print = name, active, print
        self.dict, self.synchronize, self.report_func = dict, synchronize, report_func
        self.skip_tape = skip_tape
        self.elapsed = 0.0
        self.cuda_filter = cuda_filter
        self.timing_results = []      # per-launch timings when cuda_filter is given
        self._recorder = None

    def __repr__(self):
        launches = f", {len(self.timing_results)} launches timed" if self.timing_results else ""
        return f"<wp.ScopedTimer {self.name!r}: {self.elapsed:.3f} ms{launches}>"

    def __enter__(self):
        if self.active:
            if self.synchronize:
                synchronize()
            ScopedTimer.indent += 1
            if state.tapes and not self.skip_tape:
                state.tapes[-1].record_scope_begin(self.name)
            if self.cuda_filter is not None:
                from .timing import Recorder
                self._recorder = Recorder().start()
            self.start = time.perf_counter()
        return self

    def __exit__(self, *exc):
        if not self.active:
            return
        if self.synchronize:
            synchronize()
        self.elapsed = (time.perf_counter() - self.start) * 1000.0
        if self._recorder is not None:
            self.timing_results = self._recorder.stop()
            self._recorder = None
        if state.tapes and not self.skip_tape:
            state.tapes[-1].record_scope_end()
        ScopedTimer.history.append((self.name, self.elapsed))
        if self.dict is not None:
            self.dict.setdefault(self.name, []).append(self.elapsed)
        if self.report_func:
            self.report_func(self.timing_results, self.elapsed)
        if self.print:
            print(f"{'  ' * ScopedTimer.indent}{self.name} took {self.elapsed:.2f} ms")
        ScopedTimer.indent -= 1

    def _repr_html_(self):
        return hooks.html_view("scoped_timer", self)
