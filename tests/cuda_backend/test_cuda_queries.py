"""warp-lang's CUDA-side queries and scopes (memory-pool figures, mempool/peer access scopes,
kernel properties, occupancy, device aliases, IPC, can_access): on the CPU, warp-lang 1.19's
answers and messages measured on this machine without a GPU; on the stand-in driver
(tests/support/cuda_fake.py), that each asks the driver for the right thing and returns it as documented."""

import numpy as np
import pytest

import warp_interactive as wp


@wp.kernel
def fill_ones(a: wp.array(dtype=float)):
    a[wp.tid()] = 1.0


MEMPOOL_FIGURES = [("get_mempool_release_threshold", ("cpu",)), ("get_mempool_used_mem_current", ("cpu",)),
                   ("get_mempool_used_mem_high", ("cpu",)), ("set_mempool_release_threshold", ("cpu", 10))]


@pytest.mark.parametrize("name, args", MEMPOOL_FIGURES)
def test_cpu_has_no_memory_pool_figures(name, args):
    with pytest.raises(ValueError, match="Memory pools are only supported on CUDA devices"):
        getattr(wp, name)(*args)


@pytest.mark.parametrize("scope, args, words", [
    ("ScopedMempool", ("cpu",), "Memory pools are only supported on CUDA devices"),
    ("ScopedMempoolAccess", ("cpu", "cpu"), "Memory pool access is only supported between CUDA devices"),
    ("ScopedPeerAccess", ("cpu", "cpu"), "Peer access is only supported between CUDA devices"),
])
def test_cpu_scopes_refuse_enabling_and_accept_disabling(scope, args, words):
    with getattr(wp, scope)(*args, False):
        pass
    with pytest.raises(ValueError, match=words):
        with getattr(wp, scope)(*args, True):
            pass


@pytest.mark.parametrize("call, expected", [
    (lambda: wp.get_suggested_block_size(fill_ones, "cpu"), (1, 1)),
    (lambda: wp.get_cuda_max_cluster_dim(fill_ones, "cpu"), 1),
    (lambda: wp.get_cuda_max_cluster_dim(fill_ones, "cpu", block_dim=64, dynamic_smem_bytes=128), 1),
])
def test_cpu_occupancy_answers(call, expected):
    assert call() == expected


@pytest.mark.parametrize("call, error, words", [
    (lambda: wp.get_cuda_kernel_properties(fill_ones, "cpu"), RuntimeError,
     "get_cuda_kernel_properties\\(\\) requires a CUDA device, got 'cpu'"),
    (lambda: wp.get_cuda_kernel_properties(len, "cpu"), TypeError, "expected a wp.Kernel"),
    (lambda: wp.get_cuda_kernel_properties(fill_ones, "cpu", block_dim=0), ValueError,
     "block_dim must be a positive integer, got 0"),
    (lambda: wp.get_cuda_kernel_properties(fill_ones, "cpu", block_dim=True), ValueError,
     "block_dim must be a positive integer"),
    (lambda: wp.get_suggested_block_size(len, "cpu"), TypeError, "expected a wp.Kernel"),
    (lambda: wp.event_from_ipc_handle(b"0" * 64, "cpu"), RuntimeError, "IPC is not supported on device cpu"),
    (lambda: wp.from_ipc_handle(b"0" * 64, float, (3,), device="cpu"), RuntimeError,
     "IPC is not supported on device cpu"),
    (lambda: wp.unmap_cuda_device("no-such-alias"), RuntimeError, "Invalid CUDA device alias 'no-such-alias'"),
])
def test_cpu_errors_as_warp_lang(call, error, words):
    with pytest.raises(error, match=words):
        call()


def test_map_cuda_device_without_a_gpu():
    if wp.is_cuda_available():
        pytest.skip("a GPU is here")
    with pytest.raises(RuntimeError, match="Unable to determine CUDA context for device alias 'mine'"):
        wp.map_cuda_device("mine")


@pytest.mark.parametrize("make", [
    lambda: wp.zeros(4, dtype=float, device="cpu"),
    lambda: wp.zeros((2, 3), dtype=wp.vec3, device="cpu")[1:],
    lambda: wp.indexedarray(wp.zeros(5, dtype=float, device="cpu"), [wp.array([0, 2], dtype=int, device="cpu")]),
])
def test_can_access_own_arrays(make):
    assert wp.can_access("cpu", make()) is True


