"""``wp.copy(..., stream=s)``: the copy is ordered on ``s`` (the stand-in driver records the
stream each transfer was queued on), the device's current stream is left as it was, and a
stream of a third device is refused."""

import numpy as np
import pytest

import warp_interactive as wp


def test_cpu_copy_on_a_cpu_stream():
    a = wp.array(np.arange(6, dtype=np.float32), device="cpu")
    b = wp.zeros(6, dtype=float, device="cpu")
    before, s = wp.get_stream("cpu"), wp.Stream("cpu")
    wp.copy(b, a, dest_offset=1, src_offset=2, count=3, stream=s)
    np.testing.assert_array_equal(b.numpy(), [0, 2, 3, 4, 0, 0])
    assert wp.get_stream("cpu") is before


@pytest.fixture
def fake_cuda(monkeypatch):
    pytest.importorskip("cuda.bindings.nvrtc", reason="the CUDA extra is not installed")
    if wp.is_cuda_available():
        pytest.skip("a real GPU is here: the stand-in driver is not installed over it")
    from cuda_fake import stand_in
    yield from stand_in(monkeypatch)


@pytest.mark.parametrize("direction", ["device_to_device", "host_to_device", "device_to_host"])
def test_copy_is_queued_on_the_given_stream(fake_cuda, monkeypatch, direction):
    gpu = wp.get_device("cuda:0")
    src_dev, dst_dev = {"device_to_device": (gpu, gpu), "host_to_device": ("cpu", gpu),
                        "device_to_host": (gpu, "cpu")}[direction]
    a = wp.array(np.arange(8, dtype=np.float32), device=src_dev)
    b = wp.zeros(8, dtype=float, device=dst_dev)
    streams = []
    real = fake_cuda._copy
    monkeypatch.setattr(fake_cuda, "_copy", lambda d, s, n, st: (streams.append(int(st)), real(d, s, n, st))[1])
    current = gpu.stream
    s = wp.Stream(gpu)
    assert int(s.handle) != int(current.handle)
    wp.copy(b, a, stream=s)
    wp.synchronize_device(gpu)
    assert streams and int(s.handle) in streams and int(current.handle) not in streams
    assert gpu.stream is current
    np.testing.assert_array_equal(b.numpy(), np.arange(8))
    streams.clear()
    wp.copy(b, a)                                      # no stream: the current one
    assert int(current.handle) in streams and int(s.handle) not in streams


def test_stream_of_a_third_device_is_refused(fake_cuda):
    a = wp.zeros(3, dtype=float, device="cpu")
    b = wp.zeros(3, dtype=float, device="cpu")
    with pytest.raises(ValueError, match="the stream is on cuda:0, but the copy is from cpu to cpu"):
        wp.copy(b, a, stream=wp.Stream("cuda:0"))
