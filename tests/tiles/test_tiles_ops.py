"""Tile operators, layout, memory edges, thread values and build-time errors (CPU, NumPy reference)."""

import importlib.util

import numpy as np
import pytest

import warp_interactive as wp

RNG = np.random.default_rng(11)
DTYPES = [(np.float32, wp.float32), (np.float64, wp.float64), (np.int32, wp.int32)]


def _data(shape, np_dtype):
    if np_dtype == np.int32:
        return RNG.integers(1, 9, shape).astype(np_dtype)
    return RNG.uniform(0.5, 2.0, shape).astype(np_dtype)


@pytest.mark.parametrize("np_dtype,dt", DTYPES)
@pytest.mark.parametrize("shape", [(7,), (3, 4), (2, 3, 2)])
def test_elementwise_operators(np_dtype, dt, shape):
    nd = len(shape)
    arr = {1: wp.array, 2: wp.array2d, 3: wp.array3d}[nd]

    @wp.kernel
    def ops(a: arr(dtype=dt), b: arr(dtype=dt), s: arr(dtype=dt), d: arr(dtype=dt), p: arr(dtype=dt),
            q: arr(dtype=dt), n: arr(dtype=dt)):
        x = wp.tile_load(a, shape=shape)
        y = wp.tile_load(b, shape=shape)
        wp.tile_store(s, x + y)
        wp.tile_store(d, x - y)
        wp.tile_store(p, x * y)
        wp.tile_store(q, x * dt(3) + y)
        wp.tile_store(n, -x)

    a, b = _data(shape, np_dtype), _data(shape, np_dtype)
    outs = [wp.zeros(shape, dtype=dt) for _ in range(5)]
    wp.launch_tiled(ops, dim=1, inputs=[wp.array(a), wp.array(b)] + outs, block_dim=4)
    for got, want in zip(outs, [a + b, a - b, a * b, a * 3 + b, -a]):
        np.testing.assert_allclose(got.numpy(), want.astype(np_dtype), rtol=1e-6)


def test_division_constructors_and_literals():
    @wp.kernel
    def k(out: wp.array2d(dtype=float)):
        t = wp.tile_ones(shape=(2, 3), dtype=float) * 4.0
        f = wp.tile_full(shape=(2, 3), value=2.0, dtype=float)
        r = t / f + wp.tile_zeros(shape=(2, 3), dtype=float)
        r = 1.0 + r
        wp.tile_store(out, r)

    out = wp.zeros((2, 3), dtype=float)
    wp.launch_tiled(k, dim=1, inputs=[out], block_dim=4)
    np.testing.assert_allclose(out.numpy(), np.full((2, 3), 3.0))


def test_layout_ops():
    @wp.kernel
    def k(x: wp.array2d(dtype=float), tr: wp.array2d(dtype=float), bc: wp.array2d(dtype=float),
          row: wp.array(dtype=float), view: wp.array2d(dtype=float), rs: wp.array2d(dtype=float),
          asg: wp.array2d(dtype=float)):
        t = wp.tile_load(x, shape=(4, 6))
        wp.tile_store(tr, wp.tile_transpose(t))
        r = wp.tile_view(t, offset=(2,))
        wp.tile_store(row, r)
        wp.tile_store(bc, wp.tile_broadcast(r, shape=(3, 6)))
        wp.tile_store(view, wp.tile_view(t, offset=(1, 2), shape=(2, 3)))
        wp.tile_store(rs, wp.tile_reshape(t, shape=(3, -1)))
        z = wp.tile_zeros(shape=(4, 6), dtype=float)
        wp.tile_assign(z, wp.tile_ones(shape=(2, 2), dtype=float), offset=(1, 3))
        wp.tile_store(asg, z)

    x = RNG.random((4, 6)).astype(np.float32)
    outs = [wp.zeros(s, dtype=float) for s in [(6, 4), (3, 6), (6,), (2, 3), (3, 8), (4, 6)]]
    wp.launch_tiled(k, dim=1, inputs=[wp.array(x)] + [outs[0], outs[1], outs[2], outs[3], outs[4], outs[5]],
                    block_dim=4)
    z = np.zeros((4, 6), np.float32)
    z[1:3, 3:5] = 1
    for got, want in zip(outs, [x.T, np.broadcast_to(x[2], (3, 6)), x[2], x[1:3, 2:5], x.reshape(3, 8), z]):
        np.testing.assert_array_equal(got.numpy(), want)


