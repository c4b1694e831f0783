"""Tables for the indexed and spectral tile primitives: tile_load_indexed / tile_store_indexed /
tile_atomic_add_indexed / tile_slice_indexed over dtypes, tile shapes (square, 1xN, Nx1, odd)
and both axes, with repeated and out-of-range indices; tile_diag_add over dtypes and sizes;
tile_fft/tile_ifft over lengths that are and are not powers of two; against NumPy.

One module per dtype (all its shapes' kernels compile together)."""

import functools

import numpy as np
import pytest

import warp_interactive as wp

DTYPES = {"float16": (wp.float16, np.float16), "float32": (wp.float32, np.float32),
          "float64": (wp.float64, np.float64), "int32": (wp.int32, np.int32), "vec3": (wp.vec3, np.float32)}
# (tile rows, tile cols) read from a (rows + 3, cols + 3) array
SHAPES = [(1, 1), (1, 6), (6, 1), (3, 3), (2, 5), (8, 4)]


def _index_kernel(dt, shape, axis, module):
    r, c = shape
    n = shape[axis]

    @wp.kernel(module=module, enable_backward=False, name=f"ix_{dt.__name__}_{r}x{c}_axis{axis}")
    def ix(x: wp.array2d(dtype=dt), idx: wp.array(dtype=int), loaded: wp.array2d(dtype=dt),
           stored: wp.array2d(dtype=dt), acc: wp.array2d(dtype=dt), sliced: wp.array2d(dtype=dt)):
        ind = wp.tile_load(idx, shape=n)
        t = wp.tile_load_indexed(x, indices=ind, shape=shape, offset=(1, 1), axis=axis)
        wp.tile_store(loaded, t)
        wp.tile_store_indexed(stored, indices=ind, t=t, offset=(1, 1), axis=axis)
        wp.tile_atomic_add_indexed(acc, indices=ind, t=t, offset=(1, 1), axis=axis)
        whole = wp.tile_load(x, shape=(r + 3, c))
        wp.tile_store(sliced, wp.tile_slice_indexed(whole, ind))

    return ix


@functools.lru_cache(maxsize=None)
def index_kernels(name):
    dt = DTYPES[name][0]
    return {(s, ax): _index_kernel(dt, s, ax, f"tiles_indexed_{name}") for s in SHAPES for ax in (0, 1)}


def _indices(n, size, rng, unique):
    """n indices into an axis of `size` (after the offset of 1): in range, plus one out of range
    (reads zero, writes nothing) when there is room; repeated ones only where allowed."""
    pool = np.arange(size - 1)
    idx = rng.choice(pool, n, replace=not unique or n > len(pool)).astype(np.int32)
    if n > 2:
        idx[-1] = size + 5                                     # outside the array
    return idx


def _reference(x, idx, shape, axis, npt):
    r, c = shape
    loaded = np.zeros((r, c) + x.shape[2:], npt)
    stored = np.zeros_like(x)
    acc = np.zeros_like(x)
    for k, i in enumerate(idx):
        for m in range(shape[1 - axis]):
            src = (1 + i, 1 + m) if axis == 0 else (1 + m, 1 + i)
            dst = (k, m) if axis == 0 else (m, k)
            if src[0] < x.shape[0] and src[1] < x.shape[1]:    # outside: reads zero, writes nothing
                loaded[dst] = x[src]
                stored[src] = loaded[dst]
                acc[src] += loaded[dst]
    return loaded, stored, acc


@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("name", list(DTYPES))
def test_indexed_memory_table(name, axis):
    dt, npt = DTYPES[name]
    rng = np.random.default_rng(21)
    for shape in SHAPES:
        r, c = shape
        big = (r + 3, c + 3) + ((3,) if name == "vec3" else ())
        x = rng.integers(-30, 30, big).astype(npt)
        n = shape[axis]
        for unique in (True, False):                           # repeated indices: atomics sum
            idx = _indices(n, big[axis] - 1, rng, unique)
            outs = [wp.zeros(big[:2], dtype=dt) for _ in range(2)]
            acc = wp.zeros(big[:2], dtype=dt)
            sliced = wp.zeros((n, c), dtype=dt)
            loaded = wp.zeros(shape, dtype=dt)
            wp.launch_tiled(index_kernels(name)[(shape, axis)], dim=1,
                            inputs=[wp.array(x, dtype=dt), wp.array(idx), loaded, outs[0], acc, sliced],
                            block_dim=4)
            want_l, want_s, want_a = _reference(x, idx, shape, axis, npt)
            msg = f"shape {shape}, indices {idx}"
            np.testing.assert_array_equal(loaded.numpy(), want_l, err_msg=msg)
            np.testing.assert_array_equal(acc.numpy(), want_a, err_msg=msg)
            if unique:                                         # a repeated store's winner is unspecified
                np.testing.assert_array_equal(outs[0].numpy(), want_s, err_msg=msg)
            rows = x[:r + 3, :c]
            want_sl = np.stack([rows[i] if -len(rows) <= i < len(rows) else np.zeros_like(rows[0]) for i in idx])
            np.testing.assert_array_equal(sliced.numpy(), want_sl, err_msg=msg)


