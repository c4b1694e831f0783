"""warp.geometry's marching cubes (dense and sparse), against independent references: the
analytic sphere (area, volume, radius), a NumPy edge-interpolation reference for every vertex,
watertightness and Euler characteristics from the faces, and the dense extractor for the sparse
one. Fields are built with NumPy so that these tests add no kernels of their own."""

import numpy as np
import pytest

import warp_interactive as wp
from warp_interactive.geometry import mc_tables

MC = wp.geometry.IsoSurfaceMarchingCubes


def sphere_field(n, radius, center=None, lower=-1.0, upper=1.0):
    """Signed distance to a sphere, sampled at n^3 nodes spanning [lower, upper]^3."""
    x = np.linspace(lower, upper, n)
    X, Y, Z = np.meshgrid(x, x, x, indexing="ij")
    c = (0.03, -0.02, 0.01) if center is None else center
    return (np.sqrt((X - c[0]) ** 2 + (Y - c[1]) ** 2 + (Z - c[2]) ** 2) - radius).astype(np.float32)


def torus_field(n, major=0.5, minor=0.2):
    x = np.linspace(-1.0, 1.0, n)
    X, Y, Z = np.meshgrid(x, x, x, indexing="ij")
    q = np.sqrt(X**2 + Z**2) - major
    return (np.sqrt(q**2 + Y**2) - minor).astype(np.float32)


def reference_vertices(f, threshold, lower, delta):
    """Every crossed grid edge's linearly interpolated point, in (i, j, k, axis) order."""
    nx, ny, nz = f.shape
    out = np.full((nx, ny, nz, 3, 3), np.nan)
    for axis in range(3):
        lo = [slice(0, n - (d == axis)) for d, n in enumerate(f.shape)]
        hi = [slice(d == axis, n) for d, n in enumerate(f.shape)]
        v0, v1 = f[tuple(lo)].astype(np.float64), f[tuple(hi)].astype(np.float64)
        crossed = (v0 >= threshold) != (v1 >= threshold)
        t = np.clip((threshold - v0) / np.where(crossed, v1 - v0, 1.0), 0.0, 1.0)
        idx = np.stack(np.meshgrid(*[np.arange(s) for s in v0.shape], indexing="ij"), -1).astype(np.float64)
        idx[..., axis] += t
        pos = np.asarray(lower) + idx * np.asarray(delta)
        out[tuple(lo) + (axis,)] = np.where(crossed[..., None], pos, np.nan)
    flat = out.reshape(-1, 3)
    return flat[~np.isnan(flat[:, 0])]


def edge_stats(faces):
    """(edges, boundary edges, non-manifold edges) of a triangle list."""
    edges = np.sort(np.concatenate([faces[:, [0, 1]], faces[:, [1, 2]], faces[:, [2, 0]]]), axis=1)
    _, counts = np.unique(edges, axis=0, return_counts=True)
    return len(counts), int((counts == 1).sum()), int((counts > 2).sum())


def area_and_volume(verts, faces):
    p0, p1, p2 = (verts[faces[:, k]].astype(np.float64) for k in range(3))
    area = 0.5 * np.linalg.norm(np.cross(p1 - p0, p2 - p0), axis=1).sum()
    volume = np.einsum("ij,ij->i", p0, np.cross(p1, p2)).sum() / 6.0
    return area, volume


def extract(f, device, threshold=0.0, lower=(-1.0, -1.0, -1.0), upper=(1.0, 1.0, 1.0)):
    verts, indices = MC.extract(wp.array(f, device=device), threshold, lower=lower, upper=upper)
    assert indices.dtype == wp.int32 and verts.dtype == wp.vec3
    return verts.numpy(), indices.numpy().reshape(-1, 3)


@pytest.mark.parametrize("n", [17, 33, 65])
def test_sphere_converges_to_the_analytic_sphere(device, n):
    radius = 0.6
    verts, faces = extract(sphere_field(n, radius), device)
    h = 2.0 / (n - 1)
    area, volume = area_and_volume(verts, faces)
    # second order in the cell size: the tolerances shrink with h^2
    assert abs(area - 4 * np.pi * radius**2) < 4.0 * h**2
    assert abs(volume - 4 / 3 * np.pi * radius**3) < 4.0 * h**2
    # positive volume: the triangles face the above-threshold side (outwards for an SDF)
    assert volume > 0
    r = np.linalg.norm(verts - np.array([0.03, -0.02, 0.01]), axis=1)
    assert np.abs(r - radius).max() < 0.1 * h
    # the vertex count is the number of crossed grid edges, which grows like the area / h^2
    assert len(verts) == len(reference_vertices(sphere_field(n, radius), 0.0, (-1, -1, -1), (h, h, h)))


