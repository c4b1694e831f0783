"""wp.array: construction, views, data movement, properties, arrays in kernels, atomics."""

import numpy as np
import pytest

import warp_interactive as wp


# --- construction ------------------------------------------------------------------------------------
def test_array_from_lists():
    a = wp.array([1.0, 2.0, 3.0], dtype=float)
    assert a.dtype is wp.float32 and a.shape == (3,) and a.numpy().tolist() == [1.0, 2.0, 3.0]
    b = wp.array([1, 2, 3])
    assert b.dtype in (wp.int32, wp.int64) and b.numpy().tolist() == [1, 2, 3]
    c = wp.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=wp.vec3)
    assert c.shape == (2,) and c.numpy().tolist() == [[1, 2, 3], [4, 5, 6]]
    d = wp.array([wp.vec3(1.0, 2.0, 3.0), wp.vec3(4.0, 5.0, 6.0)], dtype=wp.vec3)
    np.testing.assert_array_equal(d.numpy(), c.numpy())
    m = wp.array([np.eye(2), 2 * np.eye(2)], dtype=wp.mat22)
    assert m.shape == (2,) and m.numpy()[1].tolist() == [[2, 0], [0, 2]]
    e = wp.array([[1, 2], [3, 4]], dtype=wp.int64)
    assert e.shape == (2, 2) and e.ndim == 2 and e.numpy().dtype == np.int64


def test_array_from_numpy_infers_dtype():
    for np_t, wp_t in ((np.float32, wp.float32), (np.float64, wp.float64), (np.int8, wp.int8),
                       (np.uint16, wp.uint16), (np.int64, wp.int64), (np.float16, wp.float16)):
        a = wp.array(np.arange(6, dtype=np_t).reshape(2, 3))
        assert a.dtype is wp_t and a.shape == (2, 3)
        np.testing.assert_array_equal(a.numpy(), np.arange(6).reshape(2, 3))


class ArrayInterfaceOnly:
    """An object that exposes only __array_interface__ (like other array libraries)."""

    def __init__(self, arr):
        self._arr = arr
        self.__array_interface__ = arr.__array_interface__


def test_array_from_array_interface():
    base = np.arange(12, dtype=np.float32).reshape(4, 3)
    a = wp.array(ArrayInterfaceOnly(base), dtype=wp.vec3)
    assert a.shape == (4,)
    np.testing.assert_array_equal(a.numpy(), base)
    z = wp.array(ArrayInterfaceOnly(base), dtype=float, copy=False)
    base[0, 0] = -1.0
    assert z.numpy()[0, 0] == -1.0


def test_zero_copy_both_ways():
    base = np.zeros(8, dtype=np.float32)
    a = wp.array(base, dtype=float, copy=False)
    assert a.ptr == base.ctypes.data
    base[3] = 5.0
    assert a.numpy()[3] == 5.0
    a.numpy()[4] = 6.0
    assert base[4] == 6.0
    wp.launch(fill_index, dim=8, inputs=[a])
    assert base.tolist() == list(range(8))
    # a copy does not share memory
    c = wp.array(base, dtype=float)
    base[0] = 100.0
    assert c.numpy()[0] == 0.0


def test_dtype_inner_shape_mismatch_message():
    with pytest.raises(ValueError) as e:
        wp.array(np.zeros((5, 4), dtype=np.float32), dtype=wp.vec3)
    msg = str(e.value)
    assert "(5, 4)" in msg and "vec3" in msg and "(3,)" in msg
    with pytest.raises(ValueError, match=r"\(3, 3\)"):
        wp.array(np.zeros((2, 3, 2), dtype=np.float32), dtype=wp.mat33)


