"""Cooperative CUDA blocks: a CUDA launch of a kernel with tiles runs ``block_dim`` GPU threads per
block, thread x being lane x, with the same generated body as cooperative CPU blocks (only the
block-wide primitives differ: native cuda_blocks.h). Without a GPU: the generated CUDA text (the
body is the CPU body, the entry's block loop), the launch configuration (grid, block and shared
memory of each launch, checked by running a model of the entry's loop), which kernels cooperate,
and NVRTC compiling the cooperative kernels for sm_90. With a GPU: results against cooperative CPU
blocks and NumPy."""

import re
import types

import numpy as np
import pytest

import warp_interactive as wp
from warp_interactive.codegen.module_source import generate_source
from warp_interactive.lang import lower
from warp_interactive.codegen.target import CPU, CUDA
from warp_interactive.runtime.cuda import modules as cuda_modules
from warp_interactive.runtime.launch import cuda_blocks

import tests.tiles.test_tiles_cpu_blocks as cpu_cases

from tests.conftest import requires_cuda

COOPERATIVE = [cpu_cases.lanes_basic, cpu_cases.lanes_composite, cpu_cases.lanes_broadcast_atomic,
               cpu_cases.lanes_stack, cpu_cases.lanes_writes, cpu_cases.lanes_plain_launch,
               cpu_cases.lanes_grad]


