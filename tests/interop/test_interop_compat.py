"""Zero-copy imports with warp-lang 1.19's aliasing rules and errors (DLPack and PyTorch).

A scalar dtype given to ``from_dlpack``/``from_torch`` may reinterpret the source's elements only
where the bits mean the same sizes: the same type, integers of the same size whatever their
signedness, bool bytes as int8/uint8. Everything else is refused with warp-lang's text (a
RuntimeError there; here also a TypeError). The expected table below is written from that rule
(warp-lang's documented behaviour), independently of the code under test.
"""

import ctypes
import itertools

import numpy as np
import pytest

import warp_interactive as wp

SCALARS = [wp.bool, wp.int8, wp.uint8, wp.int16, wp.uint16, wp.int32, wp.uint32, wp.int64,
           wp.uint64, wp.float16, wp.float32, wp.float64]
INTS = {wp.int8: 1, wp.uint8: 1, wp.int16: 2, wp.uint16: 2, wp.int32: 4, wp.uint32: 4,
        wp.int64: 8, wp.uint64: 8}


def allowed(src, dst):
    if src is dst:
        return True
    if src in INTS and dst in INTS:
        return INTS[src] == INTS[dst]
    return src is wp.bool and dst in (wp.int8, wp.uint8)


DL_NAMES = {wp.bool: "bool8", wp.float16: "float16", wp.float32: "float32", wp.float64: "float64"}
DL_NAMES.update({t: f"{'u' if t.__name__.startswith('u') else ''}int{8 * n}" for t, n in INTS.items()})


@pytest.mark.parametrize("src,dst", list(itertools.product(SCALARS, SCALARS)),
                         ids=lambda t: t.__name__)
def test_from_dlpack_reinterpretation_table(src, dst):
    values = np.array([1, 0, 1, 1, 0, 1])
    a = wp.array(values.astype(np.dtype(src._np_dtype)), dtype=src)
    if allowed(src, dst):
        b = wp.from_dlpack(wp.to_dlpack(a), dtype=dst)
        assert (b.ptr, b.shape, b.strides, b.dtype) == (a.ptr, a.shape, a.strides, dst)
        np.testing.assert_array_equal(b.numpy(), values.astype(np.dtype(dst._np_dtype)))
    else:
        expected = f"Incompatible data types: DLPack {DL_NAMES[src]} and Warp {dst.__name__}"
        with pytest.raises(RuntimeError, match=expected):
            wp.from_dlpack(wp.to_dlpack(a), dtype=dst)
        with pytest.raises(TypeError, match="the scalar types differ"):
            wp.from_dlpack(wp.to_dlpack(a), dtype=dst)


def test_from_dlpack_vector_of_aliased_integers():
    a = wp.array(np.arange(-3, 3, dtype=np.int32).reshape(2, 3))
    v = wp.from_dlpack(wp.to_dlpack(a), dtype=wp.types.vector(3, wp.uint32))
    assert v.shape == (2,) and v.ptr == a.ptr
    np.testing.assert_array_equal(v.numpy(), np.arange(-3, 3).astype(np.uint32).reshape(2, 3))


def test_from_dlpack_unsupported_device_is_refused_before_export():
    class Source:
        exported = False

        def __dlpack_device__(self):
            return (123, 7)

        def __dlpack__(self, stream=None, max_version=None):
            Source.exported = True

    with pytest.raises(TypeError, match="Unsupported source device for DLPack: device_type=123, device_id=7"):
        wp.from_dlpack(Source())
    assert not Source.exported


def test_from_dlpack_producer_returning_no_capsule():
    class Source:
        def __dlpack_device__(self):
            return (1, 0)

        def __dlpack__(self, stream=None):
            return object()

    with pytest.raises(TypeError, match="Expected a valid DLPack capsule, got object"):
        wp.from_dlpack(Source())


