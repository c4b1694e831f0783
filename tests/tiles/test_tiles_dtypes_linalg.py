"""Tables for the tile primitives test_tiles_dtypes.py leaves out: tile_matmul (both forms, with
alpha/beta) over float16/32/64 and (M, K, N) shapes with 1s, odd and power-of-two extents;
tile_dot/tile_axpy; tile_sort over key and value dtypes and lengths; and the adjoints of the
differentiable primitives over the same shapes, against central finite differences.

One module per dtype (all shapes' kernels compile together)."""

import functools
import runpy

import numpy as np
import pytest

import warp_interactive as wp

FLOATS = {"float16": (wp.float16, np.float16, 2e-2), "float32": (wp.float32, np.float32, 1e-5),
          "float64": (wp.float64, np.float64, 1e-12)}
MKN = [(1, 1, 1), (1, 7, 1), (7, 1, 5), (4, 4, 4), (3, 5, 2), (16, 8, 12), (5, 17, 3), (1, 16, 9), (9, 3, 1)]


def _matmul_kernel(dt, m, k, n, module):
    @wp.kernel(module=module, enable_backward=False, name=f"mm_{dt.__name__}_{m}_{k}_{n}")
    def mm(a: wp.array2d(dtype=dt), b: wp.array2d(dtype=dt), c0: wp.array2d(dtype=dt),
           plain: wp.array2d(dtype=dt), scaled: wp.array2d(dtype=dt), acc: wp.array2d(dtype=dt)):
        ta = wp.tile_load(a, shape=(m, k))
        tb = wp.tile_load(b, shape=(k, n))
        wp.tile_store(plain, wp.tile_matmul(ta, tb))
        wp.tile_store(scaled, wp.tile_matmul(ta, tb, alpha=0.5))
        out = wp.tile_load(c0, shape=(m, n))
        wp.tile_matmul(ta, tb, out, alpha=2.0, beta=-1.0)     # out = 2 a @ b - out
        wp.tile_matmul(ta, tb, out)                            # out += a @ b
        wp.tile_store(acc, out)

    return mm


@functools.lru_cache(maxsize=None)
def matmul_kernels(name):
    dt = FLOATS[name][0]
    return {s: _matmul_kernel(dt, *s, f"tiles_matmul_{name}") for s in MKN}


@pytest.mark.parametrize("name", list(FLOATS))
def test_matmul_table(name):
    dt, npt, tol = FLOATS[name]
    rng = np.random.default_rng(2)
    failed = []
    for m, k, n in MKN:
        a = (np.round(rng.uniform(-2, 2, (m, k)) * 4) / 4).astype(npt)
        b = (np.round(rng.uniform(-2, 2, (k, n)) * 4) / 4).astype(npt)
        c0 = (np.round(rng.uniform(-2, 2, (m, n)) * 4) / 4).astype(npt)
        outs = [wp.zeros((m, n), dtype=dt) for _ in range(3)]
        wp.launch_tiled(matmul_kernels(name)[(m, k, n)], dim=1,
                        inputs=[wp.array(a, dtype=dt), wp.array(b, dtype=dt), wp.array(c0, dtype=dt)] + outs,
                        block_dim=8)
        p = a.astype(np.float64) @ b.astype(np.float64)
        for what, got, want in zip(("a @ b", "alpha", "alpha/beta"), outs, (p, 0.5 * p, 3 * p - c0)):
            scale = max(1.0, float(np.abs(want).max()))
            if not np.allclose(got.numpy().astype(np.float64), want, rtol=tol, atol=tol * scale * k):
                failed.append(f"{(m, k, n)} {what}: {got.numpy()} != {want}")
    assert not failed, "\n".join(failed)


SHAPES = [(1,), (6,), (16,), (1, 5), (5, 1), (3, 3), (4, 7)]


def _dot_axpy_kernel(dt, shape, module):
    size = int(np.prod(shape))

    @wp.kernel(module=module, enable_backward=False, name=f"da_{dt.__name__}_{'x'.join(map(str, shape))}")
    def da(x: wp.array(dtype=dt, ndim=len(shape)), y: wp.array(dtype=dt, ndim=len(shape)), s: wp.array(dtype=dt),
           dot: wp.array(dtype=dt), axpy: wp.array(dtype=dt, ndim=len(shape))):
        a = wp.tile_load(x, shape=shape)
        b = wp.tile_load(y, shape=shape)
        wp.tile_store(dot, wp.tile_dot(a, b))
        wp.tile_axpy(s[0], a, b)                               # b += s * a
        wp.tile_store(axpy, b)

    return da


