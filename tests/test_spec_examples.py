"""The code examples of the runtime reference (spec files 003 and 004), run as written where they
run on the CPU, each checked against NumPy. Examples that name device="cuda" run on the CPU here
and, through the ``device`` fixture, on every available device."""

import ctypes
import math

import numpy as np
import pytest

import warp_interactive as wp


def flush_c_stdio():
    ctypes.CDLL(None).fflush(None)


# --- Kernels ------------------------------------------------------------------------------------
@wp.kernel
def simple_kernel(a: wp.array(dtype=wp.vec3),
                  b: wp.array(dtype=wp.vec3),
                  c: wp.array(dtype=float)):

    # get thread index
    tid = wp.tid()

    # load two vec3s
    x = a[tid]
    y = b[tid]

    # compute the dot product between vectors
    r = wp.dot(x, y)

    # write result back to memory
    c[tid] = r


def _simple_inputs(device, n=1024):
    rng = np.random.default_rng(1)
    a_np = rng.random((n, 3), dtype=np.float32)
    b_np = rng.random((n, 3), dtype=np.float32)
    a = wp.array(a_np, dtype=wp.vec3, device=device)
    b = wp.array(b_np, dtype=wp.vec3, device=device)
    c = wp.zeros(n, dtype=float, device=device)
    return a_np, b_np, a, b, c


def test_simple_kernel_cpu():
    a_np, b_np, a, b, c = _simple_inputs("cpu")
    wp.launch(kernel=simple_kernel, dim=1024, inputs=[a, b, c], device="cpu")
    np.testing.assert_allclose(c.numpy(), np.sum(a_np * b_np, axis=1), rtol=1e-6)


def test_simple_kernel_launch_on_device(device):
    # 004: wp.launch(simple_kernel, dim=1024, inputs=[a, b, c], device="cuda")
    a_np, b_np, a, b, c = _simple_inputs(device)
    wp.launch(simple_kernel, dim=1024, inputs=[a, b, c], device=device)
    np.testing.assert_allclose(c.numpy(), np.sum(a_np * b_np, axis=1), rtol=1e-6)


def test_init_and_config():
    saved = (wp.config.mode, wp.config.verify_cuda)
    try:
        wp.config.mode = "debug"
        wp.config.verify_cuda = True
        wp.init()
        assert wp.config.mode == "debug"
    finally:
        wp.config.mode, wp.config.verify_cuda = saved


# --- Arrays -------------------------------------------------------------------------------------
def test_array_constructors_003(device):
    a = wp.empty(n=1024, dtype=wp.vec3, device="cpu")
    assert a.shape == (1024,) and a.dtype is wp.vec3 and a.device == "cpu"
    z = wp.zeros(n=1024, dtype=float, device=device)
    assert z.shape == (1024,) and z.dtype is wp.float32
    assert np.all(z.numpy() == 0.0)


def test_array_constructors_004(device):
    a = wp.empty(shape=1024, dtype=wp.vec3, device="cpu")
    assert a.shape == (1024,) and a.numpy().shape == (1024, 3)
    z = wp.zeros(shape=1024, dtype=float, device=device)
    assert z.shape == (1024,) and not z.numpy().any()
    z2 = wp.zeros(shape=(1024, 16), dtype=float, device=device)
    assert z2.shape == (1024, 16) and z2.ndim == 2 and not z2.numpy().any()


def test_array_from_numpy(device):
    r = np.random.rand(1024)

    # copy to Warp owned array
    a = wp.array(r, dtype=float, device="cpu")
    np.testing.assert_array_equal(a.numpy(), r.astype(np.float32))
    r[0] = 123.0
    assert a.numpy()[0] != 123.0

    # as written: float64 data for a float32 array cannot be shared, so this converts
    a = wp.array(r, dtype=float, copy=False, device="cpu")
    np.testing.assert_array_equal(a.numpy(), r.astype(np.float32))

    # the zero-copy wrapper needs the same element type as the NumPy data
    r32 = r.astype(np.float32)
    a = wp.array(r32, dtype=float, copy=False, device="cpu")
    r32[1] = 7.0
    assert a.numpy()[1] == 7.0

    # a copy on the (possibly GPU) device
    a = wp.array(r, dtype=float, device=device)
    np.testing.assert_array_equal(a.numpy(), r.astype(np.float32))


