"""Vectors and matrices of every scalar type divide by a scalar, into a scalar and component-wise
(`v / s`, `s / v`, `m / s`, `s / m`, `wp.cw_div`), as warp-lang 1.19 allows. Integers divide as
the scalar division does: truncating toward zero, and x / 0 == 0 (our documented rule where
warp-lang's CPU build traps). Reference: NumPy, component by component."""

import numpy as np
import pytest

import warp_interactive as wp

INTS = [wp.int8, wp.uint8, wp.int16, wp.uint16, wp.int32, wp.uint32, wp.int64, wp.uint64]
FLOATS = [wp.float16, wp.float32, wp.float64]


def _ref_div(a, b, dtype):
    a, b = np.broadcast_arrays(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64))
    if dtype in FLOATS:
        return a / b
    safe = np.where(b == 0, 1, b)
    return np.where(b == 0, 0, np.trunc(a / safe))


def _kernel(dtype):
    vec3 = wp.types.vector(length=3, dtype=dtype)
    mat22 = wp.types.matrix(shape=(2, 2), dtype=dtype)

    def divide(s: wp.array(dtype=dtype), v: wp.array(dtype=vec3), w: wp.array(dtype=vec3),
               m: wp.array(dtype=mat22), n: wp.array(dtype=mat22), out_v: wp.array(dtype=vec3, ndim=2),
               out_m: wp.array(dtype=mat22, ndim=2)):
        i = wp.tid()
        out_v[i, 0] = v[i] / s[i]
        out_v[i, 1] = s[i] / v[i]
        out_v[i, 2] = wp.cw_div(v[i], w[i])
        out_m[i, 0] = m[i] / s[i]
        out_m[i, 1] = s[i] / m[i]
        out_m[i, 2] = wp.cw_div(m[i], n[i])

    return wp.Kernel(divide, key=f"composite_div_{dtype.__name__}"), vec3, mat22


@pytest.mark.parametrize("dtype", INTS + FLOATS, ids=lambda t: t.__name__)
def test_composite_division_matches_numpy(dtype):
    signed = dtype not in (wp.uint8, wp.uint16, wp.uint32, wp.uint64)
    s = np.array([2, 3, 0, 7] if not signed else [2, -3, 0, 7])
    v = np.array([[7, 9, 0], [8, 1, 3], [5, 6, 7], [100, 3, 7]] if not signed
                 else [[7, -9, 0], [-8, 1, 3], [5, -6, 7], [100, 3, -7]])
    w = np.array([[2, 4, 3], [0, 1, 2], [3, 3, 3], [7, 2, 1]] if not signed
                 else [[2, -4, 3], [0, 1, -2], [3, 3, 3], [-7, 2, 1]])
    m, n = v[:, :2].repeat(2, axis=0).reshape(4, 2, 2), w[:, 1:].repeat(2, axis=0).reshape(4, 2, 2)
    if dtype in FLOATS:   # no division by zero for floats: their inf/nan is IEEE's business
        s, v, w, m, n = (np.where(x == 0, 1, x) for x in (s, v, w, m, n))
    kernel, vec3, mat22 = _kernel(dtype)
    out_v, out_m = wp.zeros((4, 3), dtype=vec3), wp.zeros((4, 3), dtype=mat22)
    wp.launch(kernel, dim=4, inputs=[wp.array(s, dtype=dtype), wp.array(v, dtype=vec3), wp.array(w, dtype=vec3),
                                     wp.array(m, dtype=mat22), wp.array(n, dtype=mat22), out_v, out_m])
    tol = dict(rtol=2e-3) if dtype is wp.float16 else dict(rtol=1e-6)
    sv, sm = s[:, None], s[:, None, None]
    np.testing.assert_allclose(out_v.numpy()[:, 0], _ref_div(v, sv, dtype), **tol)
    np.testing.assert_allclose(out_v.numpy()[:, 1], _ref_div(sv, v, dtype), **tol)
    np.testing.assert_allclose(out_v.numpy()[:, 2], _ref_div(v, w, dtype), **tol)
    np.testing.assert_allclose(out_m.numpy()[:, 0], _ref_div(m, sm, dtype), **tol)
    np.testing.assert_allclose(out_m.numpy()[:, 1], _ref_div(sm, m, dtype), **tol)
    np.testing.assert_allclose(out_m.numpy()[:, 2], _ref_div(m, n, dtype), **tol)


@wp.kernel
def _float_div_loss(v: wp.array(dtype=wp.vec3), w: wp.array(dtype=wp.vec3), s: wp.array(dtype=float),
                    out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = wp.dot(wp.cw_div(v[i], w[i]) + v[i] / s[i], wp.vec3(1.0, 2.0, 3.0))


def test_float_division_gradients_unchanged():
    v_np, w_np, s_np = np.array([[1.0, 2.0, 3.0]]), np.array([[2.0, -4.0, 0.5]]), np.array([4.0])
    v = wp.array(v_np, dtype=wp.vec3, requires_grad=True)
    w = wp.array(w_np, dtype=wp.vec3, requires_grad=True)
    s = wp.array(s_np, dtype=float, requires_grad=True)
    out = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(_float_div_loss, dim=1, inputs=[v, w, s, out])
    tape.backward(grads={out: wp.ones(1, dtype=float)})
    c = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(v.grad.numpy()[0], c / w_np[0] + c / s_np[0], rtol=1e-6)
    np.testing.assert_allclose(w.grad.numpy()[0], -c * v_np[0] / w_np[0] ** 2, rtol=1e-6)
    np.testing.assert_allclose(s.grad.numpy(), [-(c * v_np[0]).sum() / s_np[0] ** 2], rtol=1e-6)
