"""Adjoints of the differentiable tile primitives, against central finite differences."""

import numpy as np
import pytest

import warp_interactive as wp

RNG = np.random.default_rng(3)


@wp.func
def soft(x: wp.float64):
    return wp.sin(x) * x + 0.5 * x * x


@wp.kernel
def chain(a: wp.array2d(dtype=wp.float64), b: wp.array2d(dtype=wp.float64), loss: wp.array(dtype=wp.float64)):
    ta = wp.tile_load(a, shape=(3, 4))
    tb = wp.tile_load(b, shape=(4, 5))
    c = wp.tile_matmul(ta, tb)
    acc = wp.tile_zeros(shape=(3, 5), dtype=wp.float64)
    wp.tile_matmul(ta, tb, acc, alpha=2.0)
    m = wp.tile_map(soft, c) + acc * c - wp.tile_broadcast(wp.tile_view(tb, offset=(1,)), shape=(3, 5))
    s = wp.tile_sum(m) + wp.tile_sum(wp.tile_sum(m, axis=0)) + wp.tile_max(ta)
    s2 = wp.tile_scan_inclusive(wp.tile_reshape(m, shape=(15,)))
    wp.tile_atomic_add(loss, s + wp.tile_view(s2, offset=(14,), shape=(1,)))


@wp.kernel
def layout_chain(a: wp.array2d(dtype=wp.float64), loss: wp.array(dtype=wp.float64)):
    t = wp.tile_load(a, shape=(3, 4))
    tt = wp.tile_transpose(t)
    row = wp.tile_view(t, offset=(1,))
    bc = wp.tile_broadcast(row, shape=(4, 4))
    d = wp.tile_diag_add(bc, wp.tile_load(a[0], shape=4))
    e = wp.tile_map(wp.mul, d, d) / 3.0 - wp.tile_scan_exclusive(d)
    z = wp.tile_zeros(shape=(5, 5), dtype=wp.float64)
    wp.tile_assign(z, e, offset=(1, 0))
    wp.tile_store(loss, wp.tile_sum(z * z) + wp.tile_sum(tt))


def _loss(kernel, arrays):
    loss = wp.zeros(1, dtype=wp.float64, requires_grad=True)
    wp.launch_tiled(kernel, dim=1, inputs=list(arrays) + [loss], block_dim=8)
    return loss


def _check(kernel, shapes):
    values = [RNG.uniform(-1, 1, s) for s in shapes]
    arrays = [wp.array(v, dtype=wp.float64, requires_grad=True) for v in values]
    tape = wp.Tape()
    with tape:
        loss = _loss(kernel, arrays)
    tape.backward(loss)
    eps = 1e-6
    for v, arr in zip(values, arrays):
        grad = arr.grad.numpy()
        fd = np.zeros_like(v)
        for idx in np.ndindex(v.shape):
            for sign in (1, -1):
                w = [x.copy() for x in values]
                w[[id(x) for x in values].index(id(v))][idx] += sign * eps
                fd[idx] += sign * _loss(kernel, [wp.array(x, dtype=wp.float64) for x in w]).numpy()[0]
        np.testing.assert_allclose(grad, fd / (2 * eps), rtol=1e-5, atol=1e-6)


def test_matmul_map_sum_scan_adjoints():
    _check(chain, [(3, 4), (4, 5)])


def test_layout_adjoints():
    _check(layout_chain, [(3, 4)])


