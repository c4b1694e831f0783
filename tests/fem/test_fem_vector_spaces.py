"""Raviart-Thomas (H(div)) and Nedelec first-kind (H(curl)) spaces on Grid3D.

References computed here: the lowest-order spaces on boxes contain the fields whose
``a``-th component is linear in ``x_a`` only (RT) or bilinear in the two other coordinates
(Nedelec), so interpolating such a field must be exact (L2 error zero), its dofs must be the
fluxes through the faces (the tangential integrals along the edges) computed in NumPy, and
``fem.div`` / ``fem.curl`` must be the analytic divergence / half curl (``fem.curl`` is the
skew part of the gradient, as warp-lang's). A smooth field outside the space converges at
first order in L2. Nodal matrices hold one block per node (warp-lang's layout, which examples
index by node)."""

import numpy as np
import pytest

import warp_interactive as wp
import warp_interactive.fem as fem

LO, HI = np.array([0.0, -0.5, 0.25]), np.array([1.0, 1.0, 1.0])


def _grid(res):
    return fem.Grid3D(res=wp.vec3i(*res), bounds_lo=wp.vec3(*LO), bounds_hi=wp.vec3(*HI))


@wp.func
def rt_field(x: wp.vec3):
    return wp.vec3(1.0 + 2.0 * x[0], 2.0 - x[1], 0.5 + 3.0 * x[2])


@wp.func
def n1_field(x: wp.vec3):
    return wp.vec3(1.0 + 2.0 * x[1] + 3.0 * x[2] + x[1] * x[2], 2.0 - x[0] + 0.5 * x[2], 0.5 + x[0] - x[1] + 2.0 * x[0] * x[1])


@wp.func
def n1_curl(x: wp.vec3):
    return wp.vec3(2.0 * x[0] - 1.5, 2.0 - x[1], -3.0 - x[2])


@wp.func
def smooth_field(x: wp.vec3):
    return wp.vec3(wp.sin(2.0 * x[1]) + x[0] * x[0], wp.cos(x[0] + x[2]), wp.exp(x[1]) * x[2])


@fem.integrand
def field_at(s: fem.Sample, domain: fem.Domain, which: int):
    x = domain(s)
    if which == 0:
        return rt_field(x)
    if which == 1:
        return n1_field(x)
    return smooth_field(x)


@fem.integrand
def errors(s: fem.Sample, domain: fem.Domain, u: fem.Field, which: int, part: int):
    """|u - f|^2 (``part`` 0), or the derivative check (``part`` 1): (div u - 4)^2 for RT,
    |curl u - curl f / 2|^2 for N1."""
    x = domain(s)
    if which == 0:
        d = u(s) - rt_field(x)
        e = fem.div(u, s) - 4.0
        return wp.where(part == 0, wp.dot(d, d), e * e)
    if which == 1:
        d = u(s) - n1_field(x)
        c = fem.curl(u, s) - 0.5 * n1_curl(x)
        return wp.where(part == 0, wp.dot(d, d), wp.dot(c, c))
    d = u(s) - smooth_field(x)
    return wp.dot(d, d)


def _rt_dofs(res):
    """Flux of rt_field through every face, in warp-lang's face order."""
    h = (HI - LO) / res
    out = []
    for a in range(3):
        a1, a2 = (a + 1) % 3, (a + 2) % 3
        for i in range(res[a] + 1):
            for j in range(res[a1]):
                for k in range(res[a2]):
                    x = np.zeros(3)
                    x[a], x[a1], x[a2] = LO[a] + i * h[a], LO[a1] + (j + 0.5) * h[a1], LO[a2] + (k + 0.5) * h[a2]
                    v = np.array([1 + 2 * x[0], 2 - x[1], 0.5 + 3 * x[2]])
                    out.append(v[a] * h[a1] * h[a2])
    return np.array(out)


