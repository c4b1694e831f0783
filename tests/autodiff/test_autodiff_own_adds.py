"""`a[i] += v` at the thread's own index (codegen/own_index.py, ``own_adds``): a plain read and
write instead of an atomic where no other thread can update the element, so a lane-blocked
forward body vectorises. The values are the atomic's bit for bit (checked against the same kernel
accumulating in a local, and against NumPy), gradients against central finite differences in
float64, and the kernels where another thread could reach the element keep their atomics."""

import numpy as np
import pytest

import warp_interactive as wp
from warp_interactive.codegen.module_source import generate_source
from warp_interactive.lang import lower


def _make(T):
    V = wp.types.vector(3, T)

    @wp.kernel(module=f"own_adds_{T.__name__}")
    def pull_add(pos: wp.array(dtype=V), mass: wp.array(dtype=T), acc: wp.array(dtype=V), n: int):
        i = wp.tid()
        p = pos[i]
        for j in range(n):
            d = pos[j] - p
            r2 = wp.dot(d, d) + T(0.01)
            acc[i] += d * (mass[j] / (r2 * wp.sqrt(r2)))

    @wp.kernel(module=f"own_adds_{T.__name__}")
    def pull_local(pos: wp.array(dtype=V), mass: wp.array(dtype=T), acc: wp.array(dtype=V), n: int):
        i = wp.tid()
        p = pos[i]
        a = V()
        for j in range(n):
            d = pos[j] - p
            r2 = wp.dot(d, d) + T(0.01)
            a = a + d * (mass[j] / (r2 * wp.sqrt(r2)))
        acc[i] = a

    @wp.kernel(module=f"own_adds_{T.__name__}")
    def decay(x: wp.array(dtype=T), w: wp.array(dtype=T), s: wp.array(dtype=T), n: int):
        i = wp.tid()
        for j in range(n):
            s[i] -= w[j] * wp.sin(x[i] * T(j + 1))     # atomic_sub at the own index

    return pull_add, pull_local, decay


KERNELS = {np.float32: _make(wp.float32), np.float64: _make(wp.float64)}


def _nbody_data(n, dtype, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, 3)).astype(dtype), rng.uniform(0.5, 1.5, n).astype(dtype)


