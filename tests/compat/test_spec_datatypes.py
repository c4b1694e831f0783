"""The examples of the runtime reference's data-type sections (vectors, matrices, quaternions,
transforms), with their statements as written, each result checked against NumPy/SciPy.

Where the reference writes ``def compute( ... ):`` the kernel here takes output arrays, and the
results the example computes are stored for checking. One module, compiled once.
"""

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import warp_interactive as wp

# --- vectors ---------------------------------------------------------------------------------------
# declare a new vector type for holding 5 double precision floats:
vec5d = wp.types.vector(length=5, dtype=wp.float64)


@wp.kernel
def vector_basics(out_c: wp.array(dtype=wp.vec3), out_r: wp.array(dtype=float)):
    # basis vectors
    a = wp.vec3(1.0, 0.0, 0.0)
    b = wp.vec3(0.0, 1.0, 0.0)

    # take the cross product
    c = wp.cross(a, b)

    # compute
    r = wp.dot(c, c)

    out_c[0] = c
    out_r[0] = r


@wp.kernel
def vector_named(out: wp.array(dtype=vec5d)):
    # zero initialize a custom named vector type
    v = vec5d()
    out[0] = v

    # component-wise initialize a named vector type
    v = vec5d(wp.float64(1.0),
              wp.float64(2.0),
              wp.float64(3.0),
              wp.float64(4.0),
              wp.float64(5.0))
    out[1] = v


@wp.kernel
def vector_anonymous(out: wp.array(dtype=vec5d)):
    # zero initialize vector of 5 doubles:
    v = wp.vector(dtype=wp.float64, length=5)
    out[0] = v

    # scalar initialize a vector of 5 doubles to the same value:
    v = wp.vector(wp.float64(1.0), length=5)
    out[1] = v

    # component-wise initialize a vector of 5 doubles
    v = wp.vector(wp.float64(1.0),
                  wp.float64(2.0),
                  wp.float64(3.0),
                  wp.float64(4.0),
                  wp.float64(5.0))
    out[2] = v


# --- matrices -------------------------------------------------------------------------------------------
@wp.kernel
def matrix_inverse(out: wp.array(dtype=wp.vec2), out_m: wp.array(dtype=wp.mat22)):
    # initialize matrix
    m = wp.mat22(1.0, 2.0,
                 3.0, 4.0)

    # compute inverse
    minv = wp.inverse(m)

    # transform vector
    v = minv * wp.vec2(0.5, 0.3)

    out[0] = v
    out_m[0] = minv


# the reference declares this type with dtype=wp.float64 but builds it from float16 values (its
# comment says "half precision"); with no implicit conversion, the half type is what runs
mat32h = wp.types.matrix(shape=(3, 2), dtype=wp.float16)


@wp.kernel
def matrix_32h(out_m: wp.array(dtype=mat32h), out_v: wp.array(dtype=wp.vec3h)):
    # initialize a mat32h matrix
    m = mat32h(wp.float16(1.0), wp.float16(2.0),
               wp.float16(3.0), wp.float16(4.0),
               wp.float16(5.0), wp.float16(6.0))

    # declare a 2 component half precision vector
    v2 = wp.vec2h(wp.float16(1.0), wp.float16(1.0))

    # multiply by the matrix, returning a 3 component vector:
    v3 = m * v2
    out_m[0] = m
    out_v[0] = v3


mat55d = wp.types.matrix(shape=(5, 5), dtype=wp.float64)


@wp.kernel
def matrix_anonymous(out_m: wp.array(dtype=mat32h), out_i: wp.array(dtype=mat55d)):
    # create a 3x2 half precision matrix from components (row major ordering):
    m = wp.matrix(
        wp.float16(1.0), wp.float16(2.0),
        wp.float16(1.0), wp.float16(2.0),
        wp.float16(1.0), wp.float16(2.0),
        shape=(3, 2))
    out_m[0] = m

    # zero initialize a 3x2 half precision matrix:
    m = wp.matrix(wp.float16(0.0), shape=(3, 2))
    out_m[1] = m

    # create a 5x5 double precision identity matrix (another name: as warp-lang, a name keeps
    # one type in a kernel, so the docs' `m = wp.identity(...)` here is refused):
    ident = wp.identity(n=5, dtype=wp.float64)
    out_i[0] = ident


# --- quaternions -------------------------------------------------------------------------------------------
quatd = wp.types.quaternion(dtype=wp.float64)


@wp.kernel
def quaternion_rotate(out_q: wp.array(dtype=wp.quat), out_v: wp.array(dtype=wp.vec3)):
    # construct a 30 degree rotation around the x-axis
    q = wp.quat_from_axis_angle(wp.vec3(1.0, 0.0, 0.0), wp.degrees(30.0))

    # rotate an axis by this quaternion
    v = wp.quat_rotate(q, wp.vec3(0.0, 1.0, 0.0))
    out_q[0] = q
    out_v[0] = v


