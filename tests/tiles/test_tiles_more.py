"""Indexed tile memory, dot/axpy, scatters, FFTs and the tile stack (CPU, NumPy reference)."""

import numpy as np
import pytest

import warp_interactive as wp

RNG = np.random.default_rng(5)


def test_dot_axpy_empty():
    @wp.kernel
    def k(x: wp.array(dtype=float), y: wp.array(dtype=float), v: wp.array(dtype=wp.vec3),
          out: wp.array(dtype=float), ax: wp.array(dtype=float)):
        a = wp.tile_load(x, shape=9)
        b = wp.tile_load(y, shape=9)
        wp.tile_store(out, wp.tile_dot(a, b), offset=(0,))
        tv = wp.tile_load(v, shape=4)
        wp.tile_store(out, wp.tile_dot(tv, tv), offset=(1,))
        e = wp.tile_empty(shape=9, dtype=float)
        e = e + b
        wp.tile_axpy(2.0, a, e)
        wp.tile_store(ax, e)

    x, y = RNG.random(9).astype(np.float32), RNG.random(9).astype(np.float32)
    v = RNG.random((4, 3)).astype(np.float32)
    out, ax = wp.zeros(2, dtype=float), wp.zeros(9, dtype=float)
    wp.launch_tiled(k, dim=1, inputs=[wp.array(x), wp.array(y), wp.array(v, dtype=wp.vec3), out, ax],
                    block_dim=4)
    np.testing.assert_allclose(out.numpy(), [x @ y, (v * v).sum()], rtol=1e-5)
    np.testing.assert_allclose(ax.numpy(), y + 2 * x, rtol=1e-6)


@pytest.mark.parametrize("axis", [0, 1])
def test_indexed_load_store_atomic(axis):
    @wp.kernel
    def k(x: wp.array2d(dtype=float), idx: wp.array(dtype=int), y: wp.array2d(dtype=float),
          z: wp.array2d(dtype=float), acc: wp.array2d(dtype=float)):
        ix = wp.tile_load(idx, shape=3)
        t = wp.tile_load_indexed(x, indices=ix, shape=(3, 3), axis=axis)
        wp.tile_store(y, t)
        wp.tile_store_indexed(z, indices=ix, t=t, axis=axis)
        wp.tile_atomic_add_indexed(acc, indices=ix, t=t, axis=axis)
        wp.tile_atomic_add_indexed(acc, indices=ix, t=t, axis=axis)

    x = RNG.random((5, 5)).astype(np.float32)
    idx = np.array([4, -1, 1], dtype=np.int32)     # -1: outside, reads zero and is not written
    y, z, acc = (wp.zeros((5, 5) if i else (3, 3), dtype=float) for i in (0, 1, 1))
    wp.launch_tiled(k, dim=1, inputs=[wp.array(x), wp.array(idx), y, z, acc], block_dim=4)
    want = np.zeros((3, 3), np.float32)
    zw = np.zeros((5, 5), np.float32)
    for c, i in enumerate(idx):
        if i < 0:
            continue
        if axis == 0:
            want[c] = x[i, :3]
            zw[i, :3] = x[i, :3]
        else:
            want[:, c] = x[:3, i]
            zw[:3, i] = x[:3, i]
    np.testing.assert_array_equal(y.numpy(), want)
    np.testing.assert_array_equal(z.numpy(), zw)
    np.testing.assert_allclose(acc.numpy(), 2 * zw)


def test_slice_indexed_and_scatters():
    @wp.kernel
    def k(x: wp.array2d(dtype=float), out: wp.array2d(dtype=float), sc: wp.array(dtype=float)):
        t = wp.tile_load(x, shape=(4, 2))
        ix = wp.tile_arange(0, 3, dtype=int)
        ix = ix * 2 - 1       # -1, 1, 3
        wp.tile_store(out, wp.tile_slice_indexed(t, ix))
        s = wp.tile_zeros(shape=5, dtype=float)
        wp.tile_scatter_add(s, 2, 1.5, True)
        wp.tile_scatter_add(s, 2, 1.0, True)
        wp.tile_scatter_add(s, 0, 7.0, False)
        wp.tile_scatter_masked(s, 4, 3.0, True)
        wp.tile_store(sc, s)

    x = RNG.random((4, 2)).astype(np.float32)
    out, s = wp.zeros((3, 2), dtype=float), wp.zeros(5, dtype=float)
    wp.launch_tiled(k, dim=1, inputs=[wp.array(x), out, s], block_dim=4)
    np.testing.assert_array_equal(out.numpy(), x[[-1, 1, 3]])
    np.testing.assert_array_equal(s.numpy(), [0, 0, 2.5, 0, 3.0])


