"""wp.capture_if / wp.capture_while (warp-lang 1.19): run at once outside a capture, and recorded
into CPU graphs where the condition is read at every replay; errors and the CUDA refusal."""

import numpy as np
import pytest

import warp_interactive as wp


@wp.kernel
def _halve_count(c: wp.array(dtype=wp.int32), x: wp.array(dtype=float)):
    x[0] = x[0] * 2.0
    c[0] = c[0] - 1


@wp.kernel
def _add(x: wp.array(dtype=float), v: float):
    x[0] = x[0] + v


def _reference(count, start, v):
    """What the captured program computes, step by step in Python: double while the count is
    non-zero (each pass decrements it), then add +v if it is non-zero else -v."""
    x = start
    while count != 0:
        x, count = x * 2.0, count - 1
    return x + (v if count != 0 else -v)


def _program(c, x, v):
    wp.capture_while(c, lambda: wp.launch(_halve_count, 1, [c, x]))
    wp.capture_if(c, on_true=lambda v: wp.launch(_add, 1, [x, v]), on_false=lambda v: wp.launch(_add, 1, [x, -v]),
                  v=v)


@pytest.mark.parametrize("count,start", [(0, 1.0), (1, 1.0), (3, 0.5), (5, -4.0)])
def test_direct_and_captured_agree_with_reference(count, start):
    c, x = wp.array([count], dtype=wp.int32), wp.array([start], dtype=float)
    _program(c, x, 10.0)
    assert x.numpy()[0] == _reference(count, start, 10.0)
    with wp.ScopedCapture(device="cpu") as cap:
        _program(c, x, 10.0)
    for again in range(2):             # each replay reads the condition anew
        c.assign([count])
        x.assign([start])
        wp.capture_launch(cap.graph)
        assert x.numpy()[0] == _reference(count, start, 10.0)


def test_nothing_runs_during_the_capture():
    c, x = wp.array([2], dtype=wp.int32), wp.array([1.0], dtype=float)
    with wp.ScopedCapture(device="cpu") as cap:
        _program(c, x, 1.0)
    np.testing.assert_array_equal(x.numpy(), [1.0])
    np.testing.assert_array_equal(c.numpy(), [2])
    wp.capture_launch(cap.graph)
    np.testing.assert_array_equal(x.numpy(), [3.0])


def test_graph_bodies():
    c, x = wp.array([1], dtype=wp.int32), wp.array([0.0], dtype=float)
    with wp.ScopedCapture(device="cpu") as plus:
        wp.launch(_add, 1, [x, 5.0])
    with wp.ScopedCapture(device="cpu") as minus:
        wp.launch(_add, 1, [x, -1.0])
    wp.capture_if(c, on_true=plus.graph, on_false=minus.graph)
    c.assign([0])
    wp.capture_if(c, on_true=plus.graph, on_false=minus.graph)
    np.testing.assert_array_equal(x.numpy(), [4.0])
    with wp.ScopedCapture(device="cpu") as outer:
        wp.capture_if(c, on_true=plus.graph, on_false=minus.graph)
    c.assign([1])
    wp.capture_launch(outer.graph)
    np.testing.assert_array_equal(x.numpy(), [9.0])


@pytest.mark.parametrize("call,exc,msg", [
    (lambda: wp.capture_if(wp.zeros(1, dtype=float), on_true=lambda: None), TypeError, "int32"),
    (lambda: wp.capture_while(wp.zeros(1, dtype=wp.int64), lambda: None), TypeError, "int32"),
    (lambda: wp.capture_if(wp.ones(1, dtype=wp.int32), on_true=42), TypeError, "on_true must be a Callable or a Graph"),
    (lambda: wp.capture_while(wp.ones(1, dtype=wp.int32), 42), TypeError, "while_body must be a Callable or a Graph"),
])
def test_errors(call, exc, msg):
    with pytest.raises(exc, match=msg):
        call()


def test_no_bodies_is_a_no_op_and_cuda_conditional_nodes_are_not_offered():
    assert wp.capture_if(wp.zeros(1, dtype=float)) is None     # warp-lang: checked only with a body
    assert wp.is_conditional_graph_supported() is False
