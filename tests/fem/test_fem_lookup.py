"""Point queries on meshes (``fem.lookup``, ``fem.element_closest_point``,
``fem.element_coordinates``, ``build_bvh``) against brute force in NumPy/SciPy: the closest
point of every cell to random points inside the mesh, on its cells' edges and faces, and
outside it (exact for triangles and tets by a non-negative least-squares solve, by bounded
minimisation for the bilinear/trilinear cells of distorted quad and hex meshes)."""

import numpy as np
import pytest
from scipy.optimize import minimize, nnls

import warp_interactive as wp
import warp_interactive.fem as fem

from tests.fem.test_fem_meshes import _distort, _distort3

CORNERS2 = np.array([(0, 0), (1, 0), (1, 1), (0, 1)], dtype=np.float64)
CORNERS3 = np.array([(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1)],
                    dtype=np.float64)


# --- the meshes and their maps from element coordinates, in NumPy --------------------------------

def _grid(res, dim):
    x = np.linspace(0.0, 1.0, res + 1)
    return np.stack(np.meshgrid(*([x] * dim), indexing="ij"), axis=-1).reshape(-1, dim)


def make_mesh(kind, res=3):
    """(geometry without BVH, cells (n x v), vertex positions) of a mesh of the unit square/cube,
    the quad and hex ones smoothly distorted (their cells are truly bilinear/trilinear)."""
    if kind == "tri":
        pos, cells = _grid(res, 2), fem.utils.grid_to_tris(res, res)
    elif kind == "quad":
        pos, cells = _distort(_grid(res, 2), 0.25), fem.utils.grid_to_quads(res, res)
    elif kind == "tet":
        pos, cells = _grid(res - 1, 3), fem.utils.grid_to_tets(res - 1, res - 1, res - 1)
    else:
        pos, cells = _distort3(_grid(res - 1, 3), 0.2), fem.utils.grid_to_hexes(res - 1, res - 1, res - 1)
    pos = pos.astype(np.float32)
    vec = wp.vec2 if pos.shape[1] == 2 else wp.vec3
    ctor = {"tri": fem.Trimesh2D, "quad": fem.Quadmesh2D, "tet": fem.Tetmesh, "hex": fem.Hexmesh}[kind]
    geo = ctor(wp.array(cells, dtype=int), wp.array(pos, dtype=vec))
    return geo, cells, pos.astype(np.float64)


def _multilinear(corners, c):
    d = corners.shape[1]
    return np.prod(np.where(corners == 1, c[:d], 1.0 - c[:d]), axis=1)


def position(kind, verts, coords):
    """World position of element coordinates ``coords`` (our convention) in a cell of vertices ``verts``."""
    if kind == "tri":
        return coords[:3] @ verts
    if kind == "tet":
        return verts[0] + (verts[1:] - verts[0]).T @ coords[:3]
    return _multilinear(CORNERS2 if kind == "quad" else CORNERS3, coords) @ verts


def closest_in_cell(kind, verts, p):
    """(squared distance, element coordinates) of the point of the cell closest to ``p``."""
    if kind in ("tri", "tet"):
        v0 = verts[0]
        F = (verts[1:] - v0).T
        d = F.shape[1]
        w = 1.0e4        # the row enforcing sum(params) + slack = 1
        A = np.vstack([np.hstack([F, np.zeros((F.shape[0], 1))]), w * np.ones((1, d + 1))])
        x, _ = nnls(A, np.concatenate([p - v0, [w]]))
        params = x[:d] / max(1.0, x.sum())
        coords = np.concatenate([[1.0 - params.sum()], params]) if kind == "tri" else params
        return float(np.sum((position(kind, verts, coords) - p) ** 2)), coords
    d = verts.shape[1]
    samples = np.stack(np.meshgrid(*([np.linspace(0, 1, 9)] * d), indexing="ij"), axis=-1).reshape(-1, d)
    dist = [np.sum((position(kind, verts, c) - p) ** 2) for c in samples]
    res = minimize(lambda c: np.sum((position(kind, verts, c) - p) ** 2), samples[int(np.argmin(dist))],
                   bounds=[(0.0, 1.0)] * d, method="L-BFGS-B", options={"ftol": 1e-15, "gtol": 1e-12})
    return float(res.fun), res.x


