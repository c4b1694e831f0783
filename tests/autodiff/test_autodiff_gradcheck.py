"""wp.autograd: jacobian (tape), jacobian_fd (finite differences) and gradcheck as warp-lang
1.19's (wp.arrays of the input's dtype shaped (output scalars, input size); Python functions
called with the inputs, their returns the outputs), including a deliberately wrong custom
adjoint that gradcheck must catch. References: analytic Jacobians and NumPy."""

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


def _m(jac):
    """A Jacobian array as its (output scalars, input scalars) matrix."""
    m = np.asarray(jac.numpy(), dtype=np.float64)
    return m.reshape(m.shape[0], -1)


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
    assert set(jac) == {(0, 0), (1, 0)}
    assert jac[(0, 0)].shape == (6, 2) and jac[(0, 0)].dtype is wp.vec3d     # (output scalars, q.size)
    assert jac[(1, 0)].shape == (6, 2) and jac[(1, 0)].dtype is wp.float64
    qn, sn = q.numpy(), s.numpy()
    c = np.array([0.3, -0.2, 0.9])
    jq, js = _m(jac[(0, 0)]), _m(jac[(1, 0)])
    for i in range(2):
        v = qn[i]
        r = np.linalg.norm(v)
        cross_jac = -np.array([[0, -c[2], c[1]], [c[2], 0, -c[0]], [-c[1], c[0], 0]])  # d(v x c)/dv
        expect = cross_jac * sn[i] + r * np.eye(3) + np.outer(v, v) / r
        np.testing.assert_allclose(jq[3 * i:3 * i + 3, 3 * i:3 * i + 3], expect, rtol=1e-12)
        np.testing.assert_allclose(js[3 * i:3 * i + 3, i], np.cross(v, c), rtol=1e-12)
    before = out.numpy().copy()
    fd = wp.autograd.jacobian_fd(rotate_scale, dim=2, inputs=[q, s], outputs=[out], eps=1e-6)
    for key in jac:
        np.testing.assert_allclose(_m(jac[key]), _m(fd[key]), rtol=1e-6, atol=1e-8)
    np.testing.assert_array_equal(out.numpy(), before)   # a kernel's outputs are left as they were


@pytest.mark.parametrize("max_out, max_in", [(-1, -1), (2, 4), (5, 1), (0, 0)])
def test_rows_and_columns_beyond_the_limits_are_nan(max_out, max_in):
    q, s, out = _inputs(np.random.default_rng(2), n=2)
    ad = _m(wp.autograd.jacobian(rotate_scale, dim=2, inputs=[q, s], outputs=[out],
                                 max_outputs_per_var=max_out)[(0, 0)])
    fd = _m(wp.autograd.jacobian_fd(rotate_scale, dim=2, inputs=[q, s], outputs=[out],
                                    max_inputs_per_var=max_in, eps=1e-6)[(0, 0)])
    rows = max_out if max_out > 0 else 6
    cols = max_in if max_in > 0 else 6
    assert np.isnan(ad[rows:]).all() and not np.isnan(ad[:rows]).any()
    assert np.isnan(fd[:, cols:]).all() and not np.isnan(fd[:, :cols]).any()
    np.testing.assert_allclose(ad[:rows, :cols], fd[:rows, :cols], rtol=1e-6, atol=1e-8)
    assert wp.autograd.gradcheck(rotate_scale, dim=2, inputs=[q, s], outputs=[out], eps=1e-6, atol=1e-6,
                                 rtol=1e-6, max_outputs_per_var=max_out, max_inputs_per_var=max_in,
                                 show_summary=False)


def test_gradcheck_detects_a_wrong_custom_gradient(capsys):
    x = wp.array([0.5, 1.5, -2.0], dtype=wp.float64, requires_grad=True)
    y = wp.zeros(3, dtype=wp.float64, requires_grad=True)
    assert not wp.autograd.gradcheck(uses_wrong_grad, dim=3, inputs=[x], outputs=[y],
                                     raise_exception=False)
    table = capsys.readouterr().out       # the summary: one row per pair, and the verdict
    assert "Max Abs Error" in table and "FAIL" in table and "Gradient check for kernel uses_wrong_grad failed" in table
    with pytest.raises(ValueError, match=r"Gradient check failed for kernel uses_wrong_grad, input 0, output 0: "
                                         r"finite difference and autodiff gradients do not match"):
        wp.autograd.gradcheck(uses_wrong_grad, dim=3, inputs=[x], outputs=[y], show_summary=False)


def test_python_function_returns_its_outputs():
    x = wp.array(np.linspace(-1, 1, 4), dtype=wp.float64, requires_grad=True)

    def step(x, scale):
        y = wp.zeros(1, dtype=wp.float64, requires_grad=True)
        wp.launch(accumulates, dim=4, inputs=[x, y])
        return [y]

    assert wp.autograd.gradcheck(step, inputs=[x, 2.0], eps=1e-6, atol=1e-7, rtol=1e-6, show_summary=False)
    jac = wp.autograd.jacobian(step, inputs=[x, 2.0])
    assert list(jac) == [(0, 0)]          # the float argument is not differentiated
    xn = x.numpy()
    np.testing.assert_allclose(_m(jac[(0, 0)])[0], np.cos(xn) * xn + np.sin(xn), rtol=1e-12)
    by_name = wp.autograd.jacobian_fd(step, inputs=[x, 2.0], input_output_mask=[("x", "output_0")], eps=1e-6)
    np.testing.assert_allclose(_m(by_name[(0, 0)]), _m(jac[(0, 0)]), rtol=1e-6)


@wp.kernel
def bump(x: wp.array(dtype=wp.float64)):
    i = wp.tid()
    x[i] = x[i] + wp.float64(1.0)


