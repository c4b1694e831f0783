"""wp.indexedarray: construction, Python-scope reads and writes, kernels (reads, writes, atomics,
views, shape, len, structs, generics), the launch paths and gradients, checked against NumPy
fancy indexing (``data[np.ix_(i0, range(n1), ...)]``) and central finite differences."""

import itertools
from typing import Any

import numpy as np
import pytest

import warp_interactive as wp

RNG = np.random.default_rng(7)

SHAPES = {1: (7,), 2: (5, 6), 3: (4, 3, 5), 4: (3, 4, 2, 3)}
# per dimension: None (the whole dimension), a subset, a permutation with repeats
PATTERNS = ["none", "subset", "repeat"]


def _index(pattern, n):
    if pattern == "none":
        return None
    if pattern == "subset":
        return np.arange(0, n, 2, dtype=np.int32)
    return np.array([n - 1, 0, n - 1, n // 2], dtype=np.int32)


def _cases(max_ndim=4):
    for ndim in range(1, max_ndim + 1):
        for pats in itertools.product(PATTERNS, repeat=ndim):
            if ndim > 2 and len(set(pats)) < 2:
                continue    # keep the table small: mixed patterns for 3-d and 4-d
            yield ndim, pats


def _make(ndim, pats, dtype=wp.float32, device="cpu", requires_grad=False):
    shape = SHAPES[ndim]
    values = RNG.standard_normal(shape).astype(wp.dtype_to_numpy(dtype)) if dtype in (wp.float32, wp.float64) \
        else RNG.integers(-50, 50, size=shape).astype(wp.dtype_to_numpy(dtype))
    data = wp.array(values, dtype=dtype, device=device, requires_grad=requires_grad)
    idx_np = [_index(p, n) for p, n in zip(pats, shape)]
    indices = [wp.array(i, dtype=wp.int32, device=device) if i is not None else None for i in idx_np]
    sel = np.ix_(*[i if i is not None else np.arange(n) for i, n in zip(idx_np, shape)])
    return data, wp.indexedarray(data, indices), values, sel


# --- Python scope -------------------------------------------------------------------------------------
@pytest.mark.parametrize("ndim,pats", list(_cases()))
@pytest.mark.parametrize("dtype", [wp.float32, wp.int32, wp.float64])
def test_numpy_matches_fancy_indexing(ndim, pats, dtype):
    data, ia, values, sel = _make(ndim, pats, dtype)
    expected = values[sel]
    assert ia.shape == expected.shape and ia.size == expected.size and ia.ndim == ndim
    assert ia.dtype is dtype and ia.device is data.device and not ia.is_contiguous
    np.testing.assert_array_equal(ia.numpy(), expected)
    np.testing.assert_array_equal(ia.contiguous().numpy(), expected)
    assert type(ia.contiguous()) is wp.array
    assert ia.list() == expected.ravel().tolist()


@pytest.mark.parametrize("ndim,pats", list(_cases(3)))
def test_fill_zero_assign_and_copy_scatter_like_numpy(ndim, pats):
    data, ia, values, sel = _make(ndim, pats)
    ia.fill_(2.5)
    expected = values.copy()
    expected[sel] = 2.5
    np.testing.assert_array_equal(data.numpy(), expected)
    ia.zero_()
    expected[sel] = 0.0
    np.testing.assert_array_equal(data.numpy(), expected)
    new = RNG.standard_normal(ia.shape).astype(np.float32)
    ia.assign(new)
    expected[sel] = new          # NumPy's rule for a repeated index: the last write stays
    np.testing.assert_array_equal(data.numpy(), expected)
    out = wp.zeros(ia.shape, dtype=float)
    wp.copy(out, ia)
    np.testing.assert_array_equal(out.numpy(), expected[sel])


def test_copy_with_offsets_is_flat_row_major():
    data = wp.array(np.arange(20, dtype=np.float32).reshape(4, 5))
    ia = data[wp.array([3, 1], dtype=int), wp.array([0, 2, 4], dtype=int)]
    flat = data.numpy()[np.ix_([3, 1], [0, 2, 4])].ravel()
    dest = wp.full(10, -1.0, dtype=float)
    wp.copy(dest, ia, dest_offset=2, src_offset=1, count=4)
    np.testing.assert_array_equal(dest.numpy(), [-1, -1, *flat[1:5], -1, -1, -1, -1])
    src = wp.array(np.array([100, 200, 300], dtype=np.float32))
    wp.copy(ia, src, dest_offset=2, src_offset=0, count=3)
    expected = np.arange(20, dtype=np.float32).reshape(4, 5)
    for k, v in zip(range(2, 5), [100, 200, 300]):
        r, c = np.unravel_index(k, (2, 3))
        expected[[3, 1][r], [0, 2, 4][c]] = v
    np.testing.assert_array_equal(data.numpy(), expected)
    with pytest.raises(ValueError, match="out of range"):
        wp.copy(dest, ia, src_offset=5, count=4)


def test_copy_between_indexed_arrays_and_clone():
    a = wp.array(np.arange(10, dtype=np.float32))
    b = wp.zeros(10, dtype=float)
    src = a[wp.array([9, 8, 7], dtype=int)]
    dst = b[wp.array([0, 5, 0], dtype=int)]
    wp.copy(dst, src)
    np.testing.assert_array_equal(b.numpy(), [7, 0, 0, 0, 0, 8, 0, 0, 0, 0])
    c = wp.clone(src)
    assert type(c) is wp.array and c.is_contiguous
    np.testing.assert_array_equal(c.numpy(), [9, 8, 7])


@pytest.mark.parametrize("dtype,value", [
    (wp.vec3, [1.0, 2.0, 3.0]), (wp.mat22, [[1.0, 2.0], [3.0, 4.0]]), (wp.vec2i, wp.vec2i(5, -6)),
    (wp.float16, 1.5), (wp.bfloat16, 0.75),
])
def test_fill_composites_and_half_types(dtype, value):
    data = wp.zeros((4, 3), dtype=dtype)
    ia = data[wp.array([0, 2], dtype=int)]
    ia.fill_(value)
    ref = np.zeros(data.numpy().shape, dtype=data.numpy().dtype)
    ref[[0, 2]] = np.asarray(value, dtype=np.float32).astype(ref.dtype) if dtype is not wp.vec2i else [5, -6]
    np.testing.assert_array_equal(data.numpy().astype(np.float64), ref.astype(np.float64))
    np.testing.assert_array_equal(ia.numpy().astype(np.float64), ref[[0, 2]].astype(np.float64))


def test_getitem_forms_match_the_constructor():
    data = wp.array(np.arange(1000, dtype=np.int32).reshape(10, 10, 10))
    idx = wp.array([4, 0, 9], dtype=int)
    ref = np.arange(1000, dtype=np.int32).reshape(10, 10, 10)
    cases = [((slice(None), slice(None), idx), np.ix_(range(10), range(10), [4, 0, 9])),
             ((idx,), np.ix_([4, 0, 9], range(10), range(10))),
             ((idx, slice(2, 5), idx), np.ix_([4, 0, 9], range(2, 5), [4, 0, 9]))]
    for key, sel in cases:
        got = data[key]
        assert type(got) is wp.indexedarray
        np.testing.assert_array_equal(got.numpy(), ref[sel])
    # an integer drops its dimension; the index array applies to the dimension it names
    got = data[3, idx]
    np.testing.assert_array_equal(got.numpy(), ref[3][[4, 0, 9]])
    assert type(data[1:3, 2:5]) is wp.array


def test_python_element_read_and_refusals():
    data = wp.array(np.arange(12, dtype=np.float32).reshape(3, 4))
    ia = data[wp.array([2, 0], dtype=int)]
    assert ia[0, 1] == 9.0 and ia[-1, 3] == 3.0
    with pytest.raises(TypeError, match="cannot be sliced"):
        ia[0]
    with pytest.raises(TypeError, match="not supported on an indexed array"):
        ia.reshape((8,))
    with pytest.raises(TypeError, match="item assignment"):
        ia[0, 0] = 1.0
    assert "indexedarray" not in repr(ia) and "9." in repr(ia)


@pytest.mark.parametrize("make,message", [
    (lambda d: wp.indexedarray(d, [wp.array([0, 1], dtype=wp.int64)]), "Index array must use int32, got dtype int64"),
    (lambda d: wp.indexedarray(d, [wp.array(np.zeros((2, 2), dtype=np.int32))]), "one-dimensional, got 2"),
    (lambda d: wp.indexedarray(d, [None, None, wp.array([0], dtype=int)]), r"indices provided \(3\) exceeds number of dimensions \(2\)"),
    (lambda d: wp.indexedarray(d, [[0, 1]]), "Indices must be a Warp array"),
    (lambda d: wp.indexedarray(d, "x"), "single Warp array or a list"),
    (lambda d: wp.indexedarray(np.zeros(3), [None]), "data must be a Warp array"),
    (lambda d: wp.indexedarray(d, None, dtype=wp.float64), r"dtype \(float64\) does not match"),
    (lambda d: wp.indexedarray(d, None, ndim=3), r"dimensionality \(3\) does not match"),
])
def test_construction_errors_name_the_problem(make, message):
    data = wp.zeros((3, 4), dtype=float)
    with pytest.raises(ValueError, match=message):
        make(data)


def test_out_of_range_index_is_an_error_in_python_scope():
    ia = wp.indexedarray(wp.zeros(4, dtype=float), [wp.array([1, 4], dtype=int)])
    with pytest.raises(IndexError, match=r"out of range for its data array of shape \(4,\)"):
        ia.numpy()
    with pytest.raises(IndexError, match="out of range"):
        ia.fill_(1.0)


# --- kernels -------------------------------------------------------------------------------------------
@wp.kernel
def scale_add_1d(a: wp.indexedarray(dtype=float), s: float):
    i = wp.tid()
    a[i] = a[i] * s
    wp.atomic_add(a, i, 1.0)


@wp.kernel
def scale_add_2d(a: wp.indexedarray2d(dtype=float), s: float):
    i, j = wp.tid()
    a[i, j] = a[i, j] * s
    a[i, j] += 1.0


@wp.kernel
def scale_add_3d(a: wp.indexedarray3d(dtype=float), s: float):
    i, j, k = wp.tid()
    a[i, j, k] = a[i][j][k] * s
    wp.atomic_add(a[i], j, k, 1.0)


@wp.kernel
def scale_add_4d(a: wp.indexedarray4d(dtype=float), s: float):
    i, j, k, l = wp.tid()
    a[i, j, k, l] = a[i, j][k, l] * s
    wp.atomic_add(a, i, j, k, l, 1.0)


SCALE_ADD = {1: scale_add_1d, 2: scale_add_2d, 3: scale_add_3d, 4: scale_add_4d}


def _no_repeats(pats):
    return "repeat" not in pats     # a store through a repeated index races (as in warp-lang)


@pytest.mark.parametrize("ndim,pats", [c for c in _cases() if _no_repeats(c[1])])
def test_kernel_writes_reach_the_indexed_elements(ndim, pats, device):
    data, ia, values, sel = _make(ndim, pats, device=device)
    wp.launch(SCALE_ADD[ndim], dim=ia.shape, inputs=[ia, 3.0], device=device)
    expected = values.copy()
    expected[sel] = expected[sel] * np.float32(3.0) + np.float32(1.0)
    np.testing.assert_allclose(data.numpy(), expected, rtol=1e-6)


@wp.kernel
def count_hits(a: wp.indexedarray(dtype=int)):
    i = wp.tid()
    wp.atomic_add(a, i, 1)
    a[i] += 10


def test_atomics_through_repeated_indices_accumulate():
    data = wp.zeros(5, dtype=int)
    idx = np.array([0, 3, 3, 3, 4, 0], dtype=np.int32)
    wp.launch(count_hits, dim=6, inputs=[data[wp.array(idx)]])
    np.testing.assert_array_equal(data.numpy(), 11 * np.bincount(idx, minlength=5))


@wp.kernel
def shapes(a: wp.indexedarray3d(dtype=float), out: wp.array(dtype=int)):
    out[0] = a.shape[0]
    out[1] = a.shape[1]
    out[2] = a.shape[2]
    out[3] = len(a)
    v = a[1]
    out[4] = v.shape[0]
    out[5] = v.shape[1]
    out[6] = a[1, 0].shape[0]
    out[7] = wp.where(a, 1, 0)


def test_shape_len_and_views_in_kernels():
    data = wp.zeros((6, 7, 8), dtype=float)
    ia = wp.indexedarray(data, [wp.array([1, 2], dtype=int), None, wp.array([0, 1, 2], dtype=int)])
    out = wp.zeros(8, dtype=int)
    wp.launch(shapes, dim=1, inputs=[ia, out])
    np.testing.assert_array_equal(out.numpy(), [2, 7, 3, 2, 7, 3, 3, 1])


@wp.kernel
def gather_generic(src: Any, out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = src[i]


def test_generic_kernels_specialise_on_indexed_arrays():
    data = wp.array(np.arange(6, dtype=np.float32) * 2.0)
    out = wp.zeros(3, dtype=float)
    wp.launch(gather_generic, dim=3, inputs=[data[wp.array([5, 0, 2], dtype=int)], out])
    np.testing.assert_array_equal(out.numpy(), [10, 0, 4])
    wp.launch(gather_generic, dim=3, inputs=[data, out])     # the array overload: its own code
    np.testing.assert_array_equal(out.numpy(), [0, 2, 4])


@wp.struct
class Holder:
    ia: wp.indexedarray(dtype=float)
    scale: float


@wp.kernel
def through_struct(h: Holder, hs: wp.array(dtype=Holder)):
    i = wp.tid()
    h.ia[i] = h.ia[i] * h.scale
    s = hs[0]
    wp.atomic_add(s.ia, i, 1.0)


def test_struct_fields_hold_indexed_arrays():
    data = wp.array(np.arange(8, dtype=np.float32))
    h = Holder()
    h.ia = data[wp.array([7, 1, 4], dtype=int)]
    h.scale = 10.0
    hs = wp.array([h], dtype=Holder)
    wp.launch(through_struct, dim=3, inputs=[h, hs])
    np.testing.assert_array_equal(data.numpy(), [0, 11, 2, 3, 41, 5, 6, 71])
    back = hs.numpy()
    assert int(back["ia"]["shape"][0][0]) == 3
    again = hs.list()[0].ia         # read back from the struct array: the same elements
    assert type(again) is wp.indexedarray
    np.testing.assert_array_equal(again.numpy(), [71, 11, 41])
    with pytest.raises(TypeError, match="expects a wp.indexedarray, got array"):
        h.ia = data


@wp.kernel
def count_plain(a: wp.array(dtype=float), b: wp.array(dtype=float)):
    b[0] = a[0]


def test_parameter_kinds_are_not_interchangeable():
    data = wp.zeros(4, dtype=float)
    with pytest.raises(TypeError, match="argument 'a'.*expected an indexedarray, got array"):
        wp.launch(scale_add_1d, dim=4, inputs=[data, 1.0])
    with pytest.raises(TypeError, match="argument 'a'.*expected an array, got an indexedarray"):
        wp.launch(count_plain, dim=1, inputs=[data[wp.array([0], dtype=int)], data])


def test_slicing_an_indexed_array_in_a_kernel_is_a_build_error():
    @wp.kernel(module="unique")
    def sliced(a: wp.indexedarray2d(dtype=float)):
        v = a[0, 1:3]
        v[0] = 1.0

    with pytest.raises(Exception, match="indexed array cannot be sliced"):
        wp.launch(sliced, dim=1, inputs=[wp.zeros((3, 4), dtype=float)[wp.array([0], dtype=int)]])


def test_debug_mode_reports_a_bad_index_array_entry():
    @wp.kernel(module="unique")
    def read_all(a: wp.indexedarray(dtype=float), out: wp.array(dtype=float)):
        i = wp.tid()
        out[i] = a[i]

    read_all.module.options["mode"] = "debug"
    data = wp.zeros(4, dtype=float)
    ia = data[wp.array([0, 9], dtype=int)]
    with pytest.raises(Exception, match=r"array 'a' indexed with \[9\], shape \(4,\)"):
        wp.launch(read_all, dim=2, inputs=[ia, wp.zeros(2, dtype=float)])


# --- launch paths ---------------------------------------------------------------------------------------
def test_fast_path_sees_each_indexed_array_and_index_change():
    data = wp.array(np.zeros(6, dtype=np.float32))
    idx = wp.array([0, 2], dtype=int)
    ia = data[idx]
    for _ in range(3):        # the second and third launches take the fast plan
        wp.launch(scale_add_1d, dim=2, inputs=[ia, 1.0])
    np.testing.assert_array_equal(data.numpy(), [3, 0, 3, 0, 0, 0])
    idx.assign(np.array([5, 1], dtype=np.int32))     # the index values are read at launch time
    wp.launch(scale_add_1d, dim=2, inputs=[ia, 1.0])
    other = wp.array(np.zeros(6, dtype=np.float32))
    wp.launch(scale_add_1d, dim=2, inputs=[other[idx], 1.0])
    np.testing.assert_array_equal(data.numpy(), [3, 1, 3, 0, 0, 1])
    np.testing.assert_array_equal(other.numpy(), [0, 1, 0, 0, 0, 1])


def test_record_cmd_and_cpu_graph_replay():
    data = wp.array(np.zeros(4, dtype=np.float32))
    ia = data[wp.array([3, 1], dtype=int)]
    cmd = wp.launch(scale_add_1d, dim=2, inputs=[ia, 2.0], record_cmd=True)
    cmd.launch()
    cmd.launch()
    np.testing.assert_array_equal(data.numpy(), [0, 3, 0, 3])
    other = wp.array(np.zeros(4, dtype=np.float32))
    cmd.set_param_at_index(0, other[wp.array([0, 2], dtype=int)])
    cmd.launch()
    np.testing.assert_array_equal(other.numpy(), [1, 0, 1, 0])
    with wp.ScopedCapture(device="cpu") as capture:
        wp.launch(scale_add_1d, dim=2, inputs=[ia, 1.0])
        ia.fill_(5.0)
    np.testing.assert_array_equal(data.numpy(), [0, 3, 0, 3])    # captured, not run
    wp.capture_launch(capture.graph)
    wp.capture_launch(capture.graph)
    np.testing.assert_array_equal(data.numpy(), [0, 5, 0, 5])


# --- gradients -------------------------------------------------------------------------------------------
@wp.kernel
def weighted_squares(a: wp.indexedarray2d(dtype=float), w: wp.array2d(dtype=float), loss: wp.array(dtype=float)):
    i, j = wp.tid()
    v = a[i, j]
    wp.atomic_add(loss, 0, w[i, j] * v * v + wp.sin(v))


def _loss(values, i0, i1, w):
    sel = np.ix_(i0, i1)
    v = values[sel].astype(np.float64)
    return float(np.sum(w * v * v + np.sin(v)))


@pytest.mark.parametrize("i0,i1", [([2, 0], [1, 3, 1]), ([1, 1, 1], [0]), ([0, 1, 2], [3, 2, 1, 0])])
def test_gradients_reach_the_data_through_the_indices(i0, i1, device):
    values = RNG.standard_normal((3, 4)).astype(np.float32)
    data = wp.array(values, requires_grad=True, device=device)
    ia = wp.indexedarray(data, [wp.array(i0, dtype=int, device=device), wp.array(i1, dtype=int, device=device)])
    w = RNG.uniform(0.5, 2.0, size=(len(i0), len(i1))).astype(np.float32)
    loss = wp.zeros(1, dtype=float, requires_grad=True, device=device)
    tape = wp.Tape()
    with tape:
        wp.launch(weighted_squares, dim=ia.shape, inputs=[ia, wp.array(w, device=device), loss], device=device)
    tape.backward(loss)
    grad = data.grad.numpy()
    fd = np.zeros_like(values, dtype=np.float64)
    eps = 1e-3
    for idx in np.ndindex(values.shape):
        hi, lo = values.astype(np.float64), values.astype(np.float64)
        hi[idx] += eps
        lo[idx] -= eps
        fd[idx] = (_loss(hi, i0, i1, w) - _loss(lo, i0, i1, w)) / (2 * eps)
    np.testing.assert_allclose(grad, fd, rtol=2e-3, atol=2e-3)
    np.testing.assert_allclose(ia.grad.numpy(), grad[np.ix_(i0, i1)])
    tape.zero()
    np.testing.assert_array_equal(data.grad.numpy(), 0.0)


@wp.kernel
def copy_through(src: wp.indexedarray(dtype=float), dst: wp.array(dtype=float)):
    i = wp.tid()
    dst[i] = src[i] * 2.0


@wp.kernel
def store_into(src: wp.array(dtype=float), dst: wp.indexedarray(dtype=float)):
    i = wp.tid()
    dst[i] = src[i] * 3.0


def test_store_adjoint_takes_the_indexed_elements_gradient():
    x = wp.array(np.array([1.0, 2.0, 3.0], dtype=np.float32), requires_grad=True)
    y = wp.zeros(5, dtype=float, requires_grad=True)
    z = wp.zeros(3, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(store_into, dim=3, inputs=[x, y[wp.array([4, 0, 2], dtype=int)]])
        wp.launch(copy_through, dim=3, inputs=[y[wp.array([0, 2, 4], dtype=int)], z])
    tape.backward(grads={z: wp.array(np.array([1.0, 10.0, 100.0], dtype=np.float32))})
    # z = 2 * y[[0, 2, 4]] = 2 * 3 * x[[1, 2, 0]]
    np.testing.assert_allclose(x.grad.numpy(), [600.0, 6.0, 60.0])


@wp.kernel
def weigh(x: wp.array(dtype=float), w: wp.array(dtype=float), loss: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(loss, 0, w[i] * x[i])


def test_copies_on_a_tape_are_differentiable_through_repeated_indices():
    # out = data[[2, 0, 2]] (a gather: element 2 read twice), loss = sum(w * out)
    data = wp.array(np.array([1.0, 2.0, 3.0], dtype=np.float32), requires_grad=True)
    w = wp.array(np.array([1.0, 10.0, 100.0], dtype=np.float32))
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        out = data[wp.array([2, 0, 2], dtype=int)].contiguous()
        wp.launch(weigh, dim=3, inputs=[out, w, loss])
    tape.backward(loss)
    np.testing.assert_allclose(data.grad.numpy(), [10.0, 0.0, 101.0])
    # a scatter dest[[1, 1, 0]] = x: element 1 keeps x[1] (the last write), so x[0] gets nothing
    x = wp.array(np.array([5.0, 6.0, 7.0], dtype=np.float32), requires_grad=True)
    dest = wp.zeros(2, dtype=float, requires_grad=True)
    loss2 = wp.zeros(1, dtype=float, requires_grad=True)
    tape2 = wp.Tape()
    with tape2:
        wp.copy(dest[wp.array([1, 1, 0], dtype=int)], x)
        wp.launch(weigh, dim=2, inputs=[dest, wp.array(np.array([3.0, 4.0], dtype=np.float32)), loss2])
    np.testing.assert_array_equal(dest.numpy(), [7.0, 6.0])
    tape2.backward(loss2)
    np.testing.assert_allclose(x.grad.numpy(), [0.0, 4.0, 3.0])


def test_tile_load_refuses_indexed_arrays_as_warp_lang():
    @wp.kernel(module="unique")
    def tiled(a: wp.indexedarray(dtype=float), out: wp.array(dtype=float)):
        t = wp.tile_load(a, shape=4)
        wp.tile_store(out, t)

    data = wp.array(np.arange(10, dtype=np.float32))
    with pytest.raises(Exception, match=r"tile_load\(\): the first argument must be an array, got "
                                        r"indexedarray\(dtype=float32, ndim=1\)"):
        wp.launch_tiled(tiled, dim=1, inputs=[data[wp.array([9, 2, 5, 0], dtype=int)], wp.zeros(4)],
                        block_dim=1)


@wp.struct
class Payload:
    data: wp.indexedarray(dtype=float)
    tag: int


@wp.kernel
def sort_payloads(keys: wp.array(dtype=int), items: wp.array(dtype=Payload), out: wp.array(dtype=Payload)):
    k = wp.tile_load(keys, shape=4)
    v = wp.tile_load(items, shape=4)
    wp.tile_sort(k, v)
    wp.tile_store(out, v)


@wp.kernel
def read_payloads(items: wp.array(dtype=Payload), values: wp.array(dtype=float), tags: wp.array(dtype=int)):
    i = wp.tid()
    p = items[i]
    values[i] = p.data[0]
    tags[i] = p.tag


@pytest.mark.parametrize("cpu_blocks", [False, True])
def test_tiles_of_structs_holding_indexed_arrays(cpu_blocks):
    saved = wp.config.enable_cpu_blocks
    wp.config.enable_cpu_blocks = cpu_blocks
    try:
        datas = [wp.array(np.array([0.0, 100.0 + i], dtype=np.float32)) for i in range(4)]
        items = []
        for i, d in enumerate(datas):
            p = Payload()
            p.data = d[wp.array([1], dtype=int)]
            p.tag = i
            items.append(p)
        arr = wp.array(items, dtype=Payload)
        out = wp.empty(4, dtype=Payload)
        wp.launch_tiled(sort_payloads, dim=1, inputs=[wp.array([3, 2, 1, 0], dtype=int), arr, out],
                        block_dim=4)
        values, tags = wp.zeros(4, dtype=float), wp.zeros(4, dtype=int)
        wp.launch(read_payloads, dim=4, inputs=[out, values, tags])
        np.testing.assert_array_equal(values.numpy(), [103, 102, 101, 100])
        np.testing.assert_array_equal(tags.numpy(), [3, 2, 1, 0])
    finally:
        wp.config.enable_cpu_blocks = saved


# --- property tests: random shapes and index arrays -------------------------------------------------
from hypothesis import given, settings, strategies as st  # noqa: E402


@st.composite
def indexed_cases(draw, unique=False):
    ndim = draw(st.integers(1, 4))
    shape = tuple(draw(st.lists(st.integers(1, 5), min_size=ndim, max_size=ndim)))
    idx = []
    for n in shape:
        if draw(st.booleans()):
            idx.append(None)
        elif unique:
            idx.append(draw(st.permutations(range(n)).map(lambda p: p[:max(1, len(p) - 1)])))
        else:
            idx.append(draw(st.lists(st.integers(0, n - 1), min_size=0, max_size=6)))
    return shape, idx


def _build(shape, idx, values):
    data = wp.array(values)
    ia = wp.indexedarray(data, [wp.array(np.asarray(i, dtype=np.int32)) if i is not None else None for i in idx])
    sel = np.ix_(*[np.asarray(i, dtype=np.int64) if i is not None else np.arange(n) for i, n in zip(idx, shape)])
    return data, ia, sel


@settings(max_examples=60, deadline=None)
@given(indexed_cases(), st.integers(0, 2**31 - 1))
def test_python_scope_gather_scatter_property(case, seed):
    shape, idx = case
    values = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    data, ia, sel = _build(shape, idx, values)
    np.testing.assert_array_equal(ia.numpy(), values[sel])
    new = np.arange(ia.size, dtype=np.float32).reshape(ia.shape) + 1000
    ia.assign(new)
    expected = values.copy()
    expected[sel] = new
    np.testing.assert_array_equal(data.numpy(), expected)


@settings(max_examples=40, deadline=None)
@given(indexed_cases(unique=True), st.integers(0, 2**31 - 1))
def test_kernel_scatter_property(case, seed):
    shape, idx = case
    values = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    data, ia, sel = _build(shape, idx, values)
    wp.launch(SCALE_ADD[len(shape)], dim=ia.shape, inputs=[ia, -2.0])
    expected = values.copy()
    expected[sel] = expected[sel] * np.float32(-2.0) + np.float32(1.0)
    np.testing.assert_allclose(data.numpy(), expected, rtol=1e-6)
