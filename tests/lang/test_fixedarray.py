"""Stack arrays in kernels and functions: ``wp.zeros(shape=..., dtype=...)`` gives a zeroed
``wp.fixedarray`` of a constant shape (warp-lang's), indexed, sliced, passed to functions taking
``wp.array``, returned by value, reinterpreted through ``.ptr``, and differentiated (its
gradient lives beside it). References: NumPy, finite differences, warp-lang's messages."""

import numpy as np
import pytest

import warp_interactive as wp

MODULE = "wpi_test_fixedarray"


@wp.struct
class Pair:
    k: int
    x: float



# one kernel per rank: fills the stack array with its row-major index (as the dtype), then
# copies it out in the same order through loops over its shape
_SRC = {
    1: ("    for i in range(buf.shape[0]):\n"
        "        buf[i] = DT(VAL(i))\n"
        "    for i in range(buf.shape[0]):\n"
        "        out[i] = buf[i]\n"),
    2: ("    for i in range(buf.shape[0]):\n"
        "        for j in range(buf.shape[1]):\n"
        "            buf[i][j] = DT(VAL(i * buf.shape[1] + j))\n"
        "    for i in range(buf.shape[0]):\n"
        "        for j in range(buf.shape[1]):\n"
        "            out[i * buf.shape[1] + j] = buf[i, j]\n"),
    3: ("    for i in range(buf.shape[0]):\n"
        "        for j in range(buf.shape[1]):\n"
        "            for k in range(buf.shape[2]):\n"
        "                buf[i, j, k] = DT(VAL((i * buf.shape[1] + j) * buf.shape[2] + k))\n"
        "    for i in range(buf.shape[0]):\n"
        "        row = buf[i]\n"
        "        for j in range(row.shape[0]):\n"
        "            for k in range(row.shape[1]):\n"
        "                out[(i * buf.shape[1] + j) * buf.shape[2] + k] = row[j][k]\n"),
    4: ("    for i in range(buf.shape[0]):\n"
        "        for j in range(buf.shape[1]):\n"
        "            for k in range(buf.shape[2]):\n"
        "                for l in range(buf.shape[3]):\n"
        "                    buf[i, j, k, l] = DT(VAL(((i * buf.shape[1] + j) * buf.shape[2] + k) * buf.shape[3] + l))\n"
        "    m = buf[:, :, 0]\n"      # a slice keeping three axes (shape[2] is 1 in the table)
        "    for i in range(m.shape[0]):\n"
        "        for j in range(m.shape[1]):\n"
        "            for l in range(m.shape[2]):\n"
        "                out[(i * buf.shape[1] + j) * buf.shape[3] + l] = m[i][j][l]\n"),
}

SHAPES = [(5,), (2, 3), (2, 1, 3), (2, 2, 1, 2)]
DTYPES = [(wp.float32, float, np.float32), (wp.int32, int, np.int32), (wp.float64, float, np.float64),
          (wp.vec3, float, np.float32)]


def _fill_kernel(shape, dtype, val):
    name = f"fill_{len(shape)}d_{dtype.__name__}"
    src = f"def {name}(out: wp.array(dtype=DT)):\n    buf = wp.zeros(shape=SHAPE, dtype=DT)\n" + _SRC[len(shape)]
    ns = {"wp": wp, "DT": dtype, "SHAPE": shape, "VAL": val}
    import linecache
    filename = f"<wpi-fixedarray-{name}>"
    linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
    exec(compile(src, filename, "exec"), ns)
    return wp.Kernel(ns[name], module=MODULE + "_fill")


# all made before the module's first build: one build for the table
FILL = {(shape, dtype): _fill_kernel(shape, dtype, val) for shape in SHAPES for dtype, val, _ in DTYPES}


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("dtype,val,npt", DTYPES, ids=lambda d: getattr(d, "__name__", ""))
def test_fill_and_read_back(shape, dtype, val, npt):
    k = FILL[(shape, dtype)]
    size = int(np.prod(shape))
    out = wp.zeros(size, dtype=dtype)
    wp.launch(k, 1, inputs=[out])
    expected = np.arange(size).astype(npt)
    got = out.numpy()
    if got.ndim == 2:      # vec3: every component is the index
        expected = np.repeat(expected[:, None], 3, axis=1)
    np.testing.assert_array_equal(got, expected)


@wp.func
def fill_rows(a: wp.array2d(dtype=float), scale: float):
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            a[i, j] = scale * float(i * a.shape[1] + j)


@wp.func
def first_any(a: wp.array(dtype=wp.types.Any)):
    return a[0]


@wp.func
def make_fixed(scale: float) -> wp.fixedarray(shape=(2, 3), dtype=float):
    arr = wp.zeros(shape=(2, 3), dtype=float)
    fill_rows(arr, scale)
    return arr