def sample_points(kind, cells, pos, rng):
    """(points, the cell each inside point was drawn in or -1): inside cells, on their edges,
    at vertices, and outside (around) the mesh."""
    d = pos.shape[1]
    pts, home = [], []
    for cell in rng.integers(len(cells), size=24):
        if kind in ("tri", "tet"):
            b = rng.dirichlet(np.ones(d + 1)) * 0.9 + 0.1 / (d + 1)
            c = b if kind == "tri" else b[1:]
        else:
            c = rng.uniform(0.1, 0.9, d)
        pts.append(position(kind, pos[cells[cell]], c))
        home.append(cell)
    for cell in rng.integers(len(cells), size=12):          # on a segment between two vertices of a cell
        a, b = rng.choice(cells.shape[1], 2, replace=False)
        t = rng.uniform()
        pts.append((1 - t) * pos[cells[cell, a]] + t * pos[cells[cell, b]])
        home.append(-1)
    pts.extend(pos[rng.choice(len(pos), 6, replace=False)])
    home.extend([-1] * 6)
    pts.extend(rng.uniform(-0.4, 1.4, (30, d)))
    home.extend([-1] * 30)
    return np.array(pts, dtype=np.float32), np.array(home)


# --- the integrands: every query per point, once per launch -------------------------------------

@fem.integrand(kernel_options={"enable_backward": False})
def queries2(s: fem.Sample, domain: fem.Domain, pts: wp.array(dtype=wp.vec2), home: wp.array(dtype=int),
             cell_filter: wp.array(dtype=int), cells: wp.array2d(dtype=int), coords: wp.array2d(dtype=wp.vec3),
             d2: wp.array(dtype=float)):
    if s.element_index == 0:
        for i in range(pts.shape[0]):
            p = pts[i]
            r = fem.lookup(domain, p)
            g = fem.lookup(domain, p, s)
            f = fem.lookup(domain, p, 1.0, cell_filter, 1)
            cells[i, 0] = r.element_index
            cells[i, 1] = g.element_index
            cells[i, 2] = f.element_index
            coords[i, 0] = r.element_coords
            coords[i, 1] = g.element_coords
            coords[i, 2] = f.element_coords
            if r.element_index >= 0:
                c, dist = fem.element_closest_point(domain, r.element_index, p)
                coords[i, 3] = c
                d2[i] = dist
            coords[i, 4] = fem.element_coordinates(domain, wp.max(home[i], 0), p)


@fem.integrand(kernel_options={"enable_backward": False})
def queries3(s: fem.Sample, domain: fem.Domain, pts: wp.array(dtype=wp.vec3), home: wp.array(dtype=int),
             cell_filter: wp.array(dtype=int), cells: wp.array2d(dtype=int), coords: wp.array2d(dtype=wp.vec3),
             d2: wp.array(dtype=float)):
    if s.element_index == 0:
        for i in range(pts.shape[0]):
            p = pts[i]
            r = fem.lookup(domain, p)
            g = fem.lookup(domain, p, s)
            f = fem.lookup(domain, p, 1.0, cell_filter, 1)
            cells[i, 0] = r.element_index
            cells[i, 1] = g.element_index
            cells[i, 2] = f.element_index
            coords[i, 0] = r.element_coords
            coords[i, 1] = g.element_coords
            coords[i, 2] = f.element_coords
            if r.element_index >= 0:
                c, dist = fem.element_closest_point(domain, r.element_index, p)
                coords[i, 3] = c
                d2[i] = dist
            coords[i, 4] = fem.element_coordinates(domain, wp.max(home[i], 0), p)