@functools.lru_cache(maxsize=None)
def dot_axpy_kernels(name):
    dt = FLOATS[name][0]
    return {s: _dot_axpy_kernel(dt, s, f"tiles_dot_axpy_{name}") for s in SHAPES}


@pytest.mark.parametrize("name", list(FLOATS))
def test_dot_and_axpy_table(name):
    dt, npt, tol = FLOATS[name]
    rng = np.random.default_rng(4)
    for shape in SHAPES:
        x = (np.round(rng.uniform(-2, 2, shape) * 4) / 4).astype(npt)
        y = (np.round(rng.uniform(-2, 2, shape) * 4) / 4).astype(npt)
        dot, axpy = wp.zeros(1, dtype=dt), wp.zeros(shape, dtype=dt)
        wp.launch_tiled(dot_axpy_kernels(name)[shape], dim=1,
                        inputs=[wp.array(x, dtype=dt), wp.array(y, dtype=dt), wp.array(np.array([1.5], npt), dtype=dt),
                                dot, axpy], block_dim=4)
        want = float((x.astype(np.float64) * y).sum())
        np.testing.assert_allclose(float(dot.numpy()[0]), want, rtol=tol, atol=tol * x.size, err_msg=str(shape))
        np.testing.assert_allclose(axpy.numpy().astype(np.float64), y + 1.5 * x.astype(np.float64), rtol=tol,
                                   atol=tol, err_msg=str(shape))


SORT_KEYS = {"float32": (wp.float32, np.float32), "int32": (wp.int32, np.int32), "uint32": (wp.uint32, np.uint32),
             "float64": (wp.float64, np.float64), "int64": (wp.int64, np.int64)}
SORT_LENGTHS = [1, 2, 5, 8, 17, 64, 100]


def _sort_kernel(kt, n, module):
    @wp.kernel(module=module, enable_backward=False, name=f"sort_{kt.__name__}_{n}")
    def sort(k: wp.array(dtype=kt), v: wp.array(dtype=wp.int32), vf: wp.array(dtype=wp.float32)):
        keys = wp.tile_load(k, shape=n)
        keys2 = keys
        values = wp.tile_load(v, shape=n)
        fvalues = wp.tile_load(vf, shape=n)
        wp.tile_sort(keys, values)
        wp.tile_sort(keys2, fvalues)
        wp.tile_store(k, keys)
        wp.tile_store(v, values)
        wp.tile_store(vf, fvalues)

    return sort


@functools.lru_cache(maxsize=None)
def sort_kernels(name):
    kt = SORT_KEYS[name][0]
    return {n: _sort_kernel(kt, n, f"tiles_sort_{name}") for n in SORT_LENGTHS}


@pytest.mark.parametrize("name", list(SORT_KEYS))
def test_sort_table(name):
    """Keys ascending, each value moved with its key; repeated keys keep their order (stable),
    negative and extreme keys included where the dtype has them."""
    kt, npt = SORT_KEYS[name]
    rng = np.random.default_rng(6)
    info = np.finfo(npt) if np.issubdtype(npt, np.floating) else np.iinfo(npt)
    for n in SORT_LENGTHS:
        keys = rng.integers(0 if name == "uint32" else -5, 6, n).astype(npt)
        if n > 4:
            keys[1], keys[3] = info.max, info.min
        k, v = wp.array(keys, dtype=kt), wp.array(np.arange(n, dtype=np.int32))
        vf = wp.array(np.arange(n, dtype=np.float32) * 0.5)
        wp.launch_tiled(sort_kernels(name)[n], dim=1, inputs=[k, v, vf], block_dim=4)
        order = np.argsort(keys, kind="stable")
        np.testing.assert_array_equal(k.numpy(), keys[order], err_msg=f"n={n}")
        np.testing.assert_array_equal(v.numpy(), order, err_msg=f"n={n}")
        np.testing.assert_array_equal(vf.numpy(), order * 0.5, err_msg=f"n={n}")