@wp.kernel
def quaternion_identity(out_d: wp.array(dtype=quatd), out_f: wp.array(dtype=wp.quat),
                        out_h: wp.array(dtype=wp.quath)):
    # create a double precision identity quaternion:
    qd = wp.quat_identity(dtype=wp.float64)

    # precision defaults to wp.float32 so this creates a single precision identity quaternion:
    qf = wp.quat_identity()

    # create a half precision quaternion from components, or a vector/scalar:
    qh = wp.quaternion(wp.float16(0.0),
                       wp.float16(0.0),
                       wp.float16(0.0),
                       wp.float16(1.0))
    out_h[0] = qh

    qh = wp.quaternion(
        wp.vector(wp.float16(0.0), wp.float16(0.0), wp.float16(0.0)),
        wp.float16(1.0))
    out_d[0] = qd
    out_f[0] = qf
    out_h[1] = qh


# --- transforms ------------------------------------------------------------------------------------------------
transformd = wp.types.transformation(dtype=wp.float64)


@wp.kernel
def transform_apply(out_t: wp.array(dtype=wp.transform), out_p: wp.array(dtype=wp.vec3)):
    # create a transform from a vector/quaternion:
    t = wp.transform(
        wp.vec3(1.0, 2.0, 3.0),
        wp.quat_from_axis_angle(0.0, 1.0, 0.0, wp.degrees(30.0)))

    # transform a point
    p = wp.transform_point(t, wp.vec3(10.0, 0.5, 1.0))
    out_p[0] = p

    # transform a vector (ignore translation)
    p = wp.transform_vector(t, wp.vec3(10.0, 0.5, 1.0))
    out_p[1] = p
    out_t[0] = t


@wp.kernel
def transform_identity_kernel(out: wp.array(dtype=transformd)):
    # create double precision identity transform:
    qd = wp.transform_identity(dtype=wp.float64)
    out[0] = qd


def same_sign(q, ref):
    """q and -q are the same rotation: compare with the reference's sign."""
    return (q if np.dot(q, ref) >= 0 else -q), ref


def _launch(kernel, *outs):
    """Launch on the default device: tests take the `device` fixture, which makes its device the
    default, so the examples' arrays created without device= land there too."""
    wp.launch(kernel, dim=1, inputs=list(outs))
    return [o.numpy() for o in outs]


def test_vectors(device):
    c, r = _launch(vector_basics, wp.zeros(1, dtype=wp.vec3), wp.zeros(1, dtype=float))
    np.testing.assert_array_equal(c[0], np.cross([1, 0, 0], [0, 1, 0]))
    assert r[0] == 1.0
    # create an array of vec5d
    arr = wp.zeros(10, dtype=vec5d)
    assert arr.numpy().shape == (10, 5) and arr.numpy().dtype == np.float64
    (named,) = _launch(vector_named, wp.zeros(2, dtype=vec5d))
    np.testing.assert_array_equal(named, [[0] * 5, [1, 2, 3, 4, 5]])
    (anon,) = _launch(vector_anonymous, wp.zeros(3, dtype=vec5d))
    np.testing.assert_array_equal(anon, [[0] * 5, [1] * 5, [1, 2, 3, 4, 5]])