def run_queries(geo, pts, home, cell_filter):
    n = len(pts)
    vec = wp.vec2 if pts.shape[1] == 2 else wp.vec3
    out = {"cells": wp.zeros((n, 3), dtype=int), "coords": wp.zeros((n, 5), dtype=wp.vec3),
           "d2": wp.zeros(n, dtype=float)}
    fem.interpolate(queries2 if pts.shape[1] == 2 else queries3, at=fem.RegularQuadrature(fem.Cells(geo), order=0),
                    values={"pts": wp.array(pts, dtype=vec), "home": wp.array(home.astype(np.int32), dtype=int),
                            "cell_filter": wp.array(cell_filter, dtype=int), **out})
    return {k: v.numpy() for k, v in out.items()}


KINDS = ["tri", "quad", "tet", "hex"]


@pytest.fixture(scope="module", params=KINDS)
def case(request):
    kind = request.param
    geo, cells, pos = make_mesh(kind)
    geo.build_bvh()
    rng = np.random.default_rng(KINDS.index(kind))
    pts, home = sample_points(kind, cells, pos, rng)
    cell_filter = (np.arange(len(cells)) % 3 == 1).astype(np.int32)
    ref = [[closest_in_cell(kind, pos[c], p.astype(np.float64)) for c in cells] for p in pts]
    ref_d2 = np.array([[r[0] for r in row] for row in ref])
    return kind, geo, cells, pos, pts, home, cell_filter, ref_d2, run_queries(geo, pts, home, cell_filter)


def _sample_d2(kind, cells, pos, pts, cell_index, coords):
    return np.array([np.sum((position(kind, pos[cells[c]], x.astype(np.float64)) - p) ** 2)
                     for c, x, p in zip(cell_index, coords, pts.astype(np.float64))])


def test_lookup_finds_the_closest_cell(case):
    kind, geo, cells, pos, pts, home, _f, ref_d2, out = case
    best = ref_d2.min(axis=1)
    for col in (0, 1):         # without and with a guess sample
        got = out["cells"][:, col]
        assert np.all(got >= 0)
        # the returned sample's own distance, and the true distance to the returned cell, are the minimum
        d2_sample = _sample_d2(kind, cells, pos, pts, got, out["coords"][:, col])
        np.testing.assert_allclose(np.sqrt(d2_sample), np.sqrt(best), atol=2e-4)
        np.testing.assert_allclose(np.sqrt(ref_d2[np.arange(len(pts)), got]), np.sqrt(best), atol=2e-4)
    inside = home >= 0
    np.testing.assert_array_equal(out["cells"][inside, 0], home[inside])
    np.testing.assert_allclose(out["d2"], _sample_d2(kind, cells, pos, pts, out["cells"][:, 0], out["coords"][:, 3]),
                               atol=1e-6)
    np.testing.assert_allclose(np.sqrt(out["d2"]), np.sqrt(best), atol=2e-4)


def test_filtered_lookup_keeps_to_the_filtered_cells(case):
    kind, geo, cells, pos, pts, home, cell_filter, ref_d2, out = case
    got = out["cells"][:, 2]
    assert np.all(cell_filter[got] == 1)
    best = ref_d2[:, cell_filter == 1].min(axis=1)
    d2_sample = _sample_d2(kind, cells, pos, pts, got, out["coords"][:, 2])
    np.testing.assert_allclose(np.sqrt(d2_sample), np.sqrt(best), atol=2e-4)


def test_element_coordinates_reproduce_the_position(case):
    kind, geo, cells, pos, pts, home, _f, _d, out = case
    # inside the cell (any kind), and extrapolated outside (linear cells: one Newton step is exact)
    rows = np.arange(len(pts)) if kind in ("tri", "tet") else np.nonzero(home >= 0)[0]
    cell = np.maximum(home, 0)[rows]
    d2 = _sample_d2(kind, cells, pos, pts[rows], cell, out["coords"][rows, 4])
    np.testing.assert_allclose(np.sqrt(d2), 0.0, atol=5e-6 * max(1.0, np.abs(pts).max()))


