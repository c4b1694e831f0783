"""warp-lang's device queries (memory pools, peer access, NVRTC's architectures, the CPU's
values of the CUDA device properties): the CPU's answers as warp-lang 1.19 gives them (measured:
all False / 0, a ValueError when enabling), the mempool switch on the stand-in CUDA driver."""

import os

import numpy as np
import pytest

import warp_interactive as wp

QUERIES = ["is_mempool_supported", "is_mempool_enabled"]
PAIR_QUERIES = ["is_mempool_access_supported", "is_mempool_access_enabled",
                "is_peer_access_supported", "is_peer_access_enabled"]


@pytest.mark.parametrize("name", QUERIES)
def test_cpu_has_no_memory_pool(name):
    assert getattr(wp, name)("cpu") is False


@pytest.mark.parametrize("name", PAIR_QUERIES)
def test_cpu_has_no_peer_access(name):
    assert getattr(wp, name)("cpu", "cpu") is False


@pytest.mark.parametrize("name, words", [
    ("set_peer_access_enabled", "Peer access is only supported between CUDA devices"),
    ("set_mempool_access_enabled", "Memory pool access is only supported between CUDA devices"),
])
def test_enabling_access_on_the_cpu_is_refused(name, words):
    getattr(wp, name)("cpu", "cpu", False)          # disabling: nothing to do, as in warp-lang
    with pytest.raises(ValueError, match=words):
        getattr(wp, name)("cpu", "cpu", True)


def test_cpu_device_properties():
    d = wp.get_device("cpu")
    assert (d.sm_count, d.max_shared_memory_per_block) == (0, 0)
    page = os.sysconf("SC_PAGE_SIZE")
    assert d.total_memory == os.sysconf("SC_PHYS_PAGES") * page
    assert 0 < d.free_memory <= d.total_memory
    with pytest.raises(ValueError, match="only supported on CUDA devices"):
        wp.set_mempool_enabled("cpu", True)


def test_supported_archs_is_a_sorted_list():
    archs = wp.get_cuda_supported_archs()
    assert isinstance(archs, list) and archs == sorted(archs)
    if wp.is_cuda_available():
        assert archs and all(a >= 50 for a in archs)


def test_mempool_switch_on_the_stand_in_driver(monkeypatch):
    pytest.importorskip("cuda.bindings.nvrtc", reason="the CUDA extra is not installed")
    if wp.is_cuda_available():
        pytest.skip("a real GPU is here: the stand-in driver is not installed over it")
    from cuda_fake import install
    from warp_interactive.runtime import device as device_mod
    fake = install(monkeypatch.setattr)
    monkeypatch.setattr(device_mod, "_default", [])
    calls = []
    for fn in ("cuMemAllocAsync", "cuMemAlloc"):
        real = getattr(fake, fn)
        monkeypatch.setattr(fake, fn, lambda *a, _r=real, _n=fn: (calls.append(_n), _r(*a))[1])
    d = wp.get_device("cuda:0")
    assert d.sm_count == 4 and d.max_shared_memory_per_block == 232448
    pooled = wp.is_mempool_supported(d)
    assert wp.is_mempool_enabled(d) == pooled
    try:
        wp.set_mempool_enabled(d, False)
        assert not wp.is_mempool_enabled(d)
        a = wp.array(np.arange(4, dtype=np.float32), device=d)
        assert calls[-1] == "cuMemAlloc"
        np.testing.assert_array_equal(a.numpy(), np.arange(4))
        if pooled:
            wp.set_mempool_enabled(d, True)
            wp.zeros(4, dtype=float, device=d)
            assert calls[-1] == "cuMemAllocAsync"
    finally:
        d.__dict__.pop("mempool_enabled", None)
