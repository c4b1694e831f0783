"""NaN in min/max/clamp, vector reductions, atomic_min/max and their adjoints: warp-lang 1.19
treats NaN as missing (C's fmin/fmax), so the non-NaN operand wins and gradients go to the operand
the forward picked. References: NumPy's fmin/fmax, and the chain rule of min(max(lo, x), hi)."""

from typing import Any

import numpy as np
import pytest

import warp_interactive as wp

NAN = float("nan")
FLOATS = [wp.float16, wp.float32, wp.float64]
PAIRS = [(-1.0, NAN), (NAN, -1.0), (NAN, NAN), (-1.0, 2.0), (NAN, 2.0), (2.0, NAN), (3.0, 3.0),
         (0.0, -0.0), (-np.inf, NAN), (NAN, np.inf)]


@wp.kernel
def minmax_clamp(a: wp.array(dtype=Any), b: wp.array(dtype=Any), mn: wp.array(dtype=Any),
                 mx: wp.array(dtype=Any), cl: wp.array(dtype=Any)):
    i = wp.tid()
    mn[i] = wp.min(a[i], b[i])
    mx[i] = wp.max(a[i], b[i])
    cl[i] = wp.clamp(a[i], a.dtype(-1.0), b[i])


def _fclamp(x, lo, hi):
    return np.fmin(np.fmax(lo, x), hi)


def _same(actual, expected):
    np.testing.assert_array_equal(np.asarray(actual, dtype=np.float64), np.asarray(expected, dtype=np.float64))


@pytest.mark.parametrize("dtype", FLOATS)
def test_scalar_min_max_clamp_treat_nan_as_missing(dtype):
    a_np = np.array([p[0] for p in PAIRS])
    b_np = np.array([p[1] for p in PAIRS])
    a, b = wp.array(a_np, dtype=dtype), wp.array(b_np, dtype=dtype)
    mn, mx, cl = (wp.zeros(len(PAIRS), dtype=dtype) for _ in range(3))
    wp.launch(minmax_clamp, dim=len(PAIRS), inputs=[a, b, mn, mx, cl])
    _same(mn.numpy(), np.fmin(a_np, b_np))
    _same(mx.numpy(), np.fmax(a_np, b_np))
    _same(cl.numpy(), _fclamp(a_np, -1.0, b_np))


@wp.kernel
def vec_minmax(v: wp.array(dtype=wp.vec3), w: wp.array(dtype=wp.vec3), mn: wp.array(dtype=wp.vec3),
               rmn: wp.array(dtype=float), rmx: wp.array(dtype=float), amn: wp.array(dtype=wp.uint32)):
    i = wp.tid()
    mn[i] = wp.min(v[i], w[i])
    rmn[i] = wp.min(v[i])
    rmx[i] = wp.max(v[i])
    amn[i] = wp.argmin(v[i])


def test_vector_min_max_and_reductions_skip_nan():
    v_np = np.array([[NAN, 2.0, -1.0], [-1.0, NAN, 2.0], [2.0, -1.0, NAN], [NAN, NAN, NAN], [1.0, 1.0, 0.5]])
    w_np = v_np[::-1].copy()
    n = len(v_np)
    v, w = wp.array(v_np, dtype=wp.vec3), wp.array(w_np, dtype=wp.vec3)
    mn = wp.zeros(n, dtype=wp.vec3)
    rmn, rmx = wp.zeros(n, dtype=float), wp.zeros(n, dtype=float)
    amn = wp.zeros(n, dtype=wp.uint32)
    wp.launch(vec_minmax, dim=n, inputs=[v, w, mn, rmn, rmx, amn])
    _same(mn.numpy(), np.fmin(v_np, w_np))
    _same(rmn.numpy(), [-1.0, -1.0, -1.0, NAN, 0.5])
    _same(rmx.numpy(), [2.0, 2.0, 2.0, NAN, 1.0])
    np.testing.assert_array_equal(amn.numpy(), [2, 0, 1, 0, 2])


