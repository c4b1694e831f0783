"""wp.copy recorded on a tape: its adjoint moves the destination's gradient over the copied range
to the source's gradient (and clears it there), on every device, for every float dtype, against
the analytic gradient of loss = sum(w * dest) with dest[do:do+n] = 2 * x[so:so+n]."""

import numpy as np
import pytest

import warp_interactive as wp


@wp.kernel
def double_it(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = 2.0 * x[i]


@wp.kernel
def double_vec(x: wp.array(dtype=wp.vec3d), y: wp.array(dtype=wp.vec3d)):
    i = wp.tid()
    y[i] = wp.float64(2.0) * x[i]


@wp.kernel
def double_half(x: wp.array(dtype=wp.float16), y: wp.array(dtype=wp.float16)):
    i = wp.tid()
    y[i] = wp.float16(2.0) * x[i]


@wp.kernel
def weigh(b: wp.array(dtype=float), w: wp.array(dtype=float), loss: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(loss, 0, w[i] * b[i])


@wp.kernel
def weigh_vec(b: wp.array(dtype=wp.vec3d), w: wp.array(dtype=wp.vec3d), loss: wp.array(dtype=wp.float64)):
    i = wp.tid()
    wp.atomic_add(loss, 0, wp.dot(w[i], b[i]))


@wp.kernel
def weigh_half(b: wp.array(dtype=wp.float16), w: wp.array(dtype=wp.float16), loss: wp.array(dtype=wp.float16)):
    i = wp.tid()
    wp.atomic_add(loss, 0, w[i] * b[i])


CASES = {   # dtype: (double kernel, weigh kernel, NumPy element shape, NumPy dtype)
    wp.float32: (double_it, weigh, (), np.float32),
    wp.vec3d: (double_vec, weigh_vec, (3,), np.float64),
    wp.float16: (double_half, weigh_half, (), np.float16),
}
LOSS_DTYPE = {wp.float32: wp.float32, wp.vec3d: wp.float64, wp.float16: wp.float16}


@pytest.mark.parametrize("dtype", list(CASES), ids=lambda t: t.__name__)
@pytest.mark.parametrize("offsets", [(0, 0, 0), (3, 1, 4), (0, 5, 3)], ids=["all", "inner", "tail"])
def test_copy_adjoint(device, dtype, offsets):
    double, weigh_k, eshape, npd = CASES[dtype]
    do, so, count = offsets
    rng = np.random.default_rng(4)
    n = 8
    xs = rng.uniform(-1, 1, (n,) + eshape).astype(npd)
    ws = rng.integers(1, 4, (n,) + eshape).astype(npd)    # small integers: exact in float16
    x = wp.array(xs, dtype=dtype, device=device, requires_grad=True)
    a = wp.zeros(n, dtype=dtype, device=device, requires_grad=True)
    b = wp.zeros(n, dtype=dtype, device=device, requires_grad=True)
    w = wp.array(ws, dtype=dtype, device=device)
    loss = wp.zeros(1, dtype=LOSS_DTYPE[dtype], device=device, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(double, dim=n, inputs=[x, a], device=device)
        wp.copy(b, a, dest_offset=do, src_offset=so, count=count)
        wp.launch(weigh_k, dim=n, inputs=[b, w, loss], device=device)
    tape.backward(loss)
    k = count or n
    expect_x = np.zeros_like(xs)
    expect_x[so:so + k] = 2 * ws[do:do + k]
    expect_b = ws.copy()
    expect_b[do:do + k] = 0                      # overwritten by the copy: no gradient left there
    np.testing.assert_array_equal(x.grad.numpy(), expect_x)
    np.testing.assert_array_equal(b.grad.numpy(), expect_b)


def test_copy_adjoint_of_a_strided_view_goes_through_the_host(device):
    src = wp.array(np.arange(12, dtype=np.float32).reshape(4, 3), device=device, requires_grad=True)
    dst = wp.zeros((4, 3), dtype=float, device=device, requires_grad=True)
    col = src[:, 1]                              # a non-contiguous view and its gradient view
    tape = wp.Tape()
    with tape:
        wp.copy(dst, col, dest_offset=2, src_offset=1, count=3)
    seed = np.arange(1, 13, dtype=np.float32).reshape(4, 3)
    tape.backward(grads={dst: seed})
    expect = np.zeros((4, 3), np.float32)
    expect[1:4, 1] = seed.reshape(-1)[2:5]
    np.testing.assert_array_equal(src.grad.numpy(), expect)


def test_copy_adjoint_within_one_array_through_an_overlapping_view(device):
    """dest and src share memory: the destination's gradient is taken and cleared before the
    source's gradient gains it (the reverse of the forward copy's overwrite)."""
    a = wp.array(np.arange(12, dtype=np.float32).reshape(4, 3), device=device, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.copy(a, a[:, 1], dest_offset=0, src_offset=1, count=2)
    seed = np.arange(1, 13, dtype=np.float32).reshape(4, 3)
    tape.backward(grads={a: seed})
    expect = seed.copy()
    moved = expect.reshape(-1)[0:2].copy()
    expect.reshape(-1)[0:2] = 0
    expect[1:3, 1] += moved
    np.testing.assert_array_equal(a.grad.numpy(), expect)
