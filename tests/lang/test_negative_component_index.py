"""Constant negative component indices count from the end, as in Python and the reference
(``v[-1]``, ``m[-1, -2]``, ``t[-1] = x`` on transforms): read and written, against NumPy's own
negative indexing of the same values. Past either end is a build error: test_reliability_language."""

import numpy as np

import warp_interactive as wp


@wp.kernel
def read_negative(v: wp.array(dtype=wp.vec3), m: wp.array(dtype=wp.mat33), q: wp.array(dtype=wp.quat),
                  out: wp.array(dtype=float)):
    out[0] = v[0][-1]
    out[1] = v[0][-3]
    out[2] = m[0][-1, -2]
    out[3] = m[0][-3, 0]
    out[4] = q[0][-1]
    r = m[0][-1]
    out[5] = r[-2]


@wp.kernel
def write_negative(v: wp.array(dtype=wp.vec3), m: wp.array(dtype=wp.mat33), t: wp.array(dtype=wp.transform)):
    a = v[0]
    a[-1] = 10.0
    a[-3] += 5.0
    v[0] = a
    b = m[0]
    b[-1, -1] = 7.0
    b[0, -2] = 8.0
    m[0] = b
    c = t[0]
    c[-1] = 123.0
    t[0] = c


def test_negative_constant_indices_read_from_the_end():
    vn = np.array([[1.0, 2.0, 3.0]], dtype=np.float32)
    mn = np.arange(9, dtype=np.float32).reshape(1, 3, 3)
    qn = np.array([[0.1, 0.2, 0.3, 0.9]], dtype=np.float32)
    out = wp.zeros(6, dtype=float)
    wp.launch(read_negative, dim=1, inputs=[wp.array(vn, dtype=wp.vec3), wp.array(mn, dtype=wp.mat33),
                                            wp.array(qn, dtype=wp.quat), out])
    expect = [vn[0][-1], vn[0][-3], mn[0][-1, -2], mn[0][-3, 0], qn[0][-1], mn[0][-1][-2]]
    np.testing.assert_array_equal(out.numpy(), np.array(expect, dtype=np.float32))


def test_negative_constant_indices_write_from_the_end():
    vn = np.array([[1.0, 2.0, 3.0]], dtype=np.float32)
    mn = np.arange(9, dtype=np.float32).reshape(1, 3, 3)
    tn = np.arange(7, dtype=np.float32).reshape(1, 7)
    v, m, t = wp.array(vn, dtype=wp.vec3), wp.array(mn, dtype=wp.mat33), wp.array(tn, dtype=wp.transform)
    wp.launch(write_negative, dim=1, inputs=[v, m, t])
    vn[0][-1] = 10.0
    vn[0][-3] += 5.0
    mn[0][-1, -1] = 7.0
    mn[0][0, -2] = 8.0
    tn[0][-1] = 123.0
    np.testing.assert_array_equal(v.numpy(), vn)
    np.testing.assert_array_equal(m.numpy(), mn)
    np.testing.assert_array_equal(t.numpy(), tn)