# --- adjoints over shapes ---------------------------------------------------------------------------
GRAD_SHAPES = [(1,), (5,), (1, 6), (6, 1), (3, 3)]
GRAD_OPS = ["store", "load_offset", "sin", "mul", "div", "scale", "neg", "sum", "transpose", "broadcast",
            "scan", "dot", "axpy", "extract", "view_assign", "matmul", "atomic_add"]


def _grad_kernel(shape, module):
    size = int(np.prod(shape))
    two_d = len(shape) == 2
    rows = shape[0]

    @wp.kernel(module=module, name=f"grads_{'x'.join(map(str, shape))}")
    def grads(x: wp.array(dtype=wp.float64, ndim=len(shape)), y: wp.array(dtype=wp.float64, ndim=len(shape)),
              out: wp.array2d(dtype=wp.float64), acc: wp.array(dtype=wp.float64, ndim=len(shape))):
        a = wp.tile_load(x, shape=shape)
        b = wp.tile_load(y, shape=shape)
        wp.tile_store(out[0], wp.tile_reshape(a, shape=size))
        if wp.static(two_d):
            wp.tile_store(out[1], wp.tile_reshape(wp.tile_load(x, shape=shape, offset=(1, 0)), shape=size))
        else:
            wp.tile_store(out[1], wp.tile_load(x, shape=shape, offset=(1,)))
        wp.tile_store(out[2], wp.tile_reshape(wp.tile_map(wp.sin, a), shape=size))
        wp.tile_store(out[3], wp.tile_reshape(a * b, shape=size))
        wp.tile_store(out[4], wp.tile_reshape(a / b, shape=size))
        wp.tile_store(out[5], wp.tile_reshape(a * 2.5, shape=size))
        wp.tile_store(out[6], wp.tile_reshape(-a, shape=size))
        wp.tile_store(out[7], wp.tile_sum(a))
        if wp.static(two_d):
            wp.tile_store(out[8], wp.tile_reshape(wp.tile_transpose(a), shape=size))
            bc = wp.tile_broadcast(wp.tile_view(a, offset=(0, 0), shape=(1, shape[1])), shape=(2, shape[1]))
            wp.tile_store(out[9], wp.tile_reshape(bc, shape=2 * shape[1]))
        else:
            wp.tile_store(out[8], a)
            wp.tile_store(out[9], wp.tile_reshape(wp.tile_broadcast(wp.tile_reshape(a, shape=(1, size)),
                                                                     shape=(2, size)), shape=2 * size))
        wp.tile_store(out[10], wp.tile_reshape(wp.tile_scan_inclusive(a * a), shape=size))
        wp.tile_store(out[11], wp.tile_dot(a, b))
        d = b
        wp.tile_axpy(wp.float64(-1.5), a, d)
        wp.tile_store(out[12], wp.tile_reshape(d, shape=size))
        e = wp.tile_zeros(shape=1, dtype=wp.float64)
        if wp.static(two_d):
            e[0] = a[rows - 1, 0] * a[0, 0]
        else:
            e[0] = a[rows - 1] * a[0]
        wp.tile_store(out[13], e)
        z = wp.tile_zeros(shape=shape, dtype=wp.float64)
        wp.tile_assign(z, a * a)
        wp.tile_store(out[14], wp.tile_reshape(z, shape=size))
        if wp.static(two_d):
            m = wp.tile_matmul(a, wp.tile_transpose(b))        # (r, c) @ (c, r)
            wp.tile_store(out[15], wp.tile_reshape(m, shape=rows * rows))
        else:
            m = wp.tile_matmul(wp.tile_reshape(a, shape=(size, 1)), wp.tile_reshape(b, shape=(1, size)))
            wp.tile_store(out[15], wp.tile_reshape(m, shape=size * size))
        wp.tile_atomic_add(acc, a * b)

    return grads


@functools.lru_cache(maxsize=None)
def grad_kernels():
    return {s: _grad_kernel(s, "tiles_grads_float64") for s in GRAD_SHAPES}


