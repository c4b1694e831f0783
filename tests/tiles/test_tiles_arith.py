"""Tile operators with mixed element types (warp-lang 1.19's broadcasting rules): ``tile<float> *
vec3`` is a ``tile<vec3>``, ``vec3 / tile<float>``, ``tile<mat22> * tile<float>``... Forward
values against NumPy, gradients against central finite differences of the NumPy formula, and
the refused combinations as build errors (TypeError/ValueError as in warp-lang) at the user's
line."""

import inspect

import numpy as np
import pytest

import warp_interactive as wp

N = 5
C3 = np.array([1.0, 2.0, 4.0])
M22 = np.array([[1.0, 2.0], [4.0, 8.0]])


@wp.kernel
def s_mul_vec(a: wp.array(dtype=wp.float64), v: wp.array(dtype=wp.vec3d), m: wp.array(dtype=wp.mat22d),
              out: wp.array(dtype=wp.vec3d)):
    wp.tile_store(out, wp.tile_load(a, shape=N) * wp.vec3d(1.0, 2.0, 4.0))


@wp.kernel
def vec_mul_s(a: wp.array(dtype=wp.float64), v: wp.array(dtype=wp.vec3d), m: wp.array(dtype=wp.mat22d),
              out: wp.array(dtype=wp.vec3d)):
    wp.tile_store(out, wp.vec3d(1.0, 2.0, 4.0) * wp.tile_load(a, shape=N))


@wp.kernel
def s_div_vec(a: wp.array(dtype=wp.float64), v: wp.array(dtype=wp.vec3d), m: wp.array(dtype=wp.mat22d),
              out: wp.array(dtype=wp.vec3d)):
    wp.tile_store(out, wp.tile_load(a, shape=N) / wp.vec3d(1.0, 2.0, 4.0))


@wp.kernel
def vec_div_s(a: wp.array(dtype=wp.float64), v: wp.array(dtype=wp.vec3d), m: wp.array(dtype=wp.mat22d),
              out: wp.array(dtype=wp.vec3d)):
    wp.tile_store(out, wp.vec3d(1.0, 2.0, 4.0) / wp.tile_load(a, shape=N))


@wp.kernel
def tv_mul_ts(a: wp.array(dtype=wp.float64), v: wp.array(dtype=wp.vec3d), m: wp.array(dtype=wp.mat22d),
              out: wp.array(dtype=wp.vec3d)):
    wp.tile_store(out, wp.tile_load(v, shape=N) * wp.tile_load(a, shape=N))


@wp.kernel
def ts_mul_tv(a: wp.array(dtype=wp.float64), v: wp.array(dtype=wp.vec3d), m: wp.array(dtype=wp.mat22d),
              out: wp.array(dtype=wp.vec3d)):
    wp.tile_store(out, wp.tile_load(a, shape=N) * wp.tile_load(v, shape=N))


@wp.kernel
def tv_div_ts(a: wp.array(dtype=wp.float64), v: wp.array(dtype=wp.vec3d), m: wp.array(dtype=wp.mat22d),
              out: wp.array(dtype=wp.vec3d)):
    wp.tile_store(out, wp.tile_load(v, shape=N) / wp.tile_load(a, shape=N))


@wp.kernel
def ts_div_tv(a: wp.array(dtype=wp.float64), v: wp.array(dtype=wp.vec3d), m: wp.array(dtype=wp.mat22d),
              out: wp.array(dtype=wp.vec3d)):
    wp.tile_store(out, wp.tile_load(a, shape=N) / wp.tile_load(v, shape=N))


@wp.kernel
def lit_div_tv(a: wp.array(dtype=wp.float64), v: wp.array(dtype=wp.vec3d), m: wp.array(dtype=wp.mat22d),
               out: wp.array(dtype=wp.vec3d)):
    wp.tile_store(out, 2.0 / wp.tile_load(v, shape=N))


@wp.kernel
def tv_mul_lit(a: wp.array(dtype=wp.float64), v: wp.array(dtype=wp.vec3d), m: wp.array(dtype=wp.mat22d),
               out: wp.array(dtype=wp.vec3d)):
    wp.tile_store(out, wp.tile_load(v, shape=N) * 2.0 - wp.tile_load(v, shape=N) / 4.0)


@wp.kernel
def s_mul_mat(a: wp.array(dtype=wp.float64), v: wp.array(dtype=wp.vec3d), m: wp.array(dtype=wp.mat22d),
              out: wp.array(dtype=wp.mat22d)):
    wp.tile_store(out, wp.tile_load(a, shape=N) * wp.mat22d(1.0, 2.0, 4.0, 8.0))


