"""wp.Volume: NanoVDB files written and read back bit-exactly, the reference's grid-sampling
example on a sphere SDF, lookups/stores/sampling against NumPy, transforms and gradients."""

import io
import struct

import numpy as np
import pytest

import warp_interactive as wp

RNG = np.random.default_rng(11)


@wp.kernel
def sample_grid(volume: wp.uint64,
                points: wp.array(dtype=wp.vec3),
                samples: wp.array(dtype=float)):

    tid = wp.tid()

    # load sample point in world-space
    p = points[tid]

    # transform position to the volume's local-space
    q = wp.volume_world_to_index(volume, p)

    # sample volume with trilinear interpolation
    f = wp.volume_sample_f(volume, q, wp.Volume.LINEAR)

    # write result
    samples[tid] = f


@wp.kernel
def lookups(volume: wp.uint64, ijk: wp.array(dtype=int, ndim=2), out: wp.array(dtype=float, ndim=2)):
    tid = wp.tid()
    i, j, k = ijk[tid, 0], ijk[tid, 1], ijk[tid, 2]
    uvw = wp.vec3(float(i), float(j), float(k))
    out[tid, 0] = wp.volume_lookup_f(volume, i, j, k)
    out[tid, 1] = wp.volume_sample_f(volume, uvw + wp.vec3(0.3, -0.4, 0.2), wp.Volume.CLOSEST)
    g = wp.vec3()
    out[tid, 2] = wp.volume_sample_grad_f(volume, uvw + wp.vec3(0.25, 0.5, 0.75), wp.Volume.LINEAR, g)
    out[tid, 3] = g[0]
    out[tid, 4] = g[1]
    out[tid, 5] = g[2]


@wp.kernel
def sample_vec(volume: wp.uint64, uvw: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3)):
    tid = wp.tid()
    out[tid] = wp.volume_sample_v(volume, uvw[tid], wp.Volume.LINEAR)


@wp.kernel
def int_lookups(volume: wp.uint64, uvw: wp.array(dtype=wp.vec3), out: wp.array(dtype=int, ndim=2)):
    tid = wp.tid()
    p = uvw[tid]
    out[tid, 0] = wp.volume_sample_i(volume, p)
    out[tid, 1] = wp.volume_lookup_i(volume, int(wp.floor(p[0] + 0.5)), int(wp.floor(p[1] + 0.5)),
                                     int(wp.floor(p[2] + 0.5)))


@wp.kernel
def store(volume: wp.uint64, ijk: wp.array(dtype=int, ndim=2), values: wp.array(dtype=float),
          out: wp.array(dtype=float)):
    tid = wp.tid()
    wp.volume_store_f(volume, ijk[tid, 0], ijk[tid, 1], ijk[tid, 2], values[tid])


@wp.kernel
def read_back(volume: wp.uint64, ijk: wp.array(dtype=int, ndim=2), out: wp.array(dtype=float)):
    tid = wp.tid()
    out[tid] = wp.volume_lookup_f(volume, ijk[tid, 0], ijk[tid, 1], ijk[tid, 2])


@wp.kernel
def transforms(volume: wp.uint64, p: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3, ndim=2)):
    tid = wp.tid()
    q = wp.volume_world_to_index(volume, p[tid])
    out[tid, 0] = q
    out[tid, 1] = wp.volume_index_to_world(volume, q)
    out[tid, 2] = wp.volume_world_to_index_dir(volume, p[tid])
    out[tid, 3] = wp.volume_index_to_world_dir(volume, p[tid])


@wp.kernel
def sdf_loss(volume: wp.uint64, p: wp.array(dtype=wp.vec3), loss: wp.array(dtype=float)):
    tid = wp.tid()
    q = wp.volume_world_to_index(volume, p[tid])
    wp.atomic_add(loss, 0, wp.volume_sample_f(volume, q, wp.Volume.LINEAR))


def sphere_volume(n=40, vs=0.1):
    x = np.arange(n) * vs - 2.0
    X, Y, Z = np.meshgrid(x, x, x, indexing="ij")
    sdf = (np.sqrt(X ** 2 + Y ** 2 + Z ** 2) - 1.0).astype(np.float32)
    return sdf, wp.Volume.load_from_numpy(sdf, min_world=(-2.0, -2.0, -2.0), voxel_size=vs,
                                          bg_value=100.0)


def vec3s(a):
    return wp.array(np.asarray(a, np.float32).reshape(-1, 3), dtype=wp.vec3)


def trilinear(dense, p, bg):
    """NumPy trilinear sample of a dense array (index space; outside = background)."""
    f = np.floor(p).astype(int)
    t = p - f
    out = 0.0
    for corner in np.ndindex(2, 2, 2):
        c = f + np.array(corner)
        inside = np.all((c >= 0) & (c < np.array(dense.shape[:3])), axis=1)
        cc = np.clip(c, 0, np.array(dense.shape[:3]) - 1)
        v = np.where(inside[:, None] if dense.ndim == 4 else inside,
                     dense[cc[:, 0], cc[:, 1], cc[:, 2]], bg)
        w = np.prod(np.where(np.array(corner) == 1, t, 1 - t), axis=1)
        out = out + (w[:, None] if dense.ndim == 4 else w) * v
    return out


