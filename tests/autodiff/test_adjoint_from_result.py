"""Adjoints of sqrt and exp computed from the forward result (adj_sqrt_of / adj_exp_of,
codegen/body.py) instead of recomputing the function: gradients against central finite
differences in float64 (straight-line, loop-carried reassignment, a branch, a lanes loop) and
against NumPy's analytic gradients per float type, on the lanes and the scalar backward."""

import numpy as np
import pytest

import warp_interactive as wp
from warp_interactive.codegen.module_source import generate_source
from warp_interactive.codegen.target import CPU
from warp_interactive.lang import lower

F64 = wp.float64


@wp.kernel
def fr_straight(x: wp.array(dtype=F64), y: wp.array(dtype=F64)):
    i = wp.tid()
    y[i] = wp.sqrt(x[i]) * wp.exp(x[i]) + wp.exp(wp.sqrt(x[i]))


@wp.kernel
def fr_carried(x: wp.array(dtype=F64), y: wp.array(dtype=F64), n: int):
    i = wp.tid()
    s = x[i]
    for j in range(n):
        s = wp.sqrt(s + x[j])                # the same name holds each iteration's result
        s = s * wp.exp(F64(0.1) * x[j])
    y[i] = s


@wp.kernel
def fr_branch(x: wp.array(dtype=F64), y: wp.array(dtype=F64)):
    i = wp.tid()
    v = x[i]
    if v > F64(1.0):
        v = wp.sqrt(v)
    else:
        v = wp.exp(v)
    y[i] = v * v + wp.sqrt(v + F64(1.0))


@wp.kernel
def fr_nbody(pos: wp.array(dtype=wp.vec3d), acc: wp.array(dtype=wp.vec3d), n: int):
    i = wp.tid()
    p = pos[i]
    a = wp.vec3d()
    for j in range(n):
        d = pos[j] - p
        r2 = wp.dot(d, d) + F64(0.05)
        inv = F64(1.0) / wp.sqrt(r2)
        a = a + d * (inv * inv * inv * wp.exp(-r2))
    acc[i] = a


def _loss(kernel, xs, w, extra):
    n = xs.shape[0]
    vec = kernel is fr_nbody
    x = wp.array(xs, dtype=wp.vec3d if vec else F64, requires_grad=True)
    y = wp.zeros(n, dtype=wp.vec3d if vec else F64, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(kernel, dim=n, inputs=[x, y] + extra, device="cpu")
    tape.backward(grads={y: wp.array(w, dtype=wp.vec3d if vec else F64)})
    return float(np.sum(y.numpy() * w)), x.grad.numpy().copy()


CASES = [(fr_straight, False, 16), (fr_carried, True, 24), (fr_branch, False, 16), (fr_nbody, True, 24)]


@pytest.mark.parametrize("lanes", [True, False], ids=["lanes", "scalar"])
@pytest.mark.parametrize("kernel,with_n,n", CASES, ids=lambda c: getattr(c, "key", str(c)))
def test_gradients_match_finite_differences(kernel, with_n, n, lanes):
    rng = np.random.default_rng(7)
    shape = (n, 3) if kernel is fr_nbody else (n,)
    xs = rng.uniform(0.2, 2.0, size=shape)
    if kernel is fr_carried:
        xs = xs * 0.3
    w = rng.normal(size=shape)
    extra = [n] if with_n else []
    wp.config.cpu_lanes = lanes
    try:
        _, grad = _loss(kernel, xs, w, extra)
        h = 1e-6
        fd = np.zeros_like(xs)
        for idx in np.ndindex(*xs.shape):
            up, dn = xs.copy(), xs.copy()
            up[idx] += h
            dn[idx] -= h
            fd[idx] = (_loss(kernel, up, w, extra)[0] - _loss(kernel, dn, w, extra)[0]) / (2 * h)
    finally:
        wp.config.cpu_lanes = True
    np.testing.assert_allclose(grad, fd, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("kernel", [fr_straight, fr_carried, fr_branch, fr_nbody], ids=lambda k: k.key)
def test_adjoints_read_the_result(kernel):
    """Each sqrt/exp result here has one writer: every adjoint reads it, none recomputes."""
    src = generate_source(lower([kernel]), CPU, backward=True)
    assert "adj_sqrt_of(" in src or "adj_exp_of(" in src
    assert "wp::adj_sqrt(" not in src and "wp::adj_exp(" not in src


def _unary(dtype):
    @wp.kernel
    def k(x: wp.array(dtype=dtype), y: wp.array(dtype=dtype), z: wp.array(dtype=dtype)):
        i = wp.tid()
        y[i] = wp.sqrt(x[i])
        z[i] = wp.exp(x[i])
    return k


_KERNELS = {}


@pytest.mark.parametrize("dtype,rtol", [(wp.float16, 5e-3), (wp.float32, 1e-6), (wp.float64, 1e-13)],
                         ids=["float16", "float32", "float64"])
def test_analytic_gradients_per_type(dtype, rtol):
    k = _KERNELS.setdefault(dtype, _unary(dtype))
    xs = np.linspace(0.25, 3.0, 16)
    x = wp.array(xs, dtype=dtype, requires_grad=True)
    y = wp.zeros(16, dtype=dtype, requires_grad=True)
    z = wp.zeros(16, dtype=dtype, requires_grad=True)
    gy, gz = np.linspace(-1.0, 1.0, 16), np.linspace(0.5, 1.5, 16)
    tape = wp.Tape()
    with tape:
        wp.launch(k, dim=16, inputs=[x, y, z], device="cpu")
    tape.backward(grads={y: wp.array(gy, dtype=dtype), z: wp.array(gz, dtype=dtype)})
    xq = x.numpy().astype(np.float64)
    want = gy.astype(x.numpy().dtype) / (2.0 * np.sqrt(xq)) + gz.astype(x.numpy().dtype) * np.exp(xq)
    np.testing.assert_allclose(x.grad.numpy().astype(np.float64), want, rtol=rtol, atol=rtol)