@wp.kernel
def mat_div_s(a: wp.array(dtype=wp.float64), v: wp.array(dtype=wp.vec3d), m: wp.array(dtype=wp.mat22d),
              out: wp.array(dtype=wp.mat22d)):
    wp.tile_store(out, wp.mat22d(1.0, 2.0, 4.0, 8.0) / wp.tile_load(a, shape=N))


@wp.kernel
def s_div_tm(a: wp.array(dtype=wp.float64), v: wp.array(dtype=wp.vec3d), m: wp.array(dtype=wp.mat22d),
             out: wp.array(dtype=wp.mat22d)):
    wp.tile_store(out, wp.tile_load(a, shape=N) / wp.tile_load(m, shape=N))


@wp.kernel
def tm_mul_ts(a: wp.array(dtype=wp.float64), v: wp.array(dtype=wp.vec3d), m: wp.array(dtype=wp.mat22d),
              out: wp.array(dtype=wp.mat22d)):
    wp.tile_store(out, wp.tile_load(m, shape=N) * wp.tile_load(a, shape=N))


# kernel, output dtype, NumPy formula of (a, v, m)
CASES = [
    (s_mul_vec, wp.vec3d, lambda a, v, m: a[:, None] * C3),
    (vec_mul_s, wp.vec3d, lambda a, v, m: C3 * a[:, None]),
    (s_div_vec, wp.vec3d, lambda a, v, m: a[:, None] / C3),
    (vec_div_s, wp.vec3d, lambda a, v, m: C3 / a[:, None]),
    (tv_mul_ts, wp.vec3d, lambda a, v, m: v * a[:, None]),
    (ts_mul_tv, wp.vec3d, lambda a, v, m: a[:, None] * v),
    (tv_div_ts, wp.vec3d, lambda a, v, m: v / a[:, None]),
    (ts_div_tv, wp.vec3d, lambda a, v, m: a[:, None] / v),
    (lit_div_tv, wp.vec3d, lambda a, v, m: 2.0 / v),
    (tv_mul_lit, wp.vec3d, lambda a, v, m: v * 2.0 - v / 4.0),
    (s_mul_mat, wp.mat22d, lambda a, v, m: a[:, None, None] * M22),
    (mat_div_s, wp.mat22d, lambda a, v, m: M22 / a[:, None, None]),
    (s_div_tm, wp.mat22d, lambda a, v, m: a[:, None, None] / m),
    (tm_mul_ts, wp.mat22d, lambda a, v, m: m * a[:, None, None]),
]


def _inputs(rng):
    a = rng.uniform(0.5, 2.0, N) * rng.choice([-1.0, 1.0], N)
    v = rng.uniform(0.5, 2.0, (N, 3))
    m = rng.uniform(0.5, 2.0, (N, 2, 2))
    return a, v, m


def _fd_grads(fn, values, weights, eps=1e-6):
    """Central finite differences of sum(weights * fn(*values)) for each input."""
    out = []
    for k, x in enumerate(values):
        g = np.zeros_like(x)
        for idx in np.ndindex(x.shape):
            for sign in (1.0, -1.0):
                w = [y.copy() for y in values]
                w[k][idx] += sign * eps
                g[idx] += sign * np.sum(weights * fn(*w))
        out.append(g / (2 * eps))
    return out


@pytest.mark.parametrize("kernel, out_dtype, fn", CASES, ids=[c[0].key for c in CASES])
def test_mixed_operator_forward_and_gradient(kernel, out_dtype, fn):
    rng = np.random.default_rng(7)
    values = _inputs(rng)
    arrays = [wp.array(values[0], dtype=wp.float64, requires_grad=True),
              wp.array(values[1], dtype=wp.vec3d, requires_grad=True),
              wp.array(values[2], dtype=wp.mat22d, requires_grad=True)]
    out = wp.zeros(N, dtype=out_dtype, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch_tiled(kernel, dim=1, inputs=arrays + [out], block_dim=8)
    expected = fn(*values)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-12)
    weights = rng.uniform(-1.0, 1.0, expected.shape)
    out.grad = wp.array(weights, dtype=out_dtype)
    tape.backward()
    for arr, fd in zip(arrays, _fd_grads(fn, values, weights)):
        np.testing.assert_allclose(arr.grad.numpy(), fd, rtol=1e-6, atol=1e-8)


# --- refused combinations: the error type, its text and the user's line --------------------------
def _tv_mul_vec(v: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3)):
    wp.tile_store(out, wp.tile_load(v, shape=4) * wp.vec3(1.0, 2.0, 3.0))  # line: bad


def _vec_div_tv(v: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3)):
    wp.tile_store(out, wp.vec3(1.0, 2.0, 3.0) / wp.tile_load(v, shape=4))  # line: bad


