"""warp.fem bilinear forms assembled to BSR matrices: symmetry of symmetric forms, kernels and
energies against closed forms, nodal (lumped) assembly, Dirichlet projection, and the
convergence order of Poisson solutions against an analytic one."""

import math

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spl

import warp_interactive as wp
import warp_interactive.fem as fem


def to_scipy(A):
    """A BSR matrix as a scipy CSR matrix of scalars (independent reference arithmetic)."""
    nnz = int(A.offsets.numpy()[A.nrow])
    br, bc = A.block_shape
    vals = A.values.numpy()[:nnz].reshape(nnz, br, bc).astype(np.float64)
    m = sp.bsr_matrix((vals, A.columns.numpy()[:nnz], A.offsets.numpy()[: A.nrow + 1]),
                      shape=(A.nrow * br, A.ncol * bc))
    return m.tocsr()


@fem.integrand
def diffusion(s: fem.Sample, u: fem.Field, v: fem.Field, nu: float):
    return nu * wp.dot(fem.grad(u, s), fem.grad(v, s))


@fem.integrand
def mass(s: fem.Sample, u: fem.Field, v: fem.Field):
    return u(s) * v(s)


@fem.integrand
def elasticity(s: fem.Sample, u: fem.Field, v: fem.Field, lame: wp.vec2):
    return 2.0 * lame[1] * wp.ddot(fem.D(u, s), fem.D(v, s)) + lame[0] * fem.div(u, s) * fem.div(v, s)


@fem.integrand
def quadratic(s: fem.Sample, domain: fem.Domain):
    x = fem.position(domain, s)
    return x[0] * x[0] - 3.0 * x[1] + 1.0


def grid(dim, res=3):
    if dim == 2:
        return fem.Grid2D(res=wp.vec2i(res, res - 1), bounds_lo=wp.vec2(0.5, 0.0), bounds_hi=wp.vec2(2.0, 1.0))
    return fem.Grid3D(res=wp.vec3i(res - 1, res - 1, res), bounds_lo=wp.vec3(0.5, 0.0, 0.0),
                      bounds_hi=wp.vec3(2.0, 1.0, 1.5))


@pytest.mark.parametrize("dim,degree", [(2, 1), (2, 2), (3, 1), (3, 2)])
def test_diffusion_matrix_symmetric_with_constant_kernel_and_exact_energy(dim, degree):
    geo = grid(dim)
    space = fem.make_polynomial_space(geo, degree=degree)
    K = fem.integrate(diffusion, fields={"u": fem.make_trial(space), "v": fem.make_test(space)},
                      values={"nu": 2.0})
    assert (K.nrow, K.ncol) == (space.node_count(), space.node_count())
    A = to_scipy(K)
    assert abs(A - A.T).max() < 1e-5 * abs(A).max()
    np.testing.assert_allclose(A @ np.ones(A.shape[0]), 0.0, atol=1e-4)
    # u^T K u = 2 int |grad u|^2 for u interpolating x^2 - 3y + 1 (in the Q2 spaces)
    u = space.make_field()
    fem.interpolate(quadratic, dest=u)
    x = u.dof_values.numpy().astype(np.float64)
    lo, hi = np.array(geo.bounds_lo, dtype=np.float64), np.array(geo.bounds_hi, dtype=np.float64)
    ext = hi - lo
    energy = 2.0 * ((4.0 * (hi[0] ** 3 - lo[0] ** 3) / 3) * np.prod(ext[1:]) + 9.0 * np.prod(ext))
    if degree == 2:
        assert x @ A @ x == pytest.approx(energy, rel=1e-5)
    else:     # Q1 interpolation of x^2 has less energy than x^2 (a different field)
        assert abs(x @ A @ x - energy) > 1e-4 * energy


@pytest.mark.parametrize("mesh", ["grid", "tri"])
@pytest.mark.parametrize("degree", [1, 2])
def test_mass_matrix_and_its_nodal_lumping(mesh, degree):
    geo = grid(2) if mesh == "grid" else unit_square("tri", 3)
    space = fem.make_polynomial_space(geo, degree=degree)
    M = to_scipy(fem.integrate(mass, fields={"u": fem.make_trial(space), "v": fem.make_test(space)}))
    area = 1.5 if mesh == "grid" else 1.0
    assert abs(M - M.T).max() < 1e-7
    assert M.sum() == pytest.approx(area, rel=1e-5)
    lumped = to_scipy(fem.integrate(mass, fields={"u": fem.make_trial(space), "v": fem.make_test(space)},
                                    assembly="nodal"))
    assert abs(lumped - sp.diags(lumped.diagonal())).max() == 0.0     # diagonal
    assert lumped.sum() == pytest.approx(area, rel=1e-5)
    # GLL nodal weights on grids; on triangles warp-lang's rules (P2: small positive vertex weights)
    assert (lumped.diagonal() > 0).all()


