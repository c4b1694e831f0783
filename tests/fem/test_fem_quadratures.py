"""Degree-0 spaces, ExplicitQuadrature and PicQuadrature against NumPy: piecewise constants
hold cell-centre values and have cell measures as mass; explicit Gauss rules integrate
polynomials exactly; particle quadratures bin particles as a brute-force floor does and
integrate sum(measure * f(particle)); the symmetric simplex rules are exact to their order."""

import numpy as np
import pytest

import warp_interactive as wp
import warp_interactive.fem as fem

from tests.fem.test_fem_assembly import diffusion, mass, to_scipy, unit_square
from tests.fem.test_fem_meshes import tet_mesh


@fem.integrand
def linear_f(s: fem.Sample, domain: fem.Domain):
    x = domain(s)
    return 1.0 + 2.0 * x[0] - 3.0 * x[1]


@fem.integrand
def poly_f(s: fem.Sample, domain: fem.Domain):
    x = domain(s)
    return x[0] * x[0] * x[0] * x[1] * x[1] * x[1] + x[1]


@fem.integrand
def element_of(s: fem.Sample):
    return float(s.element_index)


@fem.integrand
def cell_found(s: fem.Sample, domain: fem.Domain):
    # a keyword argument to an operator: the guess goes to the geometry's lookup
    found = fem.lookup(domain, domain(s), guess=s)
    return float(s.element_index) + 100.0 * float(found.element_index - s.element_index)


def _poly(x, y):
    return x ** 3 * y ** 3 + y


def _cells(geo):
    cells = geo.tri_vertex_indices if isinstance(geo, fem.Trimesh2D) else geo.tet_vertex_indices
    return cells.numpy()


def _centroids(geo):
    if isinstance(geo, fem.Grid2D):
        res = geo.res
        ix, iy = np.meshgrid(np.arange(res[0]), np.arange(res[1]), indexing="ij")
        h = np.asarray(geo.cell_size)
        return np.stack([(ix.ravel() + 0.5) * h[0], (iy.ravel() + 0.5) * h[1]], 1)
    return geo.positions.numpy()[_cells(geo)].mean(axis=1)


def _measures(geo):
    if isinstance(geo, fem.Grid2D):
        return np.full(geo.cell_count(), np.prod(np.asarray(geo.cell_size)))
    p = geo.positions.numpy()[_cells(geo)]
    d = p[:, 1:] - p[:, :1]
    return np.abs(np.linalg.det(d)) / (2.0 if p.shape[1] == 3 else 6.0)


def _mesh(kind):
    return tet_mesh(2, amount=0.1) if kind == "tet" else unit_square(kind, 3)