@wp.func
def make_pairs():
    arr = wp.zeros(shape=3, dtype=Pair)
    for i in range(3):
        arr[i].k = i * 10
        arr[i].x = float(i) * 0.5
    return arr


@wp.kernel(module=MODULE)
def funcs_kernel(out: wp.array2d(dtype=float), scalars: wp.array(dtype=float)):
    t = wp.tid()
    a = make_fixed(float(t + 1))         # returned by value
    b = make_fixed(10.0)                 # another call: its own elements
    a[0, 0] = a[0, 0] + 100.0            # writes go to a only
    for i in range(2):
        for j in range(3):
            out[t, i * 3 + j] = a[i, j] + b[i, j] * 0.0
    row = a[1]                           # a view of a's second row, through a generic function
    scalars[t * 4 + 0] = first_any(row)
    p = make_pairs()
    scalars[t * 4 + 1] = float(p[2].k)
    scalars[t * 4 + 2] = p[1].x
    v = wp.zeros(shape=4, dtype=wp.vec2)
    v[3] = wp.vec2(1.0, 2.0)
    scalars[t * 4 + 3] = first_any(v)[0] + v[3][1]


def test_functions_arguments_returns_and_views():
    n = 3
    out = wp.zeros((n, 6), dtype=float)
    scalars = wp.zeros(4 * n, dtype=float)
    wp.launch(funcs_kernel, n, inputs=[out, scalars])
    for t in range(n):
        expected = (t + 1) * np.arange(6, dtype=np.float32)
        expected[0] += 100.0
        np.testing.assert_allclose(out.numpy()[t], expected)
        np.testing.assert_allclose(scalars.numpy()[4 * t:4 * t + 4], [(t + 1) * 3.0, 20.0, 0.5, 2.0])


@wp.kernel(module=MODULE)
def reinterpret_kernel(out: wp.array(dtype=wp.vec2)):
    m = wp.zeros(shape=(8,), dtype=wp.float32)
    for i in range(8):
        m[i] = float(i) + 0.5
    pairs = wp.array(ptr=m.ptr, shape=(4,), dtype=wp.vec2)
    for i in range(4):
        out[i] = pairs[i]


def test_ptr_reinterprets_the_stack_elements():
    out = wp.zeros(4, dtype=wp.vec2)
    wp.launch(reinterpret_kernel, 1, inputs=[out])
    np.testing.assert_array_equal(out.numpy(), (np.arange(8, dtype=np.float32) + 0.5).reshape(4, 2))


@wp.kernel(module=MODULE)
def atomics_kernel(vals: wp.array(dtype=int), out: wp.array(dtype=int)):
    # many threads, each with its own stack array: the counts are per thread
    t = wp.tid()
    hist = wp.zeros(shape=(4,), dtype=int)
    lo = wp.zeros(shape=1, dtype=int)
    hi = wp.zeros(shape=1, dtype=int)
    first = wp.zeros(shape=(1, 2), dtype=int)
    lo[0] = 1000
    swaps = int(0)
    for i in range(vals.shape[0]):
        v = vals[i] + t
        hist[v % 4] += 1
        wp.atomic_min(lo, 0, v)
        wp.atomic_max(hi, 0, v)
        # only the first compare-and-swap finds 0 (the values are > 0): it keeps the first value
        if wp.atomic_cas(first, 0, 1, 0, v) == 0:
            swaps += 1
    for b in range(4):
        out[t * 8 + b] = hist[b]
    out[t * 8 + 4] = lo[0]
    out[t * 8 + 5] = hi[0]
    out[t * 8 + 6] = first[0, 1]
    out[t * 8 + 7] = swaps


def test_updates_are_per_thread():
    vals = np.array([3, 7, 1, 8, 8, 2, 5], np.int32)
    threads = 19           # more than a lane block: each thread's own array
    out = wp.zeros(8 * threads, dtype=int)
    wp.launch(atomics_kernel, threads, inputs=[wp.array(vals, dtype=int), out])
    got = out.numpy().reshape(threads, 8)
    for t in range(threads):
        v = vals + t
        np.testing.assert_array_equal(got[t, :4], np.bincount(v % 4, minlength=4))
        assert got[t, 4] == v.min() and got[t, 5] == v.max()
        assert got[t, 6] == v[0] and got[t, 7] == 1


