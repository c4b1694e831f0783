"""Writes that pass no hook between a tape's recording and its backward() (runtime/tape_watch.py):
a kernel launched again through its fast plan, a captured graph replayed, a record_cmd launch
replayed, a write through a numpy() view. Each makes backward() raise, naming the array, the
recorded step that read it and the write, instead of returning warp-lang's wrong gradient;
contents written back unchanged, and writes of other arrays, are no conflict."""

import numpy as np
import pytest

import warp_interactive as wp
from warp_interactive.runtime import launch_state
from warp_interactive.runtime.fastlaunch import plan_of

F = wp.float64
N = 16
X0 = np.linspace(0.2, 1.7, N)


@wp.kernel
def w_f(x: wp.array(dtype=F), s: wp.array(dtype=F)):
    i = wp.tid()
    s[i] = wp.sin(x[i]) * x[i] + F(0.5)


@wp.kernel
def w_g(s: wp.array(dtype=F), u: wp.array(dtype=F)):
    i = wp.tid()
    u[i] = s[i] * s[(i + 1) % s.shape[0]] + F(1.0)


@wp.kernel
def w_set(s: wp.array(dtype=F), v: F):
    i = wp.tid()
    s[i] = v


def _armed(kernel):
    plan = plan_of(kernel)
    return plan is not None and launch_state.fast[0] == plan.epoch


def _record():
    """x -> s -> u on a tape: w_g's adjoint reads s."""
    x = wp.array(X0, dtype=F, requires_grad=True)
    s = wp.zeros(N, dtype=F, requires_grad=True)
    u = wp.zeros(N, dtype=F, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(w_f, N, inputs=[x], outputs=[s])
        wp.launch(w_g, N, inputs=[s], outputs=[u])
    return tape, x, s, u


def _expected_grad():
    s = np.sin(X0) * X0 + 0.5
    ds = np.cos(X0) * X0 + np.sin(X0)
    return ds * (np.roll(s, -1) + np.roll(s, 1))     # d sum(u) / dx


def _backward(tape, u):
    tape.backward(grads={u: wp.ones(N, dtype=F)})


def _raises(tape, u, *words):
    with pytest.raises(RuntimeError) as err:
        _backward(tape, u)
    msg = str(err.value)
    assert "array(shape=(16,), dtype=float64" in msg and "launch 1 (kernel w_g, argument s)" in msg
    for w in words + ("wp.config.tape_copy_on_write = False",):   # the setting that allows it
        assert w in msg, msg
    return msg


def test_the_first_launch_after_the_recording_takes_the_checked_path():
    other = wp.zeros(N, dtype=F)
    wp.launch(w_set, N, inputs=[other, F(1.0)])
    wp.launch(w_set, N, inputs=[other, F(1.0)])
    assert _armed(w_set)                       # armed before the tape: would run fast
    tape, x, s, u = _record()
    assert not _armed(w_set)                   # the watch made every plan step aside once
    wp.launch(w_set, N, inputs=[s, F(2.0)])
    _raises(tape, u, "a launch of kernel w_set (argument s)", "test_tape_watch.py")


def test_a_second_launch_through_the_fast_plan_is_found_by_the_checksum():
    tape, x, s, u = _record()
    other = wp.zeros(N, dtype=F)
    wp.launch(w_set, N, inputs=[other, F(1.0)])      # checked (other is not watched), re-arms
    assert _armed(w_set)
    wp.launch(w_set, N, inputs=[s, F(2.0)])          # the fast plan: no hook
    np.testing.assert_array_equal(s.numpy(), 2.0)
    _raises(tape, u, "its contents changed since the recording ended",
            "a launch through the fast plan of kernel w_set (launched at", "test_tape_watch.py")


def test_a_write_through_a_numpy_view_is_found():
    tape, x, s, u = _record()
    s.numpy()[3] += 1.0
    _raises(tape, u, "a write through a numpy() view")


def test_contents_written_back_unchanged_are_no_conflict():
    tape, x, s, u = _record()
    view = s.numpy()
    old = view.copy()
    view[:] = 7.0
    view[:] = old
    _backward(tape, u)
    np.testing.assert_allclose(x.grad.numpy(), _expected_grad(), rtol=1e-12)


def test_a_replayed_record_cmd_launch_is_found():
    other = wp.zeros(N, dtype=F)
    tape, x, s, u = _record()
    cmd = wp.launch(w_set, N, inputs=[other, F(3.0)], record_cmd=True)
    cmd.set_param_at_index(0, s)
    cmd.launch()
    _raises(tape, u, "contents changed")


@pytest.mark.parametrize("write, words", [
    (lambda s, u: wp.launch(w_f, N, inputs=[u], outputs=[s]),
     "a replay of a captured graph (kernel w_f, argument s)"),
    (lambda s, u: s.fill_(0.5), "a replay of a captured graph (fill_())"),
    (lambda s, u: s.zero_(), "a replay of a captured graph (zero_())"),
    (lambda s, u: wp.copy(s, u), "a replay of a captured graph (wp.copy())"),
])
def test_a_graph_replay_that_writes_a_watched_array_is_named(write, words):
    tape, x, s, u = _record()
    with wp.ScopedCapture(device="cpu") as capture:
        write(s, u)
    wp.capture_launch(capture.graph)
    _raises(tape, u, words, "test_tape_watch.py")


def test_a_graph_replay_of_other_arrays_is_fine():
    tape, x, s, u = _record()
    other = wp.zeros(N, dtype=F)
    with wp.ScopedCapture(device="cpu") as capture:
        wp.launch(w_set, N, inputs=[other, F(4.0)])
    wp.capture_launch(capture.graph)
    _backward(tape, u)
    np.testing.assert_allclose(x.grad.numpy(), _expected_grad(), rtol=1e-12)


def test_a_graph_replayed_while_the_tape_records_keeps_a_copy():
    """The graph's launches are not recorded, but the tape keeps what it overwrites."""
    x = wp.array(X0, dtype=F, requires_grad=True)
    s = wp.zeros(N, dtype=F, requires_grad=True)
    u = wp.zeros(N, dtype=F, requires_grad=True)
    with wp.ScopedCapture(device="cpu") as capture:
        wp.launch(w_set, N, inputs=[s, F(9.0)])
    tape = wp.Tape()
    with tape:
        wp.launch(w_f, N, inputs=[x], outputs=[s])
        wp.launch(w_g, N, inputs=[s], outputs=[u])
        wp.capture_launch(capture.graph)
    np.testing.assert_array_equal(s.numpy(), 9.0)
    assert tape.kept_bytes == N * 8
    _backward(tape, u)
    np.testing.assert_allclose(x.grad.numpy(), _expected_grad(), rtol=1e-12)


def test_a_tape_recording_again_checks_the_writes_since_its_last_recording():
    tape, x, s, u = _record()
    s.numpy()[0] = -1.0
    with tape:
        pass
    _raises(tape, u, "a write through a numpy() view")


def test_the_checksums_can_be_turned_off():
    saved = wp.config.tape_check_contents
    wp.config.tape_check_contents = False
    try:
        tape, x, s, u = _record()
        s.numpy()[3] += 1.0
        _backward(tape, u)      # unchecked: the adjoint reads the new value, as warp-lang's
    finally:
        wp.config.tape_check_contents = saved
    assert not np.allclose(x.grad.numpy(), _expected_grad())


def test_writes_after_backward_are_not_checked():
    tape, x, s, u = _record()
    _backward(tape, u)
    s.numpy()[:] = 0.0
    wp.launch(w_set, N, inputs=[s, F(5.0)])
    tape.zero()
    tape.reset()
