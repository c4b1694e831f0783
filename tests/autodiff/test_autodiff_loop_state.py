"""Dynamic loops whose state is used non-linearly (``s = s * x``, ``s = f(s)``, an index or a
branch computed from the state, a random state advanced in place): exact gradients, checked
against central finite differences (float64) over a table of loops and trip counts, including
trip counts past the 64 checkpoint slots (the slots thin out and iterations are recomputed)."""

import numpy as np
import pytest

import warp_interactive as wp

F64 = wp.float64


@wp.kernel
def k_product(x: wp.array(dtype=F64), y: wp.array(dtype=F64), n: int):
    i = wp.tid()
    s = x[i]
    for j in range(n):
        s = s * (F64(1.0) + F64(0.01) * x[i])
    y[i] = s


@wp.kernel
def k_map(x: wp.array(dtype=F64), y: wp.array(dtype=F64), n: int):
    i = wp.tid()
    s = x[i]
    for j in range(n):
        s = wp.sin(s) * x[i] + F64(0.1) * F64(j % 3)
    y[i] = s


@wp.kernel
def k_nested(x: wp.array(dtype=F64), y: wp.array(dtype=F64), n: int):
    i = wp.tid()
    s = x[i]
    t = F64(0.0)
    for j in range(n):
        for k in range(j % 4):
            s = wp.tanh(s * x[i] + F64(0.2))
        t = t + s * s
    y[i] = t + s


@wp.kernel
def k_break(x: wp.array(dtype=F64), y: wp.array(dtype=F64), n: int):
    i = wp.tid()
    s = x[i]
    for j in range(n):
        s = s * x[i] + F64(0.3)
        if s > F64(2.0):         # a branch on the state: the trip count depends on it
            break
    y[i] = s


@wp.kernel
def k_continue(x: wp.array(dtype=F64), y: wp.array(dtype=F64), n: int):
    i = wp.tid()
    s = x[i]
    for j in range(n):
        if j % 3 == 1:
            continue
        s = wp.cos(s) * x[i]
    y[i] = s


@wp.kernel
def k_vector(x: wp.array(dtype=F64), y: wp.array(dtype=F64), n: int):
    i = wp.tid()
    v = wp.vec3d(x[i], F64(0.5), F64(-0.25))
    a = wp.vec3d(F64(0.3), x[i], F64(0.7))
    for j in range(n):
        v = wp.normalize(v + wp.cross(v, a) * F64(0.1))
    y[i] = wp.dot(v, a)


@wp.kernel
def k_index_state(x: wp.array(dtype=F64), w: wp.array(dtype=F64), y: wp.array(dtype=F64), n: int):
    i = wp.tid()
    s = x[i]
    k = int(0)
    for j in range(n):
        s = s + w[k] * x[i] * s   # s used non-linearly through an index carried by the loop
        k = (k + 1) % 3
    y[i] = s


@wp.kernel
def k_random(x: wp.array(dtype=F64), y: wp.array(dtype=F64), n: int):
    i = wp.tid()
    state = wp.rand_init(1234, i)
    s = x[i]
    for j in range(n):
        s = s + F64(wp.randf(state)) * F64(0.1) * wp.sin(s * x[i])
    y[i] = s


@wp.kernel
def k_while(x: wp.array(dtype=F64), y: wp.array(dtype=F64), n: int):
    i = wp.tid()
    s = x[i]
    j = int(0)
    while j < n:
        s = wp.sin(s) * x[i] + F64(0.05)
        j += 1
    y[i] = s


@wp.func
def power_series(x: F64, n: int):
    term = F64(1.0)
    total = F64(1.0)
    for j in range(1, n):
        term = term * x / F64(j)
        total = total + term
    return total


@wp.kernel
def k_in_func(x: wp.array(dtype=F64), y: wp.array(dtype=F64), n: int):
    i = wp.tid()
    y[i] = power_series(x[i], n)


@wp.kernel
def k_linear(x: wp.array(dtype=F64), y: wp.array(dtype=F64), n: int):
    i = wp.tid()
    s = F64(0.0)
    for j in range(n):            # linear state: replayed as it is (no checkpoints)
        s = s * F64(0.5) + wp.sin(x[i] * F64(j + 1))
    y[i] = s * s


W = wp.array(np.array([0.01, -0.02, 0.015]), dtype=F64)

CASES = {
    "product": (k_product, np.linspace(0.8, 1.2, 4)),
    "map": (k_map, np.linspace(0.3, 1.1, 4)),
    "nested": (k_nested, np.linspace(-0.8, 0.9, 4)),
    "break": (k_break, np.array([0.6, 0.9, 1.1, 1.4])),
    "continue": (k_continue, np.linspace(0.2, 1.0, 4)),
    "vector": (k_vector, np.linspace(-0.5, 0.9, 4)),
    "index_state": (k_index_state, np.linspace(0.5, 1.5, 4)),
    "random": (k_random, np.linspace(0.2, 1.0, 4)),
    "in_func": (k_in_func, np.linspace(-1.0, 1.0, 4)),
    "linear": (k_linear, np.linspace(0.1, 1.2, 4)),
    "while": (k_while, np.linspace(0.3, 1.2, 4)),
}


def _run(kernel, xn, n):
    x = wp.array(xn, dtype=F64, requires_grad=True)
    y = wp.zeros(len(xn), dtype=F64, requires_grad=True)
    extra = [W] if kernel is k_index_state else []
    tape = wp.Tape()
    with tape:
        wp.launch(kernel, dim=len(xn), inputs=[x, *extra, y, n])
    return x, y, tape


def _fd(kernel, xn, n, eps=1e-6):
    up = _run(kernel, xn + eps, n)[1].numpy()
    down = _run(kernel, xn - eps, n)[1].numpy()
    return (up - down) / (2 * eps)    # each y[i] depends on x[i] only


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("n", [0, 1, 7, 64, 65, 300])
def test_loop_state_gradient(case, n):
    kernel, xn = CASES[case]
    x, y, tape = _run(kernel, xn, n)
    tape.backward(grads={y: np.ones(len(xn))})
    np.testing.assert_allclose(x.grad.numpy(), _fd(kernel, xn, n), rtol=1e-6, atol=1e-7)


def test_linear_loops_keep_no_checkpoints():
    """The n-body shape (state accumulated linearly) replays as it is: no checkpoint arrays."""
    from warp_interactive.codegen.module_source import generate_source
    from warp_interactive.lang import lower
    linear = generate_source(lower([k_linear]))
    product = generate_source(lower([k_product]))
    assert "_ck" not in linear and "_ck" in product
