"""Serendipity spaces on Grid2D (S2, S3), matrix-valued (mat22) test fields, the 1-D point
families' order and weights, and reference elements: against polynomial reproduction, the L2
convergence order of a Poisson solve, closed-form integrals and exact quadrature."""

import math

import numpy as np
import pytest
import scipy.sparse.linalg as spl

import warp_interactive as wp
import warp_interactive.fem as fem
from warp_interactive.fem.polynomial import quadrature_1d

from tests.fem.test_fem_assembly import boundary_projector, diffusion, source, squared_error, to_scipy

S = fem.ElementBasis.SERENDIPITY


@wp.func
def poly(x: wp.vec2, which: int):
    """0: in S2 (x^2 y + x y^2 + ...), 1: in S3 (x^3 y + x y^3 + cubics), 2: x^2 y^2 (in neither)."""
    a = x[0]
    b = x[1]
    if which == 0:
        return 1.0 + a - 2.0 * b + a * a + 0.5 * a * b - b * b + 2.0 * a * a * b - a * b * b
    if which == 1:
        return a * a * a - 2.0 * b * b * b + a * a * a * b + 3.0 * a * b * b * b - a * a * b + 0.5
    return a * a * b * b


@fem.integrand
def poly_at(s: fem.Sample, domain: fem.Domain, which: int):
    return poly(fem.position(domain, s), which)


@fem.integrand
def poly_error(s: fem.Sample, domain: fem.Domain, u: fem.Field, which: int):
    e = u(s) - poly(fem.position(domain, s), which)
    return e * e


@fem.integrand
def position_x(s: fem.Sample, domain: fem.Domain):
    return domain(s)[0]


@fem.integrand
def position_y(s: fem.Sample, domain: fem.Domain):
    return domain(s)[1]


@fem.integrand
def nodal_value(s: fem.Sample, v: fem.Field):
    return v(s)


@fem.integrand
def tensor_load(s: fem.Sample, tau: fem.Field):
    return wp.ddot(tau(s), wp.mat22(1.0, 2.0, 3.0, 4.0))


@fem.integrand
def tensor_mass(s: fem.Sample, sig: fem.Field, tau: fem.Field):
    return wp.ddot(sig(s), tau(s))


def _grid(res=(3, 2)):
    return fem.Grid2D(res=wp.vec2i(*res), bounds_lo=wp.vec2(0.5, -0.25), bounds_hi=wp.vec2(2.0, 0.75))


@pytest.mark.parametrize("degree", [2, 3])
def test_node_count_positions_and_numbering_agree(degree):
    geo = _grid()
    space = fem.make_polynomial_space(geo, degree=degree, element_basis=S)
    r0, r1 = 3, 2
    assert space.node_count() == (r0 + 1) * (r1 + 1) + (degree - 1) * ((r0 + 1) * r1 + (r1 + 1) * r0)
    pos = space.node_positions().numpy()
    assert len(np.unique(np.round(pos, 5), axis=0)) == space.node_count()       # all distinct
    xs, ys = space.make_field(), space.make_field()
    fem.interpolate(position_x, dest=xs)
    fem.interpolate(position_y, dest=ys)
    np.testing.assert_allclose(np.stack([xs.dof_values.numpy(), ys.dof_values.numpy()], 1), pos, atol=1e-6)
    # vertices first, lattice order x * (res[1] + 1) + y
    vx, vy = np.meshgrid(np.linspace(0.5, 2.0, r0 + 1), np.linspace(-0.25, 0.75, r1 + 1), indexing="ij")
    np.testing.assert_allclose(pos[:(r0 + 1) * (r1 + 1)], np.stack([vx.ravel(), vy.ravel()], 1), atol=1e-6)


@pytest.mark.parametrize("degree,inside,outside", [(2, [0], [1, 2]), (3, [0, 1], [2])])
def test_reproduces_exactly_the_serendipity_polynomials(degree, inside, outside):
    geo = _grid()
    space = fem.make_polynomial_space(geo, degree=degree, element_basis=S)
    q = fem.RegularQuadrature(fem.Cells(geo), order=8)
    for which in inside + outside:
        u = space.make_field()
        fem.interpolate(poly_at, dest=u, values={"which": which})
        err = float(fem.integrate(poly_error, quadrature=q, fields={"u": u}, values={"which": which}))
        if which in inside:
            assert err < 1e-10, which
        else:
            assert err > 1e-7, which          # about h^4 off: clearly not float rounding


