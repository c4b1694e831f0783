"""Tape gradients against central finite differences (float64), for control-flow forms,
accumulation across backward calls, zero(), and the Jacobian recipe of the reference."""

import numpy as np
import pytest

import warp_interactive as wp


@wp.func
def smooth(v: wp.float64):
    if v > wp.float64(0.5):
        return wp.sin(v) * v
    return v * v * v


@wp.kernel
def k_branch(x: wp.array(dtype=wp.float64), y: wp.array(dtype=wp.float64)):
    i = wp.tid()
    y[i] = smooth(x[i])


@wp.kernel
def k_static_loop(x: wp.array(dtype=wp.float64), y: wp.array(dtype=wp.float64)):
    i = wp.tid()
    s = wp.float64(0.0)
    for j in range(3):
        s = s + x[i] * wp.float64(j + 1)
    y[i] = s * x[i]


@wp.kernel
def k_dynamic_loop(x: wp.array(dtype=wp.float64), y: wp.array(dtype=wp.float64), n: int):
    i = wp.tid()
    for j in range(n):
        wp.atomic_add(y, i, wp.exp(x[i] * wp.float64(0.1) * wp.float64(j)))


@wp.kernel
def k_ifexp(x: wp.array(dtype=wp.float64), y: wp.array(dtype=wp.float64)):
    i = wp.tid()
    v = x[i]
    y[i] = v * v if v < 0.6 else wp.sqrt(v)


@wp.kernel
def k_vec(x: wp.array(dtype=wp.vec3d), y: wp.array(dtype=wp.float64)):
    i = wp.tid()
    v = x[i]
    y[i] = wp.length(wp.cross(v, wp.vec3d(1.0, 2.0, 3.0))) + wp.dot(v, v)


@wp.kernel
def k_sum(y: wp.array(dtype=wp.float64), loss: wp.array(dtype=wp.float64)):
    i = wp.tid()
    wp.atomic_add(loss, 0, y[i] * y[i])


CASES = {
    "branch": (k_branch, ()),
    "static_loop": (k_static_loop, ()),
    "dynamic_loop": (k_dynamic_loop, (4,)),
    "ifexp": (k_ifexp, ()),
}