def test_array_multidim_dtype():
    # the reference writes np.random.rand((1024, 3)), which NumPy rejects; the intent:
    r = np.random.rand(1024, 3)

    # initialize as an array of vec3 objects
    a = wp.array(r, dtype=wp.vec3, device="cpu")
    assert a.shape == (1024,)
    np.testing.assert_allclose(a.numpy(), r.astype(np.float32))

    # if the shapes are incompatible an error will be raised
    with pytest.raises(ValueError, match="vec3"):
        wp.array(np.random.rand(1024, 4), dtype=wp.vec3)


def test_array_to_and_copy(device):
    a = wp.array(np.arange(16, dtype=np.float32), dtype=float, device=device)
    host_array = wp.array(a, dtype=float, device="cpu")
    a = a.numpy()

    # allocate and copy to the device
    device_array = host_array.to(device)
    np.testing.assert_array_equal(device_array.numpy(), a)

    src_array = wp.array(a, dtype=float, device="cpu")
    dest_array = wp.empty_like(host_array)
    assert dest_array.shape == host_array.shape and dest_array.dtype is host_array.dtype

    wp.copy(dest_array, src_array)
    np.testing.assert_array_equal(dest_array.numpy(), a)

    dev_dest = wp.empty_like(host_array, device=device)
    wp.copy(dev_dest, src_array)
    np.testing.assert_array_equal(dev_dest.numpy(), a)


# --- Multi-dimensional launches and arrays ------------------------------------------------------------
@wp.kernel
def complex_kernel(out: wp.array3d(dtype=int)):
    i, j, k = wp.tid()
    out[i, j, k] = i * 10000 + j * 10 + k


def test_multidim_launch(device):
    out = wp.zeros(shape=(128, 128, 3), dtype=int, device=device)
    wp.launch(complex_kernel, dim=(128, 128, 3), inputs=[out], device=device)
    i, j, k = np.meshgrid(np.arange(128), np.arange(128), np.arange(3), indexing="ij")
    np.testing.assert_array_equal(out.numpy(), i * 10000 + j * 10 + k)


@wp.func
def row_sum(row: wp.array(dtype=float)):
    s = float(0.0)
    for j in range(row.shape[0]):
        s += row[j]
    return s


@wp.kernel
def test(input: wp.array(dtype=float, ndim=2),
         values: wp.array2d(dtype=float),
         rows: wp.array2d(dtype=float),
         sums: wp.array(dtype=float)):
    i, j = wp.tid()

    # returns a float from the 2d array
    value = input[i, j]
    values[i, j] = value

    # returns an 1d array slice representing a row of the 2d array
    row = input[i]
    rows[i, j] = row[j]
    if j == 0:
        sums[i] = row_sum(row)


@wp.kernel
def chained_slices(array: wp.array3d(dtype=float), out: wp.array3d(dtype=float)):
    i, j, k = wp.tid()
    s = array[i][j][k]
    out[i, j, k] = s + array[i, j][k]


def test_nd_array_indexing_and_slicing(device):
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    inp = wp.array(x, dtype=float, device=device)
    values, rows = wp.zeros_like(inp), wp.zeros_like(inp)
    sums = wp.zeros(4, dtype=float, device=device)
    wp.launch(test, dim=(4, 6), inputs=[inp, values, rows, sums], device=device)
    np.testing.assert_array_equal(values.numpy(), x)
    np.testing.assert_array_equal(rows.numpy(), x)
    np.testing.assert_array_equal(sums.numpy(), x.sum(axis=1))

    y = np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4)
    a3 = wp.array(y, dtype=float, device=device)
    out = wp.zeros(shape=(2, 3, 4), dtype=float, device=device)
    wp.launch(chained_slices, dim=(2, 3, 4), inputs=[a3, out], device=device)
    np.testing.assert_array_equal(out.numpy(), 2 * y)


