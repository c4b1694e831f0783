"""Plain gradient additions (native/src/thread_pool.h ``plain_gradients_flag``): while a launch is
the only one in progress and runs a chunk on its calling thread alone, the flag is 1 and adjoints
add into gradients with plain reads and writes instead of atomics (core/atomic.h ``grad_add``).

The protocol is checked with a C entry that records, per chunk, whether the flag was set and
whether any other chunk (of this or another launch) ran at the same time: a plain chunk must never
overlap another. The kernel-level tests check the gradients that take the plain path (a periodic
stencil's neighbour reads, a tile FFT's loads and stores of vec2f) against NumPy, on one thread, on
the pool, and from several Python threads adding into one gradient at once (integer-valued
adjoints, so every order of the additions gives the same exact sums)."""

import ctypes
import shutil
import subprocess
import threading
import time

import numpy as np
import pytest

import warp_interactive as wp
from warp_interactive import _native

C_SOURCE = r"""
#include <stdint.h>
#include <time.h>

typedef struct {
    const int* flag;
    int64_t* stats;   /* [0] chunks, [1] plain chunks, [2] plain chunks overlapping another */
    int64_t spin_ns;   /* per index */
} args_t;

static int64_t g_running = 0;

static int64_t now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void entry(const void* args_, const void* bounds, int64_t begin, int64_t end) {
    const args_t* a = (const args_t*)args_;
    (void)bounds;
    int64_t others = __atomic_add_fetch(&g_running, 1, __ATOMIC_SEQ_CST) - 1;
    int plain = __atomic_load_n(a->flag, __ATOMIC_SEQ_CST);
    int64_t t0 = now();
    while (now() - t0 < a->spin_ns * (end - begin)) {
        /* another chunk running while the flag says plain: the protocol failed */
        if (__atomic_load_n(a->flag, __ATOMIC_SEQ_CST) && __atomic_load_n(&g_running, __ATOMIC_SEQ_CST) > 1)
            others = 1;
    }
    __atomic_fetch_add(&a->stats[0], 1, __ATOMIC_RELAXED);
    if (plain) __atomic_fetch_add(&a->stats[1], 1, __ATOMIC_RELAXED);
    if (plain && others) __atomic_fetch_add(&a->stats[2], 1, __ATOMIC_RELAXED);
    __atomic_sub_fetch(&g_running, 1, __ATOMIC_SEQ_CST);
}
"""


class Args(ctypes.Structure):
    _fields_ = [("flag", ctypes.c_void_p), ("stats", ctypes.c_void_p), ("spin_ns", ctypes.c_int64)]


@pytest.fixture(scope="module")
def clib(tmp_path_factory):
    cc = shutil.which("gcc") or shutil.which("cc")
    if cc is None:
        pytest.skip("no C compiler")
    d = tmp_path_factory.mktemp("plain_flag")
    (d / "k.c").write_text(C_SOURCE)
    subprocess.run([cc, "-O2", "-shared", "-fPIC", "-o", str(d / "k.so"), str(d / "k.c")], check=True)
    return ctypes.CDLL(str(d / "k.so"))


@pytest.fixture
def restore_threads():
    yield
    _native.set_num_threads(0)
    wp.config.num_threads = None


def _flag_value():
    return ctypes.c_int.from_address(_native.plain_gradients_flag()).value


def _launch(lib, total, nthreads, spin_ns=1000):
    stats = np.zeros(3, dtype=np.int64)
    args = Args(_native.plain_gradients_flag(), stats.ctypes.data, spin_ns)
    bounds = ctypes.c_int64(0)
    entry = ctypes.cast(lib.entry, ctypes.c_void_p).value
    _native.launch(entry, ctypes.addressof(args), ctypes.addressof(bounds), total, nthreads, 0)
    return stats


@pytest.mark.parametrize("nthreads", [1, 2])
def test_a_lone_launch_runs_plain_and_clears_the_flag(clib, restore_threads, nthreads):
    _native.set_num_threads(2)
    stats = _launch(clib, 300, nthreads)
    assert stats[0] > 1 and stats[2] == 0
    if nthreads == 1:
        assert stats[1] == stats[0]      # every chunk of a lone one-thread launch is plain
    assert _flag_value() == 0


def test_a_trivial_launch_is_never_plain(clib, restore_threads):
    assert _launch(clib, 1, 1)[1] == 0


def test_a_launch_starting_during_a_plain_chunk_waits_for_it(clib, restore_threads):
    """A launch that starts while another one's plain chunk runs (5 ms per index: a chunk of one
    index) waits for that chunk to end; the first launch's later chunks are not plain then."""
    first = {}
    t = threading.Thread(target=lambda: first.setdefault("stats", _launch(clib, 8, 1, spin_ns=5_000_000)))
    t.start()
    time.sleep(0.012)
    second = _launch(clib, 8, 1, spin_ns=1_000_000)
    t.join()
    assert first["stats"][1] >= 1                   # it ran plain before the second came
    assert first["stats"][2] == 0 and second[2] == 0
    assert _flag_value() == 0


def test_plain_chunks_never_overlap_other_launches(clib, restore_threads):
    """Python threads launching at once (one thread each, and on the pool): no plain chunk runs
    while another chunk does."""
    _native.set_num_threads(2)
    results, errors = [], []

    def worker(seed):
        try:
            for i in range(40):
                results.append(_launch(clib, 50 + 7 * ((seed + i) % 5), 1 + (seed + i) % 2, spin_ns=20000))
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(s,)) for s in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    total = np.sum(results, axis=0)
    assert total[2] == 0, f"{total[2]} plain chunks overlapped another chunk"
    assert _flag_value() == 0