@wp.kernel
def plain_saxpy(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = 2.0 * x[i] + y[i]


def _function(source, name):
    """The text of the generated function ``name`` from its opening brace to its closing one."""
    start = source.index(f"{name}(")
    body = source.index("{", start)
    end = source.index("\n}\n", body)
    return source[body:end]


@pytest.mark.parametrize("width", [4, 32])
@pytest.mark.parametrize("kernel", COOPERATIVE, ids=lambda k: k.key)
def test_cuda_body_is_the_cpu_body(kernel, width):
    """The same per-lane body text on both targets: the CPU block tests validate the CUDA build's codegen."""
    k = kernel.with_block_width(width)
    cpu, cuda = generate_source(lower([k]), CPU), generate_source(lower([k]), CUDA)
    for which in ("forward", "backward"):
        name = f"{k.cpp}_{which}_body"
        assert _function(cpu, name) == _function(cuda, name)


@pytest.mark.parametrize("width", [4, 256, 1024])
def test_cuda_block_entry_text(width):
    k = cpu_cases.lanes_basic.with_block_width(width)
    src = generate_source(lower([k]), CUDA)
    for which in ("forward", "backward"):
        entry = src[src.index(f'extern "C" __global__ void __launch_bounds__({width}) {k.cpp}_cuda_{which}('):]
        entry = entry[:entry.index("\n}\n")]
        assert f"wp::cuda_block_begin({width});" in entry
        assert f"const int64_t blocks = (dim.size + {width} - 1) / {width};" in entry
        assert f"{k.cpp}_{which}_body(args, dim, b * {width} + threadIdx.x);" in entry
        assert "__syncthreads" not in entry      # barriers only inside the primitives, reached by all
    one_lane = generate_source(lower([cpu_cases.lanes_basic]), CUDA)
    assert "cuda_block_begin" not in one_lane and "__launch_bounds__" not in one_lane


def run_entry_model(size, width, launches):
    """The CUDA block entry's loop (codegen/target.py _CUDA_ENTRY_BLOCKS) in Python: for each launch
    and each thread of each GPU block, the thread indices it runs the body for, by (launch, block)."""
    blocks = (size + width - 1) // width
    runs = {}
    for n, (grid, threads, _) in enumerate(launches):
        for bx in range(grid):
            first = bx + (0 if threads == width else blocks - 1)
            for b in range(first, blocks, grid):
                lanes = min(size - b * width, width)
                if lanes != threads:
                    continue
                runs.setdefault((n, bx), []).append([b * width + t for t in range(threads)])
    return runs


@pytest.mark.parametrize("size,width,max_blocks,want", [
    (1024, 256, 0, [(4, 256)]),
    (1000, 256, 0, [(3, 256), (1, 232)]),
    (3, 256, 0, [(1, 3)]),
    (0, 32, 0, []),
    (12, 4, 0, [(3, 4)]),
    (10, 4, 0, [(2, 4), (1, 2)]),
    (4096, 32, 8, [(8, 32)]),          # max_blocks: 8 GPU blocks loop over the 128 blocks
    (4100, 32, 8, [(8, 32), (1, 4)]),
    (7 * 1024 + 1, 1024, 0, [(7, 1024), (1, 1)]),
])
def test_block_launches(size, width, max_blocks, want):
    launches = cuda_modules.block_launches(size, width, max_blocks)
    scratch = cuda_modules.block_scratch_bytes()
    assert launches == [(g, t, scratch) for g, t in want]
    runs = run_entry_model(size, width, launches)
    ran = sorted(i for chunks in runs.values() for chunk in chunks for i in chunk)
    assert ran == list(range(size))             # every thread index exactly once
    for chunks in runs.values():                # each GPU block runs whole blocks of consecutive lanes
        for chunk in chunks:
            assert chunk[0] % width == 0 and chunk == list(range(chunk[0], chunk[0] + len(chunk)))


def test_scratch_is_the_headers():
    """One source of truth: the launch's dynamic shared memory is the header's WPI_CUDA_BLOCK_SCRATCH,
    non-zero (a launch with none is how the primitives know a one-lane kernel) and within the 48 KiB
    a block gets without opting in."""
    from warp_interactive import _paths
    with open(f"{_paths.include_dir()}/warp_interactive/exec/cuda_blocks.h") as f:
        text = f.read()
    value = int(re.search(r"#define WPI_CUDA_BLOCK_SCRATCH (\d+)", text).group(1))
    assert cuda_modules.block_scratch_bytes() == value
    assert 1024 <= value <= 48 * 1024


def _cmd(kernel, size, block_dim=None, max_blocks=0):
    bounds = types.SimpleNamespace(size=size)
    entry = types.SimpleNamespace(block_width=kernel.block_width)    # a KernelEntry's, for the config
    return types.SimpleNamespace(kernel=kernel, entry=entry, bounds=bounds, block_dim=block_dim,
                                 max_blocks=max_blocks)


def test_launch_config_of_packed_launches():
    k = cpu_cases.lanes_basic.with_block_width(64)
    scratch = cuda_modules.block_scratch_bytes()
    assert cuda_modules.launch_config(_cmd(k, 3 * 64)) == [(3, 64, scratch)]
    assert cuda_modules.launch_config(_cmd(k, 100, block_dim=64)) == [(1, 64, scratch), (1, 36, scratch)]
    # a one-lane kernel: the grid-stride launch, without shared memory
    assert cuda_modules.launch_config(_cmd(plain_saxpy, 1000, block_dim=128)) == [(8, 128, 0)]
    assert cuda_modules.launch_config(_cmd(plain_saxpy, 1000)) == [(4, wp.config.cuda_block_dim, 0)]


@pytest.mark.parametrize("block_dim,width", [(None, 256), (64, 64), (1, 1), (1024, 1024)])
def test_kernels_with_tiles_cooperate_on_cuda(block_dim, width):
    """warp-lang on a GPU: a kernel holding tiles gets blocks of block_dim threads (default 256)."""
    k, b = cuda_blocks(cpu_cases.lanes_plain_launch, block_dim)
    assert b == width and k.block_width == width
    assert k is (cpu_cases.lanes_plain_launch if width == 1 else cpu_cases.lanes_plain_launch.with_block_width(width))
    if width > 1:
        assert cuda_blocks(k, None) == (k, width)   # a tape's replay of the cooperative build


@pytest.mark.parametrize("block_dim", [None, 32, 1024])
def test_kernels_without_tiles_stay_one_lane(block_dim):
    assert not plain_saxpy.uses_tiles
    assert cuda_blocks(plain_saxpy, block_dim) == (plain_saxpy, block_dim)


@wp.func
def tile_inside(x: float):
    return wp.tile_sum(wp.tile(x))[0]


@wp.kernel
def calls_tile_func(out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = tile_inside(float(i))


def test_tiles_in_a_called_function_count():
    assert calls_tile_func.uses_tiles and cpu_cases.lanes_stack.uses_tiles


@pytest.mark.parametrize("block_dim", [0, -1, 1025, 4096])
def test_bad_cuda_block_dim(block_dim):
    if block_dim == 0:      # 0 means the default, as None
        assert cuda_blocks(cpu_cases.lanes_basic, 0)[1] == wp.config.cuda_block_dim
        return
    with pytest.raises(ValueError, match=f"block_dim must be between 1 and 1024 on CUDA, got {block_dim}"):
        cuda_blocks(cpu_cases.lanes_basic, block_dim)


def _nvrtc_or_skip():
    from warp_interactive.compiler import nvrtc
    try:
        nvrtc.version()
    except Exception as e:     # the NVRTC wheel is an optional extra
        pytest.skip(f"NVRTC is not available: {e}")
    return nvrtc


@pytest.mark.parametrize("width", [32, 1024])
def test_cooperative_kernels_compile_for_sm90(width):
    """Every cooperative kernel of the CPU block tests, built for CUDA blocks, compiles with NVRTC."""
    nvrtc = _nvrtc_or_skip()
    kernels = [k.with_block_width(width) for k in COOPERATIVE + [tiled_gemm]]
    cubin = nvrtc.compile_source(generate_source(lower(kernels), CUDA), 90, False, False, f"cuda_blocks_{width}",
                                 kind="cubin")
    assert cubin[:4] == b"\x7fELF"
    for k in kernels:
        assert f"{k.cpp}_cuda_forward".encode() in cubin and f"{k.cpp}_cuda_backward".encode() in cubin


# --- on a GPU: the same results as cooperative CPU blocks and NumPy ------------------------------------
@pytest.fixture
def cpu_blocks_on():
    old = wp.config.enable_cpu_blocks
    wp.config.enable_cpu_blocks = True
    yield
    wp.config.enable_cpu_blocks = old


def _run_both(launcher, kernel, dim, shapes, block_dim, fill=None):
    """Runs ``kernel`` on the CPU (cooperative blocks) and on CUDA with arrays of ``shapes``
    ((shape, dtype) pairs, zero or ``fill``-ed); returns both sets of outputs as NumPy arrays."""
    results = []
    for device in ("cpu", "cuda:0"):
        arrays = [wp.array(fill[n], dtype=dt, device=device) if fill and n in fill else
                  wp.zeros(shape, dtype=dt, device=device) for n, (shape, dt) in enumerate(shapes)]
        launcher(kernel, dim=dim, inputs=arrays, block_dim=block_dim, device=device)
        results.append([a.numpy() for a in arrays])
    return results


@requires_cuda
@pytest.mark.parametrize("block_dim", [4, 7, 32, 256])
def test_gpu_tile_untile_and_composites(cpu_blocks_on, block_dim):
    b, w = cpu_cases.BLOCKS, block_dim
    cpu, gpu = _run_both(wp.launch_tiled, cpu_cases.lanes_basic, b,
                         [((b, w), int), (b * w, int), (b, float), ((b, w), float), (b, float)], block_dim)
    for c, g in zip(cpu, gpu):
        np.testing.assert_array_equal(g, c)
    vals = (np.arange(w) + 10 * np.arange(b)[:, None]).astype(np.float32)
    np.testing.assert_array_equal(gpu[2], vals.sum(axis=1))
    cpu, gpu = _run_both(wp.launch_tiled, cpu_cases.lanes_composite, b,
                         [((b, 3, w), float), ((b, 2, 2, w), float), ((b, w), wp.vec3), ((b, w), wp.mat22)],
                         block_dim)
    for c, g in zip(cpu, gpu):
        np.testing.assert_array_equal(g, c)


@requires_cuda
@pytest.mark.parametrize("block_dim", [4, 32, 64])
def test_gpu_writes_stacks_broadcasts(cpu_blocks_on, block_dim):
    b, w = cpu_cases.BLOCKS, block_dim
    cpu, gpu = _run_both(wp.launch_tiled, cpu_cases.lanes_writes, b, [((b, 40), float)], block_dim)
    np.testing.assert_array_equal(gpu[0], cpu[0])
    cap = cpu_cases.CAP
    cpu, gpu = _run_both(wp.launch_tiled, cpu_cases.lanes_stack, 1,
                         [(cap, int), ((2, w), int), ((1, w), int), ((1, w), int)], block_dim,
                         fill={0: np.full(cap, -1, dtype=np.int32)})
    for c, g in zip(cpu, gpu):
        np.testing.assert_array_equal(g, c)
    xs = np.random.default_rng(block_dim).standard_normal(b * 32).astype(np.float32)
    cpu, gpu = _run_both(wp.launch_tiled, cpu_cases.lanes_broadcast_atomic, b,
                         [(b * 32, float), (4, float), ((b, w), float), ((b, w), float), ((b, w), float)],
                         block_dim, fill={0: xs})
    np.testing.assert_array_equal(gpu[1], np.full(4, b))          # one tile_atomic_add per block
    for n in (3, 4):                                               # broadcasts and the shared load
        np.testing.assert_array_equal(gpu[n], cpu[n])
    assert sorted(gpu[2][:, 0]) == list(range(b)) and (gpu[2] == gpu[2][:, :1]).all()


@requires_cuda
@pytest.mark.parametrize("n,block_dim", [(1, 4), (10, 4), (12, 4), (1000, 256), (300, None)])
def test_gpu_plain_launch_partial_last_block(cpu_blocks_on, n, block_dim):
    """wp.launch(..., block_dim=B) of a kernel with tiles: blocks of B consecutive threads, a partial
    last block's missing lanes gathering zero, as cooperative CPU blocks."""
    cpu, gpu = _run_both(wp.launch, cpu_cases.lanes_plain_launch, n, [(n, int), (n, int)],
                         block_dim or wp.config.cuda_block_dim)
    w = block_dim or wp.config.cuda_block_dim
    idx = np.arange(n)
    np.testing.assert_array_equal(gpu[0], [idx[(k // w) * w:(k // w + 1) * w].sum() for k in idx])
    np.testing.assert_array_equal(gpu[0], cpu[0])
    np.testing.assert_array_equal(gpu[1], np.full(n, w))


@requires_cuda
@pytest.mark.parametrize("block_dim", [4, 32])
def test_gpu_gradients_through_lanes(block_dim):
    b, w = cpu_cases.BLOCKS, block_dim
    rng = np.random.default_rng(block_dim)
    xn = rng.standard_normal((b, 32)).astype(np.float32)
    xln = rng.standard_normal((b, w)).astype(np.float32)
    x = wp.array(xn, requires_grad=True, device="cuda:0")
    xl = wp.array(xln, requires_grad=True, device="cuda:0")
    loss = wp.zeros(1, dtype=float, requires_grad=True, device="cuda:0")
    tape = wp.Tape()
    with tape:
        wp.launch_tiled(cpu_cases.lanes_grad, dim=b, inputs=[x, xl, loss], block_dim=block_dim, device="cuda:0")
    np.testing.assert_allclose(loss.numpy()[0], (3 * xn[:, :w] ** 2).sum() + (xln ** 2).sum(), rtol=1e-5)
    tape.backward(loss)
    want = np.zeros_like(xn)
    want[:, :w] = 6 * xn[:, :w]
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(xl.grad.numpy(), 2 * xln, rtol=1e-5, atol=1e-6)


# --- the CUDA runtime's side, on a GPU or on the stand-in driver (tests/support/cuda_fake.py: real NVRTC
# builds, kernels run through their CPU build; a cooperative kernel through its CPU blocks entry)
@pytest.fixture(params=["gpu", "stand_in"])
def cuda_device(request, monkeypatch):
    """"cuda:0": the GPU, or the stand-in driver where there is none (returned: its launch log)."""
    if request.param == "gpu":
        if not wp.is_cuda_available():
            pytest.skip("needs a CUDA device")
        yield None
        return
    if wp.is_cuda_available():
        pytest.skip("a real GPU is here: the gpu case runs instead")
    pytest.importorskip("cuda.bindings.nvrtc", reason="the CUDA extra is not installed")
    from cuda_fake import stand_in
    yield from stand_in(monkeypatch)


@wp.kernel(module="unique")
def block_sums(out: wp.array(dtype=int), widths: wp.array(dtype=int)):
    i = wp.tid()
    widths[i] = wp.block_dim()
    out[i] = wp.tile_sum(wp.tile(i))[0]


def _block_sums_want(n, w):
    idx = np.arange(n)
    return [idx[(k // w) * w:(k // w + 1) * w].sum() for k in idx]


def test_cuda_launch_record_cmd_and_graph(cuda_device):
    """wp.launch(..., block_dim=4) over 10 threads: two full blocks and a partial one (its missing
    lanes gather zero), with the launches block_launches gives; record_cmd and a graph replay
    launch the same way."""
    n, w = 10, 4
    out, widths = wp.zeros(n, dtype=int, device="cuda:0"), wp.zeros(n, dtype=int, device="cuda:0")
    wp.launch(block_sums, dim=n, inputs=[out, widths], block_dim=w, device="cuda:0")
    np.testing.assert_array_equal(out.numpy(), _block_sums_want(n, w))
    np.testing.assert_array_equal(widths.numpy(), np.full(n, w))
    cooperative = block_sums.with_block_width(w)
    scratch = cuda_modules.block_scratch_bytes()
    if cuda_device is not None:
        assert [(f, g, b) for f, g, b, _ in cuda_device.launches[-2:]] == [
            (f"{cooperative.cpp}_cuda_forward", 2, 4), (f"{cooperative.cpp}_cuda_forward", 1, 2)]
        assert cuda_device.shared_bytes[-2:] == [scratch, scratch]
    out.zero_()
    cmd = wp.launch(block_sums, dim=n, inputs=[out, widths], block_dim=w, device="cuda:0", record_cmd=True)
    assert cmd.kernel is cooperative
    cmd.launch()
    np.testing.assert_array_equal(out.numpy(), _block_sums_want(n, w))
    out.zero_()
    with wp.ScopedCapture(device="cuda:0") as capture:
        wp.launch(block_sums, dim=n, inputs=[out, widths], block_dim=w, device="cuda:0")
    wp.capture_launch(capture.graph)
    np.testing.assert_array_equal(out.numpy(), _block_sums_want(n, w))


def test_cuda_launch_tiled_default_block_dim(cuda_device):
    """wp.launch_tiled on CUDA without block_dim: 256 threads per block, as warp-lang."""
    w = wp.config.cuda_block_dim
    out, widths = wp.zeros(2 * w, dtype=int, device="cuda:0"), wp.zeros(2 * w, dtype=int, device="cuda:0")
    wp.launch_tiled(block_sums, dim=2, inputs=[out, widths], device="cuda:0")
    # i = wp.tid() in a tiled launch is the block's index: every lane of block i writes out[i]
    np.testing.assert_array_equal(out.numpy()[:3], [0, w * 1, 0])
    np.testing.assert_array_equal(widths.numpy()[:3], [w, w, 0])
    if cuda_device is not None:
        assert cuda_device.launches[-1][1:3] == (2, w)


@wp.kernel(module="unique")
def block_grad(x: wp.array2d(dtype=float), xl: wp.array2d(dtype=float), loss: wp.array(dtype=float)):
    i, lane = wp.tid()
    t = wp.tile_load(x[i], shape=(8,))
    v = t[lane % 8]
    y = wp.untile(wp.tile(v * v) * 3.0)
    z = wp.tile(y + xl[i, lane] * xl[i, lane])
    wp.atomic_add(loss, 0, wp.tile_sum(z)[0] / float(wp.block_dim()))


@pytest.mark.parametrize("block_dim", [4])
def test_cuda_tape_through_cooperative_blocks(cuda_device, block_dim):
    """A wp.Tape on CUDA replays the cooperative build's adjoint; against the closed form."""
    b, w = 3, block_dim
    rng = np.random.default_rng(7)
    xn, xln = rng.standard_normal((b, 8)).astype(np.float32), rng.standard_normal((b, w)).astype(np.float32)
    x = wp.array(xn, requires_grad=True, device="cuda:0")
    xl = wp.array(xln, requires_grad=True, device="cuda:0")
    loss = wp.zeros(1, dtype=float, requires_grad=True, device="cuda:0")
    tape = wp.Tape()
    with tape:
        wp.launch_tiled(block_grad, dim=b, inputs=[x, xl, loss], block_dim=w, device="cuda:0")
    np.testing.assert_allclose(loss.numpy()[0], (3 * xn[:, :w] ** 2).sum() + (xln ** 2).sum(), rtol=1e-5)
    tape.backward(loss)
    want = np.zeros_like(xn)
    want[:, :w] = 6 * xn[:, :w]
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(xl.grad.numpy(), 2 * xln, rtol=1e-5, atol=1e-6)
    if cuda_device is not None:
        assert cuda_device.launches[-1][0] == f"{block_grad.with_block_width(w).cpp}_cuda_backward"
        assert cuda_device.launches[-1][1:3] == (b, w)


GEMM_TILE = 8


@wp.kernel(module="unique")
def tiled_gemm(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float), c: wp.array2d(dtype=float)):
    i, j = wp.tid()
    acc = wp.tile_zeros(shape=(GEMM_TILE, GEMM_TILE), dtype=float)
    for k in range(a.shape[1] // GEMM_TILE):
        ta = wp.tile_load(a, shape=(GEMM_TILE, GEMM_TILE), offset=(i * GEMM_TILE, k * GEMM_TILE))
        tb = wp.tile_load(b, shape=(GEMM_TILE, GEMM_TILE), offset=(k * GEMM_TILE, j * GEMM_TILE))
        wp.tile_matmul(ta, tb, acc)
    wp.tile_store(c, acc, offset=(i * GEMM_TILE, j * GEMM_TILE))


@requires_cuda
@pytest.mark.parametrize("block_dim", [None, 32, 64])
def test_gpu_tiled_gemm_matches_numpy(block_dim):
    rng = np.random.default_rng(3)
    an, bn = rng.standard_normal((32, 24)).astype(np.float32), rng.standard_normal((24, 16)).astype(np.float32)
    a, b = wp.array(an, device="cuda:0"), wp.array(bn, device="cuda:0")
    c = wp.zeros((32, 16), dtype=float, device="cuda:0")
    wp.launch_tiled(tiled_gemm, dim=(4, 2), inputs=[a, b, c], block_dim=block_dim, device="cuda:0")
    np.testing.assert_allclose(c.numpy(), an @ bn, rtol=1e-4, atol=1e-4)


def test_cuda_tape_replays_a_one_lane_tile_launch_one_lane(cuda_device):
    """block_dim=1 on CUDA: one-lane blocks (the kernel's one-lane build), and the tape's adjoint
    replays that build with one thread per block, not the default cooperative width."""
    b = 3
    rng = np.random.default_rng(11)
    xn, xln = rng.standard_normal((b, 8)).astype(np.float32), rng.standard_normal((b, 1)).astype(np.float32)
    x = wp.array(xn, requires_grad=True, device="cuda:0")
    xl = wp.array(xln, requires_grad=True, device="cuda:0")
    loss = wp.zeros(1, dtype=float, requires_grad=True, device="cuda:0")
    tape = wp.Tape()
    with tape:
        wp.launch_tiled(block_grad, dim=b, inputs=[x, xl, loss], block_dim=1, device="cuda:0")
    np.testing.assert_allclose(loss.numpy()[0], (3 * xn[:, :1] ** 2).sum() + (xln ** 2).sum(), rtol=1e-5)
    tape.backward(loss)
    want = np.zeros_like(xn)
    want[:, :1] = 6 * xn[:, :1]
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(xl.grad.numpy(), 2 * xln, rtol=1e-5, atol=1e-6)
    if cuda_device is not None:
        name, _, threads, _ = cuda_device.launches[-1]
        assert name == f"{block_grad.cpp}_cuda_backward" and threads == 1
        assert cuda_device.shared_bytes[-1] == 0
