"""Reuse of large freed host buffers, so that a new CPU array lands on pages already mapped.

glibc hands out blocks above its mmap threshold (at most 32 MiB) as fresh mappings and unmaps
them when freed, so every large temporary pays the kernel's page clearing on first touch (a
quarter of a 10^6-row sparse assembly's time). Here a freed block of ``MIN_BYTES`` or more is
kept (``LIMIT`` bytes of idle blocks at most, the oldest dropped first) and lent again to a
request it fits without wasting more than a quarter of it.

A lent block's memory is exported through a ctypes array over it (the lease): NumPy views of the
buffer, however derived, keep the lease alive, and the block returns to the pool only when the
last of them is gone, so a reused block never aliases a live array. Callers that need zeros
zero the buffer themselves (the memory holds what its previous array left).
"""

import bisect
import ctypes
import threading
import weakref

import numpy as np

MIN_BYTES = 1 << 20        # smaller blocks: malloc's own free lists reuse them
LIMIT = 256 << 20          # idle bytes kept at most

_lock = threading.RLock()   # a lease's finaliser may run inside a collection started here
_idle = []                 # [(nbytes, serial, raw)] sorted by size; raw: a uint8 NumPy array
_idle_bytes = [0]
_lent = {}                 # serial -> raw, while a lease on it lives
_serial = [0]
stats = {"reused": 0, "fresh": 0}


def take(nbytes):
    """A uint8 NumPy array of ``nbytes`` (uninitialised) whose memory returns to the pool when
    the array and every view of it are gone."""
    raw = _reuse(nbytes)
    if raw is None:
        raw = np.empty(nbytes, dtype=np.uint8)
        stats["fresh"] += 1
    with _lock:
        _serial[0] += 1
        serial = _serial[0]
        _lent[serial] = raw
    lease = (ctypes.c_uint8 * nbytes).from_address(raw.ctypes.data)
    weakref.finalize(lease, _give_back, serial).atexit = False
    return np.frombuffer(lease, dtype=np.uint8)


def _reuse(nbytes):
    with _lock:
        i = bisect.bisect_left(_idle, (nbytes,))
        if i == len(_idle) or _idle[i][0] > nbytes + nbytes // 4:
            return None
        size, _, raw = _idle.pop(i)
        _idle_bytes[0] -= size
        stats["reused"] += 1
        return raw


def _give_back(serial):
    with _lock:
        raw = _lent.pop(serial, None)
        if raw is None or raw.nbytes > LIMIT:
            return
        while _idle and _idle_bytes[0] + raw.nbytes > LIMIT:
            oldest = min(range(len(_idle)), key=lambda k: _idle[k][1])
            _idle_bytes[0] -= _idle.pop(oldest)[0]
        bisect.insort(_idle, (raw.nbytes, serial, raw))
        _idle_bytes[0] += raw.nbytes


def idle_bytes():
    """Bytes the pool keeps for reuse now."""
    return _idle_bytes[0]


def release():
    """Free every idle block (lent ones return to the pool when their arrays go)."""
    with _lock:
        _idle.clear()
        _idle_bytes[0] = 0
