"""Behaviours Warp code relies on, checked against warp-lang 1.19's documented behaviour: arrays
from flat data, str/repr of values, ``wp.transform()`` defaults, composite attribute assignment in
kernels, ``wp.transformation`` and ``wp.types.vector(...)`` as constructors in kernels, array
truthiness, struct constants, nested tapes, bare builtin names, ``wp.types`` introspection."""

import numpy as np
import pytest

import warp_interactive as wp


@pytest.mark.parametrize("data, dtype, shape", [
    (np.arange(7.0), wp.transformf, (1,)),
    ([1.0, 2.0, 3.0], wp.vec3, (1,)),
    (np.zeros(6), wp.vec3, (2,)),
    (np.zeros((4, 3, 1)), wp.vec3, (4,)),
    (np.zeros((4, 3)), wp.vec3, (4,)),
    (np.zeros((5, 9)), wp.mat33, (5,)),
    (np.zeros((5, 3, 3)), wp.mat33, (5,)),
    (np.zeros(4), wp.mat22, (1,)),
    (np.zeros((2, 8)), wp.mat22, (2, 2)),
    (np.zeros((3, 12)), wp.vec4, (3, 3)),
    (np.zeros(4), wp.quat, (1,)),
])
def test_arrays_from_flat_data(data, dtype, shape):
    a = wp.array(data, dtype=dtype)
    assert a.shape == shape
    np.testing.assert_array_equal(a.numpy().reshape(-1), np.asarray(data, dtype=float).reshape(-1))


@pytest.mark.parametrize("data, dtype", [(np.zeros(5), wp.vec3), (np.zeros((2, 2)), wp.vec3)])
def test_flat_data_that_does_not_divide_is_refused(data, dtype):
    with pytest.raises(ValueError, match=r"does not fit dtype vec3f.*multiple of 3"):
        wp.array(data, dtype=dtype)


def test_shape_argument_reshapes_data():
    a = wp.array(np.arange(12.0), dtype=wp.vec3, shape=(2, 2))
    assert a.shape == (2, 2)
    np.testing.assert_array_equal(a.numpy()[1, 1], [9.0, 10.0, 11.0])


@pytest.mark.parametrize("value, s, r", [
    (wp.vec3(1.0, 2.0, 3.0), "[1.0, 2.0, 3.0]", "vec3f([1.0, 2.0, 3.0])"),
    (wp.vec2i(1, 2), "[1, 2]", "vec2i([1, 2])"),
    (wp.mat22(1.0, 2.0, 3.0, 4.0), "[[1.0, 2.0],\n [3.0, 4.0]]", "mat22f([[1.0, 2.0], [3.0, 4.0]])"),
    (wp.quat(0.0, 0.0, 0.0, 1.0), "[0.0, 0.0, 0.0, 1.0]", "quatf([0.0, 0.0, 0.0, 1.0])"),
    (wp.float32(1.5), "1.5", "float32(1.5)"),
    (wp.int8(-3), "-3", "int8(-3)"),
])
def test_str_and_repr_as_the_reference(value, s, r):
    assert str(value) == s
    assert repr(value) == r


def test_transform_defaults_and_keywords():
    np.testing.assert_array_equal(np.array(wp.transformf()), [0, 0, 0, 0, 0, 0, 1])
    np.testing.assert_array_equal(np.array(wp.transform(p=wp.vec3(1.0, 2.0, 3.0))), [1, 2, 3, 0, 0, 0, 1])
    t = wp.transform(wp.vec3(1.0, 2.0, 3.0), q=wp.quat(0.0, 1.0, 0.0, 0.0))
    np.testing.assert_array_equal(np.array(t), [1, 2, 3, 0, 1, 0, 0])
    np.testing.assert_array_equal(np.array(wp.quat()), [0, 0, 0, 0])     # as the reference
    with pytest.raises(TypeError, match="unexpected keyword"):
        wp.vec3(x=1.0)


@pytest.mark.parametrize("dtype", [wp.float32, wp.float64, wp.float16], ids=lambda t: t.__name__)
def test_python_transformation(dtype):
    t = wp.transformation(wp.types.vector(3, dtype)(1, 2, 3), wp.types.quaternion(dtype)(0, 0, 0, 1))
    assert type(t) is wp.types.transformation(dtype)
    np.testing.assert_array_equal(t.numpy_view(), [1, 2, 3, 0, 0, 0, 1])
    assert type(wp.transformation(dtype=dtype)) is wp.types.transformation(dtype)


@wp.kernel(module="wpi_test_compat_attrs")
def set_parts(p: wp.vec3, q: wp.quat, out: wp.array(dtype=wp.transform), vs: wp.array(dtype=wp.vec3),
              qs: wp.array(dtype=wp.quat)):
    t = wp.transformation(wp.vec3(9.0, 9.0, 9.0), wp.quat_identity(), dtype=float)
    t.p = p
    t.q = q
    out[0] = t
    v = vs[0]
    v.x = 1.0
    v.z = v.y + 2.0
    vs[0] = v
    r = qs[0]
    r.w = 0.5
    qs[0] = r
    out[1] = wp.types.transformation(wp.types.vector(1.0, 2.0, 3.0), wp.types.quaternion(0.0, 0.0, 0.0, 1.0))


