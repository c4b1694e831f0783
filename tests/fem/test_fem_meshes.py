"""Unstructured fem meshes (Quadmesh2D...): measures, side normals and side counts against
brute-force NumPy sums over the mesh, integrals of polynomials exact to quadrature order,
node numberings that agree between neighbouring cells, symmetric assembled matrices, and the
L2 convergence order of a Poisson solve per element degree."""

import math

import numpy as np
import pytest

import warp_interactive as wp
import warp_interactive.fem as fem

from tests.fem.test_fem_assembly import diffusion, mass, poisson_l2_error, to_scipy


def _distort(pos, amount):
    """A smooth map of the unit square onto itself (the identity on its boundary)."""
    x, y = pos[:, 0], pos[:, 1]
    bump = amount * np.sin(np.pi * x) * np.sin(np.pi * y)
    return np.stack([x + bump * np.cos(3.0 * y), y + bump * np.sin(2.0 * x)], axis=1)


def quad_mesh(res, amount=0.0, shuffle=False, seed=0):
    """A ``res x res`` quad mesh of the unit square, smoothly distorted; with ``shuffle`` each
    quad's vertex list starts at a random corner (every local-edge case of the numbering)."""
    x = np.linspace(0.0, 1.0, res + 1)
    X, Y = np.meshgrid(x, x, indexing="ij")
    pos = _distort(np.stack([X.ravel(), Y.ravel()], 1), amount)
    quads = fem.utils.grid_to_quads(res, res)
    if shuffle:
        rng = np.random.default_rng(seed)
        quads = np.stack([np.roll(q, -int(rng.integers(4))) for q in quads])
    return fem.Quadmesh2D(wp.array(quads, dtype=int), wp.array(pos.astype(np.float32), dtype=wp.vec2))


def _shoelace(poly):
    x, y = poly[..., 0], poly[..., 1]
    return 0.5 * (x * np.roll(y, -1, axis=-1) - y * np.roll(x, -1, axis=-1)).sum(axis=-1)


def _brute_edges(cells):
    """{sorted vertex pair: [cells holding it]} by a plain loop."""
    edges = {}
    for c, verts in enumerate(cells.tolist()):
        for k in range(len(verts)):
            key = tuple(sorted((verts[k], verts[(k + 1) % len(verts)])))
            edges.setdefault(key, []).append(c)
    return edges


@fem.integrand
def cell_measure(s: fem.Sample, domain: fem.Domain, out: wp.array(dtype=float)):
    wp.atomic_add(out, s.element_index, fem.measure(domain, s) * s.qp_weight)


@fem.integrand
def side_geometry(s: fem.Sample, domain: fem.Domain, length: wp.array(dtype=float), normal: wp.array(dtype=wp.vec2),
                  mid: wp.array(dtype=wp.vec2)):
    wp.atomic_add(length, s.element_index, fem.measure(domain, s) * s.qp_weight)
    wp.atomic_add(normal, s.element_index, fem.normal(domain, s) * s.qp_weight)
    wp.atomic_add(mid, s.element_index, fem.position(domain, s) * s.qp_weight)


