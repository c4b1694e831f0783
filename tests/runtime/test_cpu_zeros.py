"""Zero-filled CPU allocations (``wp.zeros``, ``wp.zeros_like``, ``wp.empty`` and pinned arrays):
every byte is zero, a struct's padding too, also when the memory is what a freed array of the same
size held (filled with 0xFF before it went), for every kind of dtype and size (below NumPy's
small-block cache, and from the heap), and the data starts at a 64-byte boundary."""

import ctypes
import gc

import numpy as np
import pytest

import warp_interactive as wp


@wp.struct
class Padded:
    a: wp.int8          # 3 bytes of padding follow: they must be zero too
    b: wp.float32
    c: wp.vec3d


DTYPES = [wp.bool, wp.int8, wp.uint8, wp.int16, wp.uint16, wp.int32, wp.uint32, wp.int64, wp.uint64,
          wp.float16, wp.float32, wp.float64, wp.vec3, wp.vec2h, wp.mat22d, wp.quat, wp.transform, Padded]
# element counts: a few bytes (NumPy's cached small blocks), ~100 KB and a few MB (the heap)
COUNTS = [3, 4099, 200_000]


def _bytes(a):
    """The array's raw bytes, read through its pointer (not through its NumPy view)."""
    n = a.size * wp.types.type_size_in_bytes(a.dtype)
    return np.ctypeslib.as_array((ctypes.c_uint8 * n).from_address(a.ptr))


def _dirty(make):
    """Make an array like ``make`` does, set all its bytes to 0xFF and free it."""
    a = make()
    _bytes(a)[...] = 0xFF
    del a
    gc.collect()


def _check(a, count):
    assert a.ptr % 64 == 0
    assert a.size == count
    raw = _bytes(a)
    assert raw.size and not raw.any(), f"{np.count_nonzero(raw)} non-zero bytes of {raw.size}"


@pytest.mark.parametrize("count", COUNTS)
@pytest.mark.parametrize("dtype", DTYPES, ids=wp.types.type_repr)
def test_zeros_are_zero_after_reuse_of_freed_memory(dtype, count):
    make = lambda: wp.zeros(count, dtype=dtype, device="cpu")      # noqa: E731
    for _ in range(2):          # a freed block of this size is what the allocator hands out next
        _dirty(make)
        a = make()
        _check(a, count)
        assert np.all(a.numpy() == np.zeros((), dtype=a.numpy().dtype))
        del a


@pytest.mark.parametrize("count", COUNTS)
@pytest.mark.parametrize("how", ["zeros_2d", "zeros_like", "empty", "pinned", "array_shape"])
def test_other_zero_filled_allocations(how, count):
    make = {
        "zeros_2d": lambda: wp.zeros((count, 2), dtype=wp.float32, device="cpu"),
        "zeros_like": lambda: wp.zeros_like(wp.ones(count, dtype=wp.vec2d, device="cpu")),
        "empty": lambda: wp.empty(count, dtype=wp.int64, device="cpu"),
        "pinned": lambda: wp.zeros(count, dtype=wp.float64, device="cpu", pinned=True),
        "array_shape": lambda: wp.array(shape=(count,), dtype=wp.uint16, device="cpu"),
    }[how]
    for _ in range(2):
        _dirty(make)
        a = make()
        _check(a, a.size)
        del a


def test_kernel_writes_into_fresh_zeros_and_free_accounting():
    """A zeroed array is ordinary memory: written, read back, and counted by the memory tracker
    with its logical size (not the padded buffer's)."""
    from warp_interactive.runtime.memory_tracker import tracker
    with wp.ScopedMemoryTracker("z", print=False) as t:
        t.clear()
        a = wp.zeros(1_300_000, dtype=wp.float64, device="cpu")
        live = [r for r in tracker.live.values() if r.label == "array[float64, 1300000]"]
        assert live and live[-1].nbytes == 1_300_000 * 8
        a.fill_(2.5)
        np.testing.assert_array_equal(a.numpy(), np.full(1_300_000, 2.5))
        a.zero_()
        assert not a.numpy().any()
        del a
        gc.collect()
        assert not [r for r in tracker.live.values() if r.label == "array[float64, 1300000]"]


@pytest.mark.parametrize("count", COUNTS)
@pytest.mark.parametrize("dtype", DTYPES, ids=wp.types.type_repr)
def test_zero_clears_every_byte_like_zeros(dtype, count):
    """``a.zero_()`` leaves the same bytes as ``wp.zeros``: a struct's padding is zeroed too."""
    a = wp.zeros(count, dtype=dtype, device="cpu")
    _bytes(a)[...] = 0xFF
    a.zero_()
    _check(a, count)


@pytest.mark.parametrize("dtype", [Padded, wp.float32, wp.vec3d], ids=wp.types.type_repr)
def test_zero_of_a_strided_view_clears_only_its_elements(dtype):
    """On a strided view every byte of the viewed elements (padding too) is zeroed, and the
    elements between them keep their bytes."""
    a = wp.zeros(10, dtype=dtype, device="cpu")
    raw = _bytes(a)
    raw[...] = 0xFF
    a[1::3].zero_()
    size = wp.types.type_size_in_bytes(dtype)
    per = raw.reshape(10, size)
    assert not per[1::3].any()
    mask = np.ones(10, dtype=bool)
    mask[1::3] = False
    assert (per[mask] == 0xFF).all()


@pytest.mark.parametrize("dtype", [Padded, wp.float32, wp.vec3d], ids=wp.types.type_repr)
def test_zero_of_an_indexed_array_clears_every_byte_of_its_elements(dtype):
    """``wp.indexedarray(...).zero_()`` zeroes every byte of the selected elements (a struct's
    padding too, as ``a.zero_()``) and leaves the others' bytes as they were."""
    a = wp.zeros(10, dtype=dtype, device="cpu")
    raw = _bytes(a)
    raw[...] = 0xFF
    picked = [7, 2, 5]
    wp.indexedarray(a, [wp.array(picked, dtype=wp.int32, device="cpu")]).zero_()
    per = raw.reshape(10, wp.types.type_size_in_bytes(dtype))
    assert not per[picked].any()
    mask = np.ones(10, dtype=bool)
    mask[picked] = False
    assert (per[mask] == 0xFF).all()
