"""Cooperative CPU blocks (warp-lang's ``wp.config.enable_cpu_blocks``): a tiled launch's block
runs its ``block_dim`` lanes, each with its own ``wp.tid()``; ``wp.tile(x)`` gathers one value per
lane, ``wp.untile`` gives each lane its element, memory writes of tiles happen once per block.
Each kernel runs with the flag on and off, against NumPy / per-lane brute force."""

import numpy as np
import pytest

import warp_interactive as wp

WIDTHS = [1, 4, 7, 32]
BLOCKS = 3


@pytest.fixture(params=[True, False], ids=["blocks", "one_lane"])
def cpu_blocks(request):
    old = wp.config.enable_cpu_blocks
    wp.config.enable_cpu_blocks = request.param
    yield request.param
    wp.config.enable_cpu_blocks = old


def width_of(block_dim, enabled):
    return block_dim if enabled else 1


@wp.kernel
def lanes_basic(dims: wp.array2d(dtype=int), flat: wp.array(dtype=int), sums: wp.array(dtype=float),
                signed: wp.array2d(dtype=float), loops: wp.array(dtype=float)):
    i, lane = wp.tid()
    single = wp.tid()
    w = wp.block_dim()
    dims[i, lane] = w
    flat[i * w + lane] = single
    t = wp.tile(float(lane + 10 * i))
    sums[i] = wp.tile_sum(t)[0]
    u = wp.untile(t * 2.0)
    if lane % 2 == 0:          # per-lane branches and loops between block-wide operations
        signed[i, lane] = u
    else:
        signed[i, lane] = -u
    acc = float(0.0)
    for k in range(lane + 1):
        acc += float(k)
    loops[i] = wp.tile_max(wp.tile(acc))[0]


@pytest.mark.parametrize("block_dim", WIDTHS)
def test_tid_tile_untile_per_lane(cpu_blocks, block_dim):
    w = width_of(block_dim, cpu_blocks)
    dims = wp.zeros((BLOCKS, w), dtype=int)
    flat = wp.zeros(BLOCKS * w, dtype=int)
    sums, loops = wp.zeros(BLOCKS, dtype=float), wp.zeros(BLOCKS, dtype=float)
    signed = wp.zeros((BLOCKS, w), dtype=float)
    wp.launch_tiled(lanes_basic, dim=[BLOCKS], inputs=[dims, flat, sums, signed, loops], block_dim=block_dim,
                    device="cpu")
    lane, blk = np.arange(w), np.arange(BLOCKS)[:, None]
    vals = (lane + 10 * blk).astype(np.float32)
    np.testing.assert_array_equal(dims.numpy(), np.full((BLOCKS, w), w))
    np.testing.assert_array_equal(flat.numpy(), np.repeat(np.arange(BLOCKS), w))   # the block index
    np.testing.assert_array_equal(sums.numpy(), vals.sum(axis=1))
    np.testing.assert_array_equal(signed.numpy(), np.where(lane % 2 == 0, 2 * vals, -2 * vals))
    np.testing.assert_array_equal(loops.numpy(), np.full(BLOCKS, (w - 1) * w / 2))


@wp.kernel
def lanes_composite(vt: wp.array3d(dtype=float), mt: wp.array4d(dtype=float), back: wp.array2d(dtype=wp.vec3),
                    mback: wp.array2d(dtype=wp.mat22)):
    i, lane = wp.tid()
    x = float(lane)
    v = wp.vec3(x, 2.0 * x, float(i))
    tv = wp.tile(v)                                # shape (3, block_dim)
    wp.tile_store(vt[i], tv)
    m = wp.mat22(x, 1.0, float(i), -x)
    tm = wp.tile(m)                                # shape (2, 2, block_dim)
    wp.tile_store(mt[i], tm)
    back[i, lane] = wp.untile(tv + tv)
    mback[i, lane] = wp.untile(tm)


