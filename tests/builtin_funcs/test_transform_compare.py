"""``==`` and ``!=`` on transforms in kernels, as on the other composites (the reference's
test_spatial compares transforms in every kernel of its module)."""

import numpy as np
import pytest

import warp_interactive as wp


@wp.kernel
def compare(a: wp.array(dtype=wp.transform), b: wp.array(dtype=wp.transform), out: wp.array(dtype=int)):
    i = wp.tid()
    out[2 * i] = int(a[i] == b[i])
    out[2 * i + 1] = int(a[i] != b[i])


@pytest.mark.parametrize("component", [None, 0, 2, 3, 6])
def test_transform_equality_against_numpy(component):
    an = np.arange(7, dtype=np.float32).reshape(1, 7)
    bn = an.copy()
    if component is not None:
        bn[0, component] += 0.5
    out = wp.zeros(2, dtype=int)
    wp.launch(compare, dim=1, inputs=[wp.array(an, dtype=wp.transform), wp.array(bn, dtype=wp.transform), out])
    same = bool(np.array_equal(an, bn))
    assert out.numpy().tolist() == [int(same), int(not same)]
