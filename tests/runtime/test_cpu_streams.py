"""Streams and events on the CPU device (runtime/cpu_streams.py; warp-lang raises there): an
ordered queue whose work runs as it is issued, so programs written with streams (ScopedStream,
record/wait events, wait_stream, copies on a stream) run unchanged on the CPU; events keep the
time they were reached; inside a CPU capture, recording an event happens at replay."""

import time

import numpy as np
import pytest

import warp_interactive as wp


@wp.kernel
def add_one(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = a[i] + 1.0


@wp.kernel
def twice(src: wp.array(dtype=float), dst: wp.array(dtype=float)):
    i = wp.tid()
    dst[i] = 2.0 * src[i]


def test_cpu_streams_and_events_are_wp_streams_and_events():
    s, e = wp.Stream("cpu"), wp.Event("cpu")
    assert isinstance(s, wp.Stream) and isinstance(e, wp.Event)
    assert s.device == "cpu" and e.device == "cpu"
    assert s.cuda_stream == 0 and not s.is_capturing
    assert e.is_complete()
    assert wp.get_stream("cpu") is wp.get_device("cpu").stream


def test_scoped_stream_makes_a_cpu_stream_current_and_restores_it():
    cpu = wp.get_device("cpu")
    before, s = wp.get_stream("cpu"), wp.Stream("cpu")
    with wp.ScopedDevice("cpu"), wp.ScopedStream(s):
        assert wp.get_stream() is s and cpu.stream is s
    assert wp.get_stream("cpu") is before
    wp.set_stream(s, sync=True)
    assert wp.get_stream("cpu") is s
    wp.set_stream(before)


def test_work_ordered_across_cpu_streams_by_events():
    """The pattern of a halo exchange: one stream computes, another waits for its event and
    copies; a third waits for that stream and reads. Results as the sequential program's."""
    a = wp.array(np.arange(16, dtype=np.float32), device="cpu")
    b = wp.zeros(16, dtype=float, device="cpu")
    c = wp.zeros(16, dtype=float, device="cpu")
    compute, push, read = wp.Stream("cpu"), wp.Stream("cpu"), wp.Stream("cpu")
    done = wp.Event("cpu")
    with wp.ScopedStream(compute):
        wp.launch(add_one, 16, inputs=[a])
        wp.record_event(done)
    push.wait_event(done)
    wp.copy(b, a, stream=push)
    read.wait_stream(push)
    wp.launch(twice, 16, inputs=[b, c], stream=read)
    wp.synchronize_stream(read)
    wp.synchronize_event(done)
    np.testing.assert_array_equal(c.numpy(), 2.0 * (np.arange(16) + 1.0))


def test_cpu_event_timing():
    s = wp.Stream("cpu")
    start, end = wp.Event("cpu", enable_timing=True), wp.Event("cpu", enable_timing=True)
    s.record_event(start)
    t0 = time.perf_counter()
    time.sleep(0.05)
    elapsed_wall = (time.perf_counter() - t0) * 1000.0
    s.record_event(end)
    ms = wp.get_event_elapsed_time(start, end)
    assert 50.0 <= ms and ms >= elapsed_wall * 0.999


@pytest.mark.parametrize("make, match", [
    (lambda: wp.get_event_elapsed_time(wp.Event("cpu"), wp.Event("cpu")),
     "start_event was made without enable_timing=True"),
    (lambda: wp.get_event_elapsed_time(wp.Event("cpu", enable_timing=True),
                                       wp.Stream("cpu").record_event(wp.Event("cpu", enable_timing=True))),
     "start_event has not been recorded"),
    (lambda: wp.Event("cpu", interprocess=True), "CPU events cannot be shared between processes"),
    (lambda: wp.Stream("cpu", cuda_stream=1234), "a CPU stream cannot wrap a CUDA stream handle"),
])
def test_cpu_stream_and_event_errors(make, match):
    with pytest.raises(RuntimeError, match=match):
        make()


def test_the_cpu_device_takes_only_its_own_streams():
    with pytest.raises(ValueError, match="the stream must be a wp.Stream on cpu"):
        wp.get_device("cpu").stream = object()


def test_event_recorded_in_a_cpu_capture_is_reached_at_replay():
    a = wp.zeros(4, dtype=float, device="cpu")
    s, e = wp.Stream("cpu"), wp.Event("cpu", enable_timing=True)
    with wp.ScopedDevice("cpu"):
        with wp.ScopedCapture() as capture:
            assert s.is_capturing
            wp.launch(add_one, 4, inputs=[a])
            s.record_event(e)
    assert not e.recorded and not s.is_capturing
    wp.capture_launch(capture.graph)
    assert e.recorded
    np.testing.assert_array_equal(a.numpy(), 1.0)


def test_torch_has_no_cpu_stream_counterpart():
    pytest.importorskip("torch")
    with pytest.raises(RuntimeError, match="cpu streams have no torch counterpart"):
        wp.stream_to_torch("cpu")


@pytest.mark.skipif(wp.get_cuda_device_count() == 0, reason="needs a CUDA device")
def test_cpu_and_cuda_streams_wait_for_each_other():
    """A CPU stream waiting for a CUDA stream blocks until the GPU work is done, so the CPU copy
    issued after it reads the GPU's result; a CUDA stream waiting for a CPU event proceeds."""
    d = wp.get_device("cuda:0")
    x = wp.zeros(1 << 20, dtype=float, device=d)
    gpu, cpu = wp.Stream(d), wp.Stream("cpu")
    host = wp.zeros(1 << 20, dtype=float, device="cpu", pinned=True)
    with wp.ScopedStream(gpu):
        for _ in range(20):
            wp.launch(add_one, x.size, inputs=[x])
        wp.copy(host, x)
    cpu.wait_stream(gpu)
    back = wp.zeros(1 << 20, dtype=float, device="cpu")
    wp.copy(back, host, stream=cpu)
    np.testing.assert_array_equal(back.numpy(), 20.0)
    done = cpu.record_event()
    gpu.wait_event(done)
    gpu.wait_stream(cpu)
    wp.synchronize_stream(gpu)
