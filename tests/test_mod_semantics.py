"""``a % b`` / ``wp.mod`` in kernels are the remainder of truncated division (C's % and fmod, the
sign of a), as warp-lang documents ("Modulo operation using truncated division"); ``//`` floors.
Checked at run time and in build-time constant folding, against math.fmod / Python's //."""

import math
from typing import Any

import numpy as np
import pytest

import warp_interactive as wp

PAIRS = [(-7, 3), (7, -3), (-7, -3), (7, 3), (0, 5), (-6, 3), (5, 0)]


@wp.kernel
def int_ops(a: wp.array(dtype=int), b: wp.array(dtype=int), out: wp.array2d(dtype=int)):
    i = wp.tid()
    out[0, i] = a[i] % b[i]
    out[1, i] = wp.mod(a[i], b[i])
    out[2, i] = a[i] // b[i]


@wp.kernel
def folded(out: wp.array(dtype=int)):
    out[0] = -7 % 3
    out[1] = 7 % -3
    out[2] = -7 // 3


def c_mod(a, b):
    return 0 if b == 0 else int(math.fmod(a, b))


def test_integer_mod_truncates_and_floordiv_floors():
    a, b = (np.array(x, dtype=np.int32) for x in zip(*PAIRS))
    out = wp.zeros((3, len(PAIRS)), dtype=int)
    wp.launch(int_ops, dim=len(PAIRS), inputs=[wp.array(a), wp.array(b), out])
    want_mod = [c_mod(x, y) for x, y in PAIRS]
    want_div = [0 if y == 0 else x // y for x, y in PAIRS]      # x // 0 is 0 here (never traps)
    np.testing.assert_array_equal(out.numpy(), [want_mod, want_mod, want_div])
    f = wp.zeros(3, dtype=int)
    wp.launch(folded, dim=1, inputs=[f])
    assert f.numpy().tolist() == [-1, 1, -3]
    assert wp.mod(-7, 3) == -1                                   # Python scope: the same


@wp.kernel
def float_ops(a: wp.array(dtype=Any), b: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    i = wp.tid()
    out[i] = a[i] % b[i]


@pytest.mark.parametrize("dtype", [wp.float16, wp.bfloat16, wp.float32, wp.float64])
def test_float_mod_is_fmod(dtype):
    a = np.array([-1.75, 1.75, -0.25, 2.5, -3.0], dtype=np.float32)
    b = np.array([1.0, -1.0, 1.0, 1.0, 2.0], dtype=np.float32)
    out = wp.zeros(len(a), dtype=dtype)
    wp.launch(float_ops, dim=len(a), inputs=[wp.array(a, dtype=dtype), wp.array(b, dtype=dtype), out])
    np.testing.assert_array_equal(np.asarray(out.list(), dtype=np.float64), np.fmod(a, b))
