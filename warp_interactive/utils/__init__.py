"""``wp.utils``: warp-lang's array utilities (reductions, scans, sorts, run-length encoding, casts).

Same names, arguments, results and errors as warp-lang's ``warp.utils``. They compute on the
host with NumPy: a CPU array is read and written in place, a CUDA array makes a round trip
through host memory (warp-lang runs device kernels there; results are the same, ordering of
floating-point sums aside). They are not recorded by graph captures.
"""

import operator

import numpy as np

from ..types import scalars as sc
from ..types.dtypes import scalar_of, type_repr
from ..types.array import array
from ..types.introspection import type_size, type_size_in_bytes, types_equal

__all__ = ["array_cast", "array_inner", "array_scan", "array_sum", "radix_sort_pairs",
           "runlength_encode", "segmented_sort_pairs"]


def _scalar(t):
    """The scalar type of a scalar, vector or matrix dtype (a struct: itself)."""
    return scalar_of(t) or t


def _flat(a):
    """The array's elements in row-major order, one row per element ((n,) or (n, components))."""
    host = np.ascontiguousarray(a.numpy())
    return host.reshape((a.size,) + host.shape[a.ndim:]) if a.ndim else host


def _store_flat(a, flat):
    """Write ``flat`` (row-major elements) back into ``a``."""
    a.assign(np.asarray(flat).reshape(a.numpy().shape))


# ---------------------------------------------------------------- reductions


def _reduction_axis(operation, axis, ndim):
    axis = operator.index(axis)
    if axis < -ndim or axis >= ndim:
        raise IndexError(f"{operation}() axis {axis} is out of bounds for an array with {ndim} dimensions")
    return axis % ndim


def _reduce(operation, arrays, out, count, axis, out_dtype):
    """Sum of the elementwise product of ``arrays`` (one array: its sum), warp-lang's rules:
    without axis the first ``count`` elements in memory order, a (1,) result; with an axis the
    first ``count`` entries along it, the axis kept with size 1."""
    first = arrays[0]
    if axis is not None:
        axis = _reduction_axis(operation, axis, first.ndim)
    if count is None:
        count = first.size if axis is None else first.shape[axis]
    shape = (1,) if axis is None else tuple(1 if d == axis else n for d, n in enumerate(first.shape))
    host_return = out is None
    if out is None:
        out = array(shape=shape, dtype=out_dtype, device=first.device)
    else:
        if out.device != first.device:
            raise RuntimeError(f"out storage device should match {'values' if len(arrays) == 1 else 'a'} array")
        if not types_equal(out.dtype, out_dtype):
            raise RuntimeError(f"out array should have type {type_repr(out_dtype)}")
        if tuple(out.shape) != shape:
            raise RuntimeError(f"out array should have shape {shape}")
    if _scalar(first.dtype) not in (sc.float32, sc.float64):
        raise RuntimeError(f"Unsupported data type: {type_repr(first.dtype)}")
    result = _host_reduce(arrays, count, axis, out_dtype)
    out.assign(result.reshape(out.numpy().shape))
    if axis is None and host_return:
        return out.numpy()[0]
    return out


def _host_reduce(arrays, count, axis, out_dtype):
    hosts = [a.numpy() for a in arrays]
    ndim = arrays[0].ndim
    if axis is None:
        parts = [_flat(a)[:max(count, 0)] for a in arrays]
        prod = parts[0] if len(parts) == 1 else parts[0] * parts[1]
        total = prod.sum(axis=0)
        if len(parts) == 2:                       # inner product: every component adds
            total = np.asarray(total).sum()
        return np.asarray(total)
    sl = tuple(slice(0, max(count, 0)) if d == axis else slice(None) for d in range(ndim))
    parts = [h[sl] for h in hosts]
    prod = parts[0] if len(parts) == 1 else parts[0] * parts[1]
    total = prod.sum(axis=axis, keepdims=True)
    if len(parts) == 2 and total.ndim > ndim:    # composite elements: their products add up
        total = total.reshape(total.shape[:ndim] + (-1,)).sum(axis=-1)
    return total


def array_sum(values, out=None, value_count=None, axis=None):
    """Sum of ``values``' elements (all of them, or the first ``value_count``), or along ``axis``
    into an array with that axis of size 1. Returns a value when neither ``axis`` nor ``out``
    is given, else ``out``. float32/float64 scalars, vectors and matrices."""
    return _reduce("array_sum", (values,), out, value_count, axis, values.dtype)


