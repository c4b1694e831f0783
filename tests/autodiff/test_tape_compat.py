"""wp.Tape as warp-lang 1.19 has it: scope markers ``(index, name, metadata)`` with
empty scopes dropped and an unmatched end refused; arrays inside struct arguments (gradients
by struct, zeroed by ``tape.zero()``); ``visualize`` drawing a launch repeated back to back once
("repeated Nx") with parameter tooltips. Gradients against the analytic ones."""

import re

import numpy as np
import pytest

import warp_interactive as wp


@pytest.mark.parametrize("steps,expected", [
    (["b:outer", "b:inner", "L", "e", "e"], [(0, "outer", {}), (0, "inner", {}), (1, None, None),
                                             (1, None, None)]),
    (["b:outer", "b:inner", "e", "e"], []),                       # empty scopes leave no trace
    (["b:outer", "L", "b:inner", "e", "e"], [(0, "outer", {}), (1, None, None)]),
    (["b:a", "e", "b:b", "L", "e"], [(0, "b", {}), (1, None, None)]),
])
def test_scope_markers(steps, expected):
    tape = wp.Tape()
    for s in steps:
        if s == "L":
            tape.launches.append(("func", lambda: None, []))
        elif s == "e":
            tape.record_scope_end()
        else:
            tape.record_scope_begin(s[2:])
    assert tape.scopes == expected


def test_empty_scope_kept_on_request_and_metadata():
    tape = wp.Tape()
    tape.record_scope_begin("s", metadata={"k": 1})
    tape.record_scope_end(remove_scope_if_empty=False)
    assert tape.scopes == [(0, "s", {"k": 1}), (0, None, None)]


@pytest.mark.parametrize("begins", [0, 1])
def test_unmatched_scope_end_raises(begins):
    tape = wp.Tape()
    for _ in range(begins):
        tape.record_scope_begin("s")
        tape.record_scope_end()
    with pytest.raises(RuntimeError, match="ended tape scope, but scope not present"):
        tape.record_scope_end()


@wp.struct
class Pair:
    x: wp.array(dtype=float)
    y: wp.array(dtype=float)


@wp.struct
class Outer:
    pair: Pair
    w: float


@wp.kernel
def k_pair(s: Outer, z: wp.array(dtype=float)):
    i = wp.tid()
    z[i] = s.pair.x[i] * s.pair.y[i] * s.w


def test_struct_arguments_gradients_and_zero():
    xs, ys, w = np.array([1.0, 2.0, 3.0]), np.array([4.0, -5.0, 6.0]), 0.5
    s = Outer()
    s.pair = Pair()
    s.pair.x = wp.array(xs, dtype=float, requires_grad=True)
    s.pair.y = wp.array(ys, dtype=float, requires_grad=True)
    s.w = w
    z = wp.zeros(3, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(k_pair, dim=3, inputs=[s], outputs=[z])
    for k in (1, 2):           # a second backward accumulates
        tape.backward(grads={z: wp.ones_like(z)})
        g = tape.gradients[s]
        np.testing.assert_allclose(g.pair.x.numpy(), k * ys * w)
        np.testing.assert_allclose(g.pair.y.numpy(), k * xs * w)
    assert s in tape.gradients
    tape.zero()
    np.testing.assert_array_equal(s.pair.x.grad.numpy(), 0.0)
    np.testing.assert_array_equal(s.pair.y.grad.numpy(), 0.0)


@wp.kernel
def k_dot(x: wp.array(dtype=float), y: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(out, 0, x[i] * y[i])


def _looped_tape(n):
    x, y = wp.ones(4, requires_grad=True), wp.ones(4, requires_grad=True)
    out = wp.zeros(1, requires_grad=True)
    tape = wp.Tape()
    with tape:
        tape.record_scope_begin("my loop")
        for _ in range(n):
            wp.launch(k_dot, dim=4, inputs=[x, y], outputs=[out])
        tape.record_scope_end()
        wp.launch(k_dot, dim=4, inputs=[y, x], outputs=[out])   # other arguments: its own step
    return tape


@pytest.mark.parametrize("n", [1, 3, 16])
def test_visualize_collapses_repeated_launches(n):
    dot = _looped_tape(n).visualize()
    assert dot.count('label="k_dot') == 2
    assert ("repeated %dx" % n in dot) == (n > 1)
    assert "my loop" in dot
    full = _looped_tape(n).visualize(simplify_graph=False)
    assert full.count('label="k_dot') == n + 1 and "repeated" not in full


def test_visualize_tooltips_name_parameter_types():
    dot = _looped_tape(1).visualize()
    tips = re.findall(r'tooltip="([^"]*)"', dot)
    assert tips and tips[0].split("\\n") == ["x: array: dtype=float32", "y: array: dtype=float32",
                                             "out: array: dtype=float32"]