@pytest.mark.parametrize("shuffle", [False, True])
def test_quadmesh_measures_normals_and_sides_against_brute_force(shuffle):
    geo = quad_mesh(5, amount=0.15, shuffle=shuffle)
    pos = geo.positions.numpy().astype(np.float64)
    quads = geo.quad_vertex_indices.numpy()
    edges = _brute_edges(quads)
    assert geo.side_count() == len(edges) == 2 * 5 * 6
    assert geo.boundary_side_count() == sum(len(c) == 1 for c in edges.values()) == 20
    areas = wp.zeros(geo.cell_count(), dtype=float)
    fem.interpolate(cell_measure, at=fem.RegularQuadrature(fem.Cells(geo), order=2), values={"out": areas})
    np.testing.assert_allclose(areas.numpy(), _shoelace(pos[quads]), rtol=1e-5)
    n = geo.side_count()
    length, normal, mid = wp.zeros(n, dtype=float), wp.zeros(n, dtype=wp.vec2), wp.zeros(n, dtype=wp.vec2)
    fem.interpolate(side_geometry, at=fem.RegularQuadrature(fem.Sides(geo), order=1),
                    values={"length": length, "normal": normal, "mid": mid})
    ev = geo.edge_vertex_indices.numpy()
    owners = geo.edge_quad_indices.numpy()
    d = pos[ev[:, 1]] - pos[ev[:, 0]]
    np.testing.assert_allclose(length.numpy(), np.linalg.norm(d, axis=1), rtol=1e-5)
    np.testing.assert_allclose(mid.numpy(), 0.5 * (pos[ev[:, 0]] + pos[ev[:, 1]]), atol=1e-6)
    nrm = normal.numpy()
    np.testing.assert_allclose(np.linalg.norm(nrm, axis=1), 1.0, rtol=1e-5)
    np.testing.assert_allclose(np.einsum("ij,ij->i", nrm, d), 0.0, atol=1e-5)
    # the normal points from the inner cell (the smaller index) to the outer one
    centroid = pos[quads].mean(axis=1)
    for e, pair in enumerate(map(tuple, np.sort(ev, axis=1))):
        cells = edges[pair]
        assert tuple(owners[e]) == (min(cells), max(cells))
        assert np.dot(nrm[e], mid.numpy()[e] - centroid[owners[e, 0]]) > 0.0


@fem.integrand
def monomial(s: fem.Sample, domain: fem.Domain, a: int, b: int):
    x = fem.position(domain, s)
    return wp.pow(x[0], float(a)) * wp.pow(x[1], float(b))


@pytest.mark.parametrize("a,b", [(0, 0), (2, 1), (3, 3)])
def test_quadmesh_integrals_of_polynomials_are_exact(a, b):
    # a bilinear cell map makes x^a y^b a polynomial of degree 2(a+b) in the element
    # coordinates times a linear Jacobian: a rule of that order is exact
    geo = quad_mesh(4, amount=0.2)
    q = fem.RegularQuadrature(fem.Cells(geo), order=2 * (a + b) + 1)
    value = fem.integrate(monomial, quadrature=q, values={"a": a, "b": b})
    assert float(value) == pytest.approx(1.0 / ((a + 1) * (b + 1)), rel=2e-5)


@fem.integrand
def position_field(s: fem.Sample, domain: fem.Domain):
    return fem.position(domain, s)


@fem.integrand
def position_error(s: fem.Sample, domain: fem.Domain, u: fem.Field):
    e = u(s) - fem.position(domain, s)
    return wp.dot(e, e)


@pytest.mark.parametrize("degree", [1, 2, 3])
def test_quadmesh_nodes_are_shared_consistently_between_cells(degree):
    # the position is in every Q_k space of a bilinear mesh: interpolated at the nodes, it
    # must come back exactly everywhere, which fails if two cells number a shared node apart
    geo = quad_mesh(4, amount=0.2, shuffle=True, seed=degree)
    space = fem.make_polynomial_space(geo, degree=degree, dtype=wp.vec2)
    k = degree
    assert space.node_count() == 25 + 16 * (k - 1) ** 2 + 40 * (k - 1)
    u = space.make_field()
    fem.interpolate(position_field, dest=u)
    np.testing.assert_allclose(u.dof_values.numpy(), space.node_positions().numpy(), atol=1e-6)
    q = fem.RegularQuadrature(fem.Cells(geo), order=2 * k + 2)
    assert float(fem.integrate(position_error, fields={"u": u}, quadrature=q)) < 1e-11


@pytest.mark.parametrize("degree", [1, 2, 3])
def test_quadmesh_matrices_symmetric_with_exact_area(degree):
    geo = quad_mesh(3, amount=0.15, shuffle=True)
    space = fem.make_polynomial_space(geo, degree=degree)
    fields = {"u": fem.make_trial(space), "v": fem.make_test(space)}
    K = to_scipy(fem.integrate(diffusion, fields=fields, values={"nu": 1.0}))
    M = to_scipy(fem.integrate(mass, fields=fields))
    for A in (K, M):
        assert abs(A - A.T).max() < 1e-5 * abs(A).max()
    np.testing.assert_allclose(K @ np.ones(K.shape[0]), 0.0, atol=1e-4)
    assert M.sum() == pytest.approx(1.0, rel=1e-5)