def test_vector_elasticity_blocks_symmetric_with_rigid_kernel():
    geo = grid(2)
    space = fem.make_polynomial_space(geo, degree=2, dtype=wp.vec2)
    K = fem.integrate(elasticity, fields={"u": fem.make_trial(space), "v": fem.make_test(space)},
                      values={"lame": wp.vec2(1.0, 0.5)})
    assert tuple(K.block_shape) == (2, 2)
    A = to_scipy(K)
    assert abs(A - A.T).max() < 1e-5 * abs(A).max()
    pos = space.node_positions().numpy().astype(np.float64)
    # rigid motions (translations, rotation) have no strain
    for mode in (np.tile([1.0, 0.0], len(pos)), np.tile([0.0, 1.0], len(pos)),
                 np.stack([-pos[:, 1], pos[:, 0]], axis=1).ravel()):
        np.testing.assert_allclose(A @ mode, 0.0, atol=1e-4)
    # a stretch u = (x, 0) has energy (2 mu + lambda) * area
    stretch = np.stack([pos[:, 0], np.zeros(len(pos))], axis=1).ravel()
    assert stretch @ A @ stretch == pytest.approx((2 * 0.5 + 1.0) * 1.5, rel=1e-5)


@fem.integrand
def source(s: fem.Sample, domain: fem.Domain, v: fem.Field):
    x = fem.position(domain, s)
    k = wp.pi
    return 2.0 * k * k * wp.sin(k * x[0]) * wp.sin(k * x[1]) * v(s)


@fem.integrand
def boundary_projector(s: fem.Sample, u: fem.Field, v: fem.Field):
    return u(s) * v(s)


@fem.integrand
def squared_error(s: fem.Sample, domain: fem.Domain, u: fem.Field):
    x = fem.position(domain, s)
    e = u(s) - wp.sin(wp.pi * x[0]) * wp.sin(wp.pi * x[1])
    return e * e


def unit_square(mesh, res):
    if mesh == "grid":
        return fem.Grid2D(res=wp.vec2i(res))
    x = np.linspace(0.0, 1.0, res + 1)
    X, Y = np.meshgrid(x, x, indexing="ij")
    pos = wp.array(np.stack([X.ravel(), Y.ravel()], 1).astype(np.float32), dtype=wp.vec2)
    return fem.Trimesh2D(wp.array(fem.utils.grid_to_tris(res, res), dtype=int), pos)


def poisson_l2_error(res, degree, mesh):
    """-lap u = 2 pi^2 sin(pi x) sin(pi y) on the unit square, u = 0 on the boundary (``mesh``:
    "grid", "tri", or a function of the resolution that makes the geometry)."""
    geo = mesh(res) if callable(mesh) else unit_square(mesh, res)
    space = fem.make_polynomial_space(geo, degree=degree)
    cells, boundary = fem.Cells(geo), fem.BoundarySides(geo)
    q = fem.RegularQuadrature(cells, order=2 * degree + 2)
    K = fem.integrate(diffusion, fields={"u": fem.make_trial(space), "v": fem.make_test(space)},
                      values={"nu": 1.0})
    rhs = fem.integrate(source, fields={"v": fem.make_test(space)}, quadrature=q, output_dtype=wp.float64)
    P = fem.integrate(boundary_projector, fields={"u": fem.make_trial(space, domain=boundary),
                                                  "v": fem.make_test(space, domain=boundary)}, assembly="nodal")
    rhs32 = wp.array(rhs.numpy().astype(np.float32), dtype=float)
    fem.project_linear_system(K, rhs32, P, wp.zeros_like(rhs32))
    x = spl.spsolve(to_scipy(K).tocsc(), rhs32.numpy().astype(np.float64))
    u = space.make_field()
    u.dof_values = wp.array(x.astype(np.float32), dtype=float)
    pos = space.node_positions().numpy()
    on_boundary = (np.abs(pos - 0.5) > 0.5 - 1e-6).any(axis=1)
    assert np.abs(x[on_boundary]).max() < 1e-6           # the projected conditions hold
    return math.sqrt(float(fem.integrate(squared_error, fields={"u": u}, quadrature=q)))


@pytest.mark.parametrize("mesh", ["grid", "tri"])
@pytest.mark.parametrize("degree,rate", [(1, 2.0), (2, 3.0)])
def test_poisson_converges_at_the_expected_order(mesh, degree, rate):
    errors = [poisson_l2_error(res, degree, mesh) for res in (4, 8, 16)]
    rates = [math.log2(a / b) for a, b in zip(errors, errors[1:])]
    assert rates[-1] == pytest.approx(rate, abs=0.25), (errors, rates)
    assert errors[-1] < (6e-3 if degree == 1 else 1e-4)
