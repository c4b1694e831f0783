"""Texture objects: texels in device memory (every mip level, one after another) and the sampling
state, passed to kernels as a generated struct that the native header reads by field name
(native/include/warp_interactive/geometry/texture.h). Sampling is software on both targets, with the
reference's CPU rules, so a CUDA texture gives the values a CPU texture gives."""

import math

import numpy as np

from ..types import scalars as sc
from ..types.struct import struct
from .mipmaps import generate_chain
from .texture_data import copy_from, copy_to, resolve
from .modes import _CODES, TextureAddressMode, TextureFilterMode  # noqa: F401

class _Fields:
    texels: sc.uint64
    width: sc.int32
    height: sc.int32
    depth: sc.int32
    ndim: sc.int32
    num_channels: sc.int32
    dtype_code: sc.int32
    filter_mode: sc.int32
    mip_filter_mode: sc.int32
    num_mip_levels: sc.int32
    use_normalized_coords: sc.int32
    address_mode_u: sc.int32
    address_mode_v: sc.int32
    address_mode_w: sc.int32


def _kernel_struct(name):
    return struct(type(name, (), {"__annotations__": dict(_Fields.__annotations__),
                                  "__module__": __name__}))


class Texture:
    """Base of :class:`Texture1D`, :class:`Texture2D` and :class:`Texture3D` (``isinstance``
    checks, shared behaviour); create one of those."""

    _ndim = 0

    def __new__(cls, *args, **kwargs):
        if cls is Texture or cls._ndim == 0:
            raise TypeError("wp.Texture is the base class: create a wp.Texture1D, wp.Texture2D or "
                            "wp.Texture3D")
        return object.__new__(cls)

    def __setattr__(self, name, value):   # plain attributes (the struct's fields are properties)
        object.__setattr__(self, name, value)

    def _setup(self, data, size, num_channels, dtype, filter_mode, address_modes, normalized_coords,
               num_mip_levels, mip_filter_mode, device):
        resolve(self, data, size, num_channels, dtype, filter_mode, address_modes,
                normalized_coords, num_mip_levels, mip_filter_mode, device)

    # --- what the kernel struct carries -------------------------------------------------------
    def to_ctype(self):
        c = self._wp_struct_.ctype()
        c.texels = self._storage.ptr
        c.width, c.height, c.depth = self._size
        c.ndim, c.num_channels, c.dtype_code = self._ndim, self._num_channels, _CODES[self._dtype]
        c.filter_mode, c.mip_filter_mode = int(self._filter_mode), int(self._mip_filter_mode)
        c.num_mip_levels, c.use_normalized_coords = len(self._mip_shapes), int(self._normalized_coords)
        c.address_mode_u, c.address_mode_v, c.address_mode_w = (int(m) for m in self._address_modes)
        return c

    # --- properties (the reference's) ---------------------------------------------------------
    ndim = property(lambda self: self._ndim)
    width = property(lambda self: self._size[0])
    height = property(lambda self: self._size[1])
    depth = property(lambda self: self._size[2])
    num_channels = property(lambda self: self._num_channels)
    dtype = property(lambda self: self._dtype)
    filter_mode = property(lambda self: self._filter_mode)
    mip_filter_mode = property(lambda self: self._mip_filter_mode)
    num_mip_levels = property(lambda self: len(self._mip_shapes))
    is_mipmapped = property(lambda self: len(self._mip_shapes) > 1)
    address_mode_u = property(lambda self: self._address_modes[0])
    address_mode_v = property(lambda self: self._address_modes[1])
    address_mode_w = property(lambda self: self._address_modes[2])
    normalized_coords = property(lambda self: self._normalized_coords)
    use_normalized_coords = property(lambda self: int(self._normalized_coords))
    texels = property(lambda self: self._storage.ptr)
    dtype_code = property(lambda self: _CODES[self._dtype])

    @property
    def id(self):
        """The address of the texels (unique while the texture lives)."""
        return self._storage.ptr

    def _no_cuda_array(name):
        def get(self):
            raise RuntimeError(f"{name} is only supported for CUDA textures backed by a CUDA array; "
                               "textures here keep their texels in linear memory and are sampled "
                               "in software on every device")
        return property(get)

    cuda_array = _no_cuda_array("cuda_array")
    cuda_texture = _no_cuda_array("cuda_texture")
    cuda_surface = _no_cuda_array("cuda_surface")
    del _no_cuda_array

    def __ctype__(self):
        """The kernel struct's C value (the reference's name for it)."""
        return self.to_ctype()

    def __del__(self):
        # the texels are a wp.array: released with it (also on a texture whose __init__ never ran)
        self.__dict__.pop("_storage", None)

    def _level_shape(self, level):
        w, h, d = self._mip_shapes[level]
        shape = (d, h, w)[3 - self._ndim:]
        return shape + ((self._num_channels,) if self._num_channels > 1 else ())

    def copy_from(self, src):
        """Replace the base level's texels with ``src`` (a NumPy array, a wp.array of the same
        shape and dtype, or another texture); mipmapped textures are immutable."""
        copy_from(self, src)

    def copy_to(self, dst):
        """Copy the base level's texels into ``dst`` (a NumPy array, wp.array or texture)."""
        copy_to(self, dst)

    def _base_numpy(self):
        """The base level's texels as a NumPy array shaped like the texture's data."""
        count = math.prod(self._mip_shapes[0]) * self._num_channels
        return self._storage.numpy()[:count].reshape(self._level_shape(0))

    def _generate_mipmap_chain(self, data_np):
        return generate_chain(np.asarray(data_np), self._ndim, self._mip_shapes)

    def __repr__(self):
        dims = "x".join(str(s) for s in self._size[:self._ndim])
        return (f"{type(self).__name__}({dims}, {self._num_channels} channel(s) of "
                f"{self._dtype.__name__}, {self._filter_mode.name}, device={self.device})")


def _texture_class(ndim, name, axes):
    base = _kernel_struct(name)

    def __init__(self, data=None, width=0, height=0, depth=0, num_channels=0, dtype=None,
                 filter_mode=None, address_mode=TextureAddressMode.CLAMP, address_mode_u=None,
                 address_mode_v=None, address_mode_w=None, normalized_coords=True, num_mip_levels=1,
                 mip_filter_mode=None, device=None, surface_access=False, cuda_array=0):
        if cuda_array:
            raise ValueError("wrapping an external CUDA array is not offered: textures here keep "
                             "their texels in linear memory (pass the data instead)")
        self._setup(data, (width, height, depth), num_channels, dtype, filter_mode,
                    (address_mode, address_mode_u, address_mode_v, address_mode_w),
                    normalized_coords, num_mip_levels, mip_filter_mode, device)

    cls = type(name, (Texture, base), {
        "__init__": __init__, "_ndim": ndim, "__module__": "warp_interactive",
        "__doc__": f"A {ndim}D texture: ``{name}(data)`` with data shaped {axes} or "
                   f"{axes[:-1]}, channels) (1, 2 or 4 channels); a kernel parameter annotated "
                   f"``wp.{name}`` samples it with ``wp.texture_sample``.",
    })
    cls._wp_texture_ndim_ = ndim    # how lang/intrinsics_texture.py recognizes the type
    return cls


Texture1D = _texture_class(1, "Texture1D", "(width,)")
Texture2D = _texture_class(2, "Texture2D", "(height, width)")
Texture3D = _texture_class(3, "Texture3D", "(depth, height, width)")