@pytest.mark.parametrize("n", [8, 16, 6, 100])
@pytest.mark.parametrize("dt,np_dt,tol", [(wp.vec2f, np.float32, 1e-4), (wp.vec2d, np.float64, 1e-10)])
def test_fft_matches_numpy(n, dt, np_dt, tol):
    @wp.kernel
    def k(x: wp.array2d(dtype=dt), f: wp.array2d(dtype=dt), r: wp.array2d(dtype=dt)):
        t = wp.tile_load(x, shape=(2, n))
        wp.tile_fft(t)
        wp.tile_store(f, t)
        wp.tile_ifft(t)
        wp.tile_store(r, t)

    z = RNG.standard_normal((2, n)) + 1j * RNG.standard_normal((2, n))
    x = np.stack([z.real, z.imag], axis=-1).astype(np_dt)
    f, r = wp.zeros((2, n), dtype=dt), wp.zeros((2, n), dtype=dt)
    wp.launch_tiled(k, dim=1, inputs=[wp.array(x, dtype=dt), f, r], block_dim=8)
    got = f.numpy()[..., 0] + 1j * f.numpy()[..., 1]
    np.testing.assert_allclose(got, np.fft.fft(z, axis=-1), rtol=tol, atol=tol * n)
    back = r.numpy()[..., 0] + 1j * r.numpy()[..., 1]
    np.testing.assert_allclose(back, n * z, rtol=tol, atol=tol * n)


def test_tile_stack_push_pop_count():
    @wp.kernel
    def k(out: wp.array(dtype=int)):
        s = wp.tile_stack(capacity=3, dtype=int)
        a = wp.tile_stack_push(s, 10, True)
        b = wp.tile_stack_push(s, 20, True)
        wp.tile_stack_push(s, 99, False)
        out[0] = wp.tile_stack_count(s)
        v, slot = wp.tile_stack_pop(s)
        out[1] = v
        out[2] = slot
        wp.tile_stack_push(s, 30, True)
        wp.tile_stack_push(s, 40, True)
        full = wp.tile_stack_push(s, 50, True)     # capacity 3: dropped, slot -1
        out[3] = full
        out[4] = wp.tile_stack_count(s)
        wp.tile_stack_clear(s)
        out[5] = wp.tile_stack_count(s)
        e, eslot = wp.tile_stack_pop(s)
        out[6] = eslot
        out[7] = a + b

    out = wp.zeros(8, dtype=int)
    wp.launch_tiled(k, dim=1, inputs=[out], block_dim=4)
    assert list(out.numpy()) == [2, 20, 1, -1, 3, 0, -1, 1]


@wp.kernel
def bvh_overlaps(bvh_id: wp.uint64, lo: wp.vec3, hi: wp.vec3, hits: wp.array(dtype=wp.int32)):
    query = wp.tile_bvh_query_aabb(bvh_id, lo, hi)
    while wp.tile_query_valid(query):
        bound = wp.untile(wp.tile_bvh_query_next(query))
        if bound >= 0:
            hits[bound] = 1


@wp.kernel
def mesh_overlaps(mesh_id: wp.uint64, lo: wp.vec3, hi: wp.vec3, hits: wp.array(dtype=wp.int32)):
    query = wp.tile_mesh_query_aabb(mesh_id, lo, hi)
    while wp.tile_query_valid(query):
        face = wp.untile(wp.tile_mesh_query_aabb_next(query))
        if face >= 0:
            hits[face] = 1


def test_tiled_bvh_and_mesh_queries_match_brute_force():
    centers = RNG.uniform(0, 10, (60, 3)).astype(np.float32)
    lowers, uppers = centers - 0.5, centers + 0.5
    bvh = wp.Bvh(wp.array(lowers, dtype=wp.vec3), wp.array(uppers, dtype=wp.vec3))
    lo, hi = np.array([2, 2, 2], np.float32), np.array([6, 7, 5], np.float32)
    hits = wp.zeros(60, dtype=wp.int32)
    wp.launch_tiled(bvh_overlaps, dim=1, inputs=[bvh.id, wp.vec3(*lo), wp.vec3(*hi), hits], block_dim=32)
    want = np.all((lowers <= hi) & (uppers >= lo), axis=1).astype(np.int32)
    np.testing.assert_array_equal(hits.numpy(), want)

    pts = RNG.uniform(0, 10, (30, 3)).astype(np.float32)
    tris = RNG.integers(0, 30, (20, 3)).astype(np.int32)
    mesh = wp.Mesh(wp.array(pts, dtype=wp.vec3), wp.array(tris.reshape(-1), dtype=wp.int32))
    hits = wp.zeros(20, dtype=wp.int32)
    wp.launch_tiled(mesh_overlaps, dim=1, inputs=[mesh.id, wp.vec3(*lo), wp.vec3(*hi), hits], block_dim=32)
    tri_lo, tri_hi = pts[tris].min(axis=1), pts[tris].max(axis=1)
    want = np.all((tri_lo <= hi) & (tri_hi >= lo), axis=1).astype(np.int32)
    np.testing.assert_array_equal(hits.numpy(), want)
