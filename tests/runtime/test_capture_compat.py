"""warp-lang 1.19's graph-capture signature (``apic=``, ``capture_mode=``, ``wp.CaptureMode``) and
``HashGrid.build`` recorded into a CPU capture: each replay rebuilds from the points and groups as
they are then, checked against brute-force neighbour counts."""

import numpy as np
import pytest

import warp_interactive as wp


@wp.kernel
def count_near(grid: wp.uint64, radius: float, points: wp.array(dtype=wp.vec3),
               counts: wp.array(dtype=int)):
    i = wp.tid()
    p = points[i]
    n = int(0)
    for j in wp.hash_grid_query(grid, p, radius):
        if wp.length(points[j] - p) <= radius:
            n += 1
    counts[i] = n


@wp.kernel
def count_near_group(grid: wp.uint64, radius: float, points: wp.array(dtype=wp.vec3),
                     groups: wp.array(dtype=int), counts: wp.array(dtype=int)):
    i = wp.tid()
    p = points[i]
    n = int(0)
    for j in wp.hash_grid_query(grid, p, radius, groups[i]):
        if wp.length(points[j] - p) <= radius:
            n += 1
    counts[i] = n


def brute_counts(points, radius, groups=None):
    d = np.linalg.norm(points[:, None, :] - points[None, :, :], axis=-1)
    near = d <= radius
    if groups is not None:
        near &= groups[:, None] == groups[None, :]
    return near.sum(axis=1)


def test_capture_signature_matches_warp_lang():
    assert [m.value for m in wp.CaptureMode] == [0, 1, 2]
    assert [m.name for m in wp.CaptureMode] == ["GLOBAL", "THREAD_LOCAL", "RELAXED"]
    a = wp.zeros(3, dtype=float)
    with wp.ScopedCapture(device="cpu", apic=False, force_module_load=False,
                          capture_mode=wp.CaptureMode.RELAXED) as capture:
        a.fill_(2.0)
    assert capture.capture_mode is wp.CaptureMode.RELAXED and not capture.apic
    wp.capture_launch(capture.graph)
    assert a.numpy().tolist() == [2.0, 2.0, 2.0]


def test_apic_capture_is_refused_clearly():
    with pytest.raises(NotImplementedError, match=r"apic=True .*capture_save.* not offered"):
        wp.ScopedCapture(device="cpu", apic=True)
    with pytest.raises(NotImplementedError, match="apic=True"):
        wp.capture_begin(device="cpu", apic=True)
    with pytest.raises(ValueError):
        wp.ScopedCapture(device="cpu", capture_mode=7)


@pytest.mark.parametrize("warm", [False, True], ids=["first-build-in-capture", "built-before"])
@pytest.mark.parametrize("seed", range(3))
def test_hash_grid_build_replays_with_current_points(warm, seed):
    rng = np.random.default_rng(seed)
    n, radius = 64, 0.3
    first, second = rng.uniform(0, 2, (n, 3)), rng.uniform(0, 4, (n, 3))
    points = wp.array(first, dtype=wp.vec3)
    source = wp.array(second, dtype=wp.vec3)
    counts = wp.zeros(n, dtype=int)
    grid = wp.HashGrid(16, 16, 16)
    if warm:
        grid.build(points, radius)
    grid_id = grid.id
    with wp.ScopedCapture(device="cpu", apic=False) as capture:
        grid.build(points, radius)
        wp.launch(count_near, dim=n, inputs=[grid.id, radius, points, counts])
    assert grid.id == grid_id    # captured launches hold this id
    wp.capture_launch(capture.graph)
    np.testing.assert_array_equal(counts.numpy(), brute_counts(points.numpy(), radius))
    wp.copy(points, source)
    wp.capture_launch(capture.graph)
    np.testing.assert_array_equal(counts.numpy(), brute_counts(second.astype(np.float32), radius))


def test_hash_grid_grouped_build_replays_with_current_groups():
    pts = np.array([[0, 0, 0], [0.05, 0, 0], [0, 0, 0], [0.05, 0, 0]], dtype=np.float32)
    points, groups = wp.array(pts, dtype=wp.vec3), wp.array([0, 0, 1, 1], dtype=int)
    counts = wp.zeros(4, dtype=int)
    grid = wp.HashGrid(8, 8, 8)
    with wp.ScopedCapture(device="cpu") as capture:
        grid.build(points, 0.2, groups=groups)
        wp.launch(count_near_group, dim=4, inputs=[grid.id, 0.2, points, groups, counts])
    for g in ([0, 0, 1, 1], [3, 3, 3, 3], [5, 6, 5, 6]):
        groups.assign(g)
        wp.capture_launch(capture.graph)
        np.testing.assert_array_equal(counts.numpy(), brute_counts(pts, 0.2, np.array(g)))


def test_hash_grid_empty_build_in_capture_clears_the_grid():
    grid = wp.HashGrid(8, 8, 8)
    query = wp.array([[0.0, 0.0, 0.0]], dtype=wp.vec3)
    grid.build(query, 1.0)
    empty = wp.empty(0, dtype=wp.vec3)
    counts = wp.zeros(1, dtype=int)
    with wp.ScopedCapture(device="cpu") as capture:
        grid.build(empty, 1.0)
        wp.launch(count_near, dim=1, inputs=[grid.id, 1.0, query, counts])
    wp.capture_launch(capture.graph)
    assert counts.numpy().tolist() == [0]


def test_hash_grid_build_errors_are_raised_at_capture_time():
    grid = wp.HashGrid(8, 8, 8)
    with wp.ScopedCapture(device="cpu"):
        with pytest.raises(TypeError, match="points must be a wp.array of vec3f"):
            grid.build(wp.zeros(3, dtype=wp.vec3d), 1.0)
        with pytest.raises(TypeError, match="groups must be a wp.array of int32"):
            grid.build(wp.zeros(3, dtype=wp.vec3), 1.0, groups=wp.zeros(3, dtype=float))
        with pytest.raises(ValueError, match="radius must be > 0"):
            grid.build(wp.zeros(3, dtype=wp.vec3), 0.0)
