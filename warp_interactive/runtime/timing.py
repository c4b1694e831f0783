"""Launch timings: every ``wp.launch`` while a recorder is active is timed (build time apart).

    wp.timing_begin()
    ... launches ...
    results = wp.timing_end()      # [TimingResult], also shown by wp.timing_print(results)

    with wp.timing.record() as rec:
        ...
    rec.results, rec.summary()

CPU launches are synchronous, so a launch's wall time is its run time; CUDA launches are
synchronised after each recorded launch (recording changes the overlap it measures). Building a
module during a launch is recorded as a separate "build" entry, not added to the launch.
"""

import time
from dataclasses import dataclass

from .. import hooks
from ..state import state
from . import launch_state

_active = state.recorders    # the active recorders, innermost last (owned by state)
_original = [None]    # Launch.launch, while recorders are active


@dataclass
class TimingResult:
    name: str             # kernel key (or module name for a build)
    kind: str             # "forward", "backward" or "build"
    device: str
    elapsed: float        # milliseconds
    dim: tuple = ()

    def __repr__(self):
        return f"<{self.kind} {self.name} on {self.device}: {self.elapsed:.3f} ms>"


class Recorder:
    """Collects a TimingResult per launch between ``start()`` and ``stop()``."""

    def __init__(self, synchronize=True):
        self.results = []
        self.synchronize = synchronize

    def start(self):
        _active.append(self)
        _install()
        launch_state.set_reason("timing", True)   # launches go through the timed Launch.launch
        return self

    def stop(self):
        if self in _active:
            _active.remove(self)
        if not _active:
            _uninstall()
        launch_state.set_reason("timing", bool(_active))
        return self.results

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    def summary(self):
        """Per (name, kind): launch count, total and mean milliseconds, largest first."""
        table = {}
        for r in self.results:
            n, total = table.get((r.name, r.kind), (0, 0.0))
            table[(r.name, r.kind)] = (n + 1, total + r.elapsed)
        rows = [(name, kind, n, total, total / n) for (name, kind), (n, total) in table.items()]
        return sorted(rows, key=lambda row: -row[3])

    def _repr_html_(self):
        return hooks.html_view("timing", self.results)


def record(synchronize=True):
    """``with wp.timing.record() as rec:`` records the block's launches into ``rec.results``."""
    return Recorder(synchronize)


def timing_begin(cuda_filter=None, synchronize=True):
    """Start recording launch timings (``cuda_filter`` is accepted for the reference's API)."""
    return Recorder(synchronize).start()


def timing_end():
    """Stop the innermost recording started by ``timing_begin``; its TimingResult list."""
    if not _active:
        raise RuntimeError("wp.timing_end() without a wp.timing_begin()")
    return _active[-1].stop()


def timing_print(results, indent=""):
    """Print results as a table, one row per kernel and kind."""
    rec = Recorder()
    rec.results = list(results)
    print(f"{indent}{'name':<32} {'kind':<9} {'count':>6} {'total ms':>10} {'mean ms':>10}")
    for name, kind, n, total, mean in rec.summary():
        print(f"{indent}{name:<32} {kind:<9} {n:>6} {total:>10.3f} {mean:>10.3f}")


def record_build(module_name, seconds, device="cpu"):
    """A module build outside a launch (the notebook magic builds a cell at once)."""
    for rec in _active:
        rec.results.append(TimingResult(module_name, "build", str(device), seconds * 1000.0))


def _install():
    from .launch import Launch
    if _original[0] is None:
        _original[0] = Launch.launch
        Launch.launch = _timed_launch


def _uninstall():
    from .launch import Launch
    if _original[0] is not None:
        Launch.launch = _original[0]
        _original[0] = None


def _timed_launch(self):
    build_log = state.build_log
    original = _original[0] or type(self).launch
    before = len(build_log)
    t0 = time.perf_counter()
    out = original(self)
    if self.device.is_cuda and any(r.synchronize for r in _active):
        from . import cuda_backend
        cuda_backend.synchronize_device(self.device)
    elapsed = (time.perf_counter() - t0) * 1000.0
    builds = build_log[before:]
    elapsed -= sum(b.seconds for b in builds) * 1000.0
    kind = "backward" if self.adjoint else "forward"
    dim = tuple(self.bounds.shape[i] for i in range(self.bounds.ndim))
    entries = [TimingResult(b.module, "build", str(self.device), b.seconds * 1000.0) for b in builds]
    entries.append(TimingResult(self.kernel.key, kind, str(self.device), max(elapsed, 0.0), dim))
    for rec in _active:
        rec.results.extend(entries)
    return out
