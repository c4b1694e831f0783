"""Random tiles in cooperative blocks (CPU blocks with wp.config.enable_cpu_blocks; CUDA blocks
run the same code): as in warp-lang, the block's thread t draws elements t, t + W, t + 2W... from
the stream hash(rng + t), so element k is the (k // W + 1)-th value of stream k % W. Against the
scalar builtins (rand_init(s) is that hash) and values warp-lang 1.19 gives on this CPU."""

import numpy as np
import pytest

import warp_interactive as wp

N = 10


@pytest.fixture
def cpu_blocks():
    old = wp.config.enable_cpu_blocks
    wp.config.enable_cpu_blocks = True
    yield
    wp.config.enable_cpu_blocks = old


@wp.kernel
def random_tiles(seed: int, x: wp.array2d(dtype=float), y: wp.array2d(dtype=int)):
    i, lane = wp.tid()
    wp.tile_store(x[i], wp.tile_randf(shape=N, rng=wp.uint32(seed + i)))
    wp.tile_store(y[i], wp.tile_randi(shape=N, rng=wp.uint32(seed - 2), min=0, max=100))


@wp.kernel
def random_scalars(seed: int, width: int, x: wp.array2d(dtype=float), y: wp.array2d(dtype=int)):
    i = wp.tid()
    for k in range(N):
        sx = wp.rand_init(seed + i + k % width)
        sy = wp.rand_init(seed - 2 + k % width)
        vx, vy = float(0.0), int(0)
        for _ in range(k // width + 1):
            vx = wp.randf(sx)
            vy = wp.randi(sy, 0, 100)
        x[i, k] = vx
        y[i, k] = vy


def _tiles(seed, block_dim):
    x, y = wp.zeros((2, N), dtype=float), wp.zeros((2, N), dtype=int)
    wp.launch_tiled(random_tiles, dim=2, inputs=[seed, x, y], block_dim=block_dim, device="cpu")
    return x.numpy(), y.numpy()


@pytest.mark.parametrize("block_dim", [1, 3, 4, 16, 32])
@pytest.mark.parametrize("seed", [0, 7, 12345])
def test_random_tiles_are_the_lanes_streams(cpu_blocks, seed, block_dim):
    x, y = _tiles(seed, block_dim)
    wx, wy = wp.zeros((2, N), dtype=float), wp.zeros((2, N), dtype=int)
    wp.launch(random_scalars, dim=2, inputs=[seed, block_dim, wx, wy], device="cpu")
    np.testing.assert_array_equal(x, wx.numpy())
    np.testing.assert_array_equal(y, wy.numpy())


def test_random_tiles_match_warp_lang_cpu_blocks(cpu_blocks):
    """warp-lang 1.19, enable_cpu_blocks, block_dim=4, seed 7 (row 0; floats printed to 6 decimals)."""
    x, y = _tiles(7, 4)
    np.testing.assert_allclose(x[0], [0.5025460124015808, 0.1643020063638687, 0.22513799369335175,
                                      0.25029000639915466, 0.8771259784698486, 0.676796019077301,
                                      0.20024700462818146, 0.4210059940814972, 0.5601490139961243,
                                      0.9884390234947205], atol=1e-6)   # (printed to 6 decimals)
    assert y[0].tolist() == [73, 68, 37, 38, 50, 19, 87, 70, 67, 39]