# --- Vectors ----------------------------------------------------------------------------------------
# declare a new vector type for holding 5 double precision floats:
vec5d = wp.types.vector(length=5, dtype=wp.float64)


@wp.kernel
def vec_compute(out: wp.array(dtype=float), cross_out: wp.array(dtype=wp.vec3)):

    # basis vectors
    a = wp.vec3(1.0, 0.0, 0.0)
    b = wp.vec3(0.0, 1.0, 0.0)

    # take the cross product
    c = wp.cross(a, b)

    # compute
    r = wp.dot(c, c)

    out[0] = r
    cross_out[0] = c


@wp.kernel
def vec5d_compute(arr: wp.array(dtype=vec5d)):

    # zero initialize a custom named vector type
    v = vec5d()
    arr[0] = v

    # component-wise initialize a named vector type
    v = vec5d(wp.float64(1.0),
              wp.float64(2.0),
              wp.float64(3.0),
              wp.float64(4.0),
              wp.float64(5.0))
    arr[1] = v
    arr[2] = v + v - v * wp.float64(0.5)


@wp.kernel
def anonymous_vectors(arr: wp.array(dtype=vec5d)):

    # zero initialize vector of 5 doubles:
    v = wp.vector(dtype=wp.float64, length=5)
    arr[0] = v

    # scalar initialize a vector of 5 doubles to the same value:
    v = wp.vector(wp.float64(1.0), length=5)
    arr[1] = v

    # component-wise initialize a vector of 5 doubles
    v = wp.vector(wp.float64(1.0),
                  wp.float64(2.0),
                  wp.float64(3.0),
                  wp.float64(4.0),
                  wp.float64(5.0))
    arr[2] = v


def test_vectors(device):
    out = wp.zeros(1, dtype=float, device=device)
    cross = wp.zeros(1, dtype=wp.vec3, device=device)
    wp.launch(vec_compute, dim=1, inputs=[out, cross], device=device)
    assert out.numpy()[0] == 1.0
    np.testing.assert_array_equal(cross.numpy()[0], np.cross([1, 0, 0], [0, 1, 0]))


def test_vec5d(device):
    # create an array of vec5d
    arr = wp.zeros(10, dtype=vec5d, device=device)
    assert arr.numpy().shape == (10, 5) and arr.numpy().dtype == np.float64
    wp.launch(vec5d_compute, dim=1, inputs=[arr], device=device)
    v = np.arange(1.0, 6.0)
    np.testing.assert_array_equal(arr.numpy()[:3], [np.zeros(5), v, 2 * v - 0.5 * v])

    arr2 = wp.zeros(3, dtype=vec5d, device=device)
    wp.launch(anonymous_vectors, dim=1, inputs=[arr2], device=device)
    np.testing.assert_array_equal(arr2.numpy(), [np.zeros(5), np.ones(5), v])


def test_generic_types_python_scope():
    assert wp.types.vector(length=5, dtype=wp.float64) is vec5d
    assert wp.types.vector(length=3, dtype=wp.float32) is wp.vec3
    assert vec5d(1.0, 2.0, 3.0, 4.0, 5.0)[4] == 5.0
    v = wp.vector(wp.float64(1.0), length=5)
    assert type(v) is vec5d and list(v) == [1.0] * 5


# --- Matrices ---------------------------------------------------------------------------------------
# The reference comments "a new 3x2 half precision float matrix type" but passes dtype=wp.float64;
# Python-scope use of the documented declaration:
mat32h_doc = wp.types.matrix(shape=(3, 2), dtype=wp.float64)
# and the half precision type its kernel example then uses:
mat32h = wp.types.matrix(shape=(3, 2), dtype=wp.float16)
mat55d = wp.types.matrix(shape=(5, 5), dtype=wp.float64)


@wp.kernel
def mat_compute(out: wp.array(dtype=wp.vec2), inv: wp.array(dtype=wp.mat22)):

    # initialize matrix
    m = wp.mat22(1.0, 2.0,
                 3.0, 4.0)

    # compute inverse
    minv = wp.inverse(m)

    # transform vector
    v = minv * wp.vec2(0.5, 0.3)

    out[0] = v
    inv[0] = minv