@pytest.mark.parametrize("block_dim", WIDTHS)
def test_vector_and_matrix_gathers(cpu_blocks, block_dim):
    w = width_of(block_dim, cpu_blocks)
    vt, mt = wp.zeros((BLOCKS, 3, w), dtype=float), wp.zeros((BLOCKS, 2, 2, w), dtype=float)
    back, mback = wp.zeros((BLOCKS, w), dtype=wp.vec3), wp.zeros((BLOCKS, w), dtype=wp.mat22)
    wp.launch_tiled(lanes_composite, dim=BLOCKS, inputs=[vt, mt, back, mback], block_dim=block_dim, device="cpu")
    lane = np.arange(w, dtype=np.float32)
    for i in range(BLOCKS):
        v = np.stack([lane, 2 * lane, np.full(w, i)])
        np.testing.assert_array_equal(vt.numpy()[i], v)
        np.testing.assert_array_equal(back.numpy()[i], 2 * v.T)
        m = np.array([[lane, np.ones(w)], [np.full(w, i), -lane]])
        np.testing.assert_array_equal(mt.numpy()[i], m)
        np.testing.assert_array_equal(mback.numpy()[i], m.transpose(2, 0, 1))


SRC_LANE = 3


@wp.kernel
def lanes_broadcast_atomic(x: wp.array(dtype=float), acc: wp.array(dtype=float), olds: wp.array2d(dtype=float),
                           bcast: wp.array2d(dtype=float), out: wp.array2d(dtype=float)):
    i, lane = wp.tid()
    w = wp.block_dim()
    b = wp.tile_from_thread(shape=(2,), value=float(lane * 100 + i), thread_idx=wp.min(SRC_LANE, w - 1))
    bcast[i, lane] = b[1]
    ones = wp.tile_ones(shape=(4,), dtype=float)
    old = wp.tile_atomic_add(acc, ones)            # once per block; every lane sees the old values
    olds[i, lane] = old[0]
    t = wp.tile_load(x, shape=(32,), offset=i * 32)
    out[i, lane] = t[lane] * 3.0                  # each lane reads its element of the shared load


@pytest.mark.parametrize("block_dim", WIDTHS)
def test_broadcast_atomic_and_load(cpu_blocks, block_dim):
    w = width_of(block_dim, cpu_blocks)
    rng = np.random.default_rng(block_dim)
    xs = rng.standard_normal(BLOCKS * 32).astype(np.float32)
    acc = wp.zeros(4, dtype=float)
    olds, bcast, out = (wp.zeros((BLOCKS, w), dtype=float) for _ in range(3))
    wp.launch_tiled(lanes_broadcast_atomic, dim=BLOCKS, inputs=[wp.array(xs), acc, olds, bcast, out],
                    block_dim=block_dim, device="cpu")
    src = min(SRC_LANE, w - 1)
    np.testing.assert_array_equal(bcast.numpy(), np.repeat(src * 100.0 + np.arange(BLOCKS)[:, None], w, 1))
    np.testing.assert_array_equal(acc.numpy(), np.full(4, BLOCKS))       # one add per block, not per lane
    # blocks run in some order on the pool: each block saw a distinct count of earlier blocks
    per_block = olds.numpy()
    assert (per_block == per_block[:, :1]).all()
    assert sorted(per_block[:, 0]) == list(range(BLOCKS))
    np.testing.assert_allclose(out.numpy(), 3.0 * xs.reshape(BLOCKS, 32)[:, :w], rtol=1e-6)


CAP = 24


@wp.kernel
def lanes_stack(pushed: wp.array(dtype=int), counts: wp.array2d(dtype=int), popped: wp.array2d(dtype=int),
                slots: wp.array2d(dtype=int)):
    i, lane = wp.tid()
    s = wp.tile_stack(capacity=CAP, dtype=int)
    slot = wp.tile_stack_push(s, lane * 10, lane % 3 != 1)       # lanes 1, 4, 7... push nothing
    if slot >= 0:
        pushed[slot] = lane * 10
    counts[i, lane] = wp.tile_stack_count(s)
    v, pslot = wp.tile_stack_pop(s)
    popped[i, lane] = v
    slots[i, lane] = pslot
    counts[i + 1, lane] = wp.tile_stack_count(s)