@pytest.mark.parametrize("threshold", [0.0, 0.15, -0.2])
def test_every_vertex_is_the_interpolated_edge_crossing(device, threshold):
    f = sphere_field(21, 0.5)
    h = 2.0 / 20
    verts, faces = extract(f, device, threshold)
    ref = reference_vertices(f, threshold, (-1.0, -1.0, -1.0), (h, h, h))
    np.testing.assert_allclose(verts, ref, atol=2e-6)
    assert np.array_equal(np.unique(faces), np.arange(len(verts)))  # every vertex used


@pytest.mark.parametrize("name, field, euler", [("sphere", sphere_field(33, 0.5), 2), ("torus", torus_field(33), 0)])
def test_closed_surfaces_are_watertight_and_keep_their_genus(device, name, field, euler):
    verts, faces = extract(field, device)
    n_edges, boundary, nonmanifold = edge_stats(faces)
    assert boundary == 0 and nonmanifold == 0
    assert len(verts) - n_edges + len(faces) == euler
    assert (faces[:, 0] != faces[:, 1]).all() and (faces[:, 1] != faces[:, 2]).all()


@pytest.mark.parametrize("seed", range(4))
def test_random_sign_fields_give_closed_manifold_surfaces(seed):
    """Random +-1 nodes make every ambiguous face and cell configuration appear; a field that is
    positive on the border encloses all of them, so any crack between cells shows as a boundary
    edge (and a bad table entry as a non-manifold edge)."""
    rng = np.random.default_rng(seed)
    f = np.ones((12, 12, 12), dtype=np.float32)
    f[1:-1, 1:-1, 1:-1] = rng.choice([-1.0, 1.0], size=(10, 10, 10)) * rng.uniform(0.5, 1.5, (10, 10, 10))
    verts, faces = extract(f, "cpu", lower=(0, 0, 0), upper=(11, 11, 11))
    _, boundary, nonmanifold = edge_stats(faces)
    assert boundary == 0 and nonmanifold == 0
    for case in range(256):
        tri = mc_tables.TRI_LOCAL_INDICES[mc_tables.CASE_TO_TRI_RANGE[case]:mc_tables.CASE_TO_TRI_RANGE[case + 1]]
        crossed = {e for e, (a, b) in enumerate(mc_tables.EDGE_TO_CORNERS) if ((case >> a) ^ (case >> b)) & 1}
        assert set(tri) == crossed


def test_tables_have_the_reference_layout():
    assert len(MC.CASE_TO_TRI_RANGE) == 257 and len(MC.TRI_LOCAL_INDICES) == 2460
    assert MC.CUBE_CORNER_OFFSETS[1] == (1, 0, 0) and MC.EDGE_TO_CORNERS[0] == (0, 1)
    # each single-corner case is one triangle around that corner's three edges
    for corner in range(8):
        start, end = MC.CASE_TO_TRI_RANGE[1 << corner], MC.CASE_TO_TRI_RANGE[(1 << corner) + 1]
        edges = {e for e, ends in enumerate(MC.EDGE_TO_CORNERS) if corner in ends}
        assert set(MC.TRI_LOCAL_INDICES[start:end]) == edges


def _face_sides(case):
    """The segments the surface must cut into each cube face, from the face's own four signs:
    a face with one corner (or three) above cuts that corner off, two adjacent corners give one
    segment across, and two diagonal corners above are cut off each on its own. Pairs of cube
    edges, unordered."""
    out = set()
    for face in ((0, 3, 2, 1), (4, 5, 6, 7), (0, 1, 5, 4), (3, 7, 6, 2), (0, 4, 7, 3), (1, 2, 6, 5)):
        above = [(case >> c) & 1 for c in face]
        edge = [next(e for e, ends in enumerate(mc_tables.EDGE_TO_CORNERS) if set(ends) == {face[k], face[(k + 1) % 4]})
                for k in range(4)]
        crossed = [edge[k] for k in range(4) if above[k] != above[(k + 1) % 4]]
        if len(crossed) == 2:
            out.add(frozenset(crossed))
        elif len(crossed) == 4:
            out |= {frozenset((edge[k - 1], edge[k])) for k in range(4) if above[k]}
    return out


