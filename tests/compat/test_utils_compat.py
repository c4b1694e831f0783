"""``wp.utils`` (warp-lang's ``warp.utils``): reductions, scans, sorts, run-length encoding and
casts checked against NumPy, over tables of dtypes and Hypothesis-drawn inputs; warp-lang's
argument errors with their messages."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import warp_interactive as wp
from warp_interactive import utils

FLOATS = [(wp.float32, np.float32), (wp.float64, np.float64)]


@pytest.mark.parametrize("wtype, ntype", FLOATS)
@pytest.mark.parametrize("vec", [None, 3])
def test_array_sum_whole_and_count(wtype, ntype, vec):
    rng = np.random.default_rng(1)
    shape = (50,) if vec is None else (50, vec)
    data = rng.random(shape).astype(ntype)
    dtype = wtype if vec is None else wp.types.vector(vec, wtype)
    a = wp.array(data, dtype=dtype, device="cpu")
    np.testing.assert_allclose(utils.array_sum(a), data.sum(axis=0), rtol=1e-5)
    np.testing.assert_allclose(utils.array_sum(a, value_count=7), data[:7].sum(axis=0), rtol=1e-5)
    np.testing.assert_allclose(utils.array_inner(a, a), (data * data).sum(), rtol=1e-5)


@pytest.mark.parametrize("axis", [0, 1, 2, -1, -3])
def test_reductions_along_an_axis(axis):
    rng = np.random.default_rng(2)
    x, y = rng.random((3, 4, 5)).astype(np.float32), rng.random((3, 4, 5)).astype(np.float32)
    a, b = wp.array(x, device="cpu"), wp.array(y, device="cpu")
    s = utils.array_sum(a, axis=axis)
    assert s.shape == x.sum(axis=axis, keepdims=True).shape
    np.testing.assert_allclose(s.numpy(), x.sum(axis=axis, keepdims=True), rtol=1e-5)
    np.testing.assert_allclose(utils.array_inner(a, b, axis=axis).numpy(),
                               (x * y).sum(axis=axis, keepdims=True), rtol=1e-5)
    out = wp.full(s.shape, -1.0, dtype=float, device="cpu")
    assert utils.array_sum(a, out=out, value_count=2, axis=axis) is out
    idx = [slice(None)] * 3
    idx[axis] = slice(0, 2)
    np.testing.assert_allclose(out.numpy(), x[tuple(idx)].sum(axis=axis, keepdims=True), rtol=1e-5)


def test_reduction_errors():
    a = wp.zeros((2, 3), dtype=float, device="cpu")
    with pytest.raises(IndexError, match="axis 2 is out of bounds"):
        utils.array_sum(a, axis=2)
    with pytest.raises(ValueError, match="same shape"):
        utils.array_inner(a, wp.zeros(6, dtype=float, device="cpu"))
    with pytest.raises(RuntimeError, match="out array should have shape"):
        utils.array_sum(a, out=wp.zeros(2, dtype=float, device="cpu"), axis=1)
    with pytest.raises(RuntimeError, match="Unsupported data type"):
        utils.array_sum(wp.zeros(3, dtype=int, device="cpu"))


@settings(max_examples=30, deadline=None)
@given(hnp.arrays(np.int32, st.integers(1, 40), elements=st.integers(-1000, 1000)), st.booleans())
def test_array_scan_matches_cumsum(x, inclusive):
    out = wp.zeros(len(x), dtype=int, device="cpu")
    utils.array_scan(wp.array(x, device="cpu"), out, inclusive=inclusive)
    ref = np.cumsum(x, dtype=np.int32)
    if not inclusive:
        ref = np.concatenate([[0], ref[:-1]])
    np.testing.assert_array_equal(out.numpy(), ref)


def test_array_scan_vectors_componentwise():
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    out = wp.zeros(4, dtype=wp.vec3, device="cpu")
    utils.array_scan(wp.array(x, dtype=wp.vec3, device="cpu"), out)
    np.testing.assert_allclose(out.numpy(), np.cumsum(x, axis=0))
    with pytest.raises(RuntimeError, match="sizes do not match"):
        utils.array_scan(wp.zeros(3, dtype=float, device="cpu"), wp.zeros(4, dtype=float, device="cpu"))


KEY_TYPES = [(wp.int32, np.int32), (wp.uint32, np.uint32), (wp.int64, np.int64),
             (wp.uint64, np.uint64), (wp.float32, np.float32), (wp.float64, np.float64)]


@pytest.mark.parametrize("wtype, ntype", KEY_TYPES)
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_radix_sort_pairs_is_a_stable_sort(wtype, ntype, data):
    n = data.draw(st.integers(1, 30))
    signed = np.issubdtype(ntype, np.signedinteger) or np.issubdtype(ntype, np.floating)
    keys = np.array(data.draw(st.lists(st.integers(-5 if signed else 0, 5), min_size=n, max_size=n)), dtype=ntype)
    if np.issubdtype(ntype, np.floating):
        keys = keys * ntype(0.5)
        keys[keys == 0] = 0      # no -0.0: it sorts before +0.0 as warp-lang's radix sort does
    k = wp.array(np.concatenate([keys, np.zeros(n, ntype)]), dtype=wtype, device="cpu")
    v = wp.array(np.arange(2 * n, dtype=np.int32), dtype=int, device="cpu")
    utils.radix_sort_pairs(k, v, n)
    order = np.argsort(keys, kind="stable")
    np.testing.assert_array_equal(k.numpy()[:n], keys[order])
    np.testing.assert_array_equal(v.numpy()[:n], order)


def test_radix_sort_bit_range_and_errors():
    keys = np.array([0b1101, 0b0110, 0b1011, 0b0001], dtype=np.int32)
    k = wp.array(np.concatenate([keys, keys]), dtype=int, device="cpu")
    v = wp.array(np.arange(8, dtype=np.int32), dtype=int, device="cpu")
    utils.radix_sort_pairs(k, v, 4, begin_bit=0, end_bit=2)    # by the two low bits only
    np.testing.assert_array_equal(v.numpy()[:4], np.argsort(keys & 3, kind="stable"))
    with pytest.raises(RuntimeError, match="2\\*count"):
        utils.radix_sort_pairs(k, v, 5)
    with pytest.raises(RuntimeError, match="Invalid radix sort bit range"):
        utils.radix_sort_pairs(k, v, 4, begin_bit=3, end_bit=40)


def test_segmented_sort_pairs():
    keys = np.array([3, 1, 4, 2, 9, 7, 8, 0], dtype=np.int32)
    k = wp.array(np.concatenate([keys, keys]), dtype=int, device="cpu")
    v = wp.array(np.arange(16, dtype=np.int32), dtype=int, device="cpu")
    utils.segmented_sort_pairs(k, v, 8, wp.array([0, 2, 5, 8], dtype=int, device="cpu"))
    ref_k, ref_v = keys.copy(), np.arange(8)
    for lo, hi in ((0, 2), (2, 5), (5, 8)):
        o = np.argsort(keys[lo:hi], kind="stable")
        ref_k[lo:hi], ref_v[lo:hi] = keys[lo:hi][o], np.arange(lo, hi)[o]
    np.testing.assert_array_equal(k.numpy()[:8], ref_k)
    np.testing.assert_array_equal(v.numpy()[:8], ref_v)
    with pytest.raises(ValueError, match="invalid segment"):
        utils.segmented_sort_pairs(k, v, 4, wp.array([0, 6], dtype=int, device="cpu"))
    with pytest.raises(TypeError, match="count must be an integer"):
        utils.segmented_sort_pairs(k, v, 2.0, wp.array([0, 2], dtype=int, device="cpu"))


@settings(max_examples=30, deadline=None)
@given(hnp.arrays(np.int32, st.integers(1, 40), elements=st.integers(0, 3)))
def test_runlength_encode_matches_runs(x):
    runs = []
    for value in x:
        if runs and runs[-1][0] == value:
            runs[-1][1] += 1
        else:
            runs.append([value, 1])
    rv, rl = wp.zeros(len(x), dtype=int, device="cpu"), wp.zeros(len(x), dtype=int, device="cpu")
    n = utils.runlength_encode(wp.array(x, device="cpu"), rv, rl)
    assert n == len(runs)
    np.testing.assert_array_equal(rv.numpy()[:n], [r[0] for r in runs])
    np.testing.assert_array_equal(rl.numpy()[:n], [r[1] for r in runs])
    count = wp.zeros(1, dtype=int, device="cpu")
    assert utils.runlength_encode(wp.array(x, device="cpu"), rv, rl, run_count=count) is count
    assert count.numpy()[0] == len(runs)


def test_array_cast():
    x = np.array([1.7, -2.5, 3.2, 4.9], dtype=np.float32)
    out = wp.zeros(4, dtype=int, device="cpu")
    utils.array_cast(wp.array(x, device="cpu"), out)
    np.testing.assert_array_equal(out.numpy(), x.astype(np.int32))    # truncation, as int(x)
    part = wp.full(4, 9, dtype=int, device="cpu")
    utils.array_cast(wp.array(x, device="cpu"), part, count=2)
    np.testing.assert_array_equal(part.numpy(), [1, -2, 9, 9])
    v = wp.zeros(2, dtype=wp.vec2d, device="cpu")                    # other element shape: flat
    utils.array_cast(wp.array(x, device="cpu"), v)
    np.testing.assert_allclose(v.numpy().reshape(-1), x.astype(np.float64))


def test_wp_utils_attribute():
    assert wp.utils.array_sum is utils.array_sum
