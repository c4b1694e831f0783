"""wp.matmul (d = alpha a @ b + beta c), batched matmul and ``a @ b``: values and tape gradients
against NumPy."""

import numpy as np
import pytest

import warp_interactive as wp


@wp.kernel
def weighted_sum2d(d: wp.array2d(dtype=wp.float64), w: wp.array2d(dtype=wp.float64),
                   loss: wp.array(dtype=wp.float64)):
    i, j = wp.tid()
    wp.atomic_add(loss, 0, d[i, j] * d[i, j] * w[i, j])


@wp.kernel
def weighted_sum3d(d: wp.array3d(dtype=wp.float64), w: wp.array3d(dtype=wp.float64),
                   loss: wp.array(dtype=wp.float64)):
    i, j, k = wp.tid()
    wp.atomic_add(loss, 0, d[i, j, k] * d[i, j, k] * w[i, j, k])


def _arrays(rng, shapes):
    return [wp.array(rng.normal(size=s), dtype=wp.float64, requires_grad=True) for s in shapes]


@pytest.mark.parametrize("batch", [(), (3,)])
@pytest.mark.parametrize("alpha,beta", [(1.0, 1.0), (0.5, -2.0), (1.5, 0.0)])
def test_matmul_values_and_gradients(batch, alpha, beta):
    rng = np.random.default_rng(11)
    m, k, n = 4, 3, 5
    a, b, c = _arrays(rng, [batch + (m, k), batch + (k, n), batch + (m, n)])
    d = wp.zeros(batch + (m, n), dtype=wp.float64, requires_grad=True)
    wn = rng.uniform(0.5, 1.5, batch + (m, n))
    w = wp.array(wn, dtype=wp.float64)
    loss = wp.zeros(1, dtype=wp.float64, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.matmul(a, b, c, d, alpha=alpha, beta=beta)
        kernel = weighted_sum3d if batch else weighted_sum2d
        wp.launch(kernel, dim=d.shape, inputs=[d, w, loss])
    tape.backward(loss=loss)

    an, bn, cn = a.numpy(), b.numpy(), c.numpy()
    dn = alpha * an @ bn + beta * cn
    np.testing.assert_allclose(d.numpy(), dn, rtol=1e-12)
    g = 2 * dn * wn                                   # dloss/dd
    np.testing.assert_allclose(a.grad.numpy(), alpha * g @ np.swapaxes(bn, -1, -2), rtol=1e-10)
    np.testing.assert_allclose(b.grad.numpy(), alpha * np.swapaxes(an, -1, -2) @ g, rtol=1e-10)
    np.testing.assert_allclose(c.grad.numpy(), beta * g, rtol=1e-10, atol=1e-14)


def test_matmul_in_place_accumulation_and_float32():
    rng = np.random.default_rng(2)
    an, bn, dn = (rng.normal(size=s).astype(np.float32) for s in ((3, 2), (2, 4), (3, 4)))
    a = wp.array(an, dtype=wp.float32, requires_grad=True)
    b = wp.array(bn, dtype=wp.float32, requires_grad=True)
    d = wp.array(dn, dtype=wp.float32, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.matmul(a, b, d, d, alpha=2.0, beta=0.5)        # d = 2 a b + 0.5 d, in place
    np.testing.assert_allclose(d.numpy(), 2 * an @ bn + 0.5 * dn, rtol=1e-5)
    seed = rng.normal(size=(3, 4)).astype(np.float32)
    tape.backward(grads={d: seed})
    np.testing.assert_allclose(a.grad.numpy(), 2 * seed @ bn.T, rtol=1e-5)
    np.testing.assert_allclose(b.grad.numpy(), 2 * an.T @ seed, rtol=1e-5)
    np.testing.assert_allclose(d.grad.numpy(), 0.5 * seed, rtol=1e-6)   # w.r.t. d's old value


def test_matmul_operator_returns_a_new_array_on_the_tape():
    rng = np.random.default_rng(5)
    a, b = _arrays(rng, [(2, 3), (3, 2)])
    tape = wp.Tape()
    with tape:
        d = a @ b
    assert isinstance(d, wp.array) and d.shape == (2, 2) and d.requires_grad
    np.testing.assert_allclose(d.numpy(), a.numpy() @ b.numpy(), rtol=1e-12)
    tape.backward(grads={d: np.ones((2, 2))})
    np.testing.assert_allclose(a.grad.numpy(), np.ones((2, 2)) @ b.numpy().T, rtol=1e-12)
    batched = wp.array(np.ones((2, 3, 4)), dtype=wp.float64) @ wp.array(np.ones((2, 4, 5)), dtype=wp.float64)
    assert batched.shape == (2, 3, 5) and np.all(batched.numpy() == 4.0)


def test_matmul_errors_say_what_is_wrong():
    f = wp.zeros((2, 2), dtype=wp.float32)
    with pytest.raises(ValueError, match="shapes do not fit"):
        wp.matmul(f, wp.zeros((3, 2), dtype=wp.float32), f, f)
    with pytest.raises(TypeError, match="dtype int32"):
        i = wp.zeros((2, 2), dtype=wp.int32)
        wp.matmul(i, i, i, i)
    with pytest.raises(TypeError, match="needs a's dtype float32"):
        wp.matmul(f, wp.zeros((2, 2), dtype=wp.float64), f, f)
    with pytest.raises(ValueError, match="2-d"):
        wp.matmul(wp.zeros(4, dtype=wp.float32), f, f, f)


def test_matmul_shows_in_the_tape_graph():
    a = wp.zeros((2, 2), dtype=wp.float32, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.matmul(a, a, a, wp.zeros((2, 2), dtype=wp.float32, requires_grad=True))
    assert 'label="matmul"' in tape.visualize()
    tape.zero()
    tape.reset()
    assert tape.launches == []
