"""``@wp.func_native(snippet, adj_snippet=None, replay_snippet=None)`` (warp-lang 1.19): native C++
as a function's body, parameters under their Python names, ``adj_<name>``/``adj_ret`` in the
adjoint (an array's ``adj_<name>`` is its gradient array), ``replay_snippet`` in the backward
pass's replay. Results
against NumPy, the adjoint against central finite differences, error paths by message."""

import numpy as np
import pytest

import warp_interactive as wp


@wp.func_native("return a * b + 1.0f;", adj_snippet="adj_a += b * adj_ret; adj_b += a * adj_ret;")
def mul_add_one(a: float, b: float) -> float: ...


@wp.func_native("return wp::vec_t<3, wp::float32>(x, 2.0f * x, 3.0f * x);")
def spread(x: float) -> wp.vec3: ...


@wp.func_native("out[i] = value * 10;")
def write_scaled(out: wp.array(dtype=int), i: int, value: int): ...


@wp.func_native("return tile_extract(t, i);")
def pick(t: wp.tile[int, 4], i: int) -> int: ...


@wp.kernel
def uses_native(x: wp.array(dtype=float), y: wp.array(dtype=float), v: wp.array(dtype=wp.vec3),
                scaled: wp.array(dtype=int), picked: wp.array(dtype=int)):
    i = wp.tid()
    y[i] = mul_add_one(x[i], x[i] + 2.0)
    v[i] = spread(x[i])
    write_scaled(scaled, i, i + 1)
    t = wp.tile_arange(4, dtype=int)
    picked[i] = pick(t, i % 4)


def run(x_np):
    n = len(x_np)
    x = wp.array(x_np, dtype=float, requires_grad=True)
    y = wp.zeros(n, dtype=float, requires_grad=True)
    v, scaled, picked = wp.zeros(n, dtype=wp.vec3), wp.zeros(n, dtype=int), wp.zeros(n, dtype=int)
    tape = wp.Tape()
    with tape:
        wp.launch(uses_native, dim=n, inputs=[x, y, v, scaled, picked])
    return tape, x, y, v, scaled, picked


def test_native_snippets_compute_as_written():
    x_np = np.linspace(-2.0, 3.0, 6).astype(np.float32)
    _tape, _x, y, v, scaled, picked = run(x_np)
    np.testing.assert_allclose(y.numpy(), x_np * (x_np + 2) + 1, rtol=1e-6)
    np.testing.assert_allclose(v.numpy(), np.stack([x_np, 2 * x_np, 3 * x_np], axis=1), rtol=1e-6)
    np.testing.assert_array_equal(scaled.numpy(), (np.arange(6) + 1) * 10)
    np.testing.assert_array_equal(picked.numpy(), np.arange(6) % 4)


def test_adj_snippet_gives_the_gradient():
    x_np = np.array([-1.5, 0.25, 2.0], dtype=np.float32)
    tape, x, y, *_ = run(x_np)
    tape.backward(grads={y: wp.ones(3, dtype=float)})
    h = 1e-2
    fd = ((x_np + h) * (x_np + h + 2) - (x_np - h) * (x_np - h + 2)) / (2 * h)
    np.testing.assert_allclose(x.grad.numpy(), fd, rtol=1e-3, atol=1e-3)


@wp.func_native("return 2.0f * a;")
def no_adjoint(a: float) -> float: ...


@wp.kernel
def uses_no_adjoint(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = no_adjoint(x[i])


def test_without_adj_snippet_no_gradient_flows():
    x = wp.array([1.0, 2.0], dtype=float, requires_grad=True)
    y = wp.zeros(2, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(uses_no_adjoint, dim=2, inputs=[x, y])
    tape.backward(grads={y: wp.ones(2, dtype=float)})
    np.testing.assert_array_equal(y.numpy(), [2.0, 4.0])
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0])


