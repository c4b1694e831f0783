"""Tables for the tile primitives the other tile tests did not reach: squeeze, astype,
from_thread, randi, the in-place Cholesky/solve forms and the tiled BVH ray query; against NumPy
(or brute force) over dtypes and shapes, square, non-square and non-power-of-two."""

import numpy as np
import pytest

import warp_interactive as wp

RNG = np.random.default_rng(11)
DTYPES = [(wp.float32, np.float32), (wp.float64, np.float64), (wp.float16, np.float16), (wp.int32, np.int32)]


@pytest.mark.parametrize("shape,axis", [((1, 5), None), ((3, 1, 4), 1), ((1, 1, 7), None), ((2, 1), 1),
                                        ((1, 6, 1), 0)])
@pytest.mark.parametrize("dt,npt", DTYPES)
def test_squeeze(dt, npt, shape, axis):
    want = np.squeeze(np.arange(np.prod(shape)).reshape(shape).astype(npt), axis=axis)
    size = int(np.prod(shape))

    @wp.kernel(module="unique")
    def k(a: wp.array(dtype=dt), out: wp.array(dtype=dt)):
        t = wp.tile_reshape(wp.tile_load(a, shape=size), shape=shape)
        if wp.static(axis is None):
            s = wp.tile_squeeze(t)
        else:
            s = wp.tile_squeeze(t, axis=axis)
        wp.tile_store(out, wp.tile_reshape(s, shape=size))

    out = wp.zeros(want.size, dtype=dt)
    wp.launch_tiled(k, dim=1, inputs=[wp.array(want.reshape(-1), dtype=dt), out], block_dim=4)
    np.testing.assert_array_equal(out.numpy(), want.reshape(-1))


CASTS = [(wp.float32, np.float32, wp.float64, np.float64), (wp.float64, np.float64, wp.int32, np.int32),
         (wp.int32, np.int32, wp.float32, np.float32), (wp.float16, np.float16, wp.float32, np.float32),
         (wp.float32, np.float32, wp.float16, np.float16)]


@pytest.mark.parametrize("shape", [(5,), (3, 7), (4, 4)])
@pytest.mark.parametrize("src,nsrc,dst,ndst", CASTS)
def test_astype(src, nsrc, dst, ndst, shape):
    a = (RNG.uniform(-50, 50, shape)).astype(nsrc)
    shape2 = shape if len(shape) == 2 else (1,) + shape

    @wp.kernel(module="unique")
    def k(x: wp.array2d(dtype=src), out: wp.array2d(dtype=dst)):
        wp.tile_store(out, wp.tile_astype(wp.tile_load(x, shape=shape2), dtype=dst))

    out = wp.zeros(shape2, dtype=dst)
    wp.launch_tiled(k, dim=1, inputs=[wp.array(a.reshape(shape2), dtype=src), out], block_dim=4)
    np.testing.assert_array_equal(out.numpy(), a.reshape(shape2).astype(ndst))   # C casts truncate, as NumPy


@pytest.mark.parametrize("shape", [(3,), (4, 3), (2, 5, 3)])
@pytest.mark.parametrize("dt,npt", DTYPES)
def test_from_thread_fills_with_the_lane_value(dt, npt, shape):
    size = int(np.prod(shape))

    @wp.kernel(module="unique")
    def k(v: wp.array(dtype=dt), out: wp.array(dtype=dt)):
        t = wp.tile_from_thread(shape=shape, value=v[0], thread_idx=0)
        wp.tile_store(out, wp.tile_reshape(t, shape=size))

    out = wp.zeros(size, dtype=dt)
    wp.launch_tiled(k, dim=1, inputs=[wp.array(np.array([7], dtype=npt), dtype=dt), out], block_dim=1)
    np.testing.assert_array_equal(out.numpy(), np.full(int(np.prod(shape)), 7, npt))


@pytest.mark.parametrize("shape,lo,hi", [((64,), -5, 9), ((8, 13), 0, 2), ((5, 5), 100, 1000)])
def test_randi_range_and_spread(shape, lo, hi):
    shape2 = shape if len(shape) == 2 else (1,) + shape

    @wp.kernel(module="unique")
    def k(seed: int, out: wp.array2d(dtype=int), out_any: wp.array2d(dtype=int)):
        rng = wp.rand_init(seed)
        wp.tile_store(out, wp.tile_randi(shape=shape2, rng=rng, min=lo, max=hi))
        wp.tile_store(out_any, wp.tile_randi(shape=shape2, rng=rng))

    runs = []
    for seed in (1, 2, 1):
        out, out_any = wp.zeros(shape2, dtype=int), wp.zeros(shape2, dtype=int)
        wp.launch_tiled(k, dim=1, inputs=[seed, out, out_any], block_dim=1)
        runs.append((out.numpy(), out_any.numpy()))
    v = runs[0][0]
    assert v.min() >= lo and v.max() < hi
    assert len(np.unique(v)) == min(hi - lo, v.size) or len(np.unique(v)) > (hi - lo) // 2
    assert len(np.unique(runs[0][1])) > v.size // 2                 # full-range ints rarely repeat
    np.testing.assert_array_equal(runs[0][0], runs[2][0])            # same seed, same tile
    assert not np.array_equal(runs[0][1], runs[1][1])                # another seed, another tile


