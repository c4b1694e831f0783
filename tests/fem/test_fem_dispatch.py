"""Bilinear forms assembled by dispatch (fem/dispatch.py: the integrand on unit basis values per
quadrature point, combined with each node pair's basis values afterwards) against the generic
assembly (the integrand per node pair), over geometries, degrees, scalar and vector fields and
operators; against closed forms (a mass matrix sums to the domain's measure, a stiffness
matrix's rows to zero); and the integrands that must keep the generic assembly
(fem/integrand_scan.py), each told by which path ran."""

import numpy as np
import pytest
import scipy.sparse as sp

import warp_interactive as wp
import warp_interactive.fem as fem
from warp_interactive.fem import dispatch as D
from warp_interactive.fem.integrand_scan import GRAD, VALUE, taylor_needs


def dense(A):
    nnz = int(A.offsets.numpy()[A.nrow])
    br, bc = A.block_shape
    vals = A.values.numpy()[:nnz].reshape(nnz, br, bc).astype(np.float64)
    return sp.bsr_matrix((vals, A.columns.numpy()[:nnz], A.offsets.numpy()[:A.nrow + 1]),
                         shape=(A.nrow * br, A.ncol * bc)).toarray()


@fem.integrand
def mass(s: fem.Sample, u: fem.Field, v: fem.Field):
    return u(s) * v(s)


@fem.integrand
def diffusion(s: fem.Sample, u: fem.Field, v: fem.Field, nu: float):
    return nu * wp.dot(fem.grad(u, s), fem.grad(v, s))


@fem.integrand
def advection(s: fem.Sample, domain: fem.Domain, u: fem.Field, v: fem.Field):
    # value and gradient on both sides, a position-dependent coefficient, not symmetric
    x = domain(s)
    return u(s) * v(s) + wp.dot(fem.grad(u, s), x) * v(s) + 0.5 * wp.dot(fem.grad(u, s), fem.grad(v, s))


@fem.integrand
def elasticity(s: fem.Sample, u: fem.Field, v: fem.Field, lame: wp.vec2):
    return 2.0 * lame[1] * wp.ddot(fem.D(u, s), fem.D(v, s)) + lame[0] * fem.div(u, s) * fem.div(v, s)


@fem.integrand
def vector_mixed(s: fem.Sample, u: fem.Field, v: fem.Field):
    return wp.dot(u(s), v(s)) + wp.ddot(fem.grad(u, s), fem.grad(v, s)) + fem.div(u, s) * v(s)[0]


@fem.integrand
def curl_form(s: fem.Sample, u: fem.Field, v: fem.Field):
    return wp.dot(fem.curl(u, s), fem.curl(v, s)) + 0.1 * wp.dot(u(s), v(s))


@fem.integrand
def weighted_diffusion(s: fem.Sample, k: fem.Field, u: fem.Field, v: fem.Field):
    return (1.0 + k(s) * k(s)) * wp.dot(fem.grad(u, s), fem.grad(v, s)) + wp.dot(fem.grad(k, s), fem.grad(u, s)) * v(s)


@fem.integrand
def mixed_div(s: fem.Sample, u: fem.Field, q: fem.Field):
    return fem.div(u, s) * q(s)


def _grid2d():
    return fem.Grid2D(res=wp.vec2i(3, 2), bounds_lo=wp.vec2(0.0, 0.0), bounds_hi=wp.vec2(1.5, 1.0))


def _grid3d():
    return fem.Grid3D(res=wp.vec3i(2, 2, 1))


def _trimesh():
    rng = np.random.default_rng(3)
    x, y = np.meshgrid(np.linspace(0, 1, 4), np.linspace(0, 1, 4), indexing="ij")
    pos = np.stack([x.ravel(), y.ravel()], 1)
    pos[[5, 6, 9, 10]] += rng.uniform(-0.08, 0.08, (4, 2))
    return fem.Trimesh2D(wp.array(fem.utils.grid_to_tris(3, 3), dtype=int), wp.array(pos.astype(np.float32), dtype=wp.vec2))


def _hexmesh():
    rng = np.random.default_rng(5)
    g = np.linspace(0, 1, 3)
    pos = np.stack([a.ravel() for a in np.meshgrid(g, g, g, indexing="ij")], 1)
    pos[13] += rng.uniform(-0.1, 0.1, 3)        # the inner vertex: cells no longer parallelepipeds
    return fem.Hexmesh(wp.array(fem.utils.grid_to_hexes(2, 2, 2), dtype=int), wp.array(pos.astype(np.float32), dtype=wp.vec3))


