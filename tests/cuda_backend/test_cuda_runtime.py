"""The CUDA runtime on a GPU: devices, memory and copies, __cuda_array_interface__, launches,
streams and events, debug-mode errors. Every test here needs a GPU and is skipped without one."""

import os

import numpy as np
import pytest

import warp_interactive as wp

pytestmark = pytest.mark.skipif(wp.get_cuda_device_count() == 0, reason="needs a CUDA device")


@wp.kernel
def saxpy(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):
    i = wp.tid()
    y[i] = a * x[i] + y[i]


@wp.kernel
def fill_index2d(out: wp.array2d(dtype=wp.vec3)):
    i, j = wp.tid()
    out[i, j] = wp.vec3(float(i), float(j), float(i * j))


@wp.kernel
def read_at(a: wp.array(dtype=float), i: int, out: wp.array(dtype=float)):
    out[0] = a[i]


class Foreign:
    """Another library's CUDA array: only the interface, nothing of ours."""

    def __init__(self, iface, owner):
        self.__cuda_array_interface__ = iface
        self.owner = owner


def test_device_properties():
    d = wp.get_device("cuda:0")
    assert d.is_cuda and not d.is_cpu and d.ordinal == 0
    assert d == "cuda" and d == "cuda:0" and str(d) == "cuda:0"
    assert isinstance(d.name, str) and d.name
    assert d.arch >= 50 and d.sm_count > 0
    assert 0 < d.free_memory <= d.total_memory
    assert d.max_shared_memory_per_block >= 48 * 1024       # the opt-in maximum: 48 KiB and up
    assert wp.is_mempool_supported(d) == d.is_mempool_supported
    assert wp.is_peer_access_enabled(d, d) and wp.is_peer_access_supported(d, d)
    assert not wp.is_peer_access_supported(d, "cpu") and not wp.is_mempool_access_enabled("cpu", d)
    assert wp.get_cuda_device_count() >= 1 and d in wp.get_cuda_devices()
    assert wp.get_preferred_device() is d
    assert wp.get_cuda_device() is d and wp.get_cuda_device(0) is d


def test_set_device_and_scoped_device():
    saved = wp.get_device()
    with wp.ScopedDevice("cpu"):
        assert wp.get_device() == "cpu"
        assert wp.zeros(2).device == "cpu"
        with wp.ScopedDevice("cuda:0"):
            assert wp.zeros(2).device == "cuda:0"
    wp.set_device("cpu")
    assert wp.get_device() == "cpu"
    wp.set_device(saved)


@pytest.mark.parametrize("dtype, shape", [(wp.float32, (1000,)), (wp.vec3, (7, 5)),
                                          (wp.int64, (3, 4, 5)), (wp.mat22, (9,))])
def test_round_trips(dtype, shape):
    rng = np.random.default_rng(1)
    ref = rng.standard_normal(shape + _inner(dtype)).astype(wp.dtype_to_numpy(_scalar(dtype)))
    a = wp.array(ref, dtype=dtype, device="cuda")
    assert a.device == "cuda:0" and a.shape == shape
    np.testing.assert_array_equal(a.numpy(), ref)                  # H2D then D2H
    b = a.to("cpu")
    np.testing.assert_array_equal(b.numpy(), ref)
    c = b.to("cuda:0")                                               # H2D from a wp array
    d = wp.clone(c)                                                  # D2D
    np.testing.assert_array_equal(d.numpy(), ref)
    e = wp.zeros(shape, dtype=dtype, device="cuda")
    wp.copy(e, d)
    np.testing.assert_array_equal(e.numpy(), ref)


def _inner(dtype):
    return {wp.vec3: (3,), wp.mat22: (2, 2)}.get(dtype, ())


def _scalar(dtype):
    return {wp.vec3: wp.float32, wp.mat22: wp.float32}.get(dtype, dtype)


