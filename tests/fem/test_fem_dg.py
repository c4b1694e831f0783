"""Discontinuous (DG) spaces and two-sided integrals over sides: jumps and averages against
brute-force sums over the mesh's sides, block-diagonal mass matrices, and the convergence order
of a symmetric-interior-penalty (SIP) Poisson solve against an analytic solution."""

import math

import numpy as np
import pytest
import scipy.sparse.linalg as spl

import warp_interactive as wp
import warp_interactive.fem as fem

from tests.fem.test_fem_assembly import mass, source, squared_error, to_scipy, unit_square


@fem.integrand
def jump_squared(s: fem.Sample, u: fem.Field):
    j = fem.jump(u, s)
    return j * j


@fem.integrand
def average_value(s: fem.Sample, u: fem.Field):
    return fem.average(u, s)


@fem.integrand
def cell_diffusion(s: fem.Sample, u: fem.Field, v: fem.Field):
    return wp.dot(fem.grad(u, s), fem.grad(v, s))


@fem.integrand
def sip_interior(s: fem.Sample, domain: fem.Domain, u: fem.Field, v: fem.Field, eta: float):
    n = fem.normal(domain, s)
    penalty = eta * fem.measure_ratio(domain, s) * float(fem.degree(u) * fem.degree(v))
    return penalty * fem.jump(u, s) * fem.jump(v, s) - (
        wp.dot(fem.grad_average(u, s), n) * fem.jump(v, s) + wp.dot(fem.grad_average(v, s), n) * fem.jump(u, s))


@fem.integrand
def nitsche_boundary(s: fem.Sample, domain: fem.Domain, u: fem.Field, v: fem.Field, eta: float):
    n = fem.normal(domain, s)
    penalty = eta * fem.measure_ratio(domain, s) * float(fem.degree(u) * fem.degree(v))
    return penalty * u(s) * v(s) - (wp.dot(fem.grad(u, s), n) * v(s) + wp.dot(fem.grad(v, s), n) * u(s))


@fem.integrand
def polynomial(s: fem.Sample, domain: fem.Domain):
    x = fem.position(domain, s)
    return x[0] * x[1] - 2.0 * x[1] + 0.5


def grid_sides(nx, ny, lo=(0.0, 0.0), hi=(1.0, 1.0)):
    """Brute-force list of a grid's sides: (inner cell, outer cell or None, length)."""
    hx, hy = (hi[0] - lo[0]) / nx, (hi[1] - lo[1]) / ny
    cell = lambda x, y: x * ny + y  # noqa: E731  (warp.fem's grid cell numbering)
    sides = []
    for i in range(nx + 1):
        for j in range(ny):
            a, b = (cell(i - 1, j) if i > 0 else None), (cell(i, j) if i < nx else None)
            sides.append((a if a is not None else b, b if a is not None else None, hy))
    for j in range(ny + 1):
        for i in range(nx):
            a, b = (cell(i, j - 1) if j > 0 else None), (cell(i, j) if j < ny else None)
            sides.append((a if a is not None else b, b if a is not None else None, hx))
    return sides


@pytest.mark.parametrize("degree", [1, 2])
def test_jump_and_average_of_a_cellwise_constant_field(degree):
    nx, ny = 4, 3
    geo = fem.Grid2D(res=wp.vec2i(nx, ny), bounds_hi=wp.vec2(2.0, 1.5))
    space = fem.make_polynomial_space(geo, degree=degree, discontinuous=True)
    nodes = (degree + 1) ** 2
    assert space.node_count() == nx * ny * nodes
    rng = np.random.default_rng(3)
    per_cell = rng.uniform(-1.0, 1.0, nx * ny)
    u = space.make_field()
    u.dof_values = wp.array(np.repeat(per_cell, nodes).astype(np.float32), dtype=float)
    sides = fem.Sides(geo)
    jump2 = fem.integrate(jump_squared, domain=sides, fields={"u": u.trace()})
    avg = fem.integrate(average_value, domain=sides, fields={"u": u.trace()})
    ref = grid_sides(nx, ny, hi=(2.0, 1.5))
    ref_jump2 = sum((per_cell[a] - per_cell[b]) ** 2 * h for a, b, h in ref if b is not None)
    ref_avg = sum((0.5 * (per_cell[a] + per_cell[b]) if b is not None else per_cell[a]) * h for a, b, h in ref)
    assert float(jump2) == pytest.approx(ref_jump2, rel=1e-5)
    assert float(avg) == pytest.approx(ref_avg, rel=1e-5)


