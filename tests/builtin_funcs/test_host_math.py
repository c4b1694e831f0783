"""float32 sin, cos and exp on the CPU (native/include/warp_interactive/core/host_math.h): vectorisable
arithmetic in double precision instead of libm calls. Checked against NumPy's float64 functions
rounded to float32 (the correctly rounded result, up to float64's own error): at most 0.501 ulp
over tables of ranges and over Hypothesis' whole float32 space, IEEE special values (signed
zeros, infinities, NaN, overflow and underflow edges, arguments past the reduction's range that
go to libm), and the same bits from the vectorised loop (contiguous arrays) and the scalar loop
(strided views), so AVX2 and AVX-512 machines, and both paths, agree."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import warp_interactive as wp
from warp_interactive.compiler import cpu as cpu_compiler


@wp.kernel(module="host_math_table")
def trig_exp(x: wp.array(dtype=wp.float32), s: wp.array(dtype=wp.float32),
             c: wp.array(dtype=wp.float32), e: wp.array(dtype=wp.float32)):
    i = wp.tid()
    s[i] = wp.sin(x[i])
    c[i] = wp.cos(x[i])
    e[i] = wp.exp(x[i])


@wp.kernel(module="host_math_table")
def libm_rest(x: wp.array(dtype=wp.float32), y: wp.array(dtype=wp.float32),
              xd: wp.array(dtype=wp.float64), yd: wp.array(dtype=wp.float64)):
    i = wp.tid()
    v = x[i]
    w = xd[i]
    y[i] = wp.log(v) + wp.log2(v) + wp.pow(v, 1.5)
    yd[i] = wp.exp(w) + wp.log(w) + wp.log2(w) + wp.pow(w, 1.5)


def _run(xs, strided=False):
    """sin, cos, exp of float32 ``xs`` on the CPU: contiguous arrays take the vectorised loop,
    every-other-element views the scalar one."""
    n = len(xs)
    if strided:
        base = np.zeros(2 * n, np.float32)
        base[::2] = xs
        x = wp.array(base)[::2]
        outs = [wp.zeros(2 * n, dtype=wp.float32)[::2] for _ in range(3)]
    else:
        x = wp.array(np.asarray(xs, np.float32))
        outs = [wp.zeros(n, dtype=wp.float32) for _ in range(3)]
    wp.launch(trig_exp, dim=n, inputs=[x, *outs], device="cpu")
    return dict(zip(("sin", "cos", "exp"), (o.numpy() for o in outs)))


REFS = {"sin": np.sin, "cos": np.cos, "exp": np.exp}


def _ulps(got, x32, name):
    """|got - f(x)| in units of the float32 spacing at the correctly rounded result."""
    with np.errstate(all="ignore"):
        ref = REFS[name](x32.astype(np.float64))
        ref32 = ref.astype(np.float32)
        return np.abs(got.astype(np.float64) - ref) / np.spacing(np.abs(ref32)).astype(np.float64), ref32


# (name, low, high, log-uniform): ranges the reduction covers (|x| <= 2^28) and exp's finite range
RANGES = [("unit", -1.0, 1.0, False), ("ten", -10.0, 10.0, False), ("thousands", -5e3, 5e3, False),
          ("wide", 1e-3, 2.6e8, True), ("tiny", 1e-38, 1e-3, True), ("exp range", -103.0, 88.7, False)]


@pytest.mark.parametrize("name", sorted(REFS))
@pytest.mark.parametrize("label,lo,hi,log", RANGES, ids=[r[0] for r in RANGES])
def test_within_half_ulp_of_the_correctly_rounded_value(name, label, lo, hi, log):
    rng = np.random.default_rng(len(label))
    if log:
        xs = np.exp(rng.uniform(np.log(lo), np.log(hi), 1 << 16)) * rng.choice([-1.0, 1.0], 1 << 16)
    else:
        xs = rng.uniform(lo, hi, 1 << 16)
    if name == "exp":
        xs = np.clip(xs, -103.0, 88.7)
    x32 = xs.astype(np.float32)
    got = _run(x32)[name]
    ulps, ref32 = _ulps(got, x32, name)
    ok = ref32 != 0     # exp's subnormal results: ulp of the subnormal range
    assert ulps[ok].max() <= 0.501, (label, x32[ok][np.argmax(ulps[ok])])
    assert np.mean(got == ref32) >= 0.9999    # correctly rounded but in near-halfway cases


# (x, sin, cos, exp) with the sign of zeros checked
SPECIALS = [
    (0.0, 0.0, 1.0, 1.0), (-0.0, -0.0, 1.0, 1.0),
    (np.inf, np.nan, np.nan, np.inf), (-np.inf, np.nan, np.nan, 0.0), (np.nan, np.nan, np.nan, np.nan),
    (1e-45, 1e-45, 1.0, 1.0), (-1e-45, -1e-45, 1.0, 1.0), (-3e-8, -3e-8, 1.0, np.float32(1 - 3e-8)),
    (88.72, None, None, np.float32(np.exp(np.float64(np.float32(88.72))))), (88.73, None, None, np.inf),
    (-103.97, None, None, np.float32(np.exp(np.float64(np.float32(-103.97))))),
    (-104.0, None, None, 0.0), (-1e30, None, None, 0.0), (1e30, None, None, np.inf),
]


@pytest.mark.parametrize("x,s,c,e", SPECIALS, ids=[repr(v[0]) for v in SPECIALS])
def test_special_values(x, s, c, e):
    got = [v[0] for v in _run(np.array([x], np.float32)).values()]
    for value, expect in zip(got, (s, c, e)):
        if expect is None:
            continue
        expect = np.float32(expect)
        if np.isnan(expect):
            assert np.isnan(value)
        else:
            assert value == expect and np.signbit(value) == np.signbit(expect), (x, value, expect)


@pytest.mark.parametrize("x", [2.7e8, -3.0e8, 1.0e12, 3.0e38, -3.0e38, 2.0 ** 28, 2.0 ** 28 + 32])
def test_arguments_past_the_reduction_match_libm(x):
    """Beyond 2^28 the functions call libm (sinf/cosf), here through the vectorised loop too."""
    xs = np.full(19, x, np.float32)       # two full vectors and a tail
    out = _run(xs)
    for name in ("sin", "cos"):
        got = out[name]
        ulps, _ = _ulps(got, xs, name)
        assert ulps.max() <= 1.0


def test_vectorised_and_scalar_loops_give_the_same_bits():
    rng = np.random.default_rng(7)
    xs = np.concatenate([rng.uniform(-50, 50, 4099), rng.uniform(-100, 89, 4099),
                         np.exp(rng.uniform(-80, 20, 4099)), [0.0, -0.0, np.inf, np.nan, 3e38]])
    x32 = xs.astype(np.float32)
    for vec, scal in zip(_run(x32).values(), _run(x32, strided=True).values()):
        assert np.array_equal(vec.view(np.uint32), scal.view(np.uint32))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(width=32, allow_nan=True, allow_infinity=True), min_size=1, max_size=40))
def test_any_float32(values):
    x32 = np.array(values, np.float32)
    got = _run(x32)
    for name, out in got.items():
        ulps, ref32 = _ulps(out, x32, name)
        nan = np.isnan(ref32)
        assert np.array_equal(np.isnan(out), nan)
        inf = np.isinf(ref32)
        assert np.array_equal(out[inf], ref32[inf])
        finite = ~nan & ~inf & (ref32 != 0)
        # libm (|x| > 2^28) is within 1 ulp; ours within 0.501
        assert np.all(ulps[finite] <= np.where(np.abs(x32[finite]) > 2.0 ** 28, 1.0, 0.501))
        zero = ref32 == 0
        assert np.all(np.abs(out[zero]) <= np.float32(1e-45))


def test_libm_functions_called_through_their_current_glibc_versions():
    """exp/log/pow/log2 call glibc's wrapper-free versions (their _FloatN aliases) where this
    libm has them, and the values are libm's."""
    assert ("-DWPI_LIBM_FLOATN=1" in cpu_compiler.flags(False, False)) == cpu_compiler._libm_floatn()
    rng = np.random.default_rng(5)
    v = rng.uniform(0.1, 20.0, 1000)
    x, y = wp.array(v.astype(np.float32)), wp.zeros(1000, dtype=wp.float32)
    xd, yd = wp.array(v, dtype=wp.float64), wp.zeros(1000, dtype=wp.float64)
    wp.launch(libm_rest, dim=1000, inputs=[x, y, xd, yd], device="cpu")
    v32 = v.astype(np.float32).astype(np.float64)
    np.testing.assert_allclose(y.numpy(), np.log(v32) + np.log2(v32) + v32 ** 1.5,
                               rtol=2e-6)
    np.testing.assert_allclose(yd.numpy(), np.exp(v) + np.log(v) + np.log2(v) + v ** 1.5,
                               rtol=1e-14)