def _run(kernel, pos, mass, dtype):
    V = wp.types.vector(3, wp.float32 if dtype == np.float32 else wp.float64)
    p = wp.array(pos, dtype=V, requires_grad=True)
    m = wp.array(mass, requires_grad=True)
    acc = wp.zeros(len(mass), dtype=V, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(kernel, dim=len(mass), inputs=[p, m, acc, len(mass)], device="cpu")
    seed = np.ones((len(mass), 3), dtype)
    tape.backward(grads={acc: wp.array(seed, dtype=V)})
    return acc.numpy(), p.grad.numpy(), m.grad.numpy()


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("n", [1, 8, 37, 300])
def test_own_add_matches_the_local_accumulator_bitwise(dtype, n):
    pull_add, pull_local, _ = KERNELS[dtype]
    assert "wp::atomic_add_own(var_acc" in generate_source(lower([pull_add]))
    pos, mass = _nbody_data(n, dtype)
    a_add, gp_add, gm_add = _run(pull_add, pos, mass, dtype)
    a_loc, gp_loc, gm_loc = _run(pull_local, pos, mass, dtype)
    np.testing.assert_array_equal(a_add, a_loc)      # the same adds in the same order
    # the gradients are sums of many threads' atomic adds, in an order that changes run to run:
    # an element that cancels to near zero differs by rounding relative to the largest terms
    tol = 1e-4 if dtype == np.float32 else 1e-11
    for g_add, g_loc in ((gp_add, gp_loc), (gm_add, gm_loc)):
        np.testing.assert_allclose(g_add, g_loc, rtol=tol, atol=tol * max(1.0, np.abs(g_loc).max()))


def test_own_add_gradients_match_finite_differences():
    pull_add = KERNELS[np.float64][0]
    n, h = 19, 1e-6
    pos, mass = _nbody_data(n, np.float64, seed=4)
    _, gp, gm = _run(pull_add, pos, mass, np.float64)

    def loss(p, m):
        return float(_run(pull_add, p, m, np.float64)[0].sum())

    for k in (0, 7, n - 1):
        for c in range(3):
            up, down = pos.copy(), pos.copy()
            up[k, c] += h
            down[k, c] -= h
            assert gp[k, c] == pytest.approx((loss(up, mass) - loss(down, mass)) / (2 * h), rel=1e-6, abs=1e-7)
        up, down = mass.copy(), mass.copy()
        up[k] += h
        down[k] -= h
        assert gm[k] == pytest.approx((loss(pos, up) - loss(pos, down)) / (2 * h), rel=1e-6, abs=1e-7)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
def test_own_sub_matches_numpy_and_finite_differences(dtype):
    decay = KERNELS[dtype][2]
    assert "wp::atomic_sub_own(var_s" in generate_source(lower([decay]))
    n, m = 53, 6
    rng = np.random.default_rng(9)
    xs, ws, s0 = rng.uniform(0.2, 1.0, n), rng.uniform(0.5, 1.5, m), rng.normal(size=n)

    def run(xv, wv):
        x, w = wp.array(xv.astype(dtype), requires_grad=True), wp.array(wv.astype(dtype), requires_grad=True)
        s = wp.array(s0.astype(dtype), requires_grad=True)
        tape = wp.Tape()
        with tape:
            wp.launch(decay, dim=n, inputs=[x, w, s, m], device="cpu")
        tape.backward(grads={s: wp.array(np.ones(n, dtype))})
        return s.numpy(), x.grad.numpy(), w.grad.numpy()

    s, gx, gw = run(xs, ws)
    j = np.arange(1, m + 1)
    xv, wv = xs.astype(dtype).astype(np.float64), ws.astype(dtype).astype(np.float64)
    tol = 2e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(s, s0.astype(dtype) - (wv * np.sin(np.outer(xv, j))).sum(1), rtol=tol, atol=tol)
    np.testing.assert_allclose(gx, -(wv * j * np.cos(np.outer(xv, j))).sum(1), rtol=tol * 5, atol=tol * 5)
    np.testing.assert_allclose(gw, -np.sin(np.outer(xv, j)).sum(0), rtol=tol * 5, atol=tol * 5)
    if dtype == np.float64:
        h = 1e-6
        for k in (0, 3):
            up, down = ws.copy(), ws.copy()
            up[k] += h
            down[k] -= h
            fd = (run(xs, up)[0].sum() - run(xs, down)[0].sum()) / (2 * h)
            assert gw[k] == pytest.approx(fd, rel=1e-6)


@wp.kernel
def neighbour_add(x: wp.array(dtype=float), acc: wp.array(dtype=float)):
    i = wp.tid()
    acc[i] += x[i]
    acc[(i + 1) % acc.shape[0]] += x[i]     # another thread's element: atomics stay


@wp.kernel
def two_outputs(x: wp.array(dtype=float), acc: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    acc[i] += x[i]
    out[i] = 2.0 * x[i]     # out may alias acc (a view shifted by one): acc keeps its atomics


@wp.kernel
def bins(x: wp.array(dtype=float), hist: wp.array(dtype=float)):
    i = wp.tid()
    hist[i % 4] += x[i]


@pytest.mark.parametrize("kernel,array", [(neighbour_add, "acc"), (two_outputs, "acc"), (bins, "hist")])
def test_other_threads_elements_keep_atomics(kernel, array):
    src = generate_source(lower([kernel]))
    assert "atomic_add_own" not in src and f"wp::atomic_add(var_{array}" in src


def test_shared_bins_still_sum_every_thread():
    n = 100_003
    x = wp.array(np.ones(n, np.float32))
    hist = wp.zeros(4, dtype=float)
    wp.launch(bins, dim=n, inputs=[x, hist], device="cpu")
    np.testing.assert_array_equal(hist.numpy(), [len(range(k, n, 4)) for k in range(4)])