def _tv_mul_tv(v: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3)):
    wp.tile_store(out, wp.tile_load(v, shape=4) * wp.tile_load(v, shape=4))  # line: bad


def _tv_div_tv(v: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3)):
    wp.tile_store(out, wp.tile_load(v, shape=4) / wp.tile_load(v, shape=4))  # line: bad


def _tm_mul_vec(m: wp.array(dtype=wp.mat22), out: wp.array(dtype=wp.mat22)):
    wp.tile_store(out, wp.tile_load(m, shape=4) * wp.vec2(1.0, 2.0))  # line: bad


def _ts_add_tv(v: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3)):
    x = wp.tile_zeros(shape=4, dtype=float) + wp.tile_load(v, shape=4)  # line: bad
    wp.tile_store(out, wp.tile_load(v, shape=4))


def _tv_add_scalar(v: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3)):
    wp.tile_store(out, wp.tile_load(v, shape=4) + 1.0)  # line: bad


def _ti_mul_tf(v: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3)):
    x = wp.tile_zeros(shape=4, dtype=int) * wp.tile_zeros(shape=4, dtype=float)  # line: bad
    wp.tile_store(out, wp.tile_load(v, shape=4))


def _t2_add_t1(v: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3)):
    x = wp.tile_zeros(shape=(4, 4), dtype=float) + wp.tile_zeros(shape=4, dtype=float)  # line: bad
    wp.tile_store(out, wp.tile_load(v, shape=4))


def _squeeze_low(v: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3)):
    x = wp.tile_squeeze(wp.tile_zeros(shape=(1, 2, 1), dtype=float), axis=(-4,))  # line: bad


def _squeeze_high(v: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3)):
    x = wp.tile_squeeze(wp.tile_zeros(shape=(1, 2, 1), dtype=float), axis=(3,))  # line: bad


def _squeeze_not_one(v: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3)):
    x = wp.tile_squeeze(wp.tile_zeros(shape=(1, 2, 1), dtype=float), axis=1)  # line: bad


def _broadcast_5d(v: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3)):
    x = wp.tile_broadcast(wp.tile_zeros(shape=2, dtype=float), shape=(1, 1, 1, 1, 2))  # line: bad


ERRORS = [
    (_tv_mul_vec, TypeError, r"Cannot multiply tile<vec3f> by vec3f: at least one operand must be a scalar"),
    (_vec_div_tv, TypeError, r"Cannot divide vec3f by tile<vec3f>: at least one operand must be a scalar"),
    (_tv_mul_tv, TypeError, r"Cannot multiply tile<vec3f> by tile<vec3f>: at least one element type must be scalar"),
    (_tv_div_tv, TypeError, r"Cannot divide tile<vec3f> by tile<vec3f>: at least one element type must be scalar"),
    (_tm_mul_vec, TypeError, r"Cannot multiply tile<mat22f> by vec2f"),
    (_ts_add_tv, TypeError, r"tile dtypes differ for 'add': tile<float32> and tile<vec3f>"),
    (_tv_add_scalar, TypeError, r"operator 'add' between tile<vec3f> and float32 is not defined"),
    (_ti_mul_tf, TypeError, r"Cannot multiply tile<int32> by tile<float32>: the scalar types differ"),
    (_t2_add_t1, ValueError, r"same number of dimensions for 'add', got 2 and 1"),
    (_squeeze_low, ValueError, r"tile_squeeze\(\) axis -4 is out of bounds for tile with 3 dimensions"),
    (_squeeze_high, ValueError, r"tile_squeeze\(\) axis 3 is out of bounds for tile with 3 dimensions"),
    (_squeeze_not_one, ValueError, r"axis=1, size=2"),
    (_broadcast_5d, ValueError, r"tile_broadcast\(\) output must have between one and four dimensions, got 5"),
]


@pytest.mark.parametrize("fn, exc, pattern", ERRORS, ids=[e[0].__name__.strip("_") for e in ERRORS])
def test_refused_operands_are_build_errors_at_the_users_line(fn, exc, pattern):
    kernel = wp.Kernel(fn, module="unique")
    v = wp.zeros(4, dtype=wp.vec3)
    with pytest.raises(exc, match=pattern) as info:
        wp.launch_tiled(kernel, dim=1, inputs=[v, v], block_dim=1)
    assert isinstance(info.value, wp.WarpCodegenError)    # and still a codegen error
    lines, first = inspect.getsourcelines(fn)
    bad = first + next(i for i, line in enumerate(lines) if "# line: bad" in line)
    assert f'{__file__}", line {bad}' in str(info.value)

