"""Replay statements the adjoint does not need (codegen/replay_prune.py): a tile loaded only to be
transformed linearly (FFT, transpose) and stored is not loaded and transformed again in the
backward's replay; a tile whose value an adjoint reads (a nonlinear map) still is. Gradients
against NumPy's, for the pruned and the kept kernels alike."""

import re

import numpy as np
import pytest

import warp_interactive as wp
from warp_interactive.codegen.module_source import generate_source
from warp_interactive.codegen.target import CPU
from warp_interactive.lang import lower

N = 16


@wp.kernel(module="replay_prune")
def rp_fft(x: wp.array2d(dtype=wp.vec2f), y: wp.array2d(dtype=wp.vec2f)):
    i, _ = wp.tid()
    t = wp.tile_load(x, shape=(1, N), offset=(i, 0))
    wp.tile_fft(t)
    wp.tile_store(y, t, offset=(i, 0))


@wp.kernel(module="replay_prune")
def rp_ifft(x: wp.array2d(dtype=wp.vec2f), y: wp.array2d(dtype=wp.vec2f)):
    i, _ = wp.tid()
    t = wp.tile_load(x, shape=(1, N), offset=(i, 0))
    wp.tile_ifft(t)
    wp.tile_store(y, t, offset=(i, 0))


@wp.kernel(module="replay_prune")
def rp_transpose(x: wp.array2d(dtype=float), y: wp.array2d(dtype=float)):
    i, j = wp.tid()
    t = wp.tile_load(x, shape=(4, 4), offset=(i * 4, j * 4))
    wp.tile_store(y, wp.tile_transpose(t), offset=(j * 4, i * 4))


@wp.kernel(module="replay_prune")
def rp_sin_of_transpose(x: wp.array2d(dtype=float), y: wp.array2d(dtype=float)):
    i, j = wp.tid()
    t = wp.tile_load(x, shape=(4, 4), offset=(i * 4, j * 4))
    wp.tile_store(y, wp.tile_map(wp.sin, wp.tile_transpose(t)), offset=(j * 4, i * 4))


@wp.kernel(module="replay_prune")
def rp_fft_and_sum(x: wp.array2d(dtype=wp.vec2f), y: wp.array2d(dtype=wp.vec2f), s: wp.array(dtype=wp.vec2f)):
    i, _ = wp.tid()
    t = wp.tile_load(x, shape=(1, N), offset=(i, 0))
    wp.tile_atomic_add(s, wp.tile_sum(t))     # the loaded tile has another reader: kept
    wp.tile_fft(t)
    wp.tile_store(y, t, offset=(i, 0))


def _backward_body(kernel):
    src = generate_source(lower([kernel]), CPU, backward=True)
    start = src.index(f"{kernel.cpp}_backward_body_nd(")
    body = src[start:src.index("\n}\n", start)]
    return [ln.split("//")[0].strip() for ln in body.splitlines()]


def _replayed(kernel, builtin):
    """How many times the backward body computes ``builtin`` (its forward form, not its adjoint)."""
    return sum(1 for ln in _backward_body(kernel) if re.search(rf"= wp::{builtin}\b", ln))


@pytest.mark.parametrize("kernel, builtin, replays", [
    (rp_fft, "tile_load", 0), (rp_fft, "tile_fft", 0),
    (rp_ifft, "tile_load", 0), (rp_ifft, "tile_ifft", 0),
    (rp_transpose, "tile_load", 0), (rp_transpose, "tile_gather", 0),
    (rp_sin_of_transpose, "tile_load", 1), (rp_sin_of_transpose, "tile_gather", 1),
    (rp_fft_and_sum, "tile_load", 1), (rp_fft_and_sum, "tile_fft", 0),
])
def test_replays_left_in_the_backward(kernel, builtin, replays):
    assert _replayed(kernel, builtin) == replays
    assert any(f"wp::adj_{builtin}" in ln for ln in _backward_body(kernel))   # the reverse is kept


def _complex(a):
    return a[..., 0].astype(np.float64) + 1j * a[..., 1]


@pytest.mark.parametrize("kernel, inverse_sign", [(rp_fft, 1), (rp_ifft, -1)])
def test_fft_gradients(kernel, inverse_sign):
    """d fft = unnormalised ifft of the output's adjoint, d ifft = unnormalised fft."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal((N, N, 2)).astype(np.float32)
    g = rng.standard_normal((N, N, 2)).astype(np.float32)
    X = wp.array(x, dtype=wp.vec2f, requires_grad=True)
    Y = wp.zeros((N, N), dtype=wp.vec2f, requires_grad=True)
    Y.grad.assign(g)
    wp.launch_tiled(kernel, dim=[N], inputs=[X], outputs=[Y], adj_inputs=[X.grad], adj_outputs=[Y.grad],
                    adjoint=True, block_dim=1)
    gc = _complex(g)
    expect = np.fft.ifft(gc, axis=1) * N if inverse_sign > 0 else np.fft.fft(gc, axis=1)
    np.testing.assert_allclose(_complex(X.grad.numpy()), expect, atol=1e-4)
    assert not Y.grad.numpy().any()


@pytest.mark.parametrize("kernel, dfdx", [(rp_transpose, lambda x: np.ones_like(x)), (rp_sin_of_transpose, np.cos)])
def test_transpose_gradients_through_a_tape(kernel, dfdx):
    """y = f(x^T) blockwise by 4x4 tiles of a 16x16 array is f of the whole transpose; with the
    loss sum(w * y), dx = dfdx(x) * w^T."""
    rng = np.random.default_rng(7)
    x = rng.standard_normal((N, N)).astype(np.float32)
    w = rng.standard_normal((N, N)).astype(np.float32)
    X = wp.array(x, requires_grad=True)
    Y = wp.zeros((N, N), dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch_tiled(kernel, dim=[N // 4, N // 4], inputs=[X], outputs=[Y], block_dim=1)
    tape.backward(grads={Y: wp.array(w)})
    np.testing.assert_allclose(Y.numpy(), (x if kernel is rp_transpose else np.sin(x)).T, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(X.grad.numpy(), dfdx(x.astype(np.float64)) * w.T, rtol=1e-5, atol=1e-6)


def test_gradient_when_the_loaded_tile_has_another_reader():
    rng = np.random.default_rng(9)
    x = rng.standard_normal((N, N, 2)).astype(np.float32)
    g = rng.standard_normal((N, N, 2)).astype(np.float32)
    gs = np.array([[0.5, -2.0]], dtype=np.float32)
    X = wp.array(x, dtype=wp.vec2f, requires_grad=True)
    Y = wp.zeros((N, N), dtype=wp.vec2f, requires_grad=True)
    S = wp.zeros(1, dtype=wp.vec2f, requires_grad=True)
    Y.grad.assign(g)
    S.grad.assign(gs)
    wp.launch_tiled(rp_fft_and_sum, dim=[N], inputs=[X], outputs=[Y, S], adj_inputs=[X.grad],
                    adj_outputs=[Y.grad, S.grad], adjoint=True, block_dim=1)
    expect = np.fft.ifft(_complex(g), axis=1) * N + _complex(gs)
    np.testing.assert_allclose(_complex(X.grad.numpy()), expect, atol=1e-4)