@wp.kernel(module=MODULE)
def grad_kernel(x: wp.array(dtype=float), y: wp.array(dtype=float), n: int):
    i = wp.tid()
    buf = wp.zeros(shape=(2, 3), dtype=float)
    for j in range(n):                       # a dynamic loop fills it: the replay must refill it
        buf[0, j] = x[i * 3 + j] * float(j + 1)
        buf[1][j] = wp.sin(buf[0, j])
    buf[1, 0] += x[i * 3] * x[i * 3]
    s = float(0.0)
    for j in range(3):
        s += buf[1, j] * buf[0, j]
    y[i] = wp.sin(buf[0, 2]) * s


def _grad_ref(x):
    out = []
    for i in range(len(x) // 3):
        b0 = np.array([x[i * 3 + j] * (j + 1) for j in range(3)])
        b1 = np.sin(b0)
        b1[0] += x[i * 3] ** 2
        out.append(np.sin(b0[2]) * (b1 * b0).sum())
    return np.array(out)


@pytest.mark.parametrize("seed", [0, 1])
def test_gradients_against_finite_differences(seed):
    n = 4
    xn = np.random.default_rng(seed).uniform(-1.0, 1.0, 3 * n)
    x = wp.array(xn.astype(np.float32), dtype=float, requires_grad=True)
    y = wp.zeros(n, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(grad_kernel, n, inputs=[x, y, 3])
    np.testing.assert_allclose(y.numpy(), _grad_ref(xn), rtol=1e-5, atol=1e-6)
    tape.backward(grads={y: wp.ones(n, dtype=float)})
    eps = 1e-6
    fd = np.array([(_grad_ref(xn + eps * e) - _grad_ref(xn - eps * e)).sum() / (2 * eps)
                   for e in np.eye(3 * n)])
    np.testing.assert_allclose(x.grad.numpy(), fd, rtol=1e-4, atol=1e-5)


def test_errors_name_the_problem():
    @wp.kernel(module="unique")
    def runtime_shape():
        t = wp.tid()
        wp.zeros(shape=(t,), dtype=int)

    with pytest.raises(RuntimeError, match=r"the `shape` argument must be specified as a constant "
                                           r"when zero-initializing an array$"):
        wp.launch(runtime_shape, 1)

    @wp.func
    def as_plain() -> wp.array(dtype=float):
        return wp.zeros(shape=4, dtype=float)

    @wp.kernel(module="unique")
    def returns_plain():
        a = as_plain()

    with pytest.raises(wp.WarpCodegenError, match=r"The function `as_plain` returns a fixed-size array "
                                                  r"whereas it has its return type annotated as "
                                                  r"`Array\[float32\]`\.$"):
        wp.launch(returns_plain, 1)

    @wp.kernel(module="unique")
    def empty_dim():
        wp.zeros(shape=(2, 0), dtype=int)

    with pytest.raises(RuntimeError, match="positive dimensions"):
        wp.launch(empty_dim, 1)

    @wp.kernel(module="unique")
    def device_kw():
        wp.zeros(shape=2, dtype=int, device="cpu")

    with pytest.raises(RuntimeError, match="takes shape= and dtype= only"):
        wp.launch(device_kw, 1)


def test_annotation_object():
    t = wp.fixedarray(shape=(2, 3), dtype=int)
    assert t.dtype is wp.int32 and t.ndim == 2 and t.size == 6 and t.is_annotation
    assert t == wp.types.fixedarray(dtype=wp.int32, shape=(2, 3))
    assert "fixedarray(shape=(2, 3), dtype=int32)" == repr(t)
    assert isinstance(t, wp.array)


@wp.kernel(module=MODULE)
def straight_line(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    # no loop: the unit-stride entry runs many threads' bodies in one C++ loop
    i = wp.tid()
    a = wp.zeros(shape=2, dtype=float)
    b = wp.zeros(shape=2, dtype=float)
    a[0] = x[i]
    b[0] = -x[i]
    c = a
    if x[i] < 0.0:
        c = b                           # a stack array chosen at run time (copied)
    c[1] = 10.0                         # writes c only
    out[i * 3 + 0] = c[0]
    out[i * 3 + 1] = c[1] + a[1]
    out[i * 3 + 2] = b[1]


def test_straight_line_kernels_and_selected_arrays():
    xn = np.linspace(-2.0, 2.0, 37).astype(np.float32)
    out = wp.zeros(3 * xn.size, dtype=float)
    wp.launch(straight_line, xn.size, inputs=[wp.array(xn, dtype=float), out])
    got = out.numpy().reshape(-1, 3)
    np.testing.assert_array_equal(got[:, 0], np.abs(xn))
    # as warp-lang 1.19 computes it (run side by side): a name given a stack array on either
    # branch of an `if` holds a copy of it after the `if`, so c[1] = 10 changes neither a nor b
    np.testing.assert_array_equal(got[:, 1], np.full(xn.size, 10.0))
    np.testing.assert_array_equal(got[:, 2], np.zeros(xn.size))
