"""Python values in and out of arrays, as warp-lang reads and writes them: fill values
(a scalar for every component, a flat or nested list or NumPy array of one element, a wp
vector/matrix, a struct instance), the dtype ``wp.full`` infers from a value, ``array.list()``
(one Python value per element: ``int``/``float``/``bool``, wp vectors and matrices, struct
instances) and ``array.view(dtype)`` (the same bytes read as another type)."""

import numpy as np

from .composite import is_composite, matrix, vector
from .dtypes import element_shape, np_dtype_of, scalar_of, type_repr, type_size
from .scalars import Scalar, bool_, dtype_from_numpy


def fill_value(dtype, value):
    """``value`` as one element of ``dtype`` in NumPy form (its component array, or a record)."""
    if hasattr(value, "numpy_view"):
        value = value.numpy_view()
    if hasattr(dtype, "_np_struct_dtype"):
        if isinstance(value, np.void) or (isinstance(value, np.ndarray) and value.dtype.fields):
            return np.asarray(value, dtype=dtype._np_struct_dtype)
        return dtype._to_numpy_records([value])[0]
    es = element_shape(dtype)
    v = np.asarray(value, dtype=np_dtype_of(dtype))
    if not es or v.size == 1:
        return v.reshape(()) if v.size == 1 else v
    if v.size != int(np.prod(es)):
        raise ValueError(f"cannot fill an array of {type_repr(dtype)} (elements of shape {es}) "
                         f"with a value of shape {v.shape}")
    return v.reshape(es)


def dtype_of_value(value):
    """The element type ``wp.full`` gives a value: its own type for wp values; a vector or
    matrix of the NumPy scalar type for a 1-d or 2-d sequence; else as Python's."""
    if hasattr(value, "numpy_view") or hasattr(value, "_wp_struct_") or isinstance(value, Scalar):
        return type(value)
    if isinstance(value, (bool, np.bool_)):
        return bool_
    if isinstance(value, (list, tuple, np.ndarray)):
        v = np.asarray(value)
        s = dtype_from_numpy(v.dtype)
        if v.ndim == 1:
            return vector(v.shape[0], s)
        if v.ndim == 2:
            return matrix(v.shape, s)
        raise ValueError(f"wp.full(): a fill value of shape {v.shape} is neither a vector nor a matrix")
    return float if isinstance(value, (float, np.floating)) else int


def to_list(a):
    """The elements of ``a`` in row-major order, one Python value each."""
    flat = a.numpy().reshape((a.size,) + element_shape(a.dtype)) if a.size else ()
    if is_composite(a.dtype):
        return [a.dtype(x) for x in flat]
    if hasattr(a.dtype, "_from_record"):
        return [a.dtype._from_record(x, device=a.device) for x in flat]
    return [x.item() for x in flat]


def view_as(a, dtype):
    """(shape, strides) of ``a``'s bytes read as elements of ``dtype``: a type of the same size
    keeps the shape; a scalar of a composite's component type adds its dimensions; a composite
    of the array's scalar type consumes the trailing ones (warp-lang's rules)."""
    src, dst = a.dtype, dtype
    if type_size(src) == type_size(dst):
        return a.shape, a.strides
    ssrc, sdst = scalar_of(src), scalar_of(dst)
    es_src, es_dst = element_shape(src), element_shape(dst)
    if es_src and not es_dst and ssrc is not None and type_size(ssrc) == type_size(dst):
        inner = _contiguous(es_src, type_size(dst))
        return a.shape + es_src, a.strides + inner
    if es_dst and not es_src and type_size(src) == type_size(sdst):
        n = len(es_dst)
        if a.ndim >= n and a.shape[a.ndim - n:] == es_dst and \
                a.strides[a.ndim - n:] == _contiguous(es_dst, type_size(src)):
            shape, strides = a.shape[:a.ndim - n], a.strides[:a.ndim - n]
            return (shape, strides) if shape else ((1,), (type_size(dst),))
        raise TypeError(f"cannot create an array view with dtype {type_repr(dst)}: the source's "
                        f"trailing dimensions {a.shape} (strides {a.strides}) are not one "
                        f"contiguous {type_repr(dst)}")
    if es_src and not es_dst and ssrc is not None:
        raise TypeError(f"cannot create an array view with dtype {type_repr(dst)} from source "
                        f"dtype {type_repr(src)}: source scalar dtype {type_repr(ssrc)} has size "
                        f"{type_size(ssrc)} bytes, but target dtype has size {type_size(dst)} bytes")
    if es_dst and sdst is not None:
        raise TypeError(f"cannot create an array view with dtype {type_repr(dst)} from source "
                        f"dtype {type_repr(src)}: source dtype has size {type_size(src)} bytes, but "
                        f"target scalar dtype {type_repr(sdst)} has size {type_size(sdst)} bytes")
    raise TypeError(f"cannot create an array view with dtype {type_repr(dst)} from source dtype "
                    f"{type_repr(src)}: source dtype has size {type_size(src)} bytes, but target "
                    f"dtype has size {type_size(dst)} bytes")


def _contiguous(shape, itemsize):
    strides, acc = [], itemsize
    for n in reversed(shape):
        strides.append(acc)
        acc *= n
    return tuple(reversed(strides))
