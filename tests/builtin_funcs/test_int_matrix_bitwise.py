"""Bitwise operators on integer matrices (component-wise, as warp-lang 1.19) and atomic
and/or/xor into arrays of them, against NumPy."""

import numpy as np
import pytest

import warp_interactive as wp

mat33ui = wp.types.matrix(shape=(3, 3), dtype=wp.uint32)
mat22i = wp.types.matrix(shape=(2, 2), dtype=wp.int32)


@wp.kernel
def _ops(a: wp.array(dtype=mat22i), b: wp.array(dtype=mat22i), out: wp.array2d(dtype=mat22i)):
    i = wp.tid()
    x, y = a[i], b[i]
    out[i, 0] = x & y
    out[i, 1] = x | y
    out[i, 2] = x ^ y
    out[i, 3] = ~x
    out[i, 4] = x << mat22i(3)
    out[i, 5] = x >> mat22i(2)


def test_operators_match_numpy():
    rng = np.random.default_rng(5)
    a = rng.integers(-2**20, 2**20, (16, 2, 2), dtype=np.int32)
    b = rng.integers(-2**20, 2**20, (16, 2, 2), dtype=np.int32)
    out = wp.zeros((16, 6), dtype=mat22i, device="cpu")
    wp.launch(_ops, 16, inputs=[wp.array(a, dtype=mat22i, device="cpu"), wp.array(b, dtype=mat22i, device="cpu"), out],
              device="cpu")
    got = out.numpy()
    for k, want in enumerate([a & b, a | b, a ^ b, ~a, a << 3, a >> 2]):
        np.testing.assert_array_equal(got[:, k], want, err_msg=str(k))


@wp.kernel
def _atomics(a: wp.array(dtype=mat33ui), b: wp.array(dtype=mat33ui), op: int):
    i = wp.tid()
    w = i // 32
    mask = mat33ui(wp.uint32(1)) << mat33ui(wp.uint32(i % 32))
    if op == 0:
        wp.atomic_and(a, w, (b[w] & mask) | ~mask)
    elif op == 1:
        wp.atomic_or(a, w, b[w] & mask)
    elif op == 2:
        wp.atomic_xor(a, w, b[w] & mask)
    elif op == 3:
        a[w] &= (b[w] & mask) | ~mask
    elif op == 4:
        a[w] |= b[w] & mask
    else:
        a[w] ^= b[w] & mask


@pytest.mark.parametrize("op, ref", [(0, np.bitwise_and), (1, np.bitwise_or), (2, np.bitwise_xor),
                                     (3, np.bitwise_and), (4, np.bitwise_or), (5, np.bitwise_xor)])
def test_bitwise_atomics_on_matrix_arrays(op, ref):
    """Each of 32 threads per matrix sets one bit of every component: only atomic
    read-modify-writes give the whole combination."""
    rng = np.random.default_rng(op)
    a = rng.integers(0, 2**32, (64, 3, 3), dtype=np.uint32)
    b = rng.integers(0, 2**32, (64, 3, 3), dtype=np.uint32)
    arr = wp.array(a, dtype=mat33ui, device="cpu")
    wp.launch(_atomics, 64 * 32, inputs=[arr, wp.array(b, dtype=mat33ui, device="cpu"), op], device="cpu")
    np.testing.assert_array_equal(arr.numpy(), ref(a, b))