@pytest.mark.parametrize("block_dim", WIDTHS + [64])
def test_stack_push_pop_per_lane(cpu_blocks, block_dim):
    """Pushes append the pushing lanes' values in lane order up to the capacity; a pop gives lane l
    the element at count - 1 - l (every lane pops); every lane sees the same count."""
    w = width_of(block_dim, cpu_blocks)
    pushed = wp.full(CAP, -1, dtype=int)
    counts, popped, slots = wp.zeros((2, w), dtype=int), wp.zeros((1, w), dtype=int), wp.zeros((1, w), dtype=int)
    wp.launch_tiled(lanes_stack, dim=1, inputs=[pushed, counts, popped, slots], block_dim=block_dim, device="cpu")
    stack = [lane * 10 for lane in range(w) if lane % 3 != 1][:CAP]
    np.testing.assert_array_equal(pushed.numpy(), stack + [-1] * (CAP - len(stack)))
    after = max(0, len(stack) - w)
    np.testing.assert_array_equal(counts.numpy(), [[len(stack)] * w, [after] * w])
    want_slots = [len(stack) - 1 - lane if len(stack) - 1 - lane >= 0 else -1 for lane in range(w)]
    np.testing.assert_array_equal(slots.numpy()[0], want_slots)
    np.testing.assert_array_equal(popped.numpy()[0], [stack[k] if k >= 0 else 0 for k in want_slots])


def test_bad_width():
    old = wp.config.enable_cpu_blocks
    try:
        wp.config.enable_cpu_blocks = True
        args = [wp.zeros((1, 4), dtype=int), wp.zeros(4, dtype=int), wp.zeros(1, dtype=float),
                wp.zeros((1, 4), dtype=float), wp.zeros(1, dtype=float)]
        with pytest.raises(ValueError, match="block_dim must be at most 1024 on CPU, got 2048"):
            wp.launch_tiled(lanes_basic, dim=1, inputs=args, block_dim=2048, device="cpu")
    finally:
        wp.config.enable_cpu_blocks = old


@wp.kernel
def lanes_writes(out: wp.array2d(dtype=float)):
    i, lane = wp.tid()
    t = wp.tile_zeros(shape=(40,), dtype=float)
    t[0] += float(lane + 1)                    # every lane adds (warp-lang's shared tile)
    t[lane + 1] = 5.0                          # every lane writes its own element
    u = wp.tile_zeros(shape=(40,), dtype=float)
    wp.tile_scatter_add(u, lane % 2, 1.0, True)
    wp.tile_scatter_masked(u, 2 + lane, float(lane), lane % 3 == 0)
    wp.tile_store(out[i], t + u * 100.0)


@pytest.mark.parametrize("block_dim", WIDTHS)
def test_per_lane_tile_writes(cpu_blocks, block_dim):
    w = width_of(block_dim, cpu_blocks)
    out = wp.zeros((BLOCKS, 40), dtype=float)
    wp.launch_tiled(lanes_writes, dim=BLOCKS, inputs=[out], block_dim=block_dim, device="cpu")
    t, u = np.zeros(40), np.zeros(40)
    for lane in range(w):       # brute force: the lanes' writes into one shared tile
        t[0] += lane + 1
        t[lane + 1] = 5.0
        u[lane % 2] += 1.0
        if lane % 3 == 0:
            u[2 + lane] = lane
    np.testing.assert_array_equal(out.numpy(), np.tile(t + 100 * u, (BLOCKS, 1)))


@wp.kernel
def lanes_plain_launch(out: wp.array(dtype=int), widths: wp.array(dtype=int)):
    i = wp.tid()
    widths[i] = wp.block_dim()
    out[i] = wp.tile_sum(wp.tile(i))[0]


