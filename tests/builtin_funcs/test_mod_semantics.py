"""`%` / `wp.mod` and `//` follow warp-lang: the remainder is truncated (C's `%` and `fmod`: the
sign of `a`, `-7 % 3 == -1`, `mod(-1.75, 1.0) == -0.75`), `//` floors (integers: the quotient
rounded down; floats: floor(a / b)). References: NumPy's `np.fmod` / `np.trunc` / `np.floor`,
and central finite differences for the gradient (d/da = 1, d/db = -trunc(a / b))."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import warp_interactive as wp

SIGNED = [wp.int8, wp.int16, wp.int32, wp.int64]
UNSIGNED = [wp.uint8, wp.uint16, wp.uint32, wp.uint64]
FLOATS = [wp.float16, wp.float32, wp.float64]

# every sign combination, exact multiples (remainder 0) and |a| < |b|
INT_A = [-7, 7, -7, 7, -6, 6, 2, -2, 0]
INT_B = [3, -3, -3, 2, 3, -3, 5, 5, 4]
UINT_A = [7, 7, 1, 9, 0, 250]
UINT_B = [3, 2, 5, 4, 7, 7]
FLOAT_A = [-7.0, 7.0, -7.0, -1.75, 1.75, 5.5, -5.5, 0.25, 6.0]
FLOAT_B = [3.0, -3.0, -3.0, 1.0, -1.0, 2.0, -2.0, 0.75, -3.0]


def _kernel(dtype):
    @wp.kernel(module="unique")
    def ops(a: wp.array(dtype=dtype), b: wp.array(dtype=dtype), rem: wp.array(dtype=dtype),
            mod: wp.array(dtype=dtype), fdiv: wp.array(dtype=dtype)):
        i = wp.tid()
        rem[i] = a[i] % b[i]
        mod[i] = wp.mod(a[i], b[i])
        fdiv[i] = a[i] // b[i]
    return ops


def _run(dtype, a_np, b_np):
    n = len(a_np)
    a, b = wp.array(a_np, dtype=dtype), wp.array(b_np, dtype=dtype)
    outs = [wp.zeros(n, dtype=dtype) for _ in range(3)]
    wp.launch(_kernel(dtype), dim=n, inputs=[a, b, *outs])
    return [o.numpy() for o in outs]


def _values(dtype):
    if dtype in SIGNED:
        return INT_A, INT_B
    return (UINT_A, UINT_B) if dtype in UNSIGNED else (FLOAT_A, FLOAT_B)


@pytest.mark.parametrize("dtype", SIGNED + UNSIGNED + FLOATS, ids=lambda t: t.__name__)
def test_kernel_mod_truncates_and_floordiv_floors(dtype):
    av, bv = _values(dtype)
    a_np, b_np = np.array(av, dtype=dtype._np_dtype), np.array(bv, dtype=dtype._np_dtype)
    rem, mod, fdiv = _run(dtype, a_np, b_np)
    want_rem = np.fmod(a_np, b_np)
    # C's remainder: a == b * trunc(a / b) + rem, with the sign of a
    np.testing.assert_array_equal(rem, want_rem)
    np.testing.assert_array_equal(mod, want_rem)
    if dtype in FLOATS:
        np.testing.assert_array_equal(want_rem, a_np - b_np * np.trunc(a_np / b_np))
        np.testing.assert_array_equal(fdiv, np.floor(a_np / b_np))
    else:
        np.testing.assert_array_equal(fdiv, np.floor_divide(a_np, b_np))


@pytest.mark.parametrize("a, b, rem, fdiv", [
    (-7, 3, -1, -3), (7, -3, 1, -3), (-7, -3, -1, 2), (7, 2, 1, 3), (-1.75, 1.0, -0.75, -2.0),
    (1.0, 0.1, 1.0 - 0.1 * 9.0, 10.0),   # floats' // is floor(a / b): 1 / 0.1 rounds to 10
], ids=str)
def test_documented_examples_float32_and_int32(a, b, rem, fdiv):
    dtype = wp.float32 if isinstance(a, float) else wp.int32
    r, m, f = _run(dtype, np.array([a], dtype=dtype._np_dtype), np.array([b], dtype=dtype._np_dtype))
    np.testing.assert_allclose(r, [rem], rtol=1e-6)
    np.testing.assert_array_equal(m, r)
    np.testing.assert_array_equal(f, [fdiv])


@wp.kernel
def _vector_ops(a: wp.array(dtype=wp.vec3), b: wp.array(dtype=wp.vec3), ai: wp.array(dtype=wp.vec3i),
                bi: wp.array(dtype=wp.vec3i), out: wp.array(dtype=wp.vec3), outi: wp.array(dtype=wp.vec3i)):
    out[0] = a[0] % b[0]
    out[1] = wp.mod(a[0], b[0])
    outi[0] = ai[0] % bi[0]
    outi[1] = wp.mod(ai[0], bi[0])


def test_vectors_componentwise():
    a, b = np.array([-7.0, 7.0, -1.75], np.float32), np.array([3.0, -3.0, 1.0], np.float32)
    ai, bi = np.array([-7, 7, -7], np.int32), np.array([3, -3, -3], np.int32)
    out, outi = wp.zeros(2, dtype=wp.vec3), wp.zeros(2, dtype=wp.vec3i)
    wp.launch(_vector_ops, dim=1, inputs=[wp.array([a], dtype=wp.vec3), wp.array([b], dtype=wp.vec3),
                                          wp.array([ai], dtype=wp.vec3i), wp.array([bi], dtype=wp.vec3i),
                                          out, outi])
    np.testing.assert_array_equal(out.numpy(), [np.fmod(a, b)] * 2)
    np.testing.assert_array_equal(outi.numpy(), [np.fmod(ai, bi)] * 2)


@wp.kernel
def _constants(o: wp.array(dtype=int)):
    o[0] = -7 % 3          # folded at build time: C's rule as at run time
    o[1] = 7 % -3
    o[2] = -7 // 3


def test_constant_folding_matches_runtime():
    o = wp.zeros(3, dtype=int)
    wp.launch(_constants, dim=1, inputs=[o])
    assert o.numpy().tolist() == [-1, 1, -3]


@pytest.mark.parametrize("dtype", [wp.int8, wp.int32, wp.int64, wp.float16, wp.float32, wp.float64],
                         ids=lambda t: t.__name__)
def test_python_scope_scalars(dtype):
    for a, b in zip(*_values(dtype)):
        want = np.fmod(dtype._np_dtype.type(a), dtype._np_dtype.type(b))
        assert float(dtype(a) % dtype(b)) == want
        assert float(wp.mod(dtype(a), dtype(b))) == want
        assert float(dtype(a) % b) == want and float(a % dtype(b)) == want


def test_python_scope_vectors():
    v, w = wp.vec3(-7.0, 7.0, -1.75), wp.vec3(3.0, -3.0, 1.0)
    want = np.fmod(np.array(v), np.array(w))
    np.testing.assert_array_equal(np.array(v % w), want)
    np.testing.assert_array_equal(np.array(wp.mod(v, w)), want)
    np.testing.assert_array_equal(np.array(v % 3.0), np.fmod(np.array(v), 3.0))
    assert isinstance(v % w, wp.vec3)
    np.testing.assert_array_equal(np.array(wp.vec3i(-7, 7, -7) % wp.vec3i(3, -3, -3)), [-1, 1, -1])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(-2**31, 2**31 - 1), st.integers(-2**31, 2**31 - 1)
                          .filter(lambda b: b != 0)), min_size=1, max_size=16))
def test_int32_matches_c_truncation(pairs):
    a = np.array([p[0] for p in pairs], np.int32)
    b = np.array([p[1] for p in pairs], np.int32)
    rem, _, fdiv = _run(wp.int32, a, b)
    big_a, big_b = a.astype(np.int64), b.astype(np.int64)
    np.testing.assert_array_equal(rem, np.fmod(big_a, big_b).astype(np.int32))
    np.testing.assert_array_equal(fdiv, np.floor_divide(big_a, big_b).astype(np.int32))


# --- gradients -------------------------------------------------------------------------------

def _grad_kernel(dtype):
    @wp.kernel(module="unique")
    def f(a: wp.array(dtype=dtype), b: wp.array(dtype=dtype), o: wp.array(dtype=dtype)):
        i = wp.tid()
        o[i] = a[i] % b[i] * dtype(2.0) + wp.mod(a[i], b[i])
    return f


GRAD_A = [-7.2, 7.2, -7.2, -1.75, 5.5, 0.3, 4.1]
GRAD_B = [3.0, -3.0, -3.0, 1.1, 2.0, 0.7, -1.3]


@pytest.mark.parametrize("dtype", [wp.float32, wp.float64], ids=lambda t: t.__name__)
def test_gradient_matches_finite_differences(dtype):
    a_np, b_np = np.array(GRAD_A, dtype._np_dtype), np.array(GRAD_B, dtype._np_dtype)
    a = wp.array(a_np, dtype=dtype, requires_grad=True)
    b = wp.array(b_np, dtype=dtype, requires_grad=True)
    o = wp.zeros(len(a_np), dtype=dtype, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(_grad_kernel(dtype), dim=len(a_np), inputs=[a, b, o])
    tape.backward(grads={o: wp.ones(len(a_np), dtype=dtype)})
    f = lambda x, y: 3.0 * np.fmod(x, y)   # noqa: E731
    h = 1e-3
    a64, b64 = a_np.astype(np.float64), b_np.astype(np.float64)
    fd_a = (f(a64 + h, b64) - f(a64 - h, b64)) / (2 * h)
    fd_b = (f(a64, b64 + h) - f(a64, b64 - h)) / (2 * h)
    np.testing.assert_allclose(a.grad.numpy(), fd_a, rtol=1e-3, atol=1e-3)
    np.testing.assert_allclose(b.grad.numpy(), fd_b, rtol=1e-3, atol=1e-3)
    np.testing.assert_allclose(b.grad.numpy(), -3.0 * np.trunc(a64 / b64), rtol=1e-6)


@wp.kernel
def _vec_grad(a: wp.array(dtype=wp.vec3), b: wp.array(dtype=wp.vec3), o: wp.array(dtype=float)):
    o[0] = wp.dot(a[0] % b[0], wp.vec3(1.0, 2.0, 3.0))


def test_vector_gradient_componentwise():
    a_np, b_np = np.array([-7.2, 7.2, -1.75], np.float32), np.array([3.0, -3.0, 1.1], np.float32)
    a = wp.array([a_np], dtype=wp.vec3, requires_grad=True)
    b = wp.array([b_np], dtype=wp.vec3, requires_grad=True)
    o = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(_vec_grad, dim=1, inputs=[a, b, o])
    tape.backward(loss=o)
    w = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(a.grad.numpy()[0], w)
    np.testing.assert_allclose(b.grad.numpy()[0], -w * np.trunc(a_np / b_np))


@wp.kernel
def _int_mod_in_differentiable(x: wp.array(dtype=float), n: wp.array(dtype=int), o: wp.array(dtype=float)):
    i = wp.tid()
    k = n[i] % 3                      # integer mod: no adjoint, still compiles in the backward pass
    v = wp.vec2i(n[i], -n[i]) % wp.vec2i(4, 4)
    o[i] = x[i] * float(k + v[1])


def test_integer_mod_in_differentiable_kernel():
    n_np = np.array([-7, 7, 5, -5], np.int32)
    x = wp.array(np.ones(4, np.float32), dtype=float, requires_grad=True)
    o = wp.zeros(4, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(_int_mod_in_differentiable, dim=4, inputs=[x, wp.array(n_np, dtype=int), o])
    tape.backward(grads={o: wp.ones(4, dtype=float)})
    want = np.fmod(n_np, 3) + np.fmod(-n_np, 4)
    np.testing.assert_array_equal(o.numpy(), want)
    np.testing.assert_array_equal(x.grad.numpy(), want)