def test_composite_attribute_assignment_in_kernels():
    out = wp.zeros(2, dtype=wp.transform)
    vs = wp.array([[0.0, 5.0, 0.0]], dtype=wp.vec3)
    qs = wp.zeros(1, dtype=wp.quat)
    wp.launch(set_parts, 1, [wp.vec3(1.0, 2.0, 3.0), wp.quat(0.0, 0.6, 0.0, 0.8), out, vs, qs])
    np.testing.assert_allclose(out.numpy()[0], [1, 2, 3, 0, 0.6, 0, 0.8], rtol=1e-6)
    np.testing.assert_array_equal(out.numpy()[1], [1, 2, 3, 0, 0, 0, 1])
    np.testing.assert_array_equal(vs.numpy()[0], [1.0, 5.0, 7.0])
    np.testing.assert_array_equal(qs.numpy()[0], [0, 0, 0, 0.5])


@wp.kernel(module="wpi_test_compat_truth")
def truthiness(maybe: wp.array(dtype=float), out: wp.array(dtype=int)):
    if maybe:
        out[0] = 1
    if not maybe:
        out[1] = 1
    expect_eq(out[2], 0)   # noqa: F821  (a bare builtin name, as the reference allows)


@pytest.mark.parametrize("given, expected", [(None, [0, 1]), ("array", [1, 0])])
def test_array_truthiness_in_kernels(given, expected):
    out = wp.zeros(3, dtype=int)
    maybe = wp.zeros(4, dtype=float) if given == "array" else None
    wp.launch(truthiness, 1, [maybe, out])
    np.testing.assert_array_equal(out.numpy()[:2], expected)


@wp.struct
class Pose:
    m: wp.mat22
    v: wp.vec3
    n: int


POSE = Pose()
POSE.m = wp.mat22(1.0, 2.0, 3.0, 4.0)
POSE.v = wp.vec3(5.0, 6.0, 7.0)
POSE.n = 8


@wp.kernel(module="wpi_test_compat_struct_const")
def struct_constant(out: wp.array(dtype=Pose)):
    out[0] = POSE
    out[1] = wp.static(POSE)


def test_struct_constants_in_kernels():
    out = wp.zeros(2, dtype=Pose)
    wp.launch(struct_constant, 1, [out])
    for row in out.numpy():
        np.testing.assert_array_equal(row[0], [[1, 2], [3, 4]])
        np.testing.assert_array_equal(row[1], [5, 6, 7])
        assert row[2] == 8


def test_nested_tapes_raise():
    with wp.Tape():
        with pytest.raises(RuntimeError, match="entering a tape while one is already active"):
            with wp.Tape():
                pass
    with wp.Tape():      # the outer one ended cleanly: a new one records
        pass


@pytest.mark.parametrize("t, name, size, nbytes", [
    (wp.vec3, "vec3f", 3, 12), (wp.vec3d, "vec3d", 3, 24), (wp.mat33, "mat33f", 9, 36),
    (wp.mat22h, "mat22h", 4, 8), (wp.quatd, "quatd", 4, 32), (wp.transformh, "transformh", 7, 14),
    (wp.types.vector(5, wp.float32), "vector(length=5, dtype=float32)", 5, 20),
    (wp.types.matrix((2, 5), wp.float64), "matrix(shape=(2, 5), dtype=float64)", 10, 80),
    (wp.float32, "float32", 1, 4), (wp.uint8, "uint8", 1, 1), (float, "float32", 1, 4),
    (wp.array(dtype=wp.vec3, ndim=2), "array(ndim=2, dtype=vec3f)", 1, None),
])
def test_type_introspection(t, name, size, nbytes):
    assert wp.types.type_repr(t) == name
    if nbytes is not None:
        assert wp.types.type_size(t) == size
        assert wp.types.type_size_in_bytes(t) == nbytes


@pytest.mark.parametrize("a, b, equal", [
    (wp.vec3, wp.vec3f, True), (float, wp.float32, True), (int, wp.int32, True),
    (wp.vec3, wp.vec3d, False), (wp.mat22, wp.vec4, False),
    (wp.array(dtype=float), wp.array(dtype=wp.float32), True),
    (wp.array(dtype=float), wp.array(dtype=float, ndim=2), False),
])
def test_types_equal(a, b, equal):
    assert wp.types.types_equal(a, b) is equal


def test_type_predicates():
    assert wp.types.type_is_vector(wp.vec3) and not wp.types.type_is_vector(wp.mat33)
    assert wp.types.type_is_matrix(wp.mat33) and wp.types.type_is_quaternion(wp.quat)
    assert wp.types.type_is_transformation(wp.transform) and wp.types.type_is_int(wp.int8)
    assert wp.types.type_is_float(float) and not wp.types.type_is_float(wp.int64)
    assert wp.types.is_vector(wp.vec3()) and wp.types.is_array(wp.zeros(1))
