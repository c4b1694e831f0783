"""wp.Mesh, wp.Bvh, wp.HashGrid and wp.Volume on a CUDA device: the reference's raycast,
neighbour-sum and grid-sampling examples, closest points, box queries, refits after the points
moved on the device, hash-grid rebuilds, volume stores, each checked against the CPU (itself
checked against brute force in test_geometry.py / test_volume.py) or brute force.

Skipped without a GPU; test_geometry_cuda_fake.py runs the same tests on the stand-in driver
(tests/support/cuda_fake.py), so the device path is exercised on every CI run."""

import numpy as np
import pytest

import warp_interactive as wp
from geometry_ref import box_overlaps, closest_distance, icosphere
# the reference's raycast, neighbour-sum and grid-sampling example kernels, as the CPU tests run them
from tests.geometry.test_geometry import raycast, sum  # noqa: A004
from tests.geometry.test_volume import sample_grid

pytestmark = pytest.mark.skipif(wp.get_cuda_device_count() == 0, reason="needs a CUDA device")

RNG_SEED = 3


@pytest.fixture
def device():
    return "cuda:0"


# --- kernels: the reference's three examples verbatim, then helpers (one module) ------------------
@wp.kernel
def closest(mesh: wp.uint64, pts: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3),
            sign: wp.array(dtype=float)):
    tid = wp.tid()
    q = wp.mesh_query_point(mesh, pts[tid], 10.0)
    out[tid] = wp.mesh_eval_position(mesh, q.face, q.u, q.v)
    w = wp.mesh_query_point_sign_winding_number(mesh, pts[tid], 10.0)
    sign[tid] = q.sign + 10.0 * w.sign


@wp.kernel
def mesh_boxes(mesh: wp.uint64, lo: wp.array(dtype=wp.vec3), hi: wp.array(dtype=wp.vec3),
               hits: wp.array(dtype=int, ndim=2)):
    tid = wp.tid()
    query = wp.mesh_query_aabb(mesh, lo[tid], hi[tid])
    face = int(0)
    while wp.mesh_query_aabb_next(query, face):
        hits[tid, face] = hits[tid, face] + 1


@wp.kernel
def bvh_boxes(bvh: wp.uint64, lo: wp.array(dtype=wp.vec3), hi: wp.array(dtype=wp.vec3),
              hits: wp.array(dtype=int, ndim=2)):
    tid = wp.tid()
    query = wp.bvh_query_aabb(bvh, lo[tid], hi[tid])
    item = int(0)
    while wp.bvh_query_next(query, item):
        hits[tid, item] = hits[tid, item] + 1


@wp.kernel
def move(points: wp.array(dtype=wp.vec3), scale: float, offset: wp.vec3):
    tid = wp.tid()
    points[tid] = points[tid] * scale + offset


@wp.kernel
def store_then_read(volume: wp.uint64, ijk: wp.array(dtype=int, ndim=2), values: wp.array(dtype=float)):
    tid = wp.tid()
    wp.volume_store_f(volume, ijk[tid, 0], ijk[tid, 1], ijk[tid, 2], values[tid])


# --- helpers -----------------------------------------------------------------------------------------
def vec3s(a, device):
    return wp.array(np.asarray(a, np.float32).reshape(-1, 3), dtype=wp.vec3, device=device)


def run(kernel, n, inputs, device):
    wp.launch(kernel, dim=n, inputs=inputs, device=device)


def sphere_mesh(device):
    verts, faces = icosphere(2)
    return wp.Mesh(vec3s(verts, device), wp.array(faces.reshape(-1), dtype=wp.int32, device=device))


def rays(n, rng):
    origins = rng.uniform(-2, 2, (n, 3)).astype(np.float32)
    dirs = (rng.uniform(-1.2, 1.2, (n, 3)) - origins).astype(np.float32)
    return origins, dirs / np.linalg.norm(dirs, axis=1, keepdims=True)


def cast(mesh, origins, dirs, device):
    hit = wp.zeros(len(origins), dtype=wp.vec3, device=device)
    run(raycast, len(origins), [mesh.id, vec3s(origins, device), vec3s(dirs, device), hit], device)
    return hit.numpy()


