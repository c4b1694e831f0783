"""wp.bfloat16: conversions (round to nearest even, NaN kept), arithmetic, arrays and NumPy
interop, kernel arguments, struct fields, composites, atomics, gradients, printing.

The references are independent of the package: bit patterns derived by hand from the bfloat16
format (float32's sign, 8 exponent bits and top 7 mantissa bits), and ml_dtypes' bfloat16
where it is installed (the reference's own choice for NumPy interop)."""

import math
import struct
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import warp_interactive as wp
from warp_interactive.types import scalars as sc

try:
    import ml_dtypes
except ImportError:   # the package works without it: numpy() then gives the uint16 bits
    ml_dtypes = None

needs_ml_dtypes = pytest.mark.skipif(ml_dtypes is None, reason="ml_dtypes not installed")


def f32(bits):
    return struct.unpack("<f", struct.pack("<I", bits))[0]


# float32 bits -> bfloat16 bits, worked out by hand: keep the top 16 bits, round the low 16
# to nearest with ties to the even result, NaN stays NaN (quiet bit set)
CONVERSIONS = [
    (0x3F800000, 0x3F80),   # 1.0 exactly
    (0xBF800000, 0xBF80),   # -1.0
    (0x00000000, 0x0000),   # +0
    (0x80000000, 0x8000),   # -0 keeps its sign
    (0x3F808000, 0x3F80),   # 1.00390625: a tie, the even neighbour is 1.0
    (0x3F818000, 0x3F82),   # a tie whose even neighbour is above
    (0x3F808001, 0x3F81),   # just above the tie: up
    (0x3F807FFF, 0x3F80),   # just below the tie: down
    (0x40490FDB, 0x4049),   # pi -> 3.140625
    (0x7F800000, 0x7F80),   # +inf
    (0xFF800000, 0xFF80),   # -inf
    (0x7F7FFFFF, 0x7F80),   # FLT_MAX rounds up to inf
    (0x7F7F7FFF, 0x7F7F),   # the largest value that stays finite
    (0x00000001, 0x0000),   # the smallest subnormal rounds to zero
    (0x00018000, 0x0002),   # a subnormal tie, even neighbour above
    (0x007FFFFF, 0x0080),   # the largest subnormal rounds to the smallest normal
]
NANS = [0x7FC00000, 0x7F800001, 0xFF800001, 0x7FBFFFFF, 0xFFBFFFFF, 0x7FFFFFFF]


@wp.kernel
def to_bf16(x: wp.array(dtype=wp.float32), y: wp.array(dtype=wp.bfloat16)):
    i = wp.tid()
    y[i] = wp.bfloat16(x[i])


@wp.kernel
def from_bf16(y: wp.array(dtype=wp.bfloat16), x: wp.array(dtype=wp.float32)):
    i = wp.tid()
    x[i] = wp.float32(y[i])


def kernel_bits(values_f32):
    x = wp.array(np.asarray(values_f32, dtype=np.float32))
    y = wp.zeros(len(x), dtype=wp.bfloat16)
    wp.launch(to_bf16, dim=len(x), inputs=[x, y])
    return np.asarray(y.numpy()).view(np.uint16)


def bits_of(values_f32):
    return np.array(values_f32, dtype=np.uint32).view(np.float32)


@pytest.mark.parametrize("src,want", CONVERSIONS, ids=[f"{s:08x}" for s, _ in CONVERSIONS])
def test_conversion_rounds_to_nearest_even(src, want):
    x = bits_of([src])
    assert int(kernel_bits(x)[0]) == want                       # in a kernel
    assert int(sc.float32_to_bfloat16_bits(x)[0]) == want       # NumPy data into an array
    assert int(np.asarray(wp.array(x, dtype=wp.bfloat16).numpy()).view(np.uint16)[0]) == want


