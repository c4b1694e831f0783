"""Tiered CPU builds: a large cold build runs first from a quick build, and the
optimised build follows in the background.

g++ spends nearly all of a unit's time optimising and vectorising (-O3: ~20 ms per kernel of
the scaling benchmark; the precompiled header leaves little parsing), so a cold module of 100
kernels waited ~1.1 s on two cores. When a load must compile at least
``wp.config.cpu_quick_build`` kernels (and neither debug nor fast_math is on), its units are
compiled first with the quick flags (``compiler/cpu.flags(quick=True)``: -O0, with every flag
that decides a floating-point result unchanged, ~3 ms per kernel) and launched at once; the
same units are then compiled with the optimised flags in a background thread (its compilers
stopped while this process loads a module: compiler/background.py), and recorded in the cache. The next launch of the module after that loads
the optimised units (``LoadedModule.quick``: ``Module.load`` sees that the jobs it waited on are
done; the launch epoch is bumped so fast plans and recorded launches re-resolve).

Same bits: the quick code performs the same IEEE operations (no fast_math, -ffp-contract=off,
-mno-fma, the same host_math.h functions, the same libm calls), only less optimised;
tests/builds/test_quick_tier.py compares both builds bit for bit.

Quick units are never written to the on-disk index or kernel records: their index entries live
in this process only (``_overlay``), so an edit made while the optimised build runs still finds
its unedited kernels without translating them, and another process never loads a quick unit (it
finds the optimised units, or builds again). Background threads are not daemons: a process
ending meanwhile waits for its compilers, so the next run finds the optimised build.

Bounded: no launch runs long at -O0. Every entry of a quick unit reads, per chunk of lanes, a
slot that the background thread fills with the optimised entry's address once it has loaded the
optimised unit (native quick.h): a running launch switches between two chunks, and so do fast
plans, recorded launches, graphs and tape replays holding the quick entry. Until then, a chunk
runs the -O0 code while the job's budget lasts (``BUDGET_S`` of -O0 time, all threads summed),
and waits for the optimised entry afterwards (the compilers then have the cores); a kernel with
a dynamic loop (codegen ``_unbounded``: one lane's work has no bound) always waits. So a
launch (or a sequence) costs at most the budget plus one chunk more than waiting for the
optimised build, as with ``cpu_quick_build = 0``, and a short launch still runs at once.
"""

import ctypes
import threading
import time

from ..compiler import cache
from ..compiler import cpu as cpu_compiler
from ..config import config
from ..state import state
from . import strided, warm_index

# -O0 time (seconds, all threads summed) a job's quick code may run before its chunks wait for
# the optimised code; None: never wait (tests comparing the quick code's own bits)
BUDGET_S = 0.1
# native quick.h's wpi_quick_job_t, in order
_FIELDS = ("used_ns", "budget_ns", "state", "quick_chunks", "optimised_chunks", "waits")
PENDING, DONE, FAILED = 0, 1, 2


class Job:
    """One background optimised build; ``done`` once its units are compiled and recorded.
    ``native``: the record its quick units read per chunk (native quick.h)."""

    def __init__(self, name):
        self.name, self.done, self.error = name, False, None
        self.finished = None    # time.perf_counter() when done (benchmarks/module_scaling.py)
        self.native = (ctypes.c_int64 * len(_FIELDS))()
        self.native[1] = -1 if BUDGET_S is None else int(BUDGET_S * 1e9)

    def counts(self):
        """The native record: quick/optimised chunks run, chunks that waited, -O0 time used."""
        return dict(zip(_FIELDS, self.native))


_lock = threading.Lock()
_jobs = {}        # quick unit hash -> its Job
_overlay = {}     # warm-index key -> entry naming quick units (while their job runs)
_threads = []


def wanted(count, debug, fast_math):
    """Whether a load that compiles ``count`` kernels builds them quickly first."""
    least = config.cpu_quick_build
    return bool(least) and count >= least and not debug and not fast_math and \
        cpu_compiler.quick_pch_ready()


def begin(name, quick_units):
    """A new Job for the quick units ``quick_units`` (their hashes), registered before they are
    built or indexed."""
    job = Job(name)
    with _lock:
        for unit in quick_units:
            _jobs[unit] = job
    return job