@wp.kernel
def square(x: wp.array(dtype=wp.float64), y: wp.array(dtype=wp.float64)):
    i = wp.tid()
    y[i] = x[i] * x[i]


def _mutating(x):
    wp.launch(bump, dim=x.size, inputs=[x])
    y = wp.zeros_like(x)
    wp.launch(square, dim=x.size, inputs=[x], outputs=[y])
    return y


@pytest.mark.parametrize("restore", [True, False])
def test_functions_that_change_their_inputs(restore):
    """Restored, every evaluation starts from the inputs' values (the check passes and the inputs
    are as given); not restored, the finite differences drift (warp-lang's behaviour)."""
    x0 = np.array([1.0, 2.0, 3.0])
    x = wp.array(x0, dtype=wp.float64, requires_grad=True)
    ok = wp.autograd.gradcheck(_mutating, inputs=[x], restore_inputs=restore, raise_exception=False,
                               show_summary=False)
    assert ok is restore
    if restore:
        np.testing.assert_array_equal(x.numpy(), x0)
        fd = _m(wp.autograd.jacobian_fd(_mutating, inputs=[x], eps=1e-6)[(0, 0)])
        np.testing.assert_allclose(fd, np.diag(2 * (x0 + 1)), rtol=1e-6)
        np.testing.assert_array_equal(x.numpy(), x0)


def test_inputs_restored_when_the_function_raises():
    x0 = np.array([1.0, 2.0])
    x = wp.array(x0, dtype=wp.float64, requires_grad=True)

    def fails(x):
        wp.launch(bump, dim=2, inputs=[x])
        raise RuntimeError("boom")

    for helper in (wp.autograd.jacobian, wp.autograd.jacobian_fd):
        with pytest.raises(RuntimeError, match="boom"):
            helper(fails, inputs=[x])
        np.testing.assert_array_equal(x.numpy(), x0)
        with pytest.raises(ValueError, match="'bogus' is not an argument"):
            helper(_mutating, inputs=[x], input_output_mask=[("bogus", 0)])
        np.testing.assert_array_equal(x.numpy(), x0)


@wp.kernel
def widen(a: wp.array(dtype=wp.float32), out: wp.array(dtype=wp.float64)):
    i = wp.tid()
    v = wp.float64(a[i])
    out[i] = v * v * v


def test_mixed_precision_follows_the_input_dtype():
    a = wp.array([1.5, -2.0], dtype=wp.float32, requires_grad=True)
    out = wp.zeros(2, dtype=wp.float64, requires_grad=True)
    for helper in (wp.autograd.jacobian, wp.autograd.jacobian_fd):
        jac = helper(widen, dim=2, inputs=[a], outputs=[out])[(0, 0)]
        assert jac.dtype is wp.float32
        np.testing.assert_allclose(jac.numpy(), np.diag(3 * a.numpy().astype(np.float64) ** 2), rtol=1e-3)
    assert wp.autograd.gradcheck(widen, dim=2, inputs=[a], outputs=[out], show_summary=False)


def test_helpers_reject_bad_arguments():
    x = wp.array([1.0], dtype=wp.float64)          # no requires_grad: not differentiated
    y = wp.zeros(1, dtype=wp.float64)
    assert wp.autograd.jacobian(accumulates, dim=1, inputs=[x], outputs=[y]) == {}
    with pytest.raises(ValueError, match="A list of output arguments must be provided"):
        wp.autograd.jacobian_fd(accumulates, dim=1, inputs=[x])
    with pytest.raises(ValueError, match="The inputs argument must be provided"):
        wp.autograd.gradcheck(accumulates, dim=1, outputs=[y])


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
    ({"input_output_masks": {uses_wrong_grad.key: []}}, False),      # an empty mask: every pair (warp-lang's)
    ({"input_output_masks": {uses_wrong_grad.key: [("x", "y")]}}, False),
    ({"input_output_masks": {uses_wrong_grad.key: [(0, 0)]}}, False),
])
def test_gradcheck_tape(options, expected):
    tape = _recorded(np.random.default_rng(3))
    assert wp.autograd.gradcheck_tape(tape, eps=1e-6, atol=1e-6, rtol=1e-6, raise_exception=False,
                                      show_summary=False, **options) is expected


def test_gradcheck_tape_raises_naming_the_entry():
    tape = _recorded(np.random.default_rng(4))
    with pytest.raises(ValueError, match=r"Gradient check failed for kernel uses_wrong_grad, input 0, output 0"):
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
    assert [ax.get_ylabel() for ax in images] == ["out", ""]      # left of the row's first block
    assert fig.get_suptitle() == "rotate_scale kernel Jacobian"
    assert images[0].get_gridspec().get_width_ratios() == [6, 2]   # each input's scalars
    for ax, key in zip(images, [(0, 0), (1, 0)]):
        np.testing.assert_array_equal(ax.images[0].get_array(), _m(jac[key]))
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

    def step(x):
        wp.launch(no_backward_wrong, dim=2, inputs=[x], outputs=[y])
        return y

    fn, dim, outputs = (step, None, None) if as_callable else (no_backward_wrong, 2, [y])
    with pytest.raises(ValueError, match="Kernel must have backward pass enabled to compute Jacobians"):
        getattr(wp.autograd, helper)(fn, dim=dim, inputs=[x], outputs=outputs)
    x0 = x.numpy()        # finite differences need no adjoint
    fd = wp.autograd.jacobian_fd(fn, dim=dim, inputs=[x], outputs=outputs, eps=1e-6)[(0, 0)]
    np.testing.assert_allclose(fd.numpy(), np.diag(3 * x0 ** 2), rtol=1e-6)
