"""The pool of large freed host buffers (runtime/host_pool.py): a freed CPU array's block is lent
again to the next request it fits (warm pages), wp.zeros still gives zeros there, a block is
never lent while any view of its previous array lives, idle blocks stay under the cap, and the
memory tracker counts the freed array as freed."""

import gc
import threading

import numpy as np
import pytest

import warp_interactive as wp
from warp_interactive.runtime import host_pool

BIG = 600_000        # float64 elements: ~4.8 MB, above host_pool.MIN_BYTES


@pytest.fixture(autouse=True)
def empty_pool():
    host_pool.release()
    gc.collect()
    yield
    host_pool.release()


def _freed_ptr(make):
    a = make()
    a.fill_(7)
    ptr = a.ptr
    del a
    gc.collect()
    return ptr


@pytest.mark.parametrize("make", [
    lambda: wp.zeros(BIG, dtype=wp.float64, device="cpu"),
    lambda: wp.empty((BIG // 3, 3), dtype=wp.float64, device="cpu"),
    lambda: wp.zeros(BIG // 3, dtype=wp.vec3d, device="cpu"),
], ids=["zeros", "empty_2d", "vec3d"])
def test_freed_block_is_reused_and_zeroed(make):
    ptr = _freed_ptr(make)
    assert host_pool.idle_bytes() >= BIG * 8
    b = make()
    assert b.ptr == ptr and b.ptr % 64 == 0
    assert not b.numpy().any()
    assert host_pool.idle_bytes() == 0


def test_array_from_numpy_gets_its_data_in_a_reused_block():
    ptr = _freed_ptr(lambda: wp.zeros(BIG, dtype=wp.float64, device="cpu"))
    src = np.arange(BIG, dtype=np.float64)
    b = wp.array(src, dtype=wp.float64, device="cpu")
    assert b.ptr == ptr
    np.testing.assert_array_equal(b.numpy(), src)


def test_block_is_not_lent_while_a_view_of_its_array_lives():
    a = wp.zeros(BIG, dtype=wp.float64, device="cpu")
    ptr = a.ptr
    view = a.numpy()[10:20]       # outlives the wp array
    del a
    gc.collect()
    b = wp.zeros(BIG, dtype=wp.float64, device="cpu")
    assert b.ptr != ptr
    b.fill_(1.0)
    assert not view.any()         # the old memory is untouched by the new array
    del view
    gc.collect()
    c = wp.zeros(BIG, dtype=wp.float64, device="cpu")
    assert c.ptr == ptr and b.ptr != c.ptr


@pytest.mark.parametrize("nbytes, reused", [(BIG * 8, True), (BIG * 8 // 2, False), (BIG * 8 * 2, False),
                                            (int(BIG * 8 * 0.85), True)])
def test_block_fits_only_requests_it_does_not_waste(nbytes, reused):
    """A block serves a request no larger than itself and wastes at most a quarter of itself."""
    ptr = _freed_ptr(lambda: wp.zeros(BIG, dtype=wp.float64, device="cpu"))
    b = wp.zeros(nbytes, dtype=wp.uint8, device="cpu")
    assert (b.ptr == ptr) is reused
    assert not b.numpy().any()


def test_small_arrays_are_not_pooled():
    _freed_ptr(lambda: wp.zeros(1000, dtype=wp.float64, device="cpu"))
    assert host_pool.idle_bytes() == 0


def test_idle_blocks_stay_under_the_cap(monkeypatch):
    monkeypatch.setattr(host_pool, "LIMIT", 3 * BIG * 8)
    arrays = [wp.zeros(BIG, dtype=wp.float64, device="cpu") for _ in range(5)]
    ptrs = [a.ptr for a in arrays]
    del arrays
    gc.collect()
    assert BIG * 8 * 2 <= host_pool.idle_bytes() <= 3 * BIG * 8
    huge = wp.zeros(4 * BIG, dtype=wp.float64, device="cpu")       # larger than the cap: never kept
    del huge
    gc.collect()
    assert host_pool.idle_bytes() <= 3 * BIG * 8
    kept = [wp.zeros(BIG, dtype=wp.float64, device="cpu") for _ in range(3)]
    assert len({a.ptr for a in kept} & set(ptrs)) >= 2      # the most recently freed blocks were kept
    host_pool.release()
    assert host_pool.idle_bytes() == 0


def test_tracker_counts_a_pooled_array_as_freed():
    from warp_interactive.runtime.memory_tracker import tracker
    with wp.ScopedMemoryTracker("pool", print=False) as t:
        t.clear()
        a = wp.zeros(BIG, dtype=wp.float64, device="cpu")
        assert tracker.live_bytes == BIG * 8
        del a
        gc.collect()
        assert tracker.live_bytes == 0
        b = wp.zeros(BIG, dtype=wp.float64, device="cpu")
        assert tracker.live_bytes == BIG * 8 and tracker.total_count == 2
        del b


def test_threads_never_share_a_block():
    """Arrays allocated and freed by several threads at once: every live array's memory is its
    own (each thread's values survive the others' work)."""
    errors = []

    def work(k):
        for i in range(20):
            a = wp.zeros(BIG // 4, dtype=wp.float64, device="cpu")
            a.fill_(k * 100 + i)
            b = wp.zeros(BIG // 4, dtype=wp.float64, device="cpu")
            b.fill_(-k)
            if not (np.all(a.numpy() == k * 100 + i) and np.all(b.numpy() == -k)):
                errors.append((k, i))
            del a, b

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