# --- constructors -------------------------------------------------------------------------------------
def test_zeros_empty_full_ones():
    z = wp.zeros((2, 3), dtype=wp.float64)
    assert z.shape == (2, 3) and z.dtype is wp.float64 and not z.numpy().any()
    e = wp.empty(5, dtype=wp.vec2)
    assert e.shape == (5,) and e.numpy().shape == (5, 2)
    f = wp.full(4, 2.5, dtype=float)
    assert f.numpy().tolist() == [2.5] * 4
    fi = wp.full((2, 2), 7)
    assert fi.dtype is wp.int32 and fi.numpy().tolist() == [[7, 7], [7, 7]]
    fv = wp.full(3, wp.vec3(1.0, 2.0, 3.0))
    assert fv.dtype is wp.vec3 and fv.numpy().tolist() == [[1, 2, 3]] * 3
    o = wp.ones(3, dtype=wp.int16)
    assert o.numpy().tolist() == [1, 1, 1] and o.numpy().dtype == np.int16


def test_like_constructors():
    src = wp.array(np.arange(6, dtype=np.float32).reshape(2, 3), requires_grad=True)
    for fn in (wp.zeros_like, wp.empty_like):
        b = fn(src)
        assert b.shape == src.shape and b.dtype is src.dtype and b.requires_grad
    assert not wp.zeros_like(src).numpy().any()
    assert wp.full_like(src, 3.0).numpy().tolist() == [[3.0] * 3] * 2
    assert wp.ones_like(src).numpy().sum() == 6


def test_clone_and_from_numpy():
    src = wp.array(np.arange(5, dtype=np.float32))
    c = wp.clone(src)
    assert c.ptr != src.ptr and c.numpy().tolist() == src.numpy().tolist()
    c.numpy()[0] = 9.0
    assert src.numpy()[0] == 0.0
    a = wp.from_numpy(np.arange(6, dtype=np.float32).reshape(2, 3), dtype=wp.vec3)
    assert a.shape == (2,) and a.dtype is wp.vec3
    b = wp.from_numpy(np.arange(6, dtype=np.int32))
    assert b.dtype is wp.int32


def test_copy_with_offsets_and_count():
    src = wp.array(np.arange(10, dtype=np.float32))
    dst = wp.zeros(10, dtype=float)
    wp.copy(dst, src)
    assert dst.numpy().tolist() == list(range(10))
    dst.zero_()
    wp.copy(dst, src, dest_offset=2, src_offset=5, count=3)
    assert dst.numpy().tolist() == [0, 0, 5, 6, 7, 0, 0, 0, 0, 0]
    with pytest.raises(ValueError, match="out of range"):
        wp.copy(dst, src, dest_offset=8, count=5)
    v_src = wp.array(np.arange(12, dtype=np.float32).reshape(4, 3), dtype=wp.vec3)
    v_dst = wp.zeros(4, dtype=wp.vec3)
    wp.copy(v_dst, v_src, dest_offset=1, src_offset=0, count=2)
    assert v_dst.numpy().tolist() == [[0, 0, 0], [0, 1, 2], [3, 4, 5], [0, 0, 0]]
    # into a strided (non-contiguous) view
    big = wp.zeros(8, dtype=float)
    wp.copy(big[::2], wp.array([1.0, 2.0, 3.0, 4.0], dtype=float))
    assert big.numpy().tolist() == [1, 0, 2, 0, 3, 0, 4, 0]


def test_numpy_to_fill_zero_assign():
    a = wp.array(np.arange(4, dtype=np.float32))
    n = a.numpy()
    assert isinstance(n, np.ndarray) and n.ctypes.data == a.ptr   # a view, not a copy
    assert a.to("cpu") is a
    assert a.list() == [0.0, 1.0, 2.0, 3.0]
    a.fill_(2.0)
    assert a.numpy().tolist() == [2.0] * 4
    a.zero_()
    assert a.numpy().tolist() == [0.0] * 4
    a.assign([1.0, 2.0, 3.0, 4.0])
    assert a.numpy().tolist() == [1.0, 2.0, 3.0, 4.0]
    a.assign(wp.array(np.ones(4, dtype=np.float32)))
    assert a.numpy().tolist() == [1.0] * 4
    v = wp.zeros(3, dtype=wp.vec3)
    v.fill_(wp.vec3(1.0, 2.0, 3.0))
    assert v.numpy().tolist() == [[1, 2, 3]] * 3


