"""fem.Hexmesh and its Q1-Q3 spaces: volumes, face areas and normals against NumPy Gauss
quadrature of the trilinear map, faces and edges against brute-force counts, warp-lang's
stored face vertex order, exact polynomial integrals, node numberings that agree between
neighbouring cells whatever the order each cell lists its vertices in, symmetric matrices,
DG jumps, and the L2 convergence order of a Poisson solve per degree."""

import itertools
import math

import numpy as np
import pytest

import warp_interactive as wp
import warp_interactive.fem as fem

from test_fem_assembly import diffusion, mass, to_scipy
from test_fem_meshes import (_distort3, cell_measure, jump_squared, monomial3, poly_k, side_geometry3, source3,
                             squared_error3)

CORNERS = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1)]
HEX_FACES = [(0, 4, 7, 3), (1, 2, 6, 5), (0, 1, 5, 4), (3, 7, 6, 2), (0, 3, 2, 1), (4, 5, 6, 7)]


def cube_symmetries():
    """The 48 relabellings of a hex's vertices by a symmetry of the cube (rotations and mirrors)."""
    out = []
    for perm in itertools.permutations(range(3)):
        for flips in itertools.product([0, 1], repeat=3):
            out.append([CORNERS.index(tuple(c[perm[a]] ^ flips[a] for a in range(3))) for c in CORNERS])
    return out


def hex_mesh(res, amount=0.0, shuffle=False, seed=0):
    """A ``res^3`` hex mesh of the unit cube, smoothly distorted; with ``shuffle`` each hex lists
    its vertices after a random symmetry of the cube (every face/edge orientation case)."""
    x = np.linspace(0.0, 1.0, res + 1)
    pos = np.stack(np.meshgrid(x, x, x, indexing="ij"), axis=-1).reshape(-1, 3)
    hexes = fem.utils.grid_to_hexes(res, res, res)
    if shuffle:
        rng = np.random.default_rng(seed)
        sym = cube_symmetries()
        hexes = np.stack([h[sym[rng.integers(len(sym))]] for h in hexes])
    return fem.Hexmesh(wp.array(hexes, dtype=int), wp.array(_distort3(pos, amount).astype(np.float32), dtype=wp.vec3))


def _gauss(n):
    x, w = np.polynomial.legendre.leggauss(n)
    return 0.5 * (x + 1.0), 0.5 * w


def _trilinear_jacobians(p, c):
    """d position / d coords of hexes ``p`` (cells, 8, 3) at reference points ``c`` (q, 3)."""
    corners = np.asarray(CORNERS, dtype=np.float64)
    w = np.where(corners[None] == 1, c[:, None], 1.0 - c[:, None])                  # (q, 8, 3)
    sign = np.where(corners == 1, 1.0, -1.0)                                         # (8, 3)
    grads = np.stack([sign[None, :, a] * np.prod(np.delete(w, a, axis=2), axis=2) for a in range(3)], axis=2)
    return np.einsum("cvd,qva->cqda", p, grads)