@wp.kernel
def mat32h_compute(mats: wp.array(dtype=mat32h), vecs: wp.array(dtype=wp.vec3h)):

    # initialize a mat32h matrix
    m = mat32h(wp.float16(1.0), wp.float16(2.0),
               wp.float16(3.0), wp.float16(4.0),
               wp.float16(5.0), wp.float16(6.0))

    # declare a 2 component half precision vector
    v2 = wp.vec2h(wp.float16(1.0), wp.float16(1.0))

    # multiply by the matrix, returning a 3 component vector:
    v3 = m * v2
    mats[0] = m
    vecs[0] = v3


@wp.kernel
def anonymous_matrices(mats: wp.array(dtype=mat32h), ident: wp.array(dtype=mat55d)):

    # create a 3x2 half precision matrix from components (row major ordering):
    m = wp.matrix(
        wp.float16(1.0), wp.float16(2.0),
        wp.float16(1.0), wp.float16(2.0),
        wp.float16(1.0), wp.float16(2.0),
        shape=(3, 2))
    mats[0] = m

    # zero initialize a 3x2 half precision matrix:
    m = wp.matrix(wp.float16(0.0), shape=(3, 2))
    mats[1] = m

    # create a 5x5 double precision identity matrix:
    m = wp.identity(n=5, dtype=wp.float64)
    ident[0] = m


def test_matrices(device):
    out = wp.zeros(1, dtype=wp.vec2, device=device)
    inv = wp.zeros(1, dtype=wp.mat22, device=device)
    wp.launch(mat_compute, dim=1, inputs=[out, inv], device=device)
    m = np.array([[1.0, 2.0], [3.0, 4.0]])
    minv = np.linalg.inv(m)
    np.testing.assert_allclose(inv.numpy()[0], minv, rtol=1e-6)
    np.testing.assert_allclose(out.numpy()[0], minv @ [0.5, 0.3], rtol=1e-5)


def test_mat32h_declaration():
    # create an array of this type
    a = wp.zeros(10, dtype=mat32h_doc)
    assert a.shape == (10,) and a.numpy().shape == (10, 3, 2) and a.numpy().dtype == np.float64
    a = wp.zeros(10, dtype=mat32h)
    assert a.numpy().shape == (10, 3, 2) and a.numpy().dtype == np.float16


def test_mat32h_kernel(device):
    mats = wp.zeros(1, dtype=mat32h, device=device)
    vecs = wp.zeros(1, dtype=wp.vec3h, device=device)
    wp.launch(mat32h_compute, dim=1, inputs=[mats, vecs], device=device)
    m = np.arange(1.0, 7.0).reshape(3, 2)
    np.testing.assert_array_equal(mats.numpy()[0], m)
    np.testing.assert_array_equal(vecs.numpy()[0], m @ [1.0, 1.0])


def test_anonymous_matrices(device):
    mats = wp.zeros(2, dtype=mat32h, device=device)
    ident = wp.zeros(1, dtype=mat55d, device=device)
    wp.launch(anonymous_matrices, dim=1, inputs=[mats, ident], device=device)
    np.testing.assert_array_equal(mats.numpy()[0], [[1, 2], [1, 2], [1, 2]])
    np.testing.assert_array_equal(mats.numpy()[1], np.zeros((3, 2)))
    np.testing.assert_array_equal(ident.numpy()[0], np.eye(5))


# --- Quaternions ------------------------------------------------------------------------------------
quatd = wp.types.quaternion(dtype=wp.float64)


@wp.kernel
def quat_compute(rotated: wp.array(dtype=wp.vec3), quats: wp.array(dtype=wp.quat)):

    # construct a 30 degree rotation around the x-axis
    q = wp.quat_from_axis_angle(wp.vec3(1.0, 0.0, 0.0), wp.degrees(30.0))

    # rotate an axis by this quaternion
    v = wp.quat_rotate(q, wp.vec3(0.0, 1.0, 0.0))

    rotated[0] = v
    quats[0] = q