def test_reshape_flatten_transpose():
    a = wp.array(np.arange(12, dtype=np.float32))
    r = a.reshape((3, 4))
    assert r.shape == (3, 4) and r.ptr == a.ptr
    np.testing.assert_array_equal(r.numpy(), np.arange(12).reshape(3, 4))
    assert a.reshape((2, -1)).shape == (2, 6)
    assert r.flatten().shape == (12,)
    t = r.transpose()
    assert t.shape == (4, 3) and not t.is_contiguous
    np.testing.assert_array_equal(t.numpy(), np.arange(12).reshape(3, 4).T)
    with pytest.raises(RuntimeError, match=r"cannot reshape array of shape \(12,\) \(size 12\) "
                                           r"into shape \(5, 5\) \(size 25\)"):
        a.reshape((5, 5))     # RuntimeError and this text, as warp-lang


# --- properties ---------------------------------------------------------------------------------------
def test_properties():
    a = wp.zeros((3, 4), dtype=wp.vec3)
    assert len(a) == 3
    assert a.shape == (3, 4) and a.ndim == 2 and a.size == 12
    assert a.strides == (4 * 12, 12)
    assert a.dtype is wp.vec3 and a.device == "cpu" and str(a.device) == "cpu"
    assert isinstance(a.ptr, int) and a.ptr != 0
    assert not a.requires_grad and a.grad is None
    g = wp.zeros(5, dtype=float, requires_grad=True)
    assert g.requires_grad and g.grad is not None and g.grad.shape == (5,)
    assert not g.grad.numpy().any()
    h = wp.zeros(2, dtype=float)
    h.requires_grad = True
    assert h.grad is not None and h.grad.shape == (2,)


# --- kernels over arrays -----------------------------------------------------------------------------
@wp.kernel
def fill_index(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = float(i)


@wp.kernel
def scale_strided(a: wp.array(dtype=float), s: float):
    i = wp.tid()
    a[i] = a[i] * s


@wp.kernel
def transpose_copy(src: wp.array2d(dtype=float), dst: wp.array2d(dtype=float)):
    i, j = wp.tid()
    dst[i, j] = src[i, j] + float(src.shape[0] * 1000 + src.shape[1] * 100)


@wp.kernel
def typed_hints(a: wp.array[float], b: wp.array2d[float], out: wp.array(dtype=float)):
    i = wp.tid()
    s = float(0.0)
    for j in range(b.shape[1]):
        s += b[i, j]
    out[i] = a[i] + s + float(len(a))


@wp.kernel
def four_d(a: wp.array4d(dtype=float), out: wp.array4d(dtype=float)):
    i, j, k, l = wp.tid()
    out[i, j, k, l] = a[i, j, k, l] * 2.0 + float(a.shape[3])
    row = a[i, j, k]
    out[i, j, k, l] = out[i, j, k, l] + row[l] * 0.0


def test_strided_views_in_kernels():
    base = np.arange(20, dtype=np.float32)
    a = wp.array(base, copy=False)
    every_other = a[1::2]
    assert every_other.shape == (10,) and every_other.strides == (8,)
    wp.launch(scale_strided, dim=len(every_other), inputs=[every_other, 10.0])
    expect = np.arange(20, dtype=np.float32)
    expect[1::2] *= 10
    np.testing.assert_array_equal(base, expect)
    rev = a[::-1]
    wp.launch(fill_index, dim=20, inputs=[rev])
    np.testing.assert_array_equal(base, np.arange(20)[::-1])


def test_2d_slices_and_transposes_in_kernels():
    x = np.arange(48, dtype=np.float32).reshape(6, 8)
    a = wp.array(x)
    sub = a[1:5, ::3]                      # a non-contiguous 2-d view
    assert sub.shape == (4, 3)
    out = wp.zeros((4, 3), dtype=float)
    wp.launch(transpose_copy, dim=(4, 3), inputs=[sub, out])
    np.testing.assert_array_equal(out.numpy(), x[1:5, ::3] + 4300)
    t = a.transpose()
    out_t = wp.zeros((8, 6), dtype=float)
    wp.launch(transpose_copy, dim=(8, 6), inputs=[t, out_t])
    np.testing.assert_array_equal(out_t.numpy(), x.T + 8600)
    row = a[2]                              # an integer index drops a dimension
    assert row.shape == (8,) and row.numpy().tolist() == x[2].tolist()


def test_subscript_type_hints():
    a = wp.array(np.arange(3, dtype=np.float32))
    b = wp.array(np.ones((3, 4), dtype=np.float32))
    out = wp.zeros(3, dtype=float)
    wp.launch(typed_hints, dim=3, inputs=[a, b, out])
    assert out.numpy().tolist() == [7.0, 8.0, 9.0]
    assert wp.array[float].ndim == 1 and wp.array2d[float].ndim == 2


def test_4d_arrays_and_launches():
    x = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)
    a = wp.array(x)
    assert a.ndim == 4
    out = wp.zeros(x.shape, dtype=float)
    wp.launch(four_d, dim=x.shape, inputs=[a, out])
    np.testing.assert_array_equal(out.numpy(), 2 * x + 5)
    with pytest.raises(ValueError):
        wp.zeros((1, 1, 1, 1, 1), dtype=float)


