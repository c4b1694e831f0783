"""The fast CPU backward paths give exact gradients: plain (non-atomic) adjoints of reads at the
thread's own index (codegen/own_index.py, the entry's `_own` instance), the lane-blocked backward
bodies (codegen/lanes_backward.py) with their component-wise copies. Each kernel of the table is
checked against analytic gradients (NumPy, float64) and central finite differences, in float32 and
float64; arrays read at a neighbour's index, or passed twice, keep the atomic adjoints."""

import re

import numpy as np
import pytest

import warp_interactive as wp
from warp_interactive.codegen.module_source import generate_source
from warp_interactive.lang import lower


def _make(T):
    """The table's kernels for scalar type T (one module per type)."""
    c = T(0.1)

    @wp.kernel(module=f"fast_paths_{T.__name__}")
    def trig(x: wp.array(dtype=T), y: wp.array(dtype=T)):
        i = wp.tid()
        v = x[i]
        y[i] = wp.sin(v) * wp.exp(v * c) + wp.cos(v)

    @wp.kernel(module=f"fast_paths_{T.__name__}")
    def power(x: wp.array(dtype=T), y: wp.array(dtype=T)):
        i = wp.tid()
        y[i] = wp.pow(x[i], T(2.5)) + x[i] * wp.log(x[i])

    @wp.kernel(module=f"fast_paths_{T.__name__}")
    def branch(x: wp.array(dtype=T), y: wp.array(dtype=T)):
        i = wp.tid()
        v = x[i]
        if v > T(1.0):
            y[i] = wp.sin(v)
        else:
            y[i] = T(3.0) * v * v

    @wp.kernel(module=f"fast_paths_{T.__name__}")
    def twice(x: wp.array(dtype=T), y: wp.array(dtype=T)):
        i = wp.tid()
        a = x[i]
        b = x[i]            # a second read of the thread's own element
        y[i] = a * wp.exp(b)

    @wp.kernel(module=f"fast_paths_{T.__name__}")
    def neighbour(x: wp.array(dtype=T), y: wp.array(dtype=T)):
        i = wp.tid()
        j = wp.min(i + 1, x.shape[0] - 1)
        y[i] = x[i] * x[j]  # x[j] is another thread's element: x keeps atomic adjoints

    @wp.kernel(module=f"fast_paths_{T.__name__}")
    def own_atomic(x: wp.array(dtype=T), y: wp.array(dtype=T)):
        i = wp.tid()
        wp.atomic_add(y, i, x[i] * x[i])

    return {"trig": trig, "power": power, "branch": branch, "twice": twice,
            "neighbour": neighbour, "own_atomic": own_atomic}


KERNELS = {np.float32: _make(wp.float32), np.float64: _make(wp.float64)}


def _shift(v):
    return np.append(v[1:], v[-1])


# name -> (forward, gradient of sum(seed * forward)) in NumPy
REFERENCE = {
    "trig": (lambda v: np.sin(v) * np.exp(0.1 * v) + np.cos(v),
             lambda v, s: s * ((np.cos(v) + 0.1 * np.sin(v)) * np.exp(0.1 * v) - np.sin(v))),
    "power": (lambda v: v ** 2.5 + v * np.log(v),
              lambda v, s: s * (2.5 * v ** 1.5 + np.log(v) + 1.0)),
    "branch": (lambda v: np.where(v > 1, np.sin(v), 3 * v * v),
               lambda v, s: s * np.where(v > 1, np.cos(v), 6 * v)),
    "twice": (lambda v: v * np.exp(v), lambda v, s: s * (1 + v) * np.exp(v)),
    "neighbour": (lambda v: v * _shift(v),
                  lambda v, s: s * _shift(v) + np.append(0.0, (s * v)[:-1]) +
                  np.append(np.zeros(len(v) - 1), s[-1] * v[-1])),
    "own_atomic": (lambda v: v * v, lambda v, s: 2 * s * v),
}


def _data(n, dtype, seed=3):
    rng = np.random.default_rng(seed)
    return rng.uniform(0.3, 2.0, n).astype(dtype), rng.normal(size=n).astype(dtype)


