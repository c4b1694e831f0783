"""Writes no hook sees, between a tape's recording and its ``backward()``.

A tape watches the arrays its recorded adjoints still read (runtime/tape_keep.py) and the
general launch path, array writes and graph replays report writes over them. Three kinds of
write pass no hook, so as to leave their paths as fast as they are: a kernel launched again
through its fast plan (native/src/fast_plan.cpp), a ``record_cmd`` launch replayed, and a write
through a ``numpy()`` view (or memory shared with another framework). For them:

* when the watch starts, the launch epoch is bumped (``launch_state.recheck``): every kernel's
  next launch takes the general path once, where it is checked and logged in the watch's
  *window*, then its plan re-arms, so the fast path costs nothing more;
* the contents of every watched CPU array are checksummed (CRC-32) when the watch starts and
  compared when the watch ends (``backward()``, or the tape recording again). A change is a
  conflict naming the array, the recorded step that read it and the kernels of the window that
  write arrays of its type (the candidates for a second, fast, launch), or else a write through
  a ``numpy()`` view. Equal contents are no conflict: the gradient is the same.

CUDA arrays are not checksummed (that would copy them to the host): CUDA launches always take
the general path, graph replays are checked, and ``numpy()`` of a CUDA array is a copy.
``wp.config.tape_check_contents = False`` turns the checksums off.
"""

import zlib

import numpy as np

from ..config import config
from ..state import state
from . import launch_state, tape_keep

WINDOW_MAX = 64     # kernels logged per watch (the first general launch of each)


def checksum(arr):
    """CRC-32 of a CPU array's elements (None for arrays it does not cover)."""
    try:
        values = np.ascontiguousarray(arr.device.memory.to_numpy(arr))
        return zlib.crc32(values.reshape(-1).view(np.uint8))
    except Exception:       # a dtype NumPy cannot view as bytes: left to the other checks
        return None


def _watched_arrays(keeper):
    """{id: (array, label of the first recorded step that reads it)} of the live reads."""
    out = {}
    for reads in keeper.live.by_root.values():
        for rd in reads:
            out.setdefault(id(rd.arr), (rd.arr, rd.label))
    return out


def start(keeper):
    """The tape stopped recording and waits for backward(): checksum what it needs."""
    keeper.sums.clear()
    keeper.window.clear()
    launch_state.recheck()
    if not config.tape_check_contents or state.capturing[0]:
        return      # inside a capture nothing has run yet: the replays are checked instead
    for key, (arr, label) in _watched_arrays(keeper).items():
        if getattr(arr, "device", None) is not None and arr.device.is_cpu:
            s = checksum(arr)
            if s is not None:
                keeper.sums[key] = (arr, s, label)


def verify(keeper):
    """The watch ends: a watched array whose contents changed is a conflict."""
    sums, keeper.sums = keeper.sums, {}
    if state.capturing[0]:
        return
    named = set(keeper.conflict_arrays)
    for key, (arr, s, label) in sums.items():
        if key in named or checksum(arr) == s:
            continue
        keeper.conflict_arrays.add(key)
        keeper.conflicts.append(
            f"{tape_keep.describe(arr)} read by {label} was overwritten outside the tape's "
            f"recording before backward() (its contents changed since the recording ended) "
            f"{_suspects(keeper, arr)}; the gradient would use the new values (record the write "
            "on the tape, write into another array, or record again)")


def _suspects(keeper, arr):
    names = []
    for kernel, where in keeper.window:
        if _writes_dtype(kernel, arr.dtype) and (kernel.key, where) not in names:
            names.append((kernel.key, where))
    if names:
        listed = ", ".join(f"kernel {k} (launched{w})" for k, w in names)
        return (f"by a write the tape did not see: a launch through the fast plan of {listed} "
                "(after its first launch there, which is checked), or a write through a numpy() view")
    return "by a write the tape did not see: a write through a numpy() view of it (or memory it shares)"


def _writes_dtype(kernel, dtype):
    from ..lang.analysis.access import kernel_read_write
    try:
        rw = kernel_read_write(kernel, fields=True)[0]
    except Exception:
        return True
    for path, kinds in rw.items():
        t = kernel.arg_types.get(path.split(".")[0])
        if "write" in kinds and (getattr(t, "dtype", None) is dtype or "." in path):
            return True
    return False


def log_launch(kernel):
    """A general launch while tapes are watched (its writes are checked by the caller)."""
    for keeper in list(tape_keep._watching):
        if len(keeper.window) < WINDOW_MAX and all(k is not kernel for k, _ in keeper.window):
            keeper.window.append((kernel, tape_keep.caller()))
