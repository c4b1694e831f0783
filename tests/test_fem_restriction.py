"""fem.make_restriction (interpolating into the nodes of some elements only), gradients through
fem.interpolate into a field's nodes (a semi-Lagrangian step with fem.lookup),
and integrands without a sample parameter: against brute force and closed forms."""

import numpy as np
import pytest

import warp_interactive as wp
import warp_interactive.fem as fem


@fem.integrand
def position_x(s: fem.Sample, domain: fem.Domain):
    return domain(s)[0]


@fem.integrand
def position_y(s: fem.Sample, domain: fem.Domain):
    return domain(s)[1]


@fem.integrand
def bilinear(s: fem.Sample, domain: fem.Domain):
    x = domain(s)
    return 1.0 + 2.0 * x[0] + 3.0 * x[1] + x[0] * x[1]


@fem.integrand
def advected(s: fem.Sample, domain: fem.Domain, level_set: fem.Field, velocity: fem.Field, dt: float):
    back = fem.lookup(domain, domain(s) - velocity(s) * dt, s)
    return level_set(back)


@fem.integrand
def constant():
    return 1.0


@fem.integrand
def scaled_constant(scale: float):
    return scale


@fem.integrand
def scaled_test(s: fem.Sample, v: fem.Field):
    return 2.0 * v(s)


