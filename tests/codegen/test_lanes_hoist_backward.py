"""Loop-invariant reads moved out of the loops of lane-blocked backward bodies
(lanes_hoist.hoisted_for_backward): the gradients equal the scalar backward's (up to the order of
float sums) and NumPy's analytic ones; the own element's adjoint reaches the gradient once, after
the reverse loop; an empty loop's out-of-bounds read stays unread in the replay too."""

import numpy as np
import pytest

import warp_interactive as wp
from warp_interactive.codegen.module_source import generate_source
from warp_interactive.lang import lower
from warp_interactive.codegen.target import CPU

F64 = wp.float64


@wp.kernel
def hb_sin(x: wp.array(dtype=F64), y: wp.array(dtype=F64), n: int):
    i = wp.tid()
    s = F64(0.0)
    for j in range(n):
        s = s + x[j] * wp.sin(x[i])          # x[i] and sin(x[i]) move in front of the loop
    y[i] = s


@wp.kernel
def hb_nbody(pos: wp.array(dtype=wp.vec3d), mass: wp.array(dtype=F64), acc: wp.array(dtype=wp.vec3d), n: int):
    i = wp.tid()
    a = wp.vec3d()
    for j in range(n):
        d = pos[j] - pos[i]
        r2 = wp.dot(d, d) + F64(0.05)
        a = a + d * (mass[j] / (r2 * wp.sqrt(r2)))
    acc[i] = a


@wp.kernel
def hb_empty(x: wp.array(dtype=F64), y: wp.array(dtype=F64), n: int, far: int):
    i = wp.tid()
    s = x[i]
    for j in range(n):                       # n = 0: x[i + far] (out of bounds) is never read
        s = s + x[i + far]
    y[i] = s


def _sin_grads(m, lanes):
    wp.config.cpu_lanes = lanes
    try:
        rng = np.random.default_rng(3)
        x = wp.array(rng.normal(size=m), dtype=F64, requires_grad=True)
        y = wp.zeros(m, dtype=F64, requires_grad=True)
        g = rng.normal(size=m)
        tape = wp.Tape()
        with tape:
            wp.launch(hb_sin, dim=m, inputs=[x, y, m])
        tape.backward(grads={y: g})
        return x.numpy(), g, x.grad.numpy().copy()
    finally:
        wp.config.cpu_lanes = True


def _nbody_grads(m, lanes):
    wp.config.cpu_lanes = lanes
    try:
        rng = np.random.default_rng(4)
        pos = wp.array(rng.normal(size=(m, 3)), dtype=wp.vec3d, requires_grad=True)
        mass = wp.array(rng.uniform(0.5, 1.5, m), dtype=F64, requires_grad=True)
        acc = wp.zeros(m, dtype=wp.vec3d, requires_grad=True)
        tape = wp.Tape()
        with tape:
            wp.launch(hb_nbody, dim=m, inputs=[pos, mass, acc, m])
        tape.backward(grads={acc: rng.normal(size=(m, 3))})
        return pos.grad.numpy().copy(), mass.grad.numpy().copy()
    finally:
        wp.config.cpu_lanes = True