def array_inner(a, b, out=None, count=None, axis=None):
    """Inner product of ``a`` and ``b`` (same shape and dtype): over the flattened arrays, or
    along ``axis``. Returns a value when neither ``axis`` nor ``out`` is given, else ``out``."""
    if tuple(a.shape) != tuple(b.shape):
        raise ValueError(f"array_inner() arguments must have the same shape, got {a.shape} and {b.shape}")
    if a.device != b.device:
        raise RuntimeError(f"A and b array storage devices do not match ({a.device} vs {b.device})")
    if not types_equal(a.dtype, b.dtype):
        raise RuntimeError(f"A and b array data types do not match ({type_repr(a.dtype)} vs {type_repr(b.dtype)})")
    return _reduce("array_inner", (a, b), out, count, axis, _scalar(a.dtype))


# ---------------------------------------------------------------- scan


_SCAN_SCALARS = ("int32", "int64", "float32", "float64")


def array_scan(in_array, out_array, inclusive=True):
    """Prefix sums of ``in_array`` into ``out_array`` (component-wise for vectors): inclusive
    (``out[i] = in[0] + ... + in[i]``) or exclusive (``out[0] = 0``)."""
    if in_array.device != out_array.device:
        raise RuntimeError(f"In and out array storage devices do not match ({in_array.device} vs {out_array.device})")
    if in_array.size != out_array.size:
        raise RuntimeError(f"In and out array storage sizes do not match ({in_array.size} vs {out_array.size})")
    if not types_equal(in_array.dtype, out_array.dtype):
        raise RuntimeError(f"In and out array data types do not match "
                           f"({type_repr(in_array.dtype)} vs {type_repr(out_array.dtype)})")
    if in_array.size == 0:
        return
    scalar = _scalar(in_array.dtype)
    if getattr(scalar, "__name__", "") not in _SCAN_SCALARS or getattr(in_array.dtype, "_shape_", ()).__len__() > 1:
        raise RuntimeError(f"Unsupported data type: {type_repr(in_array.dtype)}")
    flat = _flat(in_array)
    acc = np.cumsum(flat, axis=0, dtype=flat.dtype)
    if not inclusive:
        acc = np.concatenate([np.zeros_like(acc[:1]), acc[:-1]])
    _store_flat(out_array, acc)


# ---------------------------------------------------------------- sorting


def _sort_bits(keys, begin_bit, end_bit):
    """Unsigned integers that order as the keys do (radix sort's key twiddling), restricted to
    bits [begin_bit, end_bit)."""
    width = keys.dtype.itemsize * 8
    unsigned = np.dtype(f"uint{width}")
    bits = keys.view(unsigned).copy()
    sign = unsigned.type(1 << (width - 1))
    if keys.dtype.kind == "f":          # negative floats: all bits flipped; others: the sign bit
        negative = (bits & sign) != 0
        bits = np.where(negative, ~bits, bits | sign)
    elif keys.dtype.kind == "i":
        bits = bits ^ sign
    bits = bits >> unsigned.type(begin_bit)
    span = end_bit - begin_bit
    if span < width:
        bits = bits & unsigned.type((1 << span) - 1)
    return bits


_KEY_BITS = {"int32": 32, "uint32": 32, "float32": 32, "int64": 64, "uint64": 64, "float64": 64}


def radix_sort_pairs(keys, values, count, begin_bit=0, end_bit=None):
    """Stable sort of the first ``count`` (key, value) pairs by key, in place (``keys`` and
    ``values`` hold at least ``2 * count`` elements, as warp-lang requires: the second half is
    its scratch space). ``begin_bit``/``end_bit`` sort by those key bits only."""
    if keys.device != values.device:
        raise RuntimeError(f"Keys and values array storage devices do not match ({keys.device} vs {values.device})")
    if count == 0:
        return
    if keys.size < 2 * count or values.size < 2 * count:
        raise RuntimeError("Keys and values array storage must be large enough to contain 2*count elements")
    pair_types = f"{type_repr(keys.dtype)}, {type_repr(values.dtype)}"
    if type_size_in_bytes(values.dtype) not in (4, 8):
        raise RuntimeError(f"Unsupported keys and values data types: {pair_types}")
    for name, a in (("keys", keys), ("values", values)):
        if not a.is_contiguous:
            raise RuntimeError(f"radix_sort_pairs() requires a contiguous {name} array, got non-contiguous "
                               f"{name} with data types: {pair_types}")
    width = _KEY_BITS.get(type_repr(keys.dtype))
    if width is None:
        raise RuntimeError(f"Unsupported keys and values data types: {pair_types}")
    end_bit = width if end_bit is None else end_bit
    if not isinstance(begin_bit, int) or not isinstance(end_bit, int):
        raise RuntimeError("begin_bit and end_bit must be integers")
    if not 0 <= begin_bit <= end_bit <= width:
        raise RuntimeError(f"Invalid radix sort bit range [{begin_bit}, {end_bit}) for {width}-bit keys")
    if begin_bit == end_bit:
        return
    k, v = _flat(keys), _flat(values)
    order = np.argsort(_sort_bits(k[:count], begin_bit, end_bit), kind="stable")
    k[:count], v[:count] = k[:count][order], v[:count][order]
    _store_flat(keys, k)
    _store_flat(values, v)