@wp.kernel
def weighted_sum(a: wp.array(dtype=float), w: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(out, 0, a[i] * w[i])


def node_positions(space):
    xs, ys = space.make_field(), space.make_field()
    fem.interpolate(position_x, dest=xs)
    fem.interpolate(position_y, dest=ys)
    return np.stack([xs.dof_values.numpy(), ys.dof_values.numpy()], axis=1)


@pytest.mark.parametrize("degree", [1, 2])
def test_restriction_to_some_cells_sets_only_their_nodes(degree):
    res = (4, 3)
    geo = fem.Grid2D(res=wp.vec2i(*res), bounds_hi=wp.vec2(4.0, 3.0))     # unit cells
    space = fem.make_polynomial_space(geo, degree=degree)
    pos = node_positions(space)
    field = space.make_field()
    field.dof_values.fill_(-7.0)
    cells = [(0, 0), (1, 2)]                                   # (x, y); cell index x * ny + y
    picked = fem.Subdomain(fem.Cells(geo), element_indices=wp.array([x * res[1] + y for x, y in cells], dtype=int))
    restriction = fem.make_restriction(field, domain=picked)
    assert restriction.field is field and restriction.domain is picked
    fem.interpolate(position_x, dest=restriction)
    inside = np.zeros(len(pos), dtype=bool)
    for x, y in cells:                                         # brute force: nodes in the closed cells
        inside |= (pos[:, 0] >= x - 1e-6) & (pos[:, 0] <= x + 1 + 1e-6) & (pos[:, 1] >= y - 1e-6) & (pos[:, 1] <= y + 1 + 1e-6)
    got = field.dof_values.numpy()
    assert inside.sum() == 2 * (degree + 1) ** 2
    np.testing.assert_allclose(got[inside], pos[inside, 0], rtol=1e-6)
    np.testing.assert_array_equal(got[~inside], -7.0)


def test_restriction_to_boundary_sides_sets_the_boundary_nodes():
    geo = fem.Grid2D(res=wp.vec2i(3, 3))
    space = fem.make_polynomial_space(geo, degree=2)
    pos = node_positions(space)
    field = space.make_field()
    field.dof_values.fill_(-1.0)
    fem.interpolate(position_y, dest=fem.make_restriction(field, domain=fem.BoundarySides(geo)))
    on_boundary = np.any((pos < 1e-6) | (pos > 1.0 - 1e-6), axis=1)
    got = field.dof_values.numpy()
    np.testing.assert_allclose(got[on_boundary], pos[on_boundary, 1], atol=1e-6)
    np.testing.assert_array_equal(got[~on_boundary], -1.0)
    with pytest.raises(ValueError, match="geometries"):
        fem.make_restriction(field, domain=fem.Cells(fem.Grid2D(res=wp.vec2i(3, 3))))


def _advect(degree, dt=1.0):
    geo = fem.Grid2D(res=wp.vec2i(4))
    ls_space = fem.make_polynomial_space(geo, degree=degree)
    v_space = fem.make_polynomial_space(geo, degree=degree, dtype=wp.vec2)
    level_set = ls_space.make_field()
    fem.interpolate(bilinear, dest=level_set)
    level_set.dof_values.requires_grad = True
    rng = np.random.default_rng(degree)
    v = rng.uniform(-0.05, 0.05, (v_space.node_count(), 2)).astype(np.float32)
    velocity = v_space.make_field()
    velocity.dof_values = wp.array(v, dtype=wp.vec2, requires_grad=True)
    out = ls_space.make_field()
    out.dof_values.requires_grad = True
    w = rng.uniform(0.5, 1.5, ls_space.node_count()).astype(np.float32)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        fem.interpolate(advected, dest=fem.make_restriction(out), fields={"level_set": level_set, "velocity": velocity},
                        values={"dt": dt})
        wp.launch(weighted_sum, dim=len(w), inputs=[out.dof_values, wp.array(w), loss])
    tape.backward(loss=loss)
    return node_positions(ls_space), v, w, out.dof_values.numpy(), velocity.dof_values.grad.numpy(), \
        level_set.dof_values.grad.numpy()


@pytest.mark.parametrize("degree", [1, 2])
def test_gradient_of_a_semi_lagrangian_step_through_interpolate(degree):
    # the level set 1 + 2x + 3y + xy is exact in Q1 and Q2: each node's value is the function at
    # x - v dt, and d/dv of it is -dt * (2 + y, 3 + x) there (nodes on the boundary, whose
    # lookups are clamped to the domain, are left out)
    pos, v, w, out, v_grad, ls_grad = _advect(degree)
    back = pos - v
    f = 1.0 + 2.0 * back[:, 0] + 3.0 * back[:, 1] + back[:, 0] * back[:, 1]
    interior = np.all((pos > 1e-6) & (pos < 1.0 - 1e-6), axis=1)
    np.testing.assert_allclose(out[interior], f[interior], rtol=1e-5)
    expected = -w[:, None] * np.stack([2.0 + back[:, 1], 3.0 + back[:, 0]], axis=1)
    np.testing.assert_allclose(v_grad[interior], expected[interior], rtol=1e-4)
    assert np.abs(v_grad).max() > 0
    # d loss / d level-set dofs: the basis functions at the departure points weighted by w;
    # they sum to one at each point, so the gradient sums to sum(w)
    assert ls_grad.sum() == pytest.approx(w.sum(), rel=1e-5)
    if degree == 1:                      # Q1 basis functions are not negative
        assert ls_grad.min() > -1e-6


def test_integrands_without_a_sample():
    geo = fem.Grid2D(res=wp.vec2i(3, 2), bounds_hi=wp.vec2(3.0, 2.0))
    assert float(fem.integrate(constant, domain=fem.Cells(geo))) == pytest.approx(6.0, rel=1e-6)
    assert float(fem.integrate(constant, domain=fem.BoundarySides(geo))) == pytest.approx(10.0, rel=1e-6)
    out = wp.zeros(1, dtype=float)
    fem.integrate(scaled_constant, domain=fem.Cells(geo), values={"scale": 0.5}, output=out)
    assert out.numpy()[0] == pytest.approx(3.0, rel=1e-6)


def test_output_arrays_too_short_are_refused():
    geo = fem.Grid2D(res=wp.vec2i(2))
    q = fem.RegularQuadrature(fem.Cells(geo), order=2)
    with pytest.raises(ValueError, match=f"{q.total_point_count()} rows"):
        fem.interpolate(position_x, at=q, dest=wp.zeros(q.total_point_count() - 1, dtype=float))
    with pytest.raises(ValueError, match="5 rows"):
        fem.interpolate(position_x, dim=5, at=fem.Cells(geo), dest=wp.zeros(4, dtype=float))
    space = fem.make_polynomial_space(geo, degree=1)
    with pytest.raises(RuntimeError, match="at least 9 rows"):
        fem.integrate(scaled_test, fields={"v": fem.make_test(space)}, output=wp.zeros(8, dtype=float))