@wp.kernel
def quat_identities(qds: wp.array(dtype=quatd), qfs: wp.array(dtype=wp.quat),
                    qhs: wp.array(dtype=wp.quath)):

    # create a double precision identity quaternion:
    qd = wp.quat_identity(dtype=wp.float64)

    # precision defaults to wp.float32 so this creates a single precision identity quaternion:
    qf = wp.quat_identity()

    # create a half precision quaternion from components, or a vector/scalar:
    qh = wp.quaternion(wp.float16(0.0),
                       wp.float16(0.0),
                       wp.float16(0.0),
                       wp.float16(1.0))
    qhs[0] = qh

    qh = wp.quaternion(
        wp.vector(wp.float16(0.0), wp.float16(0.0), wp.float16(0.0)),
        wp.float16(1.0))
    qhs[1] = qh
    qds[0] = qd
    qfs[0] = qf


def _axis_angle(axis, angle):
    axis = np.asarray(axis, dtype=np.float64)
    s = math.sin(angle / 2)
    return np.array([*(axis / np.linalg.norm(axis) * s), math.cos(angle / 2)])


def _rotate(q, v):
    x, y, z, w = q
    u = np.array([x, y, z])
    return 2 * np.dot(u, v) * u + (w * w - np.dot(u, u)) * np.asarray(v) + 2 * w * np.cross(u, v)


def test_quaternions(device):
    rotated = wp.zeros(1, dtype=wp.vec3, device=device)
    quats = wp.zeros(1, dtype=wp.quat, device=device)
    wp.launch(quat_compute, dim=1, inputs=[rotated, quats], device=device)
    q = _axis_angle([1, 0, 0], math.degrees(30.0))
    np.testing.assert_allclose(quats.numpy()[0], q, atol=2e-4)
    np.testing.assert_allclose(rotated.numpy()[0], _rotate(q, [0.0, 1.0, 0.0]), atol=5e-4)


def test_quaternion_identities(device):
    assert quatd is wp.quatd
    qds = wp.zeros(1, dtype=quatd, device=device)
    qfs = wp.zeros(1, dtype=wp.quat, device=device)
    qhs = wp.zeros(2, dtype=wp.quath, device=device)
    wp.launch(quat_identities, dim=1, inputs=[qds, qfs, qhs], device=device)
    ident = [0.0, 0.0, 0.0, 1.0]
    assert qds.numpy().dtype == np.float64 and qhs.numpy().dtype == np.float16
    np.testing.assert_array_equal(qds.numpy(), [ident])
    np.testing.assert_array_equal(qfs.numpy(), [ident])
    np.testing.assert_array_equal(qhs.numpy(), [ident, ident])


# --- Transforms -------------------------------------------------------------------------------------
transformd = wp.types.transformation(dtype=wp.float64)


@wp.kernel
def transform_compute(points: wp.array(dtype=wp.vec3), tfs: wp.array(dtype=wp.transform)):

    # create a transform from a vector/quaternion:
    t = wp.transform(
        wp.vec3(1.0, 2.0, 3.0),
        wp.quat_from_axis_angle(0.0, 1.0, 0.0, wp.degrees(30.0)))

    # transform a point
    p = wp.transform_point(t, wp.vec3(10.0, 0.5, 1.0))
    points[0] = p

    # transform a vector (ignore translation)
    p = wp.transform_vector(t, wp.vec3(10.0, 0.5, 1.0))
    points[1] = p
    tfs[0] = t


@wp.kernel
def transform_identities(tds: wp.array(dtype=transformd)):

    # create double precision identity transform:
    qd = wp.transform_identity(dtype=wp.float64)
    tds[0] = qd


def test_transforms(device):
    points = wp.zeros(2, dtype=wp.vec3, device=device)
    tfs = wp.zeros(1, dtype=wp.transform, device=device)
    wp.launch(transform_compute, dim=1, inputs=[points, tfs], device=device)
    q = _axis_angle([0.0, 1.0, 0.0], math.degrees(30.0))
    np.testing.assert_allclose(tfs.numpy()[0], [1, 2, 3, *q], atol=2e-4)
    v = _rotate(q, [10.0, 0.5, 1.0])
    np.testing.assert_allclose(points.numpy()[0], v + [1, 2, 3], atol=5e-3)
    np.testing.assert_allclose(points.numpy()[1], v, atol=5e-3)


