"""Python-scope builtin calls return what warp-lang 1.19 returns: a float32 result is a Python
float, an int32 (or bool) result a Python int (bool), any other scalar type a value of that
type, with the value the kernel computes (``wp.abs(wp.int8(-3))`` is ``int8(3)``, as there)."""

import pytest

import warp_interactive as wp

CASES = [   # (call, expected type, expected value): warp-lang 1.19's results
    (lambda: wp.abs(wp.int8(-3)), wp.int8, 3),
    (lambda: wp.abs(wp.int64(-3)), wp.int64, 3),
    (lambda: wp.abs(wp.uint32(3)), wp.uint32, 3),
    (lambda: wp.min(wp.int8(-3), wp.int8(2)), wp.int8, -3),
    (lambda: wp.max(wp.uint16(3), wp.uint16(2)), wp.uint16, 3),
    (lambda: wp.clamp(wp.int16(5), wp.int16(0), wp.int16(3)), wp.int16, 3),
    (lambda: wp.abs(wp.float64(-2.0)), wp.float64, 2.0),
    (lambda: wp.sqrt(wp.float64(4.0)), wp.float64, 2.0),
    (lambda: wp.floor(wp.float16(2.5)), wp.float16, 2.0),
    (lambda: wp.length(wp.vec3d(1.0, 2.0, 2.0)), wp.float64, 3.0),
    (lambda: wp.dot(wp.vec3h(1.0, 2.0, 2.0), wp.vec3h(1.0, 1.0, 1.0)), wp.float16, 5.0),
    (lambda: wp.abs(-2.5), float, 2.5),
    (lambda: wp.min(2, 3), int, 2),
    (lambda: wp.length(wp.vec3(1.0, 2.0, 2.0)), float, 3.0),
    (lambda: wp.bit_count(wp.uint8(7)), int, 3),
]


@pytest.mark.parametrize("call,t,value", CASES, ids=range(len(CASES)))
def test_result_type_and_value(call, t, value):
    out = call()
    assert type(out) is t
    assert float(out.value if isinstance(out, wp.types.scalars.Scalar) else out) == value


def test_typed_results_keep_computing_in_their_type():
    # int8 arithmetic wraps, as in kernels (the result is an int8 value, not a Python int)
    assert wp.abs(wp.int8(-100)) + wp.int8(100) == wp.int8(-56)
