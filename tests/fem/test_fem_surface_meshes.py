"""fem.Trimesh3D and fem.Quadmesh3D (surfaces in 3-D): cell areas and normals against NumPy,
edges against brute force, warp-lang's edge orientation, exact integrals over a tilted plane,
tangential gradients, and the L2 convergence order of a Poisson solve on a rotated square per
element degree. Also Trimesh2D's edge numbering and fem.utils.grid_to_tris's cell order (both
as warp-lang's, so that node values line up)."""

import math

import numpy as np
import pytest

import warp_interactive as wp
import warp_interactive.fem as fem

from tests.fem.test_fem_assembly import diffusion, mass, to_scipy

# an orthonormal frame: the unit square is mapped to R @ (x, y, 0) + OFFSET
_A = np.array([[0.6, -0.8, 0.0], [0.8, 0.6, 0.0], [0.0, 0.0, 1.0]])
_B = np.array([[1.0, 0.0, 0.0], [0.0, math.cos(0.7), -math.sin(0.7)], [0.0, math.sin(0.7), math.cos(0.7)]])
R = _B @ _A
OFFSET = np.array([0.3, -0.2, 0.5])
R_WP = wp.mat33(*R.reshape(-1).tolist())
OFFSET_WP = wp.vec3(*OFFSET.tolist())


def square_grid(res):
    x = np.linspace(0.0, 1.0, res + 1)
    X, Y = np.meshgrid(x, x, indexing="ij")
    return np.stack([X.ravel(), Y.ravel()], axis=1)


def surface_mesh(kind, res, lift=None, shuffle=True, seed=0):
    """The unit square's grid cut in triangles or quads, each cell's vertex list rotated by a
    random amount (orientation kept), its vertices placed by ``lift`` (default: the rotated plane)."""
    xy = square_grid(res)
    pos = (xy @ R[:, :2].T + OFFSET) if lift is None else lift(xy)
    cells = fem.utils.grid_to_tris(res, res) if kind == "tri" else fem.utils.grid_to_quads(res, res)
    if shuffle:
        rng = np.random.default_rng(seed)
        cells = np.stack([np.roll(c, -int(rng.integers(cells.shape[1]))) for c in cells])
    mesh = fem.Trimesh3D if kind == "tri" else fem.Quadmesh3D
    return mesh(wp.array(cells, dtype=int), wp.array(pos.astype(np.float32), dtype=wp.vec3))


def cylinder(xy):
    """A bent sheet: the square rolled on a cylinder of radius 1.5 about the y axis."""
    a = xy[:, 0] / 1.5
    return np.stack([1.5 * np.sin(a), xy[:, 1], 1.5 * (1.0 - np.cos(a))], axis=1)


@fem.integrand
def cell_geometry(s: fem.Sample, domain: fem.Domain, area: wp.array(dtype=float), normal: wp.array(dtype=wp.vec3)):
    wp.atomic_add(area, s.element_index, fem.measure(domain, s) * s.qp_weight)
    wp.atomic_add(normal, s.element_index, fem.normal(domain, s) * s.qp_weight)


@fem.integrand
def side_geometry(s: fem.Sample, domain: fem.Domain, length: wp.array(dtype=float), mid: wp.array(dtype=wp.vec3)):
    wp.atomic_add(length, s.element_index, fem.measure(domain, s) * s.qp_weight)
    wp.atomic_add(mid, s.element_index, fem.position(domain, s) * s.qp_weight)


def _quad_area_and_normal(p):
    """Area (Gauss 4x4 on |d_u x d_v|) and mean unit normal of bilinear quads ``p`` (n, 4, 3)."""
    x, w = np.polynomial.legendre.leggauss(4)
    x, w = 0.5 * (x + 1.0), 0.5 * w
    area, normal = np.zeros(len(p)), np.zeros((len(p), 3))
    for u, wu in zip(x, w):
        for v, wv in zip(x, w):
            du = (1 - v) * (p[:, 1] - p[:, 0]) + v * (p[:, 2] - p[:, 3])
            dv = (1 - u) * (p[:, 3] - p[:, 0]) + u * (p[:, 2] - p[:, 1])
            c = np.cross(du, dv)
            area += wu * wv * np.linalg.norm(c, axis=1)
            normal += wu * wv * c / np.linalg.norm(c, axis=1)[:, None]
    return area, normal