@pytest.mark.parametrize("degree,rate", [(1, 2.0), (2, 3.0), (3, 4.0)])
def test_quadmesh_poisson_converges_at_the_expected_order(degree, rate):
    resolutions = (4, 8, 16) if degree < 3 else (2, 4, 8)
    errors = [poisson_l2_error(res, degree, lambda r: quad_mesh(r, amount=0.1)) for res in resolutions]
    rates = [math.log2(a / b) for a, b in zip(errors, errors[1:])]
    assert rates[-1] == pytest.approx(rate, abs=0.3), (errors, rates)


@fem.integrand
def jump_squared(s: fem.Sample, u: fem.Field):
    j = fem.jump(u, s)
    return j * j


@fem.integrand
def smooth(s: fem.Sample, domain: fem.Domain):
    x = fem.position(domain, s)
    return wp.sin(3.0 * x[0]) * wp.cos(2.0 * x[1])


@pytest.mark.parametrize("degree", [1, 2])
def test_quadmesh_dg_space_jumps(degree):
    geo = quad_mesh(3, amount=0.15, shuffle=True)
    dg = fem.make_polynomial_space(geo, degree=degree, discontinuous=True)
    nodes = (degree + 1) ** 2
    assert dg.node_count() == 9 * nodes
    u = dg.make_field()
    fem.interpolate(position_field_x, dest=u)         # x is bilinear in each cell: no jumps
    assert float(fem.integrate(jump_squared, domain=fem.Sides(geo), fields={"u": u})) < 1e-10
    per_cell = np.random.default_rng(degree).uniform(-1.0, 1.0, geo.cell_count())
    u.dof_values = wp.array(np.repeat(per_cell, nodes).astype(np.float32), dtype=float)
    pos = geo.positions.numpy().astype(np.float64)
    ref = sum((per_cell[c[0]] - per_cell[c[1]]) ** 2 * np.linalg.norm(pos[a] - pos[b])
              for (a, b), c in _brute_edges(geo.quad_vertex_indices.numpy()).items() if len(c) == 2)
    jumps = fem.integrate(jump_squared, domain=fem.Sides(geo), fields={"u": u})
    assert float(jumps) == pytest.approx(ref, rel=1e-5)


@fem.integrand
def position_field_x(s: fem.Sample, domain: fem.Domain):
    return fem.position(domain, s)[0]


# ---- Tetmesh ----

def _distort3(pos, amount):
    """A smooth map of the unit cube onto itself (the identity on its boundary)."""
    x, y, z = pos[:, 0], pos[:, 1], pos[:, 2]
    bump = amount * np.sin(np.pi * x) * np.sin(np.pi * y) * np.sin(np.pi * z)
    return pos + bump[:, None] * np.stack([np.cos(2.0 * y), np.sin(3.0 * z), np.cos(x)], axis=1)


def tet_mesh(res, amount=0.0, shuffle=False, seed=0):
    """A ``res^3`` cube mesh cut in tets; with ``shuffle``, each tet's vertices listed in a
    random even permutation (orientation kept)."""
    x = np.linspace(0.0, 1.0, res + 1)
    pos = np.stack(np.meshgrid(x, x, x, indexing="ij"), axis=-1).reshape(-1, 3)
    tets = fem.utils.grid_to_tets(res, res, res)
    if shuffle:
        rng = np.random.default_rng(seed)
        even = [(0, 1, 2, 3), (1, 2, 0, 3), (2, 0, 1, 3), (1, 0, 3, 2), (3, 2, 1, 0), (2, 3, 0, 1),
                (0, 2, 3, 1), (0, 3, 1, 2), (3, 0, 2, 1), (1, 3, 2, 0), (2, 1, 3, 0), (3, 1, 0, 2)]
        tets = np.stack([t[list(even[rng.integers(12)])] for t in tets])
    return fem.Tetmesh(wp.array(tets, dtype=int), wp.array(_distort3(pos, amount).astype(np.float32), dtype=wp.vec3))


