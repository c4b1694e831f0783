"""fem.interpolate at quadrature points, at one point per element of a domain, at free sample
indices, and of a field; fem.Subdomain restricting integrals: against closed forms and numpy."""

import numpy as np
import pytest

import warp_interactive as wp
import warp_interactive.fem as fem


@fem.integrand
def position_x(s: fem.Sample, domain: fem.Domain):
    return domain(s)[0]


@fem.integrand
def mark_right_sides(s: fem.Sample, domain: fem.Domain, mask: wp.array(dtype=int)):
    if fem.normal(domain, s)[0] > 0.5:
        mask[s.qp_index] = 1


@fem.integrand
def sample_index_squared(s: fem.Sample, out: wp.array(dtype=float)):
    out[s.qp_index] = float(s.qp_index * s.qp_index)


@fem.integrand
def one(s: fem.Sample):
    return 1.0


@wp.func
def radial(x: wp.vec2, scale: float):
    return scale * wp.length(x)


def test_at_quadrature_points_fills_the_array_by_point_index():
    geo = fem.Grid2D(res=wp.vec2i(3, 2), bounds_hi=wp.vec2(3.0, 2.0))
    q = fem.RegularQuadrature(fem.Cells(geo), order=2)
    out = wp.zeros(q.total_point_count(), dtype=float)
    fem.interpolate(position_x, dest=out, at=q)
    pts = np.asarray(q.points)[:, 0]
    cells_x = np.repeat(np.arange(3), 2).astype(np.float64)        # cell index x * 2 + y
    expected = (cells_x[:, None] + pts[None, :]).ravel()
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6)


def test_at_a_domain_marks_elements_and_subdomain_integrates_over_them():
    geo = fem.Grid2D(res=wp.vec2i(4, 3), bounds_hi=wp.vec2(2.0, 1.5))
    boundary = fem.BoundarySides(geo)
    mask = wp.zeros(boundary.element_count(), dtype=int)
    fem.interpolate(mark_right_sides, at=boundary, values={"mask": mask})
    assert mask.numpy().sum() == 3                     # the right edge has 3 sides
    right = fem.Subdomain(boundary, element_mask=mask)
    assert right.element_count() == 3
    assert float(fem.integrate(one, domain=right)) == pytest.approx(1.5, rel=1e-6)
    assert float(fem.integrate(position_x, domain=right)) == pytest.approx(2.0 * 1.5, rel=1e-6)
    picked = fem.Subdomain(fem.Cells(geo), element_indices=wp.array([0, 5], dtype=int))
    assert float(fem.integrate(one, domain=picked)) == pytest.approx(2 * 0.25, rel=1e-6)
    with pytest.raises(ValueError, match="exactly one"):
        fem.Subdomain(boundary)


def test_at_free_sample_indices():
    geo = fem.Grid2D(res=wp.vec2i(2, 2))
    out = wp.zeros(7, dtype=float)
    fem.interpolate(sample_index_squared, at=fem.Cells(geo), dim=7, values={"out": out})
    np.testing.assert_array_equal(out.numpy(), np.arange(7.0) ** 2)


def test_interpolating_a_field_sets_the_node_values():
    geo = fem.Grid2D(res=wp.vec2i(3, 3))
    space = fem.make_polynomial_space(geo, degree=1)
    dest = space.make_field()
    fem.interpolate(fem.ImplicitField(fem.Cells(geo), radial, values={"scale": 2.0}), dest=dest)
    pos = space.node_positions().numpy()
    np.testing.assert_allclose(dest.dof_values.numpy(), 2.0 * np.linalg.norm(pos, axis=1), rtol=1e-5)


@wp.func
def bilinear(x: wp.vec2, a: float):
    return a * x[0] * x[1]


@wp.func
def bilinear_grad(x: wp.vec2, a: float):
    return wp.vec2(a * x[1], a * x[0])


@wp.func
def bilinear_div(x: wp.vec2, a: float):
    return a * (x[0] + x[1])


@fem.integrand
def grad_of(s: fem.Sample, p: fem.Field):
    return fem.grad(p, s)


@fem.integrand
def div_of(s: fem.Sample, p: fem.Field):
    return fem.div(p, s)


@fem.integrand
def grad_dot_one(s: fem.Sample, p: fem.Field):
    return wp.dot(fem.grad(p, s), wp.vec2(1.0, 1.0)) + 1.0


def test_implicit_field_gradient_and_divergence_functions():
    geo = fem.Grid2D(res=wp.vec2i(3, 2), bounds_hi=wp.vec2(1.5, 1.0))
    cells = fem.Cells(geo)
    f = fem.ImplicitField(cells, bilinear, values={"a": 3.0}, grad_func=bilinear_grad, div_func=bilinear_div)
    vec_space = fem.make_polynomial_space(geo, degree=1, dtype=wp.vec2)
    g = vec_space.make_field()
    fem.interpolate(grad_of, dest=g, fields={"p": f})
    pos = vec_space.node_positions().numpy()
    np.testing.assert_allclose(g.dof_values.numpy(), 3.0 * pos[:, ::-1], rtol=1e-5, atol=1e-6)
    # int 3 (x + y) over [0, 1.5] x [0, 1] = 3 (1.125 + 0.75)
    q = fem.RegularQuadrature(cells, order=2)
    assert float(fem.integrate(div_of, fields={"p": f}, quadrature=q)) == pytest.approx(3 * 1.875, rel=1e-5)
    # the same function with other derivatives is another field (its own operator table)
    other = fem.ImplicitField(cells, bilinear, values={"a": 3.0}, grad_func=bilinear_div_as_grad)
    fem.interpolate(grad_of, dest=g, fields={"p": other})
    np.testing.assert_allclose(g.dof_values.numpy()[:, 0], 3.0 * pos.sum(axis=1), rtol=1e-5, atol=1e-6)
    plain = fem.ImplicitField(cells, bilinear, values={"a": 3.0})
    with pytest.raises(Exception, match="grad.*not defined for an implicit field"):
        fem.interpolate(grad_of, dest=g, fields={"p": plain})


@wp.func
def bilinear_div_as_grad(x: wp.vec2, a: float):
    return wp.vec2(a * (x[0] + x[1]), 0.0)


def test_uniform_scalar_field_has_a_zero_vector_gradient():
    geo = fem.Grid2D(res=wp.vec2i(2, 2))
    u = fem.UniformField(fem.Cells(geo), 2.5)
    assert float(fem.integrate(grad_dot_one, fields={"p": u})) == pytest.approx(1.0, rel=1e-6)