# --- meshes --------------------------------------------------------------------------------------------
def test_raycast_example_and_refit_on_the_device_match_the_cpu(device):
    rng = np.random.default_rng(RNG_SEED)
    origins, dirs = rays(400, rng)
    gpu, cpu = sphere_mesh(device), sphere_mesh("cpu")
    assert gpu.device == device and gpu.id != 0
    got, want = cast(gpu, origins, dirs, device), cast(cpu, origins, dirs, "cpu")
    hits = np.any(want != 0, axis=1)
    assert 50 < hits.sum() < len(origins)
    np.testing.assert_allclose(got, want, atol=1e-5)
    # move the points with a kernel on the device, refit, cast again: the hits follow
    for mesh, dev in ((gpu, device), (cpu, "cpu")):
        run(move, len(mesh.points), [mesh.points, 0.6, wp.vec3(0.2, -0.1, 0.3)], dev)
        mesh.refit()
    got, want = cast(gpu, origins, dirs, device), cast(cpu, origins, dirs, "cpu")
    assert np.any(np.any(want != 0, axis=1) != hits)   # the moved sphere is hit by other rays
    np.testing.assert_allclose(got, want, atol=1e-5)


def test_closest_points_signs_and_box_queries_on_the_device(device):
    rng = np.random.default_rng(RNG_SEED + 1)
    verts, faces = icosphere(2)
    mesh = sphere_mesh(device)
    pts = rng.uniform(-1.5, 1.5, (300, 3)).astype(np.float32)
    out, sign = wp.zeros(300, dtype=wp.vec3, device=device), wp.zeros(300, dtype=float, device=device)
    run(closest, 300, [mesh.id, vec3s(pts, device), out, sign], device)
    dist = np.linalg.norm(out.numpy() - pts, axis=1)
    np.testing.assert_allclose(dist, closest_distance(pts.astype(np.float64), verts[faces]), atol=1e-5)
    inside = np.linalg.norm(pts, axis=1) < 0.98       # the icosphere lies within the unit sphere
    outside = np.linalg.norm(pts, axis=1) > 1.0
    s = sign.numpy()
    assert np.all(s[inside] == -11.0) and np.all(s[outside] == 11.0)   # parity and winding agree

    lo = rng.uniform(-1.2, 1.0, (40, 3)).astype(np.float32)
    hi = lo + rng.uniform(0.0, 0.4, (40, 3)).astype(np.float32)
    hits = wp.zeros((40, len(faces)), dtype=int, device=device)
    run(mesh_boxes, 40, [mesh.id, vec3s(lo, device), vec3s(hi, device), hits], device)
    tri = verts[faces]
    np.testing.assert_array_equal(hits.numpy(), box_overlaps(lo, hi, tri.min(1), tri.max(1)).astype(int))


def test_bvh_on_device_boxes_and_refit_match_brute_force(device):
    rng = np.random.default_rng(RNG_SEED + 2)
    c = rng.uniform(-1, 1, (500, 3)).astype(np.float32)
    h = rng.uniform(0.0, 0.08, (500, 3)).astype(np.float32)
    lowers, uppers = vec3s(c - h, device), vec3s(c + h, device)
    bvh = wp.Bvh(lowers, uppers)
    qlo = rng.uniform(-1, 0.8, (50, 3)).astype(np.float32)
    qhi = qlo + rng.uniform(0.0, 0.3, (50, 3)).astype(np.float32)
    for step in range(2):
        hits = wp.zeros((50, 500), dtype=int, device=device)
        run(bvh_boxes, 50, [bvh.id, vec3s(qlo, device), vec3s(qhi, device), hits], device)
        want = box_overlaps(qlo, qhi, lowers.numpy(), uppers.numpy()).astype(int)
        np.testing.assert_array_equal(hits.numpy(), want)
        for a in (lowers, uppers):   # move every box on the device, then refit
            run(move, 500, [a, 1.3, wp.vec3(0.1, -0.2, 0.0)], device)
        bvh.refit()


