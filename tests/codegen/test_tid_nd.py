"""Thread indices of multi-dimensional CPU launches (core.h tid_nd, 32-bit division below 2^31):
every thread's (i, j[, k[, l]]) equals NumPy's unravel_index of its linear index, for shapes with
odd sizes, ones and a leading dimension larger than the others."""

import numpy as np
import pytest

import warp_interactive as wp


@wp.kernel
def tn_2d(out: wp.array2d(dtype=wp.vec4i)):
    i, j = wp.tid()
    out[i, j] = wp.vec4i(i, j, 0, 0)


@wp.kernel
def tn_3d(out: wp.array3d(dtype=wp.vec4i)):
    i, j, k = wp.tid()
    out[i, j, k] = wp.vec4i(i, j, k, 0)


@wp.kernel
def tn_4d(out: wp.array4d(dtype=wp.vec4i)):
    i, j, k, l = wp.tid()
    out[i, j, k, l] = wp.vec4i(i, j, k, l)


@wp.kernel
def tn_leading(out: wp.array3d(dtype=int)):
    i, j = wp.tid()            # the two leading indices of a 3-D launch (4 threads each)
    wp.atomic_add(out, i, j, 0, i)
    wp.atomic_add(out, i, j, 1, j)
    wp.atomic_add(out, i, j, 2, 1)


KERNELS = {2: tn_2d, 3: tn_3d, 4: tn_4d}


@pytest.mark.parametrize("shape", [(7, 13), (1, 300), (300, 1), (1031, 3), (5, 6, 7), (2, 1, 9), (3, 4, 5, 6),
                                   (1, 7, 1, 11)], ids=str)
def test_indices_match_unravel_index(shape):
    out = wp.zeros(shape, dtype=wp.vec4i, device="cpu")
    wp.launch(KERNELS[len(shape)], dim=shape, inputs=[out], device="cpu")
    got = out.numpy()
    want = np.stack(np.unravel_index(np.arange(int(np.prod(shape))), shape), axis=-1).reshape(shape + (len(shape),))
    np.testing.assert_array_equal(got[..., :len(shape)], want)


def test_leading_indices_of_a_longer_launch():
    out = wp.zeros((6, 5, 3), dtype=int, device="cpu")
    wp.launch(tn_leading, dim=(6, 5, 4), inputs=[out], device="cpu")
    got = out.numpy()
    i, j = np.meshgrid(np.arange(6), np.arange(5), indexing="ij")
    np.testing.assert_array_equal(got[..., 0], 4 * i)
    np.testing.assert_array_equal(got[..., 1], 4 * j)
    np.testing.assert_array_equal(got[..., 2], 4)