@pytest.mark.parametrize("src", NANS, ids=[f"{s:08x}" for s in NANS])
def test_nan_stays_nan(src):
    """A NaN whose payload sits below the kept bits must not become an infinity."""
    x = bits_of([src])
    for bits in (kernel_bits(x), sc.float32_to_bfloat16_bits(x)):
        assert math.isnan(float(sc.bfloat16_bits_to_float32(bits)[0]))
        assert (int(bits[0]) & 0x8000) == (src >> 16) & 0x8000      # the sign is kept


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 2**32 - 1), min_size=1, max_size=64))
def test_conversion_matches_ml_dtypes(words):
    if ml_dtypes is None:
        pytest.skip("ml_dtypes not installed")
    x = bits_of(words)
    want = x.astype(ml_dtypes.bfloat16).view(np.uint16)
    for got in (kernel_bits(x), sc.float32_to_bfloat16_bits(x)):
        nan = np.isnan(x)
        np.testing.assert_array_equal(got[~nan], want[~nan])
        assert np.all(np.isnan(sc.bfloat16_bits_to_float32(got[nan])))


def test_back_to_float32_is_exact():
    bits = np.arange(0, 2**16, 97, dtype=np.uint16)
    a = wp.array(bits, dtype=wp.bfloat16)          # uint16 data are taken as bits
    out = wp.zeros(len(bits), dtype=wp.float32)
    wp.launch(from_bf16, dim=len(bits), inputs=[a, out])
    want = (bits.astype(np.uint32) << 16).view(np.float32)
    np.testing.assert_array_equal(out.numpy(), want)


# --- arithmetic: computed in float32, rounded once -----------------------------------------------
@wp.kernel
def arith(a: wp.array(dtype=wp.bfloat16), b: wp.array(dtype=wp.bfloat16), out: wp.array2d(dtype=wp.bfloat16)):
    i = wp.tid()
    out[0, i] = a[i] + b[i]
    out[1, i] = a[i] - b[i]
    out[2, i] = a[i] * b[i]
    out[3, i] = a[i] / b[i]
    out[4, i] = -a[i]
    out[5, i] = wp.sqrt(wp.abs(a[i]))
    out[6, i] = wp.min(a[i], b[i])
    out[7, i] = wp.max(a[i], b[i])


def rounded(v):
    return sc.bfloat16_bits_to_float32(sc.float32_to_bfloat16_bits(np.asarray(v, dtype=np.float32)))


def test_arithmetic_rounds_the_float32_result():
    rng = np.random.default_rng(3)
    a = rounded(rng.uniform(-100, 100, 257))
    b = rounded(rng.uniform(0.5, 50, 257) * rng.choice([-1, 1], 257))
    out = wp.zeros((8, 257), dtype=wp.bfloat16)
    wp.launch(arith, dim=257, inputs=[wp.array(a, dtype=wp.bfloat16), wp.array(b, dtype=wp.bfloat16), out])
    want = [a + b, a - b, a * b, a / b, -a, np.sqrt(np.abs(a)), np.minimum(a, b), np.maximum(a, b)]
    got = np.asarray(out.list(), dtype=np.float32).reshape(out.shape)   # list(): row-major, flat
    for row, w in enumerate(want):
        np.testing.assert_array_equal(got[row], rounded(w.astype(np.float32)), err_msg=str(row))


@wp.kernel
def compare(a: wp.array(dtype=wp.bfloat16), b: wp.array(dtype=wp.bfloat16), out: wp.array2d(dtype=int)):
    i = wp.tid()
    out[0, i] = wp.where(a[i] < b[i], 1, 0)
    out[1, i] = wp.where(a[i] == b[i], 1, 0)
    out[2, i] = wp.where(a[i] >= b[i], 1, 0)


def test_comparisons_follow_the_values():
    a = np.array([1.0, -0.0, 2.0, np.nan, -3.0], dtype=np.float32)
    b = np.array([2.0, 0.0, 2.0, 1.0, -4.0], dtype=np.float32)
    out = wp.zeros((3, 5), dtype=int)
    wp.launch(compare, dim=5, inputs=[wp.array(a, dtype=wp.bfloat16), wp.array(b, dtype=wp.bfloat16), out])
    np.testing.assert_array_equal(out.numpy(), np.array([a < b, a == b, a >= b], dtype=int))


