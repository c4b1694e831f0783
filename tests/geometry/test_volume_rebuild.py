"""Rebuildable volumes (``allocate_by_voxels/allocate_by_tiles(rebuildable=True)``,
``Volume.rebuild``): after each rebuild the active voxels, their indices, the tree node counts
and the values kernels read agree with a brute-force computation over the point set, at the
same ``id``; capacities that would be exceeded are reported through ``status``."""

import numpy as np
import pytest

import warp_interactive as wp

RNG = np.random.default_rng(5)


@wp.kernel
def lookup_index(volume: wp.uint64, ijk: wp.array(dtype=wp.vec3i), out: wp.array(dtype=int)):
    i = wp.tid()
    p = ijk[i]
    out[i] = wp.volume_lookup_index(volume, p[0], p[1], p[2])


@wp.kernel
def lookup_value(volume: wp.uint64, ijk: wp.array(dtype=wp.vec3i), out: wp.array(dtype=float)):
    i = wp.tid()
    p = ijk[i]
    out[i] = wp.volume_lookup_f(volume, p[0], p[1], p[2])


def voxels_of(points, voxel_size, translation):
    """Brute force: the set of voxels (nearest index) holding world points, or integer points."""
    p = np.asarray(points)
    if np.issubdtype(p.dtype, np.integer):
        return {tuple(r) for r in p.tolist()}
    idx = np.floor((p.astype(np.float64) - translation) / voxel_size + 0.5).astype(np.int64)
    return {tuple(r) for r in idx.tolist()}


