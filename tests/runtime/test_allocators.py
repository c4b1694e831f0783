"""Memory allocators (warp-lang 1.19's API): the ``wp.Allocator`` protocol, the built-in
allocators of each device, ``wp.MemoryKind`` and ``array.memory_kind``, and custom allocators on
CUDA devices (refused on the CPU, as warp-lang refuses them)."""

import numpy as np
import pytest

import warp_interactive as wp


class Counting:
    """A custom allocator over a device's built-in one, counting its calls."""

    def __init__(self, device):
        self.inner = wp.get_device(device).default_allocator
        self.allocs, self.frees = [], []

    def allocate(self, size_in_bytes):
        ptr = self.inner.allocate(size_in_bytes)
        self.allocs.append((ptr, size_in_bytes))
        return ptr

    def deallocate(self, ptr, size_in_bytes):
        self.frees.append((ptr, size_in_bytes))
        self.inner.deallocate(ptr, size_in_bytes)


@pytest.mark.parametrize("code, name", list(enumerate(
    ["UNKNOWN", "HOST", "PINNED", "CUDA_DEVICE", "CUDA_MEMPOOL", "CUDA_MANAGED"])))
def test_memory_kind_codes(code, name):
    assert wp.MemoryKind(code) is wp.MemoryKind[name]


@pytest.mark.parametrize("make, kind", [
    (lambda: wp.empty(4, dtype=float, device="cpu"), wp.MemoryKind.HOST),
    (lambda: wp.empty(4, dtype=float, device="cpu")[1:], wp.MemoryKind.HOST),
    (lambda: wp.empty(0, dtype=float, device="cpu"), wp.MemoryKind.HOST),
    (lambda: wp.array(np.zeros(3, np.float32), dtype=float, copy=False), wp.MemoryKind.HOST),
    (lambda: wp.array(dtype=float), wp.MemoryKind.UNKNOWN),
])
def test_array_memory_kind(make, kind):
    assert make().memory_kind is kind


def test_indexed_arrays_have_no_memory_kind():
    a = wp.zeros(4, dtype=float)
    assert not hasattr(wp.indexedarray(a, wp.array([0, 2], dtype=wp.int32)), "memory_kind")


@pytest.mark.parametrize("get", [lambda d: d.default_allocator, lambda d: d.pinned_allocator,
                                 lambda d: wp.get_device_allocator(d)], ids=["default", "pinned", "get"])
def test_cpu_allocators_follow_the_protocol_and_hand_out_memory(get):
    alloc = get(wp.get_device("cpu"))
    assert isinstance(alloc, wp.Allocator)
    ptr = alloc.allocate(256)
    assert ptr % 64 == 0 and ptr != 0
    view = np.ctypeslib.as_array((np.ctypeslib.ctypes.c_uint8 * 256).from_address(ptr))
    view[:] = np.arange(256) % 251        # the memory is ours to write
    assert view[250] == 250
    alloc.deallocate(ptr, 256)


@pytest.mark.parametrize("call, error, message", [
    (lambda: wp.set_device_allocator("cpu", Counting("cpu")), RuntimeError, "only supported on CUDA devices"),
    (lambda: wp.ScopedAllocator("cpu", Counting("cpu")), RuntimeError, "only supported on CUDA devices"),
    (lambda: wp.set_cuda_allocator(object()), TypeError, "Allocator protocol"),
    (lambda: wp.set_cuda_allocator(type("A", (), {"allocate": 1, "deallocate": 2})()), TypeError,
     "Allocator protocol"),
])
def test_allocator_errors(call, error, message):
    with pytest.raises(error, match=message):
        call()


@pytest.mark.skipif(wp.is_cuda_available(), reason="checks the machine without a GPU")
def test_without_cuda_devices():
    with pytest.raises(RuntimeError, match="no CUDA devices"):
        wp.set_cuda_allocator(None)
    with pytest.raises(RuntimeError, match="CUDA device"):
        wp.CudaManagedAllocator().allocate(64)
    assert isinstance(wp.CudaManagedAllocator(), wp.Allocator)
    assert wp.get_device_allocator("cpu") is wp.get_device("cpu").default_allocator


def test_rmm_allocator_needs_rmm():
    pytest.importorskip("numpy")
    try:
        import rmm  # noqa: F401
        pytest.skip("rmm is installed")
    except ImportError:
        pass
    with pytest.raises(ImportError):
        wp.utils.AllocatorRmm()


@pytest.mark.skipif(not wp.is_cuda_available(), reason="needs a CUDA device")
def test_custom_allocator_serves_and_frees_cuda_arrays():
    import gc
    device = wp.get_device("cuda:0")
    alloc = Counting(device)
    with wp.ScopedAllocator(device, alloc):
        assert wp.get_device_allocator(device) is alloc
        a = wp.zeros(100, dtype=wp.float32, device=device)
        a.fill_(3.0)
        np.testing.assert_array_equal(a.numpy(), 3.0)
        assert alloc.allocs == [(a.ptr, 400)]
    assert wp.get_device_allocator(device) is device.default_allocator
    b = wp.zeros(10, dtype=float, device=device)
    assert len(alloc.allocs) == 1 and b.memory_kind in (wp.MemoryKind.CUDA_DEVICE, wp.MemoryKind.CUDA_MEMPOOL)
    ptr = a.ptr
    del a
    gc.collect()
    assert alloc.frees == [(ptr, 400)]


def test_profiler_range_does_nothing_on_the_cpu():
    assert wp.cuda_profiler_start("cpu") is None and wp.cuda_profiler_stop("cpu") is None
    with wp.ScopedCudaProfiler("cpu") as p:
        assert p.device == "cpu"


@pytest.mark.parametrize("flat", [[1, 2, 3, 0, 0, 0, 1], np.array([0.5, -1, 2, 0, 0.6, 0, 0.8]),
                                  (1.0, 2.0, 3.0, 0.1, 0.2, 0.3, 0.927)])
def test_transform_expand(flat):
    t = wp.transform_expand(flat)
    assert isinstance(t, wp.transformf)
    np.testing.assert_allclose(np.array(t.p), np.asarray(flat[:3], np.float32))
    np.testing.assert_allclose(np.array(t.q), np.asarray(flat[3:7], np.float32))
