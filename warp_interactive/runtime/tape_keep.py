"""Exact gradients when a tape's arrays are written again (``wp.config.tape_copy_on_write``).

A recorded launch's adjoint replays its forward code, reading its input arrays as they are when
``tape.backward()`` runs. When a later step writes memory an earlier recorded step read (a
scratch buffer reused, ``fill_``/``zero_``/``assign``/``wp.copy`` into it, a kernel updating an
array in place), the replay would read the new values: a silently wrong gradient. So before each
write on a recording tape, every array object whose contents a recorded adjoint still needs and
that overlaps the written bytes is copied (in stream order: deferred in a CPU capture, an async
copy in a CUDA capture), and the recorded steps that name it take the copy instead. The copy
shares the original's gradient array, so gradients flow exactly as through the one buffer (a
store takes the gradient of what it overwrote, an atomic passes it on).

A write the tape cannot copy for (made outside the recording, before ``backward()``, or over the
inputs of a custom ``record_func`` step) is recorded as a conflict: ``backward()`` raises, naming
the array, the step that read it and the write. The arrays a tape still needs are *watched* from
the end of its recording until its ``backward()`` (or ``reset()``): array writes (``fill_``,
``assign``, ``wp.copy``, ``a[i] = v``) and launches on the general path are checked here; graph
replays, fast launches and writes through ``numpy()`` views are found by runtime/tape_watch.py.
"""

import os
import sys
import weakref

from ..state import state
from ..types.dtypes import type_size

_watching = weakref.WeakSet()       # keepers of tapes recorded but not yet differentiated


def span(a):
    """[lo, hi) bytes covering every element of array ``a`` (None when it has none)."""
    if a is None or not getattr(a, "size", 0) or not getattr(a, "ptr", 0):
        return None
    lo = hi = a.ptr
    for n, s in zip(a.shape, a.strides):
        lo, hi = lo + min(0, (n - 1) * s), hi + max(0, (n - 1) * s)
    return lo, hi + type_size(a.dtype)


def root(a):
    """A key of the allocation ``a`` views (views of one buffer share it), so that a write is
    compared only with the reads of its own buffer."""
    p, seen = a, 0
    while getattr(p, "_ref", None) is not None and seen < 64:
        p, seen = p._ref, seen + 1
    return id(p)


def _overlap(r, q):
    return r is not None and q is not None and r[0] < q[1] and q[0] < r[1]


def describe(a):
    return f"array(shape={tuple(a.shape)}, dtype={getattr(a.dtype, '__name__', a.dtype)}, device={a.device})"


def update_flag():
    """Writes are checked while a tape records or one is watched (a watched tape that was
    garbage collected is noticed at the next launch)."""
    on = bool(state.tapes) or bool(_watching)
    state.tape_writes[0] = 1 if on else 0


def watched(arr):
    """Whether a watched tape still needs the contents of memory ``arr`` covers."""
    r = span(arr)
    return r is not None and any(k.live.hits(arr, r) for k in list(_watching))


class Read:
    """An array whose current contents the adjoint of recorded step ``index`` reads."""
    __slots__ = ("span", "index", "arr", "label", "copyable")

    def __init__(self, arr, index, label, copyable=True):
        self.span, self.index, self.arr, self.label, self.copyable = span(arr), index, arr, label, copyable


class Reads:
    """The live reads of one tape, by the allocation they view."""

    def __init__(self):
        self.by_root = {}

    def append(self, rd):
        self.by_root.setdefault(root(rd.arr), []).append(rd)

    def hits(self, arr, r):
        return [rd for rd in self.by_root.get(root(arr), ()) if _overlap(r, rd.span)]

    def remove(self, arr, hits):
        key = root(arr)
        self.by_root[key] = [rd for rd in self.by_root.get(key, ()) if not any(rd is h for h in hits)]

    def clear(self):
        self.by_root.clear()

    def __bool__(self):
        return any(self.by_root.values())


