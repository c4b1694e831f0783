"""What an element type (scalar, composite or struct) looks like in memory and in NumPy."""

from .composite import is_composite
from .scalars import canonical_scalar, dtype_from_numpy, is_scalar


def element_shape(dtype):
    """Trailing NumPy dimensions of one element: () for scalars, (3,) for vec3, (3, 3) for mat33."""
    dtype = canonical_scalar(dtype)
    if is_composite(dtype):
        return dtype._shape_
    return ()


def scalar_of(dtype):
    """The scalar component type of ``dtype`` (itself for scalars, None for structs)."""
    dtype = canonical_scalar(dtype)
    if is_scalar(dtype):
        return dtype
    if is_composite(dtype):
        return dtype._wp_scalar_type_
    return None


def np_dtype_of(dtype):
    """The NumPy dtype of one scalar component, or the structured dtype of a struct."""
    dtype = canonical_scalar(dtype)
    s = scalar_of(dtype)
    if s is not None:
        return s._np_dtype
    if hasattr(dtype, "_np_struct_dtype"):
        return dtype._np_struct_dtype
    raise TypeError(f"{dtype!r} is not a valid array dtype")


def type_size(dtype):
    dtype = canonical_scalar(dtype)
    if is_scalar(dtype):
        return dtype.size
    if is_composite(dtype):
        return dtype._length_ * dtype._wp_scalar_type_.size
    if hasattr(dtype, "_ctype"):
        import ctypes
        return ctypes.sizeof(dtype._ctype)
    raise TypeError(f"{dtype!r} is not a valid type")


def dtype_to_numpy(dtype):
    """The NumPy scalar dtype of a warp scalar type."""
    return np_dtype_of(dtype)


def infer_dtype(np_array):
    """The warp dtype for a NumPy array passed without an explicit dtype."""
    if np_array.dtype.fields is not None:
        raise TypeError("pass dtype= explicitly for structured NumPy arrays")
    return dtype_from_numpy(np_array.dtype)


def type_repr(t):
    t = canonical_scalar(t)
    return getattr(t, "__name__", repr(t))


__all__ = ["element_shape", "scalar_of", "np_dtype_of", "type_size", "dtype_to_numpy",
           "dtype_from_numpy", "infer_dtype", "type_repr"]
