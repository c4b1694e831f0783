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
Each launch also records its process CPU time (all threads): on a loaded machine, where wall
time includes waiting for a core, it still attributes the work to the kernel.
"""

import time
from dataclasses import dataclass

from .. import hooks
from ..state import state
from . import launch_state

_active = state.recorders    # the active recorders, innermost last (owned by state)
_last = [None]        # the recorder stopped last (what wp.notebook.show_timings() shows)


# the activity kinds of warp-lang's timing API (wp.timing_begin(cuda_filter=...), TimingResult.filter)
TIMING_KERNEL = 1            # kernel launches (the user's)
TIMING_KERNEL_BUILTIN = 2    # the runtime's own kernels (fill, copy)
TIMING_MEMCPY = 4
TIMING_MEMSET = 8
TIMING_GRAPH = 16
TIMING_ALL = 0xFFFFFFFF


@dataclass
class TimingResult:
    name: str             # kernel key (or module name for a build)
    kind: str             # "forward", "backward" or "build"
    device: str
    elapsed: float        # milliseconds
    dim: tuple = ()
    detail: str = ""      # builds: "forward, compiled", "backward, cache hit"...
    cpu_elapsed: float = 0.0   # ms of process CPU time, all threads (launches; a build inside counts its in-process part)
    path: str = ""        # launches: the code path the kernel took and why (codegen/paths.py)

    @property
    def filter(self):
        """The activity kind as warp-lang's flag: TIMING_KERNEL for launches, 0 for module builds
        (not a device activity: always recorded, whatever the filter)."""
        return TIMING_KERNEL if self.kind in ("forward", "backward") else 0

    def __repr__(self):
        what = f"{self.kind} ({self.detail})" if self.detail else self.kind
        return f"<{what} {self.name} on {self.device}: {self.elapsed:.3f} ms>"


class Recorder:
    """Collects a TimingResult per launch between ``start()`` and ``stop()``."""

    def __init__(self, synchronize=True, cuda_filter=TIMING_ALL):
        self.cuda_filter = TIMING_ALL if cuda_filter is None else int(cuda_filter)
        self.results = []
        self.timers = []          # (name, ms) of the ScopedTimers that ended while recording
        self.synchronize = synchronize
        self._timer_mark = None
        self._build_mark = None   # build_log entries before this one are already in results

    def start(self):
        build_log = state.build_log
        self._timer_mark = len(state.timer_history)
        self._build_mark = len(build_log)
        _active.append(self)
        _install()
        launch_state.set_reason("timing", True)   # launches go through the timed Launch.launch
        return self

    def stop(self):
        if self in _active:
            self.collect_builds("")
            self.timers = list(state.timer_history[self._timer_mark:])
            _active.remove(self)
            _last[0] = self
        if not _active:
            _uninstall()
        launch_state.set_reason("timing", bool(_active))
        return self.results

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    def collect_builds(self, device):
        """Add the module loads logged since the last call as "build" results (a launch loads
        its module before it starts, the notebook magic builds a cell outright)."""
        build_log = state.build_log
        if self._build_mark is None:
            return
        self.results.extend(build_result(b, device) for b in build_log[self._build_mark:])
        self._build_mark = len(build_log)

    def summary(self):
        """Per (name, kind): launch count, total and mean milliseconds, largest first."""
        return summary_rows(self.results)

    def table(self, indent=""):
        """The summary as text, one row per kernel and kind (what ``timing_print`` prints)."""
        return format_table(self.results, indent)

    def __repr__(self):
        state = "recording" if self in _active else "stopped"
        return f"<timing Recorder, {state}, {len(self.results)} results>\n{self.table('  ')}"

    def _repr_html_(self):
        return hooks.html_view("timing", self.results)


def record(synchronize=True):
    """``with wp.timing.record() as rec:`` records the block's launches into ``rec.results``."""
    return Recorder(synchronize)


def timing_begin(cuda_filter=TIMING_ALL, synchronize=True):
    """Start recording launch timings; ``cuda_filter`` (TIMING_* flags, or'ed) chooses the
    activities: launches are recorded when it holds TIMING_KERNEL (module builds always are)."""
    return Recorder(synchronize, cuda_filter).start()


def timing_end():
    """Stop the innermost recording started by ``timing_begin``; its TimingResult list."""
    if not _active:
        raise RuntimeError("wp.timing_end() without a wp.timing_begin()")
    return _active[-1].stop()


def last_recorder():
    """The recorder stopped last (``timing_end``, the end of a ``record()`` block), or None."""
    return _last[0]


def _kind_label(kind, detail):
    return f"{kind} ({detail})" if detail else kind


def summary_rows(results):
    """Per (name, kind, detail): count, total and mean ms, largest total first (builds of the
    forward and the backward binary of one module are two rows that say which is which)."""
    table = {}
    for r in results:
        key = (r.name, _kind_label(r.kind, r.detail))
        n, total = table.get(key, (0, 0.0))
        table[key] = (n + 1, total + r.elapsed)
    rows = [(name, kind, n, total, total / n) for (name, kind), (n, total) in table.items()]
    return sorted(rows, key=lambda row: -row[3])


def format_table(results, indent=""):
    lines = [f"{indent}{'name':<32} {'kind':<28} {'count':>6} {'total ms':>10} {'mean ms':>10}"]
    for name, kind, n, total, mean in summary_rows(results):
        lines.append(f"{indent}{name:<32} {kind:<28} {n:>6} {total:>10.3f} {mean:>10.3f}")
    return "\n".join(lines)


def timing_print(results, indent=""):
    """Print results as a table, one row per kernel and kind."""
    print(format_table(results, indent))


def build_result(record, device):
    """The TimingResult of a module load (a build.driver.BuildRecord)."""
    return TimingResult(record.module, "build", str(device), record.seconds * 1000.0,
                        detail=record.detail)


def record_build(device="cpu"):
    """Module builds outside a launch (the notebook magic builds a cell at once): every active
    recorder takes the loads logged since its last look, on ``device``."""
    for rec in _active:
        rec.collect_builds(str(device))


def _install():
    from .launch import observe
    observe(_timed_launch)


def _uninstall():
    from .launch import observe
    observe(None)


def _timed_launch(self, run):
    build_log = state.build_log
    before = len(build_log)
    t0, c0 = time.perf_counter(), time.process_time()
    out = run(self)
    if any(r.synchronize for r in _active):
        self.device.synchronize()
    elapsed = (time.perf_counter() - t0) * 1000.0
    cpu = (time.process_time() - c0) * 1000.0
    builds = build_log[before:]
    elapsed -= sum(b.seconds for b in builds) * 1000.0
    kind = "backward" if self.adjoint else "forward"
    dim = tuple(self.bounds.shape[i] for i in range(self.bounds.ndim))
    for rec in _active:
        rec.collect_builds(str(self.device))       # the loads before and during this launch
        if rec.cuda_filter & TIMING_KERNEL:
            rec.results.append(TimingResult(self.kernel.key, kind, str(self.device), max(elapsed, 0.0), dim,
                                            cpu_elapsed=cpu, path=launch_path(self)))
    return out


def launch_path(launch):
    """The code path of a launch (``Launch``): lanes, vectorised, blocks, scalar (why), and
    whether its module still ran the quick tier's -O0 code (build/quick_tier.py)."""
    return launch.device.launcher.path(launch)
