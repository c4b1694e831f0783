"""Graph capture: CUDA graphs on a GPU, and the same API on the CPU (launches recorded once,
packed, and replayed by capture_launch). Device-parametrised: the CUDA cases skip without a GPU."""

import numpy as np
import pytest

import warp_interactive as wp
from warp_interactive.runtime import launch as launch_mod

N = 64


@wp.kernel
def add_one(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = a[i] + 1.0


@wp.kernel
def scale_into(a: wp.array(dtype=float), s: float, out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = a[i] * s


@wp.kernel
def sum_squares(x: wp.array(dtype=float), loss: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(loss, 0, x[i] * x[i])


def test_capture_defers_then_replays(device):
    a = wp.zeros(N, dtype=float, device=device)
    wp.capture_begin(device)
    for _ in range(3):
        wp.launch(add_one, dim=N, inputs=[a], device=device)
    graph = wp.capture_end(device)
    np.testing.assert_array_equal(a.numpy(), 0.0)      # nothing ran during the capture
    wp.capture_launch(graph)
    np.testing.assert_array_equal(a.numpy(), 3.0)
    wp.capture_launch(graph)
    np.testing.assert_array_equal(a.numpy(), 6.0)


def test_scoped_capture_keeps_copies_and_fills_in_order(device):
    a = wp.zeros(N, dtype=float, device=device)
    b = wp.zeros(N, dtype=float, device=device)
    out = wp.zeros(N, dtype=float, device=device)
    with wp.ScopedCapture(device) as capture:
        a.zero_()
        wp.launch(add_one, dim=N, inputs=[a], device=device)
        wp.copy(b, a)
        wp.launch(scale_into, dim=N, inputs=[b, 3.0, out], device=device)
    np.testing.assert_array_equal(out.numpy(), 0.0)
    a.assign(np.full(N, 5.0, dtype=np.float32))   # outside the graph: the replay zeroes it first
    wp.capture_launch(capture.graph)
    np.testing.assert_array_equal(a.numpy(), 1.0)
    np.testing.assert_array_equal(b.numpy(), 1.0)
    np.testing.assert_array_equal(out.numpy(), 3.0)


def test_reading_inside_a_capture_is_an_error(device):
    a = wp.zeros(N, dtype=float, device=device)
    wp.capture_begin(device)
    try:
        wp.launch(add_one, dim=N, inputs=[a], device=device)
        with pytest.raises(RuntimeError, match="during a graph capture|while a graph capture"):
            a.numpy()
    finally:
        wp.capture_end(device)


def test_tape_forward_and_backward_captured(device):
    x_np = np.linspace(-1, 1, N).astype(np.float32)
    x = wp.array(x_np, dtype=float, device=device, requires_grad=True)
    loss = wp.zeros(1, dtype=float, device=device, requires_grad=True)
    tape = wp.Tape()
    with wp.ScopedCapture(device) as capture:
        loss.zero_()
        with tape:
            wp.launch(sum_squares, dim=N, inputs=[x, loss], device=device)
        x.grad.zero_()
        tape.backward(loss)
    for _ in range(2):            # each replay recomputes the same loss and gradient
        wp.capture_launch(capture.graph)
        np.testing.assert_allclose(loss.numpy()[0], np.sum(x_np ** 2), rtol=1e-5)
        np.testing.assert_allclose(x.grad.numpy(), 2 * x_np, rtol=1e-6)


def test_cpu_replay_packs_no_arguments(monkeypatch):
    a = wp.zeros(N, dtype=float, device="cpu")
    out = wp.zeros(N, dtype=float, device="cpu")
    with wp.ScopedCapture("cpu") as capture:
        wp.launch(add_one, dim=N, inputs=[a], device="cpu")
        wp.launch(scale_into, dim=N, inputs=[a, 2.0, out], device="cpu")
    assert len(capture.graph) == 2

    def no_packing(*args, **kwargs):
        raise AssertionError("capture_launch must not pack arguments again")
    monkeypatch.setattr(launch_mod, "pack", no_packing)
    for _ in range(3):
        wp.capture_launch(capture.graph)
    np.testing.assert_array_equal(a.numpy(), 3.0)
    np.testing.assert_array_equal(out.numpy(), 6.0)


def test_cpu_capture_errors():
    with pytest.raises(RuntimeError, match="without a capture in progress on cpu"):
        wp.capture_end("cpu")
    wp.capture_begin("cpu")
    try:
        with pytest.raises(RuntimeError, match="already in progress on cpu"):
            wp.capture_begin("cpu")
    finally:
        wp.capture_end("cpu")
    with pytest.raises(TypeError, match="expects the Graph returned by wp.capture_end"):
        wp.capture_launch("graph")


def test_cpu_capture_can_be_turned_off():
    saved = wp.config.cuda_graph_cpu
    wp.config.cuda_graph_cpu = False
    try:
        with pytest.raises(RuntimeError, match="graph capture on the CPU is turned off"):
            wp.capture_begin("cpu")
    finally:
        wp.config.cuda_graph_cpu = saved


def test_failed_scoped_capture_ends_the_capture():
    with pytest.raises(ZeroDivisionError):
        with wp.ScopedCapture("cpu"):
            1 / 0
    a = wp.zeros(4, dtype=float, device="cpu")       # no capture left behind: launches run
    wp.launch(add_one, dim=4, inputs=[a], device="cpu")
    np.testing.assert_array_equal(a.numpy(), 1.0)


def test_cpu_graph_keeps_temporary_arrays_alive():
    """A launch argument made inside the capture lives as long as the graph (not freed)."""
    out = wp.zeros(N, dtype=float, device="cpu")
    with wp.ScopedCapture("cpu") as capture:
        wp.launch(scale_into, dim=N, inputs=[wp.full(N, 2.0, dtype=float, device="cpu"), 3.0, out],
                  device="cpu")
    import gc
    gc.collect()
    for _ in range(2):
        wp.capture_launch(capture.graph)
        np.testing.assert_array_equal(out.numpy(), 6.0)



@pytest.mark.parametrize("make, value", [
    (lambda: wp.zeros(N, dtype=float, device="cpu", requires_grad=True), 1.0),
    (lambda: wp.zeros_like(wp.ones(N, dtype=float, device="cpu"), requires_grad=True), 1.0),
    (lambda: wp.full(N, 5.0, dtype=float, device="cpu", requires_grad=True), 6.0),
], ids=["zeros", "zeros_like", "full"])
def test_arrays_made_in_a_cpu_capture_start_each_replay_as_made(make, value):
    """As a CUDA capture replays the memset of a wp.zeros (and of a gradient): a replay does not
    start from what the previous one left in an array the capture made."""
    with wp.ScopedCapture("cpu") as capture:
        a = make()
        wp.launch(add_one, dim=N, inputs=[a], device="cpu")
        wp.launch(add_one, dim=N, inputs=[a.grad], device="cpu")
    for _ in range(3):
        wp.capture_launch(capture.graph)
        np.testing.assert_array_equal(a.numpy(), value)
        np.testing.assert_array_equal(a.grad.numpy(), 1.0)


def test_an_indexed_copy_in_a_cpu_capture_moves_values_at_each_replay_and_is_recorded_once():
    src = wp.array(np.arange(N, dtype=np.float32), requires_grad=True)
    dest = wp.zeros(N, dtype=float, requires_grad=True)
    rows = wp.array(np.arange(N)[::-1].copy(), dtype=int)
    view = wp.indexedarray(dest, [rows])
    tape = wp.Tape()
    with wp.ScopedCapture("cpu") as capture:
        with tape:
            wp.copy(view, src)
    assert [e[0] for e in tape.launches] == ["copy"]       # recorded at the capture
    np.testing.assert_array_equal(dest.numpy(), 0.0)       # nothing ran yet
    for k in range(2):
        src.assign(np.arange(N, dtype=np.float32) + k)
        wp.capture_launch(capture.graph)
        np.testing.assert_array_equal(dest.numpy(), (np.arange(N) + k)[::-1])
    assert len(tape.launches) == 1