@wp.kernel
def clamp_out(x: wp.array(dtype=Any), lo: wp.array(dtype=Any), hi: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    i = wp.tid()
    out[i] = wp.clamp(x[i], lo[i], hi[i])


# (x, lo, hi) -> gradients (x, lo, hi): the output is min(max(lo, x), hi), the gradient goes to
# the operand it came from; ties of max(lo, x) go to x, ties of min(m, hi) to hi
CLAMP_GRADS = [
    ((NAN, -1.0, 1.0), (0.0, 1.0, 0.0)),
    ((NAN, 1.0, -1.0), (0.0, 0.0, 1.0)),
    ((0.5, NAN, 1.0), (1.0, 0.0, 0.0)),
    ((2.0, NAN, 1.0), (0.0, 0.0, 1.0)),
    ((-2.0, -1.0, NAN), (0.0, 1.0, 0.0)),
    ((0.5, -1.0, 1.0), (1.0, 0.0, 0.0)),
    ((-3.0, -1.0, 1.0), (0.0, 1.0, 0.0)),
    ((3.0, -1.0, 1.0), (0.0, 0.0, 1.0)),
    ((0.0, 1.0, -1.0), (0.0, 0.0, 1.0)),
    ((-1.0, -1.0, 1.0), (1.0, 0.0, 0.0)),
    ((1.0, -1.0, 1.0), (0.0, 0.0, 1.0)),
]


@pytest.mark.parametrize("dtype", FLOATS)
def test_clamp_adjoint_follows_the_forward(dtype):
    cols = [wp.array([r[0][k] for r in CLAMP_GRADS], dtype=dtype, requires_grad=True) for k in range(3)]
    out = wp.zeros(len(CLAMP_GRADS), dtype=dtype, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(clamp_out, dim=len(CLAMP_GRADS), inputs=[*cols, out])
    x, lo, hi = (np.array([r[0][k] for r in CLAMP_GRADS]) for k in range(3))
    _same(out.numpy(), _fclamp(x, lo, hi))
    tape.backward(grads={out: wp.ones(len(CLAMP_GRADS), dtype=dtype)})
    for k in range(3):
        _same(cols[k].grad.numpy(), [r[1][k] for r in CLAMP_GRADS])


@wp.kernel
def vec_reduce(v: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = wp.min(v[i]) + 10.0 * wp.max(v[i])


def test_vector_reduction_adjoint_reaches_the_picked_component():
    v_np = np.array([[NAN, 2.0, -1.0], [-1.0, NAN, 2.0], [3.0, 1.0, 1.0]])
    v = wp.array(v_np, dtype=wp.vec3, requires_grad=True)
    out = wp.zeros(3, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(vec_reduce, dim=3, inputs=[v, out])
    tape.backward(grads={out: wp.ones(3, dtype=float)})
    _same(v.grad.numpy(), [[0.0, 10.0, 1.0], [1.0, 0.0, 10.0], [10.0, 1.0, 0.0]])


@wp.kernel
def atomic_minmax(a: wp.array(dtype=Any), b: wp.array(dtype=Any), smin: wp.array(dtype=Any),
                  smax: wp.array(dtype=Any), old: wp.array(dtype=Any)):
    i = wp.tid()
    smin[i] = a[i]
    smax[i] = a[i]
    old[i] = wp.atomic_min(smin, i, b[i])
    wp.atomic_max(smax, i, b[i])


@pytest.mark.parametrize("dtype", [wp.float32, wp.float64])
def test_atomic_min_max_treat_nan_as_missing(dtype):
    a_np = np.array([p[0] for p in PAIRS])
    b_np = np.array([p[1] for p in PAIRS])
    a, b = wp.array(a_np, dtype=dtype), wp.array(b_np, dtype=dtype)
    smin, smax, old = (wp.zeros(len(PAIRS), dtype=dtype) for _ in range(3))
    wp.launch(atomic_minmax, dim=len(PAIRS), inputs=[a, b, smin, smax, old])
    _same(smin.numpy(), np.fmin(a_np, b_np))
    _same(smax.numpy(), np.fmax(a_np, b_np))
    _same(old.numpy(), a_np)


@wp.kernel
def atomic_min_grad(slot: wp.array(dtype=float), value: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_min(slot, i, value[i])


def test_atomic_min_adjoint_goes_to_the_value_that_was_kept():
    rows = [(NAN, NAN, 1.0), (NAN, 2.0, 1.0), (2.0, NAN, 0.0), (5.0, 2.0, 1.0), (2.0, 5.0, 0.0)]
    slot = wp.array([r[0] for r in rows], dtype=float, requires_grad=True)
    value = wp.array([r[1] for r in rows], dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(atomic_min_grad, dim=len(rows), inputs=[slot, value])
    tape.backward(grads={slot: wp.ones(len(rows), dtype=float)})
    _same(value.grad.numpy(), [r[2] for r in rows])


@pytest.mark.parametrize("a, b", PAIRS)
def test_python_scope_matches_numpy(a, b):
    _same(wp.min(a, b), np.fmin(a, b))
    _same(wp.max(a, b), np.fmax(a, b))
    _same(wp.clamp(a, -1.0, b), _fclamp(a, -1.0, b))
