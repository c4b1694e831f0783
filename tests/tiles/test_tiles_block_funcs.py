"""Block-wide tile primitives inside @wp.funcs (``wp.tile``, ``wp.untile``, ``wp.tile_from_thread``,
per-lane writes into a tile parameter), called from tiled kernels, nested and from branches: in
cooperative blocks (``wp.config.enable_cpu_blocks``, and the CUDA build: the same body text) the
function gathers every lane of the block, as warp-lang's does, not one lane (a function was
translated once, for one-lane blocks). Against NumPy over the blocks, gradients against central
finite differences of the same reference (float64)."""

from typing import Any

import numpy as np
import pytest

import warp_interactive as wp
from warp_interactive.codegen.module_source import generate_source
from warp_interactive.lang import lower
from warp_interactive.codegen.target import CPU, CUDA

B = 8            # block_dim of the launches
BLOCKS = 3
F64 = wp.float64


@pytest.fixture(params=[True, False], ids=["blocks", "one_lane"])
def width(request):
    """The lanes a block has: ``B`` with cooperative CPU blocks, else 1 (warp-lang's CPU default)."""
    old = wp.config.enable_cpu_blocks
    wp.config.enable_cpu_blocks = request.param
    yield B if request.param else 1
    wp.config.enable_cpu_blocks = old


@wp.func
def block_sum(x: F64):
    return wp.tile_sum(wp.tile(x))[0]


@wp.func
def twice_block_sum(x: F64):           # a function calling one that gathers
    return block_sum(x) * F64(2.0)


@wp.func
def scaled_by_block_sum(x: F64):       # gather, a block-uniform reduction, each lane's element back
    t = wp.tile(x)
    s = wp.tile_sum(t)
    return wp.untile(t * s[0])


@wp.func
def lane_of(t: Any):          # a tile parameter read back per lane
    return wp.untile(t * t)


@wp.func
def square(x: F64):                    # no tiles: one translation for every block width
    return x * x


@wp.func
def from_lane(x: F64, k: int):
    return wp.tile_sum(wp.tile_from_thread(shape=(4,), value=x, thread_idx=k))[0]


@wp.func
def write_lane(t: wp.tile[F64, B], lane: int, v: F64):   # a per-lane write into the caller's tile
    t[lane % B] = v


@wp.kernel
def gathers(x: wp.array(dtype=F64), flag: int, nested: wp.array(dtype=F64), scaled: wp.array(dtype=F64),
            branch: wp.array(dtype=F64), untiled: wp.array(dtype=F64), picked: wp.array(dtype=F64)):
    i, lane = wp.tid()
    k = i * wp.block_dim() + lane
    nested[k] = twice_block_sum(x[k])
    scaled[k] = scaled_by_block_sum(x[k])
    s = x[k]
    if flag == 1:                      # a branch every lane of the block takes alike
        s = block_sum(x[k])
    branch[k] = s
    untiled[k] = lane_of(wp.tile(x[k])) - square(x[k])
    picked[k] = from_lane(x[k], wp.block_dim() - 1)


def _blocks(xn, w):
    return xn.reshape(-1, w)


