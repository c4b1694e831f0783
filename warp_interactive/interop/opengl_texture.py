"""``wp.GLTextureResource``: a GL texture seen as a ``wp.Texture1D/2D/3D``, with
``wp.TextureResourceFlags``.

warp-lang registers the texture with CUDA and maps it as a CUDA array, on CUDA devices only
("Must be a CUDA device"). Textures here keep their texels in linear memory, so every device
takes a copy path: ``map()`` reads level 0 of the GL texture (glGetTexImage) into a new Warp
texture on the device (unless WRITE_DISCARD), ``unmap()`` writes the texture's texels back
(glTexSubImage, unless READ_ONLY). It works on the CPU too. The caller's GL context must be
current (pyglet's); pyglet is imported on first use.
"""

import ctypes
import enum

import numpy as np

from .opengl import gl_object_id, load_gl


class TextureResourceFlags(enum.IntEnum):
    """How Warp will use a registered texture (warp-lang's values)."""

    NONE = 0x00
    READ_ONLY = 0x01
    WRITE_DISCARD = 0x02
    SURFACE_LDST = 0x04
    TEXTURE_GATHER = 0x08


# sized internal format -> (pixel format, pixel type, NumPy dtype, channels, integer texture)
def _formats(gl):
    table = {}
    for bits, typ, dt in ((8, gl.GL_UNSIGNED_BYTE, np.uint8), (16, gl.GL_UNSIGNED_SHORT, np.uint16)):
        for name, fmt, ch in (("R", gl.GL_RED, 1), ("RG", gl.GL_RG, 2), ("RGBA", gl.GL_RGBA, 4)):
            table[getattr(gl, f"GL_{name}{bits}")] = (fmt, typ, dt, ch, False)
    for suffix, typ, dt in (("32F", gl.GL_FLOAT, np.float32), ("16F", gl.GL_HALF_FLOAT, np.float16)):
        for name, fmt, ch in (("R", gl.GL_RED, 1), ("RG", gl.GL_RG, 2), ("RGBA", gl.GL_RGBA, 4)):
            table[getattr(gl, f"GL_{name}{suffix}")] = (fmt, typ, dt, ch, False)
    for suffix, typ, dt in (("32I", gl.GL_INT, np.int32), ("32UI", gl.GL_UNSIGNED_INT, np.uint32),
                            ("8I", gl.GL_BYTE, np.int8), ("16I", gl.GL_SHORT, np.int16)):
        for name, fmt, ch in (("R", gl.GL_RED_INTEGER, 1), ("RG", gl.GL_RG_INTEGER, 2),
                              ("RGBA", gl.GL_RGBA_INTEGER, 4)):
            table[getattr(gl, f"GL_{name}{suffix}")] = (fmt, typ, dt, ch, True)
    return table


class GLTextureResource:
    """A GL texture (1D, 2D or 3D, a sized internal format such as ``GL_RGBA8`` or ``GL_R32F``)
    registered with Warp: ``map()`` -> a ``wp.Texture1D/2D/3D`` holding its texels (level 0),
    ``unmap()`` writes them back (unless READ_ONLY) before GL uses the texture again."""

    def __init__(self, gl_tex_id, gl_tex_target, device=None, flags=TextureResourceFlags.NONE):
        from ..runtime.device import get_device
        gl = load_gl()
        ndims = {gl.GL_TEXTURE_1D: 1, gl.GL_TEXTURE_2D: 2, gl.GL_TEXTURE_3D: 3}
        if gl_tex_target not in ndims:
            raise ValueError("Invalid GL texture target")
        self._id, self._target, self._ndim = gl_object_id(gl_tex_id), gl_tex_target, ndims[gl_tex_target]
        self._device = get_device(device)
        self._flags = TextureResourceFlags(flags)
        self._mapped_texture = None

    def _layout(self, gl):
        def level_param(name):
            v = gl.GLint()
            gl.glGetTexLevelParameteriv(self._target, 0, name, ctypes.byref(v))
            return int(v.value)

        gl.glBindTexture(self._target, self._id)    # the level parameters are the bound texture's
        fmt = level_param(gl.GL_TEXTURE_INTERNAL_FORMAT)
        size = [level_param(p) for p in (gl.GL_TEXTURE_WIDTH, gl.GL_TEXTURE_HEIGHT, gl.GL_TEXTURE_DEPTH)]
        gl.glBindTexture(self._target, 0)
        layout = _formats(gl).get(fmt)
        if layout is None:
            raise ValueError(f"GL texture {self._id}: internal format 0x{fmt:x} is not supported (sized "
                             "R/RG/RGBA formats of 8/16-bit unsigned, 16/32-bit float or integer texels are)")
        shape = tuple(reversed(size[:self._ndim])) + ((layout[3],) if layout[3] > 1 else ())
        return layout, size, shape

    def map(self):
        """The texture's texels as a Warp texture on the device (the same one until ``unmap``)."""
        if self._mapped_texture is not None:
            return self._mapped_texture
        from ..texture.texture import Texture1D, Texture2D, Texture3D
        from ..texture.modes import TextureFilterMode
        gl = load_gl()
        (fmt, typ, dt, channels, integer), size, shape = self._layout(gl)
        host = np.zeros(shape, dtype=dt)
        if self._flags != TextureResourceFlags.WRITE_DISCARD:
            gl.glBindTexture(self._target, self._id)
            gl.glPixelStorei(gl.GL_PACK_ALIGNMENT, 1)
            gl.glGetTexImage(self._target, 0, fmt, typ, host.ctypes.data_as(ctypes.c_void_p))
            gl.glBindTexture(self._target, 0)
        cls = (Texture1D, Texture2D, Texture3D)[self._ndim - 1]
        filt = TextureFilterMode.CLOSEST if integer else TextureFilterMode.LINEAR
        self._mapped_texture = cls(host, filter_mode=filt, device=self._device)
        return self._mapped_texture

    def unmap(self):
        """Write the mapped texture's texels back into the GL texture (unless READ_ONLY)."""
        if self._mapped_texture is None:
            return
        tex, self._mapped_texture = self._mapped_texture, None
        if self._flags == TextureResourceFlags.READ_ONLY:
            return
        gl = load_gl()
        (fmt, typ, dt, _, _), size, shape = self._layout(gl)
        host = np.ascontiguousarray(np.zeros(shape, dtype=dt))
        tex.copy_to(host)
        ptr = host.ctypes.data_as(ctypes.c_void_p)
        gl.glBindTexture(self._target, self._id)
        gl.glPixelStorei(gl.GL_UNPACK_ALIGNMENT, 1)
        if self._ndim == 1:
            gl.glTexSubImage1D(self._target, 0, 0, size[0], fmt, typ, ptr)
        elif self._ndim == 2:
            gl.glTexSubImage2D(self._target, 0, 0, 0, size[0], size[1], fmt, typ, ptr)
        else:
            gl.glTexSubImage3D(self._target, 0, 0, 0, 0, size[0], size[1], size[2], fmt, typ, ptr)
        gl.glBindTexture(self._target, 0)
