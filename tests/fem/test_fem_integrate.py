"""warp.fem integrals against closed forms: polynomials integrated exactly up to the quadrature's
order (and not beyond), boundary integrals (divergence theorem: normals' orientation), linear
forms (partition of unity, exactness on the space), interpolation exact on the space."""

import numpy as np
import pytest

import warp_interactive as wp
import warp_interactive.fem as fem


@fem.integrand
def monomial(s: fem.Sample, domain: fem.Domain, powers: wp.vec3i):
    x = fem.position(domain, s)
    r = float(1.0)
    for axis in range(wp.static(len(x))):
        for _ in range(powers[axis]):
            r *= x[axis]
    return r


@fem.integrand
def x_dot_n(s: fem.Sample, domain: fem.Domain):
    return wp.dot(fem.position(domain, s), fem.normal(domain, s))


@fem.integrand
def basis_value(s: fem.Sample, v: fem.Field):
    return v(s)


@fem.integrand
def weighted_test(s: fem.Sample, domain: fem.Domain, v: fem.Field):
    x = fem.position(domain, s)
    return (x[0] * x[0] - 3.0 * x[1] + 1.0) * v(s)


@fem.integrand
def quadratic(s: fem.Sample, domain: fem.Domain):
    x = fem.position(domain, s)
    return x[0] * x[0] - 3.0 * x[1] + 1.0


@fem.integrand
def field_value(s: fem.Sample, u: fem.Field):
    return u(s)


@fem.integrand
def grad_squared(s: fem.Sample, u: fem.Field):
    g = fem.grad(u, s)
    return wp.dot(g, g)


def grid(dim):
    if dim == 2:
        return fem.Grid2D(res=wp.vec2i(3, 2), bounds_lo=wp.vec2(0.5, 0.0), bounds_hi=wp.vec2(2.0, 1.0))
    return fem.Grid3D(res=wp.vec3i(2, 2, 3), bounds_lo=wp.vec3(0.5, 0.0, 0.0), bounds_hi=wp.vec3(2.0, 1.0, 1.5))


def exact_monomial(geo, powers):
    lo, hi = np.array(geo.bounds_lo, dtype=np.float64), np.array(geo.bounds_hi, dtype=np.float64)
    return np.prod([(hi[a] ** (p + 1) - lo[a] ** (p + 1)) / (p + 1) for a, p in enumerate(powers[:geo.dimension])])


@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("order,powers,exact", [
    (0, (1, 0, 0), True), (1, (1, 1, 1), True), (2, (3, 1, 0), True), (3, (3, 3, 2), True),
    (5, (5, 4, 5), True), (2, (4, 0, 0), False), (3, (0, 4, 0), False),
])
def test_polynomials_exact_to_quadrature_order(dim, order, powers, exact):
    geo = grid(dim)
    cells = fem.Cells(geo)
    q = fem.RegularQuadrature(cells, order=order)
    got = fem.integrate(monomial, quadrature=q, values={"powers": wp.vec3i(*powers)})
    want = exact_monomial(geo, powers)
    err = abs(float(got) - want) / abs(want)
    if exact:
        assert err < 2e-6
    else:               # a degree past the rule's: Gauss points leave an error
        assert err > 1e-5


@pytest.mark.parametrize("dim", [2, 3])
def test_boundary_divergence_theorem(dim):
    """The integral of x.n over the boundary is dim * volume (outward normals, side measures)."""
    geo = grid(dim)
    volume = exact_monomial(geo, (0, 0, 0))
    got = fem.integrate(x_dot_n, domain=fem.BoundarySides(geo))
    assert float(got) == pytest.approx(dim * volume, rel=1e-5)
    # over every side, interior ones included: normals point +axis inside; x.n sums differ
    total = fem.integrate(x_dot_n, domain=fem.Sides(geo))
    assert float(total) > float(got)