def test_transform_identity(device):
    assert transformd is wp.transformd
    tds = wp.zeros(1, dtype=transformd, device=device)
    wp.launch(transform_identities, dim=1, inputs=[tds], device=device)
    assert tds.numpy().dtype == np.float64
    np.testing.assert_array_equal(tds.numpy()[0], [0, 0, 0, 0, 0, 0, 1])


# --- Structs ----------------------------------------------------------------------------------------
@wp.struct
class MyStruct:

    param1: int
    param2: float
    param3: wp.array(dtype=wp.vec3)


@wp.kernel
def compute(args: MyStruct):

    tid = wp.tid()

    print(args.param1)
    print(args.param2)
    print(args.param3[tid])


@wp.kernel
def struct_sum(args: MyStruct, out: wp.array(dtype=float)):
    tid = wp.tid()
    v = args.param3[tid]
    out[tid] = float(args.param1) * args.param2 + v[0] + v[1] + v[2]


def test_struct_kernel_argument(capfd):
    # construct an instance of the struct in Python
    s = MyStruct()
    s.param1 = 10
    s.param2 = 2.5
    s.param3 = wp.zeros(shape=10, dtype=wp.vec3)

    # pass to our compute kernel
    capfd.readouterr()
    wp.launch(compute, dim=10, inputs=[s])
    flush_c_stdio()
    lines = capfd.readouterr().out.splitlines()
    assert sorted(lines) == sorted(["10"] * 10 + ["2.5"] * 10 + ["[0 0 0]"] * 10)


def test_struct_values_reach_kernel(device):
    s = MyStruct()
    s.param1 = 10
    s.param2 = 2.5
    pts = np.arange(30, dtype=np.float32).reshape(10, 3)
    s.param3 = wp.array(pts, dtype=wp.vec3, device=device)
    out = wp.zeros(10, dtype=float, device=device)
    wp.launch(struct_sum, dim=10, inputs=[s, out], device=device)
    np.testing.assert_allclose(out.numpy(), 25.0 + pts.sum(axis=1))


def test_arrays_of_structs():
    a = wp.zeros(shape=10, dtype=MyStruct)
    assert a.shape == (10,) and a.dtype is MyStruct
    assert a.numpy()["param1"].tolist() == [0] * 10

    a = wp.array([MyStruct(), MyStruct(), MyStruct()], dtype=MyStruct)
    assert a.shape == (3,)
    s = MyStruct()
    s.param1, s.param2 = 3, 1.5
    a = wp.array([MyStruct(), s], dtype=MyStruct)
    rec = a.numpy()
    assert rec["param1"].tolist() == [0, 3] and rec["param2"].tolist() == [0.0, 1.5]
    assert a[1].param1 == 3 and a[1].param2 == 1.5


# --- Type conversions -------------------------------------------------------------------------------
@wp.kernel(module="spec_examples_implicit_conversion")
def implicit_conversion(out: wp.array(dtype=float)):
    x = float(0.0) + int(4)
    out[0] = x


@wp.kernel
def explicit_conversion(out: wp.array(dtype=float)):
    x = float(0.0) + float(int(4))
    out[0] = x
    out[1] = float(wp.float16(1.5)) + float(wp.uint8(200)) + float(wp.int64(-3))


def test_no_implicit_conversion():
    out = wp.zeros(2, dtype=float)
    with pytest.raises(wp.CodegenError) as e:
        wp.launch(implicit_conversion, dim=1, inputs=[out])
    msg = str(e.value)
    assert "float32" in msg and "int32" in msg
    assert "x = float(0.0) + int(4)" in msg
    wp.launch(explicit_conversion, dim=1, inputs=[out])
    np.testing.assert_array_equal(out.numpy(), [4.0, 198.5])


# --- Constants --------------------------------------------------------------------------------------
TYPE_SPHERE = wp.constant(0)
TYPE_CUBE = wp.constant(1)
TYPE_CAPSULE = wp.constant(2)