@pytest.mark.parametrize("kind", ["tri", "hex"])
def test_lookup_without_bvh_returns_the_null_element(kind):
    geo, cells, pos = make_mesh(kind, res=2)
    pts = pos[:3].astype(np.float32) + 0.01
    out = run_queries(geo, pts, np.zeros(3, dtype=int), np.ones(len(cells), dtype=np.int32))
    np.testing.assert_array_equal(out["cells"], fem.NULL_ELEMENT_INDEX)
    np.testing.assert_array_equal(out["coords"][:, 0], fem.OUTSIDE)


def test_update_bvh_follows_moved_positions():
    geo, cells, pos = make_mesh("tri", res=2)
    geo.build_bvh()
    moved = pos + np.array([3.0, 0.0])
    geo.positions.assign(moved.astype(np.float32))
    pts = np.array([[3.2, 0.3], [3.9, 0.95]], dtype=np.float32)
    geo.update_bvh()
    out = run_queries(geo, pts, np.zeros(2, dtype=int), np.ones(len(cells), dtype=np.int32))
    want = [int(np.argmin([closest_in_cell("tri", moved[c], p.astype(np.float64))[0] for c in cells])) for p in pts]
    np.testing.assert_array_equal(out["cells"][:, 0], want)
    assert geo.supports_cell_lookup(None)


@pytest.mark.parametrize("kind", ["tri", "tet"])
def test_simplex_lookup_at_a_vertex_is_exact(kind):
    """A point on a vertex gets exactly that vertex's unit coordinates (so a field looked up at
    a node reads that node's value bit for bit), whichever cell around it is returned."""
    geo, cells, pos = make_mesh(kind, res=3)
    geo.build_bvh()
    pts = pos.astype(np.float32)
    out = run_queries(geo, pts, np.zeros(len(pts), dtype=int), np.ones(len(cells), dtype=np.int32))
    c = out["coords"][:, 0]
    for i, cell in enumerate(out["cells"][:, 0]):
        assert i in cells[cell]
        k = list(cells[cell]).index(i)
        want = np.eye(3 if kind == "tri" else 4)[k]
        want = want if kind == "tri" else want[1:]
        np.testing.assert_array_equal(c[i], want)
    np.testing.assert_array_equal(out["d2"], 0.0)


@fem.integrand
def rigid_map(s: fem.Sample, domain: fem.Domain, rot: wp.mat22, shift: wp.vec2):
    return rot * domain(s) + shift


def test_lookup_on_a_deformed_geometry():
    """A triangle mesh moved rigidly (rotated, scaled, shifted) by a quadratic position field:
    lookups find what brute force finds on the undeformed mesh for the points moved back."""
    geo, cells, pos = make_mesh("tri", res=3)
    angle, scale, shift = 0.7, 2.0, np.array([1.0, -0.5])
    rot = scale * np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    field = fem.make_polynomial_space(geo, degree=2, dtype=wp.vec2).make_field()
    fem.interpolate(rigid_map, dest=field, values={"rot": wp.mat22(*rot.ravel()), "shift": wp.vec2(*shift)})
    deformed = fem.geometry.DeformedGeometry(field, relative=False)
    assert not deformed.supports_cell_lookup(None)
    deformed.build_bvh()
    assert deformed.supports_cell_lookup(None)

    rng = np.random.default_rng(7)
    base_pts, home = sample_points("tri", cells, pos, rng)
    pts = (base_pts.astype(np.float64) @ rot.T + shift).astype(np.float32)
    out = run_queries(deformed, pts, home, np.ones(len(cells), dtype=np.int32))
    back = (pts.astype(np.float64) - shift) @ np.linalg.inv(rot).T
    best = np.array([min(closest_in_cell("tri", pos[c], p)[0] for c in cells) for p in back])
    got = out["cells"][:, 0]
    # distances in the deformed mesh are those of the undeformed one times the scale
    d2 = np.array([np.sum((position("tri", pos[cells[c]], x.astype(np.float64)) - p) ** 2)
                   for c, x, p in zip(got, out["coords"][:, 0], back)])
    np.testing.assert_allclose(scale * np.sqrt(d2), scale * np.sqrt(best), atol=5e-4)
    inside = home >= 0
    np.testing.assert_array_equal(got[inside], home[inside])
