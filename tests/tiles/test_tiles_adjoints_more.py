"""Adjoints of tile_fft/tile_ifft and tile_scatter_add/tile_scatter_masked, against NumPy's
conjugate-transposed DFT and central finite differences."""

import numpy as np
import pytest

import warp_interactive as wp

RNG = np.random.default_rng(11)


def _complex(a):
    return a[..., 0] + 1j * a[..., 1]


def _fft_kernel(shape, dt, inverse):
    @wp.kernel
    def k(x: wp.array(dtype=dt, ndim=len(shape)), y: wp.array(dtype=dt, ndim=len(shape))):
        t = wp.tile_load(x, shape=shape)
        if wp.static(inverse):
            wp.tile_ifft(t)
        else:
            wp.tile_fft(t)
        wp.tile_store(y, t)
    return k


@pytest.mark.parametrize("shape", [(2, 8), (3, 6), (2, 2, 16), (1, 5)])
@pytest.mark.parametrize("inverse", [False, True])
@pytest.mark.parametrize("dt,np_dt,tol", [(wp.vec2f, np.float32, 2e-5), (wp.vec2d, np.float64, 1e-12)])
def test_fft_adjoint_is_the_conjugate_transpose(shape, inverse, dt, np_dt, tol):
    """d fft = n * ifft (NumPy's normalised ifft), d ifft = fft: warp-lang's documented adjoints."""
    k = _fft_kernel(shape, dt, inverse)
    n = shape[-1]
    x = RNG.standard_normal(shape + (2,)).astype(np_dt)
    g = RNG.standard_normal(shape + (2,)).astype(np_dt)
    xa = wp.array(x, dtype=dt, requires_grad=True)
    ya = wp.zeros(shape, dtype=dt, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch_tiled(k, dim=1, inputs=[xa, ya], block_dim=16)
    fwd = np.fft.ifft(_complex(x), axis=-1) * n if inverse else np.fft.fft(_complex(x), axis=-1)
    np.testing.assert_allclose(_complex(ya.numpy()), fwd, atol=tol * n * 10)
    tape.backward(grads={ya: wp.array(g, dtype=dt)})
    want = np.fft.fft(_complex(g), axis=-1) if inverse else np.fft.ifft(_complex(g), axis=-1) * n
    np.testing.assert_allclose(_complex(xa.grad.numpy()), want, atol=tol * n * 10)


def _loss_grad_fd(kernel, inputs, x, eps=1e-6):
    """Central finite differences of loss[0] with respect to every element of x (float64)."""
    flat = x.reshape(-1)
    grad = np.zeros_like(flat)
    for i in range(flat.size):
        vals = []
        for s in (1, -1):
            p = flat.copy()
            p[i] += s * eps
            loss = wp.zeros(1, dtype=wp.float64)
            wp.launch_tiled(kernel, dim=1, inputs=[wp.array(p.reshape(x.shape), dtype=wp.float64)] + inputs + [loss],
                            block_dim=8)
            vals.append(loss.numpy()[0])
        grad[i] = (vals[0] - vals[1]) / (2 * eps)
    return grad.reshape(x.shape)


@wp.kernel
def scatter_chain(x: wp.array(dtype=wp.float64), idx: wp.array(dtype=int), loss: wp.array(dtype=wp.float64)):
    t = wp.tile_load(x, shape=6)
    w = wp.tile_load(x, shape=6, offset=6)
    v = x[12]
    wp.tile_scatter_add(t, idx[0], v * v, True)
    wp.tile_scatter_add(t, idx[1], v * 3.0, idx[1] > 2)
    wp.tile_scatter_masked(w, idx[2], wp.sin(v), True)
    wp.tile_scatter_masked(w, idx[3], v, False)
    wp.tile_store(loss, wp.tile_sum(wp.tile_map(wp.mul, t, w) + t * t))


@wp.kernel
def scatter_chain_2d(x: wp.array2d(dtype=wp.float64), idx: wp.array(dtype=int), loss: wp.array(dtype=wp.float64)):
    t = wp.tile_load(x, shape=(3, 4))
    v = x[0, 1]
    wp.tile_scatter_masked(t, idx[0], idx[1], v * v, True)
    wp.tile_scatter_add(t, idx[2], idx[3], 2.0 * v, True)
    wp.tile_store(loss, wp.tile_sum(t * t))


@pytest.mark.parametrize("kernel,shape,idx", [
    (scatter_chain, (13,), [2, 4, 1, 1]),
    (scatter_chain, (13,), [5, 1, 3, 3]),      # has_value false for the second add
    (scatter_chain, (13,), [0, 0, 0, 0]),      # same element twice
    (scatter_chain_2d, (3, 4), [1, 2, 1, 2]),  # the add lands on the masked write
    (scatter_chain_2d, (3, 4), [0, 1, 2, 3]),  # overwrites the element v is read from
])
def test_scatter_adjoints_match_finite_differences(kernel, shape, idx):
    x = RNG.standard_normal(shape)
    ia = wp.array(np.array(idx, dtype=np.int32))
    xa = wp.array(x, dtype=wp.float64, requires_grad=True)
    loss = wp.zeros(1, dtype=wp.float64, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch_tiled(kernel, dim=1, inputs=[xa, ia, loss], block_dim=8)
    tape.backward(loss=loss)
    np.testing.assert_allclose(xa.grad.numpy(), _loss_grad_fd(kernel, [ia], x), rtol=1e-6, atol=1e-7)
