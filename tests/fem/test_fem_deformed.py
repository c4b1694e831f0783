"""Deformed geometries (``field.make_deformed_geometry``) against closed forms: areas and
boundary integrals (divergence theorem, normals' orientation) of affine and curved images of
the unit square, and gradients of fields on them."""

import math

import numpy as np
import pytest

import warp_interactive as wp
import warp_interactive.fem as fem

from tests.fem.test_fem_integrate import x_dot_n


@fem.integrand
def one(s: fem.Sample):
    return 1.0


@fem.integrand
def affine_map(s: fem.Sample, domain: fem.Domain):
    x = domain(s)
    return wp.vec2(2.0 * x[0] + 0.5 * x[1] + 1.0, -0.3 * x[0] + 1.5 * x[1] - 2.0)


@fem.integrand
def band_map(s: fem.Sample, domain: fem.Domain):
    x = domain(s)
    r = x[1] + 0.5
    t = 0.5 * wp.pi * x[0]
    return r * wp.vec2(wp.sin(t), wp.cos(t))


@fem.integrand
def offset_map(s: fem.Sample, domain: fem.Domain):
    x = domain(s)
    return wp.vec2(0.25 * x[1], 0.5 * x[0] * x[0])


@fem.integrand
def linear_function(s: fem.Sample, domain: fem.Domain):
    x = domain(s)
    return 3.0 * x[0] - 4.0 * x[1] + 1.0


@fem.integrand
def grad_squared(s: fem.Sample, u: fem.Field):
    g = fem.grad(u, s)
    return wp.dot(g, g)


def deformed(expr, degree, res=4, relative=False, mesh="grid"):
    if mesh == "grid":
        base = fem.Grid2D(res=wp.vec2i(res))
    else:
        from tests.fem.test_fem_assembly import unit_square
        base = unit_square("tri", res)
    field = fem.make_polynomial_space(base, degree=degree, dtype=wp.vec2).make_field()
    fem.interpolate(expr, dest=field)
    return field.make_deformed_geometry(relative=relative)


@pytest.mark.parametrize("mesh", ["grid", "tri"])
def test_affine_image_area_boundary_and_gradients(mesh):
    geo = deformed(affine_map, 1, mesh=mesh)
    det = 2.0 * 1.5 + 0.5 * 0.3
    assert float(fem.integrate(one, domain=fem.Cells(geo))) == pytest.approx(det, rel=1e-5)
    # divergence theorem: int_boundary x.n = 2 |area| (normals outward)
    assert float(fem.integrate(x_dot_n, domain=fem.BoundarySides(geo))) == pytest.approx(2 * det, rel=1e-5)
    # a linear function of the deformed positions has its constant gradient there
    u = fem.make_polynomial_space(geo, degree=1).make_field()
    fem.interpolate(linear_function, dest=u)
    assert float(fem.integrate(grad_squared, fields={"u": u})) == pytest.approx(25.0 * det, rel=1e-4)


def test_curved_band_area_converges_and_divergence_theorem_holds():
    exact = math.pi / 4 * (1.5 ** 2 - 0.5 ** 2)
    errors = []
    for res in (2, 4):
        geo = deformed(band_map, 2, res=res)
        q = fem.RegularQuadrature(fem.Cells(geo), order=6)
        area = float(fem.integrate(one, quadrature=q))
        flux = float(fem.integrate(x_dot_n, quadrature=fem.RegularQuadrature(fem.BoundarySides(geo), order=6)))
        assert flux == pytest.approx(2 * area, rel=1e-4)
        errors.append(abs(area - exact))
    assert errors[1] < errors[0] / 8          # Q2 geometry: area error O(h^3) at least
    assert errors[1] < 2e-3 * exact


def test_relative_deformation_adds_the_base_position():
    # (x, y) -> (x + y/4, y + x^2/2): Jacobian [[1, 1/4], [x, 1]], det = 1 - x/4, area 1 - 1/8
    geo = deformed(offset_map, 2, relative=True)
    q = fem.RegularQuadrature(fem.Cells(geo), order=4)
    assert float(fem.integrate(one, quadrature=q)) == pytest.approx(1.0 - 0.125, rel=1e-5)
    flux = float(fem.integrate(x_dot_n, quadrature=fem.RegularQuadrature(fem.BoundarySides(geo), order=4)))
    assert flux == pytest.approx(2 * (1.0 - 0.125), rel=1e-4)