def _case_triangles(case):
    r = mc_tables.CASE_TO_TRI_RANGE
    flat = mc_tables.TRI_LOCAL_INDICES[r[case]:r[case + 1]]
    return [flat[k:k + 3] for k in range(0, len(flat), 3)]


def test_every_case_is_a_consistent_manifold_patch():
    """Per case: the triangles' sides that no other triangle of the cell shares are exactly the
    segments the face rule cuts into the cube's faces (so neighbouring cells meet without cracks),
    every other side is shared by two triangles wound opposite ways, and no such inner diagonal
    lies on a cube face (the cell across would repeat it: four triangles on one edge)."""
    for case in range(256):
        sides = [(t[k], t[(k + 1) % 3]) for t in _case_triangles(case) for k in range(3)]
        assert len(set(sides)) == len(sides), case
        boundary = {frozenset(s) for s in sides if s[::-1] not in sides}
        assert boundary == _face_sides(case), case
        for a, b in sides:
            if (b, a) in sides:
                assert not any(
                    {a, b} <= {e for e, ends in enumerate(mc_tables.EDGE_TO_CORNERS) if ends[0] in f and ends[1] in f}
                    for f in ((0, 1, 2, 3), (4, 5, 6, 7), (0, 1, 4, 5), (2, 3, 6, 7), (0, 3, 4, 7), (1, 2, 5, 6))), case


# Single cells with +-1 corners: every vertex is an edge midpoint. The triangles are worked out by
# hand: each faces the above-threshold corners (counter-clockwise seen from them); the quads'
# diagonals, the triangles' order and first vertices are the classic table's, as warp-lang emits.
_MID = {e: tuple((np.add(mc_tables.CUBE_CORNER_OFFSETS[a], mc_tables.CUBE_CORNER_OFFSETS[b]) / 2).tolist())
        for e, (a, b) in enumerate(mc_tables.EDGE_TO_CORNERS)}


@pytest.mark.parametrize("above, triangles", [
    # corner (0,0,0) cut off: x edge, z edge, y edge
    ((0,), [[(.5, 0, 0), (0, 0, .5), (0, .5, 0)]]),
    # corners (0,0,0), (1,0,0): the quad through their y and z edges, cut along (1,.5,0)-(0,0,.5)
    ((0, 1), [[(1, .5, 0), (0, 0, .5), (0, .5, 0)], [(1, 0, .5), (0, 0, .5), (1, .5, 0)]]),
    # the ambiguous bottom face with (0,0,0) and (1,1,0) above: two separate corner triangles
    ((0, 2), [[(.5, 0, 0), (0, 0, .5), (0, .5, 0)], [(1, .5, 0), (.5, 1, 0), (1, 1, .5)]]),
    # the whole bottom face above: the plane z = 1/2, cut along (0,0,.5)-(1,1,.5)
    ((0, 1, 2, 3), [[(1, 0, .5), (0, 0, .5), (1, 1, .5)], [(1, 1, .5), (0, 0, .5), (0, 1, .5)]]),
    # (1,0,0) and (1,1,0) above: the quad cut along (.5,1,0)-(1,0,.5), unlike the first pair's mirror
    ((1, 2), [[(1, 0, .5), (.5, 1, 0), (1, 1, .5)], [(.5, 0, 0), (.5, 1, 0), (1, 0, .5)]]),
])
def test_single_cell_triangles_match_the_worked_out_table(above, triangles):
    f = -np.ones((2, 2, 2), dtype=np.float32)
    for c in above:
        f[mc_tables.CUBE_CORNER_OFFSETS[c]] = 1.0
    verts, faces = extract(f, "cpu", lower=(0, 0, 0), upper=(1, 1, 1))
    np.testing.assert_array_equal(verts[faces], np.array(triangles, dtype=np.float32))
    corners = np.array([mc_tables.CUBE_CORNER_OFFSETS[c] for c in above], dtype=np.float64)
    for tri in verts[faces].astype(np.float64):
        normal = np.cross(tri[1] - tri[0], tri[2] - tri[0])
        nearest = corners[np.argmin(np.linalg.norm(corners - tri.mean(axis=0), axis=1))]
        assert np.dot(normal, nearest - tri.mean(axis=0)) > 0  # faces the corner above it