# --- degree-0 spaces -----------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["grid", "tri", "tet"])
def test_degree_0_nodes_are_cell_centres_holding_cell_values(kind):
    geo = _mesh(kind)
    space = fem.make_polynomial_space(geo, degree=0)
    assert space.node_count() == geo.cell_count() and space.degree == 0
    c = _centroids(geo)
    np.testing.assert_allclose(space.node_positions().numpy(), c, atol=1e-6)
    field = space.make_field()
    fem.interpolate(linear_f, dest=field)
    np.testing.assert_allclose(field.dof_values.numpy(), 1.0 + 2.0 * c[:, 0] - 3.0 * c[:, 1], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("kind", ["grid", "tri"])
def test_degree_0_mass_is_the_cell_measures_and_stiffness_vanishes(kind):
    geo = _mesh(kind)
    space = fem.make_polynomial_space(geo, degree=0)
    u, v = fem.make_trial(space), fem.make_test(space)
    M = to_scipy(fem.integrate(mass, fields={"u": u, "v": v}))
    np.testing.assert_allclose(M.toarray(), np.diag(_measures(geo)), rtol=1e-5, atol=1e-8)
    K = to_scipy(fem.integrate(diffusion, fields={"u": u, "v": v}, values={"nu": 1.0}))
    assert abs(K).max() == 0.0      # constants per cell: no gradient


# --- explicit quadrature -------------------------------------------------------------------------

def _gauss_square(n):
    x, w = np.polynomial.legendre.leggauss(n)
    x, w = 0.5 * (x + 1.0), 0.5 * w
    pts = np.array([(a, b, 0.0) for a in x for b in x])
    return pts, np.array([wa * wb for wa in w for wb in w])


def test_explicit_gauss_rule_integrates_a_bicubic_exactly_and_indexes_points_by_element():
    geo = fem.Grid2D(res=wp.vec2i(3, 2), bounds_hi=wp.vec2(1.0, 2.0))
    domain = fem.Cells(geo)
    pts, wts = _gauss_square(2)          # 2 points per axis: exact to degree 3 per axis
    n = domain.element_count()
    quad = fem.ExplicitQuadrature(domain, wp.array(np.tile(pts, (n, 1, 1)).astype(np.float32), dtype=wp.vec3),
                                  wp.array(np.tile(wts, (n, 1)).astype(np.float32), dtype=float))
    assert (quad.max_points_per_element(), quad.total_point_count()) == (4, 4 * n)
    exact = (1.0 / 4.0) * (2.0 ** 4 / 4.0) + 2.0 * 2.0 / 2.0      # int x^3 y^3 + y over [0,1]x[0,2]
    assert fem.integrate(poly_f, quadrature=quad) == pytest.approx(exact, rel=1e-6)
    out = wp.zeros(quad.total_point_count(), dtype=float)
    fem.interpolate(cell_found, dest=out, at=quad)
    np.testing.assert_array_equal(out.numpy(), np.repeat(np.arange(n), 4))


def test_explicit_rule_given_for_every_side_serves_the_boundary():
    geo = fem.Grid2D(res=wp.vec2i(2))
    boundary = fem.BoundarySides(geo)
    x, w = np.polynomial.legendre.leggauss(2)
    sides = boundary.geometry_element_count()
    pts = np.zeros((sides, 2, 3), dtype=np.float32)
    pts[:, :, 0] = 0.5 * (x + 1.0)
    quad = fem.ExplicitQuadrature(boundary, wp.array(pts, dtype=wp.vec3),
                                  wp.array(np.tile(0.5 * w, (sides, 1)).astype(np.float32), dtype=float))
    # int over the boundary of the unit square of x^3 y^3 + y: bottom 0, top 1/4 + 1, left 1/2,
    # right 1/4 + 1/2
    assert fem.integrate(poly_f, quadrature=quad) == pytest.approx(2.5, rel=1e-6)
    out = wp.full(quad.total_point_count(), -1.0, dtype=float)
    fem.interpolate(element_of, dest=out, at=quad)
    on = np.asarray(geo.boundary_side_indices())
    expected = np.full((sides, 2), -1.0)
    expected[on] = on[:, None]                 # point index: points per side * side + q
    np.testing.assert_array_equal(out.numpy(), expected.ravel())


@pytest.mark.parametrize("rows,message", [(5, "element count"), (4, "same shape")])
def test_explicit_rule_shapes_are_checked(rows, message):
    domain = fem.Cells(fem.Grid2D(res=wp.vec2i(2)))
    pts = wp.zeros((rows, 2), dtype=wp.vec3)
    wts = wp.zeros((rows, 2 if message != "same shape" else 3), dtype=float)
    with pytest.raises((ValueError, NotImplementedError), match=message):
        fem.ExplicitQuadrature(domain, pts, wts)


# --- particle quadrature -------------------------------------------------------------------------

RES = (4, 3)
RNG = np.random.default_rng(7)
PARTICLES = RNG.random((60, 2)) * [2.0, 1.5]
PARTICLES[:9] *= 0.2                                   # crowd the first cell
MEASURES = RNG.random(60) * 0.05


def _pic_grid():
    return fem.Grid2D(res=wp.vec2i(*RES), bounds_hi=wp.vec2(2.0, 1.5))


def _brute_bins(pos):
    h = np.array([0.5, 0.5])
    ij = np.floor(pos / h).astype(int)
    return ij[:, 0] * RES[1] + ij[:, 1], pos / h - ij


def _pic(measures=None, domain=None, **kw):
    geo = _pic_grid()
    domain = domain or fem.Cells(geo)
    m = None if measures is None else wp.array(measures.astype(np.float32), dtype=float)
    return fem.PicQuadrature(domain, wp.array(PARTICLES.astype(np.float32), dtype=wp.vec2), m, **kw)


def test_particles_are_binned_as_a_floor_would():
    pic = _pic()
    cells, _ = _brute_bins(PARTICLES)
    counts = np.bincount(cells, minlength=RES[0] * RES[1])
    np.testing.assert_array_equal(pic.cell_particle_offsets.numpy(), np.concatenate([[0], np.cumsum(counts)]))
    np.testing.assert_array_equal(pic.cell_particle_indices.numpy(), np.argsort(cells, kind="stable"))
    assert pic.total_point_count() == 60 and pic.evaluation_point_count() == 60
    assert (pic.active_cell_count(), pic.max_points_per_element()) == (np.count_nonzero(counts), counts.max())
    mask = wp.zeros(RES[0] * RES[1], dtype=int)
    pic.fill_element_mask(mask)
    np.testing.assert_array_equal(mask.numpy(), (counts > 0).astype(int))


def test_particle_integrals_are_measure_weighted_sums():
    f = _poly(PARTICLES[:, 0], PARTICLES[:, 1])
    assert fem.integrate(poly_f, quadrature=_pic(MEASURES)) == pytest.approx(np.dot(MEASURES, f), rel=1e-5)
    # without measures, a cell's particles share its area equally
    cells, _ = _brute_bins(PARTICLES)
    counts = np.bincount(cells, minlength=RES[0] * RES[1])
    assert fem.integrate(poly_f, quadrature=_pic()) == pytest.approx(np.sum(0.25 * f / counts[cells]), rel=1e-5)


def test_particle_values_land_at_their_particle_index():
    pic = _pic(MEASURES)
    out = wp.zeros(60, dtype=float)
    fem.interpolate(poly_f, dest=out, at=pic)
    np.testing.assert_allclose(out.numpy(), _poly(PARTICLES[:, 0], PARTICLES[:, 1]), rtol=1e-5, atol=1e-6)


def test_particle_mass_matrix_rows_sum_the_hat_functions():
    geo = _pic_grid()
    space = fem.make_polynomial_space(geo, degree=1)
    pic = _pic(MEASURES, domain=fem.Cells(geo))
    M = to_scipy(fem.integrate(mass, quadrature=pic, fields={"u": fem.make_trial(space), "v": fem.make_test(space)}))
    # Q1 hats on the 0.5 lattice: node (a, b) has index a * (RES[1] + 1) + b
    hats = np.zeros((60, (RES[0] + 1) * (RES[1] + 1)))
    for k, (x, y) in enumerate(PARTICLES / 0.5):
        for a in (int(x), int(x) + 1):
            for b in (int(y), int(y) + 1):
                hats[k, a * (RES[1] + 1) + b] = (1 - abs(x - a)) * (1 - abs(y - b))
    np.testing.assert_allclose(M.toarray(), hats.T @ (MEASURES[:, None] * hats), rtol=2e-5, atol=1e-8)


def test_given_cells_and_coordinates_and_split_particles():
    cells, coords = _brute_bins(PARTICLES)
    c3 = np.concatenate([coords, np.zeros((60, 1))], 1).astype(np.float32)
    domain = fem.Cells(_pic_grid())
    m = wp.array(MEASURES.astype(np.float32), dtype=float)
    pic = fem.PicQuadrature(domain, (wp.array(cells.astype(np.int32), dtype=int), wp.array(c3, dtype=wp.vec3)), m)
    f = _poly(PARTICLES[:, 0], PARTICLES[:, 1])
    assert fem.integrate(poly_f, quadrature=pic) == pytest.approx(np.dot(MEASURES, f), rel=1e-5)
    # each particle split over its own cell (0.25) and the first cell at its centre (0.75)
    cells2 = np.stack([cells, np.zeros(60, dtype=int)], 1).astype(np.int32)
    coords2 = np.stack([c3, np.tile([0.5, 0.5, 0.0], (60, 1)).astype(np.float32)], 1)
    frac = np.tile([0.25, 0.75], (60, 1)).astype(np.float32)
    split = fem.PicQuadrature(domain, (wp.array(cells2, dtype=int), wp.array(coords2, dtype=wp.vec3),
                                       wp.array(frac, dtype=float)), m)
    assert split.evaluation_point_count() == 120 and split.total_point_count() == 60
    expected = np.dot(MEASURES, 0.25 * f + 0.75 * _poly(0.25, 0.25))
    assert fem.integrate(poly_f, quadrature=split) == pytest.approx(expected, rel=1e-5)


def test_domain_element_indices_on_a_subdomain():
    geo = _pic_grid()
    keep = np.arange(geo.cell_count()) % 2 == 0
    sub = fem.Subdomain(fem.Cells(geo), element_mask=wp.array(keep.astype(np.int32), dtype=int))
    pic = _pic(MEASURES, domain=sub, use_domain_element_indices=True)
    cells, _ = _brute_bins(PARTICLES)
    inside = keep[cells]
    np.testing.assert_array_equal(pic.cell_indices.numpy(), np.where(inside, cells // 2, -1))
    f = _poly(PARTICLES[:, 0], PARTICLES[:, 1])
    assert fem.integrate(poly_f, quadrature=pic) == pytest.approx(np.dot(MEASURES[inside], f[inside]), rel=1e-5)


def test_particle_inputs_are_checked():
    with pytest.raises(ValueError, match="equal to particle count"):
        _pic(MEASURES[:10])
    domain = fem.Cells(_pic_grid())
    with pytest.raises(ValueError, match="same shape"):
        fem.PicQuadrature(domain, (wp.zeros(3, dtype=int), wp.zeros(4, dtype=wp.vec3)))


# --- reference elements and the symmetric simplex rules -----------------------------------------

@pytest.mark.parametrize("element", list(fem.Element))
@pytest.mark.parametrize("order", [0, 1, 2, 3])
def test_reference_rules_integrate_monomials_to_their_order(element, order):
    proto = element.prototype
    pts, wts = proto.instantiate_quadrature(order, None)
    pts, wts = np.array(pts), np.array(wts)
    assert wts.sum() == pytest.approx(1.0)
    simplex = element in (fem.Element.TRIANGLE, fem.Element.TETRAHEDRON)
    # monomials in the last coordinate (barycentric on triangles): the mean over the element
    k = 2 if element == fem.Element.TRIANGLE else 0
    for p in range(order + 1):
        exact = (2.0 / ((p + 1) * (p + 2)) if element == fem.Element.TRIANGLE
                 else 6.0 / ((p + 1) * (p + 2) * (p + 3)) if simplex else 1.0 / (p + 1))
        assert float(np.dot(wts, pts[:, k] ** p)) == pytest.approx(exact, rel=1e-12)


def test_the_simplex_centres_are_their_centroids():
    assert fem.Element.TRIANGLE.prototype.center() == pytest.approx((1 / 3, 1 / 3, 1 / 3))
    assert fem.Element.TETRAHEDRON.prototype.center() == pytest.approx((0.25, 0.25, 0.25))
    domain = fem.Cells(fem.Grid2D(res=wp.vec2i(1)))
    assert domain.reference_element() == fem.Element.SQUARE


def test_particle_integral_gradients_reach_positions_and_measures():
    """d/dx_i and d/dm_i of sum_i m_i f(x_i): m_i grad f(x_i) and f(x_i)."""
    domain = fem.Cells(_pic_grid())
    pos = wp.array(PARTICLES.astype(np.float32), dtype=wp.vec2, requires_grad=True)
    m = wp.array(MEASURES.astype(np.float32), dtype=float, requires_grad=True)
    out = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        pic = fem.PicQuadrature(domain, pos, m, requires_grad=True)
        fem.integrate(poly_f, quadrature=pic, output=out)
    tape.backward(loss=out)
    x, y = PARTICLES[:, 0], PARTICLES[:, 1]
    np.testing.assert_allclose(m.grad.numpy(), _poly(x, y), rtol=1e-4, atol=1e-6)
    grad = np.stack([3 * x ** 2 * y ** 3, 3 * x ** 3 * y ** 2 + 1.0], 1) * MEASURES[:, None]
    np.testing.assert_allclose(pos.grad.numpy(), grad, rtol=1e-3, atol=1e-5)


@fem.integrand
def x_of(s: fem.Sample, domain: fem.Domain):
    return domain(s)[0]


def test_nodal_quadrature_integrates_with_node_weights_and_indexes_by_node():
    geo = fem.Grid2D(res=wp.vec2i(2))
    dg = fem.make_polynomial_space(geo, degree=2, discontinuous=True, family=fem.Polynomial.GAUSS_LEGENDRE)
    quad = fem.NodalQuadrature(fem.Cells(geo), dg)       # 3 Gauss points per axis: exact to degree 5
    assert (quad.max_points_per_element(), quad.total_point_count()) == (9, 36)
    assert fem.integrate(poly_f, quadrature=quad) == pytest.approx(1.0 / 16.0 + 0.5, rel=1e-6)
    q1 = fem.make_polynomial_space(geo, degree=1)
    nodal = fem.NodalQuadrature(fem.Cells(geo), q1)
    out = wp.full(nodal.total_point_count(), -1.0, dtype=float)        # (as warp-lang: one row per point)
    fem.interpolate(x_of, dest=out, at=nodal)
    n = q1.node_count()
    np.testing.assert_allclose(out.numpy()[:n], q1.node_positions().numpy()[:, 0], atol=1e-6)
    assert (out.numpy()[n:] == -1.0).all()
    # on a partition's cells, indices in the space partition's numbering
    part = fem.LinearGeometryPartition(geo, 2, 4)
    sp = fem.make_space_partition(space_topology=q1.topology, geometry_partition=part, with_halo=False)
    assert sp.node_count() == 4
    local = wp.full(4, -1.0, dtype=float)
    fem.interpolate(x_of, dest=local, at=fem.NodalQuadrature(fem.Cells(part), q1, space_partition=sp))
    np.testing.assert_allclose(local.numpy(), q1.node_positions().numpy()[sp.space_node_indices().numpy(), 0],
                               atol=1e-6)


# --- nodal assembly's point index; deformed surfaces ---------------------------------------------

@fem.integrand
def qp_index_form(s: fem.Sample, v: fem.Field):
    return float(s.qp_index) * v(s)


@fem.integrand
def lumped(s: fem.Sample, v: fem.Field):
    return v(s)


@pytest.mark.parametrize("kind", ["grid", "tri"])
def test_nodal_assembly_samples_carry_their_node_index(kind):
    """Regression: s.qp_index was -1 in nodal assembly; warp-lang gives the node's index (its
    examples use it to pick one node)."""
    space = fem.make_polynomial_space(_mesh(kind), degree=1)
    v = fem.make_test(space)
    weighted = fem.integrate(qp_index_form, fields={"v": v}, assembly="nodal").numpy()
    mass_ = fem.integrate(lumped, fields={"v": v}, assembly="nodal").numpy()
    np.testing.assert_allclose(weighted / mass_, np.arange(space.node_count()), rtol=1e-5)


@fem.integrand
def unit(s: fem.Sample):
    return 1.0


@fem.integrand
def normal_z(s: fem.Sample, domain: fem.Domain):
    return fem.normal(domain, s)[2] * fem.normal(domain, s)[2]


@fem.integrand
def lifted(s: fem.Sample, domain: fem.Domain):
    x = domain(s)
    return wp.vec3(x[0], x[1], 0.3 * wp.cos(3.0 * x[0]) * wp.sin(2.0 * x[1]))


def test_a_deformed_surface_measures_as_the_surface_built_from_its_points():
    """A flat Quadmesh3D moved by a Q1 field onto a bent sheet: areas, boundary lengths and
    normals equal those of the Quadmesh3D made directly on the moved vertices (the same
    bilinear patches)."""
    res = 3
    x = np.linspace(0.0, 1.0, res + 1)
    X, Y = np.meshgrid(x, x, indexing="ij")
    flat_pos = np.stack([X.ravel(), Y.ravel(), np.zeros(X.size)], 1).astype(np.float32)
    quads = wp.array(fem.utils.grid_to_quads(res, res), dtype=int)
    flat = fem.Quadmesh3D(quads, wp.array(flat_pos, dtype=wp.vec3))
    field = fem.make_polynomial_space(flat, degree=1, dtype=wp.vec3).make_field()
    fem.interpolate(lifted, dest=field)
    moved = fem.Quadmesh3D(quads, wp.array(field.dof_values.numpy(), dtype=wp.vec3))
    geo = field.make_deformed_geometry(relative=False)
    for integrand, domain_of in ((unit, fem.Cells), (normal_z, fem.Cells), (unit, fem.BoundarySides)):
        ours = float(fem.integrate(integrand, domain=domain_of(geo)))
        assert ours == pytest.approx(float(fem.integrate(integrand, domain=domain_of(moved))), rel=2e-5)
    assert fem.integrate(unit, domain=fem.Cells(geo)) > 1.02       # bent: more than the flat square
