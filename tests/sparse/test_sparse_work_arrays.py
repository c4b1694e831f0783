"""The work arrays that triplet assembly and bsr_mm keep between calls (sparse/segments.py): at most
SCRATCH_LIMIT bytes per thread, a finished thread's arrays freed, release_scratch() frees them all,
and the results stay SciPy's whatever was kept or dropped."""

import gc
import threading
import weakref

import numpy as np
import pytest

import warp_interactive as wp
import warp_interactive.sparse as sp
import warp_interactive.sparse.segments as segments
from sparse_ref import assert_matches, from_triplets, random_triplets, scipy_from_triplets, to_scipy


def _kept_bytes(ident=None):
    kept = segments._SCRATCH.get(threading.get_ident() if ident is None else ident, {})
    return sum(a.capacity for a in kept.values())


def _assemble_and_check(rng, nrow, count):
    rows, cols, vals = random_triplets(rng, nrow, 30, count, (1, 1), wp.float64)
    A = from_triplets(nrow, 30, rows, cols, vals, wp.float64, (1, 1))
    assert_matches(A, scipy_from_triplets(nrow, 30, rows, cols, vals, (1, 1)), wp.float64)
    return A


@pytest.mark.parametrize("limit", [0, 3000, 40_000, 1 << 30])
def test_kept_bytes_stay_under_the_limit_and_results_hold(monkeypatch, limit):
    """Assemblies and products of growing and shrinking sizes: right results, and what the
    thread keeps never exceeds the limit (0: nothing kept)."""
    monkeypatch.setattr(segments, "SCRATCH_LIMIT", limit)
    segments.release_scratch()
    rng = np.random.default_rng(limit % 1000)
    for nrow, count in [(40, 200), (300, 3000), (20, 50), (300, 2500)]:
        A = _assemble_and_check(rng, nrow, count)
        assert _kept_bytes() <= limit
        x = from_triplets(30, nrow, *random_triplets(rng, 30, nrow, count // 4, (1, 1), wp.float64), wp.float64, (1, 1))
        assert_matches(sp.bsr_mm(A, x), to_scipy(A) @ to_scipy(x), wp.float64, scale=10)
        assert _kept_bytes() <= limit
    if limit == 1 << 30:
        assert _kept_bytes() > 0          # the default case: arrays are kept for the next call


def test_finished_threads_arrays_are_freed():
    """A thread's kept arrays go once it has finished (at the next call of another thread)."""
    segments.release_scratch()
    refs, idents = [], []

    def work():
        _assemble_and_check(np.random.default_rng(1), 200, 2000)
        idents.append(threading.get_ident())
        refs.extend(weakref.ref(a) for a in segments._SCRATCH[threading.get_ident()].values())

    t = threading.Thread(target=work)
    t.start()
    t.join()
    assert refs and all(r() is not None for r in refs)      # kept while nothing else ran
    _assemble_and_check(np.random.default_rng(2), 10, 20)
    gc.collect()
    assert idents[0] not in segments._SCRATCH
    assert all(r() is None for r in refs)


def test_release_scratch_frees_the_memory():
    """release_scratch(): the kept arrays are freed (the memory tracker sees it), and the next
    calls are right."""
    from warp_interactive.runtime.memory_tracker import tracker
    segments.release_scratch()
    with wp.ScopedMemoryTracker("scratch", print=False) as t:
        t.clear()
        rng = np.random.default_rng(3)
        _assemble_and_check(rng, 300, 3000)
        gc.collect()
        kept = _kept_bytes()
        assert kept > 0 and tracker.live_bytes >= kept
        refs = [weakref.ref(a) for a in segments._SCRATCH[threading.get_ident()].values()]
        before = tracker.live_bytes
        segments.release_scratch()
        gc.collect()
        assert all(r() is None for r in refs)
        assert tracker.live_bytes <= before - kept
        _assemble_and_check(rng, 300, 3000)
