"""wp.copy between arrays whose elements hold the same scalars in other shapes (float64 and
vec1d, vec4 and mat22: warp.fem's saddle-point helper copies a float64 pressure vector into a
vec1d view), as warp-lang copies them: element by element, scalars in order."""

import numpy as np
import pytest

import warp_interactive as wp


@pytest.mark.parametrize("src_t,dst_t,n", [
    (wp.float64, wp.types.vector(1, wp.float64), 1),
    (wp.types.vector(1, wp.float64), wp.float64, 1),
    (wp.vec4, wp.mat22, 4),
])
def test_copy_between_element_shapes(src_t, dst_t, n):
    values = np.arange(6 * n, dtype=np.float64).reshape((6,) + ((n,) if n > 1 or src_t != wp.float64 else ()))
    src = wp.array(values, dtype=src_t)
    dst = wp.zeros(6, dtype=dst_t)
    wp.copy(dst, src, dest_offset=1, src_offset=2, count=3)
    got = dst.numpy().reshape(6, -1)
    np.testing.assert_array_equal(got[1:4], values.reshape(6, -1)[2:5])
    assert not got[0].any() and not got[4:].any()