def test_partial_tiles_read_zero_and_store_inside_only():
    """A tile that does not divide the array: loads outside read zero, stores outside are dropped
    (warp-lang's bounds_check=True)."""
    @wp.kernel
    def copy(x: wp.array2d(dtype=float), y: wp.array2d(dtype=float), sums: wp.array(dtype=float)):
        i, j = wp.tid()
        t = wp.tile_load(x, shape=(4, 4), offset=(i * 4, j * 4))
        wp.tile_store(y, t * 2.0, offset=(i * 4, j * 4))
        wp.tile_atomic_add(sums, wp.tile_sum(t), offset=(0,))

    x = RNG.random((6, 7)).astype(np.float32)
    y, sums = wp.zeros((6, 7), dtype=float), wp.zeros(1, dtype=float)
    wp.launch_tiled(copy, dim=(2, 2), inputs=[wp.array(x), y, sums], block_dim=16)
    np.testing.assert_allclose(y.numpy(), 2 * x)
    np.testing.assert_allclose(sums.numpy()[0], x.sum(), rtol=1e-5)


def test_tile_untile_extract_and_element_assign():
    @wp.kernel
    def k(out: wp.array(dtype=float), vec_out: wp.array(dtype=wp.vec3), ext: wp.array(dtype=float)):
        i = wp.tid()
        t = wp.tile(float(i) * 2.0)
        out[i] = wp.untile(t * 3.0)
        v = wp.tile(wp.vec3(float(i), 1.0, 2.0))
        vec_out[i] = wp.untile(v)
        g = wp.tile_arange(0, 12, dtype=float)
        m = wp.tile_reshape(g, shape=(3, 4))
        m[1, 2] = 100.0
        ext[i] = m[1, 2] + wp.tile_extract(m, 2, 3) + t[0]

    out, vo, ext = wp.zeros(4, dtype=float), wp.zeros(4, dtype=wp.vec3), wp.zeros(4, dtype=float)
    wp.launch(k, dim=4, inputs=[out, vo, ext], block_dim=4)
    np.testing.assert_allclose(out.numpy(), np.arange(4) * 6.0)
    np.testing.assert_allclose(vo.numpy()[:, 0], np.arange(4))
    np.testing.assert_allclose(ext.numpy(), 111.0 + np.arange(4) * 2.0)


def test_random_tiles_are_deterministic_and_in_range():
    @wp.kernel
    def k(seed: int, x: wp.array2d(dtype=float), y: wp.array2d(dtype=float)):
        i = wp.tid()
        rng = wp.rand_init(seed, i)
        wp.tile_store(x, wp.tile_randf(shape=(1, 8), rng=rng), offset=(i, 0))
        wp.tile_store(y, wp.tile_randf(shape=(1, 8), rng=rng, min=-2.0, max=-1.0), offset=(i, 0))

    x, y = wp.zeros((3, 8), dtype=float), wp.zeros((3, 8), dtype=float)
    wp.launch_tiled(k, dim=3, inputs=[5, x, y], block_dim=8)
    a = x.numpy()
    assert ((a >= 0) & (a < 1)).all() and len(np.unique(a)) == a.size
    assert ((y.numpy() >= -2) & (y.numpy() < -1)).all()