def test_reference_grid_sampling_example_on_a_sphere_sdf():
    sdf, volume = sphere_volume()
    pts = RNG.uniform(-1.5, 1.5, (2000, 3)).astype(np.float32)
    samples = wp.zeros(2000, dtype=float)
    wp.launch(sample_grid, dim=2000, inputs=[volume.id, vec3s(pts), samples])
    exact = np.linalg.norm(pts, axis=1) - 1.0
    assert np.abs(samples.numpy() - exact).max() < 0.1 * 0.25   # a quarter voxel
    # and exactly the trilinear interpolation of the stored voxels
    np.testing.assert_allclose(samples.numpy(), trilinear(sdf, (pts + 2.0) / 0.1, 100.0), atol=2e-5)


@pytest.mark.parametrize("codec", ["none", "zip"])
def test_nvdb_round_trip_is_bit_exact(tmp_path, codec):
    _, volume = sphere_volume(n=27)
    path = tmp_path / f"sphere_{codec}.nvdb"
    volume.save_to_nvdb(str(path), codec=codec)
    with open(path, "rb") as f:
        back = wp.Volume.load_from_nvdb(f, device="cpu")
    assert back.buffer().tobytes() == volume.buffer().tobytes()
    again = io.BytesIO()
    back.save_to_nvdb(again, codec=codec)
    assert again.getvalue() == path.read_bytes()
    magic, version, count, file_codec = struct.unpack_from("<QIHH", path.read_bytes())
    assert (magic, version >> 21, count, file_codec) == (0x304244566F6E614E, 32, 1, int(codec == "zip"))
    # a raw grid buffer (bytes or a wp.array) loads too
    raw = wp.Volume.load_from_nvdb(volume.array())
    assert raw.buffer().tobytes() == volume.buffer().tobytes()
    assert back.get_voxel_size() == pytest.approx((0.1, 0.1, 0.1))


def test_lookup_closest_and_gradient_match_numpy():
    dense = RNG.normal(size=(20, 13, 9)).astype(np.float32)
    volume = wp.Volume.load_from_numpy(dense, bg_value=-7.0)
    ijk = np.stack([RNG.integers(-3, 23, 300), RNG.integers(-3, 16, 300), RNG.integers(-3, 12, 300)], 1)
    out = wp.zeros((300, 6), dtype=float)
    wp.launch(lookups, dim=300, inputs=[volume.id, wp.array(ijk.astype(np.int32), dtype=int), out])
    o = out.numpy()
    inside = np.all((ijk >= 0) & (ijk < dense.shape), axis=1)
    want = np.where(inside, dense[tuple(np.clip(ijk, 0, np.array(dense.shape) - 1).T)], -7.0)
    np.testing.assert_array_equal(o[:, 0], want)
    np.testing.assert_array_equal(o[:, 1], want)   # closest: the offsets round back to ijk
    p = ijk + np.array([0.25, 0.5, 0.75])
    np.testing.assert_allclose(o[:, 2], trilinear(dense, p, -7.0), atol=1e-5)
    h = 1e-3
    for axis in range(3):
        e = np.zeros(3)
        e[axis] = h
        fd = (trilinear(dense, p + e, -7.0) - trilinear(dense, p - e, -7.0)) / (2 * h)
        np.testing.assert_allclose(o[:, 3 + axis], fd, atol=1e-3)


def test_vec3_and_int32_volumes():
    dense = RNG.normal(size=(10, 11, 12, 3)).astype(np.float32)
    volume = wp.Volume.load_from_numpy(dense, bg_value=(1.0, 2.0, 3.0))
    assert volume.dtype is wp.vec3
    p = RNG.uniform(-1, 12, (200, 3)).astype(np.float32)
    out = wp.zeros(200, dtype=wp.vec3)
    wp.launch(sample_vec, dim=200, inputs=[volume.id, vec3s(p), out])
    np.testing.assert_allclose(out.numpy(), trilinear(dense, p.astype(np.float64), np.array([1.0, 2.0, 3.0])),
                               atol=1e-5)
    ints = RNG.integers(-1000, 1000, (9, 9, 9)).astype(np.int32)
    ivol = wp.Volume.load_from_numpy(ints, bg_value=5)
    assert ivol.dtype is wp.int32
    q = RNG.uniform(-0.4, 8.4, (100, 3)).astype(np.float32)
    iout = wp.zeros((100, 2), dtype=int)
    wp.launch(int_lookups, dim=100, inputs=[ivol.id, vec3s(q), iout])
    r = np.floor(q + 0.5).astype(int)
    np.testing.assert_array_equal(iout.numpy()[:, 0], ints[tuple(r.T)])
    np.testing.assert_array_equal(iout.numpy()[:, 1], ints[tuple(r.T)])
    # a float query on an int grid finds no float values: it reads 0
    out_f = wp.zeros(10, dtype=float)
    wp.launch(sample_grid, dim=10, inputs=[ivol.id, vec3s(q[:10]), out_f])
    assert np.all(out_f.numpy() == 0.0)