GEOMETRIES = {"grid2d": _grid2d, "grid3d": _grid3d, "trimesh": _trimesh, "hexmesh": _hexmesh}


def both(integrand, fields, values=None, **kw):
    """(generic matrix, dispatch matrix), checking that each ran as asked."""
    before = dict(D.counts)
    A = fem.integrate(integrand, fields=fields, values=values, assembly="generic", **kw)
    B = fem.integrate(integrand, fields=fields, values=values, **kw)
    assert D.counts["generic"] == before["generic"] + 1
    assert D.counts["dispatch"] == before["dispatch"] + 1
    return dense(A), dense(B)


def close(A, B):
    np.testing.assert_allclose(B, A, rtol=2e-5, atol=2e-6 * np.abs(A).max())


@pytest.mark.parametrize("geo_name,degree,form,dtype", [
    ("grid2d", 1, "mass", float), ("grid2d", 2, "diffusion", float), ("grid2d", 2, "advection", float),
    ("grid3d", 1, "elasticity", wp.vec3), ("grid3d", 1, "curl", wp.vec3),
    ("trimesh", 1, "diffusion", float), ("trimesh", 2, "vector_mixed", wp.vec2),
    ("hexmesh", 1, "elasticity", wp.vec3), ("hexmesh", 2, "mass", float),
])
def test_dispatch_matches_generic(geo_name, degree, form, dtype):
    geo = GEOMETRIES[geo_name]()
    space = fem.make_polynomial_space(geo, degree=degree, dtype=dtype)
    fields = {"u": fem.make_trial(space), "v": fem.make_test(space)}
    integrand, values = {"mass": (mass, None), "diffusion": (diffusion, {"nu": 1.5}), "advection": (advection, None),
                         "elasticity": (elasticity, {"lame": wp.vec2(1.0, 0.5)}), "curl": (curl_form, None),
                         "vector_mixed": (vector_mixed, None)}[form]
    A, B = both(integrand, fields, values)
    assert np.abs(A).max() > 0.01
    close(A, B)


def test_discrete_coefficient_field():
    geo = _grid2d()
    space = fem.make_polynomial_space(geo, degree=2)
    k = space.make_field()
    nodes = space.node_positions().numpy()
    k.dof_values = wp.array((np.sin(3 * nodes[:, 0]) + nodes[:, 1] ** 2).astype(np.float32), dtype=float)
    fields = {"k": k, "u": fem.make_trial(space), "v": fem.make_test(space)}
    A, B = both(weighted_diffusion, fields)
    close(A, B)


def test_mixed_spaces_rectangular_blocks():
    geo = _grid2d()
    u_space = fem.make_polynomial_space(geo, degree=2, dtype=wp.vec2)
    p_space = fem.make_polynomial_space(geo, degree=1)
    A, B = both(mixed_div, {"u": fem.make_trial(u_space), "q": fem.make_test(p_space)})
    assert A.shape == (p_space.node_count(), 2 * u_space.node_count())
    close(A, B)


@fem.integrand
def tensor_mass(s: fem.Sample, u: fem.Field, v: fem.Field):
    return wp.ddot(u(s), v(s))


def test_dof_mapped_tensor_space():
    """Symmetric tensors stored as 3 dofs per node: values through the space's dof mapper."""
    space = fem.make_polynomial_space(_grid2d(), degree=1, dtype=wp.mat22,
                                      dof_mapper=fem.SymmetricTensorMapper(wp.mat22))
    A, B = both(tensor_mass, {"u": fem.make_trial(space), "v": fem.make_test(space)})
    assert A.shape == (3 * space.node_count(), 3 * space.node_count())
    close(A, B)


def test_float64_geometry():
    """A float64 geometry: dispatch assembles in float64 (unit gradients of the geometry's
    type), equal to the generic float64 matrix to float64 rounding."""
    geo = fem.Grid2D(res=wp.vec2i(3, 2), bounds_lo=wp.vec2d(0.0, 0.0), bounds_hi=wp.vec2d(1.5, 1.0),
                     scalar_type=wp.float64)
    space = fem.make_polynomial_space(geo, degree=2)
    A, B = both(advection, {"u": fem.make_trial(space), "v": fem.make_test(space)})
    assert np.abs(A).max() > 0.01
    np.testing.assert_allclose(B, A, rtol=1e-12, atol=1e-13 * np.abs(A).max())

