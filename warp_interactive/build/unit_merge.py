"""Merging a module's units back.

A cold build compiles a module's kernels into one unit per compiler worker; each edit then
compiles the edited kernels into a unit of their own (build/cpu_build.py), so after many
edits a module maps many small shared libraries (each load opens every one). When a load that
translated something (an edit) ends up with more than ``workers + MERGE_ABOVE`` units, the
module's kernels are compiled again, grouped as a cold build groups them, in a background
thread: the edit itself still compiles only what changed and returns at once; the merged units
are recorded in the cache (kernel records, warm-index entries), so the next load (the next
process, the next session) maps ``workers`` units again. The process that merged keeps the units
it loaded. The sources are generated before the thread starts (the translator is not
thread-safe); the thread only compiles and writes the cache. Merge threads are not daemons: a
process ending mid-merge waits for its compilers rather than leaving them orphaned.
"""

import threading

from ..compiler import cache
from ..compiler import cpu as cpu_compiler
from ..config import config
from . import unit_plan, warm_index

MERGE_ABOVE = 8     # stale units tolerated beyond one per compiler worker

_threads = []       # the merges started by this process (``wait`` joins them)


def maybe_merge(load, keys):
    """Start merging ``load``'s module (a finished cpu_build.Load with the warm-index ``keys``)
    if it maps too many units; returns the thread, or None."""
    workers = cpu_compiler.workers()
    if keys is None or len(set(load.units.values())) <= workers + MERGE_ABOVE or \
            any(t.name == _thread_name(load) and t.is_alive() for t in _threads):
        return None
    from ..codegen.module_source import ModuleParts
    from ..codegen.target import CPU
    from ..lang.definitions.lower import lower
    parts = ModuleParts(lower(load.kernels), CPU, load.checks, load.backward, load.lanes,
                        preamble=load.extras.preamble)
    hashes, sizes = {}, {}
    for k in load.kernels:
        hashes[k.cpp], sizes[k.cpp] = unit_plan.kernel_hash(parts, k, load.build_key)
    groups = unit_plan.groups(load.kernels, workers, sizes)
    units = unit_plan.unit_sources(parts, groups, hashes, load.build_key)
    unit_of = {k.cpp: unit for group, (_, unit, _) in zip(groups, units) for k in group}
    entries = {k.cpp: {"kernel_hash": hashes[k.cpp], "unit": unit_of[k.cpp],
                       "tid_arity": load.arity[k.cpp]} for k in load.kernels}
    index = [(key, entries[k.cpp]) for k, key in zip(load.kernels, keys[1])]
    index.append((keys[0], {"kernels": {cpp: [e["unit"], e["tid_arity"]] for cpp, e in entries.items()}}))
    thread = threading.Thread(target=_merge, args=(units, index, load.debug, load.fast_math,
                                                   load.name, load.build_options()),
                              name=_thread_name(load))
    _threads.append(thread)
    thread.start()
    return thread


def _thread_name(load):
    return f"wp-merge-{load.name}"


def _merge(units, index, debug, fast_math, name, extra_options):
    from ..compiler import build
    try:
        with cache.in_use():
            options = build.BuildOptions("cpu", debug, fast_math, name=f"{name} (merged units)",
                                         **extra_options)
            build.compile_units(units, options)
            for _, unit, kernel_hashes in units:
                cache.record_kernels(unit, kernel_hashes)
            for key, entry in index:      # the module's entry last: its units all exist now
                warm_index.store(key, entry)
    except Exception as e:   # an optimisation: the module keeps working from its small units
        if config.verbose:
            print(f"warp_interactive: merging the units of {name} failed: {e}")


def wait(timeout=None):
    """Join the merges this process started (tests, benchmarks)."""
    while _threads:
        _threads.pop().join(timeout)