@pytest.mark.parametrize("kind", ["tri", "quad"])
def test_surface_areas_normals_and_edges_against_numpy(kind):
    res = 4
    geo = surface_mesh(kind, res, lift=cylinder)
    pos = geo.positions.numpy().astype(np.float64)
    cells = (geo.tri_vertex_indices if kind == "tri" else geo.quad_vertex_indices).numpy()
    edges = {}
    for c, verts in enumerate(cells.tolist()):
        for k in range(len(verts)):
            edges.setdefault(tuple(sorted((verts[k], verts[(k + 1) % len(verts)]))), []).append(c)
    assert geo.dimension == 3 and geo.side_count() == len(edges)
    assert geo.boundary_side_count() == sum(len(c) == 1 for c in edges.values()) == 4 * res
    n = geo.cell_count()
    area, normal = wp.zeros(n, dtype=float), wp.zeros(n, dtype=wp.vec3)
    fem.interpolate(cell_geometry, at=fem.RegularQuadrature(fem.Cells(geo), order=4),
                    values={"area": area, "normal": normal})
    p = pos[cells]
    if kind == "tri":
        c = np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0])
        # the quadrature weights of a reference cell sum to 1
        ref_area, ref_normal = 0.5 * np.linalg.norm(c, axis=1), c / np.linalg.norm(c, axis=1)[:, None]
    else:
        ref_area, ref_normal = _quad_area_and_normal(p)
    np.testing.assert_allclose(area.numpy(), ref_area, rtol=1e-4)
    np.testing.assert_allclose(normal.numpy(), ref_normal, atol=1e-5)
    assert area.numpy().sum() == pytest.approx(1.0, rel=2e-3)          # the rolled square keeps its area
    m = geo.side_count()
    length, mid = wp.zeros(m, dtype=float), wp.zeros(m, dtype=wp.vec3)
    fem.interpolate(side_geometry, at=fem.RegularQuadrature(fem.Sides(geo), order=1),
                    values={"length": length, "mid": mid})
    ev = geo.edge_vertex_indices.numpy()
    owners = (geo.edge_tri_indices if kind == "tri" else geo.edge_quad_indices).numpy()
    np.testing.assert_allclose(length.numpy(), np.linalg.norm(pos[ev[:, 1]] - pos[ev[:, 0]], axis=1), rtol=1e-5)
    centroid = p.mean(axis=1)
    cell_normal = (np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0]) if kind == "tri"
                   else np.cross(p[:, 2] - p[:, 0], p[:, 3] - p[:, 1]))
    for e in range(m):
        holders = edges[tuple(sorted(ev[e]))]
        assert tuple(owners[e]) == (min(holders), max(holders))
        # warp-lang's orientation: edge x (inner cell normal) points out of the inner cell
        out = np.cross(pos[ev[e, 1]] - pos[ev[e, 0]], cell_normal[owners[e, 0]])
        assert np.dot(out, mid.numpy()[e] - centroid[owners[e, 0]]) > 0.0


@fem.integrand
def plane_monomial(s: fem.Sample, domain: fem.Domain, a: int, b: int, R: wp.mat33, offset: wp.vec3):
    xy = wp.transpose(R) * (fem.position(domain, s) - offset)
    return wp.pow(xy[0], float(a)) * wp.pow(xy[1], float(b))


@pytest.mark.parametrize("kind", ["tri", "quad"])
@pytest.mark.parametrize("a,b", [(0, 0), (2, 1), (3, 2)])
def test_surface_integrals_of_polynomials_are_exact(kind, a, b):
    geo = surface_mesh(kind, 2)
    q = fem.RegularQuadrature(fem.Cells(geo), order=a + b)
    value = fem.integrate(plane_monomial, quadrature=q, values={"a": a, "b": b, "R": R_WP, "offset": OFFSET_WP})
    assert float(value) == pytest.approx(1.0 / ((a + 1) * (b + 1)), rel=2e-5)


@fem.integrand
def linear_function(s: fem.Sample, domain: fem.Domain, g: wp.vec3):
    return wp.dot(g, fem.position(domain, s))


@fem.integrand
def gradient_and_normal(s: fem.Sample, domain: fem.Domain, u: fem.Field, grad: wp.array(dtype=wp.vec3),
                        normal: wp.array(dtype=wp.vec3)):
    grad[s.element_index] = fem.grad(u, s)
    normal[s.element_index] = fem.normal(domain, s)


