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


# --- what differs per device is asked of the device (runtime/device.py, runtime/cuda/context.py)
class _Desc(__import__("ctypes").Structure):
    _fields_ = [("n", __import__("ctypes").c_int32), ("w", __import__("ctypes").c_float)]


def test_the_cpu_places_host_memory_in_place():
    import ctypes
    cpu = wp.get_device("cpu")
    host = np.arange(6, dtype=np.float32)
    ptr, keep = cpu.place(host)
    assert ptr == host.ctypes.data and keep is host          # no copy: later changes are seen
    assert cpu.place(np.zeros(0, np.float32))[0] == 0
    desc = _Desc(3, 0.5)
    assert cpu.place(desc) == (ctypes.addressof(desc), desc)
    assert cpu.is_capturing is False and cpu.reads_host_memory is True
    assert cpu.transfer_memory(cpu) is cpu.memory
    assert cpu.synchronize() is None and cpu.profiler_range(True) is None
    with pytest.raises(RuntimeError, match="Custom allocators are only supported on CUDA devices"):
        cpu.check_custom_allocator()
    assert cpu.peer_can_access(cpu) is False


def test_the_stand_in_gpu_places_a_device_copy_and_copies_both_ways(monkeypatch):
    pytest.importorskip("cuda.bindings.nvrtc", reason="the CUDA extra is not installed")
    if wp.is_cuda_available():
        pytest.skip("a real GPU is here: the stand-in driver is not installed over it")
    import ctypes
    from cuda_fake import install
    from warp_interactive.runtime import device as device_mod
    install(monkeypatch.setattr)
    monkeypatch.setattr(device_mod, "_default", [])
    d, cpu = wp.get_device("cuda:0"), wp.get_device("cpu")
    host = np.arange(6, dtype=np.float32)
    ptr, buf = d.place(host)
    assert ptr != host.ctypes.data and not d.reads_host_memory
    host[0] = 7.0                                              # a copy: unchanged until placed again
    view = wp.array(ptr=ptr, shape=(6,), dtype=wp.float32, device=d)
    np.testing.assert_array_equal(view.numpy(), np.arange(6))
    assert d.place(host, buf) == (ptr, buf)                    # same size: same memory, new bytes
    np.testing.assert_array_equal(view.numpy(), host)
    assert d.place(np.zeros(3, np.float32), buf)[1] is not buf
    dptr, _ = d.place(_Desc(3, 0.5))
    back = _Desc.from_buffer_copy(wp.array(ptr=dptr, shape=(8,), dtype=wp.uint8, device=d).numpy().tobytes())
    assert (back.n, back.w) == (3, 0.5)
    assert d.transfer_memory(cpu) is d.memory and cpu.transfer_memory(d) is d.memory
    a = wp.array(np.arange(5, dtype=np.float32), device=d)
    np.testing.assert_array_equal(wp.clone(a, device="cpu").numpy(), np.arange(5))
    np.testing.assert_array_equal(wp.clone(wp.clone(a, device="cpu"), device=d).numpy(), np.arange(5))
    assert d.peer_can_access(d) and not d.peer_can_access(cpu) and not cpu.peer_can_access(d)
    assert wp.is_peer_access_enabled(d, d) and not wp.is_peer_access_enabled(d, cpu)


@pytest.mark.parametrize("shape, index", [((4, 6), np.s_[:, ::2]), ((5,), np.s_[::-1]), ((3, 4), np.s_[1:, 1:3])])
def test_clone_on_the_cpu_copies_strided_views(shape, index):
    base = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    view = wp.array(base, device="cpu")[index] if len(shape) > 1 else wp.array(base[index], device="cpu")
    out = wp.clone(view)
    assert out.is_contiguous
    np.testing.assert_array_equal(out.numpy(), base[index])