@pytest.mark.parametrize("m", [1, 8, 13, 40])
def test_sin_gradient_matches_scalar_and_numpy(m):
    x, g, lanes = _sin_grads(m, True)
    _, _, scalar = _sin_grads(m, False)
    np.testing.assert_allclose(lanes, scalar, rtol=1e-12, atol=1e-13)
    # y_i = sin(x_i) * sum_j x_j: dL/dx_k = sum_i g_i sin(x_i) + g_k cos(x_k) sum_j x_j
    ref = np.sum(g * np.sin(x)) + g * np.cos(x) * x.sum()
    np.testing.assert_allclose(lanes, ref, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("m", [8, 21])
def test_nbody_gradient_matches_scalar(m):
    for lanes, scalar in zip(_nbody_grads(m, True), _nbody_grads(m, False)):
        np.testing.assert_allclose(lanes, scalar, rtol=1e-10, atol=1e-12)


def test_empty_loop_reads_nothing_in_the_replay():
    x = wp.array(np.arange(16, dtype=np.float64), dtype=F64, requires_grad=True)
    y = wp.zeros(16, dtype=F64, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(hb_empty, dim=16, inputs=[x, y, 0, 1 << 28])
    tape.backward(grads={y: np.ones(16)})
    np.testing.assert_array_equal(y.numpy(), np.arange(16))
    np.testing.assert_array_equal(x.grad.numpy(), np.ones(16))


def _backward_lanes(kernel):
    src = generate_source(lower([kernel]), CPU, backward=True)
    body = src[src.index(f"{kernel.ir.name}_backward_lanes("):]
    return body[:body.index("\n}\n")]


@pytest.mark.parametrize("kernel, load", [(hb_sin, "wp::adj_load(var_x, var_0[_l]"),
                                          (hb_nbody, "wp::adj_load(var_pos, var_0[_l]")])
def test_own_read_adjoint_after_the_reverse_loop(kernel, load):
    body = _backward_lanes(kernel)
    reverse_loop = body.index("for (int64_t _k0")
    end_of_loop = body.index("if (WPI_STOPPED) return;", reverse_loop)
    assert body.count(load) == 1 and body.index(load) > end_of_loop
    assert "wp::range_continues(" in body[:reverse_loop]      # the moved reads are guarded


@wp.kernel
def hb_two(x: wp.array(dtype=F64), z: wp.array(dtype=F64), y: wp.array(dtype=F64), n: int):
    i = wp.tid()
    s = F64(0.0)
    for j in range(n):
        s = s + x[j] * z[i]                  # z[i]: an own-index read; x[j]: a uniform one
    y[i] = s


@pytest.mark.parametrize("same", [False, True], ids=["apart", "one_array_twice"])
def test_own_read_adjoints_with_overlapping_gradients(same):
    """The lanes backward takes plain own-index read adjoints only where no other array's
    gradient overlaps (else atomics: x's uniform-index adjoints land on z's elements too)."""
    m = 37
    rng = np.random.default_rng(9)
    xv, zv, g = rng.normal(size=m), rng.normal(size=m), rng.normal(size=m)
    out = {}
    for lanes in (True, False):
        wp.config.cpu_lanes = lanes
        try:
            x = wp.array(xv, dtype=F64, requires_grad=True)
            z = x if same else wp.array(zv, dtype=F64, requires_grad=True)
            y = wp.zeros(m, dtype=F64, requires_grad=True)
            tape = wp.Tape()
            with tape:
                wp.launch(hb_two, dim=m, inputs=[x, z, y, m])
            tape.backward(grads={y: g})
            out[lanes] = (x.grad.numpy().copy(), z.grad.numpy().copy())
        finally:
            wp.config.cpu_lanes = True
    zz = xv if same else zv
    # y_i = z_i * sum_j x_j: dL/dx_k = sum_i g_i z_i, dL/dz_k = g_k sum_j x_j
    gx, gz = np.full(m, np.sum(g * zz)), g * xv.sum()
    refs = (gx + gz, gx + gz) if same else (gx, gz)
    for got, scalar, ref in zip(out[True], out[False], refs):
        np.testing.assert_allclose(got, scalar, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12)
    src = generate_source(lower([hb_two]), CPU, backward=True)
    assert "const bool _own = true && wp::grad_disjoint(a.u_z, a.u_x)" in src


@wp.kernel
def hb_acc(x: wp.array(dtype=F64), out: wp.array(dtype=F64), n: int):
    i = wp.tid()
    for j in range(n):
        out[i] += x[j] * x[i]                # out[i] kept in a local in the lanes backward too
        out[i] -= x[j] * F64(0.5)


@wp.kernel
def hb_acc_store(x: wp.array(dtype=F64), out: wp.array(dtype=F64), n: int):
    i = wp.tid()
    for j in range(n):
        out[i] = out[i] + wp.sin(x[j]) * x[i]


@pytest.mark.parametrize("kernel", [hb_acc, hb_acc_store], ids=["add_sub", "store"])
@pytest.mark.parametrize("m", [8, 19])
def test_accumulator_gradients(kernel, m):
    rng = np.random.default_rng(12)
    xv, ov, g = rng.normal(size=m), rng.normal(size=m), rng.normal(size=m)
    out = {}
    for lanes in (True, False):
        wp.config.cpu_lanes = lanes
        try:
            x = wp.array(xv, dtype=F64, requires_grad=True)
            o = wp.array(ov, dtype=F64, requires_grad=True)
            tape = wp.Tape()
            with tape:
                wp.launch(kernel, dim=m, inputs=[x, o, m])
            tape.backward(grads={o: g})
            out[lanes] = (o.numpy().copy(), x.grad.numpy().copy(), o.grad.numpy().copy())
        finally:
            wp.config.cpu_lanes = True
    if kernel is hb_acc:      # out_i = out0_i + x_i sum_j x_j - 0.5 sum_j x_j
        refs = (ov + xv * xv.sum() - 0.5 * xv.sum(), np.sum(g * xv) + g * xv.sum() - 0.5 * g.sum(), g)
    else:                     # out_i = out0_i + x_i sum_j sin(x_j)
        refs = (ov + xv * np.sin(xv).sum(), np.cos(xv) * np.sum(g * xv) + g * np.sin(xv).sum(), g)
    for got, scalar, ref in zip(out[True], out[False], refs):
        np.testing.assert_allclose(got, scalar, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(got, ref, rtol=1e-11, atol=1e-12)
    body = _backward_lanes(kernel)
    loop = body.index("for (int64_t _k0")
    assert "wp::adj_array_store_own(var_out, var_0[_l], var_" in body[:loop]    # once, before
    assert "var_out" not in body[loop:body.index("if (WPI_STOPPED) return;", loop)]
    src = generate_source(lower([kernel]), CPU, backward=True)
    assert "wp::grad_disjoint(a.u_out, a.u_x)" in src[src.index("_cpu_backward("):]