# --- hash grids ----------------------------------------------------------------------------------------
def test_neighbour_sum_example_and_rebuild_on_the_device(device):
    rng = np.random.default_rng(RNG_SEED + 3)
    n, radius = 2000, 0.1
    pts = rng.uniform(-1, 1, (n, 3)).astype(np.float32)
    grid = wp.HashGrid(dim_x=128, dim_y=128, dim_z=128, device=device)
    p = vec3s(pts, device)
    for step in range(2):
        grid.build(points=p, radius=radius)
        out = wp.zeros(n, dtype=wp.vec3, device=device)
        wp.launch(sum, dim=n, inputs=[grid.id, p, out, radius], device=device)
        host = p.numpy()
        d = np.linalg.norm(host[:, None] - host[None], axis=2)
        want = ((d <= radius)[..., None] * host[None]).sum(axis=1)
        np.testing.assert_allclose(out.numpy(), want, atol=1e-5)
        run(move, n, [p, 0.5, wp.vec3(0.0, 0.0, 0.0)], device)   # denser: more neighbours


# --- volumes ---------------------------------------------------------------------------------------------
def sphere_sdf(n=40, vs=0.1):
    x = np.arange(n) * vs - 2.0
    X, Y, Z = np.meshgrid(x, x, x, indexing="ij")
    return (np.sqrt(X ** 2 + Y ** 2 + Z ** 2) - 1.0).astype(np.float32)


def test_grid_sampling_example_and_stores_on_the_device(device, tmp_path):
    rng = np.random.default_rng(RNG_SEED + 4)
    sdf = sphere_sdf()
    kw = dict(min_world=(-2.0, -2.0, -2.0), voxel_size=0.1, bg_value=100.0)
    gpu = wp.Volume.load_from_numpy(sdf, device=device, **kw)
    cpu = wp.Volume.load_from_numpy(sdf, device="cpu", **kw)
    assert gpu.device == device and gpu.array().device == device
    pts = rng.uniform(-1.5, 1.5, (2000, 3)).astype(np.float32)
    got = wp.zeros(2000, dtype=float, device=device)
    want = wp.zeros(2000, dtype=float, device="cpu")
    wp.launch(sample_grid, dim=2000, inputs=[gpu.id, vec3s(pts, device), got], device=device)
    wp.launch(sample_grid, dim=2000, inputs=[cpu.id, vec3s(pts, "cpu"), want], device="cpu")
    np.testing.assert_allclose(got.numpy(), want.numpy(), atol=1e-5)
    assert np.abs(got.numpy() - (np.linalg.norm(pts, axis=1) - 1.0)).max() < 0.025   # 1/4 voxel

    # stores on the device land in the grid: saving reads them back from device memory
    ijk = np.array([[3, 4, 5], [20, 20, 20], [39, 0, 7]], np.int32)
    values = np.array([-7.0, 2.5, 11.0], np.float32)
    run(store_then_read, 3, [gpu.id, wp.array(ijk, dtype=int, device=device),
                             wp.array(values, dtype=float, device=device)], device)
    path = tmp_path / "stored.nvdb"
    gpu.save_to_nvdb(str(path))
    back = wp.Volume.load_from_nvdb(str(path), device="cpu")
    expect = sdf.copy()
    expect[tuple(ijk.T)] = values
    np.testing.assert_array_equal(back.buffer()[:64], gpu.buffer()[:64])
    q = (np.argwhere(np.ones((40, 40, 40), bool))[::97] * 0.1 - 2.0).astype(np.float32)
    out = wp.zeros(len(q), dtype=float, device="cpu")
    wp.launch(sample_grid, dim=len(q), inputs=[back.id, vec3s(q, "cpu"), out], device="cpu")
    idx = np.rint((q + 2.0) / 0.1).astype(int)
    np.testing.assert_allclose(out.numpy(), expect[tuple(idx.T)], atol=1e-5)
    assert np.all(expect[tuple(ijk.T)] == values)