def test_stateful_interface_matches_extract_and_checks_shapes(device):
    f = wp.array(sphere_field(16, 0.5), device=device)
    iso = MC(16, 16, 16, lower=(-1, -1, -1), upper=(1, 1, 1))
    assert isinstance(iso, wp.geometry.IsoSurfaceBase)
    iso.surface(f, 0.0)
    verts, faces = MC.extract(f, 0.0, lower=(-1, -1, -1), upper=(1, 1, 1))
    np.testing.assert_array_equal(iso.verts.numpy(), verts.numpy())
    np.testing.assert_array_equal(iso.indices.numpy(), faces.numpy())
    with pytest.raises(ValueError, match=r"Field shape \(16, 16, 16\) does not match .*\(8, 8, 8\)"):
        MC(8, 8, 8).surface(f, 0.0)
    with pytest.raises(ValueError, match="at least 2 nodes on each axis"):
        MC.extract(wp.zeros((1, 4, 4), dtype=float, device=device))
    with pytest.raises(TypeError, match="Cannot specify both `lower` and `domain_bounds_lower_corner`"):
        MC(4, 4, 4, lower=(0, 0, 0), domain_bounds_lower_corner=(0, 0, 0))
    empty_v, empty_f = MC.extract(f, 10.0)
    assert empty_v.shape == (0,) and empty_f.shape == (0,)


def test_area_gradient_matches_the_analytic_derivative():
    """d(area)/d(field) through the tape, chained to d(field)/d(radius) = -1: 8 pi r."""
    radius, n = 0.5, 41
    field = wp.array(sphere_field(n, radius, center=(0, 0, 0)), requires_grad=True)
    tape = wp.Tape()
    with tape:
        verts, faces = MC.extract(field, 0.0, lower=(-1, -1, -1), upper=(1, 1, 1))
    v, f = verts.numpy().astype(np.float64), faces.numpy().reshape(-1, 3)
    # adjoint of the area with respect to each vertex (NumPy), fed to the tape
    p0, p1, p2 = v[f[:, 0]], v[f[:, 1]], v[f[:, 2]]
    nrm = np.cross(p1 - p0, p2 - p0)
    length = np.linalg.norm(nrm, axis=1, keepdims=True)   # 0 where a vertex sits on a node
    unit = np.divide(nrm, length, out=np.zeros_like(nrm), where=length > 0)
    grad = np.zeros_like(v)
    for a, b, c in ((0, 1, 2), (1, 2, 0), (2, 0, 1)):
        np.add.at(grad, f[:, a], 0.5 * np.cross(unit, v[f[:, c]] - v[f[:, b]]))
    tape.backward(grads={verts: wp.array(grad.astype(np.float32), dtype=wp.vec3)})
    d_area_d_radius = -field.grad.numpy().sum()
    assert abs(d_area_d_radius - 8 * np.pi * radius) < 0.05 * 8 * np.pi * radius


def batched(field_fn):
    """A batched implicit function evaluated with NumPy, returned as a Warp array."""
    def evaluate(points):
        p = points.numpy().astype(np.float64)
        return wp.array(field_fn(p).astype(np.float32), device=points.device)
    return evaluate


def z_order(cell):
    """A cell's Z-order (Morton) key: its subscripts' binary digits interleaved, k's bit above
    j's above i's at each level."""
    bits = [format(int(c), "016b") for c in cell]
    return int("".join(bits[2][b] + bits[1][b] + bits[0][b] for b in range(16)), 2)


