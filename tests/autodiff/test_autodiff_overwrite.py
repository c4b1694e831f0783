"""Overwritten array elements: the reverse pass of a store takes the element's adjoint and clears
it (the value it overwrote had no influence after it), as in warp-lang; in-place updates and
atomics accumulate. Checked against analytic gradients, in one kernel, across launches, through
wp.copy / array.assign / wp.clone, for repeated backward passes without zero()."""

import numpy as np
import pytest

import warp_interactive as wp

F64 = wp.float64


@wp.kernel
def k_two_stores(a: wp.array(dtype=F64), b: wp.array(dtype=F64)):
    i = wp.tid()
    b[i] = F64(2.0) * a[i]
    b[i] = F64(5.0) * a[i]


@wp.kernel
def k_store_read_store(a: wp.array(dtype=F64), b: wp.array(dtype=F64)):
    i = wp.tid()
    b[i] = F64(2.0) * a[i]
    c = b[i]                       # reads the first value back: b = 5 * (2a) + a
    b[i] = F64(5.0) * c + a[i]


@wp.kernel
def k_scale(a: wp.array(dtype=F64), b: wp.array(dtype=F64), s: F64):
    i = wp.tid()
    b[i] = s * a[i]


@wp.kernel
def k_inplace(a: wp.array(dtype=F64), b: wp.array(dtype=F64)):
    i = wp.tid()
    b[i] = b[i] + F64(2.0) * a[i]  # load + store of one element: the load keeps the chain
    b[i] += F64(3.0) * a[i]        # atomic accumulation: no reset
    wp.atomic_sub(b, i, a[i])


@wp.kernel
def k_store_in_loop(a: wp.array(dtype=F64), b: wp.array(dtype=F64), n: int):
    i = wp.tid()
    for j in range(n):             # each iteration overwrites b[i]: only the last one counts
        b[i] = a[i] * F64(j + 1)


@wp.kernel
def k_shared_store(a: wp.array(dtype=F64), b: wp.array(dtype=F64)):
    i = wp.tid()
    b[0] = F64(3.0) * a[0]         # every thread stores the same value into one element
    b[i + 1] = a[i + 1]


@wp.kernel
def k_loss(b: wp.array(dtype=F64), w: wp.array(dtype=F64), loss: wp.array(dtype=F64)):
    i = wp.tid()
    wp.atomic_add(loss, 0, w[i] * b[i])


N = 6
RNG = np.random.default_rng(11)
A0 = RNG.uniform(0.5, 1.5, N)
B0 = RNG.uniform(0.5, 1.5, N)
W0 = RNG.uniform(-2.0, 2.0, N)


def _arrays(n=N, b0=None):
    a = wp.array(A0[:n], dtype=F64, requires_grad=True)
    b = wp.array(B0[:n] if b0 is None else b0, dtype=F64, requires_grad=True)
    w = wp.array(W0[:n], dtype=F64)
    loss = wp.zeros(1, dtype=F64, requires_grad=True)
    return a, b, w, loss


# kernel-level cases: (launch recipe, d loss / d a, d loss / d b0 (b's value before the launches))
def _one(kernel, *extra):
    return lambda a, b: wp.launch(kernel, dim=N, inputs=[a, b, *extra])