def test_strided_views_read_and_write():
    ref = np.arange(60, dtype=np.float32).reshape(6, 10)
    a = wp.array(ref, dtype=float, device="cuda")
    v = a[1:5, ::3]
    np.testing.assert_array_equal(v.numpy(), ref[1:5, ::3])
    np.testing.assert_array_equal(a.transpose().numpy(), ref.T)
    v.assign(np.full(v.shape, -1, dtype=np.float32))
    expected = ref.copy()
    expected[1:5, ::3] = -1
    np.testing.assert_array_equal(a.numpy(), expected)
    a[0, 0] = 42.0
    assert a.numpy()[0, 0] == 42.0 and a[0, 0] == 42.0


def test_partial_copies_with_offsets():
    src = wp.array(np.arange(10, dtype=np.float32), device="cuda")
    dst = wp.zeros(10, dtype=float, device="cpu")
    wp.copy(dst, src, dest_offset=2, src_offset=5, count=3)
    np.testing.assert_array_equal(dst.numpy(), [0, 0, 5, 6, 7, 0, 0, 0, 0, 0])
    back = wp.zeros(10, dtype=float, device="cuda")
    wp.copy(back, dst, dest_offset=0, src_offset=2, count=3)
    np.testing.assert_array_equal(back.numpy()[:4], [5, 6, 7, 0])


def test_fill_zero_full_ones():
    a = wp.full(100, 2.5, dtype=float, device="cuda")
    np.testing.assert_array_equal(a.numpy(), 2.5)
    a.zero_()
    np.testing.assert_array_equal(a.numpy(), 0.0)
    v = wp.ones((4,), dtype=wp.vec3, device="cuda")
    np.testing.assert_array_equal(v.numpy(), 1.0)


def test_saxpy_matches_numpy_including_grid_stride():
    n = 1 << 20
    rng = np.random.default_rng(0)
    x_np, y_np = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    for block_dim, max_blocks in [(256, 0), (128, 7), (1024, 1)]:   # few blocks: each thread loops
        x = wp.array(x_np, dtype=float, device="cuda")
        y = wp.array(y_np, dtype=float, device="cuda")
        wp.launch(saxpy, dim=n, inputs=[x, y, 2.0], device="cuda", block_dim=block_dim,
                  max_blocks=max_blocks)
        np.testing.assert_allclose(y.numpy(), 2.0 * x_np + y_np, rtol=1e-6)


def test_multidimensional_launch():
    out = wp.zeros((5, 7), dtype=wp.vec3, device="cuda")
    wp.launch(fill_index2d, dim=(5, 7), inputs=[out], device="cuda")
    i, j = np.meshgrid(np.arange(5), np.arange(7), indexing="ij")
    np.testing.assert_array_equal(out.numpy(), np.stack([i, j, i * j], -1).astype(np.float32))


def test_wrong_device_is_an_error():
    x = wp.zeros(4, dtype=float, device="cpu")
    y = wp.zeros(4, dtype=float, device="cuda")
    with pytest.raises(TypeError, match="on device cpu, but the launch is on cuda:0"):
        wp.launch(saxpy, dim=4, inputs=[x, y, 1.0], device="cuda")


def test_cuda_array_interface_both_ways():
    a = wp.array(np.arange(12, dtype=np.float32).reshape(3, 4), dtype=float, device="cuda")
    iface = a.__cuda_array_interface__
    assert iface["shape"] == (3, 4) and iface["typestr"] == "<f4" and iface["version"] == 3
    assert iface["data"][0] == a.ptr
    foreign = Foreign(iface, a)
    view = wp.array(foreign, dtype=float, copy=False)                  # zero-copy
    assert view.ptr == a.ptr and view.device == "cuda:0"
    view[0, 0] = 100.0
    assert a.numpy()[0, 0] == 100.0
    ones = wp.array(np.ones(8, dtype=np.float32), device="cuda")
    x = Foreign(ones.__cuda_array_interface__, ones)
    y = wp.zeros(8, dtype=float, device="cuda")
    wp.launch(saxpy, dim=8, inputs=[x, y, 3.0], device="cuda")       # passed straight to launch
    np.testing.assert_array_equal(y.numpy(), 3.0)
    vec = wp.array(np.zeros((4, 3), dtype=np.float32), dtype=wp.vec3, device="cuda")
    assert wp.array(Foreign(vec.__cuda_array_interface__, vec), dtype=wp.vec3, copy=False).shape == (4,)