@pytest.mark.parametrize("t", SCALARS + [wp.bfloat16], ids=lambda t: t.__name__)
def test_scalar_types_ctype_and_length(t):
    """``_type_`` is the ctypes storage and ``_length_`` one component, as on composite types."""
    assert t._length_ == 1
    assert ctypes.sizeof(t._type_) == np.dtype(t._np_dtype).itemsize
    vec = wp.types.vector(3, t)
    assert vec._type_ is t._type_ and vec._length_ == 3


# --- PyTorch (optional) --------------------------------------------------------------------------
TORCH_NAMES = {wp.bool: "bool", wp.int8: "int8", wp.uint8: "uint8", wp.int16: "int16",
               wp.int32: "int32", wp.int64: "int64", wp.float16: "float16",
               wp.float32: "float32", wp.float64: "float64"}


@pytest.mark.parametrize("src,dst", list(itertools.product(TORCH_NAMES, SCALARS)),
                         ids=lambda t: t.__name__)
def test_from_torch_reinterpretation_table(src, dst):
    torch = pytest.importorskip("torch")
    tdt = getattr(torch, TORCH_NAMES[src])
    values = np.array([1, 0, 1, 1])
    t = torch.tensor(values).to(tdt)
    if allowed(src, dst):
        a = wp.from_torch(t, dst)
        assert a.dtype is dst and a.ptr == t.data_ptr() and a.shape == (4,)
        np.testing.assert_array_equal(a.numpy(), values.astype(np.dtype(dst._np_dtype)))
        d = wp.from_torch(t, dtype=dst, return_ctype=True)
        assert d.data == t.data_ptr() and d.strides[0] == ctypes.sizeof(dst._type_)
    else:
        with pytest.raises(RuntimeError, match=f"Incompatible data types: Torch type {tdt} and Warp {dst.__name__}"):
            wp.from_torch(t, dst)


@pytest.mark.parametrize("warp_type,name", [
    (wp.uint8, "uint8"), (wp.uint16, "int16"), (wp.uint32, "int32"), (wp.uint64, "int64"),
    (wp.int16, "int16"), (wp.bool, "bool"), (wp.vec3h, "float16")])
def test_dtype_to_torch_maps_wide_unsigned_to_signed(warp_type, name):
    """warp-lang's documented mapping: torch's uint16/32/64 support few operations."""
    torch = pytest.importorskip("torch")
    assert wp.dtype_to_torch(warp_type) == getattr(torch, name)


def test_to_torch_keeps_unsigned_storage_type():
    torch = pytest.importorskip("torch")
    for n in (0, 3):   # the empty path builds its tensor from the dtype, the other from the memory
        a = wp.array(np.arange(n, dtype=np.uint16))
        assert wp.to_torch(a).dtype == torch.uint16


@pytest.mark.parametrize("make,expected", [
    (lambda torch: torch.arange(6.0).reshape(1, 6)[:, 3:], 12),
    (lambda torch: torch.arange(24.0).reshape(4, 6)[1:3, 2:5], 64),
    (lambda torch: torch.arange(24.0).reshape(4, 6)[2:, 1::2], 44),
    (lambda torch: torch.arange(24.0), 96),
    (lambda torch: torch.zeros(0), 0)])
def test_from_torch_capacity_is_the_rest_of_the_storage(make, expected):
    """A view's capacity: the storage's bytes from the view's first element on."""
    torch = pytest.importorskip("torch")
    t = make(torch)
    assert wp.from_torch(t).capacity == expected


def test_from_torch_retain_grad():
    torch = pytest.importorskip("torch")
    t = torch.zeros(10, requires_grad=True)
    assert wp.from_torch(t, requires_grad=True, retain_grad=True).retain_grad
    assert not wp.from_torch(t, requires_grad=True).retain_grad
    with pytest.raises(ValueError, match="retain_grad=True needs requires_grad=True"):
        wp.from_torch(torch.zeros(3), retain_grad=True)
