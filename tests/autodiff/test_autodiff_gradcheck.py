"""wp.autograd: jacobian (tape), jacobian_fd (finite differences) and gradcheck, including a
deliberately wrong custom adjoint that gradcheck must catch."""

import numpy as np
import pytest

import warp_interactive as wp


@wp.kernel
def rotate_scale(q: wp.array(dtype=wp.vec3d), s: wp.array(dtype=wp.float64),
                 out: wp.array(dtype=wp.vec3d)):
    i = wp.tid()
    v = q[i]
    out[i] = wp.cross(v, wp.vec3d(0.3, -0.2, 0.9)) * s[i] + v * wp.length(v)


@wp.func
def cube(x: wp.float64):
    return x * x * x


@wp.func_grad(cube)
def adj_cube_wrong(x: wp.float64, adj_ret: wp.float64):
    wp.adjoint[x] += wp.float64(2.0) * x * adj_ret       # wrong on purpose: should be 3 x^2


@wp.kernel
def uses_wrong_grad(x: wp.array(dtype=wp.float64), y: wp.array(dtype=wp.float64)):
    i = wp.tid()
    y[i] = cube(x[i]) + x[i]


@wp.kernel
def accumulates(x: wp.array(dtype=wp.float64), y: wp.array(dtype=wp.float64)):
    i = wp.tid()
    wp.atomic_add(y, 0, wp.sin(x[i]) * x[i])


def _inputs(rng, n=3):
    q = wp.array(rng.normal(size=(n, 3)), dtype=wp.vec3d, requires_grad=True)
    s = wp.array(rng.normal(size=n), dtype=wp.float64, requires_grad=True)
    out = wp.zeros(n, dtype=wp.vec3d, requires_grad=True)
    return q, s, out


def test_gradcheck_passes_on_a_correct_kernel():
    q, s, out = _inputs(np.random.default_rng(0))
    assert wp.autograd.gradcheck(rotate_scale, dim=3, inputs=[q, s], outputs=[out],
                                 eps=1e-6, atol=1e-6, rtol=1e-6)


def test_jacobian_of_tape_matches_the_analytic_one():
    rng = np.random.default_rng(1)
    q, s, out = _inputs(rng, n=2)
    jac = wp.autograd.jacobian(rotate_scale, dim=2, inputs=[q, s], outputs=[out])
    assert set(jac) == {(0, 0), (1, 0)} and jac[(0, 0)].shape == (6, 6)
    qn, sn = q.numpy(), s.numpy()
    c = np.array([0.3, -0.2, 0.9])
    for i in range(2):
        v = qn[i]
        r = np.linalg.norm(v)
        cross_jac = -np.array([[0, -c[2], c[1]], [c[2], 0, -c[0]], [-c[1], c[0], 0]])  # d(v x c)/dv
        expect = cross_jac * sn[i] + r * np.eye(3) + np.outer(v, v) / r
        np.testing.assert_allclose(jac[(0, 0)][3 * i:3 * i + 3, 3 * i:3 * i + 3], expect, rtol=1e-12)
        np.testing.assert_allclose(jac[(1, 0)][3 * i:3 * i + 3, i], np.cross(v, c), rtol=1e-12)
    before = out.numpy().copy()      # the forward result jacobian() left there
    fd = wp.autograd.jacobian_fd(rotate_scale, dim=2, inputs=[q, s], outputs=[out], eps=1e-6)
    for key in jac:
        np.testing.assert_allclose(jac[key], fd[key], rtol=1e-6, atol=1e-8)
    np.testing.assert_array_equal(out.numpy(), before)   # outputs restored after the checks


def test_gradcheck_detects_a_wrong_custom_gradient():
    x = wp.array([0.5, 1.5, -2.0], dtype=wp.float64, requires_grad=True)
    y = wp.zeros(3, dtype=wp.float64, requires_grad=True)
    assert not wp.autograd.gradcheck(uses_wrong_grad, dim=3, inputs=[x], outputs=[y],
                                     raise_exception=False)
    with pytest.raises(ValueError, match=r"by the tape \(adjoint\) but .* by finite differences"):
        wp.autograd.gradcheck(uses_wrong_grad, dim=3, inputs=[x], outputs=[y])


def test_gradcheck_of_a_python_function_and_accumulating_kernel():
    x = wp.array(np.linspace(-1, 1, 4), dtype=wp.float64, requires_grad=True)
    y = wp.zeros(1, dtype=wp.float64, requires_grad=True)

    def step():
        wp.launch(accumulates, dim=4, inputs=[x, y])

    assert wp.autograd.gradcheck(step, inputs=[x], outputs=[y], eps=1e-6, atol=1e-7, rtol=1e-6)
    jac = wp.autograd.jacobian(step, inputs=[x], outputs=[y])[(0, 0)]
    xn = x.numpy()
    np.testing.assert_allclose(jac[0], np.cos(xn) * xn + np.sin(xn), rtol=1e-12)


