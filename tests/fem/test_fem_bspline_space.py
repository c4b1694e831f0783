"""B-spline spaces on grids (``element_basis=fem.ElementBasis.BSPLINE``) against SciPy's B-splines:
field values at quadrature points from random control values, node counts and positions
(Greville abscissae), and exact reproduction of linear functions by interpolation."""

import numpy as np
import pytest
from scipy.interpolate import BSpline

import warp_interactive as wp
import warp_interactive.fem as fem


@fem.integrand
def position(s: fem.Sample, domain: fem.Domain):
    return domain(s)


@fem.integrand
def linear_2d(s: fem.Sample, domain: fem.Domain):
    x = domain(s)
    return 2.0 + x[0] - 0.5 * x[1]


@fem.integrand
def linear_3d(s: fem.Sample, domain: fem.Domain):
    x = domain(s)
    return 2.0 + x[0] - 0.5 * x[1] + 0.25 * x[2]


@fem.integrand
def squared_error(s: fem.Sample, domain: fem.Domain, u: fem.Field, f: fem.Field):
    e = u(s) - f(s)
    return e * e


def _geometry(dim):
    if dim == 2:
        return fem.Grid2D(res=wp.vec2i(3, 4), bounds_lo=wp.vec2(-0.5, 0.25), bounds_hi=wp.vec2(1.0, 2.25))
    return fem.Grid3D(res=wp.vec3i(2, 3, 2), bounds_hi=wp.vec3(1.0, 1.5, 0.5))


def _design(x, lo, h, res, k):
    """(points, res + k) matrix of the uniform degree-k B-splines of one axis at x."""
    t = lo + np.arange(-k, res + k + 1) * h
    return BSpline.design_matrix(np.clip(x, t[k], t[res + k] - 1e-12), t, k).toarray()


@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("degree", [1, 2, 3])
def test_values_match_scipy(dim, degree):
    geo = _geometry(dim)
    space = fem.make_polynomial_space(geo, degree=degree, element_basis=fem.ElementBasis.BSPLINE)
    res = list(geo.res)
    assert space.node_count() == np.prod([r + degree for r in res])
    field = space.make_field()
    coeffs = np.random.default_rng(degree).normal(size=[r + degree for r in res]).astype(np.float32)
    field.dof_values = coeffs.ravel()
    q = fem.RegularQuadrature(fem.Cells(geo), order=3)
    vt = wp.vec2 if dim == 2 else wp.vec3
    xs = wp.zeros(q.total_point_count(), dtype=vt)
    vals = wp.zeros(q.total_point_count(), dtype=float)
    fem.interpolate(position, at=q, dest=xs)
    fem.interpolate(field, at=q, dest=vals)
    x = xs.numpy()
    mats = [_design(x[:, a], float(geo.bounds_lo[a]), float(geo.cell_size[a]), res[a], degree) for a in range(dim)]
    sub = "pi,pj,ij->p" if dim == 2 else "pi,pj,pk,ijk->p"
    expected = np.einsum(sub, *mats, coeffs.astype(np.float64))
    np.testing.assert_allclose(vals.numpy(), expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("degree", [2, 3])
def test_linear_functions_are_reproduced(dim, degree):
    geo = _geometry(dim)
    space = fem.make_polynomial_space(geo, degree=degree, element_basis=fem.ElementBasis.BSPLINE)
    field = space.make_field()
    fem.interpolate(linear_2d if dim == 2 else linear_3d, dest=field)
    # control values are the linear function at the Greville abscissae
    p = space.node_positions().numpy()
    lin = 2.0 + p[:, 0] - 0.5 * p[:, 1] + (0.25 * p[:, 2] if dim == 3 else 0.0)
    np.testing.assert_allclose(field.dof_values.numpy(), lin, rtol=1e-5, atol=1e-5)
    exact = fem.make_polynomial_space(geo, degree=1).make_field()
    fem.interpolate(linear_2d if dim == 2 else linear_3d, dest=exact)
    err = fem.integrate(squared_error, quadrature=fem.RegularQuadrature(fem.Cells(geo), order=2 * degree),
                        fields={"u": field, "f": exact})
    assert err < 1e-9


def test_sides_and_other_geometries_say_so():
    geo = fem.Grid2D(res=wp.vec2i(2))
    space = fem.make_polynomial_space(geo, degree=2, element_basis=fem.ElementBasis.BSPLINE)
    with pytest.raises(NotImplementedError, match="B-spline spaces on sides"):
        fem.make_test(space, domain=fem.BoundarySides(geo))
    tri = fem.Trimesh2D(wp.array([[0, 1, 2]], dtype=int), wp.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]], dtype=wp.vec2))
    with pytest.raises(NotImplementedError, match="B-spline spaces on Trimesh2D"):
        fem.make_polynomial_space(tri, degree=2, element_basis=fem.ElementBasis.BSPLINE)