def _check_count(count):
    if isinstance(count, bool):
        raise TypeError("count must be an integer")
    try:
        count = operator.index(count)
    except TypeError as e:
        raise TypeError("count must be an integer") from e
    if count < 0:
        raise ValueError(f"count must be non-negative, got {count}")
    if count > (1 << 31) - 1:
        raise ValueError(f"count must not exceed {(1 << 31) - 1}, got {count}")
    return count


def _segment_bounds(count, starts, ends):
    for name, seg in (("segment_start_indices", starts), ("segment_end_indices", ends)):
        if seg is None:
            continue
        if seg.dtype is not sc.int32:
            raise RuntimeError(f"{name} array must be of type int32")
        if seg.ndim != 1:
            raise RuntimeError(f"{name} must be one-dimensional")
        if not seg.is_contiguous:
            raise RuntimeError(f"segmented_sort_pairs() requires a contiguous {name} array")
    s = starts.numpy().astype(np.int64)
    if ends is None:
        s, e = s[:-1], s[1:]
    else:
        if starts.size != ends.size:
            raise RuntimeError("segment_start_indices and segment_end_indices must have the same length "
                               f"({starts.size} vs {ends.size})")
        e = ends.numpy().astype(np.int64)
    for lo, hi in zip(s, e):
        if not 0 <= lo <= hi <= count:
            raise ValueError(f"invalid segment [{lo}, {hi}): segments must satisfy 0 <= start <= end <= count ({count})")
    return s, e


def segmented_sort_pairs(keys, values, count, segment_start_indices, segment_end_indices=None):
    """Stable sort, in place, of the (key, value) pairs within each segment ``[start, end)`` of
    the first ``count``: the segments are given by start and end index arrays, or by adjacent
    entries of the start array alone. int32/float32 keys, int32 values."""
    count = _check_count(count)
    segs = [a for a in (segment_start_indices, segment_end_indices) if a is not None]
    if keys.device != values.device or any(a.device != keys.device for a in segs):
        raise RuntimeError("Keys, values, and segment index array storage devices must match")
    if count == 0:
        return
    if keys.size < 2 * count or values.size < 2 * count:
        raise RuntimeError("Array storage must be large enough to contain 2*count elements")
    for name, a in (("keys", keys), ("values", values)):
        if not a.is_contiguous:
            raise RuntimeError(f"segmented_sort_pairs() requires a contiguous {name} array")
    if keys.dtype not in (sc.int32, sc.float32) or values.dtype is not sc.int32:
        raise RuntimeError(f"Unsupported keys and values data types: "
                           f"{type_repr(keys.dtype)}, {type_repr(values.dtype)}")
    starts, ends = _segment_bounds(count, segment_start_indices, segment_end_indices)
    k, v = _flat(keys), _flat(values)
    for lo, hi in zip(starts, ends):
        order = np.argsort(_sort_bits(k[lo:hi], 0, 32), kind="stable")
        k[lo:hi], v[lo:hi] = k[lo:hi][order], v[lo:hi][order]
    _store_flat(keys, k)
    _store_flat(values, v)


# ---------------------------------------------------------------- run-length encoding