def _tape_grad(kernel, xs, seed):
    x = wp.array(xs, requires_grad=True)
    y = wp.zeros(len(xs), dtype=x.dtype, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(kernel, dim=len(xs), inputs=[x, y])
    tape.backward(grads={y: seed})
    return y.numpy(), x.grad.numpy()


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("name", sorted(REFERENCE))
@pytest.mark.parametrize("n", [1, 7, 64, 1000, 100_003])
def test_gradients_match_numpy(name, dtype, n):
    xs, seed = _data(n, dtype)
    y, g = _tape_grad(KERNELS[dtype][name], xs, seed)
    fwd, grad = REFERENCE[name]
    v, s = xs.astype(np.float64), seed.astype(np.float64)
    tol = 2e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(y, fwd(v), rtol=tol, atol=tol)
    np.testing.assert_allclose(g, grad(v, s), rtol=tol * 4, atol=tol * 4)


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_gradients_match_finite_differences(name):
    n, h = 33, 1e-6
    xs, seed = _data(n, np.float64, seed=11)
    kernel = KERNELS[np.float64][name]
    _, g = _tape_grad(kernel, xs, seed)

    def loss(v):
        x = wp.array(v, dtype=wp.float64)
        y = wp.zeros(n, dtype=wp.float64)
        wp.launch(kernel, dim=n, inputs=[x, y])
        return float(np.dot(seed, y.numpy()))

    for k in (0, 5, n - 2, n - 1):
        up, down = xs.copy(), xs.copy()
        up[k] += h
        down[k] -= h
        assert g[k] == pytest.approx((loss(up) - loss(down)) / (2 * h), rel=1e-6, abs=1e-8)


@pytest.mark.parametrize("name,plain", [("trig", True), ("twice", True), ("own_atomic", True),
                                        ("neighbour", False)])
def test_plain_read_adjoints_only_for_own_index_arrays(name, plain):
    src = generate_source(lower([KERNELS[np.float32][name]]))
    assert (re.search(r"wp::adj_load\(var_x, .*, _own\);", src) is not None) == plain
    assert ("wp::grad_disjoint(" in src) == plain


@wp.kernel
def pair(a: wp.array(dtype=float), b: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    j = wp.min(i + 1, b.shape[0] - 1)
    y[i] = 2.0 * a[i] + 3.0 * b[j]   # a: own index only; b: a neighbour's


@pytest.mark.parametrize("n", [5, 4096, 100_000])
def test_same_array_twice_keeps_atomic_adjoints(n):
    """``a`` and ``b`` are one array: the entry's overlap check takes the atomic instance, and
    every thread's contributions arrive (2 from a[i], 3 from each neighbour's b[i+1])."""
    assert "wp::grad_disjoint(a.u_a, a.u_b)" in generate_source(lower([pair]))
    x = wp.array(np.linspace(0.5, 1.5, n).astype(np.float32), requires_grad=True)
    y = wp.zeros(n, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(pair, dim=n, inputs=[x, x, y])
    tape.backward(grads={y: np.ones(n, np.float32)})
    expect = np.full(n, 2.0)
    expect[1:] += 3.0
    expect[-1] += 3.0
    np.testing.assert_array_equal(x.grad.numpy(), expect)


@wp.kernel
def grid(x: wp.array2d(dtype=float), y: wp.array2d(dtype=float)):
    i, j = wp.tid()
    y[i, j] = wp.sin(x[i, j]) * x[i, j]


def test_two_dimensional_own_index():
    xs = np.random.default_rng(2).uniform(0.2, 1.5, (37, 19)).astype(np.float32)
    assert re.search(r"wp::adj_load\(var_x, .*, _own\);", generate_source(lower([grid])))
    x = wp.array(xs, requires_grad=True)
    y = wp.zeros(xs.shape, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(grid, dim=xs.shape, inputs=[x, y])
    tape.backward(grads={y: np.ones(xs.shape, np.float32)})
    v = xs.astype(np.float64)
    np.testing.assert_allclose(x.grad.numpy(), np.cos(v) * v + np.sin(v), rtol=2e-6)


@wp.kernel
def nbody(pos: wp.array(dtype=wp.vec3), mass: wp.array(dtype=float), acc: wp.array(dtype=wp.vec3),
          n: int):
    i = wp.tid()
    p = pos[i]
    a = wp.vec3(0.0, 0.0, 0.0)
    for j in range(n):
        d = pos[j] - p
        r2 = wp.dot(d, d) + 0.01
        a = a + d * (mass[j] / (r2 * wp.sqrt(r2)))
    acc[i] = a


def test_nbody_lanes_backward_copies_componentwise_and_matches_numpy():
    """The loop's carried `a` is copied per component in the lanes body (what lets GCC vectorise
    it); gradients of the float32 kernel against a float64 NumPy adjoint."""
    src = generate_source(lower([nbody]))
    assert "_backward_lanes(" in src and "wpi_lane_copy(" in src
    n = 77
    rng = np.random.default_rng(4)
    p, m, s = rng.normal(size=(n, 3)), rng.uniform(0.5, 1.5, n), rng.normal(size=(n, 3))
    pos = wp.array(p.astype(np.float32), dtype=wp.vec3, requires_grad=True)
    mass = wp.array(m.astype(np.float32), dtype=float, requires_grad=True)
    acc = wp.zeros(n, dtype=wp.vec3, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(nbody, dim=n, inputs=[pos, mass, acc, n])
    tape.backward(grads={acc: s.astype(np.float32)})
    # float64 reference: acc_i = sum_j d_ij m_j / r_ij^3 with d_ij = p_j - p_i, r^2 = |d|^2 + 0.01
    d = p[None, :, :] - p[:, None, :]
    r2 = (d * d).sum(-1) + 0.01
    inv3 = r2 ** -1.5
    sd = (s[:, None, :] * d).sum(-1)                          # s_i . d_ij
    g_mass = (sd * inv3).sum(0)
    # d acc_i / d d_ij = m_j (inv3 I - 3 r^-5 d d^T)
    w = m[None, :] * inv3                                     # coefficient of s_i
    q = -3.0 * m[None, :] * r2 ** -2.5 * sd                   # coefficient of d_ij
    gd = w[..., None] * s[:, None, :] + q[..., None] * d      # dL/dd_ij
    g_pos = gd.sum(0) - gd.sum(1)
    np.testing.assert_allclose(mass.grad.numpy(), g_mass, rtol=2e-4, atol=1e-3)
    np.testing.assert_allclose(pos.grad.numpy(), g_pos, rtol=2e-4, atol=1e-3)


@wp.kernel
def reassigned(x: wp.array(dtype=float), z: wp.array(dtype=float), y: wp.array(dtype=float),
               flip: int):
    i = wp.tid()
    if flip == 1:
        x = z            # x may hold z, which is read at a neighbour's index: atomic adds
    j = wp.min(i + 1, z.shape[0] - 1)
    y[i] = x[i] * 2.0 + z[j]


def test_reassigned_array_parameter_keeps_atomic_adjoints():
    assert not re.search(r"wp::adj_load\(var_x, .*, _own\);", generate_source(lower([reassigned])))
    n = 50_000
    x = wp.zeros(n, dtype=float, requires_grad=True)
    z = wp.array(np.ones(n, np.float32), requires_grad=True)
    y = wp.zeros(n, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(reassigned, dim=n, inputs=[x, z, y, 1])
    tape.backward(grads={y: np.ones(n, np.float32)})
    expect = np.full(n, 2.0)
    expect[1:] += 1.0
    expect[-1] += 1.0
    np.testing.assert_array_equal(z.grad.numpy(), expect)
    assert not x.grad.numpy().any()


@wp.kernel
def scaled_trig(x: wp.array(dtype=float), w: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    v = x[i]
    y[i] = w[i] * wp.sin(v) * wp.exp(v * 0.1) + v * v


def _scaled_trig_grads(case, n):
    """x.grad, w.grad (None when w has none) and y.grad after backward, for one launch shape:
    "contiguous" takes the backward's vectorised loop; the others its second (scalar) loop:
    every-other-element views, w without a gradient, y with retain_grad."""
    rng = np.random.default_rng(n)
    xs, ws, seed = (rng.uniform(0.3, 2.0, n).astype(np.float32) for _ in range(3))

    def arr(v, requires_grad=True, retain=False):
        if case == "strided":
            base = np.zeros(2 * n, np.float32)
            base[::2] = v
            return wp.array(base, requires_grad=requires_grad)[::2]
        return wp.array(v, requires_grad=requires_grad, retain_grad=retain)

    x, w = arr(xs), arr(ws, requires_grad=case != "no w grad")
    y = arr(np.zeros(n, np.float32), retain=case == "retain y")
    tape = wp.Tape()
    with tape:
        wp.launch(scaled_trig, dim=n, inputs=[x, w, y])
    tape.backward(grads={y: wp.array(seed) if case != "strided" else seed})
    return (xs, ws, seed), x.grad.numpy(), (w.grad.numpy() if w.grad is not None else None), y.grad.numpy()


@pytest.mark.parametrize("n", [3, 8, 1001, 65_543])
@pytest.mark.parametrize("case", ["contiguous", "strided", "no w grad", "retain y"])
def test_vectorised_backward_and_its_fallbacks_match_numpy(case, n):
    """The own-index backward's first loop runs only where every float array has a gradient and
    none retains it (decided once per launch, which lets GCC vectorise it); the same gradients,
    bit for bit, come from the scalar loop."""
    (xs, ws, seed), gx, gw, gy = _scaled_trig_grads(case, n)
    v, w, s = (a.astype(np.float64) for a in (xs, ws, seed))
    expect_x = s * (w * (np.cos(v) + 0.1 * np.sin(v)) * np.exp(0.1 * v) + 2 * v)
    np.testing.assert_allclose(gx, expect_x, rtol=2e-5, atol=1e-6)
    if case == "no w grad":
        assert gw is None
    else:
        np.testing.assert_allclose(gw, s * np.sin(v) * np.exp(0.1 * v), rtol=2e-5, atol=1e-6)
    # a store takes its element's gradient unless the array retains it
    np.testing.assert_array_equal(gy, seed if case == "retain y" else np.zeros(n, np.float32))
    _, gx_ref, _, _ = _scaled_trig_grads("contiguous", n)
    np.testing.assert_array_equal(gx.view(np.uint32), gx_ref.view(np.uint32))


def test_vectorised_backward_entry_checks_gradients_once():
    src = generate_source(lower([scaled_trig]))
    for p in ("x", "w", "y"):
        assert f"a.u_{p}.grad && !(a.u_{p}.flags & WPI_ARRAY_RETAIN_GRAD)" in src
    assert "__attribute__((always_inline)) void scaled_trig_" in src