def _n1_dofs(res):
    """Integral of n1_field's tangential component along every edge, in warp-lang's edge order."""
    h = (HI - LO) / res
    g, w = np.polynomial.legendre.leggauss(2)
    out = []
    for a in range(3):
        a1, a2 = (a + 1) % 3, (a + 2) % 3
        for i in range(res[a]):
            for j in range(res[a1] + 1):
                for k in range(res[a2] + 1):
                    total = 0.0
                    for t, tw in zip(0.5 * (g + 1), 0.5 * w):
                        x = np.zeros(3)
                        x[a], x[a1], x[a2] = LO[a] + (i + t) * h[a], LO[a1] + j * h[a1], LO[a2] + k * h[a2]
                        v = np.array([1 + 2 * x[1] + 3 * x[2] + x[1] * x[2], 2 - x[0] + 0.5 * x[2],
                                      0.5 + x[0] - x[1] + 2 * x[0] * x[1]])
                        total += tw * v[a] * h[a]
                    out.append(total)
    return np.array(out)


BASES = {"RT": (fem.ElementBasis.RAVIART_THOMAS, 0, _rt_dofs), "N1": (fem.ElementBasis.NEDELEC_FIRST_KIND, 1, _n1_dofs)}


@pytest.mark.parametrize("basis", list(BASES))
def test_interpolation_exact_with_reference_dofs_and_derivatives(basis):
    element_basis, which, reference = BASES[basis]
    res = np.array([2, 3, 2])
    geo = _grid(res)
    space = fem.make_polynomial_space(geo, degree=1, element_basis=element_basis, dtype=wp.vec3)
    assert space.node_count() == (geo.side_count() if basis == "RT" else geo.edge_count())
    u = space.make_field()
    assert u.dof_values.dtype == wp.float32 and u.dof_values.shape == (space.node_count(),)
    fem.interpolate(field_at, dest=u, values={"which": which})
    np.testing.assert_allclose(u.dof_values.numpy(), reference(res), rtol=1e-5, atol=1e-6)
    quad = fem.RegularQuadrature(fem.Cells(geo), order=4)
    err = [fem.integrate(errors, fields={"u": u}, values={"which": which, "part": p}, quadrature=quad)
           for p in (0, 1)]
    assert err[0] < 1e-10 and err[1] < 1e-9


@pytest.mark.parametrize("basis", list(BASES))
def test_first_order_convergence_of_a_smooth_field(basis):
    element_basis = BASES[basis][0]
    errs = []
    for n in (2, 4):
        geo = _grid((n, n, n))
        u = fem.make_polynomial_space(geo, degree=1, element_basis=element_basis, dtype=wp.vec3).make_field()
        fem.interpolate(field_at, dest=u, values={"which": 2})
        e = fem.integrate(errors, fields={"u": u}, values={"which": 2, "part": 0},
                          quadrature=fem.RegularQuadrature(fem.Cells(geo), order=4))
        errs.append(np.sqrt(float(e)))
    rate = np.log2(errs[0] / errs[1])
    assert 0.85 < rate < 1.3, (errs, rate)


@fem.integrand
def dot_form(s: fem.Sample, u: fem.Field, v: fem.Field):
    return wp.dot(u(s), v(s))


@fem.integrand
def minus_normal(s: fem.Sample, domain: fem.Domain):
    return -fem.normal(domain, s)


def test_rt_nodal_matrix_and_boundary_trace():
    res = np.array([2, 1, 2])
    geo = _grid(res)
    h = (HI - LO) / res
    space = fem.make_polynomial_space(geo, degree=1, element_basis=fem.ElementBasis.RAVIART_THOMAS, dtype=wp.vec3)
    M = fem.integrate(dot_form, fields={"u": fem.make_trial(space), "v": fem.make_test(space)}, assembly="nodal",
                      output_dtype=float)
    n = space.node_count()
    # one block per node, in node order: a face's shape function is 1/area at its centre, and
    # each cell weighs its 6 faces by volume / 6
    assert M.nnz == n and M.values.shape == (n,)
    np.testing.assert_array_equal(M.columns.numpy()[:n], np.arange(n))
    vol = np.prod(h)
    expected = []
    for a in range(3):
        a1, a2 = (a + 1) % 3, (a + 2) % 3
        area = h[a1] * h[a2]
        for i in range(res[a] + 1):
            cells = int(i > 0) + int(i < res[a])
            expected += [cells * vol / 6 / area ** 2] * (res[a1] * res[a2])
    np.testing.assert_allclose(M.values.numpy(), expected, rtol=1e-5)

    # the trace on the boundary: interpolating -n sets the boundary faces' inward fluxes only
    u = space.make_field()
    fem.interpolate(minus_normal, dest=u, at=fem.BoundarySides(geo))
    want, k = np.zeros(n), 0
    for a in range(3):
        a1, a2 = (a + 1) % 3, (a + 2) % 3
        area = h[a1] * h[a2]
        for i in range(res[a] + 1):
            for _ in range(res[a1] * res[a2]):
                want[k] = area if i == 0 else (-area if i == res[a] else 0.0)
                k += 1
    np.testing.assert_allclose(u.dof_values.numpy(), want, rtol=1e-5, atol=1e-7)

    # a nodal matrix over the boundary: rows of boundary faces only
    b = fem.BoundarySides(geo)
    Mb = fem.integrate(dot_form, fields={"u": fem.make_trial(space, domain=b), "v": fem.make_test(space, domain=b)},
                       assembly="nodal", output_dtype=float)
    rows = np.repeat(np.arange(n), np.diff(Mb.offsets.numpy()))
    np.testing.assert_array_equal(rows, np.flatnonzero(want))