def test_closed_forms_on_a_grid():
    """The mass matrix of a partition of unity sums to the area; a stiffness matrix's rows sum
    to zero (constants are in its kernel); both symmetric."""
    geo = _grid2d()
    space = fem.make_polynomial_space(geo, degree=2)
    fields = {"u": fem.make_trial(space), "v": fem.make_test(space)}
    M = dense(fem.integrate(mass, fields=fields))
    K = dense(fem.integrate(diffusion, fields=fields, values={"nu": 1.0}))
    assert M.sum() == pytest.approx(1.5, rel=1e-5)
    np.testing.assert_allclose(K.sum(axis=1), 0.0, atol=1e-5)
    np.testing.assert_allclose(M, M.T, atol=1e-7)
    np.testing.assert_allclose(K, K.T, atol=1e-6)


def test_chunks(monkeypatch):
    """A work array smaller than the elements' needs: processed chunk by chunk, same matrix."""
    geo = _grid3d()
    space = fem.make_polynomial_space(geo, degree=1, dtype=wp.vec3)
    fields = {"u": fem.make_trial(space), "v": fem.make_test(space)}
    whole = dense(fem.integrate(elasticity, fields=fields, values={"lame": wp.vec2(1.0, 0.5)}))
    monkeypatch.setattr(D, "WORK_BYTES", 3000)      # (one or two elements per chunk)
    chunked = dense(fem.integrate(elasticity, fields=fields, values={"lame": wp.vec2(1.0, 0.5)}))
    np.testing.assert_array_equal(chunked, whole)


@wp.func
def helper(x: float):
    return 2.0 * x


@fem.integrand
def moved_sample(s: fem.Sample, u: fem.Field, v: fem.Field):
    c = fem.Sample(s.element_index, wp.vec3(0.5, 0.5, 0.0), s.qp_index, s.qp_weight, s.test_dof, s.trial_dof)
    return u(c) * v(s)


@fem.integrand
def reads_dof(s: fem.Sample, u: fem.Field, v: fem.Field):
    return u(s) * v(s) * wp.where(s.test_dof[0] == s.trial_dof[0], 2.0, 1.0)


@fem.integrand
def through_func(s: fem.Sample, u: fem.Field, v: fem.Field):
    return helper(u(s)) * v(s)


@fem.integrand
def inner_mass(s: fem.Sample, u: fem.Field, v: fem.Field):
    return mass(s, u, v)


@fem.integrand
def reassigned(s: fem.Sample, u: fem.Field, v: fem.Field):
    w = v
    return u(s) * w(s)


@pytest.mark.parametrize("integrand", [moved_sample, reads_dof, inner_mass, reassigned])
def test_fallback_keeps_generic_results(integrand):
    """Integrands the scan refuses run the generic kernel, even with assembly="dispatch"."""
    space = fem.make_polynomial_space(_grid2d(), degree=1)
    fields = {"u": fem.make_trial(space), "v": fem.make_test(space)}
    before = dict(D.counts)
    A = dense(fem.integrate(integrand, fields=fields, assembly="dispatch"))
    assert D.counts["dispatch"] == before["dispatch"]
    assert D.counts["generic"] == before["generic"] + 1
    assert np.abs(A).max() > 0


@pytest.mark.parametrize("integrand,needs", [
    (mass, ({VALUE}, {VALUE})), (diffusion, ({GRAD}, {GRAD})), (advection, ({VALUE, GRAD}, {VALUE, GRAD})),
    (elasticity, ({GRAD}, {GRAD})), (weighted_diffusion, ({VALUE, GRAD}, {GRAD})),
    (through_func, ({VALUE}, {VALUE})), (moved_sample, None), (reads_dof, None), (inner_mass, None),
    (reassigned, None),
])
def test_scan(integrand, needs):
    callables = ("k",) if integrand is weighted_diffusion else ("domain",)
    got = taylor_needs(integrand, "s", "v", "u", callables)
    assert got == (None if needs is None else tuple(frozenset(n) for n in needs))


def test_nodal_and_tape_keep_their_kernels():
    space = fem.make_polynomial_space(_grid2d(), degree=1)
    fields = {"u": fem.make_trial(space), "v": fem.make_test(space)}
    before = dict(D.counts)
    fem.integrate(mass, fields=fields, assembly="nodal")
    with wp.Tape():
        fem.integrate(mass, fields=fields)
    assert D.counts["nodal"] == before["nodal"] + 1
    assert D.counts["generic"] == before["generic"] + 1
    assert D.counts["dispatch"] == before["dispatch"]


def test_unknown_assembly_strategy():
    space = fem.make_polynomial_space(_grid2d(), degree=1)
    with pytest.raises(ValueError, match="Invalid assembly strategy'fast'"):
        fem.integrate(mass, fields={"u": fem.make_trial(space), "v": fem.make_test(space)}, assembly="fast")