def _poisson_error(res, degree):
    geo = fem.Grid2D(res=wp.vec2i(res))
    space = fem.make_polynomial_space(geo, degree=degree, element_basis=S)
    boundary = fem.BoundarySides(geo)
    q = fem.RegularQuadrature(fem.Cells(geo), order=2 * degree + 2)
    K = fem.integrate(diffusion, fields={"u": fem.make_trial(space), "v": fem.make_test(space)}, values={"nu": 1.0})
    rhs = fem.integrate(source, fields={"v": fem.make_test(space)}, quadrature=q)
    P = fem.integrate(boundary_projector, fields={"u": fem.make_trial(space, domain=boundary),
                                                  "v": fem.make_test(space, domain=boundary)}, assembly="nodal")
    fem.project_linear_system(K, rhs, P, wp.zeros_like(rhs))
    Ks = to_scipy(K)
    assert abs(Ks - Ks.T).max() < 1e-5 * abs(Ks).max()
    x = spl.spsolve(Ks.tocsc(), rhs.numpy().astype(np.float64))
    u = space.make_field()
    u.dof_values = wp.array(x.astype(np.float32), dtype=float)
    return math.sqrt(float(fem.integrate(squared_error, fields={"u": u}, quadrature=q)))


@pytest.mark.parametrize("degree,rate", [(2, 3.0), (3, 4.0)])
def test_poisson_converges_at_the_expected_order(degree, rate):
    coarse, fine = _poisson_error(4, degree), _poisson_error(8, degree)
    assert math.log2(coarse / fine) > rate - 0.3


@pytest.mark.parametrize("degree", [2, 3])
def test_nodal_weights_sum_to_the_measures(degree):
    geo = _grid()
    space = fem.make_polynomial_space(geo, degree=degree, element_basis=S)
    cells = fem.integrate(nodal_value, fields={"v": fem.make_test(space)}, assembly="nodal")
    assert cells.numpy().sum() == pytest.approx(1.5, rel=1e-6)
    assert cells.numpy().min() > 0.0
    sides = fem.integrate(nodal_value, fields={"v": fem.make_test(space, domain=fem.BoundarySides(geo))},
                          assembly="nodal")
    assert sides.numpy().sum() == pytest.approx(5.0, rel=1e-6)


def test_serendipity_needs_a_closed_family_and_degree_2_or_3():
    geo = _grid()
    with pytest.raises(ValueError, match="closed"):
        fem.make_polynomial_space(geo, degree=2, element_basis=S, family=fem.Polynomial.GAUSS_LEGENDRE)
    with pytest.raises(NotImplementedError, match="order 2 or 3"):
        fem.make_polynomial_space(geo, degree=4, element_basis=S)


def test_matrix_valued_test_fields_assemble_component_blocks():
    geo = _grid((2, 2))
    space = fem.make_polynomial_space(geo, degree=1, discontinuous=True, family=fem.Polynomial.GAUSS_LEGENDRE,
                                      dtype=wp.mat22)
    assert space.value_size == 4
    load = fem.integrate(tensor_load, fields={"tau": fem.make_test(space)}, output_dtype=wp.vec4)
    # GL degree-1 basis functions each integrate to a quarter of the cell (0.75 * 0.5 / 4)
    np.testing.assert_allclose(load.numpy(), np.tile([1.0, 2.0, 3.0, 4.0], (space.node_count(), 1)) * 0.75 * 0.5 / 4,
                               rtol=1e-5)
    M = fem.integrate(tensor_mass, fields={"sig": fem.make_trial(space), "tau": fem.make_test(space)}, assembly="nodal")
    assert M.block_shape == (4, 4)
    blocks = M.values.numpy()[:M.nnz]
    np.testing.assert_allclose(blocks, np.tile(np.eye(4) * 0.75 * 0.5 / 4, (M.nnz, 1, 1)), rtol=1e-5)