# -- implicit fields: values by name, deformed geometries ---------------------------------------

@wp.func
def affine_map(x: wp.vec3, shear: float, stretch: float):
    return wp.vec3(stretch * x[0], x[1] + shear * x[0], x[2])


@wp.func
def affine_map_grad(x: wp.vec3, shear: float, stretch: float):
    return wp.mat33(stretch, 0.0, 0.0, shear, 1.0, 0.0, 0.0, 0.0, 1.0)


@fem.integrand
def implicit_value(s: fem.Sample, f: fem.Field):
    return f(s)[0] + f(s)[1]


def test_implicit_field_values_are_passed_by_name():
    geo = _grid((1, 1, 1))
    # the dict's order (stretch, shear) is not the function's (shear, stretch)
    f = fem.ImplicitField(fem.Cells(geo), func=affine_map, values={"stretch": 3.0, "shear": 0.5})
    got = fem.integrate(implicit_value, fields={"f": f}, quadrature=fem.RegularQuadrature(fem.Cells(geo), order=2))
    # integral of 3 x + y + 0.5 x over the box [0, 1] x [-0.5, 1] x [0.25, 1]
    vol = np.prod(HI - LO)
    mean = 3.5 * (LO[0] + HI[0]) / 2 + (LO[1] + HI[1]) / 2
    assert float(got) == pytest.approx(mean * vol, rel=1e-5)


@fem.integrand
def constant_errors(s: fem.Sample, u: fem.Field, part: int):
    d = u(s) - wp.vec3(1.0, -2.0, 0.5)
    return wp.where(part == 0, wp.dot(d, d), wp.where(part == 1, fem.div(u, s) * fem.div(u, s),
                                                       wp.dot(fem.curl(u, s), fem.curl(u, s))))


@fem.integrand
def constant_at(s: fem.Sample):
    return wp.vec3(1.0, -2.0, 0.5)


@fem.integrand
def one(s: fem.Sample):
    return 1.0


@pytest.mark.parametrize("basis", list(BASES))
def test_spaces_on_an_implicitly_deformed_grid(basis):
    """A sheared and stretched grid: volume det(G) times the base's; constant fields lie in
    both spaces under an affine map, so they interpolate exactly, with zero div and curl."""
    base = _grid((2, 2, 1))
    geo = fem.ImplicitField(fem.Cells(base), func=affine_map, grad_func=affine_map_grad,
                            values={"shear": 0.5, "stretch": 2.0}).make_deformed_geometry(relative=False)
    vol = fem.integrate(one, domain=fem.Cells(geo))
    assert float(vol) == pytest.approx(2.0 * np.prod(HI - LO), rel=1e-5)
    space = fem.make_polynomial_space(geo, degree=1, element_basis=BASES[basis][0], dtype=wp.vec3)
    u = space.make_field()
    fem.interpolate(constant_at, dest=u)
    quad = fem.RegularQuadrature(fem.Cells(geo), order=2)
    errs = [float(fem.integrate(constant_errors, fields={"u": u}, values={"part": p}, quadrature=quad))
            for p in (0, 1, 2)]
    assert max(errs) < 1e-9, errs