def test_allocate_store_and_read_back():
    volume = wp.Volume.allocate(min=(-10, -4, 0), max=(5, 20, 3), voxel_size=0.5, bg_value=-1.0)
    ijk = np.stack([RNG.integers(-10, 6, 200), RNG.integers(-4, 21, 200), RNG.integers(0, 4, 200)], 1)
    ijk = np.unique(ijk, axis=0)
    far = np.array([[100, 100, 100], [-50, 0, 0]])   # no leaf there: stores are dropped
    all_ijk = wp.array(np.concatenate([ijk, far]).astype(np.int32), dtype=int)
    n = len(ijk) + 2
    values = RNG.normal(size=n).astype(np.float32)
    wp.launch(store, dim=n, inputs=[volume.id, all_ijk, wp.array(values, dtype=float), wp.zeros(1, dtype=float)])
    out = wp.zeros(n, dtype=float)
    wp.launch(read_back, dim=n, inputs=[volume.id, all_ijk, out])
    np.testing.assert_array_equal(out.numpy()[:-2], values[:-2])
    np.testing.assert_array_equal(out.numpy()[-2:], [-1.0, -1.0])
    # the stored values survive a file round trip
    f = io.BytesIO()
    volume.save_to_nvdb(f)
    back = wp.Volume.load_from_nvdb(f.getvalue())
    out2 = wp.zeros(n, dtype=float)
    wp.launch(read_back, dim=n, inputs=[back.id, all_ijk, out2])
    np.testing.assert_array_equal(out2.numpy(), out.numpy())


@wp.kernel
def generic_grad(volume: wp.uint64, uvw: wp.array(dtype=wp.vec3), h: float, out: wp.array(dtype=float, ndim=2)):
    tid = wp.tid()
    p = uvw[tid]
    g = wp.vec3()
    out[tid, 0] = wp.volume_sample_grad(volume, p, wp.Volume.LINEAR, g, dtype=float)
    out[tid, 1] = wp.volume_sample_f(volume, p, wp.Volume.LINEAR)
    for k in range(3):
        e = wp.vec3()
        e[k] = h
        fd = (wp.volume_sample_f(volume, p + e, wp.Volume.LINEAR) - wp.volume_sample_f(volume, p - e, wp.Volume.LINEAR)) / (2.0 * h)
        out[tid, 2 + k] = g[k]
        out[tid, 5 + k] = fd


def test_generic_volume_sample_grad_is_the_value_and_its_gradient():
    volume = wp.Volume.allocate(min=(-4, -4, -4), max=(4, 4, 4), voxel_size=1.0, bg_value=0.0)
    ijk = np.stack(np.meshgrid(*[np.arange(-4, 5)] * 3, indexing="ij"), -1).reshape(-1, 3).astype(np.int32)
    wp.launch(store, dim=len(ijk), inputs=[volume.id, wp.array(ijk, dtype=int),
                                           wp.array(RNG.normal(size=len(ijk)).astype(np.float32), dtype=float),
                                           wp.zeros(len(ijk), dtype=float)])
    n = 64
    uvw = RNG.uniform(-3, 3, (n, 3)).astype(np.float32)
    # stay away from cell faces, where the trilinear gradient jumps
    uvw = np.floor(uvw) + np.clip(uvw - np.floor(uvw), 0.1, 0.9)
    out = wp.zeros((n, 8), dtype=float)
    wp.launch(generic_grad, dim=n, inputs=[volume.id, wp.array(uvw, dtype=wp.vec3), 1e-2, out])
    o = out.numpy()
    np.testing.assert_allclose(o[:, 2:5], o[:, 5:8], rtol=1e-3, atol=1e-3)
    assert np.abs(o[:, 2:5]).max() > 0.1


@wp.kernel
def voxel_count(vid: wp.uint64, out: wp.array(dtype=int)):
    out[0] = wp.volume_voxel_count(vid)


def test_volume_voxel_count_counts_the_indexable_voxels():
    pts = RNG.integers(-30, 30, (50, 3)).astype(np.int32)
    out = wp.zeros(1, dtype=int)
    vol = wp.Volume.allocate_by_voxels(pts, voxel_size=1.0)          # index grid: active voxels
    wp.launch(voxel_count, dim=1, inputs=[vol.id, out])
    assert out.numpy()[0] == len(np.unique(pts, axis=0)) == vol.get_voxel_count()
    tiles = wp.Volume.allocate_by_tiles(pts, voxel_size=1.0, bg_value=2.5)   # float grid
    wp.launch(voxel_count, dim=1, inputs=[tiles.id, out])
    assert out.numpy()[0] == 512 * len(np.unique(np.floor_divide(pts, 8), axis=0))


def test_allocate_by_voxels_and_tiles_activate_the_right_voxels():
    pts = RNG.integers(-30, 30, (50, 3)).astype(np.int32)
    vol = wp.Volume.allocate_by_voxels(pts, voxel_size=1.0)
    tree = struct.unpack_from("<4Q6IQ", vol.buffer(), 672)
    assert tree[10] == len(np.unique(pts, axis=0))     # active voxel count
    tiles = wp.Volume.allocate_by_tiles(pts, voxel_size=1.0, bg_value=2.5)
    n_tiles = len(np.unique(np.floor_divide(pts, 8), axis=0))
    tree = struct.unpack_from("<4Q6IQ", tiles.buffer(), 672)
    assert (tree[4], tree[10]) == (n_tiles, 512 * n_tiles)
    out = wp.zeros(50, dtype=float)
    wp.launch(read_back, dim=50, inputs=[tiles.id, wp.array(pts, dtype=int), out])
    assert np.all(out.numpy() == 2.5)


