"""``jax_kernel(..., block_dim=)``: a JAX call groups its threads into blocks as ``wp.launch(...,
block_dim=)`` does, as warp-lang's ``jax_kernel`` does: on the CPU the blocks cooperate with
``wp.config.enable_cpu_blocks`` (else one lane each), on CUDA (256 threads by default) a kernel
holding tiles runs cooperative blocks. Checked against NumPy, and against ``wp.launch`` with a
``wp.Tape`` of the same kernel (values and gradients); the CUDA side's launch configuration
without a GPU."""

import numpy as np
import pytest

import warp_interactive as wp

jax = pytest.importorskip("jax")
jp = pytest.importorskip("jax.numpy")

from warp_interactive.interop.jax_ffi import jax_kernel  # noqa: E402


@pytest.fixture(params=[False, True], ids=["one_lane", "cpu_blocks"])
def cpu_blocks(request):
    old = wp.config.enable_cpu_blocks
    wp.config.enable_cpu_blocks = request.param
    yield request.param
    wp.config.enable_cpu_blocks = old


@wp.kernel(module="unique")
def block_sums(x: wp.array(dtype=int), out: wp.array(dtype=int)):
    i = wp.tid()
    out[i] = 0
    wp.tile_store(out, wp.tile_sum(wp.tile(x[i])), offset=i)    # once per block, at its first thread


@wp.kernel(module="unique")
def scale_by_block_dim(a: wp.array(dtype=float), b: wp.array(dtype=float)):
    i = wp.tid()
    b[i] = a[i] * float(wp.block_dim())


def _block_sums_want(x, width):
    out = np.zeros_like(x)
    for first in range(0, len(x), width):
        out[first] = x[first:first + width].sum()    # a partial last block: its present lanes
    return out


@pytest.mark.parametrize("n,block_dim", [(256, 64), (256, 4), (250, 64), (13, 4), (40, None)])
def test_tile_block_sums(cpu_blocks, n, block_dim):
    x = np.arange(n, dtype=np.int32) * 3 - 7
    (out,) = jax.jit(jax_kernel(block_sums, block_dim=block_dim))(jp.asarray(x))
    width = block_dim if cpu_blocks and block_dim else 1
    np.testing.assert_array_equal(np.asarray(out), _block_sums_want(x, width))
    # the same as wp.launch(..., block_dim=)
    ref = wp.zeros(n, dtype=int)
    wp.launch(block_sums, dim=n, inputs=[wp.array(x), ref], block_dim=block_dim, device="cpu")
    np.testing.assert_array_equal(np.asarray(out), ref.numpy())


@pytest.mark.parametrize("block_dim", [None, 64, 128])
def test_block_dim_in_values_and_gradients(cpu_blocks, block_dim):
    x = np.arange(256, dtype=np.float32)
    f = jax_kernel(scale_by_block_dim, block_dim=block_dim)
    out = f(jp.asarray(x))[0]
    grad = jax.grad(lambda v: jp.sum(f(v)[0]))(jp.asarray(x))
    k = float(block_dim) if cpu_blocks and block_dim else 1.0
    np.testing.assert_allclose(np.asarray(out), x * k)
    np.testing.assert_allclose(np.asarray(grad), np.full(256, k, dtype=np.float32))


TILE = 8


@wp.kernel(module="unique")
def tiled_lanes(x: wp.array2d(dtype=float), xl: wp.array2d(dtype=float), y: wp.array2d(dtype=float)):
    i, lane = wp.tid()
    t = wp.tile_load(x[i], shape=TILE)
    v = t[lane % TILE] * xl[i, lane]
    s = wp.tile_sum(wp.tile(v * v))[0]                  # every lane's value (a cooperative block)
    y[i, lane] = s * t[(lane + 1) % TILE] + wp.sin(xl[i, lane])