@pytest.mark.parametrize("resource", [np.zeros(3), None, [1, 2]])
def test_can_access_refuses_what_is_not_a_warp_array(resource):
    with pytest.raises(TypeError, match="only supports concrete Warp arrays"):
        wp.can_access("cpu", resource)


def test_determinism_error_is_a_runtime_error():
    assert issubclass(wp.WarpDeterminismError, RuntimeError)


def test_toolkit_version_is_nvrtcs():
    v = wp.get_cuda_toolkit_version()
    try:
        from cuda.bindings import nvrtc
    except ImportError:
        assert v is None
        return
    _, major, minor = nvrtc.nvrtcVersion()
    assert v == (major, minor)


# --- the stand-in driver ------------------------------------------------------------------------
@pytest.fixture
def fake_cuda(monkeypatch):
    pytest.importorskip("cuda.bindings.nvrtc", reason="the CUDA extra is not installed")
    if wp.is_cuda_available():
        pytest.skip("a real GPU is here: the stand-in driver is not installed over it")
    from cuda_fake import stand_in
    yield from stand_in(monkeypatch)


def test_mempool_figures_on_the_stand_in(fake_cuda):
    d = wp.get_device("cuda:0")
    used = wp.get_mempool_used_mem_current(d)
    a = wp.zeros(1024, dtype=float, device=d)                # 4096 bytes from the pool
    assert wp.get_mempool_used_mem_current(d) == used + 4096
    high = wp.get_mempool_used_mem_high(d)
    assert high >= used + 4096
    del a
    assert wp.get_mempool_used_mem_current(d) == used
    assert wp.get_mempool_used_mem_high(d) == high
    wp.set_mempool_release_threshold(d, 1 << 20)
    assert wp.get_mempool_release_threshold(d) == 1 << 20
    wp.set_mempool_release_threshold(d, 0.25)               # a fraction of the device's memory
    assert wp.get_mempool_release_threshold(d) == d.total_memory // 4
    with pytest.raises(ValueError, match="non-negative"):
        wp.set_mempool_release_threshold(d, -1)


def test_scoped_mempool_on_the_stand_in(fake_cuda):
    d = wp.get_device("cuda:0")
    assert wp.is_mempool_enabled(d)
    with wp.ScopedMempool(d, False):
        assert not wp.is_mempool_enabled(d)
        used = wp.get_mempool_used_mem_current(d)
        a = wp.zeros(256, dtype=float, device=d)            # plain cuMemAlloc: the pool is untouched
        assert wp.get_mempool_used_mem_current(d) == used
        assert a.memory_kind == wp.MemoryKind.CUDA_DEVICE
    assert wp.is_mempool_enabled(d)
    with wp.ScopedPeerAccess(d, d, True), wp.ScopedMempoolAccess(d, d, True):
        assert wp.is_peer_access_enabled(d, d) and wp.is_mempool_access_enabled(d, d)


def test_kernel_queries_on_the_stand_in(fake_cuda):
    d = wp.get_device("cuda:0")
    assert wp.get_cuda_kernel_properties(fill_ones, d) == {"register_count": 40, "local_memory_size": 16}
    assert wp.get_suggested_block_size(fill_ones, d) == (768, 8)     # (block size, min grid size)


def test_device_alias_on_the_stand_in(fake_cuda):
    d = wp.get_device("cuda:0")
    with pytest.raises(RuntimeError, match="Unable to determine CUDA context"):
        wp.map_cuda_device("main_gpu")                 # no context is bound to this thread
    with d.activated():                                # the device's primary context bound
        assert wp.map_cuda_device("main_gpu") is d
    try:
        assert wp.get_device("main_gpu") is d and str(d) == "cuda:0"
        assert wp.map_cuda_device("main_gpu", d.context) is d        # the same alias again: fine
        a = wp.zeros(3, dtype=float, device="main_gpu")
        assert a.device is d
    finally:
        wp.unmap_cuda_device("main_gpu")
    with pytest.raises(ValueError, match="unknown device"):
        wp.get_device("main_gpu")
    with pytest.raises(RuntimeError, match="Device alias 'cpu' already exists"):
        wp.map_cuda_device("cpu", d.context)