def jobs_of(units):
    """The unfinished jobs whose quick units are among ``units`` (unit hashes)."""
    with _lock:
        return tuple({id(j): j for u in units if (j := _jobs.get(u)) is not None and not j.done}.values())


def _pending(entry):
    """Whether ``entry`` (a warm-index entry) names a quick unit whose job still runs."""
    if "unit" in entry:
        units = [entry["unit"]]
    else:
        units = [u for u, _ in entry.get("kernels", {}).values()]
    return bool(jobs_of(units))


def lookup(key):
    """The warm-index entry under ``key``: the cache's, else this process's quick one."""
    entry = warm_index.lookup(key)
    if entry is None:
        entry = _overlay.get(key)
        if entry is not None and not _pending(entry):
            _overlay.pop(key, None)     # its job is done: the optimised entries are on disk
            return None
    return entry


def store(key, entry):
    """Store a warm-index entry: in this process only while it names a quick unit."""
    if _pending(entry):
        _overlay[key] = entry
    else:
        warm_index.store(key, entry)


def start(job, units, index, options, quick, lazy):
    """Compile ``units`` (the optimised ``(source, hash, kernel hashes)``) in the background,
    then record them and the warm-index ``index`` ([(key, entry)]), switch the quick units to
    them and mark ``job`` done. ``quick``: per unit, (path of the quick unit, its Kernels);
    ``lazy``: the strided.Options of their lazy strided entries."""
    for path, _ in quick:     # before any launch: their chunks read the job's record
        ctypes.CDLL(path).wpi_set_quick_job(ctypes.byref(job.native))
    thread = threading.Thread(target=_run, args=(job, units, index, options, quick, lazy),
                              name=f"wp-optimise-{job.name}")
    _threads.append(thread)
    thread.start()
    return thread


def _run(job, units, index, options, quick, lazy):
    from ..compiler import build
    try:
        with cache.in_use():
            built = build.compile_units(units, options, background=True)
            # running launches switch first: the ~2 records per kernel below take a while
            for binary, (quick_path, kernels) in zip(built, quick):
                _switch(quick_path, binary, kernels, lazy)
            for _, unit, kernel_hashes in units:
                cache.record_kernels(unit, kernel_hashes)
            for key, entry in index:      # the module's entry last: its units all exist now
                warm_index.store(key, entry)
        job.finished = time.perf_counter()
        job.native[2] = DONE
        job.done = True
        state.launches_stale()   # plans and recorded launches re-resolve: Module.load swaps
    except Exception as e:   # noqa: BLE001 - the module keeps working from its quick units
        job.error = e
        job.native[2] = FAILED      # chunks waiting for the optimised code run the quick code
        if config.verbose:
            print(f"warp_interactive: the optimised build of {job.name} failed: {e}")


_optimised_libs = []    # loaded optimised units (kept: quick entries call into them)


def _switch(quick_path, binary, kernels, lazy):
    """Load the optimised unit ``binary`` as a LoadedModule does (interrupt hooks, lazy strided
    entries) and point the quick unit's slots at its entries: chunks run there from now on."""
    lib = strided.open_unit(binary.path, (binary.hash, kernels, lazy))
    _optimised_libs.append(lib)
    quick = ctypes.CDLL(quick_path)
    for k in kernels:
        for which in ("forward", "backward"):
            try:
                slot = ctypes.c_void_p.in_dll(quick, f"{k.cpp}_cpu_{which}_optimised")
                entry = getattr(lib, f"{k.cpp}_cpu_{which}")
            except (ValueError, AttributeError):    # no backward entry in this build
                continue
            quick.wpi_quick_set(ctypes.byref(slot), ctypes.cast(entry, ctypes.c_void_p))


def wait(timeout=None):
    """Join the background builds this process started (tests, benchmarks)."""
    while _threads:
        _threads.pop().join(timeout)


def last_finished():
    """``time.perf_counter()`` when the last finished background build ended, or None."""
    with _lock:
        done = [j.finished for j in _jobs.values() if j.finished is not None]
    return max(done) if done else None