def _loss(kernel, extra, xn, vec=False):
    n = xn.shape[0]
    x = wp.array(xn, dtype=wp.vec3d if vec else wp.float64, requires_grad=True)
    y = wp.zeros(n, dtype=wp.float64, requires_grad=True)
    loss = wp.zeros(1, dtype=wp.float64, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(kernel, dim=n, inputs=[x, y, *extra] if extra else [x, y])
        wp.launch(k_sum, dim=n, inputs=[y, loss])
    return x, loss, tape


def _fd(kernel, extra, xn, vec=False, eps=1e-6):
    grad = np.zeros_like(xn)
    flat, g = xn.reshape(-1), grad.reshape(-1)
    for k in range(flat.size):
        for sgn in (1, -1):
            p = flat.copy()
            p[k] += sgn * eps
            _, loss, _ = _loss(kernel, extra, p.reshape(xn.shape), vec)
            g[k] += sgn * loss.numpy()[0] / (2 * eps)
    return grad


@pytest.mark.parametrize("case", sorted(CASES))
def test_gradient_matches_finite_differences(case):
    kernel, extra = CASES[case]
    xn = np.linspace(0.2, 1.1, 6)
    x, loss, tape = _loss(kernel, extra, xn)
    tape.backward(loss)
    np.testing.assert_allclose(tape.gradients[x].numpy(), _fd(kernel, extra, xn), rtol=1e-5, atol=1e-8)


def test_vector_gradient_matches_finite_differences():
    xn = np.random.default_rng(1).normal(size=(4, 3))
    x, loss, tape = _loss(k_vec, (), xn, vec=True)
    tape.backward(loss=loss)
    np.testing.assert_allclose(tape.gradients[x].numpy(), _fd(k_vec, (), xn, vec=True), rtol=1e-5, atol=1e-8)


def test_gradients_accumulate_and_zero_resets():
    xn = np.linspace(0.2, 1.1, 5)
    x, loss, tape = _loss(k_branch, (), xn)
    tape.backward(loss)
    once = x.grad.numpy().copy()
    for a in tape.arrays():  # keep x's gradient, clear the intermediates' (they accumulate too)
        if a is not x:
            a.grad.zero_()
    tape.backward(loss)
    np.testing.assert_allclose(x.grad.numpy(), 2 * once)
    assert tape.adjoints[x] is tape.gradients[x]
    tape.zero()
    assert not x.grad.numpy().any() and not loss.grad.numpy().any()
    tape.reset()
    assert tape.launches == []


@wp.kernel
def k_affine(q: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    env = i // 2
    r = i % 2
    out[i] = float(r + 1) * q[env * 3] + q[env * 3 + 1] * q[env * 3 + 2]


def test_jacobian_recipe_block_diagonal():
    """The reference's Jacobian recipe, per environment (block-diagonal form)."""
    num_envs, input_dim, output_dim = 3, 3, 2
    qn = np.random.default_rng(0).normal(size=num_envs * input_dim).astype(np.float32)
    q = wp.array(qn, dtype=float, requires_grad=True)
    out = wp.zeros(num_envs * output_dim, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(k_affine, dim=num_envs * output_dim, inputs=[q, out])
    jacobians = np.empty((num_envs, output_dim, input_dim), dtype=np.float32)
    for output_index in range(output_dim):
        select_index = np.zeros(output_dim)
        select_index[output_index] = 1.0
        e = wp.array(np.tile(select_index, num_envs), dtype=wp.float32)
        tape.backward(grads={out: e})
        q_grad_i = tape.gradients[q]
        jacobians[:, output_index, :] = q_grad_i.numpy().reshape(num_envs, input_dim)
        tape.zero()
    qe = qn.reshape(num_envs, input_dim)
    for env in range(num_envs):
        for r in range(output_dim):
            np.testing.assert_allclose(jacobians[env, r], [r + 1, qe[env, 2], qe[env, 1]], rtol=1e-6)


def test_adjoint_launch_with_explicit_adjoint_arrays():
    xn = np.linspace(0.2, 1.0, 4)
    x = wp.array(xn, dtype=wp.float64)
    y = wp.zeros(4, dtype=wp.float64)
    adj_x = wp.zeros(4, dtype=wp.float64)
    adj_y = wp.array(np.ones(4), dtype=wp.float64)
    wp.launch(k_ifexp, dim=4, inputs=[x, y], adj_inputs=[adj_x, adj_y], adjoint=True)
    expect = np.where(xn < 0.6, 2 * xn, 0.5 / np.sqrt(xn))
    np.testing.assert_allclose(adj_x.numpy(), expect, rtol=1e-12)


def test_tape_visualize_gives_dot():
    xn = np.linspace(0.2, 1.1, 3)
    _, loss, tape = _loss(k_branch, (), xn)
    dot = tape.visualize()
    assert dot.startswith("digraph") and "k_branch" in dot and "k_sum" in dot


# --- @wp.func returning several values: each result's adjoint flows back ----------------------------
@wp.func
def _polar_parts(x: float, y: float):
    return wp.sqrt(x * x + y * y), wp.atan2(y, x), wp.vec2(x * y, x - y)


@wp.func
def _nested_parts(x: float, y: float):
    r, t, v = _polar_parts(x, y)
    return r * t, v[0] + 2.0 * v[1]


@wp.kernel
def _multi_return_loss(xs: wp.array(dtype=float), ys: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    r, t, v = _polar_parts(xs[i], ys[i])
    a, b = _nested_parts(xs[i], ys[i])
    out[i] = 0.5 * r + 2.0 * t + 3.0 * v[0] - v[1] + a - 0.25 * b


def test_multi_value_func_gradients_match_analytic():
    rng = np.random.default_rng(4)
    x = rng.uniform(0.5, 2.0, 16)
    y = rng.uniform(-2.0, 2.0, 16)
    xs = wp.array(x.astype(np.float32), dtype=float, requires_grad=True)
    ys = wp.array(y.astype(np.float32), dtype=float, requires_grad=True)
    out = wp.zeros(16, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(_multi_return_loss, dim=16, inputs=[xs, ys, out])
    tape.backward(grads={out: wp.array(np.ones(16, np.float32), dtype=float)})
    r, t = np.hypot(x, y), np.arctan2(y, x)
    drx, dry, dtx, dty = x / r, y / r, -y / r ** 2, x / r ** 2
    # f = 0.5 r + 2 t + 3 xy - (x - y) + r t - 0.25 (xy + 2 (x - y))
    gx = 0.5 * drx + 2 * dtx + 3 * y - 1 + (drx * t + r * dtx) - 0.25 * (y + 2)
    gy = 0.5 * dry + 2 * dty + 3 * x + 1 + (dry * t + r * dty) - 0.25 * (x - 2)
    np.testing.assert_allclose(xs.grad.numpy(), gx, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(ys.grad.numpy(), gy, rtol=1e-4, atol=1e-4)