@pytest.mark.parametrize("n", [(17, 17, 17), (11, 15, 21)])
def test_sparse_equals_dense_on_the_same_field(device, n):
    lower, upper = np.array([-1.0, -1.1, -0.9]), np.array([1.0, 1.2, 1.1])
    axes = [np.linspace(lower[d], upper[d], n[d]) for d in range(3)]
    P = np.stack(np.meshgrid(*axes, indexing="ij"), -1)

    def sdf(p):
        return np.linalg.norm(p - np.array([0.05, 0.0, -0.03]), axis=-1) - 0.6

    dense_v, dense_f = extract(sdf(P).astype(np.float32), device, lower=tuple(lower), upper=tuple(upper))
    verts, indices, stats = wp.geometry.sparse_marching_cubes(batched(sdf), *n, lower=tuple(lower),
                                                              upper=tuple(upper), device=device, return_stats=True)
    # the same vertices in the same order, the same triangles listed cell by cell in Z order (as
    # warp-lang's octree lists its leaves) instead of the dense (i, j, k) order
    np.testing.assert_allclose(verts.numpy(), dense_v, atol=1e-5)
    delta = (upper - lower) / (np.array(n) - 1)
    cells = np.floor((dense_v[dense_f].mean(axis=1) - lower) / delta).astype(int)
    order = sorted(range(len(dense_f)), key=lambda t: z_order(cells[t]))   # stable: table order kept
    np.testing.assert_array_equal(indices.numpy().reshape(-1, 3), dense_f[order])
    assert stats["field_evaluations"] < np.prod(n)
    assert stats["resolution"] == 1 << int(np.ceil(np.log2(max(n) - 1)))


def test_sparse_from_all_cells_equals_dense_and_is_differentiable(device):
    n = 13
    f = sphere_field(n, 0.55)
    h = 2.0 / (n - 1)
    dense_v, dense_f = extract(f, device)
    g = np.arange(n - 1)
    cells = np.stack(np.meshgrid(g, g, g, indexing="ij"), -1).reshape(-1, 3)
    offsets = np.array(MC.CUBE_CORNER_OFFSETS)
    corner = cells[:, None, :] + offsets[None]
    values = wp.array(f[corner[..., 0], corner[..., 1], corner[..., 2]], device=device, requires_grad=True)
    with wp.Tape() as tape:
        verts, indices = wp.geometry.sparse_marching_cubes_from_cells(cells, values, origin=(-1, -1, -1),
                                                                      cell_width=h, device=device)
    np.testing.assert_allclose(verts.numpy(), dense_v, atol=1e-5)
    np.testing.assert_array_equal(indices.numpy().reshape(-1, 3), dense_f)
    # each vertex moves by -h / (v1 - v0) along its edge per unit change of its lower corner's value
    tape.backward(grads={verts: wp.array(np.ones((len(dense_v), 3), np.float32), dtype=wp.vec3)})
    assert np.abs(values.grad.numpy()).sum() > 0


