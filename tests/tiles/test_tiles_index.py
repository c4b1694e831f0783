"""NumPy-style tile subscripts (warp-lang 1.19): elements, rows, strided and reversed windows,
gathers by an index tile on every axis, window writes, run-time and negative indices, and
tile_view/tile_assign with run-time offsets; against NumPy over dtypes and shapes (square,
non-square, non-power-of-two), gradients against NumPy's adjoint, and the build errors."""

import functools

import numpy as np
import pytest

import warp_interactive as wp

DTYPES = [(wp.float32, np.float32), (wp.float64, np.float64), (wp.float16, np.float16), (wp.int32, np.int32)]
SHAPES = [(4, 4), (6, 8), (5, 7)]


@functools.lru_cache(maxsize=None)
def _kernels(dt, m, n):
    """One kernel per subscript; each stores its result into ``out`` (1-d or 2-d). The nine
    kernels of one (dtype, shape) share one module: one build, not nine (on the CPU here, and
    in the NVRTC check of every recorded module)."""
    A2 = wp.array2d(dtype=dt)
    A1 = wp.array(dtype=dt)
    module = f"tiles_index_{dt.__name__}_{m}x{n}"

    @wp.kernel(module=module)
    def rows(a: A2, r: int, out: A2):
        t = wp.tile_load(a, shape=(m, n))
        wp.tile_store(out, t[1 : m - 1, ::2])

    @wp.kernel(module=module)
    def reverse(a: A2, r: int, out: A2):
        t = wp.tile_load(a, shape=(m, n))
        wp.tile_store(out, t[::-1, n - 1 : 0 : -2])

    @wp.kernel(module=module)
    def row_runtime(a: A2, r: int, out: A1):
        t = wp.tile_load(a, shape=(m, n))
        wp.tile_store(out, t[r])

    @wp.kernel(module=module)
    def column(a: A2, r: int, out: A1):
        t = wp.tile_load(a, shape=(m, n))
        wp.tile_store(out, t[:, r])

    @wp.kernel(module=module)
    def gather_rows(a: A2, r: int, out: A2):
        t = wp.tile_load(a, shape=(m, n))
        idx = wp.tile_arange(0, 3, dtype=int) * (-1) + r
        wp.tile_store(out, t[idx, :])

    @wp.kernel(module=module)
    def gather_cols(a: A2, r: int, out: A2):
        t = wp.tile_load(a, shape=(m, n))
        idx = wp.tile_arange(0, 3, dtype=int) * 2 - 1
        wp.tile_store(out, t[:, idx])

    @wp.kernel(module=module)
    def window_write(a: A2, r: int, out: A2):
        t = wp.tile_load(a, shape=(m, n))
        u = wp.tile_load(a, shape=(2, n - 1), offset=(0, 1))
        t[1:3, 0 : n - 1] = u
        t[r, ::2] = wp.tile_zeros(shape=(n + 1) // 2, dtype=dt)
        wp.tile_store(out, t)

    @wp.kernel(module=module)
    def view_runtime(a: A2, r: int, out: A2):
        t = wp.tile_load(a, shape=(m, n))
        v = wp.tile_view(t, offset=(r + m - 2, 1), shape=(2, n - 1))
        z = wp.tile_zeros(shape=(m, n), dtype=dt)
        wp.tile_assign(z, v, offset=(r + m - 2, 0))
        wp.tile_store(out, z)

    @wp.kernel(module=module)
    def element(a: A2, r: int, out: A1):
        t = wp.tile_load(a, shape=(m, n))
        t[r, -1] = t[0, r] + t[-1, 0]
        wp.tile_store(out, t[r])

    return locals()


def _expected(name, a, r):
    m, n = a.shape
    if name == "rows":
        return a[1 : m - 1, ::2]
    if name == "reverse":
        return a[::-1, n - 1 : 0 : -2]
    if name == "row_runtime":
        return a[r]
    if name == "column":
        return a[:, r]
    if name == "gather_rows":
        return a[[r, r - 1, r - 2]]
    if name == "gather_cols":
        return a[:, [-1, 1, 3]]
    if name == "window_write":
        t = a.copy()
        t[1:3, : n - 1] = a[0:2, 1:]
        t[r, ::2] = 0
        return t
    if name == "view_runtime":
        z, o = np.zeros_like(a), r + m - 2
        if 0 <= o <= m - 2:     # a run-time window that does not fit reads zeros
            z[o : o + 2, : n - 1] = a[o : o + 2, 1:n]
        return z
    t = a.copy()
    t[r, -1] = a[0, r] + a[-1, 0]
    return t[r]


NAMES = ["rows", "reverse", "row_runtime", "column", "gather_rows", "gather_cols", "window_write",
         "view_runtime", "element"]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dt,npt", DTYPES)
def test_subscripts_match_numpy(dt, npt, shape):
    kernels = _kernels(dt, *shape)
    a = (np.arange(np.prod(shape)).reshape(shape) % 97).astype(npt)
    for name in NAMES:
        for r in (-2, 1):      # negative run-time indices count from the end, as in NumPy
            want = _expected(name, a, r)
            out = wp.zeros(want.shape, dtype=dt)
            wp.launch_tiled(kernels[name], dim=1, inputs=[wp.array(a, dtype=dt), r, out], block_dim=4)
            np.testing.assert_array_equal(out.numpy(), want, err_msg=f"{name} r={r}")


@pytest.mark.parametrize("r", [7, -7, 100, -100])
def test_runtime_index_outside_reads_zero_and_writes_nothing(r):
    """No run-time index reaches outside the tile's memory (a constant one is a build error)."""
    kernels = _kernels(wp.float32, 6, 6)
    a = np.arange(36, dtype=np.float32).reshape(6, 6) + 1
    out = wp.zeros(6, dtype=float)
    wp.launch_tiled(kernels["row_runtime"], dim=1, inputs=[wp.array(a), r, out], block_dim=4)
    np.testing.assert_array_equal(out.numpy(), np.zeros(6))
    full = wp.zeros((6, 6), dtype=float)
    wp.launch_tiled(kernels["view_runtime"], dim=1, inputs=[wp.array(a), r, full], block_dim=4)
    np.testing.assert_array_equal(full.numpy(), np.zeros((6, 6)))


@wp.kernel
def slice_grad(a: wp.array2d(dtype=wp.float64), w: wp.array2d(dtype=wp.float64), ix: wp.array(dtype=int),
               out: wp.array(dtype=wp.float64)):
    t = wp.tile_load(a, shape=(5, 6))
    idx = wp.tile_load(ix, shape=4)     # [1, 2, 1, 2]: repeated gathers accumulate
    g = t[::-2, 1:4] * t[::-2, 1:4]
    s = wp.tile_load(w, shape=(4, 6))
    u = t
    u[0:4, :] = s * t[idx, :]
    wp.tile_store(out, wp.tile_sum(g) + wp.tile_sum(u * u) + wp.tile_sum(t[:, idx]))


def test_slice_and_gather_gradients_against_numpy():
    rng = np.random.default_rng(5)
    a, w = rng.uniform(-1, 1, (5, 6)), rng.uniform(-1, 1, (4, 6))
    aw, ww = wp.array(a, dtype=wp.float64, requires_grad=True), wp.array(w, dtype=wp.float64, requires_grad=True)
    out = wp.zeros(1, dtype=wp.float64, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch_tiled(slice_grad, dim=1, inputs=[aw, ww, wp.array([1, 2, 1, 2], dtype=int), out],
                         block_dim=4)
    tape.backward(out)
    idx = [1, 2, 1, 2]
    ga = np.zeros_like(a)
    ga[::-2, 1:4] += 2 * a[::-2, 1:4]
    u = a.copy()
    u[0:4] = w * a[idx]
    ga[4] += 2 * u[4]                                 # the row the window write keeps
    np.add.at(ga, idx, 2 * u[0:4] * w)                # through s * t[idx, :]
    np.add.at(ga.T, idx, np.ones((4, 5)))             # t[:, idx]
    np.testing.assert_allclose(out.numpy()[0], (a[::-2, 1:4] ** 2).sum() + (u * u).sum() + a[:, idx].sum())
    np.testing.assert_allclose(aw.grad.numpy(), ga, rtol=1e-12)
    np.testing.assert_allclose(ww.grad.numpy(), 2 * u[0:4] * a[idx], rtol=1e-12)


BAD = {
    "t[6, :]": "index 6 is out of bounds for axis 0",
    "t[2:2, :]": "empty tile",
    "t[::0]": "step cannot be zero",
    "t[0:n]": "compile-time constant",
    "t[1.5]": "must be integers or slices, got float32",
    "t[idx, 1:3]": "requires ':' on all other axes",
    "t[fidx, :]": "integer index tile",
    "t[0, 0, 0]": "too many indices",
}


@pytest.mark.parametrize("expr", list(BAD))
def test_bad_subscripts_are_build_errors_at_the_line(expr):
    src = (f"def k(n: int):\n    t = wp.tile_ones(shape=(6, 4), dtype=float)\n"
           f"    idx = wp.tile_arange(0, 2, dtype=int)\n    fidx = wp.tile_arange(0, 2, dtype=float)\n"
           f"    x = {expr}\n")
    path = f"/tmp/wpi_tile_bad_{abs(hash(expr))}.py"
    with open(path, "w") as f:
        f.write("import warp_interactive as wp\n" + src)
    import importlib.util
    spec = importlib.util.spec_from_file_location(f"bad_{abs(hash(expr))}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    kernel = wp.kernel(mod.k, module="unique")
    with pytest.raises(RuntimeError, match=BAD[expr]) as info:   # CodegenError is a RuntimeError
        wp.launch_tiled(kernel, dim=1, inputs=[3], block_dim=4)
    assert isinstance(info.value, wp.WarpCodegenError) and "line 6" in str(info.value)


@pytest.mark.parametrize("target,msg", [
    ("t[0:2, :] = 1.0", "requires a tile of matching shape"),
    ("t[0:3, :] = wp.tile_ones(shape=(2, 4), dtype=float)", "shape mismatch"),
    ("t[0:2, :] += wp.tile_ones(shape=(2, 4), dtype=float)", "Compound assignment to a tile view"),
    ("t[idx, :] = wp.tile_ones(shape=(2, 4), dtype=float)", "through an index tile"),
])
def test_bad_view_writes_are_build_errors(target, msg):
    path = f"/tmp/wpi_tile_badw_{abs(hash(target))}.py"
    with open(path, "w") as f:
        f.write("import warp_interactive as wp\n\ndef k():\n    t = wp.tile_zeros(shape=(6, 4), dtype=float)\n"
                f"    idx = wp.tile_arange(0, 2, dtype=int)\n    {target}\n")
    import importlib.util
    spec = importlib.util.spec_from_file_location(f"badw_{abs(hash(target))}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    with pytest.raises(wp.WarpCodegenError, match=msg):
        wp.launch_tiled(wp.kernel(mod.k, module="unique"), dim=1, inputs=[], block_dim=4)


@wp.kernel
def view_writes(a: wp.array2d(dtype=float), r: int, out: wp.array2d(dtype=float), same: wp.array2d(dtype=float)):
    t = wp.tile_load(a, shape=(4, 6))
    b = wp.tile_zeros(shape=(4, 6), dtype=float)
    for i in range(r):                       # a dynamic loop: b is carried through it
        row = b[i]
        wp.tile_assign(row, t[i] * 2.0)      # writing into a view writes into b (warp-lang)
    v = b[1:3, 2:4]
    v += wp.tile_ones(shape=(2, 2), dtype=float)
    w = wp.tile_view(b, offset=(r - 1,))     # a run-time view
    w[0] = 100.0
    wp.tile_store(out, b)
    c = t
    x = c[0]
    x = wp.tile_zeros(shape=6, dtype=float)  # rebinding a name is no write
    wp.tile_store(same, c + wp.tile_zeros(shape=(4, 6), dtype=float) * x[0])


@pytest.mark.parametrize("r", [1, 3])
def test_writes_through_views_reach_the_tile(r):
    a = np.arange(24, dtype=np.float32).reshape(4, 6)
    out, same = wp.zeros((4, 6), dtype=float), wp.zeros((4, 6), dtype=float)
    wp.launch_tiled(view_writes, dim=1, inputs=[wp.array(a), r, out, same], block_dim=4)
    want = np.zeros((4, 6), np.float32)
    want[:r] = 2 * a[:r]
    want[1:3, 2:4] += 1
    want[r - 1, 0] = 100
    np.testing.assert_array_equal(out.numpy(), want)
    np.testing.assert_array_equal(same.numpy(), a)


@pytest.mark.parametrize("r,ok", [(5, True), (-6, True), (6, False), (-7, False)])
def test_debug_mode_records_runtime_tile_index_errors(r, ok):
    """Debug builds report a run-time index outside the tile after the launch, as for arrays."""
    @wp.kernel(module="unique")
    def k(a: wp.array2d(dtype=float), r: int, out: wp.array(dtype=float)):
        t = wp.tile_load(a, shape=(6, 6))
        wp.tile_store(out, t[r])

    k.module.options["mode"] = "debug"
    a = np.arange(36, dtype=np.float32).reshape(6, 6)
    out = wp.zeros(6, dtype=float)
    if ok:
        wp.launch_tiled(k, dim=1, inputs=[wp.array(a), r, out], block_dim=4)
        np.testing.assert_array_equal(out.numpy(), a[r])
    else:
        with pytest.raises(wp.LaunchError if hasattr(wp, "LaunchError") else RuntimeError,
                           match=rf"index out of bounds in kernel .*array 'tile' indexed with \[{r}\], shape \(6,\)"):
            wp.launch_tiled(k, dim=1, inputs=[wp.array(a), r, out], block_dim=4)