@fem.integrand
def side_geometry3(s: fem.Sample, domain: fem.Domain, area: wp.array(dtype=float), normal: wp.array(dtype=wp.vec3),
                   mid: wp.array(dtype=wp.vec3)):
    wp.atomic_add(area, s.element_index, fem.measure(domain, s) * s.qp_weight)
    wp.atomic_add(normal, s.element_index, fem.normal(domain, s) * s.qp_weight)
    wp.atomic_add(mid, s.element_index, fem.position(domain, s) * s.qp_weight)


def test_tetmesh_measures_normals_and_sides_against_brute_force():
    geo = tet_mesh(3, amount=0.1, shuffle=True)
    pos = geo.positions.numpy().astype(np.float64)
    tets = geo.tet_vertex_indices.numpy()
    faces = {}
    for c, t in enumerate(tets.tolist()):
        for k in range(4):
            faces.setdefault(tuple(sorted(t[:k] + t[k + 1:])), []).append(c)
    assert geo.side_count() == len(faces)
    assert geo.boundary_side_count() == sum(len(c) == 1 for c in faces.values()) == 6 * 2 * 9
    vols = wp.zeros(geo.cell_count(), dtype=float)
    fem.interpolate(cell_measure, at=fem.RegularQuadrature(fem.Cells(geo), order=1), values={"out": vols})
    p = pos[tets]
    ref = np.abs(np.linalg.det(np.stack([p[:, 1] - p[:, 0], p[:, 2] - p[:, 0], p[:, 3] - p[:, 0]], axis=2))) / 6
    np.testing.assert_allclose(vols.numpy(), ref, rtol=1e-4)
    assert vols.numpy().sum() == pytest.approx(1.0, rel=1e-5)
    n = geo.side_count()
    area, normal, mid = wp.zeros(n, dtype=float), wp.zeros(n, dtype=wp.vec3), wp.zeros(n, dtype=wp.vec3)
    fem.interpolate(side_geometry3, at=fem.RegularQuadrature(fem.Sides(geo), order=1),
                    values={"area": area, "normal": normal, "mid": mid})
    fv = geo.face_vertex_indices.numpy()
    owners = geo.face_tet_indices.numpy()
    cross = np.cross(pos[fv[:, 1]] - pos[fv[:, 0]], pos[fv[:, 2]] - pos[fv[:, 0]])
    np.testing.assert_allclose(area.numpy(), 0.5 * np.linalg.norm(cross, axis=1), rtol=1e-4)
    np.testing.assert_allclose(mid.numpy(), pos[fv].mean(axis=1), atol=1e-6)
    nrm = normal.numpy()
    np.testing.assert_allclose(np.abs(np.einsum("ij,ij->i", nrm, cross)), np.linalg.norm(cross, axis=1), rtol=1e-4)
    centroid = p.mean(axis=1)
    for f in range(n):
        assert tuple(owners[f]) == (min(faces[tuple(sorted(fv[f]))]), max(faces[tuple(sorted(fv[f]))]))
        assert np.dot(nrm[f], mid.numpy()[f] - centroid[owners[f, 0]]) > 0.0


@fem.integrand
def monomial3(s: fem.Sample, domain: fem.Domain, a: int, b: int, c: int):
    x = fem.position(domain, s)
    return wp.pow(x[0], float(a)) * wp.pow(x[1], float(b)) * wp.pow(x[2], float(c))


@pytest.mark.parametrize("a,b,c", [(0, 0, 0), (2, 1, 0), (1, 2, 3)])
def test_tetmesh_integrals_of_polynomials_are_exact(a, b, c):
    geo = tet_mesh(2, amount=0.1)        # affine cells: a degree-d polynomial stays degree d
    q = fem.RegularQuadrature(fem.Cells(geo), order=a + b + c)
    value = fem.integrate(monomial3, quadrature=q, values={"a": a, "b": b, "c": c})
    assert float(value) == pytest.approx(1.0 / ((a + 1) * (b + 1) * (c + 1)), rel=2e-5)