def _run_gathers(xn, w, flag):
    x = wp.array(xn, dtype=F64)
    outs = [wp.zeros(len(xn), dtype=F64) for _ in range(5)]
    wp.launch_tiled(gathers, dim=len(xn) // w, inputs=[x, flag] + outs, block_dim=B, device="cpu")
    return [o.numpy() for o in outs]


@pytest.mark.parametrize("flag", [0, 1])
def test_gathers_in_functions(width, flag):
    xn = np.random.default_rng(1).uniform(-1, 1, BLOCKS * width)
    nested, scaled, branch, untiled, picked = _run_gathers(xn, width, flag)
    blocks = _blocks(xn, width)
    sums = np.repeat(blocks.sum(axis=1), width)
    np.testing.assert_allclose(nested, 2.0 * sums, rtol=1e-12)
    np.testing.assert_allclose(scaled, xn * sums, rtol=1e-12)
    np.testing.assert_allclose(branch, sums if flag else xn, rtol=1e-12)
    np.testing.assert_allclose(untiled, 0.0 * xn, atol=1e-15)
    np.testing.assert_allclose(picked, 4.0 * np.repeat(blocks[:, -1], width), rtol=1e-12)


@wp.kernel
def grads(x: wp.array(dtype=F64), y: wp.array(dtype=F64)):
    i, lane = wp.tid()
    k = i * wp.block_dim() + lane
    y[k] = scaled_by_block_sum(x[k] * x[k]) + twice_block_sum(x[k])


def _grads_reference(xn, w):
    sq = _blocks(xn * xn, w)
    return (sq * sq.sum(axis=1, keepdims=True)).ravel() + 2.0 * np.repeat(_blocks(xn, w).sum(axis=1), w)


def test_gradients_through_gathering_functions(width):
    rng = np.random.default_rng(2)
    xn, weights = rng.uniform(-1, 1, BLOCKS * width), rng.uniform(-1, 1, BLOCKS * width)
    x = wp.array(xn, dtype=F64, requires_grad=True)
    y = wp.zeros(len(xn), dtype=F64, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch_tiled(grads, dim=BLOCKS, inputs=[x, y], block_dim=B, device="cpu")
    np.testing.assert_allclose(y.numpy(), _grads_reference(xn, width), rtol=1e-12)
    tape.backward(grads={y: wp.array(weights, dtype=F64)})
    eps, fd = 1e-6, np.zeros_like(xn)
    for j in range(len(xn)):
        hi, lo = xn.copy(), xn.copy()
        hi[j] += eps
        lo[j] -= eps
        fd[j] = weights @ (_grads_reference(hi, width) - _grads_reference(lo, width)) / (2 * eps)
    np.testing.assert_allclose(x.grad.numpy(), fd, rtol=1e-6, atol=1e-9)


@wp.kernel
def lane_writes(x: wp.array(dtype=F64), out: wp.array2d(dtype=F64)):
    i, lane = wp.tid()
    t = wp.tile_zeros(shape=(B,), dtype=F64)
    write_lane(t, lane, x[i * wp.block_dim() + lane])
    wp.tile_store(out[i], t)


def test_per_lane_writes_in_a_function(width):
    """Each lane writes its element of the caller's tile: the block's tile holds every lane's."""
    xn = np.random.default_rng(3).uniform(-1, 1, BLOCKS * width)
    out = wp.zeros((BLOCKS, B), dtype=F64)
    wp.launch_tiled(lane_writes, dim=BLOCKS, inputs=[wp.array(xn, dtype=F64), out], block_dim=B, device="cpu")
    want = np.zeros((BLOCKS, B))
    want[:, :width] = _blocks(xn, width)
    np.testing.assert_array_equal(out.numpy(), want)


def test_functions_are_translated_per_block_width():
    """A function with block-wide primitives gets a variant per width (``_bB``); one without tiles
    is shared; the one-lane build calls the plain one."""
    cooperative = gathers.with_block_width(4)
    names = {ov.name: ov.cpp for ov in cooperative.ir.calls}
    plain = {ov.name: ov.cpp for ov in gathers.ir.calls}
    for name in ("twice_block_sum", "scaled_by_block_sum", "block_sum", "from_lane"):
        assert names[name] == plain[name] + "_b4"
    assert names["lane_of"].endswith("_b4")    # (generic: its tile type is the width's)
    assert names["square"] == plain["square"]
    nested = next(ov for ov in cooperative.ir.calls if ov.name == "twice_block_sum")
    assert [c.cpp for c in nested.ir.calls] == [plain["block_sum"] + "_b4"]


@pytest.mark.parametrize("kernel", [gathers, grads, lane_writes], ids=lambda k: k.key)
def test_cuda_build_has_the_same_functions(kernel):
    """The CUDA cooperative build (same body text as the CPU blocks) calls the width's variants,
    whose text is the CPU's."""
    k = kernel.with_block_width(B)
    cpu, cuda = generate_source(lower([k]), CPU), generate_source(lower([k]), CUDA)
    variants = sorted({ov.cpp for ov in k.ir.calls if ov.cpp.endswith(f"_b{B}")})
    assert variants
    for name in variants:
        assert f" {name}(" in cuda
        start_cpu, start_cuda = cpu.index(f" {name}("), cuda.index(f" {name}(")
        body_cpu = cpu[cpu.index("{", start_cpu):cpu.index("\n}\n", start_cpu)]
        body_cuda = cuda[cuda.index("{", start_cuda):cuda.index("\n}\n", start_cuda)]
        assert body_cpu == body_cuda


FIRST = '''import warp_interactive as wp


@wp.func
def inner(x: float):
    return wp.tile_sum(wp.tile(x))[0]


@wp.func
def outer(x: float):
    return inner(x)


@wp.kernel
def k(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i, lane = wp.tid()
    out[i * wp.block_dim() + lane] = outer(a[i * wp.block_dim() + lane])
'''

SECOND = '''import warp_interactive as wp


@wp.func
def inner(x: float):
    return wp.tile_max(wp.tile(x))[0] * 10.0
'''


def test_redefined_callee_reaches_the_block_variants(tmp_path):
    """Redefining a function (a re-run notebook cell) retranslates the cooperative-block variants
    of its callers, which are translated without their one-lane forms."""
    import importlib.util
    first, second = tmp_path / "block_redefine.py", tmp_path / "block_redefine_2.py"
    first.write_text(FIRST)
    second.write_text(SECOND)
    spec = importlib.util.spec_from_file_location("block_redefine", first)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    a_np = np.arange(2 * B, dtype=np.float32)
    old = wp.config.enable_cpu_blocks
    wp.config.enable_cpu_blocks = True
    try:
        out = wp.zeros(2 * B, dtype=float)
        wp.launch_tiled(m.k, dim=2, inputs=[wp.array(a_np), out], block_dim=B, device="cpu")
        np.testing.assert_array_equal(out.numpy(), np.repeat(a_np.reshape(2, B).sum(axis=1), B))
        exec(compile(second.read_text(), str(second), "exec"), m.__dict__)     # inner, again
        wp.launch_tiled(m.k, dim=2, inputs=[wp.array(a_np), out], block_dim=B, device="cpu")
        np.testing.assert_array_equal(out.numpy(), np.repeat(a_np.reshape(2, B).max(axis=1) * 10.0, B))
    finally:
        wp.config.enable_cpu_blocks = old