@pytest.mark.parametrize("block_dim", [1, 4, 16])
def test_tiled_kernel_values_and_gradients_match_wp_launch(cpu_blocks, block_dim):
    """launch_dims=(blocks, block_dim), as warp-lang's tiled launches: the JAX call and its VJP give
    what wp.launch with the same block_dim and a wp.Tape give."""
    blocks = 3
    rng = np.random.default_rng(block_dim)
    xn, xln, gn = (rng.standard_normal(s).astype(np.float32) for s in ((blocks, TILE), (blocks, block_dim),
                                                                        (blocks, block_dim)))
    f = jax_kernel(tiled_lanes, launch_dims=(blocks, block_dim), block_dim=block_dim)
    out, vjp = jax.vjp(lambda a, b: f(a, b)[0], jp.asarray(xn), jp.asarray(xln))
    dx, dxl = vjp(jp.asarray(gn))
    x, xl = wp.array(xn, requires_grad=True), wp.array(xln, requires_grad=True)
    y = wp.zeros((blocks, block_dim), dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(tiled_lanes, dim=(blocks, block_dim), inputs=[x, xl, y], block_dim=block_dim, device="cpu")
    tape.backward(grads={y: wp.array(gn)})
    np.testing.assert_allclose(np.asarray(out), y.numpy(), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(np.asarray(dx), x.grad.numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(np.asarray(dxl), xl.grad.numpy(), rtol=1e-5, atol=1e-5)
    # NumPy: the sum covers the block's lanes when they cooperate, else the lane's own value
    width = block_dim if cpu_blocks else 1
    lanes = np.arange(block_dim)
    v = xn[:, lanes % TILE] * xln
    s = v ** 2 if width == 1 else np.repeat((v ** 2).sum(axis=1, keepdims=True), block_dim, axis=1)
    want = s * xn[:, (lanes + 1) % TILE] + np.sin(xln)
    np.testing.assert_allclose(np.asarray(out), want, rtol=1e-5, atol=1e-5)


def test_block_dim_errors():
    with pytest.raises(TypeError, match="block_dim must be an integer or None"):
        jax_kernel(scale_by_block_dim, block_dim=True)
    with pytest.raises(TypeError, match="block_dim must be an integer or None"):
        jax_kernel(scale_by_block_dim, block_dim=2.0)
    with pytest.raises(ValueError, match="block_dim must be positive"):
        jax_kernel(scale_by_block_dim, block_dim=0)
    old = wp.config.enable_cpu_blocks
    wp.config.enable_cpu_blocks = True
    try:
        with pytest.raises(ValueError, match="block_dim must be at most 1024 on CPU, got 2048"):
            jax_kernel(scale_by_block_dim, block_dim=2048)(jp.zeros(4, dtype=jp.float32))
    finally:
        wp.config.enable_cpu_blocks = old


# --- CUDA: which build and block size a call lowers with (no GPU needed) ---------------------------
@pytest.mark.parametrize("block_dim,block", [(None, 256), (64, 64), (1, 1)])
def test_cuda_launch_configuration(block_dim, block):
    """On CUDA a kernel holding tiles runs its build for cooperative blocks of block_dim lanes
    (default wp.config.cuda_block_dim, 256), with the blocks' shared scratch; a kernel without tiles
    its one-lane build, block_dim threads per block."""
    f = jax_kernel(block_sums, block_dim=block_dim)
    kernel, threads, width = f._launched(cuda=True)
    assert threads == block and width == (block if block > 1 else 1)
    assert kernel is (block_sums.with_block_width(block) if block > 1 else block_sums)
    g = jax_kernel(scale_by_block_dim, block_dim=block_dim)
    kernel, threads, width = g._launched(cuda=True)
    assert (kernel, threads, width) == (scale_by_block_dim, block, 1)
    with pytest.raises(ValueError, match="between 1 and 1024 on CUDA"):
        jax_kernel(block_sums, block_dim=2048)._launched(cuda=True)
