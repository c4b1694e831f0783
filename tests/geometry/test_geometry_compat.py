"""Geometry behaviours the reference's own tests rely on, each against a brute-force reference:
vec3 volume gradients (a Jacobian), hash grids in half/single/double precision and with point
groups, the public query types as annotations."""

import struct

import numpy as np
import pytest

import warp_interactive as wp

RNG = np.random.default_rng(7)


# --- vec3 volumes: volume_sample_grad(dtype=vec3) writes the Jacobian ------------------------------
@wp.kernel
def vec3_grad(volume: wp.uint64, uvw: wp.array(dtype=wp.vec3), values: wp.array(dtype=wp.vec3),
              jac: wp.array(dtype=wp.mat33), mode: int, same: wp.array(dtype=int)):
    i = wp.tid()
    g = wp.mat33(0.0)
    values[i] = wp.volume_sample_grad(volume, uvw[i], mode, g, dtype=wp.vec3)
    jac[i] = g
    g2 = wp.mat33(1.0)
    v2 = wp.volume_sample_grad_v(volume, uvw[i], mode, g2)   # the typed spelling: the same
    if v2 == values[i] and g2 == g:
        same[i] = 1


@pytest.mark.parametrize("mode", ["LINEAR", "CLOSEST"])
def test_vec3_volume_gradient_is_the_jacobian(mode):
    # an affine field value(ijk) = M ijk + c: trilinear sampling reproduces it exactly, and its
    # Jacobian is M (row i: the gradient of component i) everywhere inside the grid
    n = 12
    ijk = np.stack(np.meshgrid(*[np.arange(n)] * 3, indexing="ij"), -1).astype(np.float32)
    m = RNG.normal(size=(3, 3)).astype(np.float32)
    c = RNG.normal(size=3).astype(np.float32)
    volume = wp.Volume.load_from_numpy(ijk @ m.T + c, bg_value=(0.0, 0.0, 0.0))
    uvw = RNG.uniform(1.0, n - 2.0, (32, 3)).astype(np.float32)
    values, jac = wp.zeros(32, dtype=wp.vec3), wp.zeros(32, dtype=wp.mat33)
    same = wp.zeros(32, dtype=int)
    wp.launch(vec3_grad, dim=32, inputs=[volume.id, wp.array(uvw, dtype=wp.vec3), values, jac,
                                         getattr(wp.Volume, mode), same])
    assert same.numpy().all()
    if mode == "LINEAR":
        np.testing.assert_allclose(values.numpy(), uvw @ m.T + c, rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(jac.numpy(), np.broadcast_to(m, (32, 3, 3)), rtol=1e-4, atol=1e-4)
    else:   # the nearest voxel's value; no gradient
        np.testing.assert_allclose(values.numpy(), np.floor(uvw + 0.5) @ m.T + c, rtol=1e-4, atol=1e-4)
        assert not jac.numpy().any()


def test_volume_sample_grad_of_an_int_volume_is_refused():
    @wp.kernel(module="unique")
    def k(volume: wp.uint64):
        g = wp.vec3()
        wp.volume_sample_grad(volume, wp.vec3(), wp.Volume.LINEAR, g, dtype=wp.int32)

    with pytest.raises(wp.CodegenError, match="dtype=int32 volumes have no gradient"):
        wp.launch(k, dim=1, inputs=[wp.uint64(0)])


# --- hash grids: precisions and groups -------------------------------------------------------------
def _counts_kernel(vec, scalar):
    @wp.kernel(module="unique")
    def counts(grid: wp.uint64, pts: wp.array(dtype=vec), r: scalar, group: int, out: wp.array(dtype=int)):
        i = wp.tid()
        n = int(0)
        if group < -1:
            for j in wp.hash_grid_query(grid, pts[i], r):
                if wp.length(pts[i] - pts[j]) <= r:
                    n += 1
        else:
            for j in wp.hash_grid_query(grid, pts[i], r, group):
                if wp.length(pts[i] - pts[j]) <= r:
                    n += 1
        out[i] = n
    return counts


def _brute_counts(p, r, groups=None, group=None):
    d = np.linalg.norm(p[:, None] - p[None], axis=-1) <= r
    if group is not None and groups is not None:
        d &= (groups == group)[None]
    return d.sum(axis=1)


@pytest.mark.parametrize("scalar,vec", [(wp.float16, wp.vec3h), (wp.float32, wp.vec3f),
                                        (wp.float64, wp.vec3d)])
def test_hash_grid_in_each_precision_matches_brute_force(scalar, vec):
    # points on a 0.25 lattice (exact in half precision), radius between lattice distances
    p = RNG.integers(0, 12, (200, 3)).astype(np.float64) * 0.25
    r = 0.3
    grid = wp.HashGrid(16, 16, 16, dtype=scalar)
    pts = wp.array(p, dtype=vec)
    grid.build(pts, r)
    out = wp.zeros(len(p), dtype=int)
    wp.launch(_counts_kernel(vec, scalar), dim=len(p), inputs=[grid.id, pts, scalar(r), -2, out])
    np.testing.assert_array_equal(out.numpy(), _brute_counts(p, r))


@pytest.mark.parametrize("group", [-1, 0, 1, 2, 7])
@pytest.mark.parametrize("grouped", [False, True])
def test_hash_grid_group_queries_match_brute_force(group, grouped):
    # a grid built with groups yields only the queried group's points; without groups the
    # group argument is ignored (the reference's behaviour)
    p = RNG.uniform(0, 2, (300, 3))
    g = RNG.integers(0, 3, 300).astype(np.int32)
    grid = wp.HashGrid(8, 8, 8)
    pts = wp.array(p, dtype=wp.vec3)
    grid.build(pts, 0.3, groups=wp.array(g, dtype=wp.int32) if grouped else None)
    out = wp.zeros(len(p), dtype=int)
    wp.launch(_counts_kernel(wp.vec3, wp.float32), dim=len(p), inputs=[grid.id, pts, 0.3, group, out])
    p32 = p.astype(np.float32)
    np.testing.assert_array_equal(out.numpy(), _brute_counts(p32, np.float32(0.3), g if grouped else None, group))


@pytest.mark.parametrize("shape,stride", [((64,), 2), ((16, 4), 1), ((8, 2, 4), 1)])
def test_hash_grid_builds_from_strided_and_nd_points(shape, stride):
    n = int(np.prod(shape))
    p = RNG.uniform(0, 1, (n, 3)).astype(np.float32)
    buf = wp.zeros(n * stride, dtype=wp.vec3)
    view = buf[::stride] if stride > 1 else buf
    wp.copy(view, wp.array(p, dtype=wp.vec3))
    pts = view if len(shape) == 1 else wp.array(p.reshape(*shape, 3), dtype=wp.vec3)
    grid = wp.HashGrid(8, 8, 8)
    grid.build(pts, 0.2)
    flat = wp.array(p, dtype=wp.vec3)   # point i is the i-th element in row-major order
    out = wp.zeros(n, dtype=int)
    wp.launch(_counts_kernel(wp.vec3, wp.float32), dim=n, inputs=[grid.id, flat, 0.2, -2, out])
    np.testing.assert_array_equal(out.numpy(), _brute_counts(p, np.float32(0.2)))


@pytest.mark.parametrize("kwargs,error,match", [
    ({"dtype": wp.int32}, TypeError, "dtype must be float16, float32 or float64, got int32"),
    ({"dims": (1291, 1291, 1291)}, RuntimeError, "cell count exceeds supported limit"),
    ({"dims": (0, 4, 4)}, ValueError, "dimensions must be >= 1"),
])
def test_hash_grid_bad_construction(kwargs, error, match):
    dims = kwargs.pop("dims", (4, 4, 4))
    with pytest.raises(error, match=match):
        wp.HashGrid(*dims, **kwargs)


def test_hash_grid_build_checks_points_and_groups():
    grid = wp.HashGrid(4, 4, 4, dtype=wp.float64)
    with pytest.raises(TypeError, match="points must be a wp.array of vec3d .* got vec3f"):
        grid.build(wp.zeros(3, dtype=wp.vec3), 1.0)
    grid = wp.HashGrid(4, 4, 4)
    with pytest.raises(ValueError, match="2 groups for 3 points"):
        grid.build(wp.zeros(3, dtype=wp.vec3), 1.0, groups=wp.zeros(2, dtype=wp.int32))


# --- the public query types, usable as @wp.func annotations ------------------------------------------
@wp.func
def _count_candidates(query: wp.HashGridQuery[wp.float32]):
    n = int(0)
    j = int(0)
    while wp.hash_grid_query_next(query, j):
        n += 1
    return n


@wp.kernel
def _count_all(grid: wp.uint64, out: wp.array(dtype=int)):
    out[0] = _count_candidates(wp.hash_grid_query(grid, wp.vec3(0.5, 0.5, 0.5), 10.0))


def test_query_types_are_public_and_annotate_funcs():
    for name in ("HashGridQuery", "BvhQuery", "MeshQueryAABB", "MeshQueryPoint", "MeshQueryRay"):
        assert getattr(wp, name).__name__ == name
    assert wp.HashGridQuery[wp.float64] is wp.HashGridQuery
    grid = wp.HashGrid(4, 4, 4)
    grid.build(wp.array(RNG.uniform(0, 1, (10, 3)), dtype=wp.vec3), 0.5)
    out = wp.zeros(1, dtype=int)
    wp.launch(_count_all, dim=1, inputs=[grid.id, out])
    assert out.numpy()[0] == 10


# --- the remaining geometry builtins, each against brute force ---------------------------------------
def _segment_dist(p, a, b):
    ab = b - a
    t = np.clip(np.dot(p - a, ab) / max(np.dot(ab, ab), 1e-30), 0.0, 1.0)
    return np.linalg.norm(p - (a + t * ab))


def _triangle_dist(p, a, b, c):
    """Distance from p to triangle abc (float64), by the plane or the edges; a zero-area
    triangle is its longest edge."""
    n = np.cross(b - a, c - a)
    edges = min(_segment_dist(p, a, b), _segment_dist(p, b, c), _segment_dist(p, c, a))
    if np.linalg.norm(n) < 1e-12:
        return edges
    n = n / np.linalg.norm(n)
    d = np.dot(p - a, n)
    q = p - d * n
    inside = all(np.dot(np.cross(v - u, q - u), n) >= 0 for u, v in ((a, b), (b, c), (c, a)))
    return abs(d) if inside else edges


def _soup(n_tris=40, seed=3):
    rng = np.random.default_rng(seed)
    pts = rng.uniform(0, 4, (3 * n_tris, 3)).astype(np.float32)
    pts[3:6] = [[1, 1, 1], [2, 2, 2], [3, 3, 3]]   # a zero-area face (collinear)
    idx = np.arange(3 * n_tris, dtype=np.int32)
    return pts, idx


@wp.kernel
def _sphere_hits(mesh: wp.uint64, centers: wp.array(dtype=wp.vec3), r: float, hits: wp.array2d(dtype=int)):
    i = wp.tid()
    q = wp.mesh_query_sphere(mesh, centers[i], r)
    f = int(0)
    while wp.mesh_query_next(q, f):
        hits[i, f] += 1
    for g in wp.mesh_query_sphere(mesh, centers[i], r):   # the iterator form: the same faces
        hits[i, g] += 10


@pytest.mark.parametrize("radius", [0.0, 0.4, 1.0, -1.0])
def test_mesh_query_sphere_yields_each_face_within_radius_once(radius):
    pts, idx = _soup()
    mesh = wp.Mesh(wp.array(pts, dtype=wp.vec3), wp.array(idx, dtype=wp.int32))
    centers = np.random.default_rng(5).uniform(0, 4, (24, 3)).astype(np.float32)
    centers[0] = [2.0, 2.0, 2.0]   # on the degenerate face: distance 0
    hits = wp.zeros((24, 40), dtype=int)
    wp.launch(_sphere_hits, dim=24, inputs=[mesh.id, wp.array(centers, dtype=wp.vec3), radius, hits])
    tris = pts[idx].reshape(-1, 3, 3).astype(np.float64)
    d = np.array([[_triangle_dist(c.astype(np.float64), *t) for t in tris] for c in centers])
    r = max(radius, 0.0)
    clear = np.abs(d - r) > 1e-4   # leave float32 ties at the boundary out
    got = hits.numpy()
    np.testing.assert_array_equal(got[clear], np.where(d <= r, 11, 0)[clear])
    assert got[0, 1] == 11   # the zero-area face, by its longest edge


@wp.kernel
def _aabb_next(mesh: wp.uint64, lo: wp.vec3, hi: wp.vec3, hits: wp.array(dtype=int)):
    q = wp.mesh_query_aabb(mesh, lo, hi)
    f = int(-7)
    while wp.mesh_query_next(q, f):
        hits[f] += 1
    hits[40] = f   # unchanged by the final (False) call: the last face found, or -7


def test_mesh_query_next_on_a_box_query_matches_triangle_boxes():
    pts, idx = _soup()
    mesh = wp.Mesh(wp.array(pts, dtype=wp.vec3), wp.array(idx, dtype=wp.int32))
    tris = pts[idx].reshape(-1, 3, 3)
    for lo, hi in (([1, 1, 1], [2.5, 3, 2]), ([0, 0, 0], [4, 4, 4]), ([9, 9, 9], [10, 10, 10])):
        hits = wp.zeros(41, dtype=int)
        wp.launch(_aabb_next, dim=1, inputs=[mesh.id, wp.vec3(*lo), wp.vec3(*hi), hits])
        want = np.all((tris.min(1) <= hi) & (tris.max(1) >= lo), axis=1).astype(int)
        np.testing.assert_array_equal(hits.numpy()[:40], want)
        assert hits.numpy()[40] == (-7 if not want.any() else hits.numpy()[40])
        assert hits.numpy()[40] == -7 or want[hits.numpy()[40]]


@wp.kernel
def _capsule_hits(bvh: wp.uint64, p0: wp.vec3, d: wp.vec3, r: float, max_dist: float, hits: wp.array(dtype=int)):
    q = wp.bvh_query_capsule(bvh, p0, d, r)
    i = int(0)
    while wp.bvh_query_next(q, i, max_dist):
        hits[i] += 1
    q2 = wp.bvh_query_ray(bvh, p0, d, -1)   # with max_dist: the uninflated boxes
    while wp.bvh_query_next(q2, i, max_dist):
        hits[i] += 10


def _slab(p0, d, lo, hi, tmax):
    """Does p0 + t d, t in [0, tmax], meet each box [lo, hi]? (float64)"""
    with np.errstate(divide="ignore", invalid="ignore"):
        inv = 1.0 / d
        a, b = (lo - p0) * inv, (hi - p0) * inv
    a = np.where(np.isnan(a), -np.inf, a)
    b = np.where(np.isnan(b), np.inf, b)
    t0 = np.maximum(np.minimum(a, b).max(axis=1), 0.0)
    t1 = np.minimum(np.maximum(a, b).min(axis=1), tmax)
    return t0 <= t1


@pytest.mark.parametrize("radius,max_dist", [(0.3, 1.0), (0.0, 1.0), (1.0, 0.5), (-2.0, 1.0)])
def test_bvh_capsule_and_ray_with_max_dist_match_slab_tests(radius, max_dist):
    rng = np.random.default_rng(11)
    c = rng.uniform(0, 10, (200, 3))
    lo, hi = (c - 0.2).astype(np.float32), (c + 0.2).astype(np.float32)
    bvh = wp.Bvh(wp.array(lo, dtype=wp.vec3), wp.array(hi, dtype=wp.vec3))
    p0, p1 = np.array([1.0, 2.0, 1.5]), np.array([8.0, 7.0, 9.0])
    hits = wp.zeros(200, dtype=int)
    wp.launch(_capsule_hits, dim=1, inputs=[bvh.id, wp.vec3(*p0), wp.vec3(*(p1 - p0)), radius, max_dist, hits])
    r = max(radius, 0.0)
    want = _slab(p0, p1 - p0, lo - r, hi + r, max_dist).astype(int) + 10 * _slab(p0, p1 - p0, lo, hi, max_dist)
    np.testing.assert_array_equal(hits.numpy(), want)
    # conservative: every box within r of the segment is reported
    seg = [min(np.linalg.norm(np.clip(p0 + t * (p1 - p0), l, h) - (p0 + t * (p1 - p0)))
               for t in np.linspace(0, max_dist, 400)) for l, h in zip(lo, hi)]
    assert np.all(hits.numpy()[np.array(seg) < r - 1e-3] % 10 == 1)


@wp.kernel
def _group_hits(bvh: wp.uint64, group: int, lo: wp.vec3, hi: wp.vec3, hits: wp.array(dtype=int),
                root_out: wp.array(dtype=int)):
    root = wp.bvh_get_group_root(bvh, group)
    root_out[0] = root
    q = wp.bvh_query_aabb(bvh, lo, hi, root)
    i = int(0)
    while wp.bvh_query_next(q, i):
        hits[i] += 1
    s = wp.bvh_query_sphere(bvh, (lo + hi) * 0.5, 0.0, root)
    while wp.bvh_query_next(s, i):
        hits[i] += 10


@pytest.mark.parametrize("group", [0, 2, 5, 99, -1])
@pytest.mark.parametrize("n_groups", [1, 3, 6])
def test_bvh_group_roots_restrict_queries_to_their_group(group, n_groups):
    rng = np.random.default_rng(group + 10 * n_groups + 20)
    c = rng.uniform(0, 10, (150, 3))
    lo, hi = (c - 0.5).astype(np.float32), (c + 0.5).astype(np.float32)
    groups = rng.integers(0, n_groups, 150).astype(np.int32)
    bvh = wp.Bvh(wp.array(lo, dtype=wp.vec3), wp.array(hi, dtype=wp.vec3),
                 groups=wp.array(groups, dtype=wp.int32))
    qlo, qhi = np.array([2, 2, 2], np.float32), np.array([7, 6, 8], np.float32)
    hits, root = wp.zeros(150, dtype=int), wp.zeros(1, dtype=int)
    wp.launch(_group_hits, dim=1, inputs=[bvh.id, group, wp.vec3(*qlo), wp.vec3(*qhi), hits, root])
    present = group in groups
    assert (root.numpy()[0] >= 0) == present   # -1: absent, queries then see the whole tree
    member = groups == group if present else np.ones(150, bool)
    box = np.all((lo <= qhi) & (hi >= qlo), axis=1)
    centre = np.all((lo <= (qlo + qhi) / 2) & (hi >= (qlo + qhi) / 2), axis=1)
    np.testing.assert_array_equal(hits.numpy(), (box & member) + 10 * (centre & member))


@wp.kernel
def _mesh_group_ray(mesh: wp.uint64, group: int, origins: wp.array(dtype=wp.vec3), faces: wp.array(dtype=int)):
    i = wp.tid()
    root = wp.mesh_get_group_root(mesh, group)
    h = wp.mesh_query_ray(mesh, origins[i], wp.vec3(0.0, 0.0, 1.0), 1.0e6, root)
    faces[i] = -1
    if h.result:
        faces[i] = h.face


@pytest.mark.parametrize("group", [0, 1, 2, 7])
def test_mesh_group_root_restricts_ray_casts(group):
    # stacked unit squares at z = 0, 1, 2, 3 (two faces each); face group = layer % 3
    quads = []
    for z in range(4):
        quads += [[0, 0, z], [1, 0, z], [1, 1, z], [0, 1, z]]
    pts = np.array(quads, np.float32)
    idx = np.concatenate([[4 * k, 4 * k + 1, 4 * k + 2, 4 * k, 4 * k + 2, 4 * k + 3] for k in range(4)]).astype(np.int32)
    face_group = np.repeat(np.arange(4) % 3, 2).astype(np.int32)
    mesh = wp.Mesh(wp.array(pts, dtype=wp.vec3), wp.array(idx, dtype=wp.int32),
                   groups=wp.array(face_group, dtype=wp.int32))
    origins = np.array([[0.3, 0.2, -1.0], [0.2, 0.7, -1.0], [0.7, 0.4, 1.5], [2.0, 2.0, -1.0]], np.float32)
    faces = wp.zeros(4, dtype=int)
    wp.launch(_mesh_group_ray, dim=4, inputs=[mesh.id, group, wp.array(origins, dtype=wp.vec3), faces])
    allowed = face_group == group if group in face_group else np.ones(8, bool)
    tris = pts[idx].reshape(-1, 3, 3)
    for o, f in zip(origins, faces.numpy()):
        zs = [t[0, 2] for k, t in enumerate(tris) if allowed[k] and t[0, 2] > o[2]
              and _triangle_dist(np.array([o[0], o[1], t[0, 2]], np.float64), *t.astype(np.float64)) < 1e-6]
        if not zs or not (0 <= o[0] <= 1 and 0 <= o[1] <= 1):
            assert f == -1
        else:
            assert allowed[f] and tris[f][0, 2] == min(zs)


@wp.kernel
def _mesh_arrays(mesh: wp.uint64, pts: wp.array(dtype=wp.vec3), idx: wp.array(dtype=int), vel: wp.array(dtype=wp.vec3),
                 sizes: wp.array(dtype=int)):
    m = wp.mesh_get(mesh)
    i = wp.tid()
    if i < m.points.shape[0]:
        pts[i] = m.points[i]
        if m.velocities.shape[0] > 0:
            vel[i] = m.velocities[i]
    idx[i] = m.indices[i]
    sizes[0] = m.points.shape[0]
    sizes[1] = m.indices.shape[0]
    sizes[2] = m.velocities.shape[0]


@pytest.mark.parametrize("with_velocities", [False, True])
def test_mesh_get_reads_the_mesh_arrays_in_place(with_velocities):
    pts, idx = _soup(10)
    v = np.random.default_rng(2).normal(size=pts.shape).astype(np.float32)
    mesh = wp.Mesh(wp.array(pts, dtype=wp.vec3), wp.array(idx, dtype=wp.int32),
                   velocities=wp.array(v, dtype=wp.vec3) if with_velocities else None)
    out_p, out_v = wp.zeros(30, dtype=wp.vec3), wp.zeros(30, dtype=wp.vec3)
    out_i, sizes = wp.zeros(30, dtype=int), wp.zeros(3, dtype=int)
    wp.launch(_mesh_arrays, dim=30, inputs=[mesh.id, out_p, out_i, out_v, sizes])
    np.testing.assert_array_equal(out_p.numpy(), pts)
    np.testing.assert_array_equal(out_i.numpy(), idx)
    np.testing.assert_array_equal(out_v.numpy(), v if with_velocities else 0 * v)
    assert list(sizes.numpy()) == [30, 30, 30 if with_velocities else 0]


@wp.kernel
def _tiled_aliases(bvh: wp.uint64, mesh: wp.uint64, lo: wp.vec3, hi: wp.vec3, items: wp.array(dtype=int),
                   faces: wp.array(dtype=int)):
    q = wp.bvh_query_aabb_tiled(bvh, lo, hi)
    while wp.tile_query_valid(q):
        i = wp.untile(wp.bvh_query_next_tiled(q))
        if i >= 0:
            items[i] += 1
    r = wp.bvh_query_ray_tiled(bvh, lo, hi - lo)
    while wp.tile_query_valid(r):
        i = wp.untile(wp.bvh_query_next_tiled(r))
        if i >= 0:
            items[i] += 10
    m = wp.mesh_query_aabb_tiled(mesh, lo, hi)
    while wp.tile_query_valid(m):
        f = wp.untile(wp.mesh_query_aabb_next_tiled(m))
        if f >= 0:
            faces[f] += 1


def test_tiled_query_aliases_yield_every_overlap_once():
    rng = np.random.default_rng(4)
    c = rng.uniform(0, 10, (80, 3))
    lo, hi = (c - 0.4).astype(np.float32), (c + 0.4).astype(np.float32)
    bvh = wp.Bvh(wp.array(lo, dtype=wp.vec3), wp.array(hi, dtype=wp.vec3))
    pts, idx = _soup()
    mesh = wp.Mesh(wp.array(pts, dtype=wp.vec3), wp.array(idx, dtype=wp.int32))
    qlo, qhi = np.array([2, 1, 2], np.float32), np.array([7, 8, 6], np.float32)
    items, faces = wp.zeros(80, dtype=int), wp.zeros(40, dtype=int)
    wp.launch_tiled(_tiled_aliases, dim=1, inputs=[bvh.id, mesh.id, wp.vec3(*qlo), wp.vec3(*qhi), items, faces],
                    block_dim=8)
    box = np.all((lo <= qhi) & (hi >= qlo), axis=1)
    ray = _slab(qlo.astype(np.float64), (qhi - qlo).astype(np.float64), lo, hi, np.inf)
    np.testing.assert_array_equal(items.numpy(), box + 10 * ray)
    tris = pts[idx].reshape(-1, 3, 3)
    np.testing.assert_array_equal(faces.numpy(), np.all((tris.min(1) <= qhi) & (tris.max(1) >= qlo), axis=1))


@pytest.mark.parametrize("ctor", [None, "sah", "median", "lbvh"])
def test_bvh_constructor_choices_are_accepted(ctor):
    lo = np.zeros((3, 3), np.float32)
    wp.Bvh(wp.array(lo, dtype=wp.vec3), wp.array(lo + 1, dtype=wp.vec3), constructor=ctor)
    with pytest.raises(ValueError, match="unknown BVH constructor 'octree'"):
        wp.Bvh(wp.array(lo, dtype=wp.vec3), wp.array(lo + 1, dtype=wp.vec3), constructor="octree")
    with pytest.raises(ValueError, match="2 groups for 3 items"):
        wp.Bvh(wp.array(lo, dtype=wp.vec3), wp.array(lo + 1, dtype=wp.vec3), groups=wp.zeros(2, dtype=wp.int32))


# --- keyword arguments to builtins, by parameter name (the reference accepts them) -------------------
@wp.kernel
def _keyword_calls(out: wp.array(dtype=float)):
    out[0] = wp.clamp(x=2.5, a=0.0, b=1.0)
    out[1] = wp.clamp(-3.0, b=1.0, a=-1.0)
    out[2] = wp.lerp(1.0, 3.0, t=0.25)
    h = wp.mesh_query_ray(wp.uint64(0), wp.vec3(), wp.vec3(0.0, 0.0, 1.0), max_t=1.0)
    out[3] = float(h.face)
    wp.expect_near(out[2], 1.5, tolerance=1.0e-6)


def test_builtins_take_keyword_arguments_by_parameter_name():
    out = wp.zeros(4, dtype=float)
    wp.launch(_keyword_calls, dim=1, inputs=[out])
    np.testing.assert_allclose(out.numpy(), [1.0, -1.0, 1.5, 0.0])


def test_an_unknown_keyword_names_the_parameters():
    @wp.kernel(module="unique")
    def k(out: wp.array(dtype=float)):
        out[0] = wp.clamp(1.0, lo=0.0, hi=2.0)

    with pytest.raises(wp.CodegenError, match=r"wp.clamp\(\): no overload takes 1 positional argument\(s\) "
                                              r"and the keyword\(s\) lo, hi; its parameters: \(x, a, b\)"):
        wp.launch(k, dim=1, inputs=[wp.zeros(1, dtype=float)])


def test_cubql_is_reported_unavailable_and_refused():
    assert wp.is_cubql_available() is False
    lo = np.zeros((2, 3), np.float32)
    with pytest.raises(ValueError, match="unknown BVH constructor 'cubql'"):
        wp.Mesh(wp.array(lo, dtype=wp.vec3), wp.array([0, 1, 1], dtype=wp.int32), bvh_constructor="cubql")


# --- vec4f / vec4d volumes -----------------------------------------------------------------------------
def _vec4_kernels(vt):
    scalar = vt._wp_scalar_type_
    m43 = wp.types.matrix((4, 3), scalar)

    @wp.kernel(module="unique")
    def store(volume: wp.uint64, ijk: wp.array(dtype=wp.vec3i), values: wp.array(dtype=vt)):
        t = wp.tid()
        wp.volume_store(volume, ijk[t][0], ijk[t][1], ijk[t][2], values[t])

    @wp.kernel(module="unique")
    def sample(volume: wp.uint64, uvw: wp.array(dtype=wp.vec3), mode: int, values: wp.array(dtype=vt),
               jac: wp.array(dtype=m43), looked: wp.array(dtype=vt), ijk: wp.array(dtype=wp.vec3i)):
        t = wp.tid()
        g = m43()
        values[t] = wp.volume_sample_grad(volume, uvw[t], mode, g, dtype=vt)
        jac[t] = g
        if wp.volume_sample(volume, uvw[t], mode, dtype=vt) != values[t]:
            values[t] = vt()   # the plain sample must agree with the grad form
        looked[t] = wp.volume_lookup(volume, ijk[t][0], ijk[t][1], ijk[t][2], dtype=vt)

    return store, sample, m43


@pytest.mark.parametrize("vt", [wp.vec4f, wp.vec4d])
@pytest.mark.parametrize("mode", ["LINEAR", "CLOSEST"])
def test_vec4_volumes_store_lookup_and_sample_an_affine_field(vt, mode):
    # value(ijk) = A ijk + c on [-4, 4]^3: trilinear sampling is exact, the Jacobian is A
    np_t = np.float64 if vt is wp.vec4d else np.float32
    a = RNG.normal(size=(4, 3)).astype(np_t)
    c = RNG.normal(size=4).astype(np_t)
    volume = wp.Volume.allocate(min=(-4, -4, -4), max=(4, 4, 4), voxel_size=1.0, bg_value=vt(0.0, 0.0, 0.0, 0.0))
    assert volume.dtype is vt
    ijk = np.stack(np.meshgrid(*[np.arange(-4, 5)] * 3, indexing="ij"), -1).reshape(-1, 3).astype(np.int32)
    store, sample, m43 = _vec4_kernels(vt)
    wp.launch(store, dim=len(ijk), inputs=[volume.id, wp.array(ijk, dtype=wp.vec3i),
                                          wp.array(ijk @ a.T + c, dtype=vt)])
    n = 40
    uvw = RNG.uniform(-3.0, 3.0, (n, 3)).astype(np.float32)
    probe = RNG.integers(-6, 7, (n, 3)).astype(np.int32)   # some outside: the background
    values, jac, looked = wp.zeros(n, dtype=vt), wp.zeros(n, dtype=m43), wp.zeros(n, dtype=vt)
    wp.launch(sample, dim=n, inputs=[volume.id, wp.array(uvw, dtype=wp.vec3), getattr(wp.Volume, mode),
                                     values, jac, looked, wp.array(probe, dtype=wp.vec3i)])
    inside = np.all(np.abs(probe) <= 4, axis=1)[:, None]
    np.testing.assert_allclose(looked.numpy(), np.where(inside, probe @ a.T + c, 0.0), rtol=1e-5, atol=1e-5)
    if mode == "LINEAR":
        np.testing.assert_allclose(values.numpy(), uvw @ a.T + c, rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(jac.numpy(), np.broadcast_to(a, (n, 4, 3)), rtol=1e-4, atol=1e-4)
    else:
        np.testing.assert_allclose(values.numpy(), np.floor(uvw + 0.5) @ a.T + c, rtol=1e-5, atol=1e-5)
        assert not jac.numpy().any()


@pytest.mark.parametrize("grid_type", [1, 4, 6, 17, 18])
def test_nanovdb_layouts_follow_the_value_alignment(grid_type):
    # NanoVDB places values at their type's alignment: doubles move the root background from 28
    # to 32 and a root tile's value from 20 to 24; stats are double for double grids
    from warp_interactive.geometry import nanovdb as nv
    L = nv.layout(grid_type)
    scalar, n = nv.GRID_TYPES[grid_type]
    size = np.dtype(scalar).itemsize
    assert L["bg"] == (32 if size == 8 else 28)
    assert L["value"] == size * n and L["stride"] == max(8, -(-size * n // 8) * 8)
    stats = 16 if size == 8 else 8
    assert L["leaf_values"] == -(-(80 + 2 * size * n + stats) // 32) * 32
    assert L["root"] % 32 == 0 and L["tile"] % 32 == 0


def test_volume_sample_grad_names_the_expected_jacobian():
    m34 = wp.types.matrix((3, 4), wp.float32)

    @wp.kernel(module="unique")
    def k(volume: wp.uint64, out: wp.array(dtype=wp.vec4f)):
        g = m34()
        out[0] = wp.volume_sample_grad(volume, wp.vec3(), wp.Volume.LINEAR, g, dtype=wp.vec4f)

    with pytest.raises(wp.CodegenError, match="Incompatible gradient type, expected mat43f, got mat34f"):
        wp.launch(k, dim=1, inputs=[wp.uint64(0), wp.zeros(1, dtype=wp.vec4f)])


# --- volumes: files with several grids, grid info, feature (blind) data -------------------------------
def _two_grid_file(codec):
    import io
    a = wp.Volume.allocate(min=(0, 0, 0), max=(7, 7, 7), voxel_size=0.5, bg_value=1.5)
    b = wp.Volume.allocate_by_voxels(np.array([[0, 0, 0], [20, 3, 9]], np.float32), voxel_size=2.0)
    from warp_interactive.geometry import nanovdb as nv
    grids = [np.array(a.buffer()), np.array(b.buffer())]
    for i, g in enumerate(grids):   # GridData: grid index and count of the set
        g[24:32] = np.frombuffer(struct.pack("<II", i, 2), np.uint8)
    f = io.BytesIO()
    nv.write_file(f, grids, codec={"none": nv.CODEC_NONE, "zip": nv.CODEC_ZIP}[codec])
    return f.getvalue(), grids


@pytest.mark.parametrize("codec", ["none", "zip"])
def test_a_file_of_two_grids_loads_as_a_chain_of_volumes(codec):
    import io
    data, grids = _two_grid_file(codec)
    first = wp.Volume.load_from_nvdb(data)
    second = first.load_next_grid()
    assert second is not None and second.load_next_grid() is None
    assert (first.get_grid_info().grid_index, second.get_grid_info().grid_index) == (0, 1)
    assert first.get_grid_info().grid_count == second.get_grid_info().grid_count == 2
    np.testing.assert_array_equal(first.buffer(), grids[0])
    np.testing.assert_array_equal(second.buffer(), grids[1])
    assert first.dtype is wp.float32 and second.dtype is None and first.id != second.id
    # saving the first grid writes the set; a later grid alone is refused
    f = io.BytesIO()
    first.save_to_nvdb(f, codec=codec)
    again = wp.Volume.load_from_nvdb(f.getvalue())
    np.testing.assert_array_equal(again.load_next_grid().buffer(), grids[1])
    with pytest.raises(RuntimeError, match="this is grid 1 of its file"):
        second.save_to_nvdb(io.BytesIO())


def test_grid_info_describes_the_grid():
    vol = wp.Volume.allocate(min=(-1, -1, -1), max=(1, 1, 1), voxel_size=0.25, bg_value=wp.vec3(1.0, 2.0, 3.0),
                             translation=(1.0, 2.0, 3.0))
    info = vol.get_grid_info()
    assert (info.grid_index, info.grid_count, info.type_str) == (0, 1, "Vec3f")
    assert info.size_in_bytes == len(vol.buffer())
    np.testing.assert_allclose(np.array(info.transform_matrix).reshape(3, 3), 0.25 * np.eye(3))
    np.testing.assert_allclose(np.array(info.translation), [1.0, 2.0, 3.0])
    assert vol.get_tiles().dtype is wp.int32 and vol.get_tiles().shape == (vol.get_tile_count(), 3)


def test_feature_arrays_read_the_grid_blind_data():
    # append one blind-data record by hand (NanoVDB GridBlindMetaData, 288 B) after the grid
    vol = wp.Volume.allocate(min=(0, 0, 0), max=(7, 7, 7), voxel_size=1.0, bg_value=0.0)
    grid = np.array(vol.buffer())
    payload = np.arange(10, dtype=np.uint64)
    meta = struct.pack("<qQIIII", 288, payload.nbytes, 1, 0, 0, 0) + b"features".ljust(256, b"\0")
    size = len(grid) + 288 + payload.nbytes
    buf = np.concatenate([grid, np.frombuffer(meta, np.uint8), payload.view(np.uint8)])
    buf[32:40] = np.frombuffer(struct.pack("<Q", size), np.uint8)                      # grid size
    buf[640:652] = np.frombuffer(struct.pack("<qI", len(grid), 1), np.uint8)           # blind metadata
    from warp_interactive.geometry import nanovdb as nv
    with_blind = wp.Volume(nv.aligned_bytes(len(buf), buf.tobytes()))
    assert with_blind.get_feature_array_count() == 1 and vol.get_feature_array_count() == 0
    info = with_blind.get_feature_array_info(0)
    assert (info.name, info.value_size, info.value_count) == ("features", 1, payload.nbytes)
    np.testing.assert_array_equal(with_blind.feature_array(0, dtype=wp.uint64).numpy(), payload)
    assert with_blind.feature_array(0).dtype is wp.uint8       # unknown stored type: bytes
    with pytest.raises(IndexError, match="feature array 1 out of range"):
        with_blind.feature_array(1)


def _vec4_sample_kernel(vt):
    @wp.kernel(module="unique")
    def sample(volume: wp.uint64, uvw: wp.array(dtype=wp.vec3), w: wp.array(dtype=vt), out: wp.array(dtype=float)):
        t = wp.tid()
        v = wp.volume_sample(volume, uvw[t], wp.Volume.LINEAR, dtype=vt)
        out[t] = float(wp.dot(v, w[t]))
    return sample


@pytest.mark.parametrize("vt", [wp.vec4f, wp.vec4d])
def test_vec4_volume_sample_gradient_matches_finite_differences(vt):
    np_t = np.float64 if vt is wp.vec4d else np.float32
    volume = wp.Volume.allocate(min=(-3, -3, -3), max=(3, 3, 3), voxel_size=1.0, bg_value=vt(0.0, 0.0, 0.0, 0.0))
    ijk = np.stack(np.meshgrid(*[np.arange(-3, 4)] * 3, indexing="ij"), -1).reshape(-1, 3).astype(np.int32)
    store, _, _ = _vec4_kernels(vt)
    wp.launch(store, dim=len(ijk), inputs=[volume.id, wp.array(ijk, dtype=wp.vec3i),
                                          wp.array(RNG.normal(size=(len(ijk), 4)).astype(np_t), dtype=vt)])
    n = 16
    uvw_np = RNG.uniform(-2.0, 2.0, (n, 3)).astype(np.float32)
    uvw_np = np.floor(uvw_np) + np.clip(uvw_np - np.floor(uvw_np), 0.1, 0.9)   # off the cell faces
    w = wp.array(RNG.normal(size=(n, 4)).astype(np_t), dtype=vt)
    uvw = wp.array(uvw_np, dtype=wp.vec3, requires_grad=True)
    out = wp.zeros(n, dtype=float, requires_grad=True)
    kernel = _vec4_sample_kernel(vt)
    tape = wp.Tape()
    with tape:
        wp.launch(kernel, dim=n, inputs=[volume.id, uvw, w, out])
    tape.backward(grads={out: wp.ones(n, dtype=float)})
    h, fd = 1e-2, np.zeros((n, 3))
    for k in range(3):
        for sgn in (1, -1):
            p = uvw_np.copy()
            p[:, k] += sgn * h
            o = wp.zeros(n, dtype=float)
            wp.launch(kernel, dim=n, inputs=[volume.id, wp.array(p, dtype=wp.vec3), w, o])
            fd[:, k] += sgn * o.numpy() / (2 * h)
    np.testing.assert_allclose(uvw.grad.numpy(), fd, rtol=2e-3, atol=2e-3)
    assert np.abs(fd).max() > 0.1


def _index_kernel(dt, gt):
    @wp.kernel(module="unique")
    def k(volume: wp.uint64, uvw: wp.array(dtype=wp.vec3), data: wp.array(dtype=dt), bg: wp.array(dtype=dt),
          out: wp.array(dtype=dt), grads: wp.array(dtype=gt)):
        t = wp.tid()
        g = gt()
        out[t] = wp.volume_sample_grad_index(volume, uvw[t], wp.Volume.LINEAR, data, bg[0], g)
        grads[t] = g
    return k


@pytest.mark.parametrize("dt", [wp.float64, wp.vec4f, wp.vec4d, wp.vec3d])
def test_index_volume_sampling_of_double_and_vec4_data_matches_numpy(dt):
    scalar = getattr(dt, "_wp_scalar_type_", dt)
    n_comp = getattr(dt, "_length_", 1)
    gt = wp.types.vector(3, scalar) if n_comp == 1 else wp.types.matrix((n_comp, 3), scalar)
    volume = wp.Volume.allocate_by_tiles(np.array([[0, 0, 0], [8, 0, 0]], np.int32), voxel_size=1.0, bg_value=None)
    voxels = volume.get_voxels().numpy()
    np_t = np.float64 if scalar is wp.float64 else np.float32
    values = RNG.normal(size=(len(voxels), n_comp)).astype(np_t)
    bg = RNG.normal(size=n_comp).astype(np_t)
    where = {tuple(v): i for i, v in enumerate(voxels)}
    uvw = RNG.uniform(-0.5, 16.5, (30, 3)).astype(np.float32)
    out, grads = wp.zeros(30, dtype=dt), wp.zeros(30, dtype=gt)
    flat = values if n_comp > 1 else values[:, 0]
    wp.launch(_index_kernel(dt, gt), dim=30, inputs=[volume.id, wp.array(uvw, dtype=wp.vec3), wp.array(flat, dtype=dt),
                                                   wp.array(bg[None] if n_comp > 1 else bg, dtype=dt), out, grads])
    ref, ref_g = np.zeros((30, n_comp)), np.zeros((30, n_comp, 3))
    for q, p in enumerate(uvw.astype(np.float64)):
        f = np.floor(p)
        t = p - f
        for c in range(8):
            o = np.array([c >> 2, (c >> 1) & 1, c & 1])
            v = values[where[tuple(f.astype(int) + o)]] if tuple(f.astype(int) + o) in where else bg
            w = np.where(o, t, 1 - t)
            ref[q] += v * w.prod()
            for k in range(3):
                dw = w.copy()
                dw[k] = 1.0 if o[k] else -1.0
                ref_g[q, :, k] += v * dw.prod()
    tol = 1e-9 if np_t is np.float64 else 1e-5
    np.testing.assert_allclose(out.numpy().reshape(30, n_comp), ref, rtol=1e-5, atol=1e-5 + tol)
    np.testing.assert_allclose(grads.numpy().reshape(30, n_comp, 3), ref_g, rtol=1e-5, atol=1e-5)


# --- sampled gradients are differentiable (value and gradient flow back to uvw and the data) --------
def _grad_f_kernel():
    @wp.kernel(module="unique")
    def k(volume: wp.uint64, uvw: wp.array(dtype=wp.vec3), wg: wp.vec3, out: wp.array(dtype=float)):
        t = wp.tid()
        g = wp.vec3()
        v = wp.volume_sample_grad_f(volume, uvw[t], wp.Volume.LINEAR, g)
        out[t] = 0.7 * v + wp.dot(g, wg)
    return k


def _grad_v_kernel():
    @wp.kernel(module="unique")
    def k(volume: wp.uint64, uvw: wp.array(dtype=wp.vec3), wg: wp.vec3, out: wp.array(dtype=float)):
        t = wp.tid()
        g = wp.mat33()
        v = wp.volume_sample_grad_v(volume, uvw[t], wp.Volume.LINEAR, g)
        out[t] = wp.dot(v, wg) + wp.dot(g * wg, wp.vec3(0.3, -0.8, 0.5))
    return k


def _grad_v4_kernel(vt):
    m43 = wp.types.matrix((4, 3), vt._wp_scalar_type_)

    @wp.kernel(module="unique")
    def k(volume: wp.uint64, uvw: wp.array(dtype=wp.vec3), wg: wp.vec3, out: wp.array(dtype=float)):
        t = wp.tid()
        g = m43()
        v = wp.volume_sample_grad(volume, uvw[t], wp.Volume.LINEAR, g, dtype=vt)
        s = v[0] - v[3] + g[1, 0] * vt._wp_scalar_type_(wg[0]) + g[2, 2] * vt._wp_scalar_type_(wg[2])
        out[t] = float(s)
    return k


def _grad_index_kernel(dt, gt):
    if dt is wp.float32:
        @wp.kernel(module="unique")
        def ks(volume: wp.uint64, uvw: wp.array(dtype=wp.vec3), data: wp.array(dtype=dt), bg: wp.array(dtype=dt),
               wv: dt, wg: gt, out: wp.array(dtype=float)):
            t = wp.tid()
            g = gt()
            v = wp.volume_sample_grad_index(volume, uvw[t], wp.Volume.LINEAR, data, bg[0], g)
            out[t] = v * wv + wp.dot(g, wg)
        return ks

    @wp.kernel(module="unique")
    def k(volume: wp.uint64, uvw: wp.array(dtype=wp.vec3), data: wp.array(dtype=dt), bg: wp.array(dtype=dt),
          wv: dt, wg: gt, out: wp.array(dtype=float)):
        t = wp.tid()
        g = gt()
        v = wp.volume_sample_grad_index(volume, uvw[t], wp.Volume.LINEAR, data, bg[0], g)
        out[t] = float(wp.dot(v, wv) + wp.ddot(g, wg))
    return k


def _random_volume(kind):
    ijk = np.stack(np.meshgrid(*[np.arange(-3, 4)] * 3, indexing="ij"), -1).reshape(-1, 3).astype(np.int32)
    if kind in ("f", "v"):
        n = 3 if kind == "v" else 1
        dense = RNG.normal(size=(7, 7, 7, n)).astype(np.float32)
        return wp.Volume.load_from_numpy(dense if n == 3 else dense[..., 0], bg_value=(0.0,) * n if n == 3 else 0.0), 3.0
    vt = wp.vec4f if kind == "v4f" else wp.vec4d
    vol = wp.Volume.allocate(min=(-3, -3, -3), max=(3, 3, 3), voxel_size=1.0, bg_value=vt(0.0, 0.0, 0.0, 0.0))
    store, _, _ = _vec4_kernels(vt)
    np_t = np.float64 if vt is wp.vec4d else np.float32
    wp.launch(store, dim=len(ijk), inputs=[vol.id, wp.array(ijk, dtype=wp.vec3i),
                                          wp.array(RNG.normal(size=(len(ijk), 4)).astype(np_t), dtype=vt)])
    return vol, 0.0


def _fd_uvw(launch, uvw_np, h=1e-2):
    fd = np.zeros_like(uvw_np, dtype=np.float64)
    for k in range(3):
        for sgn in (1, -1):
            p = uvw_np.copy()
            p[:, k] += sgn * h
            fd[:, k] += sgn * launch(p) / (2 * h)
    return fd


@pytest.mark.parametrize("kind", ["f", "v", "v4f", "v4d"])
def test_sampled_gradient_forms_gradient_matches_finite_differences(kind):
    volume, shift = _random_volume(kind)
    kernel = {"f": _grad_f_kernel, "v": _grad_v_kernel}.get(kind) or (lambda: _grad_v4_kernel(
        wp.vec4f if kind == "v4f" else wp.vec4d))
    kernel = kernel()
    n = 12
    uvw_np = RNG.uniform(-2.0, 2.0, (n, 3)).astype(np.float32) + shift
    uvw_np = np.floor(uvw_np) + np.clip(uvw_np - np.floor(uvw_np), 0.1, 0.9)
    wg = wp.vec3(0.4, -1.1, 0.9)

    def launch(p):
        o = wp.zeros(n, dtype=float)
        wp.launch(kernel, dim=n, inputs=[volume.id, wp.array(p, dtype=wp.vec3), wg, o])
        return o.numpy()

    uvw = wp.array(uvw_np, dtype=wp.vec3, requires_grad=True)
    out = wp.zeros(n, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(kernel, dim=n, inputs=[volume.id, uvw, wg, out])
    tape.backward(grads={out: wp.ones(n, dtype=float)})
    fd = _fd_uvw(launch, uvw_np)
    np.testing.assert_allclose(uvw.grad.numpy(), fd, rtol=2e-3, atol=2e-3)
    assert np.abs(fd).max() > 0.1


@pytest.mark.parametrize("dt", [wp.float32, wp.vec4d])
def test_index_sample_grad_gradient_reaches_uvw_data_and_background(dt):
    scalar = getattr(dt, "_wp_scalar_type_", dt)
    n_comp = getattr(dt, "_length_", 1)
    gt = wp.types.vector(3, scalar) if n_comp == 1 else wp.types.matrix((n_comp, 3), scalar)
    volume = wp.Volume.allocate_by_tiles(np.array([[0, 0, 0]], np.int32), voxel_size=1.0, bg_value=None)
    np_t = np.float64 if scalar is wp.float64 else np.float32
    values = RNG.normal(size=(volume.get_voxel_count(), n_comp)).astype(np_t)
    values = values if n_comp > 1 else values[:, 0]
    bg_np = RNG.normal(size=(1, n_comp) if n_comp > 1 else (1,)).astype(np_t)
    wv = dt(*RNG.normal(size=n_comp)) if n_comp > 1 else dt(0.7)
    wg = gt(*RNG.normal(size=3 * n_comp))
    n = 10
    uvw_np = RNG.uniform(-0.8, 7.8, (n, 3)).astype(np.float32)   # some corners outside: background
    uvw_np = np.floor(uvw_np) + np.clip(uvw_np - np.floor(uvw_np), 0.1, 0.9)
    kernel = _grad_index_kernel(dt, gt)

    def launch(p, vals=values, b=bg_np):
        o = wp.zeros(n, dtype=float)
        wp.launch(kernel, dim=n, inputs=[volume.id, wp.array(p, dtype=wp.vec3), wp.array(vals, dtype=dt),
                                         wp.array(b, dtype=dt), wv, wg, o])
        return o.numpy().astype(np.float64)

    uvw = wp.array(uvw_np, dtype=wp.vec3, requires_grad=True)
    data = wp.array(values, dtype=dt, requires_grad=True)
    bg = wp.array(bg_np, dtype=dt, requires_grad=True)
    out = wp.zeros(n, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(kernel, dim=n, inputs=[volume.id, uvw, data, bg, wv, wg, out])
    tape.backward(grads={out: wp.ones(n, dtype=float)})
    np.testing.assert_allclose(uvw.grad.numpy(), _fd_uvw(launch, uvw_np), rtol=2e-3, atol=2e-3)
    # the output is linear in the data and the background: a unit step is the exact derivative
    base = launch(uvw_np).sum()
    for idx in list(RNG.choice(len(values), 6, replace=False)):
        step = values.copy()
        step.reshape(len(values), -1)[idx, 0] += 1.0
        want = launch(uvw_np, vals=step).sum() - base
        np.testing.assert_allclose(data.grad.numpy().reshape(len(values), -1)[idx, 0], want, rtol=1e-3, atol=1e-4)
    step = bg_np.copy()
    step.reshape(-1)[0] += 1.0
    np.testing.assert_allclose(bg.grad.numpy().reshape(-1)[0], launch(uvw_np, b=step).sum() - base, rtol=1e-3, atol=1e-4)


@pytest.mark.parametrize("scalar,vec", [(wp.float16, wp.vec3h), (wp.float32, wp.vec3f), (wp.float64, wp.vec3d)])
@pytest.mark.parametrize("point,query,found", [
    (0.0, np.nan, True),       # a NaN query looks in cell 0, where the point at the origin is
    (np.nan, 0.0, True),       # a NaN point is binned into cell 0
    (0.0, np.inf, False),      # infinities go to the clamped edge cells, not cell 0
    (0.0, -np.inf, False),
])
def test_hash_grid_nan_and_infinite_coordinates(scalar, vec, point, query, found):
    @wp.kernel(module="unique")
    def k(grid: wp.uint64, q: vec, out: wp.array(dtype=int)):
        for j in wp.hash_grid_query(grid, q, scalar(0.0)):
            out[0] += 1

    grid = wp.HashGrid(3, 5, 7, dtype=scalar)
    grid.build(wp.array([[point, 1.0, 0.0]], dtype=vec), 1.0)
    out = wp.zeros(1, dtype=int)
    wp.launch(k, dim=1, inputs=[grid.id, vec(query, 1.0, 0.0), out])
    assert out.numpy()[0] == int(found)


def test_uninitialised_structures_can_be_deleted():
    for cls in (wp.HashGrid, wp.Volume):
        cls.__new__(cls).__del__()


@wp.kernel
def _to_world_sum(volume: wp.uint64, p: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
    t = wp.tid()
    out[t] = wp.dot(wp.volume_index_to_world(volume, p[t]), wp.vec3(1.0, 2.0, 3.0)) + \
        wp.dot(wp.volume_world_to_index(volume, p[t]), wp.vec3(-1.0, 0.5, 2.0))


def test_index_world_transform_gradients_follow_a_rotated_map():
    # a map that is not symmetric (a rotation about x and a scale): the adjoint of p -> M p is
    # M^T (warp-lang 1.19 applies M; see docs/compatibility.md)
    from warp_interactive.geometry import nanovdb as nv
    vol = wp.Volume.allocate(min=(0, 0, 0), max=(7, 7, 7), voxel_size=1.0, bg_value=0.0)
    m = np.array([[0.1, 0.0, 0.0], [0.0, 0.0, 0.1], [0.0, -0.1, 0.0]], np.float32)
    buf = np.array(vol.buffer())
    buf[296:332] = np.frombuffer(m.tobytes(), np.uint8)                            # index -> world
    buf[332:368] = np.frombuffer(np.linalg.inv(m).astype(np.float32).tobytes(), np.uint8)
    rotated = wp.Volume(nv.aligned_bytes(len(buf), buf.tobytes()))
    p_np = RNG.normal(size=(4, 3)).astype(np.float32)
    p = wp.array(p_np, dtype=wp.vec3, requires_grad=True)
    out = wp.zeros(4, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(_to_world_sum, dim=4, inputs=[rotated.id, p, out])
    tape.backward(grads={out: wp.ones(4, dtype=float)})
    want = m.T @ np.array([1.0, 2.0, 3.0]) + np.linalg.inv(m).T @ np.array([-1.0, 0.5, 2.0])
    np.testing.assert_allclose(p.grad.numpy(), np.broadcast_to(want, (4, 3)), rtol=1e-5, atol=1e-5)
