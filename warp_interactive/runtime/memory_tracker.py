"""Allocation tracking: ``wp.ScopedMemoryTracker``, ``wp.print_memory_report`` and
``wp.config.track_memory``, as in warp-lang 1.19.

While tracking is on (``wp.config.track_memory``, or inside a ScopedMemoryTracker) every array
allocation is recorded: its bytes, device (pinned host memory apart), a label
(``array[float32, 100]``), the user's call site (the first frame outside this package) and the
scope path of the trackers around it (``outer/inner``; scopes are per thread, totals global). A
record stays live until the array's memory is freed (its owner is collected). Allocations made
inside native code (BVH, hash grid, volume builders) are not seen here: only arrays are."""

import itertools
import os
import sys
import threading
import weakref
from dataclasses import dataclass

from ..config import config

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@dataclass
class Record:
    seq: int
    nbytes: int
    where: str        # "cpu", "cpu (pinned)", "cuda:0"
    label: str
    scope: str
    site: str


class _Tracker:
    """The process's records (one owner; ScopedMemoryTracker and the memory backends call it)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.local = threading.local()
        self.scoped = 0           # active ScopedMemoryTrackers (any thread)
        self.generation = 0       # bumped by reset(): frees of older records change nothing
        self.reset()

    def reset(self):
        self.generation += 1
        self.live = {}            # seq -> Record
        self.total_count = 0
        self.total_bytes = 0
        self.freed_count = 0
        self.peak_bytes = 0
        self.live_bytes = 0
        self.seq = itertools.count()

    def enabled(self):
        return self.scoped > 0 or bool(getattr(config, "track_memory", False))

    def scopes(self):
        if not hasattr(self.local, "stack"):
            self.local.stack = []
        return self.local.stack

    def record(self, a, nbytes, owner):
        rec = Record(next(self.seq), int(nbytes), _where(a), _label(a), "/".join(self.scopes()) or "global",
                     _call_site())
        with self.lock:
            self.live[rec.seq] = rec
            self.total_count += 1
            self.total_bytes += rec.nbytes
            self.live_bytes += rec.nbytes
            self.peak_bytes = max(self.peak_bytes, self.live_bytes)
        try:
            weakref.finalize(owner, self._freed, rec.seq, self.generation)
        except TypeError:         # an owner that takes no weak references: counted as live
            pass

    def _freed(self, seq, generation):
        with self.lock:
            if self.generation != generation:   # recorded before a reset: nothing to undo
                return
            rec = self.live.pop(seq, None)
            if rec is not None:
                self.freed_count += 1
                self.live_bytes -= rec.nbytes


tracker = _Tracker()


def on_allocate(a, owner):
    """Called by the memory backends after allocating ``a``'s memory (owned by ``owner``)."""
    if tracker.enabled():
        from ..types.dtypes import type_size
        size = 1
        for n in a.shape:
            size *= n
        tracker.record(a, size * type_size(a.dtype), owner)


def _where(a):
    name = str(a.device)
    return name + " (pinned)" if getattr(a, "pinned", False) else name    # CPU arrays only


def _label(a):
    from ..types.dtypes import type_repr
    return f"array[{type_repr(a.dtype)}, {', '.join(str(n) for n in a.shape)}]"


def _call_site():
    frame = sys._getframe(2)
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE_DIR):
        frame = frame.f_back
    if frame is None:
        return "(unknown)"
    return f"{os.path.basename(frame.f_code.co_filename)}:{frame.f_lineno} in {frame.f_code.co_name}"


def _size(n):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(n) < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.2f} {unit}"
        n /= 1024.0


def report_text(sort="size", max_items=10):
    """The report as text: totals, live memory per device and per scope, the largest (or
    oldest, ``sort="chronological"``) live allocations of each device."""
    if sort not in ("size", "chronological"):
        raise ValueError(f"Invalid sort order {sort!r}; expected 'size' or 'chronological'")
    with tracker.lock:
        live = list(tracker.live.values())
        lines = ["Allocation Tracking Report", "=" * 26,
                 f"Total allocations: {tracker.total_count} ({_size(tracker.total_bytes)})",
                 f"Freed allocations: {tracker.freed_count}",
                 f"Live allocations: {len(live)} ({_size(tracker.live_bytes)})",
                 f"Peak live memory: {_size(tracker.peak_bytes)}"]
    by_scope = {}
    for r in live:
        n, b = by_scope.get(r.scope, (0, 0))
        by_scope[r.scope] = (n + 1, b + r.nbytes)
    if by_scope:
        lines.append("\nLive memory by scope:")
        lines += [f"  {s:<32} {n:>6} allocations {_size(b):>12}" for s, (n, b) in sorted(by_scope.items())]
    for where in sorted({r.where for r in live}):
        mine = [r for r in live if r.where == where]
        key = (lambda r: -r.nbytes) if sort == "size" else (lambda r: r.seq)
        mine.sort(key=key)
        lines.append(f"\n{where}: {len(mine)} live allocations, {_size(sum(r.nbytes for r in mine))}")
        lines += [f"  {_size(r.nbytes):>12}  {r.label:<28} {r.scope:<20} {r.site}" for r in mine[:max_items]]
        if len(mine) > max_items:
            lines.append(f"  ... {len(mine) - max_items} more")
    return "\n".join(lines) + "\n"


def print_memory_report(file=None, sort="size", max_items=10):
    """Print the tracked allocations (needs ``wp.config.track_memory`` or an active
    ``wp.ScopedMemoryTracker``)."""
    if sort not in ("size", "chronological"):
        raise ValueError(f"Invalid sort order {sort!r}; expected 'size' or 'chronological'")
    if not tracker.enabled():
        raise RuntimeError("Allocation tracking is not active. Set wp.config.track_memory = True before "
                           "calling wp.init(), or use wp.ScopedMemoryTracker as a context manager.")
    print(report_text(sort, max_items), file=file or sys.stdout, end="")


class ScopedMemoryTracker:
    """``with wp.ScopedMemoryTracker("name"):`` records the block's allocations under the scope
    ``name`` (nested trackers make ``outer/inner``) and prints a report at the end (``print=False``:
    none; ``report_func``: the text goes to it). ``active=False`` makes it do nothing."""

    def __init__(self, name="root", active=True, print=True, report_func=None):  # noqa: A002
        self.name, self.active, self.print, self.report_func = name, active, print, report_func

    def __enter__(self):
        if self.active:
            tracker.scopes().append(self.name)
            with tracker.lock:
                tracker.scoped += 1
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        if not self.active:
            return
        stack = tracker.scopes()
        if stack:
            stack.pop()
        try:
            if self.print:
                self.report()
        finally:
            with tracker.lock:
                tracker.scoped -= 1

    def report(self, file=None, sort="size", max_items=10):
        text = report_text(sort, max_items)
        if self.report_func is not None:
            self.report_func(text)
        else:
            print(text, file=file or sys.stdout, end="")

    def clear(self):
        """Forget every record (later reports show only what is allocated after this)."""
        with tracker.lock:
            tracker.reset()