def test_numpy_arrays_as_kernel_arguments():
    base = np.zeros(5, dtype=np.float32)
    wp.launch(fill_index, dim=5, inputs=[base])
    assert base.tolist() == [0, 1, 2, 3, 4]


# --- atomics ----------------------------------------------------------------------------------------------
ATOMIC_TYPES = [wp.float32, wp.float64, wp.int32, wp.int64]
N_THREADS = 100_000
N_SLOTS = 7


def _make_atomic_kernel(T):
    def atomics(vals: wp.array(dtype=T), add: wp.array(dtype=T), sub: wp.array(dtype=T),
                mn: wp.array(dtype=T), mx: wp.array(dtype=T), aug: wp.array(dtype=T)):
        i = wp.tid()
        slot = i % 7
        v = vals[i]
        wp.atomic_add(add, slot, v)
        wp.atomic_sub(sub, slot, v)
        wp.atomic_min(mn, slot, v)
        wp.atomic_max(mx, slot, v)
        aug[slot] += v
        aug[slot] -= T(1)
    atomics.__name__ = atomics.__qualname__ = f"atomics_{T.__name__}"
    return wp.kernel(atomics)


ATOMIC_KERNELS = {T: _make_atomic_kernel(T) for T in ATOMIC_TYPES}


@wp.kernel
def atomic_vec3(vals: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3), mx: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    wp.atomic_add(out, i % 3, vals[i])
    wp.atomic_max(mx, 0, vals[i])
    out[3] += wp.vec3(1.0, 2.0, 3.0)


@wp.kernel
def atomic_2d_old_value(counts: wp.array2d(dtype=int), tickets: wp.array(dtype=int)):
    i = wp.tid()
    tickets[i] = wp.atomic_add(counts, i % 2, 1, 1)


@pytest.mark.parametrize("T", ATOMIC_TYPES, ids=lambda t: t.__name__)
def test_atomics_exact_under_contention(T):
    rng = np.random.default_rng(4)
    # integer-valued data: float sums are exact at any order, so parallel results are exact
    vals = rng.integers(-50, 50, N_THREADS).astype(wp.dtype_to_numpy(T))
    a = wp.array(vals, dtype=T)
    add, sub, aug = wp.zeros(N_SLOTS, dtype=T), wp.zeros(N_SLOTS, dtype=T), wp.zeros(N_SLOTS, dtype=T)
    mn = wp.full(N_SLOTS, 1000, dtype=T)
    mx = wp.full(N_SLOTS, -1000, dtype=T)
    wp.launch(ATOMIC_KERNELS[T], dim=N_THREADS, inputs=[a, add, sub, mn, mx, aug])
    slots = np.arange(N_THREADS) % N_SLOTS
    sums = np.bincount(slots, weights=vals.astype(np.float64), minlength=N_SLOTS)
    counts = np.bincount(slots, minlength=N_SLOTS)
    np.testing.assert_array_equal(add.numpy(), sums)
    np.testing.assert_array_equal(sub.numpy(), -sums)
    np.testing.assert_array_equal(aug.numpy(), sums - counts)
    np.testing.assert_array_equal(mn.numpy(), [vals[slots == s].min() for s in range(N_SLOTS)])
    np.testing.assert_array_equal(mx.numpy(), [vals[slots == s].max() for s in range(N_SLOTS)])