# --- errors at the user's line ------------------------------------------------------------------------
def _build_error(body_src, tmp_path):
    path = tmp_path / "tile_kernel_src.py"
    path.write_text("import warp_interactive as wp\n" + body_src)
    spec = importlib.util.spec_from_file_location(f"tile_err_{abs(hash(body_src))}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    with pytest.raises(wp.CodegenError) as e:
        wp.launch_tiled(mod.k, dim=1, inputs=[wp.zeros((8, 8), dtype=float)], block_dim=4)
    return str(e.value)


@pytest.mark.parametrize("line,message", [
    ("t = wp.tile_load(a, shape=(4, 4), storage='global')", "unknown storage mode 'global'"),
    ("t = wp.tile_matmul(wp.tile_load(a, shape=(4, 3)), wp.tile_load(a, shape=(4, 3)))",
     "mismatched shapes"),
    ("t = wp.tile_zeros(shape=(4, 4), dtype=float, storage='texture')", "unknown storage mode 'texture'"),
    ("wp.tile_matmul(wp.tile_load(a, shape=(4, 3)), wp.tile_load(a, shape=(3, 2)), wp.tile_zeros(shape=(4, 3), "
     "dtype=float))", "out must be a tile of shape (4, 2)"),
    ("t = wp.tile_load(a, shape=(4,))", "a 1-d tile needs a 1-d array"),
    ("t = wp.tile_load(a, shape=(4, 4)) + wp.tile_load(a, shape=(4, 2))", "tile shapes differ for 'add': (4, 4) and (4, 2)"),
    ("t = wp.tile_load(a, shape=(4, 0))", "positive ints"),
    ("t = wp.tile_reshape(wp.tile_load(a, shape=(4, 4)), shape=(3, 5))", "cannot reshape"),
])
def test_build_errors_name_the_line(line, message, tmp_path):
    src = ("@wp.kernel\n"
           "def k(a: wp.array2d(dtype=float)):\n"
           f"    {line}\n")
    text = _build_error(src, tmp_path)
    assert message in text
    assert line.split("(")[0].strip() in text   # the offending source line is shown
    assert 'tile_kernel_src.py", line 4' in text  # with its file and line


# --- property: a window load/store at any offset equals NumPy slicing with zero padding --------------
from hypothesis import given, settings, strategies as st  # noqa: E402


@wp.kernel
def window_copy(x: wp.array2d(dtype=float), y: wp.array2d(dtype=float), oi: int, oj: int):
    t = wp.tile_load(x, shape=(3, 4), offset=(oi, oj))
    wp.tile_store(y, t + wp.tile_ones(shape=(3, 4), dtype=float), offset=(oi, oj))


@settings(max_examples=25, deadline=None)
@given(rows=st.integers(1, 7), cols=st.integers(1, 7), oi=st.integers(-4, 8), oj=st.integers(-5, 8))
def test_window_load_store_matches_numpy(rows, cols, oi, oj):
    x = np.arange(rows * cols, dtype=np.float32).reshape(rows, cols)
    y = wp.zeros((rows, cols), dtype=float)
    wp.launch_tiled(window_copy, dim=1, inputs=[wp.array(x), y, oi, oj], block_dim=4)
    want = np.zeros((rows, cols), np.float32)
    r0, r1, c0, c1 = max(oi, 0), min(oi + 3, rows), max(oj, 0), min(oj + 4, cols)
    if r0 < r1 and c0 < c1:
        want[r0:r1, c0:c1] = x[r0:r1, c0:c1] + 1
    np.testing.assert_array_equal(y.numpy(), want)


def test_tiles_past_the_stack_budget_are_a_build_error(tmp_path):
    src = ("@wp.kernel\n"
           "def k(a: wp.array2d(dtype=float)):\n"
           "    t = wp.tile_load(a, shape=(1024, 1024))\n"
           "    wp.tile_store(a, t * 2.0)\n")
    text = _build_error(src, tmp_path)
    assert "MB of the block's stack" in text and "shape=(1024, 1024)" in text
