"""print() / wp.print() in kernels print as the reference (warp-lang 1.19) does, checked against
its documented output: scalars with %g or as integers, booleans True/False, a vector's components
each followed by a space, a matrix one such line per row, quaternions and transforms in their own
layout, values without a print form as a placeholder; in the reverse pass the adjoint, after
``adj: ``. Also Python-scope scalars' text (``uint8(-1)`` is 255, ``float16(-1)`` prints -1)."""

import ctypes
from typing import Any

import numpy as np
import pytest

import warp_interactive as wp


@wp.struct
class Pair:
    x: float
    y: float


@wp.kernel
def print_any(x: Any):
    print(x)


def printed(capfd, fn):
    capfd.readouterr()
    fn()
    wp.synchronize()
    ctypes.CDLL(None).fflush(None)
    return capfd.readouterr().out


CASES = [
    (wp.float32(17.5), "17.5\n"),
    (wp.float64(1e20), "1e+20\n"),
    (wp.float16(0.001), "%g\n" % np.float16(0.001)),
    (wp.int8(-1), "-1\n"),
    (wp.uint8(255), "255\n"),
    (wp.int64(-2**63), "-9223372036854775808\n"),
    (wp.uint64(2**64 - 1), "18446744073709551615\n"),
    (True, "True\n"),
    (False, "False\n"),
    (wp.vec3(1.5, 2.0, 3.25), "1.5 2 3.25 \n"),
    (wp.vec2i(-1, 7), "-1 7 \n"),
    (wp.mat22(1.0, 2.0, 3.0, 4.0), "1 2 \n3 4 \n"),
    (wp.types.matrix((2, 3), wp.float64)(1, 2, 3, 4, 5, 6), "1 2 3 \n4 5 6 \n"),
    (wp.quat(0.0, 0.0, 0.0, 1.0), "0 0 0 1\n"),
    (wp.transform(wp.vec3(1.0, 2.0, 3.0), wp.quat(0.0, 0.0, 0.0, 1.0)), "(1 2 3) (0 0 0 1)\n"),
    (Pair(), "<type without print implementation>\n"),
    (wp.zeros(3, dtype=float), "<type without print implementation>\n"),
]


@pytest.mark.parametrize("value,text", CASES, ids=[t.strip().replace("\n", "|")[:20] for _, t in CASES])
def test_print_formats(capfd, value, text):
    assert printed(capfd, lambda: wp.launch(print_any, dim=1, inputs=[value])) == text


@wp.kernel
def several(x: float, v: wp.vec2, m: wp.mat22):
    print("x", x, v, "m", m)
    wp.print("100%")


def test_several_values_and_strings(capfd):
    out = printed(capfd, lambda: wp.launch(several, dim=1, inputs=[2.5, wp.vec2(1.0, 2.0), wp.mat22(1.0, 2.0, 3.0, 4.0)]))
    assert out == "x 2.5 1 2 m 1 2 \n3 4 \n100%\n"


@wp.kernel
def doubled(x: wp.array(dtype=Any), y: wp.array(dtype=Any)):
    i = wp.tid()
    v = x[i]
    print(v)
    y[i] = v * 2.0


@pytest.mark.parametrize("dtype,value,seed,forward,adjoint", [
    (wp.float32, 1.5, 1.0, "1.5\n", "adj: 2\n"),
    (wp.vec3, (1.0, 2.0, 3.0), (1.0, 2.0, 3.0), "1 2 3 \n", "adj: 2 4 6\n"),
    (wp.mat22, (1.0, 2.0, 3.0, 4.0), (1.0, 0.5, 0.25, 3.0), "1 2 \n3 4 \n", "adj: 2 1\n     0.5 6\n"),
], ids=["float32", "vec3", "mat22"])
def test_backward_prints_the_adjoint(capfd, dtype, value, seed, forward, adjoint):
    """tape.backward replays the forward (printing again) then prints the adjoint of the value:
    here 2 * the seed of y, from y = 2 * v."""
    x = wp.array([value], dtype=dtype, requires_grad=True)
    y = wp.zeros(1, dtype=dtype, requires_grad=True)
    tape = wp.Tape()
    assert printed(capfd, lambda: wp.launch(doubled, dim=1, inputs=[x, y], record_tape=False)) == forward
    with tape:
        wp.launch(doubled, dim=1, inputs=[x, y])
    capfd.readouterr()
    out = printed(capfd, lambda: tape.backward(grads={y: wp.array([seed], dtype=dtype)}))
    assert out == forward + adjoint


@wp.kernel
def only_text():
    print("no values")


def test_text_only_print_has_no_adjoint_line(capfd):
    out = printed(capfd, lambda: wp.launch(only_text, dim=1, inputs=[], adjoint=True))
    assert out == "no values\n"


@pytest.mark.parametrize("make,text", [
    (lambda: wp.bool(-1), "bool(True)"), (lambda: wp.int8(-1), "int8(-1)"),
    (lambda: wp.uint8(-1), "uint8(255)"), (lambda: wp.uint16(-1), "uint16(65535)"),
    (lambda: wp.uint32(-1), "uint32(4294967295)"), (lambda: wp.uint64(-1), "uint64(18446744073709551615)"),
    (lambda: wp.int16(70000), "int16(4464)"), (lambda: wp.float16(-1), "float16(-1)"),
    (lambda: wp.float32(2.5), "float32(2.5)"), (lambda: wp.float64(-1), "float64(-1)"),
], ids=lambda x: x if isinstance(x, str) else "")
def test_python_scope_scalar_text(make, text):
    """Integers wrap into their type's range as C does; floats keep the number given."""
    assert repr(make()) == text


@wp.kernel
def big(m: wp.spatial_matrix):
    print(m)


def test_over_32_components_print_in_several_calls(capfd):
    """Device printf takes at most 32 arguments: a 6x6 matrix is printed by two calls."""
    m = wp.spatial_matrix(*range(36))
    want = "".join(" ".join(str(6 * r + c) for c in range(6)) + " \n" for r in range(6))
    assert printed(capfd, lambda: wp.launch(big, dim=1, inputs=[m])) == want


def test_printf_argument_limit():
    @wp.kernel(module="unique")
    def too_many():
        wp.printf("%d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d "
                  "%d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d\n", 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19,
                  20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32)

    with pytest.raises(RuntimeError, match=r"the maximum number of variadic arguments that can be "
                                           r"passed to `printf` is 32$"):
        wp.launch(too_many, dim=1)