def test_hexmesh_volumes_faces_and_normals_against_numpy():
    geo = hex_mesh(3, amount=0.12, shuffle=True, seed=3)
    pos = geo.positions.numpy().astype(np.float64)
    hexes = geo.hex_vertex_indices.numpy()
    faces, edges = {}, set()
    for c, h in enumerate(hexes.tolist()):
        for f in HEX_FACES:
            faces.setdefault(tuple(sorted(h[k] for k in f)), []).append(c)
        for a, b in itertools.combinations(range(8), 2):
            if sum(x != y for x, y in zip(CORNERS[a], CORNERS[b])) == 1:
                edges.add(tuple(sorted((h[a], h[b]))))
    assert geo.side_count() == len(faces) == 3 * 3 * 3 * 4
    assert geo.boundary_side_count() == sum(len(c) == 1 for c in faces.values()) == 6 * 9
    assert geo.edge_count() == len(edges) == 3 * 3 * 4 * 4
    x, w = _gauss(3)
    c = np.stack(np.meshgrid(x, x, x, indexing="ij"), axis=-1).reshape(-1, 3)
    wq = np.einsum("i,j,k->ijk", w, w, w).reshape(-1)
    ref_vol = np.abs(np.linalg.det(_trilinear_jacobians(pos[hexes], c))) @ wq
    vols = wp.zeros(geo.cell_count(), dtype=float)
    fem.interpolate(cell_measure, at=fem.RegularQuadrature(fem.Cells(geo), order=5), values={"out": vols})
    np.testing.assert_allclose(vols.numpy(), ref_vol, rtol=1e-4)
    assert vols.numpy().sum() == pytest.approx(1.0, rel=1e-5)
    n = geo.side_count()
    area, normal, mid = wp.zeros(n, dtype=float), wp.zeros(n, dtype=wp.vec3), wp.zeros(n, dtype=wp.vec3)
    fem.interpolate(side_geometry3, at=fem.RegularQuadrature(fem.Sides(geo), order=5),
                    values={"area": area, "normal": normal, "mid": mid})
    fv, owners = geo.face_vertex_indices.numpy(), geo.face_hex_indices.numpy()
    # warp-lang's stored order: smallest vertex first, second smaller than fourth unless flipped outward
    assert (fv[:, 0] == fv.min(axis=1)).all()
    # bilinear face area by Gauss quadrature of |d_u x d_v|
    u, v = np.meshgrid(x, x, indexing="ij")
    u, v, w2 = u.ravel(), v.ravel(), np.outer(w, w).ravel()
    p = pos[fv]
    du = (1 - v)[None, :, None] * (p[:, None, 1] - p[:, None, 0]) + v[None, :, None] * (p[:, None, 2] - p[:, None, 3])
    dv = (1 - u)[None, :, None] * (p[:, None, 3] - p[:, None, 0]) + u[None, :, None] * (p[:, None, 2] - p[:, None, 1])
    np.testing.assert_allclose(area.numpy(), np.linalg.norm(np.cross(du, dv), axis=2) @ w2, rtol=1e-4)
    centroid = pos[hexes].mean(axis=1)
    for f in range(n):
        holders = faces[tuple(sorted(fv[f]))]
        assert tuple(owners[f]) == (min(holders), max(holders))
        assert np.dot(normal.numpy()[f], mid.numpy()[f] - centroid[owners[f, 0]]) > 0.0


@pytest.mark.parametrize("a,b,c", [(0, 0, 0), (2, 1, 0), (1, 2, 3)])
def test_hexmesh_integrals_of_polynomials_are_exact(a, b, c):
    geo = hex_mesh(2, shuffle=True)
    q = fem.RegularQuadrature(fem.Cells(geo), order=3)     # exact for degree 3 per axis
    value = fem.integrate(monomial3, quadrature=q, values={"a": a, "b": b, "c": c})
    assert float(value) == pytest.approx(1.0 / ((a + 1) * (b + 1) * (c + 1)), rel=2e-5)


@pytest.mark.parametrize("degree", [1, 2, 3])
def test_hexmesh_spaces_hold_their_polynomials(degree):
    # x^k - 2 y^(k-1) z + 1/2 lies in Q_k: interpolated at the nodes it comes back exactly
    # everywhere, which fails if two cells number a shared edge or face node apart
    geo = hex_mesh(2, shuffle=True, seed=degree)
    space = fem.make_polynomial_space(geo, degree=degree)
    e = degree - 1
    assert space.node_count() == 27 + 54 * e + 36 * e * e + 8 * e ** 3 == (2 * degree + 1) ** 3
    u = space.make_field()
    fem.interpolate(poly_k, dest=u, values={"k": degree})
    x = space.node_positions().numpy().astype(np.float64)
    k = degree
    np.testing.assert_allclose(u.dof_values.numpy(), x[:, 0] ** k - 2 * x[:, 1] ** (k - 1) * x[:, 2] + 0.5, atol=1e-5)
    # each cell's nodes, by the device numbering, sit where that cell's trilinear map puts them
    from warp_interactive.fem.space.hex_space import _cell_node_indices
    index = _cell_node_indices(space)
    gll = np.polynomial.legendre.Legendre.basis(k).deriv().roots() if k > 1 else np.zeros(0)
    nodes = np.concatenate([[0.0], 0.5 * (gll + 1.0), [1.0]])           # Gauss-Lobatto points on [0, 1]
    lattice = np.stack(np.meshgrid(*[nodes] * 3, indexing="ij"), -1).reshape(-1, 3)
    corners = np.asarray(CORNERS, dtype=np.float64)
    w = np.prod(np.where(corners[None] == 1, lattice[:, None], 1.0 - lattice[:, None]), axis=2)
    pos = geo.positions.numpy().astype(np.float64)[geo.hex_vertex_indices.numpy()]
    np.testing.assert_allclose(x[index], np.einsum("nv,cvd->cnd", w, pos), atol=1e-6)
    assert sorted(set(index.reshape(-1).tolist())) == list(range(space.node_count()))


