"""``kernel_options`` of ``fem.integrate`` / ``fem.interpolate`` (and of ``@fem.integrand``) reach
the kernels they build: ``enable_backward=False`` gives a kernel without an adjoint (a taped
integral then yields no gradient, with warp-lang's warning), the other names are module options
(a misspelt one is refused)."""

import numpy as np
import pytest

import warp_interactive as wp
import warp_interactive.fem as fem
from warp_interactive.fem import kernels as K


@fem.integrand
def energy(s: fem.Sample, u: fem.Field):
    return u(s) * u(s)


@fem.integrand
def mass(s: fem.Sample, u: fem.Field, v: fem.Field):
    return u(s) * v(s)


@fem.integrand(kernel_options={"enable_backward": False})
def energy_forward_only(s: fem.Sample, u: fem.Field):
    return u(s) * u(s)


def _field():
    space = fem.make_polynomial_space(fem.Grid2D(wp.vec2i(2)), degree=1)
    u = space.make_field()
    u.dof_values = wp.array(np.linspace(-1.0, 2.0, space.node_count()), dtype=float, requires_grad=True)
    return space, u


def _taped_gradient(integrand, u, **kw):
    out = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        # order 2: u^2 exactly (the default order is the sum of the fields' degrees, 1)
        quadrature = fem.RegularQuadrature(fem.Cells(u.space.geometry), order=2)
        fem.integrate(integrand, fields={"u": u}, output=out, quadrature=quadrature, **kw)
    tape.backward(grads={out: wp.ones(1, dtype=float)})
    return u.dof_values.grad.numpy().copy()


def _warned(capsys):
    """Whether the tape warned (on stderr, in Warp's format) of a kernel without adjoint."""
    return "is configured with the option 'enable_backward=False'" in capsys.readouterr().err


def test_enable_backward_reaches_the_integral_kernel(capsys):
    space, u = _field()
    M = fem.integrate(mass, fields={"u": fem.make_trial(space), "v": fem.make_test(space)})
    dense = np.zeros((M.nrow, M.ncol))
    for r in range(M.nrow):
        for k in range(M.offsets.numpy()[r], M.offsets.numpy()[r + 1]):
            dense[r, M.columns.numpy()[k]] += M.values.numpy()[k]
    expected = 2.0 * dense @ u.dof_values.numpy()         # d/du of u^T M u
    np.testing.assert_allclose(_taped_gradient(energy, u), expected, rtol=1e-5, atol=1e-6)
    assert not _warned(capsys)
    u.dof_values.grad.zero_()
    np.testing.assert_array_equal(_taped_gradient(energy, u, kernel_options={"enable_backward": False}), 0.0)
    assert _warned(capsys)
    u.dof_values.grad.zero_()
    np.testing.assert_array_equal(_taped_gradient(energy_forward_only, u), 0.0)    # the integrand's own
    assert _warned(capsys)
    u.dof_values.grad.zero_()                                         # and the call's override them
    np.testing.assert_allclose(_taped_gradient(energy_forward_only, u, kernel_options={"enable_backward": True}),
                               expected, rtol=1e-5, atol=1e-6)


def test_module_options_are_checked():
    _space, u = _field()
    assert fem.integrate(energy, fields={"u": u}, kernel_options={"max_unroll": 1}) == pytest.approx(
        fem.integrate(energy, fields={"u": u}), rel=1e-6)
    with pytest.raises(ValueError, match="unknown module_options 'max_unrol'"):
        fem.integrate(energy, fields={"u": u}, kernel_options={"max_unrol": 1})


@fem.integrand
def weighted_load(s: fem.Sample, u: fem.Field, v: fem.Field):
    return u(s) * u(s) * v(s)


def _load(u, test, out=None):
    return fem.integrate(weighted_load, fields={"u": u, "v": test}, output=out,
                         quadrature=fem.RegularQuadrature(fem.Cells(u.space.geometry), order=3))


def test_untaped_integrals_then_taped_ones_differentiate(capsys):
    """An integral run with no tape recording builds a forward-only kernel; the same integral
    taped afterwards builds its own kernel with an adjoint: its gradient matches central
    finite differences, without the tape's no-adjoint warning."""
    space, u = _field()
    test = fem.make_test(space)
    x0 = u.dof_values.numpy().copy()
    first = _load(u, test).numpy()                   # untaped: forward-only kernels
    assert _linear_kernels_backward() == [False]
    weights = np.linspace(0.5, 1.5, space.node_count()).astype(np.float32)
    out = wp.zeros(space.node_count(), dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        _load(u, test, out)
    np.testing.assert_array_equal(out.numpy(), first)
    assert sorted(_linear_kernels_backward()) == [False, True]
    tape.backward(grads={out: wp.array(weights, dtype=float)})
    grad = u.dof_values.grad.numpy().copy()
    assert not _warned(capsys)
    eps = 1e-2
    fd = np.zeros_like(x0)
    for k in range(len(x0)):
        vals = []
        for sign in (1.0, -1.0):
            x = x0.copy()
            x[k] += sign * eps
            u.dof_values = wp.array(x, dtype=float)
            vals.append(float(weights.astype(np.float64) @ _load(u, test).numpy()))
        fd[k] = (vals[0] - vals[1]) / (2 * eps)
    np.testing.assert_allclose(grad, fd, rtol=1e-3, atol=1e-4)
    assert np.abs(fd).max() > 0.01
    u.dof_values = wp.array(x0, dtype=float, requires_grad=True)
    np.testing.assert_allclose(_taped_gradient(energy, u), _taped_gradient_expected(space, u), rtol=1e-5, atol=1e-6)


def _linear_kernels_backward():
    """Whether each linear-form kernel built for ``weighted_load`` so far has an adjoint (None:
    the default, which has one)."""
    return [k.enable_backward is not False for key, k in K._kernels.items() if key[0] == "linear" and weighted_load in key]


def _taped_gradient_expected(space, u):
    M = fem.integrate(mass, fields={"u": fem.make_trial(space), "v": fem.make_test(space)})
    dense = np.zeros((M.nrow, M.ncol))
    for r in range(M.nrow):
        for k in range(M.offsets.numpy()[r], M.offsets.numpy()[r + 1]):
            dense[r, M.columns.numpy()[k]] += M.values.numpy()[k]
    return 2.0 * dense @ u.dof_values.numpy()