class Keeper:
    """One tape's copies of overwritten arrays, its live reads and its conflicts."""

    def __init__(self):
        self.live = Reads()     # Read records
        self.written = {}       # root -> spans written by recorded steps (a later fill_ cuts their gradient)
        self.kept = []          # (original, copy)
        self.conflicts = []     # messages, raised by backward()
        self.consumed = False   # backward() ran since the last recorded step
        self.conflict_arrays = set()    # ids of the arrays the conflicts name
        self.sums = {}          # id -> (array, checksum, label): contents when the watch began
        self.window = []        # (kernel, caller) of the general launches while watched

    @property
    def kept_bytes(self):
        return sum(c.size * type_size(c.dtype) for _, c in self.kept)

    def clear(self):
        release([c for _, c in self.kept])
        self.live.clear()
        self.written.clear()
        self.kept.clear()
        self.conflicts.clear()
        self.conflict_arrays.clear()
        self.sums.clear()
        self.window.clear()
        unwatch(self)

    def follow_grads(self):
        """Each copy shares its original's gradient array, also one assigned after the copy."""
        for orig, c in self.kept:
            if c.grad is not orig.grad:
                c.grad = orig.grad
            if c.retain_grad != orig.retain_grad:
                c.retain_grad = orig.retain_grad

    def is_copy(self, a):
        return any(c is a for _, c in self.kept)

    def original(self, a):
        for orig, c in self.kept:
            if c is a:
                return orig
        return a

    # --- writes on the recording tape ----------------------------------------------------------
    def before_write(self, tape, arr, writer, pending=None):
        """``arr`` is about to be written by a step of the recording ``tape`` (``pending``: the
        argument lists of a launch not appended yet, whose own reads count). Copies what the
        recorded adjoints still need; True if ``arr`` overlaps anything the tape touched."""
        r = span(arr)
        if r is None:
            return False
        spans = self.written.setdefault(root(arr), [])
        touched = any(_overlap(r, w) for w in spans)
        if r not in spans:
            spans.append(r)
        hits = self.live.hits(arr, r)
        if not hits:
            return touched
        for rd in hits:
            if not rd.copyable:
                self.conflicts.append(
                    f"{describe(rd.arr)} read by {rd.label} was overwritten by {writer} on the tape "
                    "(a custom step's inputs cannot be copied: write into another array)")
        done = {}
        for rd in hits:
            if rd.copyable and id(rd.arr) not in done:
                done[id(rd.arr)] = rd.arr
                self._keep(tape, rd.arr, pending)
        self.live.remove(arr, hits)
        return True

    def _keep(self, tape, arr, pending):
        c = snapshot(arr)
        self.kept.append((self.original(arr), c))
        for k, entry in enumerate(tape.launches):
            if entry[0] == "launch":
                tape.launches[k] = entry[:3] + (substitute(entry[3], arr, c), substitute(entry[4], arr, c)) + entry[5:]
        if pending is not None:
            for lst in pending:
                lst[:] = substitute(lst, arr, c)

    # --- writes by anyone else while the tape waits for backward() ----------------------------
    def outside_write(self, arr, writer):
        r = span(arr)
        for rd in self.live.hits(arr, r)[:1]:
            self.conflict_arrays.add(id(rd.arr))
            self.conflicts.append(
                f"{describe(rd.arr)} read by {rd.label} was overwritten by {writer} outside the "
                "tape's recording before backward(); the gradient would use the new values "
                "(record the write on the tape, write into another array, or record again)")


_pool = {}          # (device, shape, dtype) -> copies a reset() tape gave back, for reuse
_POOL_MAX = 256


def _pool_key(a):
    return str(a.device), tuple(a.shape), id(a.dtype)


def release(copies):
    """Copies a tape no longer needs, kept for the next tapes (a CUDA graph capture cannot
    allocate: a run before the capture leaves the memory its copies need here). Copies made in
    a capture stay with their graph."""
    for c in copies:
        bucket = _pool.setdefault(_pool_key(c), [])
        if not getattr(c, "_kept_in_capture", False) and sum(map(len, _pool.values())) < _POOL_MAX:
            c.grad = None
            bucket.append(c)


def _allocate(arr):
    from ..types.array_factories import empty
    bucket = _pool.get(_pool_key(arr))
    if bucket:
        return bucket.pop()
    dev = arr.device
    if dev.is_capturing:     # a CUDA graph capture (CPU captures may allocate)
        raise RuntimeError(
            f"the tape needs a copy of {describe(arr)} (a recorded step read it and it is written "
            "again), and memory cannot be allocated during a CUDA graph capture: run the program "
            "once before the capture and reset() that tape (its copies' memory is then reused), "
            "or write into another array, or set wp.config.tape_copy_on_write = False")
    return empty(arr.shape, dtype=arr.dtype, device=dev)


def snapshot(arr):
    """A copy of ``arr``'s current contents, in stream order, sharing its gradient array."""
    from . import graph
    c = _allocate(arr)
    c._kept_in_capture = bool(state.capturing[0])
    memory = arr.device.memory

    def run():
        memory.copy(c, arr, 0, 0, arr.size)
    if not (state.capturing[0] and graph.defer(arr.device, run)):
        run()
    if arr.grad is not None:
        c.grad = arr.grad
    c.retain_grad = getattr(arr, "retain_grad", False)
    return c


def substitute(values, old, new):
    """``values`` (a list of launch arguments) with the array ``old`` replaced by ``new``, also
    inside structs (copied with the field replaced)."""
    return [_sub(v, old, new) for v in values]


def _sub(v, old, new):
    if v is old:
        return new
    fields = getattr(getattr(type(v), "_wp_struct_", None), "fields", None)
    if fields is None:
        return v
    changed = {name: _sub(getattr(v, name), old, new) for name in fields}
    if all(changed[name] is getattr(v, name) for name in fields):
        return v
    out = type(v)()
    for name in fields:
        setattr(out, name, changed[name])
    return out


def watch(keeper):
    """Watch ``keeper``'s arrays until its tape's backward(); whether it is watched."""
    if keeper.live and not keeper.consumed:
        _watching.add(keeper)
    update_flag()
    return keeper in _watching


def unwatch(keeper):
    _watching.discard(keeper)
    update_flag()


def outside_write(arr, writer):
    for k in list(_watching):
        k.outside_write(arr, writer)


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def caller():
    """' at FILE:LINE' of the first frame outside this package (the user's call)."""
    frame = sys._getframe()
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE + os.sep):
        frame = frame.f_back
    return f" at {frame.f_code.co_filename}:{frame.f_lineno}" if frame is not None else ""