@pytest.mark.parametrize("degree", [2])
def test_trimesh3d_gradients_are_tangential(degree):
    # on flat triangles the field's gradient is the tangential part of the linear function's
    geo = surface_mesh("tri", 3, lift=cylinder)
    space = fem.make_polynomial_space(geo, degree=degree)
    g = np.array([0.3, -1.2, 0.7])
    u = space.make_field()
    fem.interpolate(linear_function, dest=u, values={"g": wp.vec3(*g)})
    n = geo.cell_count()
    grad, normal = wp.zeros(n, dtype=wp.vec3), wp.zeros(n, dtype=wp.vec3)
    fem.interpolate(gradient_and_normal, at=fem.RegularQuadrature(fem.Cells(geo), order=0), fields={"u": u},
                    values={"grad": grad, "normal": normal})
    nrm = normal.numpy().astype(np.float64)
    ref = g[None] - (nrm @ g)[:, None] * nrm
    np.testing.assert_allclose(grad.numpy(), ref, atol=1e-4)


@pytest.mark.parametrize("kind", ["tri", "quad"])
def test_surface_mass_matrices_and_lumped_weights(kind):
    geo = surface_mesh(kind, 3, lift=cylinder)
    space = fem.make_polynomial_space(geo, degree=2)
    fields = {"u": fem.make_trial(space), "v": fem.make_test(space)}
    M = to_scipy(fem.integrate(mass, fields=fields))
    assert abs(M - M.T).max() < 1e-5 * abs(M).max()
    lumped = to_scipy(fem.integrate(mass, fields=fields, assembly="nodal")).diagonal()
    assert (lumped > 0).all() and lumped.sum() == pytest.approx(M.sum(), rel=1e-4)
    pos = geo.positions.numpy().astype(np.float64)
    p = pos[(geo.tri_vertex_indices if kind == "tri" else geo.quad_vertex_indices).numpy()]
    area = (0.5 * np.linalg.norm(np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0]), axis=1) if kind == "tri"
            else _quad_area_and_normal(p)[0])
    assert M.sum() == pytest.approx(area.sum(), rel=1e-5)


@fem.integrand
def plane_source(s: fem.Sample, domain: fem.Domain, v: fem.Field, R: wp.mat33, offset: wp.vec3):
    xy = wp.transpose(R) * (fem.position(domain, s) - offset)
    k = wp.pi
    return 2.0 * k * k * wp.sin(k * xy[0]) * wp.sin(k * xy[1]) * v(s)


@fem.integrand
def plane_error(s: fem.Sample, domain: fem.Domain, u: fem.Field, R: wp.mat33, offset: wp.vec3):
    xy = wp.transpose(R) * (fem.position(domain, s) - offset)
    e = u(s) - wp.sin(wp.pi * xy[0]) * wp.sin(wp.pi * xy[1])
    return e * e


def plane_poisson_l2_error(kind, res, degree):
    """-lap u = 2 pi^2 sin(pi x) sin(pi y) on the rotated unit square, u = 0 on its boundary
    (those nodes eliminated in SciPy), after checking the stiffness matrix: symmetric,
    constants in its kernel."""
    import scipy.sparse.linalg as spl
    geo = surface_mesh(kind, res)
    space = fem.make_polynomial_space(geo, degree=degree)
    q = fem.RegularQuadrature(fem.Cells(geo), order=2 * degree + 2)
    frame = {"R": R_WP, "offset": OFFSET_WP}
    K = to_scipy(fem.integrate(diffusion, fields={"u": fem.make_trial(space), "v": fem.make_test(space)},
                               values={"nu": 1.0}))
    assert abs(K - K.T).max() < 1e-5 * abs(K).max()
    np.testing.assert_allclose(K @ np.ones(K.shape[0]), 0.0, atol=1e-4)
    rhs = fem.integrate(plane_source, fields={"v": fem.make_test(space)}, quadrature=q, values=frame)
    rhs = rhs.numpy().astype(np.float64)
    xy = (space.node_positions().numpy().astype(np.float64) - OFFSET) @ R
    free = ~np.any((np.abs(xy[:, :2]) < 1e-5) | (np.abs(xy[:, :2] - 1.0) < 1e-5), axis=1)
    values = np.zeros(len(xy))
    values[free] = spl.spsolve(K[free][:, free].tocsc(), rhs[free])
    u = space.make_field()
    u.dof_values = wp.array(values.astype(np.float32), dtype=float)
    return math.sqrt(float(fem.integrate(plane_error, fields={"u": u}, quadrature=q, values=frame)))