@wp.kernel
def collide(geometry: wp.array(dtype=int)):

    t = geometry[wp.tid()]

    if (t == TYPE_SPHERE):
        print("sphere")
    if (t == TYPE_CUBE):
        print("cube")
    if (t == TYPE_CAPSULE):
        print("capsule")


def test_constants(capfd):
    geometry = wp.array([0, 1, 2, 1, 2, 2, 5], dtype=int)
    capfd.readouterr()
    wp.launch(collide, dim=len(geometry), inputs=[geometry])
    flush_c_stdio()
    lines = capfd.readouterr().out.splitlines()
    assert sorted(lines) == sorted(["sphere"] + ["cube"] * 2 + ["capsule"] * 3)


# --- Operators --------------------------------------------------------------------------------------
@wp.kernel
def boolean_ops(a: wp.array(dtype=int), b: wp.array(dtype=int), out: wp.array2d(dtype=int)):
    i = wp.tid()
    x = a[i] != 0
    y = b[i] != 0
    out[i, 0] = int(x and y)
    out[i, 1] = int(x or y)
    out[i, 2] = int(not x)


@wp.kernel
def comparison_ops(a: wp.array(dtype=float), b: wp.array(dtype=float), out: wp.array2d(dtype=int)):
    i = wp.tid()
    out[i, 0] = int(a[i] > b[i])
    out[i, 1] = int(a[i] < b[i])
    out[i, 2] = int(a[i] >= b[i])
    out[i, 3] = int(a[i] <= b[i])
    out[i, 4] = int(a[i] == b[i])
    out[i, 5] = int(a[i] != b[i])


@wp.kernel
def arithmetic_ops(a: wp.array(dtype=float), b: wp.array(dtype=float), out: wp.array2d(dtype=float)):
    i = wp.tid()
    x = a[i]
    y = b[i]
    out[i, 0] = x + y
    out[i, 1] = x - y
    out[i, 2] = x * y
    out[i, 3] = x / y
    out[i, 4] = x // y
    out[i, 5] = x ** y
    out[i, 6] = x % y


def test_boolean_operators(device):
    a_np = np.array([0, 0, 1, 1, 3], dtype=np.int32)
    b_np = np.array([0, 1, 0, 1, -2], dtype=np.int32)
    out = wp.zeros(shape=(5, 3), dtype=int, device=device)
    wp.launch(boolean_ops, dim=5, inputs=[wp.array(a_np, device=device), wp.array(b_np, device=device),
                                          out], device=device)
    x, y = a_np != 0, b_np != 0
    np.testing.assert_array_equal(out.numpy(), np.stack([x & y, x | y, ~x], axis=1))


def test_comparison_operators(device):
    a_np = np.array([1.0, 2.0, 3.0, -1.0], dtype=np.float32)
    b_np = np.array([2.0, 2.0, 1.0, -1.5], dtype=np.float32)
    out = wp.zeros(shape=(4, 6), dtype=int, device=device)
    wp.launch(comparison_ops, dim=4, inputs=[wp.array(a_np, device=device),
                                             wp.array(b_np, device=device), out], device=device)
    expect = np.stack([a_np > b_np, a_np < b_np, a_np >= b_np, a_np <= b_np, a_np == b_np,
                       a_np != b_np], axis=1)
    np.testing.assert_array_equal(out.numpy(), expect)


def test_arithmetic_operators(device):
    a_np = np.array([7.5, -7.5, 2.0, 9.0, 0.5], dtype=np.float32)
    b_np = np.array([2.0, 2.0, 3.0, -4.0, 0.25], dtype=np.float32)
    out = wp.zeros(shape=(5, 7), dtype=float, device=device)
    wp.launch(arithmetic_ops, dim=5, inputs=[wp.array(a_np, device=device),
                                             wp.array(b_np, device=device), out], device=device)
    expect = np.stack([a_np + b_np, a_np - b_np, a_np * b_np, a_np / b_np, a_np // b_np,
                       a_np ** b_np, a_np % b_np], axis=1)
    np.testing.assert_allclose(out.numpy(), expect, rtol=1e-6)