@pytest.mark.parametrize("mesh", ["grid", "tri"])
def test_a_polynomial_of_the_space_has_no_jumps(mesh):
    geo = unit_square(mesh, 3)
    space = fem.make_polynomial_space(geo, degree=2, discontinuous=True)
    u = space.make_field()
    fem.interpolate(polynomial, dest=u)
    assert float(fem.integrate(jump_squared, domain=fem.Sides(geo), fields={"u": u})) < 1e-10
    cont = fem.make_polynomial_space(geo, degree=2).make_field()
    fem.interpolate(polynomial, dest=cont)
    q = fem.RegularQuadrature(fem.Cells(geo), order=4)
    # int (xy - 2y + 1/2) over the unit square = 1/4 - 1 + 1/2
    for f in (u, cont):
        assert float(fem.integrate(average_value, fields={"u": f}, quadrature=q)) == pytest.approx(-0.25, abs=1e-5)


@pytest.mark.parametrize("mesh", ["grid", "tri"])
def test_dg_mass_matrix_is_block_diagonal_per_cell(mesh):
    geo = unit_square(mesh, 3)
    space = fem.make_polynomial_space(geo, degree=1, discontinuous=True)
    M = to_scipy(fem.integrate(mass, fields={"u": fem.make_trial(space), "v": fem.make_test(space)}))
    n = space.nodes_per_cell
    rows, cols = M.nonzero()
    assert (rows // n == cols // n).all()                  # no coupling between cells
    assert abs(M - M.T).max() < 1e-7
    assert M.sum() == pytest.approx(1.0, rel=1e-5)
    cont = fem.make_polynomial_space(geo, degree=1)
    Mc = to_scipy(fem.integrate(mass, fields={"u": fem.make_trial(cont), "v": fem.make_test(cont)}))
    # the continuous mass matrix is the DG one with each cell's nodes merged into the global ones
    pos_dg, pos_c = space.node_positions().numpy(), cont.node_positions().numpy()
    merge = np.array([np.argmin(np.abs(pos_c - p).sum(axis=1)) for p in pos_dg])
    assert np.abs(pos_c[merge] - pos_dg).max() < 1e-6
    import scipy.sparse as sp
    P = sp.csr_matrix((np.ones(len(merge)), (merge, np.arange(len(merge)))), shape=(len(pos_c), len(merge)))
    assert abs(P @ M @ P.T - Mc).max() < 1e-7


def sip_poisson_l2_error(res, degree, mesh, eta=10.0):
    """-lap u = 2 pi^2 sin(pi x) sin(pi y), u = 0 on the boundary (Nitsche), DG with SIP."""
    geo = unit_square(mesh, res)
    space = fem.make_polynomial_space(geo, degree=degree, discontinuous=True)
    sides, boundary = fem.Sides(geo), fem.BoundarySides(geo)
    q = fem.RegularQuadrature(fem.Cells(geo), order=2 * degree + 2)
    u, v = fem.make_trial(space), fem.make_test(space)
    K = to_scipy(fem.integrate(cell_diffusion, fields={"u": u, "v": v}))
    K = K + to_scipy(fem.integrate(sip_interior, fields={"u": fem.make_trial(space, domain=sides),
                                                         "v": fem.make_test(space, domain=sides)},
                                   values={"eta": eta}))
    K = K + to_scipy(fem.integrate(nitsche_boundary, fields={"u": fem.make_trial(space, domain=boundary),
                                                             "v": fem.make_test(space, domain=boundary)},
                                   values={"eta": eta}))
    assert abs(K - K.T).max() < 1e-5 * abs(K).max()     # SIP is symmetric
    rhs = fem.integrate(source, fields={"v": v}, quadrature=q, output_dtype=wp.float64).numpy()
    x = spl.spsolve(K.tocsc(), rhs)
    uh = space.make_field()
    uh.dof_values = wp.array(x.astype(np.float32), dtype=float)
    return math.sqrt(float(fem.integrate(squared_error, fields={"u": uh}, quadrature=q)))


@pytest.mark.parametrize("mesh", ["grid", "tri"])
@pytest.mark.parametrize("degree,rate", [(1, 2.0), (2, 3.0)])
def test_sip_poisson_converges_at_the_expected_order(mesh, degree, rate):
    errors = [sip_poisson_l2_error(res, degree, mesh) for res in (4, 8, 16)]
    rates = [math.log2(a / b) for a, b in zip(errors, errors[1:])]
    assert rates[-1] == pytest.approx(rate, abs=0.3), (errors, rates)


def test_collocated_spaces_share_the_basis_nodes():
    geo = fem.Grid2D(res=wp.vec2i(3, 2))
    basis = fem.make_polynomial_basis_space(geo, degree=2, discontinuous=True)
    vec = fem.make_collocated_function_space(basis, dtype=wp.vec2)
    scal = fem.make_collocated_function_space(basis, dtype=float)
    assert vec.node_count() == scal.node_count() == basis.node_count() == 6 * 9
    np.testing.assert_array_equal(vec.node_positions().numpy(), basis.node_positions().numpy())
    assert vec.value_size == 2 and scal.value_size == 1


def test_jump_on_a_cell_is_zero_and_average_the_value():
    geo = fem.Grid2D(res=wp.vec2i(2, 2))
    space = fem.make_polynomial_space(geo, degree=1, discontinuous=True)
    u = space.make_field()
    fem.interpolate(polynomial, dest=u)
    assert float(fem.integrate(jump_squared, fields={"u": u})) == 0.0
    assert float(fem.integrate(average_value, fields={"u": u})) == pytest.approx(-0.25, abs=1e-5)


@fem.integrand
def cell_mean_of_nodes(s: fem.Sample, u: fem.Field):
    n = fem.node_count(u, s)
    total = float(0.0)
    for k in range(n):
        total += u(fem.at_node(u, s, k))
    return total / float(n)


@pytest.mark.parametrize("discontinuous", [False, True])
def test_node_count_and_at_node_read_the_element_nodes(discontinuous):
    geo = fem.Grid2D(res=wp.vec2i(3, 2))
    space = fem.make_polynomial_space(geo, degree=1, discontinuous=discontinuous)
    u = space.make_field()
    rng = np.random.default_rng(5)
    u.dof_values = wp.array(rng.uniform(-1, 1, space.node_count()).astype(np.float32), dtype=float)
    dg = fem.make_polynomial_space(geo, degree=1, discontinuous=True)
    means = dg.make_field()
    fem.interpolate(cell_mean_of_nodes, dest=means, fields={"u": u})
    vals = u.dof_values.numpy()
    for cell in range(6):
        x, y = divmod(cell, 2)
        if discontinuous:
            corners = vals[4 * cell: 4 * cell + 4]
        else:   # Q1 nodes: the (3+1) x (2+1) lattice, index a * 3 + b
            corners = [vals[(x + i) * 3 + y + j] for i in (0, 1) for j in (0, 1)]
        np.testing.assert_allclose(means.dof_values.numpy()[4 * cell: 4 * cell + 4], np.mean(corners), rtol=1e-5)


@fem.integrand
def periodic_wrap_flux(s: fem.Sample, domain: fem.Domain, u: fem.Field, wrap: int):
    """u at the opposite x boundary (looked up through the cells), times the x normal."""
    pos = domain(s)
    n = fem.normal(domain, s)
    if wrap == 0:
        return u(s) * n[0]
    x = wp.where(pos[0] < 0.5, 1.0 - 1.0e-6, 1.0e-6)
    cs = fem.lookup(fem.cells(domain), wp.vec2(x, pos[1]), s)
    return fem.cells(u)(cs) * n[0]


@pytest.mark.parametrize("discontinuous", [False, True])
def test_cells_of_a_side_field_evaluates_at_looked_up_samples(discontinuous):
    geo = fem.Grid2D(res=wp.vec2i(4, 4))
    space = fem.make_polynomial_space(geo, degree=2, discontinuous=discontinuous)
    u = space.make_field()
    fem.interpolate(polynomial, dest=u)      # x y - 2 y + 1/2, in the space
    boundary = fem.BoundarySides(geo)
    # direct: int_{x=1} (-y + 1/2) dy - int_{x=0} (-2y + 1/2) dy = 0 + 1/2
    direct = fem.integrate(periodic_wrap_flux, domain=boundary, fields={"u": u}, values={"wrap": 0})
    wrapped = fem.integrate(periodic_wrap_flux, domain=boundary, fields={"u": u}, values={"wrap": 1})
    assert float(direct) == pytest.approx(0.5, abs=1e-5)
    assert float(wrapped) == pytest.approx(-0.5, abs=1e-5)