def test_redefined_snippet_rebuilds():
    @wp.func_native("return a + 1;")
    def bump(a: int) -> int: ...

    @wp.kernel(module="unique")
    def k(out: wp.array(dtype=int)):
        out[0] = bump(41)

    out = wp.zeros(1, dtype=int)
    wp.launch(k, dim=1, inputs=[out])
    assert out.numpy()[0] == 42

    @wp.func_native("return a + 2;")
    def bump(a: int) -> int: ...      # noqa: F811  (redefined: callers rebuild)

    wp.launch(k, dim=1, inputs=[out])
    assert out.numpy()[0] == 43


@pytest.mark.parametrize("kwargs, exc, message", [
    ({"snippet": 3}, TypeError, "the snippet must be a str"),
    ({"snippet": "return;", "adj_snippet": 1}, TypeError, "adj_snippet must be a str"),
    ({"snippet": "return;", "replay_snippet": 2}, TypeError, "replay_snippet must be a str"),
])
def test_bad_snippets_are_refused(kwargs, exc, message):
    with pytest.raises(exc, match=message):
        wp.func_native(**kwargs)


# --- replay_snippet and array adjoints (warp-lang's test_snippet examples) -------------------------
@wp.func_native("int next = wp::atomic_add(counter, 0, 1); slots[tid] = next;", replay_snippet="")
def take_slot(counter: wp.array(dtype=int), slots: wp.array(dtype=int), tid: int): ...


@wp.kernel(module="unique")
def square_by_slot(x: wp.array(dtype=float), counter: wp.array(dtype=int), slots: wp.array(dtype=int),
                   y: wp.array(dtype=float)):
    tid = wp.tid()
    take_slot(counter, slots, tid)
    k = slots[tid]
    y[k] = x[k] * x[k]


def test_replay_snippet_keeps_a_counter_from_advancing_twice():
    n = 16
    x = wp.array(np.arange(n, dtype=np.float32), dtype=float, requires_grad=True)
    counter, slots = wp.zeros(1, dtype=int), wp.zeros(n, dtype=int)
    y = wp.zeros(n, dtype=float, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(square_by_slot, dim=n, inputs=[x, counter, slots], outputs=[y])
    tape.backward(grads={y: wp.ones(n, dtype=float)})
    # replaying the forward snippet would take slots n..2n-1 (out of range) in the backward pass
    assert counter.numpy()[0] == n
    assert sorted(slots.numpy()) == list(range(n))
    np.testing.assert_allclose(x.grad.numpy(), 2.0 * np.arange(n), rtol=1e-6)


@wp.func_native("y[tid] = x[tid] * x[tid];", adj_snippet="adj_x[tid] += 2.0f * adj_y[tid];",
                replay_snippet="y[tid] = x[tid];")
def square_into(x: wp.array(dtype=float), y: wp.array(dtype=float), tid: int): ...


@wp.kernel(module="unique")
def log_square(x: wp.array(dtype=float), y: wp.array(dtype=float), z: wp.array(dtype=float)):
    tid = wp.tid()
    square_into(x, y, tid)
    z[tid] = wp.log(y[tid])


def test_replay_snippet_runs_in_the_backward_replay_and_adj_arrays_are_gradients():
    x_np = 1.0 + np.arange(8, dtype=np.float32)
    x = wp.array(x_np, dtype=float, requires_grad=True)
    y, z = wp.zeros_like(x, requires_grad=True), wp.zeros_like(x, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(log_square, dim=8, inputs=[x, y], outputs=[z])
    np.testing.assert_allclose(z.numpy(), np.log(x_np * x_np), rtol=1e-6)
    tape.backward(grads={z: wp.ones(8, dtype=float)})
    # the replay leaves y = x, so the reverse of log gives adj_y = 1/x, and the snippet's adjoint
    # adds 2 adj_y = 2/x into x's gradient (warp-lang's test_replay_simplification)
    np.testing.assert_allclose(y.grad.numpy(), 1.0 / x_np, rtol=1e-6)
    np.testing.assert_allclose(x.grad.numpy(), 2.0 / x_np, rtol=1e-6)