def test_helpers_reject_bad_arguments():
    x = wp.array([1.0], dtype=wp.float64)          # no requires_grad
    y = wp.zeros(1, dtype=wp.float64)
    with pytest.raises(ValueError, match="requires_grad=True"):
        wp.autograd.jacobian(accumulates, dim=1, inputs=[x], outputs=[y])
    with pytest.raises(ValueError, match="launch dim"):
        wp.autograd.jacobian_fd(accumulates, inputs=[x], outputs=[y])
    with pytest.raises(TypeError, match="@wp.kernel or a callable"):
        wp.autograd.gradcheck(42, inputs=[x], outputs=[y])


def _recorded(rng):
    """A tape with a correct launch (rotate_scale) and one with a wrong adjoint (uses_wrong_grad)."""
    q, s, out = _inputs(rng)
    x = wp.array([0.5, 1.5, -2.0], dtype=wp.float64, requires_grad=True)
    y = wp.zeros(3, dtype=wp.float64, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(rotate_scale, dim=3, inputs=[q, s], outputs=[out])
        wp.launch(uses_wrong_grad, dim=3, inputs=[x], outputs=[y])
    return tape


@pytest.mark.parametrize("options, expected", [
    ({}, False),                                                     # the wrong adjoint is found
    ({"blacklist_kernels": [uses_wrong_grad.key]}, True),
    ({"whitelist_kernels": [rotate_scale.key]}, True),
    ({"whitelist_kernels": [uses_wrong_grad.key]}, False),
    ({"skip_to_launch_index": 1}, False),
    ({"reverse_launches": True, "skip_to_launch_index": 1}, True),   # reversed: only rotate_scale left
    ({"input_output_masks": {uses_wrong_grad.key: []}}, True),       # an empty mask checks nothing
    ({"input_output_masks": {uses_wrong_grad.key: [("x", "y")]}}, False),
    ({"input_output_masks": {uses_wrong_grad.key: [(0, 0)]}}, False),
])
def test_gradcheck_tape(options, expected):
    tape = _recorded(np.random.default_rng(3))
    assert wp.autograd.gradcheck_tape(tape, eps=1e-6, atol=1e-6, rtol=1e-6, raise_exception=False,
                                      show_summary=False, **options) is expected


def test_gradcheck_tape_raises_naming_the_entry():
    tape = _recorded(np.random.default_rng(4))
    with pytest.raises(ValueError, match=r"by the tape \(adjoint\) but .* by finite differences"):
        wp.autograd.gradcheck_tape(tape, show_summary=False)


def test_jacobian_plot_lays_out_the_blocks():
    pytest.importorskip("matplotlib")
    import matplotlib
    matplotlib.use("Agg")
    q, s, out = _inputs(np.random.default_rng(5), n=2)
    jac = wp.autograd.jacobian(rotate_scale, dim=2, inputs=[q, s], outputs=[out])
    fig = wp.autograd.jacobian_plot(jac, rotate_scale, inputs=[q, s], show_plot=False)
    images = [ax for ax in fig.axes if ax.images]
    assert [ax.get_xlabel() for ax in images] == ["q", "s"]
    assert [ax.get_ylabel() for ax in images] == ["out", "out"]
    for ax, key in zip(images, [(0, 0), (1, 0)]):
        np.testing.assert_array_equal(ax.images[0].get_array(), jac[key])
    with pytest.raises(ValueError, match="inputs must be provided"):
        wp.autograd.jacobian_plot(jac, rotate_scale)


@wp.kernel(enable_backward=False)
def no_backward_wrong(x: wp.array(dtype=wp.float64), y: wp.array(dtype=wp.float64)):
    i = wp.tid()
    y[i] = cube(x[i])


def test_gradcheck_tape_skips_kernels_without_backward():
    x = wp.array([0.5, 1.5], dtype=wp.float64, requires_grad=True)
    y = wp.zeros(2, dtype=wp.float64, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(no_backward_wrong, dim=2, inputs=[x], outputs=[y])
    assert wp.autograd.gradcheck_tape(tape, show_summary=False)


@pytest.mark.parametrize("as_callable", [False, True])
@pytest.mark.parametrize("helper", ["jacobian", "gradcheck"])
def test_jacobian_refuses_kernels_without_backward(helper, as_callable):
    """warp-lang's message; the tape would skip the kernel (with a warning) and the Jacobian
    would read zero."""
    x = wp.array([0.5, 1.5], dtype=wp.float64, requires_grad=True)
    y = wp.zeros(2, dtype=wp.float64, requires_grad=True)

    def step():
        wp.launch(no_backward_wrong, dim=2, inputs=[x], outputs=[y])

    fn, dim = (step, None) if as_callable else (no_backward_wrong, 2)
    with pytest.raises(ValueError, match="Kernel must have backward pass enabled to compute Jacobians"):
        getattr(wp.autograd, helper)(fn, dim=dim, inputs=[x], outputs=[y])