def test_hexmesh_mass_matrix_and_nodal_weights():
    geo = hex_mesh(2, amount=0.1, shuffle=True)
    space = fem.make_polynomial_space(geo, degree=2)
    fields = {"u": fem.make_trial(space), "v": fem.make_test(space)}
    M = to_scipy(fem.integrate(mass, fields=fields))
    assert abs(M - M.T).max() < 1e-5 * abs(M).max()
    assert M.sum() == pytest.approx(1.0, rel=1e-5)
    lumped = to_scipy(fem.integrate(mass, fields=fields, assembly="nodal")).diagonal()
    assert (lumped > 0).all() and lumped.sum() == pytest.approx(1.0, rel=1e-4)


def poisson_on_cube(geo, degree):
    """The Poisson solve of ``poisson3_l2_error`` with its Dirichlet nodes (on the unit cube's
    faces) eliminated in SciPy, after checking the stiffness matrix: symmetric, constants in
    its kernel."""
    import scipy.sparse.linalg as spl
    space = fem.make_polynomial_space(geo, degree=degree)
    q = fem.RegularQuadrature(fem.Cells(geo), order=2 * degree + 1)
    K = to_scipy(fem.integrate(diffusion, fields={"u": fem.make_trial(space), "v": fem.make_test(space)},
                               values={"nu": 1.0}))
    assert abs(K - K.T).max() < 1e-5 * abs(K).max()
    np.testing.assert_allclose(K @ np.ones(K.shape[0]), 0.0, atol=1e-4)
    rhs = fem.integrate(source3, fields={"v": fem.make_test(space)}, quadrature=q).numpy().astype(np.float64)
    x = space.node_positions().numpy().astype(np.float64)
    free = ~np.any((np.abs(x) < 1e-6) | (np.abs(x - 1.0) < 1e-6), axis=1)
    u_free = spl.spsolve(K[free][:, free].tocsc(), rhs[free])
    values = np.zeros(len(x))
    values[free] = u_free
    u = space.make_field()
    u.dof_values = wp.array(values.astype(np.float32), dtype=float)
    return math.sqrt(float(fem.integrate(squared_error3, fields={"u": u}, quadrature=q)))


def test_hexmesh_dg_space_jumps():
    geo = hex_mesh(2, amount=0.1, shuffle=True)
    dg = fem.make_polynomial_space(geo, degree=2, discontinuous=True)
    assert dg.node_count() == geo.cell_count() * 27
    u = dg.make_field()
    fem.interpolate(poly_k, dest=u, values={"k": 1})        # x - 2z + 1/2: continuous, no jumps
    assert float(fem.integrate(jump_squared, domain=fem.Sides(geo), fields={"u": u})) < 1e-10
    per_cell = np.random.default_rng(5).uniform(-1.0, 1.0, geo.cell_count())
    u.dof_values = wp.array(np.repeat(per_cell, 27).astype(np.float32), dtype=float)
    area = wp.zeros(geo.side_count(), dtype=float)
    z = wp.zeros(geo.side_count(), dtype=wp.vec3)
    fem.interpolate(side_geometry3, at=fem.RegularQuadrature(fem.Sides(geo), order=5),
                    values={"area": area, "normal": z, "mid": wp.zeros_like(z)})
    owners = geo.face_hex_indices.numpy()
    ref = ((per_cell[owners[:, 0]] - per_cell[owners[:, 1]]) ** 2 * area.numpy()).sum()
    jumps = fem.integrate(jump_squared, domain=fem.Sides(geo), fields={"u": u})
    assert float(jumps) == pytest.approx(ref, rel=1e-5)


@pytest.mark.parametrize("mesh,vec,count", [("Trimesh2D", wp.vec2, 3), ("Quadmesh2D", wp.vec2, 4),
                                             ("Tetmesh", wp.vec3, 4), ("Hexmesh", wp.vec3, 8)])
@pytest.mark.parametrize("bad", [-1, "count", (1 << 31) - 2])
def test_meshes_name_the_first_out_of_range_vertex(mesh, vec, count, bad):
    bad = count if bad == "count" else bad
    cells = list(range(count))
    cells[1] = bad
    cells[count - 1] = -5                      # a later bad index: not the one reported
    with pytest.raises(ValueError, match=rf"fem.{mesh}: Vertex index {bad} at flattened array index 1 "
                                         rf"is out of bounds; expected a value in \[0, {count}\)"):
        getattr(fem, mesh)(wp.array([cells], dtype=int), wp.zeros(count, dtype=vec))