# --- arrays and NumPy -----------------------------------------------------------------------------
def test_numpy_gives_ml_dtypes_or_bits(monkeypatch):
    a = wp.array([1.0, 2.5, -3.0], dtype=wp.bfloat16)
    if ml_dtypes is not None:
        assert a.numpy().dtype == np.dtype(ml_dtypes.bfloat16)
        np.testing.assert_array_equal(a.numpy().astype(np.float32), [1.0, 2.5, -3.0])
    monkeypatch.setattr(sc, "_ml_bf16", None)      # as on a machine without ml_dtypes
    monkeypatch.setattr(sc, "_warned_bits", False)
    with pytest.warns(UserWarning, match="bfloat16 arrays are returned as np.uint16"):
        bits = a.numpy()
    assert bits.dtype == np.uint16 and bits.tolist() == [0x3F80, 0x4020, 0xC040]
    with warnings.catch_warnings():
        warnings.simplefilter("error")              # the warning comes once
        a.numpy()


@pytest.mark.parametrize("data", [
    [1.0, 2.0, -0.5], (1.0, 2.0, -0.5), np.array([1.0, 2.0, -0.5]),
    np.array([1.0, 2.0, -0.5], dtype=np.float32), np.array([1, 2, 0], dtype=np.int32),
], ids=["list", "tuple", "float64", "float32", "int32"])
def test_arrays_from_numbers(data):
    a = wp.array(data, dtype=wp.bfloat16)
    assert a.dtype is wp.bfloat16 and a.shape == (3,)
    assert a.list() == [float(v) for v in np.asarray(data, dtype=np.float64)]


def test_array_from_bits_and_from_ml_dtypes():
    assert wp.array(np.array([0x3F80, 0x4000], dtype=np.uint16), dtype=wp.bfloat16).list() == [1.0, 2.0]
    if ml_dtypes is not None:
        data = np.array([1.5, -2.0], dtype=ml_dtypes.bfloat16)
        a = wp.array(data)                          # the dtype is inferred
        assert a.dtype is wp.bfloat16 and a.list() == [1.5, -2.0]
        assert wp.dtype_from_numpy(ml_dtypes.bfloat16) is wp.bfloat16
        assert wp.array(a.numpy()).list() == [1.5, -2.0]   # numpy() round trip
    assert wp.dtype_from_numpy(np.uint16) is wp.uint16    # uint16 stays uint16


def test_fill_assign_setitem_and_copies():
    a = wp.zeros(4, dtype=wp.bfloat16)
    a.fill_(2.5)
    assert a.list() == [2.5] * 4
    a.fill_(wp.bfloat16(1.0 / 3.0))
    assert a.list() == [float(rounded(1.0 / 3.0))] * 4
    a.assign([1.0, 2.0, 3.0, 4.0])
    a[1] = 7.0
    assert a.list() == [1.0, 7.0, 3.0, 4.0] and a[1] == 7.0
    assert wp.clone(a).list() == a.list() and wp.array(a).list() == a.list()
    b = wp.empty(4, dtype=wp.bfloat16)
    wp.copy(b, a)
    assert b.list() == a.list()
    assert wp.full(2, 0.1, dtype=wp.bfloat16).list() == [float(rounded(0.1))] * 2


# --- kernel arguments, structs, composites ------------------------------------------------------------
@wp.struct
class Holder:
    h: wp.bfloat16
    f: wp.float32


vec3bf = wp.types.vector(3, wp.bfloat16)
mat22bf = wp.types.matrix((2, 2), wp.bfloat16)


@wp.kernel
def args_kernel(x: wp.bfloat16, s: Holder, v: vec3bf, out: wp.array(dtype=wp.float32)):
    out[0] = wp.float32(x)
    out[1] = wp.float32(s.h) + s.f
    w = v * wp.bfloat16(2.0)
    out[2] = wp.float32(w[2])
    m = mat22bf(wp.bfloat16(1.0), wp.bfloat16(2.0), wp.bfloat16(3.0), wp.bfloat16(4.0))
    out[3] = wp.float32(wp.determinant(m))
    out[4] = wp.float32(wp.dot(v, v))