# --- gradients through the plain path --------------------------------------------------------------
N = 64


@wp.func
def _wrap(i: int, n: int) -> int:
    r = i % n
    if r < 0:
        r += n
    return r


@wp.kernel(module="plain_gradients")
def stencil(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float), out: wp.array2d(dtype=float)):
    i, j = wp.tid()
    l = _wrap(i - 1, N)
    r = _wrap(i + 1, N)
    t = _wrap(j + 1, N)
    d = _wrap(j - 1, N)
    lap = a[r, j] + a[l, j] + a[i, t] + a[i, d] - 4.0 * a[i, j]
    adv = (a[r, j] - a[l, j]) * (b[i, t] - b[i, d])
    out[i, j] = 2.0 * lap + adv + 3.0 * a[i, j]


@wp.kernel(module="plain_gradients_fft")
def row_fft(x: wp.array2d(dtype=wp.vec2f), y: wp.array2d(dtype=wp.vec2f)):
    i, _, _ = wp.tid()
    t = wp.tile_load(x, shape=(1, N), offset=(i, 0))
    wp.tile_fft(t)
    wp.tile_store(y, t, offset=(i, 0))


def _roll(x, di, dj):
    return np.roll(np.roll(x, -di, axis=0), -dj, axis=1)      # x[i + di, j + dj], periodic


def _stencil_grads(a, b, g):
    """d(sum(g * out))/da and /db of the stencil, by hand in float64 (adjoints of shifted reads
    are the adjoint shifted back)."""
    a, b, g = (v.astype(np.float64) for v in (a, b, g))
    db_t = _roll(b, 0, 1) - _roll(b, 0, -1)
    da_r = _roll(a, 1, 0) - _roll(a, -1, 0)
    ga = (-8.0 + 3.0) * g
    for di, dj in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        ga += _roll(2.0 * g, -di, -dj)
    ga += _roll(g * db_t, -1, 0) - _roll(g * db_t, 1, 0)
    gb = _roll(g * da_r, 0, -1) - _roll(g * da_r, 0, 1)
    return ga, gb


def _int_data(seed):
    rng = np.random.default_rng(seed)
    return [rng.integers(-4, 5, size=(N, N)).astype(np.float32) for _ in range(3)]


def _stencil_backward(a, b, g, threads, repeats=1):
    wp.config.num_threads = threads
    A = wp.array(a, dtype=float, requires_grad=True)
    B = wp.array(b, dtype=float, requires_grad=True)
    out = wp.zeros((N, N), dtype=float, requires_grad=True)
    for _ in range(repeats):
        out.grad.assign(g)
        wp.launch(stencil, dim=(N, N), inputs=[A, B], outputs=[out], adj_inputs=[A.grad, B.grad],
                  adj_outputs=[out.grad], adjoint=True)
    return A.grad.numpy(), B.grad.numpy()


@pytest.mark.parametrize("threads", [1, 2])
def test_stencil_gradients(restore_threads, threads):
    a, b, g = _int_data(1)
    ga, gb = _stencil_backward(a, b, g, threads)
    ea, eb = _stencil_grads(a, b, g)
    # integer-valued data: every partial sum is exact, in any order of the additions
    np.testing.assert_array_equal(ga, ea)
    np.testing.assert_array_equal(gb, eb)


def test_stencil_gradients_from_python_threads_at_once(restore_threads):
    """Several Python threads accumulate into one gradient at once: none of their additions is
    lost (a plain chunk never overlaps another launch)."""
    a, b, g = _int_data(2)
    wp.config.num_threads = 1
    A = wp.array(a, dtype=float, requires_grad=True)
    B = wp.array(b, dtype=float, requires_grad=True)
    repeats, nthreads, errors = 15, 3, []

    def worker():
        try:
            out = wp.zeros((N, N), dtype=float, requires_grad=True)
            for _ in range(repeats):
                out.grad.assign(g)
                wp.launch(stencil, dim=(N, N), inputs=[A, B], outputs=[out], adj_inputs=[A.grad, B.grad],
                          adj_outputs=[out.grad], adjoint=True)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=worker) for _ in range(nthreads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    ea, eb = _stencil_grads(a, b, g)
    np.testing.assert_array_equal(A.grad.numpy(), ea * repeats * nthreads)
    np.testing.assert_array_equal(B.grad.numpy(), eb * repeats * nthreads)


@pytest.mark.parametrize("threads", [1, 2])
def test_tile_fft_gradients(restore_threads, threads):
    """The FFT's adjoint is the unnormalised inverse transform; the store's adjoint takes y's
    gradient (leaving zeros) and the load's adds it into x's."""
    wp.config.num_threads = threads
    rng = np.random.default_rng(3)
    x = rng.standard_normal((N, N, 2)).astype(np.float32)
    g = rng.standard_normal((N, N, 2)).astype(np.float32)
    X = wp.array(x, dtype=wp.vec2f, requires_grad=True)
    Y = wp.zeros((N, N), dtype=wp.vec2f, requires_grad=True)
    Y.grad.assign(g)
    wp.launch_tiled(row_fft, dim=[N, 1], inputs=[X], outputs=[Y], adj_inputs=[X.grad], adj_outputs=[Y.grad],
                    adjoint=True, block_dim=1)
    gc = g[..., 0].astype(np.float64) + 1j * g[..., 1]
    expect = np.fft.ifft(gc, axis=1) * N
    got = X.grad.numpy()
    np.testing.assert_allclose(got[..., 0], expect.real, atol=2e-4)
    np.testing.assert_allclose(got[..., 1], expect.imag, atol=2e-4)
    assert not Y.grad.numpy().any()
