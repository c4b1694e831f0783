"""Scalar output arrays of vector-valued linear forms (warp-lang's layouts): ``(nodes * dofs,)``
contiguous or ``(nodes, dofs)``, filled as the vector result reshaped; other shapes refused with
what is wrong, before anything is written."""

import numpy as np
import pytest

import warp_interactive as wp
import warp_interactive.fem as fem


@fem.integrand
def weighted_components(s: fem.Sample, domain: fem.Domain, v: fem.Field):
    x = domain(s)
    return v(s)[0] * x[0] + 2.0 * v(s)[1] * x[1]


def _setup():
    space = fem.make_polynomial_space(fem.Grid2D(wp.vec2i(2, 3)), degree=1, dtype=wp.vec2)
    test = fem.make_test(space)
    assert test.node_dof_count == 2
    ref = fem.integrate(weighted_components, fields={"v": test}).numpy()
    return space.node_count(), test, ref


def test_flat_and_two_dimensional_outputs_hold_the_vector_result():
    n, test, ref = _setup()
    assert ref.shape == (n, 2) and np.abs(ref).max() > 0.0
    flat = wp.full(2 * n + 3, value=7.0, dtype=float)      # longer: the rest stays as it was
    assert fem.integrate(weighted_components, fields={"v": test}, output=flat) is flat
    np.testing.assert_allclose(flat.numpy()[:2 * n], ref.ravel(), rtol=1e-6)
    np.testing.assert_array_equal(flat.numpy()[2 * n:], 7.0)
    two = wp.zeros((n, 2), dtype=float)
    fem.integrate(weighted_components, fields={"v": test}, output=two)
    np.testing.assert_allclose(two.numpy(), ref, rtol=1e-6)
    fem.integrate(weighted_components, fields={"v": test}, output=two, add=True)
    np.testing.assert_allclose(two.numpy(), 2.0 * ref, rtol=1e-6)


@pytest.mark.parametrize("shape, strided, message", [
    ((-1, 1), False, "last dimension must be of size 2"),
    ((-1,), False, "at least {} entries"),
    ((-2,), True, "must be contiguous"),
    ((-3,), False, "one- or two-dimensional"),
])
def test_other_scalar_layouts_are_refused(shape, strided, message):
    n, test, _ref = _setup()
    sizes = {(-1, 1): (n, 1), (-1,): (2 * n - 1,), (-2,): (4 * n,), (-3,): (n, 2, 1)}
    out = wp.zeros(sizes[shape], dtype=float)
    if strided:
        out = out[::2]
    with pytest.raises(RuntimeError, match=message.format(2 * n)):
        fem.integrate(weighted_components, fields={"v": test}, output=out)