@fem.integrand
def poly_k(s: fem.Sample, domain: fem.Domain, k: int):
    x = fem.position(domain, s)
    return wp.pow(x[0], float(k)) - 2.0 * wp.pow(x[1], float(k - 1)) * x[2] + 0.5


@fem.integrand
def poly_k_error(s: fem.Sample, domain: fem.Domain, u: fem.Field, k: int):
    e = u(s) - poly_k(s, domain, k)
    return e * e


@pytest.mark.parametrize("degree", [1, 2, 3])
def test_tetmesh_spaces_hold_their_polynomials(degree):
    # a polynomial of the space, interpolated at the nodes, comes back exactly everywhere:
    # this fails if two cells number a shared node apart
    geo = tet_mesh(2, amount=0.1, shuffle=True, seed=degree)
    space = fem.make_polynomial_space(geo, degree=degree)
    k = degree
    edges = {tuple(sorted((t[a], t[b]))) for t in geo.tet_vertex_indices.numpy().tolist()
             for a, b in [(0, 1), (1, 2), (2, 0), (0, 3), (1, 3), (2, 3)]}
    assert space.node_count() == 27 + len(edges) * (k - 1) + (geo.side_count() if k == 3 else 0)
    u = space.make_field()
    fem.interpolate(poly_k, dest=u, values={"k": k})
    x = space.node_positions().numpy().astype(np.float64)
    np.testing.assert_allclose(u.dof_values.numpy(), x[:, 0] ** k - 2 * x[:, 1] ** (k - 1) * x[:, 2] + 0.5, atol=1e-5)
    q = fem.RegularQuadrature(fem.Cells(geo), order=2 * k)
    assert float(fem.integrate(poly_k_error, fields={"u": u}, quadrature=q, values={"k": k})) < 1e-10


@pytest.mark.parametrize("degree", [1, 2, 3])
def test_tetmesh_matrices_symmetric_and_nodal_weights(degree):
    geo = tet_mesh(2, amount=0.1, shuffle=True)
    space = fem.make_polynomial_space(geo, degree=degree)
    fields = {"u": fem.make_trial(space), "v": fem.make_test(space)}
    K = to_scipy(fem.integrate(diffusion, fields=fields, values={"nu": 1.0}))
    M = to_scipy(fem.integrate(mass, fields=fields))
    for A in (K, M):
        assert abs(A - A.T).max() < 1e-5 * abs(A).max()
    np.testing.assert_allclose(K @ np.ones(K.shape[0]), 0.0, atol=1e-4)
    assert M.sum() == pytest.approx(1.0, rel=1e-5)
    # warp-lang's nodal rules: positive weights summing to the volume, exact for linear functions
    lumped = to_scipy(fem.integrate(mass, fields=fields, assembly="nodal")).diagonal()
    x = space.node_positions().numpy().astype(np.float64)
    assert (lumped > 0).all() and lumped.sum() == pytest.approx(1.0, rel=1e-5)
    assert lumped @ (x[:, 0] + 2 * x[:, 1] + 3 * x[:, 2]) == pytest.approx(0.5 + 1.0 + 1.5, rel=1e-5)


@fem.integrand
def source3(s: fem.Sample, domain: fem.Domain, v: fem.Field):
    x = fem.position(domain, s)
    k = wp.pi
    return 3.0 * k * k * wp.sin(k * x[0]) * wp.sin(k * x[1]) * wp.sin(k * x[2]) * v(s)


@fem.integrand
def squared_error3(s: fem.Sample, domain: fem.Domain, u: fem.Field):
    x = fem.position(domain, s)
    e = u(s) - wp.sin(wp.pi * x[0]) * wp.sin(wp.pi * x[1]) * wp.sin(wp.pi * x[2])
    return e * e


@fem.integrand
def boundary_projector3(s: fem.Sample, u: fem.Field, v: fem.Field):
    return u(s) * v(s)