@pytest.mark.parametrize("dim,degree", [(2, 1), (2, 2), (2, 3), (3, 2)])
def test_linear_form_partition_of_unity_and_exactness(dim, degree):
    geo = grid(dim)
    space = fem.make_polynomial_space(geo, degree=degree)
    test = fem.make_test(space, domain=fem.Cells(geo))
    ones = fem.integrate(basis_value, fields={"v": test})
    assert ones.shape == (space.node_count(),)
    assert ones.numpy().sum() == pytest.approx(exact_monomial(geo, (0, 0, 0)), rel=1e-5)
    # sum_i u_i (f, phi_i) = (f, u) for u = f interpolated: exact when f lies in the space
    u = space.make_field()
    fem.interpolate(quadratic, dest=u)
    cells = fem.Cells(geo)
    weighted = fem.integrate(weighted_test, fields={"v": test}, quadrature=fem.RegularQuadrature(cells, degree + 2))
    pos = space.node_positions().numpy()
    f = pos[:, 0] ** 2 - 3.0 * pos[:, 1] + 1.0
    np.testing.assert_allclose(u.dof_values.numpy(), f, rtol=1e-6, atol=1e-6)   # nodal values
    u_f = np.dot(weighted.numpy().astype(np.float64), u.dof_values.numpy())
    f_f = float(fem.integrate(quadratic_squared, quadrature=fem.RegularQuadrature(cells, 4)))
    if degree >= 2:
        assert u_f == pytest.approx(f_f, rel=1e-5)
    else:               # Q1 does not hold x^2: the projection differs
        assert abs(u_f - f_f) > 1e-3 * abs(f_f)


@fem.integrand
def quadratic_squared(s: fem.Sample, domain: fem.Domain):
    v = quadratic(s, domain)
    return v * v


@pytest.mark.parametrize("dim", [2, 3])
def test_discrete_field_value_and_gradient(dim):
    """A Q2 field interpolating x^2 - 3y + 1: its integral and its gradient energy are exact."""
    geo = grid(dim)
    space = fem.make_polynomial_space(geo, degree=2)
    u = space.make_field()
    fem.interpolate(quadratic, dest=u)
    lo, hi = np.array(geo.bounds_lo, dtype=np.float64), np.array(geo.bounds_hi, dtype=np.float64)
    ext = hi - lo
    others = np.prod(ext[1:])
    integral = ((hi[0] ** 3 - lo[0] ** 3) / 3) * others - 3.0 * ((hi[1] ** 2 - lo[1] ** 2) / 2) * ext[0] * \
        np.prod(ext[2:]) + np.prod(ext)
    assert float(fem.integrate(field_value, fields={"u": u})) == pytest.approx(integral, rel=1e-5)
    energy = (4.0 * (hi[0] ** 3 - lo[0] ** 3) / 3) * others + 9.0 * np.prod(ext)
    assert float(fem.integrate(grad_squared, fields={"u": u})) == pytest.approx(energy, rel=1e-5)


def test_missing_field_and_extra_value_are_reported():
    geo = grid(2)
    with pytest.raises(ValueError, match="no field given for parameter 'u'"):
        fem.integrate(field_value, domain=fem.Cells(geo))
    with pytest.raises(ValueError, match="has no parameter.*bogus"):
        fem.integrate(quadratic, domain=fem.Cells(geo), values={"bogus": 1.0})
    with pytest.raises(ValueError, match="tagged with @warp.fem.integrand"):
        fem.integrate(lambda s: 1.0, domain=fem.Cells(geo))


@fem.integrand
def grad_of_a_value(s: fem.Sample, a: float):
    return fem.grad(a, s)


def test_operator_on_a_plain_value_names_the_line():
    geo = grid(2)
    with pytest.raises(wp.errors.CodegenError if hasattr(wp, "errors") else Exception,
                       match=r"grad\(\): applies to fields and domains, not to a float32"):
        fem.integrate(grad_of_a_value, domain=fem.Cells(geo), values={"a": 1.0})


@fem.integrand
def cubic_energy(s: fem.Sample, u: fem.Field):
    g = fem.grad(u, s)
    v = u(s)
    return 0.5 * wp.dot(g, g) + v * v * v


@pytest.mark.parametrize("output_dtype", [wp.float64, wp.float32])
def test_energy_gradient_matches_finite_differences(output_dtype):
    """An integral recorded on a Tape: d/du_i of  int |grad u|^2 / 2 + u^3  by the adjoint
    kernels, against central differences of the integral (in float64)."""
    geo = fem.Grid2D(res=wp.vec2i(3))
    space = fem.make_polynomial_space(geo, degree=2)
    u = space.make_field()
    rng = np.random.default_rng(0)
    x0 = rng.normal(size=space.node_count())
    u.dof_values = wp.array(x0.astype(np.float32), dtype=float, requires_grad=True)
    out = wp.zeros(1, dtype=output_dtype, requires_grad=True)
    tape = wp.Tape()
    with tape:
        fem.integrate(cubic_energy, fields={"u": u}, output=out)
    tape.backward(grads={out: wp.ones(1, dtype=output_dtype)})
    grad = u.dof_values.grad.numpy()

    def energy(x):
        u.dof_values = wp.array(x.astype(np.float32), dtype=float)
        return float(fem.integrate(cubic_energy, fields={"u": u}))

    eps = 1e-2
    for i in (0, 7, 20, space.node_count() - 1):
        e = np.zeros_like(x0)
        e[i] = eps
        fd = (energy(x0 + e) - energy(x0 - e)) / (2 * eps)
        assert grad[i] == pytest.approx(fd, rel=2e-3, abs=2e-4)