@pytest.mark.parametrize("n,rhs", [(1, (1,)), (3, (3,)), (5, (5, 2)), (4, (4, 3))])
@pytest.mark.parametrize("dt,npt,tol", [(wp.float32, np.float32, 1e-4), (wp.float64, np.float64, 1e-11)])
def test_inplace_cholesky_and_solves(dt, npt, tol, n, rhs):
    """The _inplace forms rebind their argument to the result of the plain forms."""
    b = RNG.uniform(-1, 1, (n, n))
    spd = (b @ b.T + n * np.eye(n)).astype(npt)
    y = RNG.uniform(-1, 1, rhs).astype(npt)
    ys = y.reshape(n, -1)

    @wp.kernel(module="unique")
    def k(a: wp.array2d(dtype=dt), y: wp.array2d(dtype=dt), fac: wp.array2d(dtype=dt), out: wp.array3d(dtype=dt)):
        t = wp.tile_load(a, shape=(n, n))
        wp.tile_cholesky_inplace(t)
        wp.tile_store(fac, t)
        r0 = wp.tile_load(y, shape=ys.shape)
        wp.tile_cholesky_solve_inplace(t, r0)
        r1 = wp.tile_load(y, shape=ys.shape)
        wp.tile_lower_solve_inplace(t, r1)
        r2 = wp.tile_load(y, shape=ys.shape)
        wp.tile_upper_solve_inplace(wp.tile_transpose(t), r2)
        wp.tile_store(out[0], r0)
        wp.tile_store(out[1], r1)
        wp.tile_store(out[2], r2)

    fac, out = wp.zeros((n, n), dtype=dt), wp.zeros((3,) + ys.shape, dtype=dt)
    wp.launch_tiled(k, dim=1, inputs=[wp.array(spd, dtype=dt), wp.array(ys, dtype=dt), fac, out], block_dim=4)
    L = np.linalg.cholesky(spd.astype(np.float64))
    np.testing.assert_allclose(fac.numpy(), L, rtol=tol, atol=tol)
    np.testing.assert_allclose(out.numpy()[0], np.linalg.solve(spd.astype(np.float64), ys), rtol=tol * 10, atol=tol)
    np.testing.assert_allclose(out.numpy()[1], np.linalg.solve(L, ys), rtol=tol * 10, atol=tol)
    np.testing.assert_allclose(out.numpy()[2], np.linalg.solve(L.T, ys), rtol=tol * 10, atol=tol)


@wp.kernel
def bvh_ray_hits(bvh_id: wp.uint64, start: wp.vec3, d: wp.vec3, hits: wp.array(dtype=wp.int32)):
    query = wp.tile_bvh_query_ray(bvh_id, start, d)
    while wp.tile_query_valid(query):
        bound = wp.untile(wp.tile_bvh_query_next(query))
        if bound >= 0:
            hits[bound] = 1


def _ray_hits_box(o, d, lo, hi):
    """Slab test, brute force: does the ray o + t d (t >= 0) meet the box [lo, hi]?"""
    with np.errstate(divide="ignore", invalid="ignore"):
        t1, t2 = (lo - o) / d, (hi - o) / d
    tmin = np.nanmax(np.minimum(t1, t2), axis=1)
    tmax = np.nanmin(np.maximum(t1, t2), axis=1)
    return (tmax >= np.maximum(tmin, 0)).astype(np.int32)


@pytest.mark.parametrize("n", [1, 37, 200])
def test_tiled_bvh_ray_query_matches_brute_force(n):
    centers = RNG.uniform(0, 10, (n, 3)).astype(np.float32)
    lowers, uppers = centers - 0.6, centers + 0.6
    bvh = wp.Bvh(wp.array(lowers, dtype=wp.vec3), wp.array(uppers, dtype=wp.vec3))
    for o, d in [((-1, 5, 5), (1, 0.05, -0.02)), ((5, 5, 12), (0, 0, -1)), ((0, 0, 0), (1, 1, 1))]:
        o, d = np.array(o, np.float32), np.array(d, np.float32)
        hits = wp.zeros(n, dtype=wp.int32)
        wp.launch_tiled(bvh_ray_hits, dim=1, inputs=[bvh.id, wp.vec3(*o), wp.vec3(*d), hits], block_dim=32)
        want = _ray_hits_box(o, d, lowers, uppers)
        # a ray grazing a box within float rounding may go either way: compare the clear cases
        got = hits.numpy()
        assert np.all(got[want == 1] == 1) or np.sum(got != want) <= 1
        assert np.sum(got != want) <= 1, (np.nonzero(got != want), got.sum(), want.sum())


