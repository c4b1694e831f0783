"""wp.RegisteredGLBuffer and wp.GLTextureResource against real OpenGL (pyglet, headless EGL on
Mesa here): map() gives the GL object's contents as a Warp array / texture, unmap() writes the
Warp side back, as the flags allow; warp-lang's copy path, taken on every device here."""

import ctypes

import numpy as np
import pytest

import warp_interactive as wp
from warp_interactive.render._deps import import_pyglet


@pytest.fixture(scope="module")
def gl():
    import_pyglet(True)      # an off-screen context (pyglet's shadow context) is current
    from pyglet import gl as gl_
    return gl_


def _buffer(gl, data):
    buf = gl.GLuint()
    gl.glGenBuffers(1, buf)
    gl.glBindBuffer(gl.GL_ARRAY_BUFFER, buf)
    gl.glBufferData(gl.GL_ARRAY_BUFFER, data.nbytes, data.ctypes.data, gl.GL_DYNAMIC_DRAW)
    gl.glBindBuffer(gl.GL_ARRAY_BUFFER, 0)
    return buf


def _read_buffer(gl, buf, like):
    out = np.empty_like(like)
    gl.glBindBuffer(gl.GL_ARRAY_BUFFER, buf)
    gl.glGetBufferSubData(gl.GL_ARRAY_BUFFER, 0, out.nbytes, out.ctypes.data)
    gl.glBindBuffer(gl.GL_ARRAY_BUFFER, 0)
    return out