@fem.integrand
def rotation(s: fem.Sample, domain: fem.Domain):
    x = fem.position(domain, s)
    return wp.vec2(-2.0 * x[1], 2.0 * x[0] + x[1])


@fem.integrand
def vector_operators(s: fem.Sample, u: fem.Field, which: int):
    if which == 0:
        return fem.curl(u, s)
    if which == 1:
        return fem.div(u, s)
    g = fem.D(u, s)
    return g[0, 1] + g[1, 1]


@pytest.mark.parametrize("which,expected", [(0, 2.0), (1, 1.0), (2, 1.0)])
def test_vector_field_operators(which, expected):
    """u = (-2y, 2x + y): curl (skew part of grad as an angle) 2, div 1, D = [[0, 0], [0, 1]]."""
    geo = grid(2)
    space = fem.make_polynomial_space(geo, degree=1, dtype=wp.vec2)
    u = space.make_field()
    fem.interpolate(rotation, dest=u)
    area = exact_monomial(geo, (0, 0, 0))
    got = fem.integrate(vector_operators, fields={"u": u}, values={"which": which})
    assert float(got) == pytest.approx(expected * area, rel=1e-5)


@fem.integrand
def looked_up(s: fem.Sample, domain: fem.Domain, u: fem.Field, shift):
    return u(fem.lookup(domain, fem.position(domain, s) + shift, s))


@fem.integrand
def first_coordinate(s: fem.Sample, domain: fem.Domain):
    return fem.position(domain, s)[0]


@pytest.mark.parametrize("dim", [2, 3])
def test_lookup_clamps_to_the_grid(dim):
    """u = x looked up at x - 1: inside the grid the value there, outside the closest point's
    (the lower bound, 0.5): the integral is int max(x - 1, 0.5)."""
    geo = grid(dim)
    space = fem.make_polynomial_space(geo, degree=1)
    u = space.make_field()
    fem.interpolate(first_coordinate, dest=u)
    cells = fem.Cells(geo)
    got = fem.integrate(looked_up, fields={"u": u}, values={"shift": wp.vec2(-1.0, 0.0) if dim == 2 else wp.vec3(-1.0, 0.0, 0.0)},
                        quadrature=fem.RegularQuadrature(cells, order=8))
    lo, hi = 0.5, 2.0
    others = exact_monomial(geo, (0, 0, 0)) / (hi - lo)
    # int_{0.5}^{2} max(x - 1, 0.5) dx = 0.5 * 1.0 + int_{1.5}^{2} (x - 1) dx
    want = (0.5 * 1.0 + ((2.0 - 1.0) ** 2 - (1.5 - 1.0) ** 2) / 2) * others
    assert float(got) == pytest.approx(want, rel=2e-3)


@fem.integrand
def uniform_value(s: fem.Sample, u: fem.Field):
    return u(s)


def test_uniform_field_value_and_its_type():
    geo = grid(2)
    f = fem.UniformField(fem.Cells(geo), 2.0)
    assert float(fem.integrate(uniform_value, fields={"u": f})) == pytest.approx(2.0 * 1.5, rel=1e-6)
    f.value = 3.0
    assert float(fem.integrate(uniform_value, fields={"u": f})) == pytest.approx(3.0 * 1.5, rel=1e-6)
    with pytest.raises(TypeError, match="UniformField value type must remain float32, got vec2f"):
        f.value = wp.vec2(1.0)


def test_quadrature_of_another_domain_is_refused():
    geo = grid(2)
    space = fem.make_polynomial_space(geo, degree=1)
    boundary_test = fem.make_test(space, domain=fem.BoundarySides(geo))
    with pytest.raises(ValueError, match="Incompatible integration and quadrature domain"):
        fem.integrate(basis_value, fields={"v": boundary_test}, quadrature=fem.RegularQuadrature(fem.Cells(geo), 2))