DIAG = {"float16": (wp.float16, np.float16), "float32": (wp.float32, np.float32),
        "float64": (wp.float64, np.float64)}


def _diag_kernel(dt, n):
    @wp.kernel(module=f"tiles_diag_{dt.__name__}", enable_backward=False, name=f"diag_{dt.__name__}_{n}")
    def diag(a: wp.array2d(dtype=dt), d: wp.array(dtype=dt), out: wp.array2d(dtype=dt)):
        wp.tile_store(out, wp.tile_diag_add(wp.tile_load(a, shape=(n, n)), wp.tile_load(d, shape=n)))

    return diag


@functools.lru_cache(maxsize=None)
def diag_kernels(name):
    return {n: _diag_kernel(DIAG[name][0], n) for n in (1, 2, 5, 8)}


@pytest.mark.parametrize("name", list(DIAG))
def test_diag_add_table(name):
    dt, npt = DIAG[name]
    rng = np.random.default_rng(22)
    for n, k in diag_kernels(name).items():
        a = (np.round(rng.uniform(-4, 4, (n, n)) * 8) / 8).astype(npt)
        d = (np.round(rng.uniform(-4, 4, n) * 8) / 8).astype(npt)
        out = wp.zeros((n, n), dtype=dt)
        wp.launch_tiled(k, dim=1, inputs=[wp.array(a, dtype=dt), wp.array(d, dtype=dt), out], block_dim=4)
        np.testing.assert_array_equal(out.numpy(), a + np.diag(d), err_msg=f"n={n}")


FFT_LENGTHS = [1, 2, 3, 5, 8, 12, 32]


def _fft_kernel(dt, rows, n):
    @wp.kernel(module=f"tiles_fft_{dt.__name__}", enable_backward=False, name=f"fft_{dt.__name__}_{rows}x{n}")
    def fft(x: wp.array2d(dtype=dt), f: wp.array2d(dtype=dt), r: wp.array2d(dtype=dt)):
        t = wp.tile_load(x, shape=(rows, n))
        wp.tile_fft(t)
        wp.tile_store(f, t)
        wp.tile_ifft(t)
        wp.tile_store(r, t)

    return fft


@functools.lru_cache(maxsize=None)
def fft_kernels(dt):
    return {(rows, n): _fft_kernel(dt, rows, n) for rows in (1, 3) for n in FFT_LENGTHS}


@pytest.mark.parametrize("dt,npt,tol", [(wp.vec2f, np.float32, 1e-5), (wp.vec2d, np.float64, 1e-12)])
def test_fft_table(dt, npt, tol):
    """Each row's DFT as numpy.fft.fft (unnormalised); tile_ifft is unnormalised too, as in
    warp-lang, so a round trip gives n times the input."""
    rng = np.random.default_rng(23)
    for (rows, n), k in fft_kernels(dt).items():
        z = rng.standard_normal((rows, n)) + 1j * rng.standard_normal((rows, n))
        x = np.stack([z.real, z.imag], axis=-1).astype(npt)
        f, r = wp.zeros((rows, n), dtype=dt), wp.zeros((rows, n), dtype=dt)
        wp.launch_tiled(k, dim=1, inputs=[wp.array(x, dtype=dt), f, r], block_dim=4)
        want = np.fft.fft(z, axis=1)
        got = f.numpy()[..., 0] + 1j * f.numpy()[..., 1]
        np.testing.assert_allclose(got, want, rtol=tol * n, atol=tol * n * 4, err_msg=f"{rows}x{n}")
        back = r.numpy()[..., 0] + 1j * r.numpy()[..., 1]
        np.testing.assert_allclose(back, n * z, rtol=tol * n, atol=tol * n * n * 4, err_msg=f"{rows}x{n}")
