"""Python-scope arithmetic on warp scalars and arrays, as warp-lang 1.19 has it.

Scalars (types/scalar_ops.py) must give exactly what the same operator gives inside a kernel
(the reference here is a kernel over the same values, compared bit for bit; NaN matches NaN),
with warp-lang's result kinds (float32 -> Python float, int32 -> Python int, other types -> a
value of the type). Arrays (runtime/array_ops.py) are checked against NumPy, broadcasting
included, and their gradients against the analytic derivative."""

import math
import operator

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import warp_interactive as wp
from warp_interactive.types.generic import Any

INT_TYPES = [wp.int8, wp.uint8, wp.int16, wp.uint16, wp.int32, wp.uint32, wp.int64, wp.uint64]
FLOAT_TYPES = [wp.float16, wp.float32, wp.float64]
OPS = ["add", "sub", "mul", "div", "mod", "floordiv", "pow"]
PY_OPS = {"add": operator.add, "sub": operator.sub, "mul": operator.mul, "div": operator.truediv,
          "mod": operator.mod, "floordiv": operator.floordiv, "pow": operator.pow}


@wp.kernel
def k_ops(a: wp.array(dtype=Any), b: wp.array(dtype=Any), add: wp.array(dtype=Any),
          sub: wp.array(dtype=Any), mul: wp.array(dtype=Any), div: wp.array(dtype=Any),
          mod: wp.array(dtype=Any), fdiv: wp.array(dtype=Any), neg: wp.array(dtype=Any)):
    i = wp.tid()
    add[i] = a[i] + b[i]
    sub[i] = a[i] - b[i]
    mul[i] = a[i] * b[i]
    div[i] = a[i] / b[i]
    mod[i] = a[i] % b[i]
    fdiv[i] = a[i] // b[i]
    neg[i] = -a[i]