def test_transforms_match_the_grid_map():
    volume = wp.Volume.allocate((0, 0, 0), (8, 8, 8), voxel_size=0.25, translation=(1.0, -2.0, 3.0))
    p = RNG.normal(size=(50, 3)).astype(np.float32)
    out = wp.zeros((50, 4), dtype=wp.vec3)
    wp.launch(transforms, dim=50, inputs=[volume.id, vec3s(p), out])
    o = out.numpy()
    np.testing.assert_allclose(o[:, 0], (p - [1.0, -2.0, 3.0]) / 0.25, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(o[:, 1], p, atol=1e-5)
    np.testing.assert_allclose(o[:, 2], p / 0.25, rtol=1e-6)
    np.testing.assert_allclose(o[:, 3], p * 0.25, rtol=1e-6)


def test_sampling_gradient_matches_finite_differences():
    sdf, volume = sphere_volume()
    x = np.random.default_rng(5).uniform(-1.2, 1.2, (30, 3)).astype(np.float32)
    xa = wp.array(x, dtype=wp.vec3, requires_grad=True)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(sdf_loss, dim=30, inputs=[volume.id, xa, loss])
    tape.backward(loss)
    g = xa.grad.numpy()
    h, x64 = 1e-5, x.astype(np.float64)
    for axis in range(3):
        e = np.zeros(3)
        e[axis] = h
        fd = (trilinear(sdf, (x64 + e + 2.0) / 0.1, 100.0) - trilinear(sdf, (x64 - e + 2.0) / 0.1, 100.0)) / (2 * h)
        np.testing.assert_allclose(g[:, axis], fd, atol=2e-3)
    # and close to the SDF's true gradient, the unit radial direction
    np.testing.assert_allclose(g, x / np.linalg.norm(x, axis=1, keepdims=True), atol=0.1)


def test_bad_inputs_name_the_problem():
    with pytest.raises(ValueError, match="not a NanoVDB file"):
        wp.Volume.load_from_nvdb(b"\0" * 64)
    _, volume = sphere_volume(n=9)
    f = io.BytesIO()
    volume.save_to_nvdb(f)
    data = bytearray(f.getvalue())
    data[12:14] = struct.pack("<H", 2)          # claim two grids: the second is missing
    with pytest.raises(ValueError, match="truncated NanoVDB file"):
        wp.Volume.load_from_nvdb(bytes(data))
    data[12:14] = struct.pack("<H", 1)
    data[16 + 172 - 4:16 + 172 - 2] = struct.pack("<H", 2)   # metadata codec: BLOSC
    with pytest.raises(ValueError, match="BLOSC"):
        wp.Volume.load_from_nvdb(bytes(data))
    with pytest.raises(ValueError, match="codec must be 'none' or 'zip'"):
        volume.save_to_nvdb(io.BytesIO(), codec="blosc")


@wp.kernel
def generic(volume: wp.uint64, vvol: wp.uint64, p: wp.array(dtype=wp.vec3), out: wp.array(dtype=float, ndim=2)):
    tid = wp.tid()
    out[tid, 0] = wp.volume_sample(volume, p[tid], wp.Volume.LINEAR, dtype=float)
    v = wp.volume_sample(vvol, p[tid], wp.Volume.LINEAR, dtype=wp.vec3)
    out[tid, 1] = v[1]
    out[tid, 2] = wp.volume_lookup(volume, 1, 2, 3, dtype=wp.float32)
    if tid == 0:
        wp.volume_store(volume, 0, 0, 0, 42.0)


@wp.kernel
def null_handles(out: wp.array(dtype=float)):
    out[0] = wp.volume_sample_f(wp.uint64(0), wp.vec3(1.0, 2.0, 3.0), wp.Volume.LINEAR)
    out[1] = wp.volume_lookup_f(wp.uint64(0), 1, 2, 3)
    wp.volume_store_f(wp.uint64(0), 1, 2, 3, 5.0)
    out[2] = wp.volume_world_to_index(wp.uint64(0), wp.vec3(1.0, 2.0, 3.0))[2]


def test_generic_spellings_and_null_handles():
    dense = RNG.normal(size=(8, 8, 8)).astype(np.float32)
    vdense = RNG.normal(size=(8, 8, 8, 3)).astype(np.float32)
    volume, vvol = wp.Volume.load_from_numpy(dense), wp.Volume.load_from_numpy(vdense)
    # thread 0 also stores into voxel (0, 0, 0): samples stay clear of it (no race)
    p = RNG.uniform(1, 7, (20, 3)).astype(np.float32)
    out = wp.zeros((20, 3), dtype=float)
    wp.launch(generic, dim=20, inputs=[volume.id, vvol.id, vec3s(p), out])
    o = out.numpy()
    np.testing.assert_allclose(o[:, 0], trilinear(dense, p.astype(np.float64), 0.0), atol=1e-5)
    np.testing.assert_allclose(o[:, 1], trilinear(vdense, p.astype(np.float64), np.zeros(3))[:, 1], atol=1e-5)
    assert np.all(o[:, 2] == dense[1, 2, 3])
    out2 = wp.zeros(1, dtype=float)
    wp.launch(read_back, dim=1, inputs=[volume.id, wp.array(np.zeros((1, 3), np.int32), dtype=int), out2])
    assert out2.numpy()[0] == 42.0
    nulls = wp.full(3, 7.0, dtype=float)
    wp.launch(null_handles, dim=1, inputs=[nulls])
    np.testing.assert_array_equal(nulls.numpy(), [0.0, 0.0, 3.0])


def test_parallel_stores_mark_every_voxel_active():
    # every voxel of 8 leaves stored from many threads at once: no active bit may be lost
    volume = wp.Volume.allocate_by_tiles(np.array([[0, 0, 0], [8, 0, 0], [0, 8, 8], [8, 8, 8]]),
                                         voxel_size=1.0, bg_value=0.0)
    tree = struct.unpack_from("<4Q6IQ", volume.buffer(), 672)
    leaf_start = 672 + tree[0]
    # clear the active masks, then store every voxel
    for k in range(tree[4]):
        volume.buffer()[leaf_start + k * 2144 + 16:leaf_start + k * 2144 + 80] = 0
    ijk = np.stack(np.meshgrid(np.arange(16), np.arange(16), np.arange(16), indexing="ij"), -1).reshape(-1, 3)
    ijk = ijk[(ijk[:, 1] < 8) == (ijk[:, 2] < 8)]   # the four allocated tiles
    n = len(ijk)
    wp.launch(store, dim=n, inputs=[volume.id, wp.array(ijk.astype(np.int32), dtype=int),
                                    wp.ones(n, dtype=float), wp.zeros(1, dtype=float)])
    masks = np.concatenate([volume.buffer()[leaf_start + k * 2144 + 16:leaf_start + k * 2144 + 80]
                            for k in range(tree[4])])
    assert np.all(masks == 255)


@wp.kernel
def store_vec_int(vvol: wp.uint64, ivol: wp.uint64, ijk: wp.array(dtype=int, ndim=2),
                  vvals: wp.array(dtype=wp.vec3), ivals: wp.array(dtype=int)):
    tid = wp.tid()
    wp.volume_store_v(vvol, ijk[tid, 0], ijk[tid, 1], ijk[tid, 2], vvals[tid])
    wp.volume_store_i(ivol, ijk[tid, 0], ijk[tid, 1], ijk[tid, 2], ivals[tid])


@wp.kernel
def lookup_vec_int(vvol: wp.uint64, ivol: wp.uint64, ijk: wp.array(dtype=int, ndim=2),
                   vout: wp.array(dtype=wp.vec3), iout: wp.array(dtype=int)):
    tid = wp.tid()
    vout[tid] = wp.volume_lookup_v(vvol, ijk[tid, 0], ijk[tid, 1], ijk[tid, 2])
    iout[tid] = wp.volume_lookup_i(ivol, ijk[tid, 0], ijk[tid, 1], ijk[tid, 2])


def test_vec3_and_int32_store_then_lookup():
    """volume_store_v/_i write what volume_lookup_v/_i read back; untouched voxels and voxels
    outside the allocated leaves read the background value."""
    vvol = wp.Volume.allocate(min=(0, 0, 0), max=(15, 15, 15), voxel_size=1.0, bg_value=(1.0, 2.0, 3.0))
    ivol = wp.Volume.allocate(min=(0, 0, 0), max=(15, 15, 15), voxel_size=1.0, bg_value=7)
    ijk = np.unique(RNG.integers(0, 16, (120, 3)), axis=0)
    n = len(ijk)
    vvals = RNG.normal(size=(n, 3)).astype(np.float32)
    ivals = RNG.integers(-100, 100, n).astype(np.int32)
    ijk_wp = wp.array(ijk.astype(np.int32), dtype=int)
    wp.launch(store_vec_int, dim=n, inputs=[vvol.id, ivol.id, ijk_wp, vec3s(vvals), wp.array(ivals, dtype=int)])
    probe = np.concatenate([ijk, [[100, 100, 100]]]).astype(np.int32)
    vout, iout = wp.zeros(n + 1, dtype=wp.vec3), wp.zeros(n + 1, dtype=int)
    wp.launch(lookup_vec_int, dim=n + 1, inputs=[vvol.id, ivol.id, wp.array(probe, dtype=int), vout, iout])
    np.testing.assert_array_equal(vout.numpy()[:n], vvals)
    np.testing.assert_array_equal(iout.numpy()[:n], ivals)
    np.testing.assert_array_equal(vout.numpy()[n], [1.0, 2.0, 3.0])
    assert iout.numpy()[n] == 7


@wp.kernel
def maps_and_vec_loss(volume: wp.uint64, vvol: wp.uint64, p: wp.array(dtype=wp.vec3),
                      loss: wp.array(dtype=float)):
    tid = wp.tid()
    x = p[tid]
    s = wp.dot(wp.volume_world_to_index(volume, x), wp.vec3(1.0, -2.0, 0.5))
    s += wp.dot(wp.volume_index_to_world(volume, x), wp.vec3(0.3, 0.2, -1.0))
    s += wp.dot(wp.volume_world_to_index_dir(volume, x), wp.vec3(-0.7, 0.1, 0.4))
    s += wp.dot(wp.volume_index_to_world_dir(volume, x), wp.vec3(2.0, 1.0, 1.0))
    q = wp.volume_world_to_index(vvol, x)
    s += wp.dot(wp.volume_sample_v(vvol, q, wp.Volume.LINEAR), wp.vec3(1.0, 0.5, -0.25))
    wp.atomic_add(loss, 0, s)


def test_map_and_vector_sampling_gradients_match_finite_differences():
    _, volume = sphere_volume()
    field = np.random.default_rng(7).normal(size=(12, 12, 12, 3)).astype(np.float32)
    vvol = wp.Volume.load_from_numpy(field, min_world=(-0.6, -0.6, -0.6), voxel_size=0.1,
                                     bg_value=(0.0, 0.0, 0.0))
    # points kept 0.2 voxel away from cell faces, where trilinear gradients jump
    rng = np.random.default_rng(6)
    x = (-0.4 + 0.1 * (rng.integers(0, 8, (15, 3)) + rng.uniform(0.2, 0.8, (15, 3)))).astype(np.float32)
    xa = wp.array(x, dtype=wp.vec3, requires_grad=True)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(maps_and_vec_loss, dim=15, inputs=[volume.id, vvol.id, xa, loss])
    tape.backward(loss)

    def f(xv):
        out = wp.zeros(1, dtype=float)
        wp.launch(maps_and_vec_loss, dim=len(xv), inputs=[volume.id, vvol.id, vec3s(xv), out])
        return float(out.numpy()[0])
    fd = np.zeros_like(x)
    for i in np.ndindex(*x.shape):
        xp, xm = x.copy(), x.copy()
        xp[i] += 1e-3
        xm[i] -= 1e-3
        fd[i] = (f(xp) - f(xm)) / 2e-3
    np.testing.assert_allclose(xa.grad.numpy(), fd, rtol=2e-2, atol=2e-2)


# --- index volumes (NanoVDB ValueOnIndex / ValueIndex) ----------------------------------------------
@wp.kernel
def index_queries(volume: wp.uint64, ijk: wp.array(dtype=int, ndim=2), uvw: wp.array(dtype=wp.vec3),
                  data: wp.array(dtype=float), vdata: wp.array(dtype=wp.vec3),
                  idx: wp.array(dtype=int), out: wp.array(dtype=float, ndim=2),
                  vout: wp.array(dtype=wp.vec3, ndim=2)):
    tid = wp.tid()
    idx[tid] = wp.volume_lookup_index(volume, ijk[tid, 0], ijk[tid, 1], ijk[tid, 2])
    p = uvw[tid]
    out[tid, 0] = wp.volume_sample_index(volume, p, wp.Volume.CLOSEST, data, -1.0)
    out[tid, 1] = wp.volume_sample_index(volume, p, wp.Volume.LINEAR, data, -1.0)
    g = wp.vec3()
    out[tid, 2] = wp.volume_sample_grad_index(volume, p, wp.Volume.LINEAR, data, -1.0, g)
    out[tid, 3] = g[0]
    out[tid, 4] = g[1]
    out[tid, 5] = g[2]
    bg = wp.vec3(1.0, 2.0, 3.0)
    vout[tid, 0] = wp.volume_sample_index(volume, p, wp.Volume.LINEAR, vdata, bg)
    m = wp.mat33()
    vout[tid, 1] = wp.volume_sample_grad_index(volume, p, wp.Volume.LINEAR, vdata, bg, m)
    vout[tid, 2] = wp.vec3(m[0, 0], m[0, 1], m[0, 2])
    vout[tid, 3] = wp.vec3(m[0, 2], m[1, 2], m[2, 2])


@wp.kernel
def index_loss(volume: wp.uint64, uvw: wp.array(dtype=wp.vec3), data: wp.array(dtype=float),
               loss: wp.array(dtype=float)):
    tid = wp.tid()
    wp.atomic_add(loss, 0, wp.volume_sample_index(volume, uvw[tid], wp.Volume.LINEAR, data, 0.5))


def _index_reference(voxels, data, bg, p, mode):
    """Brute-force sampling of `data` laid out by `voxels` (row m = the voxel of index m)."""
    table = {tuple(v): m for m, v in enumerate(voxels.tolist())}

    def at(c):
        m = table.get(tuple(int(x) for x in c))
        return data[m] if m is not None else bg
    if mode == "closest":
        return np.array([at(np.floor(q + 0.5)) for q in p])
    f = np.floor(p)
    t = p - f
    out = []
    for q in range(len(p)):
        acc = 0.0
        for corner in np.ndindex(2, 2, 2):
            w = np.prod(np.where(np.array(corner) == 1, t[q], 1 - t[q]))
            acc = acc + w * at(f[q] + corner)
        out.append(acc)
    return np.array(out)


def _index_reference_grad(voxels, data, bg, p):
    """d sample / d uvw of the brute-force trilinear sample, in the cell floor(p) (the one-sided
    derivative the kernel takes on a cell face): (Q, 3[, C])."""
    table = {tuple(v): m for m, v in enumerate(voxels.tolist())}
    f, t = np.floor(p), p - np.floor(p)
    out = []
    for q in range(len(p)):
        g = [0.0, 0.0, 0.0]
        for corner in np.ndindex(2, 2, 2):
            c = np.array(corner)
            m = table.get(tuple(int(x) for x in f[q] + c))
            v = data[m] if m is not None else bg
            w = np.where(c == 1, t[q], 1 - t[q])
            s = np.where(c == 1, 1.0, -1.0)
            g[0] = g[0] + v * s[0] * w[1] * w[2]
            g[1] = g[1] + v * w[0] * s[1] * w[2]
            g[2] = g[2] + v * w[0] * w[1] * s[2]
        out.append(np.stack([np.asarray(x, float) for x in g]))
    return np.array(out)


def _index_checks(vol, rng):
    voxels = vol.get_voxels().numpy()
    n = vol.get_voxel_count()
    assert voxels.shape == (n, 3) and vol.is_index
    data = rng.normal(size=n).astype(np.float32)
    vdata = rng.normal(size=(n, 3)).astype(np.float32)
    # lookups at every indexed voxel give 0..n-1 in order, and -1 off the volume
    off = voxels[:40] + np.array([1000, 0, 0], np.int32)
    ijk = np.concatenate([voxels, off])
    # sample points near indexed voxels, half of their trilinear corners off the volume
    p = (voxels[rng.integers(0, n, 300)] + rng.uniform(-1, 1, (300, 3))).astype(np.float32)
    m = max(len(ijk), len(p))
    ijk = np.resize(ijk, (m, 3)).astype(np.int32)
    p = np.resize(p, (m, 3)).astype(np.float32)
    idx, out = wp.zeros(m, dtype=int), wp.zeros((m, 6), dtype=float)
    vout = wp.zeros((m, 4), dtype=wp.vec3)
    wp.launch(index_queries, dim=m, inputs=[vol.id, wp.array(ijk, dtype=int), vec3s(p),
                                            wp.array(data, dtype=float), vec3s(vdata), idx, out, vout])
    table = {tuple(v): k for k, v in enumerate(voxels.tolist())}
    np.testing.assert_array_equal(idx.numpy(), [table.get(tuple(c), -1) for c in ijk.tolist()])
    got = out.numpy()
    np.testing.assert_allclose(got[:, 0], _index_reference(voxels, data, -1.0, p, "closest"), atol=1e-6)
    lin = _index_reference(voxels, data, -1.0, p, "linear")
    np.testing.assert_allclose(got[:, 1], lin, atol=1e-5)
    np.testing.assert_allclose(got[:, 2], lin, atol=1e-5)
    np.testing.assert_allclose(got[:, 3:6], _index_reference_grad(voxels, data, -1.0, p), atol=1e-4)
    vgot = vout.numpy()
    vbg = np.array([1.0, 2.0, 3.0])
    vlin = _index_reference(voxels, vdata, vbg, p, "linear")
    np.testing.assert_allclose(vgot[:, 0], vlin, atol=1e-5)
    np.testing.assert_allclose(vgot[:, 1], vlin, atol=1e-5)
    vgrad = _index_reference_grad(voxels, vdata, vbg, p)          # (Q, 3 uvw, 3 components)
    np.testing.assert_allclose(vgot[:, 2], vgrad[:, :, 0], atol=1e-4)   # row 0: d v_0 / d uvw
    np.testing.assert_allclose(vgot[:, 3], vgrad[:, 2, :], atol=1e-4)   # column 2: d v / d uvw_2
    # and the reference gradient is the finite difference wherever the step stays in one cell
    h = 1e-3
    inside = np.all(np.abs(p - np.rint(p)) > 2 * h, axis=1)
    for k in range(3):
        e = np.zeros(3)
        e[k] = h
        fd = (_index_reference(voxels, data, -1.0, p + e, "linear")
              - _index_reference(voxels, data, -1.0, p - e, "linear")) / (2 * h)
        np.testing.assert_allclose(got[inside, 3 + k], fd[inside], atol=2e-3)


def test_voxel_order_across_signs_and_upper_nodes_is_warp_langs():
    """Voxel indices (get_voxels rows, volume_lookup_index) follow warp-lang 1.19's order: upper
    nodes by their signed coordinates, x first, then lower node, leaf and voxel offsets (the
    expected list is warp-lang's own output for these points); fem.Nanogrid numbers its cells,
    vertices and faces by it."""
    pts = np.array([(5, 0, 0), (-5, 0, 0), (0, -5000, 0), (4100, 0, 0), (0, 0, -1), (-4097, 3, 3), (0, 0, 4096),
                    (1, 2, 3), (9, 0, 0), (0, 9, 0)], np.int32)
    vol = wp.Volume.allocate_by_voxels(pts, voxel_size=1.0)
    expect = [[-4097, 3, 3], [-5, 0, 0], [0, -5000, 0], [0, 0, -1], [1, 2, 3], [5, 0, 0], [0, 9, 0], [9, 0, 0],
              [0, 0, 4096], [4100, 0, 0]]
    assert vol.get_voxels().numpy().tolist() == expect
    _index_checks(vol, np.random.default_rng(4))     # wp.volume_lookup_index gives the row numbers


@pytest.mark.parametrize("spread", [30, 9000])
def test_active_stats_count_voxels_and_tree_nodes(spread):
    """get_active_stats against the voxel set: distinct voxels, 8^3 leaves, 128^3 lower and
    4096^3 upper nodes holding them (warp-lang's ActiveStats fields)."""
    rng = np.random.default_rng(spread)
    pts = rng.integers(-spread, spread, (500, 3)).astype(np.int32)
    stats = wp.Volume.allocate_by_voxels(pts, voxel_size=0.5).get_active_stats()
    count = [len(np.unique(np.floor_divide(pts, d), axis=0)) for d in (1, 8, 128, 4096)]
    assert tuple(stats) == tuple(count)
    assert isinstance(stats, wp.Volume.ActiveStats) and stats.voxel_count == count[0]
    dense = wp.Volume.allocate(min=[0, 0, 0], max=[9, 9, 9], voxel_size=1.0, bg_value=0.0).get_active_stats()
    assert (dense.voxel_count, dense.leaf_node_count, dense.lower_node_count, dense.upper_node_count) == (1000, 8, 1, 1)


def test_on_index_volume_from_voxels_matches_brute_force(tmp_path):
    rng = np.random.default_rng(21)
    pts = rng.integers(-20, 20, (400, 3)).astype(np.int32)
    vol = wp.Volume.allocate_by_voxels(pts, voxel_size=0.5)
    assert vol.dtype is None and vol.get_grid_info().type_str == "OnIndex" and vol.get_voxel_count() == len(np.unique(pts, axis=0))
    assert sorted(map(tuple, vol.get_voxels().numpy().tolist())) == sorted(map(tuple, np.unique(pts, axis=0).tolist()))
    assert vol.get_tile_count() == len(np.unique(np.floor_divide(pts, 8), axis=0))
    _index_checks(vol, rng)
    # the file round trip is bit-exact and keeps the indices
    for codec in ("none", "zip"):
        path = tmp_path / f"index_{codec}.nvdb"
        vol.save_to_nvdb(str(path), codec=codec)
        back = wp.Volume.load_from_nvdb(str(path))
        np.testing.assert_array_equal(back.buffer(), vol.buffer())
        np.testing.assert_array_equal(back.get_voxels().numpy(), vol.get_voxels().numpy())
    assert struct.unpack_from("<II", vol.buffer(), 632) == (8, 20)   # IndexGrid, ValueOnIndex
    # GridData.mData1: the number of indices, the background's (0) included
    assert struct.unpack_from("<Q", vol.buffer(), 656)[0] == vol.get_voxel_count() + 1


def test_index_volume_from_tiles_indexes_every_voxel():
    rng = np.random.default_rng(22)
    pts = rng.uniform(-3, 3, (30, 3)).astype(np.float32)
    vol = wp.Volume.allocate_by_tiles(pts, voxel_size=0.25, bg_value=None)
    assert vol.dtype is None and vol.get_grid_info().type_str == "Index" and vol.get_voxel_count() == 512 * vol.get_tile_count()
    tiles = np.unique(np.floor_divide(np.floor(pts / 0.25).astype(np.int64), 8), axis=0) * 8
    np.testing.assert_array_equal(np.unique(vol.get_tiles().numpy(), axis=0), tiles)
    voxels = vol.get_voxels().numpy()
    assert len(np.unique(voxels, axis=0)) == len(voxels)
    _index_checks(vol, rng)


def test_lookup_index_of_a_value_volume_follows_get_voxels():
    sdf, volume = sphere_volume(n=20)
    voxels = volume.get_voxels().numpy()
    assert len(voxels) == volume.get_voxel_count() == 512 * volume.get_tile_count()
    pick = voxels[::37]
    idx, out = wp.zeros(len(pick), dtype=int), wp.zeros((len(pick), 6), dtype=float)
    vout = wp.zeros((len(pick), 4), dtype=wp.vec3)
    z = wp.zeros(1, dtype=float)
    wp.launch(index_queries, dim=len(pick), inputs=[volume.id, wp.array(pick, dtype=int), vec3s(pick),
                                                    z, vec3s(np.zeros((1, 3))), idx, out, vout])
    np.testing.assert_array_equal(idx.numpy(), np.arange(0, len(voxels), 37))


def test_index_sampling_gradients_reach_uvw_data_and_background():
    rng = np.random.default_rng(23)
    pts = rng.integers(-6, 6, (150, 3)).astype(np.int32)
    vol = wp.Volume.allocate_by_voxels(pts, voxel_size=1.0)
    voxels = vol.get_voxels().numpy()
    n = len(voxels)
    data = rng.normal(size=n).astype(np.float32)
    p = (voxels[rng.integers(0, n, 40)] + rng.uniform(0.1, 0.9, (40, 3))).astype(np.float32)
    da, pa = wp.array(data, dtype=float, requires_grad=True), vec3s(p)
    pa.requires_grad = True
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(index_loss, dim=len(p), inputs=[vol.id, pa, da, loss])
    tape.backward(loss)
    # d loss / d data[m]: the trilinear weights voxel m gets, summed over the points
    want = np.zeros(n)
    table = {tuple(v): m for m, v in enumerate(voxels.tolist())}
    f, t = np.floor(p), p - np.floor(p)
    for q in range(len(p)):
        for corner in np.ndindex(2, 2, 2):
            m = table.get(tuple(int(x) for x in f[q] + corner))
            if m is not None:
                want[m] += np.prod(np.where(np.array(corner) == 1, t[q], 1 - t[q]))
    np.testing.assert_allclose(da.grad.numpy(), want, atol=1e-5)
    h = 1e-3
    fd = np.zeros_like(p)
    for k in range(3):
        e = np.zeros(3)
        e[k] = h
        fd[:, k] = (_index_reference(voxels, data, 0.5, p + e, "linear")
                    - _index_reference(voxels, data, 0.5, p - e, "linear")) / (2 * h)
    np.testing.assert_allclose(pa.grad.numpy(), fd, atol=2e-3)


def test_index_sampling_type_errors_name_the_arguments():
    @wp.kernel(module="test_volume_bad_index_sample")   # its own module: it never builds
    def bad(volume: wp.uint64, data: wp.array(dtype=float)):
        wp.volume_sample_index(volume, wp.vec3(), wp.Volume.LINEAR, data, wp.vec3())
    with pytest.raises(wp.CodegenError, match="background must be float32 like voxel_data, got vec3"):
        wp.launch(bad, dim=1, inputs=[0, wp.zeros(1, dtype=float)])