@pytest.mark.parametrize("kind,degree,rate,resolutions", [("tri", 1, 2.0, (8, 16)), ("tri", 2, 3.0, (6, 12)),
                                                          ("quad", 1, 2.0, (8, 16)), ("quad", 2, 3.0, (6, 12)),
                                                          ("quad", 3, 4.0, (4, 8))])
def test_surface_poisson_converges_at_the_expected_order(kind, degree, rate, resolutions):
    errors = [plane_poisson_l2_error(kind, r, degree) for r in resolutions]
    rates = [math.log(a / b) / math.log(rb / ra) for a, b, ra, rb in zip(errors, errors[1:], resolutions, resolutions[1:])]
    assert rates[-1] == pytest.approx(rate, abs=0.3), (errors, rates)


def test_grid_to_tris_takes_cells_x_fastest_as_warp_lang():
    nx, ny = 3, 2
    tris = fem.utils.grid_to_tris(nx, ny)
    for j in range(ny):
        for i in range(nx):
            v = lambda a, b: (i + a) * (ny + 1) + (j + b)        # noqa: E731
            c = 2 * (j * nx + i)
            assert tris[c].tolist() == [v(0, 0), v(1, 0), v(1, 1)]
            assert tris[c + 1].tolist() == [v(0, 0), v(1, 1), v(0, 1)]


def test_trimesh2d_edges_numbered_by_smallest_vertex_then_first_use():
    xy = square_grid(3)
    tris = fem.utils.grid_to_tris(3, 3)
    rng = np.random.default_rng(2)
    tris = np.stack([np.roll(t, -int(rng.integers(3))) for t in tris])
    geo = fem.Trimesh2D(wp.array(tris, dtype=int), wp.array(xy.astype(np.float32), dtype=wp.vec2))
    # brute force: walk the cells touching each vertex in order, each cell's edges (0,1), (1,2), (2,0)
    expected = []
    for v in range(len(xy)):
        for t in tris.tolist():
            for k in range(3):
                a, b = t[k], t[(k + 1) % 3]
                if min(a, b) == v and (v, max(a, b)) not in expected:
                    expected.append((v, max(a, b)))
    ev = geo.edge_vertex_indices.numpy()
    assert [tuple(sorted(e)) for e in ev.tolist()] == expected
    te = geo.tri_edge_indices.numpy()
    for c, t in enumerate(tris.tolist()):
        for k in range(3):            # local edge k is the one opposite vertex k
            assert sorted(ev[te[c, k]].tolist()) == sorted([t[(k + 1) % 3], t[(k + 2) % 3]])


def test_trimesh2d_p2_lumped_mass_weighs_vertices_as_warp_lang():
    xy = square_grid(2)
    geo = fem.Trimesh2D(wp.array(fem.utils.grid_to_tris(2, 2), dtype=int), wp.array(xy.astype(np.float32), dtype=wp.vec2))
    space = fem.make_polynomial_space(geo, degree=2)
    fields = {"u": fem.make_trial(space), "v": fem.make_test(space)}
    lumped = to_scipy(fem.integrate(mass, fields=fields, assembly="nodal")).diagonal()
    # corner vertex 2 (x = 0, y = 1) lies in one triangle, of area 1/8: a vertex weight 0.0223... of it
    assert lumped[2] == pytest.approx(0.125 * 0.022335964126, rel=1e-5)
    assert lumped.sum() == pytest.approx(1.0, rel=1e-5)


@pytest.mark.parametrize("mesh,surface,cells", [("Trimesh2D", "Trimesh3D", [[0, 1, 2]]),
                                                ("Quadmesh2D", "Quadmesh3D", [[0, 1, 2, 3]])])
def test_planar_mesh_classes_given_vec3_positions_make_surfaces(mesh, surface, cells):
    # warp-lang's Trimesh2D / Quadmesh2D take their dimension from the positions
    pos = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 1.0], [1.0, 1.0, 1.0], [0.0, 1.0, 0.0]], dtype=np.float32)
    geo = getattr(fem, mesh)(wp.array(cells, dtype=int), positions=wp.array(pos, dtype=wp.vec3))
    assert type(geo) is getattr(fem, surface) and geo.dimension == 3
    flat = getattr(fem, mesh)(wp.array(cells, dtype=int), wp.array(pos[:, :2], dtype=wp.vec2))
    assert type(flat) is getattr(fem, mesh) and flat.dimension == 2