@wp.func
def blend3(x: wp.float64, y: wp.float64, w: wp.float64):
    return x * w + y * (1.0 - w)


@wp.func
def poly4(x: float, a: float, b: float, c: float):
    return a * x * x + b * x + c


@pytest.mark.parametrize("shape", [(7,), (3, 5), (4, 4)])
def test_tile_map_many_arguments_and_broadcast_values(shape):
    """tile_map takes up to eight arguments: tiles of a's shape or values broadcast to every
    element; a broadcast value's adjoint is the sum of the elements' contributions."""
    size = int(np.prod(shape))

    @wp.kernel(module="unique")
    def k(x: wp.array(dtype=wp.float64), y: wp.array(dtype=wp.float64), w: wp.array(dtype=wp.float64),
          f: wp.array(dtype=float), out: wp.array(dtype=wp.float64), out2: wp.array(dtype=float),
          out3: wp.array(dtype=wp.vec3)):
        tx = wp.tile_reshape(wp.tile_load(x, shape=size), shape=shape)
        ty = wp.tile_reshape(wp.tile_load(y, shape=size), shape=shape)
        wp.tile_store(out, wp.tile_reshape(wp.tile_map(blend3, tx, ty, w[0]), shape=size))
        tf = wp.tile_reshape(wp.tile_load(f, shape=size), shape=shape)
        wp.tile_store(out2, wp.tile_reshape(wp.tile_map(poly4, tf, 2.0, f[0], tf), shape=size))
        wp.tile_store(out3, wp.tile_reshape(wp.tile_map(wp.mul, tf, wp.vec3(1.0, -2.0, 0.5)), shape=size))

    x, y, f = RNG.uniform(-1, 1, size), RNG.uniform(-1, 1, size), RNG.uniform(-1, 1, size).astype(np.float32)
    w = np.array([0.3])
    arrs = [wp.array(v, dtype=wp.float64, requires_grad=True) for v in (x, y, w)]
    out = wp.zeros(size, dtype=wp.float64, requires_grad=True)
    out2, out3 = wp.zeros(size, dtype=float), wp.zeros(size, dtype=wp.vec3)
    tape = wp.Tape()
    with tape:
        wp.launch_tiled(k, dim=1, inputs=arrs + [wp.array(f), out, out2, out3], block_dim=4)
    np.testing.assert_allclose(out.numpy(), x * w + y * (1 - w), rtol=1e-12)
    np.testing.assert_allclose(out2.numpy(), 2 * f * f + f[0] * f + f, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out3.numpy(), f[:, None] * np.array([1, -2, 0.5], np.float32), rtol=1e-6)
    g = RNG.uniform(-1, 1, size)
    out.grad = wp.array(g, dtype=wp.float64)
    tape.backward()
    np.testing.assert_allclose(arrs[0].grad.numpy(), g * w, rtol=1e-12)
    np.testing.assert_allclose(arrs[1].grad.numpy(), g * (1 - w), rtol=1e-12)
    np.testing.assert_allclose(arrs[2].grad.numpy(), [np.sum(g * (x - y))], rtol=1e-12)


@pytest.mark.parametrize("rows,cols", [(2, 3), (3, 3), (4, 2)])
@pytest.mark.parametrize("dt,npt", [(wp.float32, np.float32), (wp.float64, np.float64)])
def test_tile_of_a_matrix_is_rows_cols_block(dt, npt, rows, cols):
    """wp.tile(matrix) has shape (rows, cols, block_dim) as in warp-lang; untile gives it back."""
    mt = wp.types.matrix((rows, cols), dt)

    @wp.kernel(module="unique")
    def k(m: wp.array(dtype=mt), out: wp.array(dtype=mt), s: wp.array(dtype=dt), flat: wp.array3d(dtype=dt)):
        i = wp.tid()
        t = wp.tile(m[i])
        out[i] = wp.untile(t * dt(2.0))
        wp.tile_atomic_add(s, wp.tile_sum(t))
        wp.tile_store(flat[i], wp.tile_reshape(t, shape=(rows, cols)))

    m = RNG.uniform(-1, 1, (3, rows, cols)).astype(npt)
    wm = wp.array(m, dtype=mt, requires_grad=True)
    out = wp.zeros(3, dtype=mt, requires_grad=True)
    s = wp.zeros(1, dtype=dt, requires_grad=True)
    flat = wp.zeros((3, rows, cols), dtype=dt)
    tape = wp.Tape()
    with tape:
        wp.launch_tiled(k, dim=3, inputs=[wm, out, s, flat], block_dim=1)
    np.testing.assert_allclose(out.numpy(), 2 * m, rtol=1e-6)
    np.testing.assert_allclose(flat.numpy(), m, rtol=1e-6)
    np.testing.assert_allclose(s.numpy()[0], m.sum(), rtol=1e-5)
    tape.backward(s)
    np.testing.assert_array_equal(wm.grad.numpy(), np.ones_like(m))