@wp.kernel
def k_pow(a: wp.array(dtype=Any), b: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    i = wp.tid()
    out[i] = a[i] ** b[i]


def _kernel_results(t, xs, ys):
    a, b = wp.array(np.array(xs, dtype=t._np_dtype), dtype=t), wp.array(np.array(ys, dtype=t._np_dtype), dtype=t)
    outs = [wp.zeros(len(xs), dtype=t) for _ in range(7)]
    wp.launch(k_ops, dim=len(xs), inputs=[a, b] + outs)
    res = dict(zip(["add", "sub", "mul", "div", "mod", "floordiv", "neg"], [o.numpy() for o in outs]))
    if t in FLOAT_TYPES:
        p = wp.zeros(len(xs), dtype=t)
        wp.launch(k_pow, dim=len(xs), inputs=[a, b, p])
        res["pow"] = p.numpy()
    return res


def _same(py_value, kernel_value, t):
    got = np.array(float(py_value) if t in FLOAT_TYPES else int(py_value)).astype(t._np_dtype)
    if t in FLOAT_TYPES and np.isnan(kernel_value):
        return bool(np.isnan(got))
    return got.tobytes() == np.array(kernel_value, dtype=t._np_dtype).tobytes()


def _values(t):
    if t in FLOAT_TYPES:
        return st.sampled_from([0.0, -0.0, 1.0, -1.0, 0.1, -2.5, 3.0, 7.25, 1e-3, -1e4, math.inf])
    info = np.iinfo(t._np_dtype)
    return st.one_of(st.integers(int(info.min), int(info.max)),
                     st.sampled_from([0, 1, -1 if info.min < 0 else 2, int(info.min), int(info.max)]))


@pytest.mark.parametrize("t", INT_TYPES + FLOAT_TYPES, ids=lambda t: t.__name__)
@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_scalar_operators_match_kernels(t, data):
    pairs = data.draw(st.lists(st.tuples(_values(t), _values(t)), min_size=1, max_size=8))
    xs = [p[0] for p in pairs]
    ys = [p[1] for p in pairs]
    ref = _kernel_results(t, xs, ys)
    for k, (x, y) in enumerate(pairs):
        a, b = t(x), t(y)
        for op in OPS:
            if op == "pow" and t not in FLOAT_TYPES:
                continue
            assert _same(PY_OPS[op](a, b), ref[op][k], t), (op, x, y)
        assert _same(-a, ref["neg"][k], t), ("neg", x)
        assert _same(+a, np.array(x).astype(t._np_dtype), t)


@pytest.mark.parametrize("t", INT_TYPES + FLOAT_TYPES + [wp.bfloat16], ids=lambda t: t.__name__)
def test_result_kinds_follow_warp_lang(t):
    r = t(6) + t(3)
    if t is wp.float32:
        assert type(r) is float and r == 9.0
    elif t is wp.int32:
        assert type(r) is int and r == 9
    else:
        assert type(r) is t and r == 9
    assert type(abs(t(2))) is t
    assert (t(2) < t(3)) is True and (t(3) <= t(2)) is False


@pytest.mark.parametrize("t, x, y, expected", [
    (wp.uint8, 200, 100, 44), (wp.int8, 127, 1, -128), (wp.int32, 2**31 - 1, 1, -2**31),
    (wp.uint32, 0, 1, 2**32 - 1), (wp.int64, 2**63 - 1, 1, -2**63)])
def test_integer_add_sub_wrap(t, x, y, expected):
    r = t(x) + t(y) if expected != 2**32 - 1 else t(x) - t(y)
    assert int(r) == expected


@pytest.mark.parametrize("t, x, y, div, mod, fdiv", [
    (wp.int32, -7, 3, -2, -1, -3), (wp.int32, 7, -3, -2, 1, -3), (wp.int8, 5, 0, 0, 0, 0),
    (wp.float32, -7.0, 3.0, -7.0 / 3.0, -1.0, -3.0), (wp.float64, 1.0, 0.1, 10.0, 0.1 - 0.0, 10.0)])
def test_division_rules(t, x, y, div, mod, fdiv):
    assert float(t(x) / t(y)) == pytest.approx(div, rel=1e-6)
    assert float(t(x) % t(y)) == pytest.approx(math.fmod(x, y) if y else mod, abs=1e-6)
    assert float(t(x) // t(y)) == fdiv


def test_bfloat16_rounds_once_to_bfloat16():
    r = wp.bfloat16(1.0) / wp.bfloat16(3.0)
    assert type(r) is wp.bfloat16 and float(r) == 0.333984375


@pytest.mark.parametrize("expr, exc, text", [
    (lambda: wp.float32(1) + wp.float64(1), TypeError, "'add' compatible with the arguments 'float32, float64'"),
    (lambda: wp.int8(1) + 1.5, TypeError, "'add' compatible with the arguments 'int8, float'"),
    (lambda: wp.int32(2) ** wp.int32(3), TypeError, r"\*\* or pow\(\)"),
    (lambda: wp.bool(True) + wp.bool(True), TypeError, "unsupported operand"),
    (lambda: -wp.bool(True), TypeError, "bad operand type for unary -"),
    (lambda: wp.float32(1) + wp.float64(1), RuntimeError, "compatible"),   # warp-lang's class too
])
def test_scalar_operator_errors(expr, exc, text):
    with pytest.raises(exc, match=text):
        expr()


# --- arrays ------------------------------------------------------------------------------------
ARRAY_CASES = [
    ("add", (4,), (4,)), ("sub", (2, 3), (3,)), ("mul", (2, 1, 3), (4, 1)), ("div", (3,), None),
    ("mod", (5,), None), ("pow", (3,), None), ("floordiv", (2, 2), (2, 2))]


@pytest.mark.parametrize("op, sa, sb", ARRAY_CASES)
@pytest.mark.parametrize("reflect", [False, True])
def test_array_operators_match_numpy(op, sa, sb, reflect):
    rng = np.random.default_rng(7)
    x = rng.uniform(0.5, 4.0, size=sa).astype(np.float32)
    y = rng.uniform(0.5, 4.0, size=sb).astype(np.float32) if sb else np.float32(1.75)
    a = wp.array(x)
    b = wp.array(y) if sb else wp.float32(y)
    ref_op = {"div": np.divide, "mod": np.fmod, "floordiv": lambda p, q: np.floor(p / q),
              "pow": np.power}.get(op, PY_OPS.get(op))
    got = PY_OPS[op](b, a) if reflect else PY_OPS[op](a, b)
    ref = ref_op(y, x) if reflect else ref_op(x, y)
    assert got.shape == np.broadcast_shapes(np.shape(x), np.shape(y))
    np.testing.assert_allclose(got.numpy(), ref, rtol=2e-6)


@pytest.mark.parametrize("t", [wp.int8, wp.uint16, wp.int32, wp.float16, wp.float64],
                         ids=lambda t: t.__name__)
def test_array_with_scalar_of_its_type(t):
    x = np.array([1, 2, 3], dtype=t._np_dtype)
    arr, s = wp.array(x, dtype=t), t(5)
    np.testing.assert_array_equal((arr + s).numpy(), x + x.dtype.type(5))
    np.testing.assert_array_equal((s - arr).numpy(), (x.dtype.type(5) - x).astype(x.dtype))
    np.testing.assert_array_equal((s % arr).numpy(), np.fmod(x.dtype.type(5), x).astype(x.dtype))
    np.testing.assert_array_equal((-arr).numpy(), (-x).astype(x.dtype))


def test_in_place_operators_keep_the_array():
    a = wp.array(np.arange(4, dtype=np.float32))
    same = a
    a += 1.0
    a *= wp.array(np.full(4, 2.0, dtype=np.float32))
    a -= 0.5
    assert a is same
    np.testing.assert_allclose(a.numpy(), (np.arange(4) + 1.0) * 2.0 - 0.5)


def test_array_arithmetic_gradients():
    x = wp.array(np.array([1.0, 2.0, 3.0], dtype=np.float32), requires_grad=True)
    y = wp.array(np.array([4.0, 5.0, 6.0], dtype=np.float32), requires_grad=True)
    tape = wp.Tape()
    with tape:
        z = x * y + x
    assert z.requires_grad
    tape.backward(grads={z: wp.array(np.ones(3, dtype=np.float32))})
    np.testing.assert_allclose(x.grad.numpy(), [5.0, 6.0, 7.0])
    np.testing.assert_allclose(y.grad.numpy(), [1.0, 2.0, 3.0])


@pytest.mark.parametrize("expr, exc, text", [
    (lambda: wp.zeros(3, dtype=wp.int32) + wp.float32(1), TypeError,
     "Function add does not support the provided argument types int32, float32"),
    (lambda: wp.zeros((2, 3)) + wp.zeros(2), ValueError, "do not broadcast"),
    (lambda: wp.zeros(3) + "a", TypeError, "unsupported operand"),
])
def test_array_operator_errors(expr, exc, text):
    with pytest.raises(exc, match=text):
        expr()