@pytest.mark.parametrize("offset", [(0,), (3,)])
def test_load_store_adjoint_with_partial_tile(offset):
    @wp.kernel
    def k(x: wp.array(dtype=wp.float64), y: wp.array(dtype=wp.float64)):
        t = wp.tile_load(x, shape=4, offset=offset)
        wp.tile_store(y, t * t, offset=offset)

    x = wp.array(RNG.uniform(-1, 1, 5), dtype=wp.float64, requires_grad=True)
    y = wp.zeros(5, dtype=wp.float64, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch_tiled(k, dim=1, inputs=[x, y], block_dim=4)
    y.grad = wp.array(np.arange(1.0, 6.0), dtype=wp.float64)
    tape.backward()
    want = np.zeros(5)
    o = offset[0]
    sl = slice(o, min(o + 4, 5))
    want[sl] = 2 * x.numpy()[sl] * np.arange(1.0, 6.0)[sl]
    np.testing.assert_allclose(x.grad.numpy(), want)


@wp.kernel
def indexed_chain(x: wp.array2d(dtype=wp.float64), idx: wp.array(dtype=int), y: wp.array2d(dtype=wp.float64),
                  loss: wp.array(dtype=wp.float64)):
    ix = wp.tile_load(idx, shape=3)
    t = wp.tile_load_indexed(x, indices=ix, shape=(3, 2), axis=0)
    wp.tile_store_indexed(y, indices=ix, t=t * t, axis=0)
    picked = wp.tile_slice_indexed(t, ix * 0 + 1)
    s = wp.tile_dot(t, picked)
    wp.tile_atomic_add(loss, s)


def test_indexed_adjoints():
    x = RNG.uniform(-1, 1, (4, 2))
    idx = np.array([2, 0, 3], dtype=np.int32)

    def run(xv, with_tape):
        xa = wp.array(xv, dtype=wp.float64, requires_grad=True)
        y = wp.zeros((4, 2), dtype=wp.float64, requires_grad=True)
        loss = wp.zeros(1, dtype=wp.float64, requires_grad=True)
        tape = wp.Tape()
        with tape:
            wp.launch_tiled(indexed_chain, dim=1, inputs=[xa, wp.array(idx), y, loss], block_dim=4)
        if with_tape:
            y.grad = wp.array(np.arange(8.0).reshape(4, 2), dtype=wp.float64)
            tape.backward(loss)
        return (loss.numpy()[0] + (y.numpy() * np.arange(8.0).reshape(4, 2)).sum()), xa

    _, xa = run(x, True)
    eps, fd = 1e-6, np.zeros_like(x)
    for i in np.ndindex(x.shape):
        w = x.copy()
        w[i] += eps
        up = run(w, False)[0]
        w[i] -= 2 * eps
        fd[i] = (up - run(w, False)[0]) / (2 * eps)
    np.testing.assert_allclose(xa.grad.numpy(), fd, rtol=1e-5, atol=1e-6)


@wp.kernel
def stack_and_loop(x: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)):
    s = wp.tile_stack(capacity=4, dtype=int)
    t = wp.tile_load(x, shape=4)
    acc = wp.tile_zeros(shape=4, dtype=wp.float64)
    for k in range(3):
        wp.tile_stack_push(s, k, True)
        acc = acc + t * t
    n = wp.tile_stack_count(s)
    wp.tile_store(out, acc * wp.float64(n))


def test_backward_of_kernels_with_stacks_and_loops():
    """Every tile value type has an adjoint accumulation, so backward passes compile."""
    x = wp.array(RNG.uniform(-1, 1, 4), dtype=wp.float64, requires_grad=True)
    out = wp.zeros(4, dtype=wp.float64, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch_tiled(stack_and_loop, dim=1, inputs=[x, out], block_dim=4)
    out.grad = wp.array(np.ones(4), dtype=wp.float64)
    tape.backward()
    np.testing.assert_allclose(x.grad.numpy(), 3 * 3 * 2 * x.numpy())


@wp.kernel
def element_access(a: wp.array2d(dtype=wp.float64), loss: wp.array(dtype=wp.float64)):
    t = wp.tile_load(a, shape=(3, 4))
    x = t[1, 2] * t[0, 0]
    t[2, 3] = x * 3.0
    u = wp.tile(t[2, 3] + t[1, 1])
    loss[0] = wp.untile(u) + wp.tile_sum(t * t)[0]


def test_element_access_adjoints():
    _check(element_access, [(3, 4)])
