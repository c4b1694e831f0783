"""Python values in and out of arrays, as warp-lang 1.19 documents them: ``array.view(dtype)``
(against NumPy's ``view`` of the same bytes), ``fill_``/``wp.full`` with composite and struct
values, the dtype ``wp.full`` infers, ``array.list()``, structs' ``numpy_dtype()``, ``dtype=Any``
with data, ``retain_grad`` validation and the texts of shape errors."""

import ctypes

import numpy as np
import pytest
from typing import Any

import warp_interactive as wp

# --- array.view(dtype) ------------------------------------------------------------------------
VIEWS = [  # (NumPy data, source dtype, target dtype, expected shape)
    (np.arange(1, 10, dtype=np.uint32), wp.uint32, wp.float32, (9,)),
    (np.arange(1, 10, dtype=np.float16), wp.float16, wp.uint16, (9,)),
    (np.arange(16, dtype=np.float32).reshape(4, 4), wp.vec4, wp.quat, (4,)),
    (np.arange(16, dtype=np.float32).reshape(4, 4), wp.vec4, wp.mat22, (4,)),
    (np.arange(16, dtype=np.float32).reshape(4, 4), wp.vec4, wp.float32, (4, 4)),
    (np.arange(16, dtype=np.float32).reshape(4, 2, 2), wp.mat22, wp.float32, (4, 2, 2)),
    (np.arange(16, dtype=np.float32).reshape(4, 4), wp.float32, wp.vec4, (4,)),
    (np.arange(16, dtype=np.float32).reshape(4, 2, 2), wp.float32, wp.mat22, (4,)),
    (np.arange(4, dtype=np.float32), wp.float32, wp.vec4, (1,)),     # no 0-d arrays: one element
    (np.arange(12, dtype=np.int32).reshape(4, 3), wp.vec3i, wp.float32, (4, 3)),
]


@pytest.mark.parametrize("data,src,dst,shape", VIEWS)
def test_view_reads_the_same_bytes(data, src, dst, shape):
    a = wp.array(data, dtype=src)
    v = a.view(dtype=dst)
    assert v.dtype is dst and v.shape == shape and v.ptr == a.ptr
    np_dst = wp.types.dtype_to_numpy(dst) if not wp.types.type_is_composite(dst) else \
        wp.types.dtype_to_numpy(dst._wp_scalar_type_)
    expected = np.ascontiguousarray(data).view(np_dst).reshape(v.numpy().shape)
    np.testing.assert_array_equal(v.numpy(), expected)
    v.numpy()[...] = 0          # a view, not a copy: the source sees the write
    assert not a.numpy().any()


@pytest.mark.parametrize("src,dst,message", [
    (wp.float32, wp.uint16, "cannot create an array view with dtype uint16 from source dtype "
     "float32: source dtype has size 4 bytes, but target dtype has size 2 bytes"),
    (wp.vec4, wp.float64, "cannot create an array view with dtype float64 from source dtype "
     "vec4f: source scalar dtype float32 has size 4 bytes, but target dtype has size 8 bytes"),
    (wp.float32, wp.vec4d, "cannot create an array view with dtype vec4d from source dtype "
     "float32: source dtype has size 4 bytes, but target scalar dtype float64 has size 8 bytes"),
])
def test_view_refuses_other_sizes(src, dst, message):
    a = wp.zeros((4, 4) if src is wp.float32 else 4, dtype=src)
    with pytest.raises(TypeError, match=message):
        a.view(dtype=dst)


def test_view_of_a_strided_slice_into_vectors_is_refused():
    a = wp.array(np.arange(24, dtype=np.float32).reshape(4, 6))[:, ::2]
    with pytest.raises(TypeError, match="not one contiguous vec3f"):
        a.view(wp.vec3)


# --- fill_ and wp.full with composite values ----------------------------------------------------------
MAT23 = wp.types.matrix((2, 3), wp.float64)
FILLS = [  # (dtype, fill value, one element as NumPy expects it)
    (wp.vec3, 42, np.full(3, 42.0)),
    (wp.vec3, [1, 2, 3], np.array([1.0, 2.0, 3.0])),
    (wp.vec3, np.array([1.5, 2, 3]), np.array([1.5, 2.0, 3.0])),
    (wp.vec3, wp.vec3(4, 5, 6), np.array([4.0, 5.0, 6.0])),
    (MAT23, 7, np.full((2, 3), 7.0)),
    (MAT23, list(range(6)), np.arange(6.0).reshape(2, 3)),
    (MAT23, [[0, 1, 2], [3, 4, 5]], np.arange(6.0).reshape(2, 3)),
    (MAT23, MAT23(np.arange(6.0)), np.arange(6.0).reshape(2, 3)),
    (wp.quat, [0, 0, 0, 1], np.array([0.0, 0, 0, 1])),
    (wp.int8, 17, np.array(17)),
]


