"""OpenGL interop: ``wp.RegisteredGLBuffer``, a GL buffer seen as a Warp array (its texture
counterpart, ``wp.GLTextureResource``, is opengl_texture.py).

warp-lang maps the GL memory into CUDA when CUDA-OpenGL interop is available. This package does
not register GL resources with CUDA: every device takes warp-lang's copy path (the one it takes
itself without interop, ``fallback_to_copy``): ``map()`` copies the GL object's contents into a
Warp array or texture on the device (unless the flags say Warp will not read them), ``unmap()``
copies the Warp side back into the GL object (unless Warp will not write). So it works on the CPU
too. The caller's GL context must be current (pyglet's, as in warp-lang's examples); pyglet is
imported on first use.
"""

import ctypes
import enum

import numpy as np

from ..logger import log_warning


def load_gl():
    """pyglet's GL module, imported on first use (pyglet is an optional dependency)."""
    try:
        from pyglet import gl
    except ImportError as e:
        raise ImportError("OpenGL interop needs pyglet (>= 2.0): pip install pyglet") from e
    return gl


def gl_object_id(gl_id):
    """A GL object name as an int (pyglet passes GLuint objects, users plain ints)."""
    return int(getattr(gl_id, "value", gl_id))


class RegisteredGLBuffer:
    """A GL buffer (``GLuint``) mapped to a Warp array: ``map(dtype, shape)`` -> array,
    ``unmap()`` when done. Flags: ``NONE`` (Warp reads and writes), ``READ_ONLY`` (Warp only
    reads: ``unmap`` copies nothing back), ``WRITE_DISCARD`` (Warp only writes: ``map`` copies
    nothing in)."""

    NONE = 0x00
    READ_ONLY = 0x01
    WRITE_DISCARD = 0x02

    _warned = False

    def __init__(self, gl_buffer_id, device=None, flags=NONE, fallback_to_copy=True):
        from ..runtime.device import get_device
        self.gl_buffer_id = gl_buffer_id
        self.device = get_device(device)
        self.flags = flags
        self.fallback_to_copy = fallback_to_copy
        self.resource = None          # no CUDA registration here (module docstring)
        self.warp_buffer = None
        if not fallback_to_copy:
            raise RuntimeError(f"Failed to register OpenGL buffer {gl_object_id(gl_buffer_id)} with CUDA: "
                               "CUDA/OpenGL interop is not offered here (pass fallback_to_copy=True)")
        if not RegisteredGLBuffer._warned:    # warp-lang's words, once per process
            log_warning("Could not register GL buffer since CUDA/OpenGL interoperability is not available. "
                        "Falling back to copy operations between the Warp array and the OpenGL buffer.")
            RegisteredGLBuffer._warned = True

    def map(self, dtype, shape):
        """The buffer's contents as a Warp array of ``dtype`` and ``shape`` on the device."""
        from ..types.array_factories import empty
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        if self.warp_buffer is None or self.warp_buffer.dtype != dtype or self.warp_buffer.shape != shape:
            self.warp_buffer = empty(shape, dtype=dtype, device=self.device)
        if self.flags in (self.READ_ONLY, self.NONE):
            gl = load_gl()
            host = np.empty_like(self.warp_buffer.numpy())
            gl.glBindBuffer(gl.GL_ARRAY_BUFFER, gl_object_id(self.gl_buffer_id))
            gl.glGetBufferSubData(gl.GL_ARRAY_BUFFER, 0, host.nbytes, host.ctypes.data_as(ctypes.c_void_p))
            gl.glBindBuffer(gl.GL_ARRAY_BUFFER, 0)
            self.warp_buffer.assign(host)
        return self.warp_buffer

    def unmap(self):
        """Copy the mapped array back into the GL buffer (unless READ_ONLY)."""
        if self.warp_buffer is None:
            raise RuntimeError("RegisteredGLBuffer first has to be mapped")
        if self.flags in (self.WRITE_DISCARD, self.NONE):
            gl = load_gl()
            data = np.ascontiguousarray(self.warp_buffer.numpy())
            gl.glBindBuffer(gl.GL_ARRAY_BUFFER, gl_object_id(self.gl_buffer_id))
            gl.glBufferData(gl.GL_ARRAY_BUFFER, data.nbytes, data.ctypes.data_as(ctypes.c_void_p),
                            gl.GL_DYNAMIC_DRAW)
            gl.glBindBuffer(gl.GL_ARRAY_BUFFER, 0)