def test_matrices(device):
    v, minv = _launch(matrix_inverse, wp.zeros(1, dtype=wp.vec2), wp.zeros(1, dtype=wp.mat22))
    ref_inv = np.linalg.inv([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_allclose(minv[0], ref_inv, rtol=1e-6)
    np.testing.assert_allclose(v[0], ref_inv @ [0.5, 0.3], rtol=1e-6)


def test_matrix_3x2_and_declaration(device):
    # declare a new 3x2 half precision float matrix type (as the reference writes it)
    mat32h_doc = wp.types.matrix(shape=(3, 2), dtype=wp.float64)
    # create an array of this type
    a = wp.zeros(10, dtype=mat32h_doc)
    assert a.shape == (10,) and a.numpy().shape == (10, 3, 2) and a.numpy().dtype == np.float64
    a = wp.zeros(10, dtype=mat32h)
    assert a.numpy().shape == (10, 3, 2) and a.numpy().dtype == np.float16
    m, v3 = _launch(matrix_32h, wp.zeros(1, dtype=mat32h), wp.zeros(1, dtype=wp.vec3h))
    ref = np.arange(1.0, 7.0).reshape(3, 2)
    np.testing.assert_array_equal(m[0], ref)
    np.testing.assert_array_equal(v3[0], ref @ [1.0, 1.0])
    assert v3.dtype == np.float16


def test_matrix_anonymous_and_5x5_identity(device):
    m, ident = _launch(matrix_anonymous, wp.zeros(2, dtype=mat32h), wp.zeros(1, dtype=mat55d))
    np.testing.assert_array_equal(m[0], [[1, 2]] * 3)
    np.testing.assert_array_equal(m[1], np.zeros((3, 2)))
    np.testing.assert_array_equal(ident[0], np.eye(5))
    assert ident.dtype == np.float64


def test_quaternions(device):
    q, v = _launch(quaternion_rotate, wp.zeros(1, dtype=wp.quat), wp.zeros(1, dtype=wp.vec3))
    # the reference's comment says "30 degree", but wp.degrees(30.0) converts 30 radians to
    # degrees: the angle the example passes is 1718.87 (radians), and that is what we check
    rot = Rotation.from_rotvec([np.degrees(30.0), 0.0, 0.0])
    np.testing.assert_allclose(*same_sign(q[0], rot.as_quat()), rtol=1e-4, atol=1e-4)  # (i, j, k, w)
    np.testing.assert_allclose(v[0], rot.apply([0.0, 1.0, 0.0]), rtol=1e-4, atol=1e-4)
    assert quatd._wp_scalar_type_ is wp.float64
    qd, qf, qh = _launch(quaternion_identity, wp.zeros(1, dtype=quatd), wp.zeros(1, dtype=wp.quat),
                         wp.zeros(2, dtype=wp.quath))
    for arr, dt in ((qd, np.float64), (qf, np.float32), (qh, np.float16)):
        assert arr.dtype == dt
        np.testing.assert_array_equal(arr, np.tile([0, 0, 0, 1], (len(arr), 1)))


def test_transforms(device):
    t, p = _launch(transform_apply, wp.zeros(1, dtype=wp.transform), wp.zeros(2, dtype=wp.vec3))
    rot = Rotation.from_rotvec([0.0, np.degrees(30.0), 0.0])   # as above: 1718.87 radians
    np.testing.assert_array_equal(t[0][:3], [1, 2, 3])
    np.testing.assert_allclose(*same_sign(t[0][3:], rot.as_quat()), rtol=1e-4, atol=1e-4)
    x = np.array([10.0, 0.5, 1.0])
    np.testing.assert_allclose(p[0], rot.apply(x) + [1, 2, 3], rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(p[1], rot.apply(x), rtol=1e-4, atol=1e-4)
    (ident,) = _launch(transform_identity_kernel, wp.zeros(1, dtype=transformd))
    assert ident.dtype == np.float64
    np.testing.assert_array_equal(ident[0], [0, 0, 0, 0, 0, 0, 1])


@pytest.mark.parametrize("values, dtype", [([1.0, 2.0, 3.0], wp.vec3), ([1, 2, 3, 4], wp.vec4)])
def test_vector_arrays_from_numpy(values, dtype, device):
    """Arrays of vectors round-trip NumPy data (the vectors section's array example)."""
    r = np.tile(values, (4, 1)).astype(np.float32)
    a = wp.array(r, dtype=dtype)
    np.testing.assert_array_equal(a.numpy(), r)


def test_generic_types_python_scope():
    assert wp.types.vector(length=5, dtype=wp.float64) is vec5d
    assert wp.types.vector(length=3, dtype=wp.float32) is wp.vec3
    assert vec5d(1.0, 2.0, 3.0, 4.0, 5.0)[4] == 5.0
    v = wp.vector(wp.float64(1.0), length=5)
    assert type(v) is vec5d and list(v) == [1.0] * 5
    assert quatd is wp.quatd and transformd is wp.transformd


# --- explicit conversions between element types (no implicit ones) ----------------------------------------
vec3i = wp.types.vector(length=3, dtype=wp.int32)


@wp.kernel
def conversions(v: wp.array(dtype=wp.vec3), m: wp.array(dtype=wp.mat22), q: wp.array(dtype=wp.quat),
                out_d: wp.array(dtype=wp.vec3d), out_i: wp.array(dtype=vec3i), out_h: wp.array(dtype=wp.vec3h),
                out_m: wp.array(dtype=wp.mat22d), out_q: wp.array(dtype=wp.quatd), out_f: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    out_d[i] = wp.vec3d(v[i])
    out_i[i] = vec3i(v[i])
    out_h[i] = wp.vec3h(v[i])
    out_m[i] = wp.mat22d(m[i])
    out_q[i] = wp.quatd(q[i])
    out_f[i] = wp.vec3(v[i][1])      # fill from one scalar


def test_explicit_conversions(device):
    rng = np.random.default_rng(3)
    v = rng.uniform(-5, 5, (8, 3)).astype(np.float32)
    m = rng.uniform(-5, 5, (8, 2, 2)).astype(np.float32)
    q = rng.uniform(-1, 1, (8, 4)).astype(np.float32)
    outs = [wp.zeros(8, dtype=t) for t in (wp.vec3d, vec3i, wp.vec3h, wp.mat22d, wp.quatd, wp.vec3)]
    wp.launch(conversions, dim=8, inputs=[wp.array(v, dtype=wp.vec3), wp.array(m, dtype=wp.mat22),
                                          wp.array(q, dtype=wp.quat)] + outs)
    d, iv, h, md, qd, f = [o.numpy() for o in outs]
    np.testing.assert_array_equal(d, v.astype(np.float64))
    np.testing.assert_array_equal(iv, np.trunc(v).astype(np.int32))     # C conversion: towards zero
    np.testing.assert_array_equal(h, v.astype(np.float16))              # round to nearest even
    np.testing.assert_array_equal(md, m.astype(np.float64))
    np.testing.assert_array_equal(qd, q.astype(np.float64))
    np.testing.assert_array_equal(f, np.repeat(v[:, 1:2], 3, axis=1))