@pytest.mark.parametrize("n,expected", [
    (3, [0.5, 0.5 - 0.5 * math.sqrt(0.6), 0.5 + 0.5 * math.sqrt(0.6)]),        # centre first, then the pairs
    (4, [0.5 + 0.5 * math.sqrt(3 / 7 - 2 / 7 * math.sqrt(1.2)), 0.5 - 0.5 * math.sqrt(3 / 7 - 2 / 7 * math.sqrt(1.2)),
         0.5 + 0.5 * math.sqrt(3 / 7 + 2 / 7 * math.sqrt(1.2)), 0.5 - 0.5 * math.sqrt(3 / 7 + 2 / 7 * math.sqrt(1.2))]),
])
def test_gauss_legendre_points_in_warp_lang_order(n, expected):
    x, w = quadrature_1d(n, fem.Polynomial.GAUSS_LEGENDRE)
    np.testing.assert_allclose(x, expected, atol=1e-12)
    for p in range(2 * n):                                   # exact to degree 2n - 1
        assert float(np.dot(w, x ** p)) == pytest.approx(1.0 / (p + 1), rel=1e-12)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_open_equispaced_points_are_the_inner_points_of_n_plus_1_steps(n):
    x, w = quadrature_1d(n, fem.Polynomial.EQUISPACED_OPEN)
    np.testing.assert_allclose(x, np.arange(1, n + 1) / (n + 1), atol=1e-12)
    for p in range(n):                                       # open Newton-Cotes: exact to degree n - 1
        assert float(np.dot(w, x ** p)) == pytest.approx(1.0 / (p + 1), rel=1e-10)


def test_reference_elements():
    assert _grid().reference_cell() == fem.Element.SQUARE and _grid().reference_side() == fem.Element.LINE_SEGMENT
    g3 = fem.Grid3D(res=wp.vec3i(1))
    assert (g3.reference_cell(), g3.reference_side()) == (fem.Element.CUBE, fem.Element.SQUARE)
    assert [int(e) for e in fem.Element] == [1, 2, 3, 4, 5]


@fem.integrand
def node_integral(s: fem.Sample, v: fem.Field):
    return v(s)


@fem.integrand
def field_integral(s: fem.Sample, u: fem.Field):
    return u(s)


@pytest.mark.parametrize("first", ["serendipity", "tensor"])
def test_serendipity_and_tensor_fields_of_one_degree_do_not_share_kernels(first):
    """S2 and Q2 fields on one grid have equal struct layouts: each must still integrate with its
    own shape functions, whichever is built first (closed forms on the unit cell: Q2 node integrals
    are the products of Simpson's 1/6, 2/3, 1/6 and Q2 holds x^2 y^2 (integral 1/9); S2's node
    integrals are -1/12 at vertices and 1/3 on edges, its interpolant of x^2 y^2 integrates to 1/12)."""
    geo = fem.Grid2D(res=wp.vec2i(1))
    weights = {"tensor": sorted([1 / 36] * 4 + [1 / 9] * 4 + [4 / 9]),
               "serendipity": sorted([-1 / 12] * 4 + [1 / 3] * 4)}
    x2y2 = {"tensor": 1 / 9, "serendipity": 1 / 12}
    for kind in [first] + [k for k in weights if k != first]:
        basis = S if kind == "serendipity" else fem.ElementBasis.LAGRANGE
        space = fem.make_polynomial_space(geo, degree=2, element_basis=basis)
        got = fem.integrate(node_integral, fields={"v": fem.make_test(space)}).numpy()
        np.testing.assert_allclose(sorted(got), weights[kind], atol=1e-6, err_msg=kind)
        u = space.make_field()
        pos = space.node_positions().numpy()
        u.dof_values = wp.array((pos[:, 0] ** 2 * pos[:, 1] ** 2).astype(np.float32), dtype=float)
        q = fem.RegularQuadrature(fem.Cells(geo), order=6)
        total = float(fem.integrate(field_integral, fields={"u": u}, quadrature=q))
        assert total == pytest.approx(x2y2[kind], abs=1e-6), kind
