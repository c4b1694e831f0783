"""JAX: zero-copy arrays both ways through DLPack, and the dtype/device conversions.

JAX arrays are immutable: a wp array made by ``from_jax`` should be read, not written, unless
the JAX array is not used again. jax is imported on first use only.
"""

import numpy as np

from ..types.dtypes import scalar_of, type_repr
from ..types import scalars as sc
from ..types.scalars import dtype_from_numpy


def _jax():
    try:
        import jax
    except ImportError:
        raise ImportError("JAX is not installed: pip install jax (or warp_interactive[jax])") from None
    return jax


def dtype_to_jax(warp_dtype):
    """The JAX dtype of a warp type (of its scalar, for vector/matrix types)."""
    s = scalar_of(warp_dtype)
    if s is None:
        raise TypeError(f"warp type {type_repr(warp_dtype)} has no JAX equivalent")
    if s is sc.bfloat16:
        return _jax().numpy.dtype(_jax().numpy.bfloat16)
    return _jax().numpy.dtype(s._np_dtype)


def dtype_from_jax(jax_dtype):
    """The warp scalar type of a JAX dtype (``jnp.float32`` -> ``wp.float32``)."""
    try:
        return dtype_from_numpy(np.dtype(jax_dtype))
    except TypeError:
        raise TypeError(f"JAX dtype {jax_dtype} has no warp_interactive equivalent "
                        "(supported: bool, int8..int64, uint8..uint64, float16/32/64, bfloat16)") from None


def device_from_jax(jax_device):
    """The wp Device of a JAX device (CPU devices all map to ``cpu``)."""
    from ..runtime.device import get_device
    if jax_device.platform == "cpu":
        return get_device("cpu")
    if jax_device.platform in ("gpu", "cuda"):
        return get_device(f"cuda:{getattr(jax_device, 'local_hardware_id', jax_device.id)}")
    raise ValueError(f"JAX device {jax_device} has no warp_interactive equivalent")


def device_to_jax(warp_device):
    """The JAX device of a wp device."""
    from ..runtime.device import get_device
    d = get_device(warp_device)
    jax = _jax()
    if d.is_cpu:
        return jax.local_devices(backend="cpu")[0]
    for jd in jax.local_devices(backend="gpu"):
        if getattr(jd, "local_hardware_id", jd.id) == d.ordinal:
            return jd
    raise RuntimeError(f"JAX has no device for {d}")


def from_jax(jax_array, dtype=None):
    """A wp array sharing the memory of a JAX array (zero-copy, through DLPack)."""
    jax = _jax()
    if not isinstance(jax_array, jax.Array):
        raise TypeError(f"wp.from_jax expects a jax.Array, got {type(jax_array).__name__}")
    if not getattr(jax_array, "is_fully_addressable", True) or len(jax_array.devices()) != 1:
        raise ValueError("wp.from_jax needs an array on one device; for a sharded array, "
                         "convert each of its addressable_shards' data")
    from .dlpack import from_dlpack
    return from_dlpack(jax_array, dtype=dtype)


def to_jax(warp_array):
    """A JAX array sharing the memory of a wp array (zero-copy, through DLPack; JAX may copy
    when the memory's alignment does not suit it)."""
    from ..types.array import array
    if not isinstance(warp_array, array) or warp_array.is_annotation:
        raise TypeError(f"wp.to_jax expects a wp.array, got {type(warp_array).__name__}")
    if not warp_array.is_contiguous:
        raise ValueError(f"wp.to_jax needs a contiguous array (JAX arrays are dense), got strides "
                         f"{warp_array.strides} for shape {warp_array.shape}: use .contiguous()")
    return _jax().dlpack.from_dlpack(warp_array)