def test_vec3_atomics():
    n = 30_000
    vals = np.random.default_rng(5).integers(-9, 9, (n, 3)).astype(np.float32)
    out = wp.zeros(4, dtype=wp.vec3)
    mx = wp.full(1, wp.vec3(-100.0, -100.0, -100.0))
    wp.launch(atomic_vec3, dim=n, inputs=[wp.array(vals, dtype=wp.vec3), out, mx])
    expect = np.stack([vals[np.arange(n) % 3 == s].sum(axis=0) for s in range(3)])
    np.testing.assert_array_equal(out.numpy()[:3], expect)
    np.testing.assert_array_equal(out.numpy()[3], [n, 2 * n, 3 * n])
    np.testing.assert_array_equal(mx.numpy()[0], vals.max(axis=0))


def test_atomic_returns_old_value():
    n = 10_000
    counts = wp.zeros((2, 2), dtype=int)
    tickets = wp.zeros(n, dtype=int)
    wp.launch(atomic_2d_old_value, dim=n, inputs=[counts, tickets])
    assert counts.numpy().tolist() == [[0, n // 2], [0, n // 2]]
    t = tickets.numpy()
    assert sorted(t[0::2].tolist()) == list(range(n // 2))   # every old value seen exactly once
    assert sorted(t[1::2].tolist()) == list(range(n // 2))


def test_element_access_and_setitem():
    v = wp.array(np.arange(9, dtype=np.float32).reshape(3, 3), dtype=wp.vec3)
    e = v[1]
    assert isinstance(e, wp.vec3) and list(e) == [3.0, 4.0, 5.0]
    a = wp.zeros(6, dtype=int)
    a[1:3] = [5, 6]
    a[5] = 9
    assert a.numpy().tolist() == [0, 5, 6, 0, 0, 9]
    assert a[2] == 6 and a[-1] == 9
    b = wp.array(a)            # from another wp.array: a copy
    assert b.ptr != a.ptr and b.numpy().tolist() == a.numpy().tolist()
    with pytest.raises(IndexError):
        a[6]


def test_empty_arrays_and_zero_size_launch():
    a = wp.zeros(0, dtype=float)
    assert a.shape == (0,) and a.size == 0 and a.numpy().shape == (0,)
    wp.launch(fill_index, dim=0, inputs=[a])
    v = wp.zeros((0, 3), dtype=wp.vec3)
    assert v.numpy().shape == (0, 3, 3)


@wp.struct
class Particle:
    pos: wp.vec3
    mass: float


def test_full_and_fill_infer_types():
    assert wp.full(2, True).dtype is wp.bool
    assert wp.full(2, wp.float16(1.5)).numpy().tolist() == [1.5, 1.5]
    assert wp.full(2, wp.float16(1.5)).dtype is wp.float16
    p = Particle(pos=wp.vec3(1.0, 2.0, 3.0), mass=2.0)
    a = wp.full(3, p)
    assert a.dtype is Particle and a.numpy()["mass"].tolist() == [2.0] * 3
    a.zero_()
    assert a.numpy()["mass"].tolist() == [0.0] * 3
    a.fill_(p)
    assert a[1].pos == wp.vec3(1.0, 2.0, 3.0)