def runlength_encode(values, run_values, run_lengths, run_count=None, value_count=None):
    """Runs of equal consecutive int32 ``values`` (the first ``value_count``): each run's value
    and length into ``run_values``/``run_lengths``. Returns the number of runs, or, when a
    ``run_count`` array is given, that array holding it."""
    if run_values.device != values.device or run_lengths.device != values.device:
        raise RuntimeError("run_values, run_lengths and values storage devices do not match")
    if value_count is None:
        value_count = values.size
    elif value_count < 0:
        raise RuntimeError(f"value_count must be non-negative, got {value_count}")
    if run_values.size < value_count or run_lengths.size < value_count:
        raise RuntimeError(f"Output array storage sizes must be at least equal to value_count ({value_count})")
    if not types_equal(values.dtype, run_values.dtype):
        raise RuntimeError(f"values and run_values data types do not match "
                           f"({type_repr(values.dtype)} vs {type_repr(run_values.dtype)})")
    if run_lengths.dtype is not sc.int32:
        raise RuntimeError("run_lengths array must be of type int32")
    if run_count is not None:
        if run_count.device != values.device:
            raise RuntimeError("run_count storage device does not match other arrays")
        if run_count.dtype is not sc.int32:
            raise RuntimeError("run_count array must be of type int32")
    if value_count == 0:
        if run_count is None:
            return 0
        run_count.zero_()
        return run_count
    if values.dtype is not sc.int32:
        raise RuntimeError(f"Unsupported data type: {type_repr(values.dtype)}")
    v = _flat(values)[:value_count]
    starts = np.flatnonzero(np.concatenate([[True], v[1:] != v[:-1]]))
    lengths = np.diff(np.append(starts, value_count)).astype(np.int32)
    rv, rl = _flat(run_values), _flat(run_lengths)
    rv[:len(starts)], rl[:len(starts)] = v[starts], lengths
    _store_flat(run_values, rv)
    _store_flat(run_lengths, rl)
    if run_count is None:
        return len(starts)
    run_count.assign(np.array([len(starts)], dtype=np.int32))
    return run_count


# ---------------------------------------------------------------- cast


def array_cast(in_array, out_array, count=None):
    """Convert ``in_array``'s elements to ``out_array``'s dtype (as ``dtype(x)`` in a kernel:
    float to int truncates). Arrays of other dimensions or element shapes are cast scalar by
    scalar over their flattened storage; ``count`` limits a 1-d (or flattened) cast."""
    if in_array.device != out_array.device:
        raise RuntimeError(f"Array storage devices do not match ({in_array.device} vs {out_array.device})")
    src, dst = in_array.numpy(), out_array.numpy()
    in_shape = getattr(in_array.dtype, "_shape_", ())
    out_shape = getattr(out_array.dtype, "_shape_", ())
    flat = in_array.ndim != out_array.ndim or tuple(in_shape) != tuple(out_shape)
    if flat:                            # scalar by scalar over the flattened storage
        src, dst = src.reshape(-1), dst.reshape(-1).copy()
        if count is not None:
            count *= type_size(in_array.dtype)
    if count is None:
        count = src.size if flat else in_array.size
    if not flat and in_array.ndim > 1 and count < in_array.size:
        raise RuntimeError("Partial cast is not supported for arrays with more than one dimension")
    if not flat and in_array.ndim > 1 and tuple(in_array.shape) != tuple(out_array.shape):
        raise RuntimeError(f"Array shapes do not match ({in_array.shape} vs {out_array.shape})")
    n_in, n_out = (src.size, dst.size) if flat else (in_array.size, out_array.size)
    if count > n_in or count > n_out:
        raise RuntimeError(f"Cast count ({count}) exceeds the input size ({n_in}) or output size ({n_out})")
    dst = dst.copy()
    if flat or in_array.ndim == 1:
        dst[:count] = src[:count].astype(dst.dtype)
    else:
        dst[...] = src.astype(dst.dtype)
    out_array.assign(dst.reshape(out_array.numpy().shape))


class AllocatorRmm:
    """A ``wp.Allocator`` drawing CUDA memory from RAPIDS Memory Manager (``rmm``): use it with
    ``wp.set_cuda_allocator(wp.utils.AllocatorRmm())``. Raises ImportError without rmm."""

    def __init__(self):
        import rmm  # noqa: F401  (the ImportError says rmm is missing)
        self._rmm = rmm
        self._buffers = {}

    def allocate(self, size_in_bytes):
        buf = self._rmm.DeviceBuffer(size=int(size_in_bytes))
        self._buffers[int(buf.ptr)] = buf
        return int(buf.ptr)

    def deallocate(self, ptr, size_in_bytes):
        self._buffers.pop(int(ptr), None)


def transform_expand(t):
    """A ``wp.transformf`` from a flat sequence of 7 numbers: position (3), then rotation
    quaternion (x, y, z, w)."""
    from ..types.composite import transformation
    from ..types.scalars import float32
    return transformation(float32)(np.asarray(t[0:3], dtype=np.float32), np.asarray(t[3:7], dtype=np.float32))


# graph colouring and Python functions as Warp functions (their own modules; wp.utils.X names)
from .coloring import (GraphColoringAlgorithm, graph_coloring_assign, graph_coloring_balance,  # noqa: E402
                       graph_coloring_get_groups)
from .function_source import create_warp_function  # noqa: E402

__all__ += ["GraphColoringAlgorithm", "graph_coloring_assign", "graph_coloring_balance",
            "graph_coloring_get_groups", "create_warp_function"]
