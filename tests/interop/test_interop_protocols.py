"""Array protocols and DLPack: foreign arrays passed straight to wp.launch (the interoperability
pages' NumPy example), wp arrays consumed by NumPy/torch/JAX/Paddle through __dlpack__ and
capsules, wp.from_dlpack of every producer, lifetimes, and the errors."""

import ctypes
import subprocess
import sys

import numpy as np
import pytest

import warp_interactive as wp
from warp_interactive.interop import dlpack as wdl


@wp.kernel
def saxpy(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):
    i = wp.tid()
    y[i] = a * x[i] + y[i]


@wp.kernel
def add_one_2d(a: wp.array2d(dtype=float)):
    i, j = wp.tid()
    a[i, j] = a[i, j] + 1.0


def test_import_does_not_import_frameworks():
    code = ("import sys, warp_interactive as wp; wp.from_torch; wp.jax_kernel; "
            "import warp_interactive.jax_experimental; "
            "print(sorted(m for m in ('torch', 'jax', 'paddle', 'cupy') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# --- passing arrays straight to wp.launch ---------------------------------------------------------
def test_numpy_example_direct_launch():
    n = 16
    x = np.arange(n, dtype=np.float32)
    y = np.ones(n, dtype=np.float32)

    wp.launch(saxpy, dim=n, inputs=[x, y, 1.0], device="cpu")
    np.testing.assert_allclose(y, np.arange(n) + 1.0)


@wp.kernel
def saxpy_subscript(x: wp.array[float], y: wp.array[float], a: float):
    i = wp.tid()
    y[i] = a * x[i] + y[i]


def test_numpy_example_direct_launch_subscript_annotations():
    # 001 spells the annotations wp.array[float]
    n = 16
    x = np.arange(n, dtype=np.float32)
    y = np.ones(n, dtype=np.float32)
    wp.launch(saxpy_subscript, dim=n, inputs=[x, y, 1.0], device="cpu")
    np.testing.assert_allclose(y, np.arange(n) + 1.0)


class ArrayOnly:
    """An object with only ``__array__`` (no buffer protocol, no interface dict)."""

    def __init__(self, a):
        self.a = a

    def __array__(self, dtype=None, copy=None):
        return self.a


class InterfaceOnly:
    def __init__(self, a):
        self.a = a
        self.__array_interface__ = a.__array_interface__


def test_array_protocol_objects_direct_launch():
    base = np.zeros(8, np.float32)
    wp.launch(saxpy, dim=8, inputs=[ArrayOnly(np.arange(8, dtype=np.float32)), ArrayOnly(base), 2.0])
    np.testing.assert_allclose(base, 2.0 * np.arange(8))   # zero-copy: written in place
    out = np.zeros(8, np.float32)
    wp.launch(saxpy, dim=8, inputs=[InterfaceOnly(np.ones(8, np.float32)), InterfaceOnly(out), 3.0])
    np.testing.assert_allclose(out, 3.0)


def test_dlpack_producers_direct_launch():
    torch = pytest.importorskip("torch")
    jnp = pytest.importorskip("jax.numpy")
    y = torch.zeros(5)
    wp.launch(saxpy, dim=5, inputs=[jnp.arange(5, dtype=jnp.float32), y, 1.0])
    np.testing.assert_allclose(y.numpy(), np.arange(5))


def test_direct_launch_errors():
    with pytest.raises(TypeError, match=r"argument 'x'.*expected an array, got list"):
        wp.launch(saxpy, dim=2, inputs=[[1.0, 2.0], np.zeros(2, np.float32), 1.0])
    with pytest.raises(TypeError, match=r"argument 'x'.*float32.*float64|argument 'x'.*float64"):
        wp.launch(saxpy, dim=2, inputs=[np.zeros(2), np.zeros(2, np.float32), 1.0])
    with pytest.raises(TypeError, match=r"argument 'x'.*complex64.*no warp_interactive equivalent"):
        wp.launch(saxpy, dim=2, inputs=[ArrayOnly(np.zeros(2, np.complex64)), np.zeros(2, np.float32), 1.0])


def test_numpy_snippets():
    w = wp.array([1.0, 2.0, 3.0], dtype=float, device="cpu")
    a = np.array(w)
    print(a)
    np.testing.assert_array_equal(a, [1.0, 2.0, 3.0])
    warp_type = wp.float32
    numpy_type = wp.dtype_to_numpy(warp_type)
    n = 4
    a = wp.zeros(n, dtype=warp_type)
    b = np.zeros(n, dtype=numpy_type)
    assert a.numpy().dtype == b.dtype == np.float32


def test_cuda_array_interface_absent_on_cpu_arrays():
    a = wp.zeros(3)
    assert not hasattr(a, "__cuda_array_interface__")
    with pytest.raises(AttributeError, match="only arrays on CUDA devices have a __cuda_array_interface__"):
        a.__cuda_array_interface__


def test_allocations_are_64_byte_aligned():
    for shape, dt in [((3,), float), ((5, 7), wp.vec3), ((1,), wp.int8)]:
        assert wp.zeros(shape, dtype=dt).ptr % 64 == 0
    assert wp.array(np.arange(7, dtype=np.float64)).ptr % 64 == 0


# --- DLPack export ----------------------------------------------------------------------------------
def test_dlpack_device_and_numpy_consumer_zero_copy():
    a = wp.array(np.arange(6, dtype=np.float32).reshape(2, 3))
    assert a.__dlpack_device__() == (1, 0)
    v = np.from_dlpack(a)
    assert v.ctypes.data == a.ptr and v.shape == (2, 3)
    v[1, 1] = 50.0
    assert a.numpy()[1, 1] == 50.0


def test_dlpack_export_of_strided_and_vector_arrays():
    a = wp.array(np.arange(24, dtype=np.float32).reshape(4, 6))
    view = a[:, 1::2]
    v = np.from_dlpack(view)
    np.testing.assert_array_equal(v, np.arange(24).reshape(4, 6)[:, 1::2])
    assert v.ctypes.data == view.ptr
    m = wp.array(np.arange(8, dtype=np.float64).reshape(2, 2, 2), dtype=wp.mat22d)
    mv = np.from_dlpack(m)
    assert mv.shape == (2, 2, 2) and mv.dtype == np.float64 and mv.ctypes.data == m.ptr


def test_dlpack_export_lifetime():
    a = wp.array(np.arange(4, dtype=np.float32))
    ptr = a.ptr
    v = np.from_dlpack(a)
    del a
    np.testing.assert_array_equal(v, np.arange(4))   # the consumer keeps the memory alive
    assert v.ctypes.data == ptr
    live = len(wdl._live)
    cap = wp.to_dlpack(wp.zeros(3))
    assert len(wdl._live) == live + 1
    del cap                                           # never consumed: freed with the capsule
    assert len(wdl._live) == live
    v2 = np.from_dlpack(wp.zeros(3))
    assert len(wdl._live) == live + 1
    del v2                                            # consumed: the consumer's deleter frees it
    assert len(wdl._live) == live


def test_dlpack_export_options():
    a = wp.array(np.arange(3, dtype=np.float32))
    with pytest.raises(BufferError, match="exporting it to DLPack device"):
        a.__dlpack__(dl_device=(2, 0))
    with pytest.raises(BufferError, match="stream must be None for a CPU array"):
        a.__dlpack__(stream=1)
    c = wp.from_dlpack(a.__dlpack__(copy=True))
    assert c.ptr != a.ptr
    np.testing.assert_array_equal(c.numpy(), a.numpy())
    assert type(a.__dlpack__(max_version=(1, 0))).__name__ == "PyCapsule"
    with pytest.raises(TypeError, match="expects a wp.array"):
        wp.to_dlpack(np.zeros(3))


# --- DLPack import --------------------------------------------------------------------------------
def test_from_dlpack_numpy_zero_copy_and_vector_dtype():
    src = np.arange(12, dtype=np.float32).reshape(4, 3)
    a = wp.from_dlpack(src)
    assert a.ptr == src.ctypes.data and a.shape == (4, 3)
    a.numpy()[0, 0] = -7.0
    assert src[0, 0] == -7.0
    v = wp.from_dlpack(src, dtype=wp.vec3)
    assert v.shape == (4,) and v.dtype is wp.vec3
    strided = np.arange(24, dtype=np.float32).reshape(4, 6)[:, ::2]
    s = wp.from_dlpack(strided)
    assert s.strides == (24, 8)
    wp.launch(add_one_2d, dim=s.shape, inputs=[s])
    np.testing.assert_array_equal(strided, np.arange(24).reshape(4, 6)[:, ::2] + 1)


def test_from_dlpack_capsules_and_errors():
    torch = pytest.importorskip("torch")
    t = torch.arange(5, dtype=torch.float64)
    cap = torch.utils.dlpack.to_dlpack(t)
    a = wp.from_dlpack(cap)
    assert a.ptr == t.data_ptr() and a.dtype is wp.float64
    with pytest.raises(ValueError, match="already consumed"):
        wp.from_dlpack(cap)
    with pytest.raises(TypeError, match="expects an object with __dlpack__ or a DLPack capsule, got list"):
        wp.from_dlpack([1, 2])
    b = torch.tensor([1.5, -2.0], dtype=torch.bfloat16)     # DLPack's bfloat code, by its bits
    assert wp.from_dlpack(b).dtype is wp.bfloat16 and wp.from_dlpack(b).list() == [1.5, -2.0]
    with pytest.raises(TypeError, match="element type complex64"):
        wp.from_dlpack(np.zeros(2, np.complex64))


def test_from_dlpack_calls_producer_deleter():
    src = np.arange(4, dtype=np.float32)
    before = sys.getrefcount(src)
    a = wp.from_dlpack(src)
    assert sys.getrefcount(src) == before + 1      # the producer's capsule holds its array
    view = a[1:]
    del a
    assert sys.getrefcount(src) == before + 1      # a view keeps the import alive
    np.testing.assert_array_equal(view.numpy(), [1, 2, 3])
    del view
    assert sys.getrefcount(src) == before           # the deleter ran: the producer let go


DTYPES = [wp.float16, wp.bfloat16, wp.float32, wp.float64, wp.int8, wp.uint8, wp.int16, wp.uint16, wp.int32,
          wp.uint32, wp.int64, wp.uint64, wp.bool]


@pytest.mark.parametrize("dt", DTYPES, ids=[d.__name__ for d in DTYPES])
def test_dlpack_dtype_table_round_trip(dt):
    code = {"int": wdl.kDLInt, "uint": wdl.kDLUInt, "float": wdl.kDLFloat, "bool": wdl.kDLBool}[dt._kind]
    code = wdl.kDLBfloat if dt is wp.bfloat16 else code
    d = wdl.dtype_to_dl(dt)
    assert (d.code, d.bits, d.lanes) == (code, dt.size * 8, 1)
    assert wdl.dtype_from_dl(d) is dt
    src = wp.array(np.arange(4).astype(np.float32 if dt is wp.bfloat16 else wp.dtype_to_numpy(dt)), dtype=dt)
    back = wp.from_dlpack(wp.to_dlpack(src))
    assert back.dtype is dt and back.ptr == src.ptr
    np.testing.assert_array_equal(back.numpy(), src.numpy())
    if dt is not wp.bfloat16:    # NumPy refuses DLPack's bfloat16
        np.testing.assert_array_equal(np.from_dlpack(src), src.numpy())


def test_framework_consumers_of_wp_arrays():
    torch = pytest.importorskip("torch")
    jax = pytest.importorskip("jax")
    warp_array = wp.array(np.arange(4, dtype=np.float32))
    jax_array = jax.dlpack.from_dlpack(warp_array)
    torch_tensor = torch.utils.dlpack.from_dlpack(warp_array)
    assert torch_tensor.data_ptr() == warp_array.ptr == jax_array.unsafe_buffer_pointer()
    # capsules: JAX 0.10's from_dlpack takes only objects with __dlpack__ (it dropped capsules)
    torch_tensor = torch.utils.dlpack.from_dlpack(wp.to_dlpack(warp_array))
    torch_tensor[0] = 9.0
    assert warp_array.numpy()[0] == 9.0 and float(jax_array[0]) == 9.0
    # and the import side of the reference snippet
    jax_src = jax.numpy.arange(3, dtype=jax.numpy.float32)
    torch_src = torch.arange(3, dtype=torch.float32)
    warp_array1 = wp.from_dlpack(jax.dlpack.to_dlpack(jax_src)) if hasattr(jax.dlpack, "to_dlpack") \
        else wp.from_dlpack(jax_src)
    warp_array2 = wp.from_dlpack(torch.utils.dlpack.to_dlpack(torch_src))
    assert warp_array1.ptr == jax_src.unsafe_buffer_pointer()
    assert warp_array2.ptr == torch_src.data_ptr()
    warp_array = wp.from_dlpack(torch_src)
    assert warp_array.ptr == torch_src.data_ptr()


def test_ctypes_struct_layouts_match_dlpack_h():
    # dlpack.h: DLTensor is 48 bytes, DLManagedTensor 64, DLManagedTensorVersioned 80
    assert ctypes.sizeof(wdl.DLTensor) == 48
    assert ctypes.sizeof(wdl.DLManagedTensor) == 64
    assert ctypes.sizeof(wdl.DLManagedTensorVersioned) == 80
    assert wdl.DLManagedTensorVersioned.dl_tensor.offset == 32


def test_versioned_capsule_flags():
    a = wp.array(np.arange(3, dtype=np.float32))
    for copy, flags in ((None, 0), (True, wdl.FLAG_IS_COPIED)):
        cap = a.__dlpack__(max_version=(1, 0), copy=copy)
        ptr = wdl._GetPointer(cap, b"dltensor_versioned")
        m = wdl.DLManagedTensorVersioned.from_address(ptr)
        assert (m.version.major, m.version.minor) == (1, 0) and m.flags == flags
        assert (m.dl_tensor.data == a.ptr) == (copy is None)
        b = wp.from_dlpack(cap)
        np.testing.assert_array_equal(b.numpy(), a.numpy())
