"""Tile semantics checked against warp-lang 1.19 (values computed by running warp-lang on this
CPU) and against the scalar builtins they are defined by: random tiles' streams, ``len()`` of
a tile in ``wp.static``."""

import numpy as np
import pytest

import warp_interactive as wp


@wp.kernel
def random_tiles(seed: int, x: wp.array(dtype=int), y: wp.array(dtype=float), z: wp.array(dtype=int)):
    i = wp.tid()
    rng = wp.rand_init(seed, i)
    wp.tile_store(x, wp.tile_randi(shape=4, rng=rng), offset=i * 4)
    wp.tile_store(y, wp.tile_randf(shape=4, rng=rng, min=-2.0, max=3.0), offset=i * 4)
    wp.tile_store(z, wp.tile_randi(shape=4, rng=rng, min=-7, max=9), offset=i * 4)


@wp.kernel
def random_scalars(seed: int, x: wp.array(dtype=int), y: wp.array(dtype=float), z: wp.array(dtype=int)):
    """The same streams from the scalar builtins: a block's thread (index 0) first hashes its
    state (rand_init(s) is that hash), then element k draws the (k+1)-th value."""
    i = wp.tid()
    rng = wp.rand_init(seed, i)
    sx = wp.rand_init(wp.int32(rng))
    sy = wp.rand_init(wp.int32(rng))
    sz = wp.rand_init(wp.int32(rng))
    for k in range(4):
        x[i * 4 + k] = wp.randi(sx)
        y[i * 4 + k] = wp.randf(sy, -2.0, 3.0)
        z[i * 4 + k] = wp.randi(sz, -7, 9)


def _run(kernel, seed):
    out = [wp.zeros(8, dtype=int), wp.zeros(8, dtype=float), wp.zeros(8, dtype=int)]
    wp.launch_tiled(kernel, dim=2, inputs=[seed] + out, block_dim=1)
    return [a.numpy() for a in out]


def test_random_tiles_match_warp_lang_values():
    x, y, z = _run(random_tiles, 42)
    assert x.tolist() == [798497746, -1161279442, -169969590, -744808085,
                          -955788638, -592663987, -1145120241, -1771839996]
    np.testing.assert_allclose(y, [-1.0704264640808105, 1.6480927467346191, 2.8021292686462402,
                                   2.1329293251037598, 1.887315273284912, 2.3100481033325195,
                                   1.6669044494628906, 0.9373068809509277], rtol=1e-6)
    assert z.tolist() == [-5, 7, 3, 4, -5, 6, 8, -3]


@pytest.mark.parametrize("seed", [0, 1, 42, 12345, -7])
def test_random_tiles_are_the_scalar_streams(seed):
    for got, want in zip(_run(random_tiles, seed), _run(random_scalars, seed)):
        np.testing.assert_array_equal(got, want)


@wp.kernel
def static_len(out: wp.array(dtype=int)):
    t = wp.tile_zeros(shape=(3, 7), dtype=float)
    u = wp.tile_ones(shape=5, dtype=int)
    out[0] = wp.static(len(t))
    out[1] = wp.static(len(u) * 10)


def test_len_of_a_tile_in_static_is_its_first_dimension():
    out = wp.zeros(2, dtype=int)
    wp.launch_tiled(static_len, dim=1, inputs=[out], block_dim=1)
    assert out.numpy().tolist() == [3, 50]


# --- tile_astype: values as NumPy's astype, the gradient converted back to the source dtype -------
ASTYPE_DTYPES = [(wp.float64, np.float64), (wp.float32, np.float32), (wp.float16, np.float16),
                 (wp.int32, np.int32), (wp.int8, np.int8)]


def _astype_kernel(src, dst):
    def astype_loss(x: wp.array(dtype=src), y: wp.array(dtype=dst), w: wp.array(dtype=dst)):
        t = wp.tile_astype(wp.tile_load(x, shape=6), dtype=dst)
        wp.tile_store(y, t * wp.tile_load(w, shape=6))
    return wp.Kernel(astype_loss, key=f"astype_loss_{src.__name__}_{dst.__name__}")


@pytest.mark.parametrize("src", ASTYPE_DTYPES, ids=lambda d: d[0].__name__)
@pytest.mark.parametrize("dst", ASTYPE_DTYPES[:3], ids=lambda d: d[0].__name__)
def test_tile_astype_values_and_gradient(src, dst):
    (wsrc, nsrc), (wdst, ndst) = src, dst
    values = np.array([-3.0, -1.0, 0.0, 1.0, 2.0, 7.0]) + (0.25 if np.dtype(nsrc).kind == "f" else 0.0)
    weights = np.array([0.5, -1.0, 2.0, 0.25, -0.75, 1.5])
    x = wp.array(values.astype(nsrc), dtype=wsrc, requires_grad=True)
    w = wp.array(weights.astype(ndst), dtype=wdst)
    y = wp.zeros(6, dtype=wdst, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch_tiled(_astype_kernel(wsrc, wdst), dim=1, inputs=[x, y, w], block_dim=1)
    expected = values.astype(nsrc).astype(ndst) * weights.astype(ndst)
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-3 if ndst == np.float16 else 1e-6)
    y.grad = wp.ones_like(y)
    tape.backward()
    if np.dtype(nsrc).kind == "f":      # d(astype(x) * w)/dx = w, in the source's precision
        np.testing.assert_allclose(x.grad.numpy(), weights.astype(ndst).astype(nsrc), rtol=1e-3)


# --- tile_assign of another scalar dtype converts (as warp-lang), the gradient flows back ----------
def _assign_kernel(src, dst):
    def assign_converted(x: wp.array2d(dtype=src), y: wp.array2d(dtype=dst)):
        dest = wp.tile_zeros(shape=(2, 3), dtype=dst)
        wp.tile_assign(dest, wp.tile_broadcast(wp.tile_load(x, shape=(1, 3)), shape=(2, 3)))
        wp.tile_store(y, dest)
    return wp.Kernel(assign_converted, key=f"assign_converted_{src.__name__}_{dst.__name__}")


@pytest.mark.parametrize("src, dst", [(wp.float64, wp.float32), (wp.float32, wp.float64),
                                      (wp.float16, wp.float64), (wp.int32, wp.float32),
                                      (wp.float32, wp.int32)], ids=lambda d: d.__name__)
def test_tile_assign_converts_scalar_dtypes(src, dst):
    values = np.array([[1.1, 2.7, -3.3]])
    nsrc, ndst = wp.dtype_to_numpy(src), wp.dtype_to_numpy(dst)
    differentiable = np.dtype(nsrc).kind == "f" and np.dtype(ndst).kind == "f"
    x = wp.array(values.astype(nsrc), dtype=src, requires_grad=differentiable)
    y = wp.zeros((2, 3), dtype=dst, requires_grad=differentiable)
    tape = wp.Tape()
    with tape:
        wp.launch_tiled(_assign_kernel(src, dst), dim=1, inputs=[x, y], block_dim=1)
    np.testing.assert_array_equal(y.numpy(), np.broadcast_to(values.astype(nsrc).astype(ndst), (2, 3)))
    if differentiable:
        y.grad = wp.array(np.array([[0.25, 0.5, 1.0], [1.25, 2.5, 4.0]]).astype(ndst), dtype=dst)
        tape.backward()
        np.testing.assert_array_equal(x.grad.numpy(), np.array([[1.5, 3.0, 5.0]], dtype=nsrc))