@pytest.mark.parametrize("shape", [3, (2, 3), (2, 1, 2, 2)])
@pytest.mark.parametrize("dtype,value,element", FILLS)
def test_fill_and_full_broadcast_one_element(shape, dtype, value, element):
    a = wp.zeros(shape, dtype=dtype)
    a.fill_(value)
    expected = np.broadcast_to(element, a.shape + element.shape)
    np.testing.assert_array_equal(a.numpy(), expected)
    b = wp.full(shape, value, dtype=dtype)
    assert b.dtype is dtype
    np.testing.assert_array_equal(b.numpy(), expected)
    a[::2].fill_(0) if a.ndim == 1 else a[:, ::2].fill_(0)      # a strided view fills in place
    assert (a.numpy() == 0).sum() >= element.size


def test_fill_with_a_value_of_the_wrong_size_names_both():
    with pytest.raises(ValueError, match=r"mat23d .*\(2, 3\).* shape \(4,\)"):
        wp.zeros(2, dtype=MAT23).fill_([1, 2, 3, 4])


@pytest.mark.parametrize("value,kind,shape", [
    ([1.0, 2.0], "vec_t", (2,)), (np.arange(5, dtype=np.int16), "vec_t", (5,)),
    ([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], "mat_t", (2, 3)), (wp.quat(), "quat_t", (4,))])
def test_full_infers_a_vector_or_matrix_from_the_value(value, kind, shape):
    a = wp.full(3, value)
    assert a.dtype._wp_generic_type_str_ == kind and a.dtype._shape_ == shape
    np.testing.assert_array_equal(a.numpy(), np.broadcast_to(np.asarray(value), (3,) + shape))


def test_full_keeps_the_numpy_scalar_type():
    a = wp.full(2, np.arange(3, dtype=np.int16))
    assert a.dtype is wp.types.vector(3, wp.int16)


# --- list() -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype,value,py_type", [
    (wp.int32, 42, int), (wp.uint8, 200, int), (wp.float32, 2.5, float), (wp.float16, -1.25, float),
    (wp.bool, True, bool), (wp.vec3, wp.vec3(1, 2, 3), wp.vec3), (wp.mat22, wp.mat22(1, 2, 3, 4), wp.mat22)])
@pytest.mark.parametrize("shape", [4, (2, 3), (2, 1, 2)])
def test_list_gives_one_python_value_per_element(dtype, value, py_type, shape):
    a = wp.full(shape, value, dtype=dtype)
    items = a.list()
    assert len(items) == a.size
    assert all(type(x) is py_type and x == value for x in items)
    if py_type in (wp.vec3, wp.mat22):
        assert isinstance(items[0], ctypes.Array)


@wp.struct
class Particle:
    idx: wp.int32
    mass: wp.float16
    pos: wp.vec3
    inertia: wp.mat22
    neighbours: wp.array(dtype=wp.int32)


def _particle(i):
    p = Particle()
    p.idx, p.mass, p.pos = i, 0.5 * i, wp.vec3(i, 2 * i, 3 * i)
    p.inertia = wp.mat22(i, 0, 0, i)
    p.neighbours = wp.array([i, i + 1], dtype=wp.int32)
    return p


def test_list_of_structs_rebuilds_fields_and_array_views():
    parts = [_particle(i) for i in range(3)]
    a = wp.array(parts, dtype=Particle)
    out = a.list()
    for p, q in zip(parts, out):
        assert type(q) is Particle and q.idx == p.idx and q.mass == p.mass
        assert q.pos == p.pos and q.inertia == p.inertia
        assert q.neighbours.ptr == p.neighbours.ptr and q.neighbours.shape == (2,)
        assert q.neighbours.numpy().tolist() == p.neighbours.numpy().tolist()
    assert wp.zeros(2, dtype=Particle).list()[0].neighbours is None     # a null descriptor


def test_struct_numpy_dtype_round_trips():
    nd = Particle.numpy_dtype()
    assert nd.itemsize == ctypes.sizeof(Particle._ctype) and nd.names[:3] == ("idx", "mass", "pos")
    na = np.zeros(4, dtype=nd)
    na["idx"], na["pos"] = np.arange(4), (1, 2, 3)
    a = wp.array(na, dtype=Particle)
    assert a.numpy().dtype == nd
    np.testing.assert_array_equal(a.numpy(), na)
    b = wp.full(4, _particle(7), dtype=Particle)
    assert b.numpy().dtype == nd and (b.numpy()["idx"] == 7).all()
    np.testing.assert_array_equal(b.numpy()[0], _particle(7).numpy_value())
    ptr = b.cptr()
    assert ptr[2].idx == 7 and ptr[2].pos == wp.vec3(7, 14, 21)


