"""Tape gradients of every differentiable tile primitive (docs/tiles.md), in one-lane blocks and in
cooperative CPU blocks (``wp.config.enable_cpu_blocks``: 4 and 32 lanes, full and with a partial
last block), against central finite differences of the same launches in float64; a gradient this
table finds wrong is a silent wrong result.

Every kernel has the same frame: thread ``tid`` of a ``wp.launch(..., block_dim=B)`` is lane
``tid % B`` of block ``tid // B`` (one-lane blocks: B = 1); the block reads its 16 values of ``x``
(a tile) and one value per lane, runs the primitive, stores a 16-element result ``r`` into ``y``
(once per block) and every lane adds one element of it, squared, into ``z`` (each lane's own part of
the adjoint). The objective is ``g . y + h . z``."""

import numpy as np
import pytest

import warp_interactive as wp

N = 16
f64 = wp.float64


@wp.func
def cube(a: f64):
    return a * a * a


def _k(fn):
    return wp.kernel(fn, module="unique")


# --- loads, stores, element access ------------------------------------------------------------------------
@_k
def load_store(x: wp.array(dtype=f64), y: wp.array(dtype=f64), z: wp.array(dtype=f64)):
    tid = wp.tid()
    lane = tid % wp.block_dim()
    base = (tid // wp.block_dim()) * N
    a = wp.tile_load(x, shape=N, offset=base)
    r = a * a
    wp.tile_store(y, r, offset=base)
    wp.atomic_add(z, base + lane % N, r[lane % N] * r[lane % N])


@_k
def gather_untile(x: wp.array(dtype=f64), y: wp.array(dtype=f64), z: wp.array(dtype=f64)):
    tid = wp.tid()
    lane = tid % wp.block_dim()
    base = (tid // wp.block_dim()) * N
    v = x[base + lane % N]
    t = wp.tile(v * v)                                   # one value per lane
    u = wp.untile(t * 3.0)
    s = wp.tile_sum(t)[0]
    a = wp.tile_load(x, shape=N, offset=base)
    r = a * s + wp.tile_full(N, u, dtype=f64) * 0.0
    wp.tile_store(y, r, offset=base)
    wp.atomic_add(z, base + lane % N, r[lane % N] * r[lane % N])
    wp.atomic_add(z, base + (lane + 1) % N, u * v)


@_k
def from_thread(x: wp.array(dtype=f64), y: wp.array(dtype=f64), z: wp.array(dtype=f64)):
    tid = wp.tid()
    lane = tid % wp.block_dim()
    base = (tid // wp.block_dim()) * N
    src = wp.block_dim() - 1
    t = wp.tile_from_thread(shape=N, value=x[base + lane % N] * 2.0, thread_idx=src)
    a = wp.tile_load(x, shape=N, offset=base)
    r = a * t
    wp.tile_store(y, r, offset=base)
    wp.atomic_add(z, base + lane % N, r[lane % N] * r[lane % N])


@_k
def extract_assign(x: wp.array(dtype=f64), y: wp.array(dtype=f64), z: wp.array(dtype=f64)):
    tid = wp.tid()
    lane = tid % wp.block_dim()
    base = (tid // wp.block_dim()) * N
    a = wp.tile_load(x, shape=N, offset=base)
    b = wp.tile_zeros(shape=N, dtype=f64)
    b[3] = a[5] * a[2]                                   # block-uniform element writes
    b[7] += wp.tile_extract(a, 1) * a[1]
    wp.tile_assign(b, a[8:12] * 2.0, offset=(10,))
    r = b + a
    wp.tile_store(y, r, offset=base)
    wp.atomic_add(z, base + lane % N, r[lane % N] * r[lane % N])


@_k
def lane_writes(x: wp.array(dtype=f64), y: wp.array(dtype=f64), z: wp.array(dtype=f64)):
    tid = wp.tid()
    lane = tid % wp.block_dim()
    base = (tid // wp.block_dim()) * N
    a = wp.tile_load(x, shape=N, offset=base)
    v = x[base + lane % N]
    a[lane % N] = v * v + a[lane % N]                    # per-lane writes (the last lane wins)
    a[(lane + 3) % 5] += v * 0.5                         # per-lane adds
    r = a * a
    wp.tile_store(y, r, offset=base)
    wp.atomic_add(z, base + lane % N, r[lane % N] * r[lane % N])


@_k
def indexed(x: wp.array(dtype=f64), y: wp.array(dtype=f64), z: wp.array(dtype=f64)):
    tid = wp.tid()
    lane = tid % wp.block_dim()
    base = (tid // wp.block_dim()) * N
    idx = wp.tile_arange(N - 1, -1, -1, dtype=int) + base
    a = wp.tile_load_indexed(x, indices=idx, shape=N, axis=0)
    part = wp.tile_arange(4, dtype=int)
    b = wp.tile_slice_indexed(a, part)
    c = wp.tile_zeros(shape=N, dtype=f64)
    wp.tile_assign(c, b * b, offset=(2,))
    r = a * a + c + a[wp.tile_arange(N, dtype=int)]
    wp.tile_store(y, r, offset=base)
    wp.atomic_add(z, base + lane % N, r[lane % N] * r[lane % N])


@_k
def store_indexed(x: wp.array(dtype=f64), y: wp.array(dtype=f64), z: wp.array(dtype=f64)):
    tid = wp.tid()
    lane = tid % wp.block_dim()
    base = (tid // wp.block_dim()) * N
    a = wp.tile_load(x, shape=N, offset=base)
    idx = wp.tile_arange(N - 1, -1, -1, dtype=int) + base
    wp.tile_store_indexed(y, indices=idx, t=a * a, offset=0, axis=0)
    wp.atomic_add(z, base + lane % N, a[lane % N] * a[(lane + 1) % N])


@_k
def atomic(x: wp.array(dtype=f64), y: wp.array(dtype=f64), z: wp.array(dtype=f64)):
    tid = wp.tid()
    lane = tid % wp.block_dim()
    base = (tid // wp.block_dim()) * N
    a = wp.tile_load(x, shape=N, offset=base)
    wp.tile_atomic_add(y, a * a, offset=base)
    idx = wp.tile_arange(N, dtype=int) * 0 + base + 2
    wp.tile_atomic_add_indexed(z, indices=idx, t=a * a * a, offset=0, axis=0)
    wp.atomic_add(z, base + lane % N, a[lane % N] * 2.0)


# --- arithmetic, maps, reductions ---------------------------------------------------------------------------
@_k
def arith_map(x: wp.array(dtype=f64), y: wp.array(dtype=f64), z: wp.array(dtype=f64)):
    tid = wp.tid()
    lane = tid % wp.block_dim()
    base = (tid // wp.block_dim()) * N
    a = wp.tile_load(x, shape=N, offset=base)
    b = wp.tile_map(wp.sin, a) * 2.0 - a / 3.0
    c = wp.tile_map(wp.mul, a, b) + wp.tile_map(cube, a)
    d = wp.tile_astype(wp.tile_astype(c, wp.float64), wp.float64)
    r = -d + a
    wp.tile_store(y, r, offset=base)
    wp.atomic_add(z, base + lane % N, r[lane % N] * r[lane % N])


@_k
def reductions(x: wp.array(dtype=f64), y: wp.array(dtype=f64), z: wp.array(dtype=f64)):
    tid = wp.tid()
    lane = tid % wp.block_dim()
    base = (tid // wp.block_dim()) * N
    a = wp.tile_load(x, shape=N, offset=base)
    m = wp.tile_reshape(a, shape=(4, 4))
    s = wp.tile_sum(a * a)[0] + wp.tile_max(a)[0] * 2.0 - wp.tile_min(a)[0]
    rows = wp.tile_sum(m, axis=1)                          # shape (4,)
    d = wp.tile_dot(a, a * 0.5)[0]
    b = wp.tile_zeros(shape=N, dtype=f64)
    wp.tile_assign(b, rows * rows, offset=(0,))
    r = a * s + b + wp.tile_full(N, d, dtype=f64)
    wp.tile_store(y, r, offset=base)
    wp.atomic_add(z, base + lane % N, r[lane % N] * r[lane % N])


@_k
def scans(x: wp.array(dtype=f64), y: wp.array(dtype=f64), z: wp.array(dtype=f64)):
    tid = wp.tid()
    lane = tid % wp.block_dim()
    base = (tid // wp.block_dim()) * N
    a = wp.tile_load(x, shape=N, offset=base)
    r = wp.tile_scan_inclusive(a * a) + wp.tile_scan_exclusive(a) * a
    wp.tile_store(y, r, offset=base)
    wp.atomic_add(z, base + lane % N, r[lane % N] * r[lane % N])


# --- shapes and views ------------------------------------------------------------------------------------------
@_k
def shapes_views(x: wp.array(dtype=f64), y: wp.array(dtype=f64), z: wp.array(dtype=f64)):
    tid = wp.tid()
    lane = tid % wp.block_dim()
    base = (tid // wp.block_dim()) * N
    a = wp.tile_load(x, shape=N, offset=base)
    m = wp.tile_reshape(a, shape=(4, 4))
    t = wp.tile_transpose(m) * m
    row = wp.tile_view(m, offset=(1,))                    # (4,)
    bc = wp.tile_broadcast(wp.tile_reshape(row, shape=(1, 4)), shape=(4, 4))
    sq = wp.tile_squeeze(wp.tile_reshape(a, shape=(1, N)))
    w = m[1:3, ::2]
    out = wp.tile_reshape(t + bc * m, shape=N) + sq * sq
    out[0:4] = wp.tile_reshape(w * 3.0, shape=4)         # (a strided view is copied before a reshape)
    r = out
    wp.tile_store(y, r, offset=base)
    wp.atomic_add(z, base + lane % N, r[lane % N] * r[lane % N])


@_k
def axpy_diag(x: wp.array(dtype=f64), y: wp.array(dtype=f64), z: wp.array(dtype=f64)):
    tid = wp.tid()
    lane = tid % wp.block_dim()
    base = (tid // wp.block_dim()) * N
    a = wp.tile_load(x, shape=N, offset=base)
    b = a * a
    wp.tile_axpy(f64(1.5), a, b)
    m = wp.tile_diag_add(wp.tile_reshape(b, shape=(4, 4)), wp.tile_view(a, offset=(4,), shape=(4,)))
    r = wp.tile_reshape(m, shape=N)
    wp.tile_store(y, r, offset=base)
    wp.atomic_add(z, base + lane % N, r[lane % N] * r[lane % N])


# --- linear algebra --------------------------------------------------------------------------------------------
@_k
def matmul(x: wp.array(dtype=f64), y: wp.array(dtype=f64), z: wp.array(dtype=f64)):
    tid = wp.tid()
    lane = tid % wp.block_dim()
    base = (tid // wp.block_dim()) * N
    a = wp.tile_load(x, shape=N, offset=base)
    m = wp.tile_reshape(a, shape=(4, 4))
    p = wp.tile_matmul(m, wp.tile_transpose(m))
    acc = m * 0.5
    wp.tile_matmul(p, m, acc)
    r = wp.tile_reshape(acc, shape=N)
    wp.tile_store(y, r, offset=base)
    wp.atomic_add(z, base + lane % N, r[lane % N] * r[lane % N])


@_k
def cholesky(x: wp.array(dtype=f64), y: wp.array(dtype=f64), z: wp.array(dtype=f64)):
    tid = wp.tid()
    lane = tid % wp.block_dim()
    base = (tid // wp.block_dim()) * N
    a = wp.tile_load(x, shape=N, offset=base)
    m = wp.tile_reshape(a, shape=(4, 4))
    spd = wp.tile_diag_add(wp.tile_matmul(m, wp.tile_transpose(m)), wp.tile_full(4, f64(4.0), dtype=f64))
    L = wp.tile_cholesky(spd)
    rhs = wp.tile_view(a, offset=(0,), shape=(4,))
    s = wp.tile_cholesky_solve(L, rhs)
    lo = wp.tile_lower_solve(L, rhs)
    up = wp.tile_upper_solve(wp.tile_transpose(L), lo)
    out = wp.tile_reshape(L, shape=N)
    out[0:4] = s
    out[4:8] = lo
    out[8:12] = up
    r = out
    wp.tile_store(y, r, offset=base)
    wp.atomic_add(z, base + lane % N, r[lane % N] * r[lane % N])


# --- the per-lane merges: FFT, scatters, stacks ------------------------------------------------------------------
@_k
def fft(x: wp.array(dtype=f64), y: wp.array(dtype=f64), z: wp.array(dtype=f64)):
    tid = wp.tid()
    lane = tid % wp.block_dim()
    base = (tid // wp.block_dim()) * N
    a = wp.tile_load(x, shape=N, offset=base)
    c = wp.tile_zeros(shape=(2, 8), dtype=wp.vec2d)
    for k in range(8):
        c[0, k] = wp.vec2d(a[k], a[k + 8])
        c[1, k] = wp.vec2d(a[k] * a[k], 0.5 * a[15 - k])
    wp.tile_fft(c)
    c = c * 0.25
    wp.tile_ifft(c)
    out = wp.tile_zeros(shape=N, dtype=f64)
    for k in range(8):
        out[k] = c[0, k][0] + c[1, k][1]
        out[k + 8] = c[0, k][1] * c[1, k][0]
    r = out
    wp.tile_store(y, r, offset=base)
    wp.atomic_add(z, base + lane % N, r[lane % N] * r[lane % N])


@_k
def scatter(x: wp.array(dtype=f64), y: wp.array(dtype=f64), z: wp.array(dtype=f64)):
    tid = wp.tid()
    lane = tid % wp.block_dim()
    base = (tid // wp.block_dim()) * N
    a = wp.tile_load(x, shape=N, offset=base)
    v = x[base + lane % N]
    wp.tile_scatter_add(a, (lane * 5) % N, v * v, True)
    wp.tile_scatter_masked(a, (lane * 3 + 1) % N, v * 2.0, lane % 3 != 0)
    r = a * a
    wp.tile_store(y, r, offset=base)
    wp.atomic_add(z, base + lane % N, r[lane % N] * r[lane % N])


@_k
def stack(x: wp.array(dtype=f64), y: wp.array(dtype=f64), z: wp.array(dtype=f64)):
    tid = wp.tid()
    lane = tid % wp.block_dim()
    base = (tid // wp.block_dim()) * N
    a = wp.tile_load(x, shape=N, offset=base)
    s = wp.tile_stack(capacity=40, dtype=f64)
    v = x[base + lane % N]
    wp.tile_stack_push(s, v * v, lane % 2 == 0)
    wp.tile_stack_push(s, a[lane % N] * 3.0, True)        # 32 lanes: past the capacity (dropped)
    p, slot = wp.tile_stack_pop(s)
    wp.tile_stack_push(s, p * v, lane < 3)               # overwrites popped slots
    q, slot2 = wp.tile_stack_pop(s)
    r = a * (p + q)
    wp.tile_store(y, r, offset=base)
    wp.atomic_add(z, base + lane % N, r[lane % N] * r[lane % N])


@_k
def fft_lanes(x: wp.array(dtype=f64), y: wp.array(dtype=f64), z: wp.array(dtype=f64)):
    tid = wp.tid()
    lane = tid % wp.block_dim()
    base = (tid // wp.block_dim()) * N
    v = x[base + lane % N]
    c = wp.tile_zeros(shape=(2, 8), dtype=wp.vec2d)
    c[lane % 2, lane % 8] = wp.vec2d(v, v * v)               # per-lane writes, then the FFT
    c[1, (lane + 1) % 8] += wp.vec2d(v * 0.5, 1.0)           # per-lane adds
    wp.tile_fft(c)
    wp.tile_scatter_add(c, lane % 2, (lane * 3) % 8, wp.vec2d(v, -v), lane % 3 == 0)
    wp.tile_scatter_masked(c, 1, lane % 8, wp.vec2d(v * 2.0, v), lane % 4 == 1)
    wp.tile_ifft(c)
    out = wp.tile_zeros(shape=N, dtype=f64)
    for k in range(8):
        out[k] = c[0, k][0] * c[1, k][1]
        out[k + 8] = c[0, k][1] + c[1, k][0]
    r = out
    wp.tile_store(y, r, offset=base)
    wp.atomic_add(z, base + lane % N, r[lane % N] * r[lane % N])


CASES = [load_store, gather_untile, from_thread, extract_assign, lane_writes, indexed, store_indexed, atomic,
         arith_map, reductions, scans, shapes_views, axpy_diag, matmul, cholesky, fft, scatter, stack,
         fft_lanes]


BLOCKS = 2
# (lanes per block, threads launched): one-lane blocks; full cooperative blocks; a partial last one
MODES = [(1, BLOCKS), (4, 4 * BLOCKS), (32, 32 * BLOCKS), (4, 4 * BLOCKS - 3), (32, 32 * BLOCKS - 13)]


@pytest.fixture
def cpu_blocks():
    old = wp.config.enable_cpu_blocks
    wp.config.enable_cpu_blocks = True
    yield
    wp.config.enable_cpu_blocks = old


def objective(kernel, xs, width, threads, g, h):
    x = wp.array(xs, dtype=wp.float64, device="cpu")
    y, z = wp.zeros(len(xs), dtype=wp.float64, device="cpu"), wp.zeros(len(xs), dtype=wp.float64, device="cpu")
    wp.launch(kernel, dim=threads, inputs=[x, y, z], block_dim=width, device="cpu")
    return float(g @ y.numpy() + h @ z.numpy())


def tape_gradient(kernel, xs, width, threads, g, h):
    x = wp.array(xs, dtype=wp.float64, requires_grad=True, device="cpu")
    y = wp.zeros(len(xs), dtype=wp.float64, requires_grad=True, device="cpu")
    z = wp.zeros(len(xs), dtype=wp.float64, requires_grad=True, device="cpu")
    tape = wp.Tape()
    with tape:
        wp.launch(kernel, dim=threads, inputs=[x, y, z], block_dim=width, device="cpu")
    tape.backward(grads={y: wp.array(g, dtype=wp.float64, device="cpu"),
                         z: wp.array(h, dtype=wp.float64, device="cpu")})
    return x.grad.numpy()


def central_differences(kernel, xs, width, threads, g, h, eps=1e-6):
    grad = np.zeros_like(xs)
    for i in range(xs.size):
        hi, lo = xs.copy(), xs.copy()
        hi[i] += eps
        lo[i] -= eps
        grad[i] = (objective(kernel, hi, width, threads, g, h) - objective(kernel, lo, width, threads, g, h)) / (2 * eps)
    return grad


@pytest.mark.parametrize("width,threads", MODES, ids=[f"b{w}_n{n}" for w, n in MODES])
@pytest.mark.parametrize("kernel", CASES, ids=[k.key.split(".")[-1] for k in CASES])
def test_tape_gradient_matches_central_differences(cpu_blocks, kernel, width, threads):
    rng = np.random.default_rng(17)
    xs = rng.uniform(0.5, 1.5, BLOCKS * N) * rng.choice([-1.0, 1.0], BLOCKS * N)
    g, h = rng.standard_normal(BLOCKS * N), rng.standard_normal(BLOCKS * N)
    got = tape_gradient(kernel, xs, width, threads, g, h)
    want = central_differences(kernel, xs, width, threads, g, h)
    assert np.abs(want).max() > 0.1      # (the case's gradient is not zero: the comparison means something)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


# --- the CUDA cooperative build: the same body text, compiled by NVRTC; run on the stand-in driver ----------
# the kernels through the per-lane merges, stacks and broadcasts (NVRTC takes minutes for all of them,
# and over ten under load for fft_lanes' two unrolled transforms, whose merges are scatter's)
MERGES = [k for k in CASES if k.key.split(".")[-1] in ("stack", "scatter", "from_thread", "lane_writes")]


def test_cuda_cooperative_builds_compile_for_sm90():
    """The merge kernels built for CUDA blocks of 32 threads (forward and adjoint) compile for sm_90."""
    from warp_interactive.codegen.module_source import generate_source
    from warp_interactive.lang import lower
    from warp_interactive.codegen.target import CUDA
    from warp_interactive.compiler import nvrtc
    try:
        nvrtc.version()
    except Exception as e:     # the NVRTC wheel is an optional extra
        pytest.skip(f"NVRTC is not available: {e}")
    kernels = [k.with_block_width(32) for k in MERGES]
    source = generate_source(lower(kernels), CUDA)
    for k in kernels:
        assert f"{k.cpp}_cuda_backward" in source and "adj_" in source
    cubin = nvrtc.compile_source(source, 90, False, False, "tile_grad_table_32", kind="cubin")
    assert cubin[:4] == b"\x7fELF"
    for k in kernels:
        assert f"{k.cpp}_cuda_forward".encode() in cubin and f"{k.cpp}_cuda_backward".encode() in cubin


@pytest.fixture
def cuda_stand_in(monkeypatch):
    """"cuda:0" on the stand-in driver (tests/support/cuda_fake.py: real NVRTC builds; a cooperative kernel
    runs through its CPU blocks entry), or the GPU where there is one."""
    if wp.is_cuda_available():
        yield None
        return
    pytest.importorskip("cuda.bindings.nvrtc", reason="the CUDA extra is not installed")
    from cuda_fake import stand_in
    yield from stand_in(monkeypatch)


@pytest.mark.parametrize("width,threads", [(32, 32 * BLOCKS - 13)])
@pytest.mark.parametrize("kernel", [k for k in MERGES if k.key.split(".")[-1] == "stack"],
                         ids=lambda k: k.key.split(".")[-1])
def test_cuda_tape_matches_cpu_blocks(cuda_stand_in, kernel, width, threads):
    """A wp.Tape on "cuda:0" replays the cooperative CUDA build's adjoint: the same gradient as the
    cooperative CPU blocks (checked against finite differences above)."""
    rng = np.random.default_rng(5)
    xs = rng.uniform(0.5, 1.5, BLOCKS * N)
    g, h = rng.standard_normal(BLOCKS * N), rng.standard_normal(BLOCKS * N)
    x = wp.array(xs, dtype=wp.float64, requires_grad=True, device="cuda:0")
    y = wp.zeros(len(xs), dtype=wp.float64, requires_grad=True, device="cuda:0")
    z = wp.zeros(len(xs), dtype=wp.float64, requires_grad=True, device="cuda:0")
    tape = wp.Tape()
    with tape:
        wp.launch(kernel, dim=threads, inputs=[x, y, z], block_dim=width, device="cuda:0")
    tape.backward(grads={y: wp.array(g, dtype=wp.float64, device="cuda:0"),
                         z: wp.array(h, dtype=wp.float64, device="cuda:0")})
    if cuda_stand_in is not None:
        assert cuda_stand_in.launches[-1][0] == f"{kernel.with_block_width(width).cpp}_cuda_backward"
    old = wp.config.enable_cpu_blocks
    wp.config.enable_cpu_blocks = True
    try:
        want = tape_gradient(kernel, xs, width, threads, g, h)
    finally:
        wp.config.enable_cpu_blocks = old
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-9, atol=1e-12)