def test_kernel_arguments_structs_and_composites():
    s = Holder()
    s.h, s.f = 3.14159, 0.5
    out = wp.zeros(5, dtype=wp.float32)
    wp.launch(args_kernel, dim=1, inputs=[wp.bfloat16(1.0 / 3.0), s, vec3bf(1.0, 2.0, 3.3), out])
    np.testing.assert_array_equal(out.numpy(), [rounded(1 / 3), rounded(3.14159) + 0.5,
                                                rounded(2 * rounded(3.3)), -2.0, rounded(1 + 4 + 10.875)])


def test_python_scope_values():
    assert wp.bfloat16(3.14159).value == 3.14159 and float(wp.bfloat16(2)) == 2.0   # as given
    v = vec3bf(1.0, 2.3, 3.14159)                 # stored: rounded
    assert list(v) == [1.0, float(rounded(2.3)), 3.140625]
    v[0] = 0.1
    assert v[0] == float(rounded(0.1))
    assert vec3bf.__name__ == "vec3bf" and wp.types.type_repr(mat22bf) == "mat22bf"
    a = wp.array([[1.0, 2.0, 3.0]], dtype=vec3bf)
    assert a.list() == [[1.0, 2.0, 3.0]] and list(a[0]) == [1.0, 2.0, 3.0]
    assert wp.cast(wp.bfloat16(1.0), dtype=wp.int16) == 0x3F80
    assert wp.cast(wp.int16(0x4040), dtype=wp.bfloat16) == 3.0


# --- atomics and gradients ----------------------------------------------------------------------------
@wp.kernel
def atomics(a: wp.array(dtype=wp.bfloat16), v: wp.array(dtype=wp.bfloat16)):
    i = wp.tid()
    wp.atomic_add(a, 0, v[i])
    wp.atomic_min(a, 1, v[i])
    wp.atomic_max(a, 2, v[i])
    wp.atomic_sub(a, 3, v[i])


def test_atomics():
    v = np.arange(1, 65, dtype=np.float32)        # every partial sum is exact in bfloat16 (< 2^8 * 8)
    a = wp.array([0.0, 1000.0, -1000.0, 0.0], dtype=wp.bfloat16)
    wp.launch(atomics, dim=64, inputs=[a, wp.array(v, dtype=wp.bfloat16)])
    assert a.list() == [2080.0, 1.0, 64.0, -2080.0]


@wp.kernel
def loss_kernel(x: wp.array(dtype=wp.bfloat16), loss: wp.array(dtype=wp.float32)):
    i = wp.tid()
    v = wp.float32(x[i])
    wp.atomic_add(loss, 0, v * v)


@wp.kernel
def bf16_math(x: wp.array(dtype=wp.bfloat16), y: wp.array(dtype=wp.bfloat16)):
    i = wp.tid()
    y[i] = wp.sin(x[i]) * x[i]


def test_gradients():
    x = wp.array([1.0, 2.0, -3.0], dtype=wp.bfloat16, requires_grad=True)
    loss = wp.zeros(1, dtype=wp.float32, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(loss_kernel, dim=3, inputs=[x, loss])
    tape.backward(loss)
    assert x.grad.list() == [2.0, 4.0, -6.0]
    # through bfloat16 arithmetic: d/dx (sin x * x) = cos x * x + sin x, to bfloat16 precision
    xs = np.array([0.5, 1.0, 2.0], dtype=np.float32)
    x = wp.array(xs, dtype=wp.bfloat16, requires_grad=True)
    y = wp.zeros(3, dtype=wp.bfloat16, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(bf16_math, dim=3, inputs=[x, y])
    tape.backward(grads={y: wp.ones(3, dtype=wp.bfloat16)})
    np.testing.assert_allclose(x.grad.list(), np.cos(xs) * xs + np.sin(xs), rtol=2e-2)


# --- printing ---------------------------------------------------------------------------------------
@wp.kernel
def print_bf16(x: wp.bfloat16):
    print(x)
    print(wp.bfloat16(1.0) / wp.bfloat16(3.0))


def test_print(capfd):
    import ctypes
    wp.launch(print_bf16, dim=1, inputs=[wp.bfloat16(3.14)])
    wp.synchronize()
    ctypes.CDLL(None).fflush(None)
    assert capfd.readouterr().out.splitlines()[-2:] == ["%g" % rounded(3.14), "%g" % rounded(1 / 3)]
