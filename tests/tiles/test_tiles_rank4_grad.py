"""Element reads and writes of 4-d tiles (``t[i, j, k, l]``, also of matrices and their rows) and
their adjoints, against NumPy and central finite differences (warp-lang's tile_load_extract and
tile_composite_row files build such kernels' backward code)."""

import numpy as np
import pytest

import warp_interactive as wp

S = (2, 3, 2, 2)


@wp.kernel
def read_write_4d(a: wp.array4d(dtype=wp.float64), idx: wp.array2d(dtype=int), out: wp.array(dtype=wp.float64),
                  back: wp.array4d(dtype=wp.float64)):
    t = wp.tile_load(a, shape=S)
    for n in range(idx.shape[0]):
        i, j, k, l = idx[n, 0], idx[n, 1], idx[n, 2], idx[n, 3]
        x = t[i, j, k, l]
        out[n] = x * x
        t[i, j, k, l] = x * 3.0 + 1.0
    wp.tile_store(back, t)


@wp.kernel
def mat_rows_4d(a: wp.array4d(dtype=wp.mat22d), out: wp.array(dtype=wp.vec2d), back: wp.array4d(dtype=wp.mat22d)):
    t = wp.tile_load(a, shape=(2, 2, 2, 2))
    r = t[1, 0, 1, 1][1]
    out[0] = r * 2.0
    m = t[0, 1, 0, 1]
    m[0] = wp.vec2d(r[1], r[0] * r[0])
    t[0, 1, 0, 1] = m
    wp.tile_store(back, t)


IDX = np.array([[0, 0, 0, 0], [1, 2, 1, 1], [0, 1, 1, 0], [1, 2, 1, 1]], dtype=np.int32)


def run_read_write(a_np, requires_grad=False):
    a = wp.array(a_np, dtype=wp.float64, requires_grad=requires_grad)
    out = wp.zeros(len(IDX), dtype=wp.float64, requires_grad=requires_grad)
    back = wp.zeros(S, dtype=wp.float64, requires_grad=requires_grad)
    wp.launch_tiled(read_write_4d, dim=1, inputs=[a, wp.array(IDX), out, back], block_dim=4, device="cpu")
    return a, out, back


def reference(a_np):
    t = a_np.copy()
    out = []
    for i, j, k, l in IDX:
        x = t[i, j, k, l]
        out.append(x * x)
        t[i, j, k, l] = x * 3.0 + 1.0
    return np.array(out), t


def test_rank4_reads_writes_and_their_adjoints():
    rng = np.random.default_rng(5)
    a_np = rng.uniform(-1, 1, S)
    w_out, w_back = rng.uniform(-1, 1, len(IDX)), rng.uniform(-1, 1, S)
    _, out, back = run_read_write(a_np)
    want_out, want_back = reference(a_np)
    np.testing.assert_allclose(out.numpy(), want_out, rtol=1e-12)
    np.testing.assert_allclose(back.numpy(), want_back, rtol=1e-12)

    tape = wp.Tape()
    with tape:
        a, out, back = run_read_write(a_np, requires_grad=True)
    out.grad = wp.array(w_out, dtype=wp.float64)
    back.grad = wp.array(w_back, dtype=wp.float64)
    tape.backward()

    def loss(x):
        o, b = reference(x)
        return (w_out * o).sum() + (w_back * b).sum()

    fd = np.zeros_like(a_np)
    eps = 1e-6
    for ix in np.ndindex(S):
        hi, lo = a_np.copy(), a_np.copy()
        hi[ix] += eps
        lo[ix] -= eps
        fd[ix] = (loss(hi) - loss(lo)) / (2 * eps)
    np.testing.assert_allclose(a.grad.numpy(), fd, rtol=1e-6, atol=1e-9)


def test_rank4_matrix_rows_and_their_adjoints():
    rng = np.random.default_rng(9)
    a_np = rng.uniform(-1, 1, (2, 2, 2, 2, 2, 2))
    w_out, w_back = rng.uniform(-1, 1, 2), rng.uniform(-1, 1, a_np.shape)

    def reference_rows(x):
        r = x[1, 0, 1, 1][1].copy()
        b = x.copy()
        b[0, 1, 0, 1][0] = [r[1], r[0] * r[0]]
        return r * 2.0, b

    def launch(x, requires_grad=False):
        a = wp.array(x, dtype=wp.mat22d, requires_grad=requires_grad)
        out = wp.zeros(1, dtype=wp.vec2d, requires_grad=requires_grad)
        back = wp.zeros((2, 2, 2, 2), dtype=wp.mat22d, requires_grad=requires_grad)
        wp.launch_tiled(mat_rows_4d, dim=1, inputs=[a, out, back], block_dim=4, device="cpu")
        return a, out, back

    _, out, back = launch(a_np)
    want_out, want_back = reference_rows(a_np)
    np.testing.assert_allclose(out.numpy()[0], want_out, rtol=1e-12)
    np.testing.assert_allclose(back.numpy(), want_back, rtol=1e-12)

    tape = wp.Tape()
    with tape:
        a, out, back = launch(a_np, requires_grad=True)
    out.grad = wp.array(w_out[None, :], dtype=wp.vec2d)
    back.grad = wp.array(w_back, dtype=wp.mat22d)
    tape.backward()

    def loss(x):
        o, b = reference_rows(x)
        return (w_out * o).sum() + (w_back * b).sum()

    fd = np.zeros_like(a_np)
    eps = 1e-6
    for ix in np.ndindex(a_np.shape):
        hi, lo = a_np.copy(), a_np.copy()
        hi[ix] += eps
        lo[ix] -= eps
        fd[ix] = (loss(hi) - loss(lo)) / (2 * eps)
    np.testing.assert_allclose(a.grad.numpy(), fd, rtol=1e-6, atol=1e-9)