@wp.kernel
def sample_index(volume: wp.uint64, uvw: wp.array(dtype=wp.vec3), data: wp.array(dtype=float),
                 out: wp.array(dtype=float), idx: wp.array(dtype=int)):
    tid = wp.tid()
    p = uvw[tid]
    out[tid] = wp.volume_sample_index(volume, p, wp.Volume.LINEAR, data, -2.0)
    idx[tid] = wp.volume_lookup_index(volume, int(wp.floor(p[0])), int(wp.floor(p[1])), int(wp.floor(p[2])))


def test_rebuildable_volume_on_the_device_matches_the_cpu(device):
    """A rebuild writes the new grid into the same device buffer: lookups at the unchanged id
    agree with a CPU volume of the same points."""
    rng = np.random.default_rng(RNG_SEED + 6)
    first, second = (rng.integers(-12, 12, (n, 3)).astype(np.int32) for n in (100, 300))
    gpu = wp.Volume.allocate_by_voxels(wp.array(first, dtype=wp.vec3i, device=device), 1.0, device=device,
                                       max_active_voxels=400)
    vid = gpu.id
    status = wp.zeros(1, dtype=wp.uint32, device=device)
    gpu.rebuild(wp.array(second, dtype=wp.vec3i, device=device), status=status)
    cpu = wp.Volume.allocate_by_voxels(second, 1.0, device="cpu")
    assert gpu.id == vid and status.numpy()[0] == 0
    np.testing.assert_array_equal(gpu.get_voxels().numpy(), cpu.get_voxels().numpy())
    p = np.concatenate([second, first]).astype(np.float32) + 0.5
    res = {}
    for vol, dev in ((gpu, device), (cpu, "cpu")):
        out, idx = wp.zeros(len(p), dtype=float, device=dev), wp.zeros(len(p), dtype=int, device=dev)
        data = wp.zeros(vol.get_voxel_count(), dtype=float, device=dev)
        run(sample_index, len(p), [vol.id, vec3s(p, dev), data, out, idx], dev)
        res[dev] = idx.numpy()
    np.testing.assert_array_equal(res[device], res["cpu"])


def test_index_volume_on_the_device_matches_the_cpu(device):
    rng = np.random.default_rng(RNG_SEED + 5)
    pts = rng.integers(-12, 12, (300, 3)).astype(np.int32)
    gpu = wp.Volume.allocate_by_voxels(wp.array(pts, dtype=wp.vec3i, device=device), 1.0, device=device)
    cpu = wp.Volume.allocate_by_voxels(pts, 1.0, device="cpu")
    np.testing.assert_array_equal(gpu.get_voxels().numpy(), cpu.get_voxels().numpy())
    data = rng.normal(size=cpu.get_voxel_count()).astype(np.float32)
    p = (pts[rng.integers(0, 300, 200)] + rng.uniform(0, 1, (200, 3))).astype(np.float32)
    res = {}
    for vol, dev in ((gpu, device), (cpu, "cpu")):
        out, idx = wp.zeros(200, dtype=float, device=dev), wp.zeros(200, dtype=int, device=dev)
        run(sample_index, 200, [vol.id, vec3s(p, dev), wp.array(data, dtype=float, device=dev), out, idx], dev)
        res[dev] = out.numpy(), idx.numpy()
    np.testing.assert_allclose(res[device][0], res["cpu"][0], atol=1e-6)
    np.testing.assert_array_equal(res[device][1], res["cpu"][1])
    assert np.all(res["cpu"][1] >= 0)   # each point's own voxel is indexed


# --- errors --------------------------------------------------------------------------------------------
def test_mixed_devices_are_refused_with_the_devices_named(device):
    pts = vec3s(np.zeros((3, 3)), device)
    with pytest.raises(ValueError, match=r"wp.Mesh: indices is on cpu but the Mesh is on cuda:0"):
        wp.Mesh(pts, wp.array(np.arange(3, dtype=np.int32), dtype=wp.int32, device="cpu"))
    grid = wp.HashGrid(4, 4, 4, device="cpu")
    with pytest.raises(ValueError, match=r"wp.HashGrid: points is on cuda:0 but the HashGrid is on cpu"):
        grid.build(pts, 0.5)