def counts_of(voxels):
    """(voxels, leaves, lower nodes, upper nodes) of a voxel set: 8^3, 128^3 and 4096^3 blocks."""
    v = np.array(sorted(voxels), np.int64).reshape(-1, 3)
    return (len(v),) + tuple(len({tuple(r) for r in (v // s).tolist()}) for s in (8, 128, 4096))


def points(kind, n, spread):
    if kind == "int":
        return RNG.integers(-spread, spread, (n, 3)).astype(np.int32)
    return RNG.uniform(-spread, spread, (n, 3)).astype(np.float32)


def as_wp(p):
    return wp.array(p, dtype=wp.vec3i if p.dtype == np.int32 else wp.vec3)


@wp.kernel
def voxel_count(volume: wp.uint64, out: wp.array(dtype=int)):
    out[0] = wp.volume_voxel_count(volume)


def check_topology(volume, expected):
    """get_voxels() holds exactly the expected set, volume_lookup_index finds row m at index m
    and -1 elsewhere, and the node counters match the brute-force ones."""
    rows = volume.get_voxels().numpy()
    assert {tuple(r) for r in rows.tolist()} == expected and len(rows) == len(expected)
    assert tuple(volume.get_active_stats()) == counts_of(expected)
    count = wp.zeros(1, dtype=int)
    wp.launch(voxel_count, dim=1, inputs=[volume.id, count])      # kernels see the current count
    assert count.numpy()[0] == len(expected)
    probe = np.concatenate([rows, RNG.integers(-70, 70, (300, 3))]).astype(np.int32)
    out = wp.zeros(len(probe), dtype=int)
    wp.launch(lookup_index, dim=len(probe), inputs=[volume.id, wp.array(probe, dtype=wp.vec3i), out])
    table = {tuple(r): m for m, r in enumerate(rows.tolist())}
    np.testing.assert_array_equal(out.numpy(), [table.get(tuple(r), -1) for r in probe.tolist()])


@pytest.mark.parametrize("kind, spread, voxel_size, translation", [
    ("float", 4.0, 0.25, (0.0, 0.0, 0.0)),
    ("float", 30.0, 0.5, (0.3, -1.0, 2.0)),
    ("int", 20, 1.0, (0.0, 0.0, 0.0)),
    ("int", 9000, 1.0, (0.0, 0.0, 0.0)),      # several root tiles, both signs
])
def test_rebuild_voxels_matches_brute_force(kind, spread, voxel_size, translation):
    first, second, third = points(kind, 400, spread), points(kind, 250, spread / 2), points(kind, 600, spread)
    status = wp.zeros(1, dtype=wp.uint32)
    vol = wp.Volume.allocate_by_voxels(as_wp(first), voxel_size=voxel_size, translation=translation,
                                       rebuildable=True, max_active_voxels=600, status=status)
    assert vol.is_rebuildable and vol.get_rebuild_info() == ("voxels", 600, 600, 600, 600)
    assert vol.get_voxel_count() == 600            # external data sized for any rebuild
    vid = vol.id
    for p in (first, second, third):
        vol.rebuild(as_wp(p), status=status)
        assert status.numpy()[0] == wp.Volume.REBUILD_SUCCESS and vol.id == vid
        check_topology(vol, voxels_of(p, voxel_size, np.asarray(translation)))


def test_point_mask_drops_points():
    p = points("int", 300, 12)
    mask = (RNG.random(300) < 0.5).astype(np.int32)
    vol = wp.Volume.allocate_by_voxels(as_wp(p), voxel_size=1.0, rebuildable=True,
                                       point_mask=wp.array(mask, dtype=wp.int32))
    check_topology(vol, voxels_of(p[mask != 0], 1.0, 0.0))
    vol.rebuild(as_wp(p), point_mask=wp.array(1 - mask, dtype=wp.int32))
    check_topology(vol, voxels_of(p[mask == 0], 1.0, 0.0))


@pytest.mark.parametrize("capacity, flag", [
    ({"max_active_voxels": 50}, "REBUILD_VOXEL_CAPACITY_EXCEEDED"),
    ({"max_leaf_nodes": 3}, "REBUILD_LEAF_CAPACITY_EXCEEDED"),
    ({"max_lower_nodes": 1}, "REBUILD_LOWER_CAPACITY_EXCEEDED"),
    ({"max_upper_nodes": 1}, "REBUILD_UPPER_CAPACITY_EXCEEDED"),
])
def test_exceeded_capacity_sets_its_flag_and_empties(capacity, flag):
    small = np.array([[1, 2, 3], [2, 2, 3]], np.int32)
    big = np.concatenate([points("int", 200, 300), -points("int", 200, 300) - 1])
    status = wp.zeros(1, dtype=wp.uint32)
    vol = wp.Volume.allocate_by_voxels(as_wp(small), voxel_size=1.0, status=status,
                                       **{"max_active_voxels": 400, **capacity})
    assert status.numpy()[0] == 0
    check_topology(vol, voxels_of(small, 1.0, 0.0))
    vol.rebuild(as_wp(big), status=status)
    assert status.numpy()[0] & getattr(wp.Volume, flag)
    check_topology(vol, set())
    vol.rebuild(as_wp(small), status=status)          # a fitting topology again
    assert status.numpy()[0] == 0
    check_topology(vol, voxels_of(small, 1.0, 0.0))


def test_exceeded_capacity_without_status_warns():
    vol = wp.Volume.allocate_by_voxels(as_wp(points("int", 5, 3)), voxel_size=1.0, max_active_voxels=5)
    with pytest.warns(RuntimeWarning, match="exceeds the volume's reserved capacity"):
        vol.rebuild(as_wp(points("int", 100, 50)))


def test_rebuild_tiles_keeps_background_values():
    first, second = points("int", 40, 60), points("int", 25, 60)
    vol = wp.Volume.allocate_by_tiles(as_wp(first), voxel_size=1.0, bg_value=2.5, max_tiles=40)
    assert vol.get_rebuild_info() == ("tiles", 40 * 512, 40, 40, 40)
    vid = vol.id
    vol.rebuild(as_wp(second))
    tiles = {tuple(r) for r in (second.astype(np.int64) // 8 * 8).tolist()}
    assert {tuple(r) for r in vol.get_tiles().numpy().tolist()} == tiles and vol.id == vid
    probe = np.concatenate([second, first]).astype(np.int32)
    out = wp.zeros(len(probe), dtype=float)
    wp.launch(lookup_value, dim=len(probe), inputs=[vol.id, wp.array(probe, dtype=wp.vec3i), out])
    # the grid at the same id reads: active voxels hold bg_value, others the background (2.5 both)
    np.testing.assert_array_equal(out.numpy(), np.full(len(probe), 2.5))


@pytest.mark.parametrize("call, error, message", [
    (lambda: wp.Volume.allocate_by_voxels(as_wp(points("int", 4, 3)), 1.0).rebuild(as_wp(points("int", 4, 3))),
     RuntimeError, "not rebuildable"),
    (lambda: wp.Volume.allocate_by_voxels(as_wp(points("int", 4, 3)), 1.0, max_active_voxels=0),
     ValueError, "max_active_voxels must be positive"),
    (lambda: wp.Volume.allocate_by_voxels(as_wp(points("int", 4, 3)), 1.0, max_leaf_nodes=2 ** 32),
     ValueError, "must fit in uint32"),
    (lambda: wp.Volume.allocate_by_voxels(as_wp(points("int", 4, 3)), 1.0, rebuildable=True,
                                          status=wp.zeros(1, dtype=wp.int32)),
     RuntimeError, "status must be a Warp array with dtype uint32"),
    (lambda: wp.Volume.allocate_by_voxels(as_wp(points("int", 4, 3)), 1.0, rebuildable=True,
                                          point_mask=wp.zeros(2, dtype=wp.int32)),
     RuntimeError, "point_mask must have at least 4 entries"),
])
def test_rebuild_errors(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_non_rebuildable_volume_reports_no_capacity():
    vol = wp.Volume.allocate_by_voxels(as_wp(points("int", 4, 3)), 1.0)
    assert not vol.is_rebuildable and vol.get_rebuild_info() == (None, 0, 0, 0, 0)


@pytest.mark.parametrize("dtype", [wp.vec3i, wp.int32])
def test_get_voxels_and_tiles_fill_the_first_rows_of_out(dtype):
    p = points("int", 30, 20)
    vol = wp.Volume.allocate_by_voxels(as_wp(p), voxel_size=1.0, max_active_voxels=64)
    n, tiles = vol.get_active_stats().voxel_count, vol.get_active_stats().leaf_node_count
    shape = (64,) if dtype is wp.vec3i else (64, 3)
    out = wp.full(shape, -999 if dtype is wp.int32 else wp.vec3i(-999, -999, -999), dtype=dtype)
    assert vol.get_voxels(out=out) is out
    rows = out.numpy().reshape(-1, 3)
    assert {tuple(r) for r in rows[:n].tolist()} == voxels_of(p, 1.0, 0.0) and (rows[n:] == -999).all()
    out_tiles = wp.full((64, 3), -7, dtype=wp.int32)
    vol.get_tiles(out=out_tiles)
    t = out_tiles.numpy()
    assert {tuple(r) for r in t[:tiles].tolist()} == {tuple(r) for r in (p.astype(np.int64) // 8 * 8).tolist()}
    assert (t[tiles:] == -7).all()


@wp.kernel
def lookup_vec(volume: wp.uint64, ijk: wp.array(dtype=wp.vec3i), out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    p = ijk[i]
    out[i] = wp.volume_lookup_v(volume, p[0], p[1], p[2])


def test_rebuild_keeps_the_background_given_at_allocation():
    background = [1.0, 2.0, 3.0]
    tile = wp.array(np.zeros((1, 3), np.int32), dtype=wp.vec3i)
    vol = wp.Volume.allocate_by_tiles(tile, voxel_size=1.0, bg_value=background, max_tiles=1)
    size = vol.get_grid_info().size_in_bytes
    background[0] = 10.0                     # the caller's list changes: the volume's does not
    vol.rebuild(tile)
    assert vol.dtype == wp.vec3 and vol.get_grid_info().size_in_bytes == size
    out = wp.zeros(5, dtype=wp.vec3)
    probe = np.array([[0, 0, 0], [7, 7, 7], [3, 1, 4], [8, 0, 0], [-1, 0, 0]], np.int32)
    wp.launch(lookup_vec, dim=5, inputs=[vol.id, wp.array(probe, dtype=wp.vec3i), out])
    np.testing.assert_array_equal(out.numpy(), np.tile([1.0, 2.0, 3.0], (5, 1)))
