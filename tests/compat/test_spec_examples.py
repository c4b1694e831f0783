"""The code examples of the runtime reference (spec files 003 and 004), run as written where they
run on the CPU, each checked against NumPy. Examples that name device="cuda" run on the CPU here
and, through the ``device`` fixture, on every available device."""

import ctypes

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
    assert sorted(lines) == sorted(["10"] * 10 + ["2.5"] * 10 + ["0 0 0 "] * 10)   # the reference's format


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
    # `//` floors a / b; `%` is the truncated remainder (C's fmod, the sign of a), as warp-lang
    expect = np.stack([a_np + b_np, a_np - b_np, a_np * b_np, a_np / b_np, np.floor(a_np / b_np),
                       a_np ** b_np, np.fmod(a_np, b_np)], axis=1)
    np.testing.assert_allclose(out.numpy(), expect, rtol=1e-6)