CASES = {
    "two_stores": (_one(k_two_stores), 5.0 * W0, 0 * W0),
    "store_read_store": (_one(k_store_read_store), 11.0 * W0, 0 * W0),
    "two_launches": (lambda a, b: (wp.launch(k_scale, dim=N, inputs=[a, b, 2.0]),
                                   wp.launch(k_scale, dim=N, inputs=[a, b, 3.0])), 3.0 * W0, 0 * W0),
    "inplace": (_one(k_inplace), 4.0 * W0, W0),
    "store_in_loop": (_one(k_store_in_loop, 4), 4.0 * W0, 0 * W0),
    "store_in_loop_never": (_one(k_store_in_loop, 0), 0 * W0, W0),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_overwrite_gradient(case):
    run, da, db = CASES[case]
    a, b, w, loss = _arrays()
    tape = wp.Tape()
    with tape:
        run(a, b)
        wp.launch(k_loss, dim=N, inputs=[b, w, loss])
    tape.backward(loss)
    np.testing.assert_allclose(a.grad.numpy(), da, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(b.grad.numpy(), db, rtol=1e-12, atol=1e-14)


def test_several_threads_storing_one_element_pass_its_adjoint_once():
    a, b, w, loss = _arrays(N)
    tape = wp.Tape()
    with tape:
        wp.launch(k_shared_store, dim=N - 1, inputs=[a, b])
        wp.launch(k_loss, dim=N, inputs=[b, w, loss])
    tape.backward(loss)
    expect = W0.copy()
    expect[0] = 3.0 * W0[0]        # the one value that remained, counted once (not N - 1 times)
    np.testing.assert_allclose(a.grad.numpy(), expect, rtol=1e-12)


@pytest.mark.parametrize("times", [2, 3])
def test_repeated_backward_without_zero_adds_one_gradient_each_time(times):
    a, b, w, loss = _arrays()
    tape = wp.Tape()
    with tape:
        wp.launch(k_scale, dim=N, inputs=[a, b, 2.0])
        wp.launch(k_loss, dim=N, inputs=[b, w, loss])
    for _ in range(times):
        tape.backward(loss)
    np.testing.assert_allclose(a.grad.numpy(), times * 2.0 * W0, rtol=1e-12)
    tape.zero()
    tape.backward(loss)
    np.testing.assert_allclose(a.grad.numpy(), 2.0 * W0, rtol=1e-12)


@wp.kernel
def k_double_f32(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = 2.0 * x[i]


@wp.kernel
def k_sum_f32(y: wp.array(dtype=float), loss: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(loss, 0, y[i])


def _copy_case(kind, y, z):
    if kind == "copy":
        wp.copy(z, y)
    elif kind == "assign":
        z.assign(y)
    return z


@pytest.mark.parametrize("kind", ["copy", "assign", "clone"])
def test_copies_are_differentiable(kind):
    """The reference's examples: copy, assign and clone of y = 2x all give d/dx = 2."""
    x = wp.array(np.arange(3, dtype=np.float32), dtype=float, requires_grad=True)
    y = wp.zeros_like(x)
    z = wp.zeros_like(x)
    tape = wp.Tape()
    with tape:
        wp.launch(k_double_f32, dim=3, inputs=[x, y])
        z = wp.clone(y, requires_grad=True) if kind == "clone" else _copy_case(kind, y, z)
    tape.backward(grads={z: wp.ones_like(x)})
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0, 2.0])


def test_assign_from_numpy_overwrites_the_gradient_path():
    """Writing constants over an array cuts its earlier value out of the loss."""
    x = wp.array(np.ones(4, np.float32), dtype=float, requires_grad=True)
    y = wp.zeros(4, dtype=float, requires_grad=True)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(k_double_f32, dim=4, inputs=[x, y])
        y.assign(np.array([1.0, 2.0, 3.0, 4.0], np.float32))
        wp.launch(k_sum_f32, dim=4, inputs=[y, loss])
    tape.backward(loss)
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros(4))


def test_consumed_output_gradient_is_zero_after_backward():
    """As in warp-lang: an array written by a recorded kernel has its adjoint consumed."""
    a, b, w, loss = _arrays()
    tape = wp.Tape()
    with tape:
        wp.launch(k_scale, dim=N, inputs=[a, b, 2.0])
    tape.backward(grads={b: np.ones(N)})
    np.testing.assert_allclose(a.grad.numpy(), np.full(N, 2.0))
    assert not b.grad.numpy().any()


@pytest.mark.parametrize("make", ["zeros", "array", "attribute"])
def test_retain_grad_keeps_the_output_gradient(make):
    """warp-lang's documented example: y = 2x with retain_grad=True keeps y.grad after backward."""
    x = wp.array([1.0, 2.0, 3.0], dtype=float, requires_grad=True)
    if make == "zeros":
        y = wp.zeros(3, dtype=float, requires_grad=True, retain_grad=True)
    elif make == "array":
        y = wp.array(np.zeros(3, np.float32), dtype=float, requires_grad=True, retain_grad=True)
    else:
        y = wp.zeros(3, dtype=float, requires_grad=True)
        y.retain_grad = True
    tape = wp.Tape()
    with tape:
        wp.launch(k_double_f32, dim=3, inputs=[x, y])
        z = wp.zeros(3, dtype=float, requires_grad=True, retain_grad=True)
        wp.copy(z, y)
    tape.backward(grads={z: wp.ones(3, dtype=float)})
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0, 2.0])
    np.testing.assert_array_equal(y.grad.numpy(), [1.0, 1.0, 1.0])
    np.testing.assert_array_equal(z.grad.numpy(), [1.0, 1.0, 1.0])


def test_retain_grad_double_counts_overwrites_as_documented():
    """The reference's warning: with retain_grad an element written twice counts twice."""
    a, _, w, loss = _arrays()
    b = wp.zeros(N, dtype=F64, requires_grad=True, retain_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(k_two_stores, dim=N, inputs=[a, b])
        wp.launch(k_loss, dim=N, inputs=[b, w, loss])
    tape.backward(loss)
    np.testing.assert_allclose(a.grad.numpy(), 7.0 * W0, rtol=1e-12)
