"""Geometry behaviours the reference's own tests rely on, each against a brute-force reference:
vec3 volume gradients (a Jacobian), hash grids in half/single/double precision and with point
groups, the public query types as annotations."""

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