# --- construction details -----------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [None, (3, 4), (12,), (3, 2, 2)])
def test_dtype_any_with_data_keeps_the_datas_type(shape):
    src = wp.array(np.arange(12, dtype=np.float32).reshape(3, 4))
    dst = wp.array(src, dtype=Any, shape=shape)
    assert dst.dtype is wp.float32 and dst.shape == (shape or (3, 4))
    np.testing.assert_array_equal(dst.numpy().ravel(), np.arange(12))


@pytest.mark.parametrize("dtype", [wp.float32, wp.vec2b, wp.mat33h, MAT23])
def test_empty_list_gives_an_empty_array(dtype):
    a = wp.array([], dtype=dtype)
    assert a.shape == (0,) and a.size == 0 and a.dtype is dtype


def test_retain_grad_needs_requires_grad():
    with pytest.raises(ValueError, match="requires_grad"):
        wp.zeros(3, retain_grad=True)
    a = wp.zeros(3)
    with pytest.raises(ValueError, match="requires_grad"):
        a.retain_grad = True
    a.requires_grad = True
    a.retain_grad = True
    assert a.retain_grad
    a.requires_grad = False
    assert not a.retain_grad


@pytest.mark.parametrize("shape", [-1, -(2 ** 32), (10, -1)])
def test_negative_shapes_are_refused(shape):
    with pytest.raises(ValueError, match="Array shapes must be non-negative"):
        wp.zeros(shape)


def test_external_memory_with_numpy_int32_strides():
    big = 140138692739072      # never read: only the pointer arithmetic of views is checked
    a = wp.array(ptr=big, dtype=wp.uint8, shape=(1024, 1024, 4),
                 strides=(np.int32(4096), np.int32(4), np.int32(1)), device="cpu")
    assert a[500:600, 500:600, :].ptr == big + 500 * 4096 + 500 * 4
    assert a[1023, 1023, :].ptr == big + 1023 * 4096 + 1023 * 4
    with pytest.raises(ValueError, match="expected 3 strides, got 2"):
        wp.array(ptr=big, dtype=wp.uint8, shape=(2, 2, 2), strides=(4, 2), device="cpu")


# --- wp.zeros/empty/...: warp-lang's signatures ------------------------------------------------------
@pytest.mark.parametrize("shape,strides,dtype", [
    ((3, 3), (16, 12), wp.int32), ((2, 3, 4), (40, 16, 4), wp.int32), ((3, 5), (12, 36), wp.vec3),
    ((4, 2), (1, 4), wp.int8)])
def test_allocation_with_strides_reaches_exactly_its_bytes(shape, strides, dtype):
    a = wp.zeros(shape, dtype=dtype, strides=strides)
    assert a.shape == shape and a.strides == strides
    assert a.capacity == wp.types.type_size_in_bytes(dtype) + sum((n - 1) * s for n, s in zip(shape, strides))
    assert not a.numpy().any()
    offsets = {sum(i * s for i, s in zip(idx, strides)) for idx in np.ndindex(*shape)}
    if len(offsets) == a.size:      # no two elements share memory: what is written reads back
        values = np.arange(a.numpy().size).reshape(a.numpy().shape)
        a.assign(values)
        np.testing.assert_array_equal(a.numpy(), values)


def test_allocation_strides_errors():
    with pytest.raises(ValueError, match="expected 2 strides, got 1"):
        wp.empty((0, 3), dtype=wp.int32, strides=(4,))
    with pytest.raises(NotImplementedError, match="Negative strides"):
        wp.empty((3, 3), dtype=wp.int32, strides=(16, -4))
    assert wp.empty((0, 3), dtype=wp.int32, strides=(4, 16)).capacity == 0
    with pytest.raises(TypeError, match="bogus"):
        wp.zeros(3, bogus=1)            # unknown keywords are refused, never ignored


@pytest.mark.parametrize("make", [wp.zeros_like, wp.empty_like, wp.ones_like,
                                  lambda a, **kw: wp.full_like(a, 2.0, **kw), wp.clone])
def test_like_constructors_take_retain_grad(make):
    src = wp.zeros((2, 3), requires_grad=True)
    out = make(src, retain_grad=True)
    assert out.shape == src.shape and out.requires_grad and out.retain_grad
    assert not make(src).retain_grad
    assert wp.from_numpy(np.zeros(3, np.float32), requires_grad=True, retain_grad=True).retain_grad


class _BothInterfaces:
    """An object offering its host memory through both interfaces (as some libraries do)."""

    def __init__(self, data):
        self.data = data
        self.__array_interface__ = data.__array_interface__
        self.__cuda_array_interface__ = data.__array_interface__


@pytest.mark.parametrize("data,dtype", [(np.array([1, 2, 3], np.int8), wp.int8),
                                        (np.arange(6, dtype=np.float32), wp.vec3)])
def test_cpu_array_from_an_object_with_both_interfaces_reads_the_host_one(data, dtype):
    a = wp.array(_BothInterfaces(data), dtype=dtype, device="cpu")
    assert a.device.is_cpu and a.ptr
    np.testing.assert_array_equal(a.numpy().ravel(), data)
