"""A texture's construction (arguments checked as the reference checks them) and the copies of
its base level in and out."""

import math

import numpy as np

from ..runtime.device import get_device
from ..types import composite as comp
from ..types import scalars as sc
from ..types.array import array, copy
from ..types.array_factories import zeros
from .mipmaps import generate_chain, mip_shapes
from .modes import _DTYPES, TextureAddressMode, TextureFilterMode


def _is_texture(x):
    return hasattr(type(x), "_wp_texture_ndim_")

_AXES = ("width", "height", "depth")


def _modes(modes, ndim):
    common, per_axis = modes[0], modes[1:]
    out = []
    for a in range(3):
        if a >= ndim:
            out.append(TextureAddressMode.CLAMP)
            continue
        m = per_axis[a]
        if m is None:
            m = common[a] if isinstance(common, (tuple, list)) else common
        try:
            out.append(TextureAddressMode(m))
        except (TypeError, ValueError):
            raise ValueError(f"Invalid texture address mode: {m}") from None
    return tuple(out)


def _filter(mode, what):
    try:
        return None if mode is None else TextureFilterMode(mode)
    except (TypeError, ValueError):
        raise ValueError(f"Invalid texture {what}: {mode}") from None


def canonical_dtype(dtype):
    dtype = {float: sc.float32, int: sc.int32}.get(dtype, dtype)
    dtype = sc.canonical_scalar(dtype) if dtype is not None else None
    if dtype not in _DTYPES:
        raise ValueError(f"Unsupported texture dtype: {getattr(dtype, '__name__', dtype)}. Supported: "
                         "uint8, uint16, uint32, int8, int16, int32, float16, float32")
    return dtype


def data_layout(data, ndim):
    """``(size (w, h, d), num_channels, dtype)`` of texture data shaped like the reference's."""
    if comp.is_vector(data.dtype):
        channels, dtype, spatial = data.dtype._length_, data.dtype._wp_scalar_type_, data.shape
        if len(spatial) != ndim:
            raise ValueError(f"{ndim}D texture data with vector dtype must be a {ndim}D wp.array")
    else:
        dtype = data.dtype
        if data.ndim not in (ndim, ndim + 1):
            raise ValueError(f"{ndim}D texture data must be {ndim}D or {ndim + 1}D array")
        spatial = data.shape[:ndim]
        channels = data.shape[ndim] if data.ndim == ndim + 1 else 1
    size = tuple(reversed(spatial)) + (1,) * (3 - ndim)
    return tuple(int(s) for s in size), int(channels), canonical_dtype(dtype)


def _as_array(data):
    if isinstance(data, np.ndarray):
        return array(np.ascontiguousarray(data), device="cpu")
    if not isinstance(data, array):
        raise ValueError("Data must be a Warp array or NumPy array")
    return data


def resolve(tex, data, size, num_channels, dtype, filter_mode, modes, normalized_coords,
            num_mip_levels, mip_filter_mode, device):
    ndim = tex._ndim
    device = get_device(device)
    filter_mode, mip_filter_mode = _filter(filter_mode, "filter mode"), _filter(mip_filter_mode, "mip filter mode")
    size = list(size)
    if data is not None:
        data = _as_array(data)
        dsize, dchannels, ddtype = data_layout(data, ndim)
        for a in range(ndim):
            if size[a] not in (0, dsize[a]):
                raise ValueError(f"Specified texture {_AXES[a]} does not match data {_AXES[a]}")
            size[a] = dsize[a]
        if num_channels not in (0, dchannels):
            raise ValueError(f"Specified texture channels do not match data channels (expected "
                             f"{num_channels}, got {dchannels})")
        if dtype is not None and canonical_dtype(dtype) is not ddtype:
            raise ValueError("Specified texture dtype does not match data dtype")
        num_channels, dtype = dchannels, ddtype
    for a in range(3):
        if a >= ndim:
            size[a] = 1
        elif size[a] <= 0:
            raise ValueError(f"Texture {_AXES[a]} must be a positive integer")
    if num_channels not in (1, 2, 4):
        raise ValueError("Texture num_channels must be 1, 2, or 4")
    dtype = canonical_dtype(sc.float32 if dtype is None else dtype)
    shapes = mip_shapes(size, ndim, num_mip_levels)
    int32ish = dtype in (sc.int32, sc.uint32)
    default = TextureFilterMode.CLOSEST if int32ish else TextureFilterMode.LINEAR
    filter_mode = default if filter_mode is None else filter_mode
    mip_filter_mode = default if mip_filter_mode is None else mip_filter_mode
    if int32ish and filter_mode != TextureFilterMode.CLOSEST:
        raise ValueError("32-bit integer textures require filter_mode=TextureFilterMode.CLOSEST")
    if int32ish and len(shapes) > 1 and mip_filter_mode != TextureFilterMode.CLOSEST:
        raise ValueError("32-bit integer mipmapped textures require mip_filter_mode=TextureFilterMode.CLOSEST")
    if len(shapes) > 1 and data is None:
        raise ValueError("Mipmapped textures require data to be provided at construction")
    tex.device, tex._size, tex._num_channels, tex._dtype = device, tuple(size), num_channels, dtype
    tex._filter_mode, tex._mip_filter_mode, tex._mip_shapes = filter_mode, mip_filter_mode, shapes
    tex._address_modes, tex._normalized_coords = _modes(modes, ndim), bool(normalized_coords)
    total = sum(math.prod(s) for s in shapes) * num_channels
    tex._storage = zeros(total, dtype=dtype, device=device)
    if data is not None and len(shapes) > 1:
        base = data.numpy().reshape(tex._level_shape(0))
        for level, values in enumerate(generate_chain(base, ndim, shapes)):
            _write_level(tex, level, values)
    elif data is not None:
        copy_from(tex, data)