def test_lipschitz_octree_keeps_exactly_the_cells_the_bound_allows():
    """Brute force at the finest level: a leaf is kept iff every ancestor's centre value is within
    the bound times its half diagonal (so no cell that the surface crosses is lost)."""
    def sdf(p):
        return np.linalg.norm(p, axis=-1) - 0.5
    depth, origin, width = 4, np.array([-1.0, -1.0, -1.0]), 2.0
    cells, cell_width = wp.geometry.lipschitz_octree(batched(sdf), tuple(origin), width, depth)
    assert cells.dtype == wp.vec3i and cell_width == width / 2**depth
    g = np.arange(2**depth)
    all_cells = np.stack(np.meshgrid(g, g, g, indexing="ij"), -1).reshape(-1, 3)
    keep = np.ones(len(all_cells), bool)
    for level in range(depth + 1):
        size = 2 ** (depth - level)
        centre = origin + cell_width * ((all_cells // size) + 0.5) * size
        keep &= np.abs(sdf(centre)) <= 0.5 * size * cell_width * np.sqrt(3)
    np.testing.assert_array_equal(cells.numpy(), sorted(all_cells[keep].tolist(), key=z_order))
    crossing = np.array([np.ptp(np.sign(sdf(origin + cell_width * (c + np.array(MC.CUBE_CORNER_OFFSETS))))) > 0
                         for c in all_cells])
    assert not (crossing & ~keep).any()


@pytest.mark.parametrize("call, error, message", [
    (lambda: wp.geometry.sparse_marching_cubes(batched(np.sum), 1, 5, 5), ValueError, "at least 2 nodes"),
    (lambda: wp.geometry.sparse_marching_cubes(batched(np.sum), 5, 5, 5, lipschitz_bound=-1.0), ValueError,
     "lipschitz_bound must be positive"),
    (lambda: wp.geometry.sparse_marching_cubes(42, 5, 5, 5), TypeError, "batched callable"),
    (lambda: wp.geometry.sparse_marching_cubes_from_cells(np.zeros((1, 3)), np.zeros((1, 8)), cell_width=0.0),
     ValueError, "cell_width must be positive"),
    (lambda: wp.geometry.sparse_marching_cubes_from_cells(np.zeros((0, 3)), np.zeros(3)), ValueError,
     "8 values per cell"),
])
def test_sparse_errors_say_what_is_wrong(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_deprecated_top_level_alias_is_the_class():
    assert wp.MarchingCubes is MC


@pytest.mark.parametrize("name, field, euler", [("sphere", sphere_field(33, 0.5), 2), ("torus", torus_field(33), 0)])
def test_surface_nets_are_closed_oriented_and_on_the_surface(device, name, field, euler):
    f = wp.array(field, device=device)
    verts, quads = wp.geometry.IsoSurfaceNets.extract(f, 0.0, lower=(-1, -1, -1), upper=(1, 1, 1), topology="quad")
    _, tris = wp.geometry.IsoSurfaceNets.extract(f, 0.0, lower=(-1, -1, -1), upper=(1, 1, 1))
    v, q, t = verts.numpy(), quads.numpy().reshape(-1, 4), tris.numpy().reshape(-1, 3)
    np.testing.assert_array_equal(t, np.stack([q[:, [0, 1, 2]], q[:, [0, 2, 3]]], 1).reshape(-1, 3))
    n_edges, boundary, nonmanifold = edge_stats(t)
    assert boundary == 0 and nonmanifold == 0 and len(v) - n_edges + len(t) == euler
    assert np.array_equal(np.unique(q), np.arange(len(v)))
    # a vertex is a mean of crossings of one cell: within a cell diagonal of the surface
    h = 2.0 / 32
    mc_v, mc_f = extract(field, device)
    if name == "sphere":
        r = np.linalg.norm(v - np.array([0.03, -0.02, 0.01]), axis=1)
        assert np.abs(r - 0.5).max() < np.sqrt(3) * h
        area, volume = area_and_volume(v, t)
        assert volume > 0 and abs(volume - 4 / 3 * np.pi * 0.125) < 0.05 * 4 / 3 * np.pi * 0.125
    # one vertex per surface patch of a cell: as many as marching cubes' polygons inside the grid
    assert len(v) <= len(mc_f)


def test_surface_nets_give_two_vertices_to_a_cell_with_two_patches():
    """Two diagonal corners below the threshold in the middle cell of a 3^3-cell grid: two
    separate sheets cross that cell, each gets its own vertex."""
    f = np.ones((4, 4, 4), np.float32)
    f[1, 1, 1] = f[2, 2, 2] = -1.0
    verts, quads = wp.geometry.IsoSurfaceNets.extract(wp.array(f), 0.0, topology="quad")
    q = quads.numpy().reshape(-1, 4)
    assert len(q) == 12   # six crossed edges around each of the two nodes
    cells = np.floor(verts.numpy()).astype(int)
    assert (np.all(cells == 1, axis=1)).sum() == 2
    _, boundary, nonmanifold = edge_stats(np.concatenate([q[:, [0, 1, 2]], q[:, [0, 2, 3]]]))
    assert boundary == 0 and nonmanifold == 0


def brute_force_neighbours(tris):
    """For each (triangle, local edge): the other triangle with the same vertex pair, or -1."""
    out = -np.ones((len(tris), 3), int)
    for t, tri in enumerate(tris):
        for j in range(3):
            edge = {tri[(j + 1) % 3], tri[(j + 2) % 3]}
            for u, other in enumerate(tris):
                if u != t and edge <= set(other):
                    out[t, j] = u
    return out


@wp.kernel
def _neighbour_edges(neighbours: wp.array2d(dtype=wp.int32), out: wp.array2d(dtype=wp.int32)):
    t, j = wp.tid()
    n = neighbours[t, j]
    out[t, j] = wp.where(n >= 0, wp.geometry.find_triangle_neighbor_edge_index(neighbours, n, t), -1)


@pytest.mark.parametrize("closed", [True, False])
def test_tri_tri_adjacency_against_brute_force(closed):
    _, faces = extract(sphere_field(9, 0.6), "cpu")
    faces = faces if closed else faces[: len(faces) // 2]
    rng = np.random.default_rng(1)
    faces = np.where(rng.random((len(faces), 1)) < 0.5, faces, faces[:, [0, 2, 1]])   # mixed orientations
    neighbours, edges = wp.geometry.tri_tri_adjacency(wp.array(faces, dtype=wp.int32))
    n, e = neighbours.numpy(), edges.numpy()
    np.testing.assert_array_equal(n, brute_force_neighbours(faces))
    assert (n >= 0).all() == closed
    t, j = np.nonzero(n >= 0)
    np.testing.assert_array_equal(n[n[t, j], e[t, j]], t)   # the neighbour's edge points back
    found = wp.zeros((len(faces), 3), dtype=wp.int32)
    wp.launch(_neighbour_edges, dim=(len(faces), 3), inputs=[neighbours], outputs=[found])
    np.testing.assert_array_equal(found.numpy(), e)
    only = wp.geometry.tri_tri_adjacency(wp.array(faces, dtype=wp.int32), return_neighbor_edge_indices=False)
    np.testing.assert_array_equal(only.numpy(), n)


def test_tri_tri_adjacency_refuses_non_manifold_edges():
    tris = wp.array(np.array([[0, 1, 2], [1, 0, 3], [0, 1, 4]]), dtype=wp.int32)
    with pytest.raises(ValueError, match=r"not edge-manifold: edge \(0, 1\)"):
        wp.geometry.tri_tri_adjacency(tris)
    with pytest.raises(ValueError, match="must be a \\(num_tris, 3\\) array"):
        wp.geometry.tri_tri_adjacency(wp.zeros(6, dtype=wp.int32))


def jittered_grid(n, seed):
    """A counter-clockwise triangulation of an n x n grid whose interior points are jittered,
    each cell split along a random diagonal: valid, and far from Delaunay."""
    rng = np.random.default_rng(seed)
    x, y = np.meshgrid(np.arange(n, dtype=float), np.arange(n, dtype=float), indexing="ij")
    p = np.stack([x, y], -1)
    p[1:-1, 1:-1] += rng.uniform(-0.3, 0.3, (n - 2, n - 2, 2))
    v = np.arange(n * n).reshape(n, n)
    tris = []
    for i in range(n - 1):
        for j in range(n - 1):
            a, b, c, d = v[i, j], v[i + 1, j], v[i + 1, j + 1], v[i, j + 1]
            tris += [(a, b, c), (a, c, d)] if rng.random() < 0.5 else [(a, b, d), (b, c, d)]
    return p.reshape(-1, 2), np.array(tris, dtype=np.int32)


@pytest.mark.parametrize("seed", [0, 1])
def test_delaunay_edge_flip_gives_scipys_delaunay_triangulation(seed):
    from scipy.spatial import Delaunay
    p, tris = jittered_grid(9, seed)
    indices = wp.array(tris, dtype=wp.int32)
    flips = wp.geometry.delaunay_edge_flip(wp.array(p.astype(np.float32), dtype=wp.vec2), indices)
    ours = {tuple(sorted(t)) for t in indices.numpy()}
    reference = {tuple(sorted(t)) for t in Delaunay(p).simplices}
    assert ours == reference and flips.numpy()[0] > 0
    q = p[indices.numpy()]
    area = (q[:, 1, 0] - q[:, 0, 0]) * (q[:, 2, 1] - q[:, 0, 1]) - (q[:, 1, 1] - q[:, 0, 1]) * (q[:, 2, 0] - q[:, 0, 0])
    assert (area > 0).all()   # still counter-clockwise
    again = wp.geometry.delaunay_edge_flip(wp.array(p.astype(np.float32), dtype=wp.vec2), indices)
    assert again.numpy()[0] == 0


def test_delaunay_edge_flip_refusals():
    p, tris = jittered_grid(5, 0)
    pos = wp.array(p.astype(np.float32), dtype=wp.vec2)
    # every flip would leave a triangle smaller than this
    indices = wp.array(tris, dtype=wp.int32)
    assert wp.geometry.delaunay_edge_flip(pos, indices, area_epsilon=10.0).numpy()[0] == 0
    np.testing.assert_array_equal(indices.numpy(), tris)
    with pytest.raises(ValueError, match="max_passes must be at least 1"):
        wp.geometry.delaunay_edge_flip(pos, indices, max_passes=0)
    with pytest.raises(ValueError, match="area_epsilon must be a finite, non-negative number"):
        wp.geometry.delaunay_edge_flip(pos, indices, area_epsilon=-1.0)
