"""``wp.tile_broadcast`` of a shared tile is a view of its memory, as in warp-lang: the repeated
elements alias, so an additive in-place write into the broadcast (``tile_axpy``, ``+=``, ``-=``)
adds every row's change to the one element they share, a plain write leaves the last row's value,
and the broadcast and its tile read the result back. A broadcast of a register tile is a copy.
Checked against NumPy (a loop over the view's elements, warp-lang's shared-memory order) and
central finite differences."""

import numpy as np
import pytest

import warp_interactive as wp

ROWS, COLS = 3, 4


@wp.kernel
def axpy_into_broadcast(bias_in: wp.array(dtype=wp.float64), src_in: wp.array2d(dtype=wp.float64),
                        alpha: wp.float64, out: wp.array2d(dtype=wp.float64), bias_out: wp.array(dtype=wp.float64)):
    bias = wp.tile_load(bias_in, shape=COLS, storage="shared")
    dest = wp.tile_broadcast(bias, shape=(ROWS, COLS))
    src = wp.tile_load(src_in, shape=(ROWS, COLS))
    wp.tile_axpy(alpha, src, dest)
    wp.tile_store(out, dest)
    wp.tile_store(bias_out, bias)


@wp.kernel
def add_sub_into_broadcast(bias_in: wp.array(dtype=wp.float64), src_in: wp.array2d(dtype=wp.float64),
                           alpha: wp.float64, out: wp.array2d(dtype=wp.float64), bias_out: wp.array(dtype=wp.float64)):
    bias = wp.tile_load(bias_in, shape=COLS, storage="shared")
    dest = wp.tile_broadcast(bias, shape=(ROWS, COLS))
    src = wp.tile_load(src_in, shape=(ROWS, COLS))
    dest += src * alpha
    dest -= src
    wp.tile_store(out, dest)
    wp.tile_store(bias_out, bias)


@wp.kernel
def assign_into_broadcast(bias_in: wp.array(dtype=wp.float64), src_in: wp.array2d(dtype=wp.float64),
                          alpha: wp.float64, out: wp.array2d(dtype=wp.float64), bias_out: wp.array(dtype=wp.float64)):
    bias = wp.tile_load(bias_in, shape=COLS, storage="shared")
    dest = wp.tile_broadcast(bias, shape=(ROWS, COLS))
    src = wp.tile_load(src_in, shape=(ROWS, COLS))
    wp.tile_assign(dest, src * alpha)
    wp.tile_store(out, dest)
    wp.tile_store(bias_out, bias)


@wp.kernel
def axpy_into_register_broadcast(bias_in: wp.array(dtype=wp.float64), src_in: wp.array2d(dtype=wp.float64),
                                 alpha: wp.float64, out: wp.array2d(dtype=wp.float64),
                                 bias_out: wp.array(dtype=wp.float64)):
    bias = wp.tile_load(bias_in, shape=COLS, storage="register")
    dest = wp.tile_broadcast(bias, shape=(ROWS, COLS))
    src = wp.tile_load(src_in, shape=(ROWS, COLS))
    wp.tile_axpy(alpha, src, dest)
    wp.tile_store(out, dest)
    wp.tile_store(bias_out, bias)


def shared_memory_reference(kind, bias, src, alpha):
    """warp-lang's shared memory: one element per column, written by each view element in turn."""
    mem = bias.copy()
    for i in range(ROWS):
        for j in range(COLS):
            if kind == "axpy":
                mem[j] += alpha * src[i, j]
            elif kind == "add_sub":
                mem[j] += src[i, j] * alpha
            else:
                mem[j] = src[i, j] * alpha
    if kind == "add_sub":
        for i in range(ROWS):
            for j in range(COLS):
                mem[j] -= src[i, j]
    return np.broadcast_to(mem, (ROWS, COLS)), mem


KERNELS = {"axpy": axpy_into_broadcast, "add_sub": add_sub_into_broadcast, "assign": assign_into_broadcast}


def run(kernel, bias, src, alpha, requires_grad=False):
    arrays = [wp.array(bias, dtype=wp.float64, requires_grad=requires_grad),
              wp.array(src, dtype=wp.float64, requires_grad=requires_grad)]
    out = wp.zeros((ROWS, COLS), dtype=wp.float64, requires_grad=requires_grad)
    bias_out = wp.zeros(COLS, dtype=wp.float64, requires_grad=requires_grad)
    wp.launch_tiled(kernel, dim=1, inputs=arrays + [alpha, out, bias_out], block_dim=8, device="cpu")
    return arrays, out, bias_out


@pytest.mark.parametrize("kind", sorted(KERNELS))
@pytest.mark.parametrize("alpha", [1.0, -2.5])
def test_writes_into_a_shared_broadcast_alias(kind, alpha):
    rng = np.random.default_rng(7)
    bias, src = rng.uniform(-1, 1, COLS), rng.uniform(-1, 1, (ROWS, COLS))
    _, out, bias_out = run(KERNELS[kind], bias, src, alpha)
    want_view, want_mem = shared_memory_reference(kind, bias, src, alpha)
    np.testing.assert_allclose(out.numpy(), want_view, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(bias_out.numpy(), want_mem, rtol=1e-12, atol=1e-12)


def test_register_broadcast_is_a_copy():
    bias, src = np.arange(1.0, COLS + 1.0), np.ones((ROWS, COLS))
    _, out, bias_out = run(axpy_into_register_broadcast, bias, src, 1.0)
    np.testing.assert_array_equal(out.numpy(), np.broadcast_to(bias + 1.0, (ROWS, COLS)))
    np.testing.assert_array_equal(bias_out.numpy(), bias)


@pytest.mark.parametrize("kind", ["axpy", "add_sub"])
def test_gradients_through_the_alias(kind):
    """loss = sum(w * out) + sum(v * bias_out), against central finite differences."""
    rng = np.random.default_rng(11)
    bias, src, alpha = rng.uniform(-1, 1, COLS), rng.uniform(-1, 1, (ROWS, COLS)), 1.5
    w, v = rng.uniform(-1, 1, (ROWS, COLS)), rng.uniform(-1, 1, COLS)

    def loss(b, s):
        _, out, bias_out = run(KERNELS[kind], b, s, alpha)
        return float((w * out.numpy()).sum() + (v * bias_out.numpy()).sum())

    tape = wp.Tape()
    with tape:
        (b_arr, s_arr), out, bias_out = run(KERNELS[kind], bias, src, alpha, requires_grad=True)
    out.grad = wp.array(w, dtype=wp.float64)
    bias_out.grad = wp.array(v, dtype=wp.float64)
    tape.backward()
    eps = 1e-6
    for value, arr, which in ((bias, b_arr, 0), (src, s_arr, 1)):
        fd = np.zeros_like(value)
        for idx in np.ndindex(value.shape):
            hi, lo = value.copy(), value.copy()
            hi[idx] += eps
            lo[idx] -= eps
            args_hi = (hi, src) if which == 0 else (bias, hi)
            args_lo = (lo, src) if which == 0 else (bias, lo)
            fd[idx] = (loss(*args_hi) - loss(*args_lo)) / (2 * eps)
        np.testing.assert_allclose(arr.grad.numpy(), fd, rtol=1e-6, atol=1e-8)