@wp.kernel
def twice(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = 2.0 * a[i] + 1.0


BUFFER_CASES = [   # (warp dtype, shape, numpy data)
    (wp.float32, (12,), np.arange(12, dtype=np.float32)),
    (wp.vec3, (4,), np.arange(12, dtype=np.float32)),
    (wp.int32, (3, 4), np.arange(-6, 6, dtype=np.int32)),
    (wp.uint8, (16,), np.arange(16, dtype=np.uint8)),
]


@pytest.mark.parametrize("dtype,shape,data", BUFFER_CASES, ids=["float32", "vec3", "int32_2d", "uint8"])
def test_buffer_round_trip(gl, dtype, shape, data):
    buf = _buffer(gl, data)
    r = wp.RegisteredGLBuffer(buf)
    a = r.map(dtype=dtype, shape=shape)
    assert a.dtype is dtype and a.shape == shape and a.device == wp.get_device()
    np.testing.assert_array_equal(a.numpy().ravel(), data)
    a.assign((a.numpy() + 3).astype(a.numpy().dtype))
    r.unmap()
    np.testing.assert_array_equal(_read_buffer(gl, buf, data), data + 3)


def test_a_kernel_writes_through_the_mapped_array(gl):
    data = np.linspace(0, 1, 8, dtype=np.float32)
    buf = _buffer(gl, data)
    r = wp.RegisteredGLBuffer(buf, device="cpu")
    wp.launch(twice, 8, inputs=[r.map(dtype=float, shape=8)], device="cpu")
    r.unmap()
    np.testing.assert_allclose(_read_buffer(gl, buf, data), 2 * data + 1)


@pytest.mark.parametrize("flags,reads,writes", [
    (wp.RegisteredGLBuffer.NONE, True, True),
    (wp.RegisteredGLBuffer.READ_ONLY, True, False),
    (wp.RegisteredGLBuffer.WRITE_DISCARD, False, True),
])
def test_buffer_flags(gl, flags, reads, writes):
    data = np.arange(1, 9, dtype=np.float32)
    buf = _buffer(gl, data)
    r = wp.RegisteredGLBuffer(buf, flags=flags)
    a = r.map(dtype=float, shape=8)
    if reads:
        np.testing.assert_array_equal(a.numpy(), data)
    a.fill_(-1.0)
    r.unmap()
    np.testing.assert_array_equal(_read_buffer(gl, buf, data), -1.0 if writes else data)


def test_buffer_errors(gl):
    buf = _buffer(gl, np.zeros(4, np.float32))
    with pytest.raises(RuntimeError, match="Failed to register OpenGL buffer"):
        wp.RegisteredGLBuffer(buf, fallback_to_copy=False)
    with pytest.raises(RuntimeError, match="first has to be mapped"):
        wp.RegisteredGLBuffer(buf).unmap()


def _texture(gl, target, internal, fmt, typ, img):
    tex = gl.GLuint()
    gl.glGenTextures(1, ctypes.byref(tex))
    gl.glBindTexture(target, tex)
    gl.glPixelStorei(gl.GL_UNPACK_ALIGNMENT, 1)
    ptr = img.ctypes.data
    if target == gl.GL_TEXTURE_1D:
        gl.glTexImage1D(target, 0, internal, img.shape[0], 0, fmt, typ, ptr)
    elif target == gl.GL_TEXTURE_2D:
        gl.glTexImage2D(target, 0, internal, img.shape[1], img.shape[0], 0, fmt, typ, ptr)
    else:
        gl.glTexImage3D(target, 0, internal, img.shape[2], img.shape[1], img.shape[0], 0, fmt, typ, ptr)
    gl.glBindTexture(target, 0)
    return tex


def _read_texture(gl, target, tex, fmt, typ, like):
    out = np.zeros_like(like)
    gl.glBindTexture(target, tex)
    gl.glPixelStorei(gl.GL_PACK_ALIGNMENT, 1)
    gl.glGetTexImage(target, 0, fmt, typ, out.ctypes.data)
    gl.glBindTexture(target, 0)
    return out


# (target, internal format, pixel format, pixel type, texel shape, numpy dtype, texture class)
TEXTURE_CASES = [
    ("GL_TEXTURE_2D", "GL_RGBA8", "GL_RGBA", "GL_UNSIGNED_BYTE", (3, 5, 4), np.uint8, "Texture2D"),
    ("GL_TEXTURE_2D", "GL_R32F", "GL_RED", "GL_FLOAT", (4, 6), np.float32, "Texture2D"),
    ("GL_TEXTURE_2D", "GL_RG16F", "GL_RG", "GL_HALF_FLOAT", (2, 3, 2), np.float16, "Texture2D"),
    ("GL_TEXTURE_1D", "GL_R32I", "GL_RED_INTEGER", "GL_INT", (7,), np.int32, "Texture1D"),
    ("GL_TEXTURE_3D", "GL_RGBA16", "GL_RGBA", "GL_UNSIGNED_SHORT", (2, 3, 4, 4), np.uint16, "Texture3D"),
]


@pytest.mark.parametrize("target,internal,fmt,typ,shape,dtype,cls", TEXTURE_CASES,
                         ids=[c[1] + "_" + c[0][-2:] for c in TEXTURE_CASES])
def test_texture_round_trip(gl, target, internal, fmt, typ, shape, dtype, cls):
    target, internal, fmt, typ = (getattr(gl, n) for n in (target, internal, fmt, typ))
    img = (np.arange(np.prod(shape)) % 100).astype(dtype).reshape(shape)
    tex = _texture(gl, target, internal, fmt, typ, img)
    res = wp.GLTextureResource(tex, target)
    t = res.map()
    assert type(t) is getattr(wp, cls) and res.map() is t      # mapped once until unmapped
    got = np.zeros_like(img)
    t.copy_to(got)
    np.testing.assert_array_equal(got, img)
    t.copy_from(np.ascontiguousarray(img[::-1]))
    res.unmap()
    np.testing.assert_array_equal(_read_texture(gl, target, tex, fmt, typ, img), img[::-1])


@pytest.mark.parametrize("flags,reads,writes", [
    (wp.TextureResourceFlags.NONE, True, True),
    (wp.TextureResourceFlags.READ_ONLY, True, False),
    (wp.TextureResourceFlags.WRITE_DISCARD, False, True),
])
def test_texture_flags(gl, flags, reads, writes):
    img = np.arange(24, dtype=np.float32).reshape(4, 6) + 1
    tex = _texture(gl, gl.GL_TEXTURE_2D, gl.GL_R32F, gl.GL_RED, gl.GL_FLOAT, img)
    res = wp.GLTextureResource(tex, gl.GL_TEXTURE_2D, flags=flags)
    t = res.map()
    got = np.zeros_like(img)
    t.copy_to(got)
    np.testing.assert_array_equal(got, img if reads else 0.0)
    t.copy_from(-img)
    res.unmap()
    np.testing.assert_array_equal(_read_texture(gl, gl.GL_TEXTURE_2D, tex, gl.GL_RED, gl.GL_FLOAT, img),
                                  -img if writes else img)


def test_texture_errors(gl):
    with pytest.raises(ValueError, match="Invalid GL texture target"):
        wp.GLTextureResource(1, gl.GL_TEXTURE_CUBE_MAP)
    tex = _texture(gl, gl.GL_TEXTURE_2D, gl.GL_RGB8, gl.GL_RGB, gl.GL_UNSIGNED_BYTE, np.zeros((2, 2, 3), np.uint8))
    with pytest.raises(ValueError, match="internal format 0x8051 is not supported"):
        wp.GLTextureResource(tex, gl.GL_TEXTURE_2D).map()


def test_flag_values_are_warp_langs():
    assert [int(f) for f in wp.TextureResourceFlags] == [0, 1, 2, 4, 8]
    assert (wp.RegisteredGLBuffer.NONE, wp.RegisteredGLBuffer.READ_ONLY, wp.RegisteredGLBuffer.WRITE_DISCARD) == (0, 1, 2)
