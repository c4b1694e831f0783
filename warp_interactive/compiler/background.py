"""Background compilers (the quick tier's optimised build, build/quick_tier.py) step aside
while this process loads a module.

They run at normal priority: at the lowest one (``nice``) a user's launches on every core
starved them, and the -O0 code they replace (~30-100x slower) kept running. Instead every
compiler process group started in the background is registered here, and ``paused()`` (held by
every CPU load, build/cpu_build.py) stops them (SIGSTOP) until the load is done (SIGCONT): an
edit made meanwhile compiles and translates at full speed. Should this process die while they
are stopped, the kernel sends their orphaned process group SIGHUP and SIGCONT: they end.
"""

import os
import signal
import threading
from contextlib import contextmanager

_lock = threading.Lock()
_groups = set()     # process groups of running background compilers
_depth = [0]        # nested paused() calls (several threads may load at once)


def _signal(group, sig):
    try:
        os.killpg(group, sig)
    except (OSError, AttributeError):   # ended meanwhile; no killpg (Windows)
        pass


def started(group):
    """A background compiler's process group began (stopped at once while paused)."""
    with _lock:
        _groups.add(group)
        if _depth[0]:
            _signal(group, signal.SIGSTOP)


def ended(group):
    with _lock:
        _groups.discard(group)


@contextmanager
def paused():
    """Background compilers stopped for the duration (no system call when there are none)."""
    with _lock:
        _depth[0] += 1
        if _depth[0] == 1:
            for group in _groups:
                _signal(group, signal.SIGSTOP)
    try:
        yield
    finally:
        with _lock:
            _depth[0] -= 1
            if _depth[0] == 0:
                for group in _groups:
                    _signal(group, signal.SIGCONT)