def poisson3_l2_error(geo, degree):
    """-lap u = 3 pi^2 sin(pi x) sin(pi y) sin(pi z) on the unit cube, u = 0 on its boundary."""
    import scipy.sparse.linalg as spl
    space = fem.make_polynomial_space(geo, degree=degree)
    boundary = fem.BoundarySides(geo)
    q = fem.RegularQuadrature(fem.Cells(geo), order=2 * degree + 1)
    K = fem.integrate(diffusion, fields={"u": fem.make_trial(space), "v": fem.make_test(space)}, values={"nu": 1.0})
    rhs = fem.integrate(source3, fields={"v": fem.make_test(space)}, quadrature=q)
    P = fem.integrate(boundary_projector3, fields={"u": fem.make_trial(space, domain=boundary),
                                                   "v": fem.make_test(space, domain=boundary)}, assembly="nodal")
    fem.project_linear_system(K, rhs, P, wp.zeros_like(rhs))
    x = spl.spsolve(to_scipy(K).tocsc(), rhs.numpy().astype(np.float64))
    u = space.make_field()
    u.dof_values = wp.array(x.astype(np.float32), dtype=float)
    return math.sqrt(float(fem.integrate(squared_error3, fields={"u": u}, quadrature=q)))


@pytest.mark.parametrize("degree,rate,resolutions", [(1, 2.0, (4, 8)), (2, 3.0, (4, 8)), (3, 4.0, (4, 6))])
def test_tetmesh_poisson_converges_at_the_expected_order(degree, rate, resolutions):
    errors = [poisson3_l2_error(tet_mesh(r, amount=0.05), degree) for r in resolutions]
    rates = [math.log(a / b) / math.log(rb / ra)
             for a, b, ra, rb in zip(errors, errors[1:], resolutions, resolutions[1:])]
    assert rates[-1] == pytest.approx(rate, abs=0.35), (errors, rates)


def test_tetmesh_dg_space_jumps():
    geo = tet_mesh(2, amount=0.1, shuffle=True)
    dg = fem.make_polynomial_space(geo, degree=2, discontinuous=True)
    assert dg.node_count() == geo.cell_count() * 10
    u = dg.make_field()
    fem.interpolate(poly_k, dest=u, values={"k": 2})
    assert float(fem.integrate(jump_squared, domain=fem.Sides(geo), fields={"u": u})) < 1e-10
    per_cell = np.random.default_rng(5).uniform(-1.0, 1.0, geo.cell_count())
    u.dof_values = wp.array(np.repeat(per_cell, 10).astype(np.float32), dtype=float)
    pos = geo.positions.numpy().astype(np.float64)
    fv, owners = geo.face_vertex_indices.numpy(), geo.face_tet_indices.numpy()
    area = 0.5 * np.linalg.norm(np.cross(pos[fv[:, 1]] - pos[fv[:, 0]], pos[fv[:, 2]] - pos[fv[:, 0]]), axis=1)
    ref = ((per_cell[owners[:, 0]] - per_cell[owners[:, 1]]) ** 2 * area).sum()
    jumps = fem.integrate(jump_squared, domain=fem.Sides(geo), fields={"u": u})
    assert float(jumps) == pytest.approx(ref, rel=1e-5)


def test_grid_to_tets_tiles_the_grid_conformingly():
    nx, ny, nz = 3, 2, 4
    tets = fem.utils.grid_to_tets(nx, ny, nz)
    assert tets.shape == (5 * nx * ny * nz, 4)
    lattice = np.stack(np.meshgrid(np.arange(nx + 1), np.arange(ny + 1), np.arange(nz + 1), indexing="ij"),
                       axis=-1).reshape(-1, 3).astype(np.float64)
    p = lattice[tets]
    vol = np.abs(np.linalg.det(np.stack([p[:, k] - p[:, 0] for k in (1, 2, 3)], axis=2))) / 6
    assert vol.sum() == pytest.approx(nx * ny * nz) and (vol > 0).all()
    faces = {}
    for t in tets.tolist():
        for k in range(4):
            faces[tuple(sorted(t[:k] + t[k + 1:]))] = faces.get(tuple(sorted(t[:k] + t[k + 1:])), 0) + 1
    assert max(faces.values()) == 2                     # no face shared by three tets
    # conforming: the faces seen once are the boundary's, two triangles per boundary square
    assert sum(c == 1 for c in faces.values()) == 4 * (nx * ny + ny * nz + nx * nz)