def _loss(kernel, shape, x, y, g, gacc, tape=None):
    """sum(g * out) + sum(gacc * acc) for inputs x, y; with a tape, the arrays (for gradients)."""
    width = g.shape[1]
    xs = wp.array(x, dtype=wp.float64, requires_grad=True)
    ys = wp.array(y, dtype=wp.float64, requires_grad=True)
    out = wp.zeros((len(GRAD_OPS) - 1, width), dtype=wp.float64, requires_grad=True)
    acc = wp.zeros(shape, dtype=wp.float64, requires_grad=True)
    if tape is None:
        wp.launch_tiled(kernel, dim=1, inputs=[xs, ys, out, acc], block_dim=4)
        return float((g * out.numpy()).sum() + (gacc * acc.numpy()).sum())
    with tape:
        wp.launch_tiled(kernel, dim=1, inputs=[xs, ys, out, acc], block_dim=4)
    tape.backward(grads={out: wp.array(g, dtype=wp.float64), acc: wp.array(gacc, dtype=wp.float64)})
    return xs.grad.numpy(), ys.grad.numpy()


@pytest.mark.parametrize("shape", GRAD_SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_adjoints_match_central_differences(shape):
    rng = np.random.default_rng(8)
    big = tuple(n + 1 for n in shape)                          # room for the offset load
    x = rng.uniform(-1, 1, big)
    y = rng.uniform(0.5, 1.5, shape) * rng.choice([-1, 1], shape)
    size = int(np.prod(shape))
    g = rng.uniform(-1, 1, (len(GRAD_OPS) - 1, max(size * size, 2 * size, 9)))
    gacc = rng.uniform(-1, 1, shape)
    kernel = grad_kernels()[shape]
    gx, gy = _loss(kernel, shape, x, y, g, gacc, tape=wp.Tape())
    eps = 1e-6
    for v, grad, what in ((x, gx, "x"), (y, gy, "y")):
        fd = np.zeros_like(v)
        for i in np.ndindex(v.shape):
            hi, lo = v.copy(), v.copy()
            hi[i] += eps
            lo[i] -= eps
            args = (hi, y) if what == "x" else (x, hi)
            args_lo = (lo, y) if what == "x" else (x, lo)
            fd[i] = (_loss(kernel, shape, *args, g, gacc) - _loss(kernel, shape, *args_lo, g, gacc)) / (2 * eps)
        np.testing.assert_allclose(grad, fd, rtol=1e-6, atol=1e-7, err_msg=f"d loss / d {what}, shape {shape}")


# --- tile_matmul: mixed dtypes (warp-lang: a, b and out each float16/32/64), beta = 0, precision -----
MIXED = [("float32", "float16", "float64"), ("float16", "float16", "float32"), ("float64", "float32", "float32"),
         ("float16", "float64", "float16"), ("float64", "float64", "float16"), ("float32", "float32", "float32")]


def _mixed_kernel(na, nb, nc):
    ta, tb, tc = (FLOATS[x][0] for x in (na, nb, nc))

    @wp.kernel(module="tiles_matmul_mixed", name=f"mixed_{na}_{nb}_{nc}")
    def mixed(a: wp.array2d(dtype=ta), b: wp.array2d(dtype=tb), c: wp.array2d(dtype=tc),
              acc: wp.array2d(dtype=tc), plain: wp.array2d(dtype=ta)):
        x = wp.tile_load(a, shape=(3, 5))
        y = wp.tile_load(b, shape=(5, 4))
        out = wp.tile_load(c, shape=(3, 4))
        wp.tile_matmul(x, y, out, alpha=2.0, beta=0.5)        # in out's dtype
        wp.tile_store(acc, out)
        wp.tile_store(plain, wp.tile_matmul(x, y))            # in a's dtype

    return mixed


@pytest.mark.parametrize("na,nb,nc", MIXED)
def test_matmul_mixed_dtypes_and_their_adjoints(na, nb, nc):
    rng = np.random.default_rng(12)
    (ta, pa, tola), (tb, pb, tolb), (tc, pc, tolc) = FLOATS[na], FLOATS[nb], FLOATS[nc]
    a, b, c = (np.round(rng.uniform(-2, 2, s) * 4) / 4 for s in ((3, 5), (5, 4), (3, 4)))
    arrs = [wp.array(v.astype(p), dtype=t, requires_grad=True) for v, p, t in ((a, pa, ta), (b, pb, tb), (c, pc, tc))]
    acc, plain = wp.zeros((3, 4), dtype=tc, requires_grad=True), wp.zeros((3, 4), dtype=ta, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch_tiled(_mixed_kernel(na, nb, nc), dim=1, inputs=arrs + [acc, plain], block_dim=4)
    tol = max(tola, tolb, tolc)
    np.testing.assert_allclose(acc.numpy().astype(np.float64), 2 * a @ b + 0.5 * c, rtol=tol, atol=tol * 10)
    np.testing.assert_allclose(plain.numpy().astype(np.float64), a @ b, rtol=max(tola, tolb), atol=tol * 10)
    g = np.round(rng.uniform(-1, 1, (3, 4)) * 4) / 4
    tape.backward(grads={acc: wp.array(g.astype(pc), dtype=tc)})
    np.testing.assert_allclose(arrs[0].grad.numpy().astype(np.float64), 2 * g @ b.T, rtol=tol, atol=tol * 10)
    np.testing.assert_allclose(arrs[1].grad.numpy().astype(np.float64), 2 * a.T @ g, rtol=tol, atol=tol * 10)
    np.testing.assert_allclose(arrs[2].grad.numpy().astype(np.float64), 0.5 * g, rtol=tol, atol=tol)


@wp.kernel(module="tiles_matmul_mixed")
def beta_zero(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float), c: wp.array2d(dtype=float),
              c16: wp.array2d(dtype=wp.float16)):
    x = wp.tile_load(a, shape=(13, 9))
    y = wp.tile_load(b, shape=(9, 17))
    out = wp.tile_full(shape=(13, 17), value=wp.nan, dtype=float)
    wp.tile_matmul(x, y, out, alpha=1.0, beta=0.0, precision="tf32")
    wp.tile_store(c, out)
    o16 = wp.tile_full(shape=(13, 17), value=wp.float16(wp.inf), dtype=wp.float16)
    wp.tile_matmul(x, y, o16, beta=0.0)
    wp.tile_store(c16, o16)


def test_matmul_beta_zero_does_not_read_out():
    """warp-lang reads out only when beta != 0: a NaN/inf accumulator with beta=0 gives a @ b
    (0 * NaN was NaN here before, a silently wrong result; on the register-blocked path too)."""
    rng = np.random.default_rng(13)
    a, b = ((np.round(rng.uniform(-2, 2, s) * 4) / 4).astype(np.float32) for s in ((13, 9), (9, 17)))
    c, c16 = wp.zeros((13, 17), dtype=float), wp.zeros((13, 17), dtype=wp.float16)
    wp.launch_tiled(beta_zero, dim=1, inputs=[wp.array(a), wp.array(b), c, c16], block_dim=4)
    np.testing.assert_allclose(c.numpy(), a @ b, rtol=1e-6, atol=1e-5)
    np.testing.assert_allclose(c16.numpy().astype(np.float32), a @ b, rtol=2e-3, atol=2e-2)


@pytest.mark.parametrize("call,message", [
    ('wp.tile_matmul(x, y, precision="fast")', 'precision must be "default" or "tf32", got \'fast\''),
    ('wp.tile_matmul(x, wp.tile_astype(y, dtype=wp.float64), precision="tf32")',
     'precision="tf32" needs float32 tiles for a, b and out, got float32, float64'),
    ("wp.tile_matmul(x, x)", "mismatched shapes"),
])
def test_matmul_argument_errors(call, message, tmp_path):
    src = f'''
import warp_interactive as wp

@wp.kernel(module="unique")
def bad(a: wp.array2d(dtype=float)):
    x = wp.tile_load(a, shape=(2, 3))
    y = wp.tile_load(a, shape=(3, 2))
    z = {call}
'''
    path = tmp_path / "matmul_case.py"
    path.write_text(src)
    scope = runpy.run_path(str(path))
    with pytest.raises(wp.WarpCodegenError, match="tile_matmul") as info:
        wp.launch_tiled(scope["bad"], dim=1, inputs=[wp.zeros((4, 4), dtype=float)], block_dim=1)
    text = str(info.value)
    assert message in text and "matmul_case.py" in text, text