def _write_level(tex, level, values):
    start = sum(math.prod(s) for s in tex._mip_shapes[:level]) * tex._num_channels
    flat = np.ascontiguousarray(values).reshape(-1)
    src = array(flat, dtype=tex._dtype, device="cpu")
    copy(tex._storage, src, dest_offset=start, count=flat.size)


def _check_same(tex, other_size, other_channels, other_dtype, what, other_shape, role):
    if tuple(other_size) != tuple(tex._size):
        raise ValueError(f"Incompatible {what} shape for copy: texture shape={tex._level_shape(0)}, "
                         f"{role} shape={tuple(other_shape)}")
    if other_dtype is not tex._dtype or other_channels != tex._num_channels:
        raise ValueError(f"Incompatible {what} data type for copy: texture dtype={tex._dtype.__name__}, "
                         f"{role} dtype={other_dtype.__name__}, texture channels={tex._num_channels}, "
                         f"{role} channels={other_channels}")


def _check_mutable(tex, op):
    if len(tex._mip_shapes) > 1:
        raise RuntimeError(f"{op} is not supported for mipmapped textures; mipmap contents are "
                           "immutable after construction")


def copy_from(tex, src):
    _check_mutable(tex, "copy_from")
    if _is_texture(src):
        if src._size != tex._size:
            raise ValueError(f"Incompatible texture shapes for copy: destination shape="
                             f"{tex._level_shape(0)}, source shape={src._level_shape(0)}")
        _check_same(tex, src._size, src._num_channels, src._dtype, "texture", src._level_shape(0), "source")
        values = src._base_numpy()
    else:
        src = _as_array(src) if isinstance(src, np.ndarray) or isinstance(src, array) else None
        if src is None:
            raise ValueError("Expected contiguous array or Texture")
        _check_same(tex, *data_layout(src, tex._ndim), "array", src.shape, "source")
        if not src.is_contiguous:
            raise ValueError("Source array must be contiguous")
        values = src.numpy()
    _write_level(tex, 0, values)


def copy_to(tex, dst):
    _check_mutable(tex, "copy_to")
    values = tex._base_numpy()
    if _is_texture(dst):
        dst.copy_from(values)
        return
    host = isinstance(dst, np.ndarray)
    if not host and not isinstance(dst, array):
        raise ValueError("Expected contiguous array or Texture")
    target = array(dst, device="cpu", copy=False) if host else dst
    _check_same(tex, *data_layout(target, tex._ndim), "array", target.shape, "destination")
    if not target.is_contiguous:
        raise ValueError("Destination array must be contiguous")
    if host:
        dst[...] = values.reshape(dst.shape)
    else:
        copy(dst, array(values.reshape(dst.shape + (() if not comp.is_vector(dst.dtype) else
                                                     (dst.dtype._length_,))),
                        dtype=dst.dtype, device="cpu"))
