"""Gradients through per-lane tile writes in cooperative CPU blocks (``wp.config.enable_cpu_blocks``):
``t[lane] = x`` (the last lane writing an element wins), ``t[i] += x`` (every lane's value adds),
against central finite differences of the same launches (float64)."""

import numpy as np
import pytest

import warp_interactive as wp

N = 8


@pytest.fixture(autouse=True)
def cpu_blocks():
    old = wp.config.enable_cpu_blocks
    wp.config.enable_cpu_blocks = True
    yield
    wp.config.enable_cpu_blocks = old


@wp.kernel
def lane_writes(x: wp.array(dtype=wp.float64), w: wp.array(dtype=wp.float64), y: wp.array(dtype=wp.float64)):
    _, lane = wp.tid()
    t = wp.tile_load(w, shape=N)                  # a block-wide tile every lane changes
    t[lane] = x[lane] * x[lane] + t[lane]         # each lane writes its own element
    t[(lane + 1) % 3] = x[lane] * 2.0             # elements 0..2 written by several lanes: the last wins
    u = wp.tile_zeros(shape=2, dtype=wp.float64)
    u[lane % 2] += x[lane] * w[lane]              # every lane's value adds
    s = wp.tile_sum(t * t) + wp.tile_sum(u * u)
    wp.tile_store(y, s)


def run(x_np, w_np, requires_grad=False):
    x = wp.array(x_np, dtype=wp.float64, requires_grad=requires_grad)
    w = wp.array(w_np, dtype=wp.float64, requires_grad=requires_grad)
    y = wp.zeros(1, dtype=wp.float64, requires_grad=requires_grad)
    wp.launch_tiled(lane_writes, dim=1, inputs=[x, w, y], block_dim=N, device="cpu")
    return x, w, y


def reference(x, w):
    """The block's result, lanes in order (warp-lang's shared tile)."""
    t = w.copy()
    for lane in range(N):
        t[lane] = x[lane] * x[lane] + w[lane]
    for lane in range(N):
        t[(lane + 1) % 3] = x[lane] * 2.0
    u = np.zeros(2)
    for lane in range(N):
        u[lane % 2] += x[lane] * w[lane]
    return (t * t).sum() + (u * u).sum()


def test_gradients_through_per_lane_writes():
    rng = np.random.default_rng(3)
    x_np, w_np = rng.uniform(-1, 1, N), rng.uniform(-1, 1, N)
    _, _, y = run(x_np, w_np)
    np.testing.assert_allclose(y.numpy()[0], reference(x_np, w_np), rtol=1e-12)
    tape = wp.Tape()
    with tape:
        x, w, y = run(x_np, w_np, requires_grad=True)
    tape.backward(y)
    eps = 1e-6
    for value, arr in ((x_np, x), (w_np, w)):
        fd = np.zeros(N)
        for i in range(N):
            hi, lo = value.copy(), value.copy()
            hi[i] += eps
            lo[i] -= eps
            args_hi = (hi, w_np) if value is x_np else (x_np, hi)
            args_lo = (lo, w_np) if value is x_np else (x_np, lo)
            fd[i] = (reference(*args_hi) - reference(*args_lo)) / (2 * eps)
        np.testing.assert_allclose(arr.grad.numpy(), fd, rtol=1e-6, atol=1e-9)


# --- random tiles: lane t of a block hashes state + t and draws its elements (k % width == t) ----
@wp.kernel
def random_tiles(seed: int, ints: wp.array2d(dtype=int), floats: wp.array2d(dtype=float)):
    i, _ = wp.tid()
    rng = wp.rand_init(seed, i)
    wp.tile_store(ints[i], wp.tile_randi(shape=(12,), rng=rng, min=-50, max=50))
    wp.tile_store(floats[i], wp.tile_randf(shape=(12,), rng=rng))


@wp.kernel
def random_reference(seed: int, width: int, ints: wp.array2d(dtype=int), floats: wp.array2d(dtype=float)):
    i = wp.tid()
    rng = wp.rand_init(seed, i)
    for t in range(width):
        s = wp.rand_init(int(rng + wp.uint32(t)))
        f = wp.rand_init(int(rng + wp.uint32(t)))
        k = t
        while k < 12:
            ints[i, k] = wp.randi(s, -50, 50)
            floats[i, k] = wp.randf(f)
            k += width


@pytest.mark.parametrize("block_dim", [1, 4, 5, 16])
def test_random_tiles_draw_one_stream_per_lane(block_dim):
    got = wp.zeros((3, 12), dtype=int), wp.zeros((3, 12), dtype=float)
    wp.launch_tiled(random_tiles, dim=3, inputs=[7, *got], block_dim=block_dim, device="cpu")
    want = wp.zeros((3, 12), dtype=int), wp.zeros((3, 12), dtype=float)
    wp.launch(random_reference, dim=3, inputs=[7, block_dim, *want], device="cpu")
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g.numpy(), w.numpy())


# --- tile_from_thread: lane k's value in every lane; its gradient is the block's, in lane k -------
@wp.kernel
def from_thread(x: wp.array(dtype=wp.float64), k: int, y: wp.array(dtype=wp.float64)):
    _, lane = wp.tid()
    t = wp.tile_from_thread(shape=(3,), value=x[lane] * x[lane], thread_idx=k)
    u = wp.tile_load(x, shape=3)
    wp.tile_store(y, wp.tile_sum(t * u))


@pytest.mark.parametrize("k", [0, 5])
def test_gradient_of_tile_from_thread(k):
    x_np = np.linspace(-1.0, 1.5, N)
    tape = wp.Tape()
    with tape:
        x = wp.array(x_np, dtype=wp.float64, requires_grad=True)
        y = wp.zeros(1, dtype=wp.float64, requires_grad=True)
        wp.launch_tiled(from_thread, dim=1, inputs=[x, k, y], block_dim=N, device="cpu")
    tape.backward(y)
    # y = x_k^2 * (x_0 + x_1 + x_2)
    np.testing.assert_allclose(y.numpy()[0], x_np[k] ** 2 * x_np[:3].sum(), rtol=1e-12)
    want = np.zeros(N)
    want[:3] += x_np[k] ** 2
    want[k] += 2 * x_np[k] * x_np[:3].sum()
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-12)