@pytest.mark.parametrize("n", [1, 10, 12])
@pytest.mark.parametrize("block_dim", [None, 1, 4])
def test_plain_launch_blocks_of_consecutive_threads(cpu_blocks, n, block_dim):
    """wp.launch(..., block_dim=B): blocks of B consecutive threads, the last one partial (its
    missing lanes gather zero), as warp-lang; without block_dim (or the flag) one lane per block."""
    out, widths = wp.zeros(n, dtype=int), wp.zeros(n, dtype=int)
    wp.launch(lanes_plain_launch, dim=n, inputs=[out, widths], block_dim=block_dim, device="cpu")
    w = width_of(block_dim or 1, cpu_blocks)
    idx = np.arange(n)
    want = np.array([idx[(k // w) * w:(k // w + 1) * w].sum() for k in idx])
    np.testing.assert_array_equal(out.numpy(), want)
    np.testing.assert_array_equal(widths.numpy(), np.full(n, w))


@wp.kernel
def lanes_diverge(out: wp.array(dtype=float)):
    i, lane = wp.tid()
    if lane == 0:
        t = wp.tile(1.0 + float(lane))     # only lane 0 reaches the gather: the others have finished
        out[i] = wp.tile_sum(t)[0]


@wp.kernel
def lanes_return_early(out: wp.array(dtype=float), counts: wp.array(dtype=int)):
    i, lane = wp.tid()
    if lane % 3 == 0:
        return                             # these lanes leave the block (warp-lang's CPU blocks)
    t = wp.tile(float(lane + 1))
    out[i * wp.block_dim() + lane] = wp.tile_sum(t)[0]
    s = wp.tile_stack(capacity=8, dtype=int)
    wp.tile_stack_push(s, lane, True)
    counts[i * wp.block_dim() + lane] = wp.tile_stack_count(s)


def test_lanes_that_finished_have_left_the_block(capfd):
    """A lane that returned (or finished) before a block-wide operation takes no part in it, as in
    warp-lang (its tile/test_tile_stack sparse survivors): its gathered slot reads zero, it pushes
    nothing, and no divergence is reported."""
    old = wp.config.enable_cpu_blocks
    try:
        wp.config.enable_cpu_blocks = True
        one = wp.zeros(2, dtype=float)
        wp.launch_tiled(lanes_diverge, dim=2, inputs=[one], block_dim=4, device="cpu")
        out, counts = wp.zeros(16, dtype=float), wp.zeros(16, dtype=int)
        wp.launch_tiled(lanes_return_early, dim=2, inputs=[out, counts], block_dim=8, device="cpu")
    finally:
        wp.config.enable_cpu_blocks = old
    np.testing.assert_array_equal(one.numpy(), [1.0, 1.0])
    alive = np.array([lane % 3 != 0 for lane in range(8)] * 2)
    total = sum(lane + 1.0 for lane in range(8) if lane % 3 != 0)
    np.testing.assert_array_equal(out.numpy(), np.where(alive, total, 0.0))
    np.testing.assert_array_equal(counts.numpy(), np.where(alive, alive[:8].sum(), 0))
    assert "did not reach" not in capfd.readouterr().err


@wp.kernel
def lanes_grad(x: wp.array2d(dtype=float), xl: wp.array2d(dtype=float), loss: wp.array(dtype=float)):
    i, lane = wp.tid()
    t = wp.tile_load(x[i], shape=(32,))               # the block's row, loaded once
    v = t[lane % 32]
    y = wp.untile(wp.tile(v * v) * 3.0)              # this lane's 3 v^2
    z = wp.tile(y + xl[i, lane] * xl[i, lane])       # gathered again, per lane
    wp.atomic_add(loss, 0, wp.tile_sum(z)[0] / float(wp.block_dim()))    # each lane adds its share


@pytest.mark.parametrize("block_dim", [1, 4, 32])
def test_gradients_through_lanes(cpu_blocks, block_dim):
    """loss = sum over blocks and lanes of 3 x[i, l % 32]^2 + xl[i, l]^2: d/dx = 6 x (for each lane
    reading it), d/dxl = 2 xl; against the closed form (the tile load's adjoint runs once per block,
    untile's collects every lane's part)."""
    w = width_of(block_dim, cpu_blocks)
    rng = np.random.default_rng(block_dim)
    xn = rng.standard_normal((BLOCKS, 32)).astype(np.float32)
    xln = rng.standard_normal((BLOCKS, w)).astype(np.float32)
    x, xl = wp.array(xn, requires_grad=True), wp.array(xln, requires_grad=True)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch_tiled(lanes_grad, dim=BLOCKS, inputs=[x, xl, loss], block_dim=block_dim, device="cpu")
    np.testing.assert_allclose(loss.numpy()[0], (3 * xn[:, :w] ** 2).sum() + (xln ** 2).sum(), rtol=1e-5)
    tape.backward(loss)
    want = np.zeros_like(xn)
    want[:, :w] = 6 * xn[:, :w]
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(xl.grad.numpy(), 2 * xln, rtol=1e-5, atol=1e-6)