def test_pinned_array_copies():
    host = wp.array(np.arange(1000, dtype=np.float32), device="cpu", pinned=True)
    assert host.pinned
    dev = host.to("cuda")
    back = wp.zeros(1000, dtype=float, device="cpu", pinned=True)
    wp.copy(back, dev)
    wp.synchronize()
    np.testing.assert_array_equal(back.numpy(), np.arange(1000))


def test_streams_events_and_timing():
    d = wp.get_device("cuda:0")
    s1, s2 = wp.Stream(d), wp.Stream(d)
    assert s1.ptr != s2.ptr and s1.device is d
    x = wp.array(np.ones(1 << 16, dtype=np.float32), device=d)
    y = wp.zeros(1 << 16, dtype=float, device=d)
    wp.synchronize_device(d)
    start, end = wp.Event(d, enable_timing=True), wp.Event(d, enable_timing=True)
    with wp.ScopedStream(s1):
        assert wp.get_stream() is s1
        wp.record_event(start)
        for _ in range(10):
            wp.launch(saxpy, dim=x.size, inputs=[x, y, 1.0])
        wp.record_event(end)
    s2.wait_event(end)                      # s2 work ordered after s1's launches
    wp.launch(saxpy, dim=x.size, inputs=[x, y, 1.0], stream=s2)
    wp.synchronize_stream(s2)
    np.testing.assert_array_equal(y.numpy(), 11.0)
    assert wp.get_event_elapsed_time(start, end) > 0.0
    assert end.is_complete()
    s1.wait_stream(s2)
    wp.synchronize_event(end)
    assert wp.get_stream(d) is not s1        # the scope restored the previous stream


def test_debug_mode_bounds_error_is_raised_not_fatal():
    if os.environ.get("WARP_INTERACTIVE_FAKE_CUDA") == "1":
        pytest.skip("the stand-in driver keeps no module globals (cuModuleGetGlobal), where the "
                    "device's error record lives")
    wp.set_module_options({"mode": "debug"})
    try:
        a = wp.zeros(4, dtype=float, device="cuda")
        out = wp.zeros(1, dtype=float, device="cuda")
        with pytest.raises(wp.LaunchError, match=r"kernel 'read_at'.*array 'a' indexed with \[10\], shape \(4,\)"):
            wp.launch(read_at, dim=1, inputs=[a, 10, out], device="cuda")
        wp.launch(read_at, dim=1, inputs=[a, 2, out], device="cuda")   # the record was cleared
    finally:
        wp.set_module_options({"mode": "release"})


def test_verify_cuda_and_autodiff_on_gpu():
    saved = wp.config.verify_cuda
    wp.config.verify_cuda = True
    try:
        x = wp.array(np.arange(16, dtype=np.float32), device="cuda", requires_grad=True)
        y = wp.zeros(16, dtype=float, device="cuda", requires_grad=True)
        tape = wp.Tape()
        with tape:
            wp.launch(saxpy, dim=16, inputs=[x, y, 3.0], device="cuda")
        tape.backward(grads={y: wp.array(np.ones(16, dtype=np.float32), device="cuda")})
        np.testing.assert_array_equal(x.grad.numpy(), 3.0)
    finally:
        wp.config.verify_cuda = saved


def test_allocating_during_a_capture_is_a_clear_error():
    wp.capture_begin("cuda")
    try:
        with pytest.raises(RuntimeError, match="allocate the arrays the graph uses before"):
            wp.zeros(4, device="cuda")
    finally:
        wp.capture_end("cuda")
