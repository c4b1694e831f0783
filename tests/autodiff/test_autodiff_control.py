"""Gradients through every control-flow form, against central finite differences (float64):
if/else in kernels, static (unrolled) loops, dynamic loops (with break and continue, nested),
while loops (including loop state used non-linearly, which the reverse recomputes exactly)."""

import numpy as np
import pytest

import warp_interactive as wp

F64 = wp.float64


@wp.kernel
def k_if_else(x: wp.array(dtype=F64), y: wp.array(dtype=F64), n: int):
    i = wp.tid()
    v = x[i]
    if v > F64(0.5):
        r = wp.sin(v) * v
    elif v > F64(0.0):
        r = v * v * v
    else:
        r = wp.exp(v)
    y[i] = r


@wp.kernel
def k_static_nonlinear(x: wp.array(dtype=F64), y: wp.array(dtype=F64), n: int):
    i = wp.tid()
    s = x[i]
    for j in range(4):       # unrolled: any computation, state used non-linearly
        s = s * s * F64(0.5) + wp.sin(s)
    y[i] = s


@wp.kernel
def k_dynamic_linear(x: wp.array(dtype=F64), y: wp.array(dtype=F64), n: int):
    i = wp.tid()
    s = F64(0.0)
    for j in range(n):       # loop state used linearly (the reference's rule)
        s += wp.sin(x[i] * F64(j + 1))
    y[i] = s * s


@wp.kernel
def k_dynamic_break_continue(x: wp.array(dtype=F64), y: wp.array(dtype=F64), n: int):
    i = wp.tid()
    for j in range(n):
        if j == 1:
            continue
        t = x[i] * F64(j)
        if t > F64(2.0):
            break
        wp.atomic_add(y, i, wp.cos(t) * x[i])


@wp.kernel
def k_nested(x: wp.array(dtype=F64), y: wp.array(dtype=F64), n: int):
    i = wp.tid()
    for j in range(n):
        for k in range(j, n):
            wp.atomic_add(y, i, x[i] * x[i] * F64(k - j + 1))


@wp.func
def newton_sqrt(a: F64, n: int):
    z = F64(1.0)
    it = int(0)
    while it < n:           # loop state z used non-linearly: recomputed in the reverse
        z = F64(0.5) * (z + a / z)
        it += 1
    return z


@wp.kernel
def k_while_newton(x: wp.array(dtype=F64), y: wp.array(dtype=F64), n: int):
    i = wp.tid()
    y[i] = newton_sqrt(x[i], n)


@wp.kernel
def k_while_break(x: wp.array(dtype=F64), y: wp.array(dtype=F64), n: int):
    i = wp.tid()
    j = int(0)
    s = x[i]
    while True:
        if j >= n:
            break
        j += 1
        if j == 2:
            continue
        s = s * x[i] + F64(0.1)
    y[i] = s


@wp.kernel
def k_while_in_for(x: wp.array(dtype=F64), y: wp.array(dtype=F64), n: int):
    i = wp.tid()
    for j in range(n):
        z = x[i] + F64(j)
        k = int(0)
        while k < j:
            z = z * x[i] + F64(0.5)
            k += 1
        wp.atomic_add(y, i, wp.sin(z))


@wp.kernel
def k_for_in_while(x: wp.array(dtype=F64), y: wp.array(dtype=F64), n: int):
    i = wp.tid()
    s = x[i]
    k = int(0)
    while k < n:
        for j in range(k):
            wp.atomic_add(y, i, s * F64(j + 1))
        s = wp.sin(s) * x[i]
        k += 1
    wp.atomic_add(y, i, s)    # (y[i] = y[i] + s would overwrite a used value: not allowed)


@wp.func
def first_above(x: F64, n: int):
    for j in range(n):
        for k in range(2):
            if x * F64(j + k) > F64(1.0):
                return x * x * F64(j + k)     # returns from inside two dynamic loops
    return wp.sin(x)


@wp.kernel
def k_return_in_loop(x: wp.array(dtype=F64), y: wp.array(dtype=F64), n: int):
    i = wp.tid()
    y[i] = first_above(x[i], n)
    j = int(0)
    while j < n:                              # and a kernel returning from a while loop
        if x[i] * F64(j) > F64(2.0):
            return
        wp.atomic_add(y, i, wp.cos(x[i] * F64(j)))
        j += 1


CASES = {
    "return_in_loop": (k_return_in_loop, np.array([0.3, 0.45, 0.7, 1.3])),
    "while_in_for": (k_while_in_for, np.linspace(0.2, 0.9, 4)),
    "for_in_while": (k_for_in_while, np.linspace(-0.8, 0.9, 4)),
    "if_else": (k_if_else, np.array([-0.7, -0.1, 0.2, 0.4, 0.7, 1.1])),
    "static_nonlinear": (k_static_nonlinear, np.linspace(-0.8, 0.9, 6)),
    "dynamic_linear": (k_dynamic_linear, np.linspace(0.1, 1.2, 6)),
    "dynamic_break_continue": (k_dynamic_break_continue, np.array([0.15, 0.45, 0.7, 0.95, 1.3])),
    "nested": (k_nested, np.linspace(-1.0, 1.0, 5)),
    "while_newton": (k_while_newton, np.array([0.5, 1.0, 2.0, 3.5])),
    "while_break_continue": (k_while_break, np.linspace(0.3, 1.1, 5)),
}


def _run(kernel, xn, n):
    x = wp.array(xn, dtype=F64, requires_grad=True)
    y = wp.zeros(len(xn), dtype=F64, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(kernel, dim=len(xn), inputs=[x, y, n])
    return x, y, tape


def _fd(kernel, xn, n, eps=1e-6):
    up = _run(kernel, xn + eps, n)[1].numpy()
    down = _run(kernel, xn - eps, n)[1].numpy()
    return (up - down) / (2 * eps)    # each y[i] depends on x[i] only


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("n", [0, 1, 5])
def test_control_flow_gradient(case, n):
    kernel, xn = CASES[case]
    x, y, tape = _run(kernel, xn, n)
    tape.backward(grads={y: np.ones(len(xn))})
    np.testing.assert_allclose(x.grad.numpy(), _fd(kernel, xn, n), rtol=1e-6, atol=1e-7)


def test_while_newton_gradient_is_that_of_sqrt():
    xn = np.array([0.5, 2.0, 9.0])
    x, y, tape = _run(k_while_newton, xn, 30)
    tape.backward(grads={y: np.ones(3)})
    np.testing.assert_allclose(y.numpy(), np.sqrt(xn), rtol=1e-12)
    np.testing.assert_allclose(x.grad.numpy(), 0.5 / np.sqrt(xn), rtol=1e-9)


