"""OpenGL objects the renderer owns: programs, instanced meshes, point quads, line sets and the
off-screen framebuffer every frame is drawn into (and read back from by ``get_pixels``).

Data reaches OpenGL through host memory (``glBufferData`` from NumPy): no CUDA interop, so the
same path serves the CPU device, a GPU without interop, and a software rasterizer.
"""

import ctypes

import numpy as np

INSTANCE_FLOATS = 22  # model matrix (16, column-major) + color1 (3) + color2 (3)
POINT_FLOATS = 7      # centre (3) + radius (1) + colour (3)


def _gl():
    from pyglet import gl
    return gl


def compile_program(vertex_src, fragment_src):
    """Compile and link; a failure raises RuntimeError with the driver's log."""
    gl = _gl()
    program = gl.glCreateProgram()
    shaders = []
    for src, kind in ((vertex_src, gl.GL_VERTEX_SHADER), (fragment_src, gl.GL_FRAGMENT_SHADER)):
        shader = gl.glCreateShader(kind)
        data = src.encode()
        buf = ctypes.create_string_buffer(data)
        ptr = ctypes.cast(ctypes.pointer(ctypes.pointer(buf)), ctypes.POINTER(ctypes.POINTER(gl.GLchar)))
        gl.glShaderSource(shader, 1, ptr, None)
        gl.glCompileShader(shader)
        ok = gl.GLint()
        gl.glGetShaderiv(shader, gl.GL_COMPILE_STATUS, ctypes.byref(ok))
        if not ok.value:
            raise RuntimeError(f"GLSL compile error: {_info_log(gl, shader, gl.glGetShaderInfoLog)}")
        gl.glAttachShader(program, shader)
        shaders.append(shader)
    gl.glLinkProgram(program)
    ok = gl.GLint()
    gl.glGetProgramiv(program, gl.GL_LINK_STATUS, ctypes.byref(ok))
    if not ok.value:
        raise RuntimeError(f"GLSL link error: {_info_log(gl, program, gl.glGetProgramInfoLog)}")
    for shader in shaders:
        gl.glDeleteShader(shader)
    return Program(program)


def _info_log(gl, obj, getter):
    buf = ctypes.create_string_buffer(4096)
    getter(obj, 4096, None, buf)
    return buf.value.decode(errors="replace")


class Program:
    def __init__(self, pid):
        self.id = pid
        self._locations = {}

    def use(self):
        _gl().glUseProgram(self.id)

    def _loc(self, name):
        loc = self._locations.get(name)
        if loc is None:
            loc = self._locations[name] = _gl().glGetUniformLocation(self.id, name.encode())
        return loc

    def set_mat4(self, name, m):
        """A row-major NumPy 4x4 (uploaded transposed, as OpenGL reads columns)."""
        data = np.ascontiguousarray(np.asarray(m, np.float32).T)
        _gl().glUniformMatrix4fv(self._loc(name), 1, False, data.ctypes.data_as(ctypes.POINTER(ctypes.c_float)))

    def set_vec3(self, name, v):
        _gl().glUniform3f(self._loc(name), *(float(x) for x in v))

    def set_float(self, name, x):
        _gl().glUniform1f(self._loc(name), float(x))


def _buffer(target, data, usage=None):
    gl = _gl()
    buf = gl.GLuint()
    gl.glGenBuffers(1, ctypes.byref(buf))
    gl.glBindBuffer(target, buf)
    data = np.ascontiguousarray(data)
    gl.glBufferData(target, data.nbytes, data.ctypes.data if data.nbytes else None,
                    usage or gl.GL_STATIC_DRAW)
    return buf


def _upload(target, buf, data, capacity):
    """Write ``data`` into ``buf``, growing it when it is too small; returns the capacity."""
    gl = _gl()
    data = np.ascontiguousarray(data, dtype=np.float32)
    gl.glBindBuffer(target, buf)
    if data.nbytes > capacity:
        gl.glBufferData(target, data.nbytes, data.ctypes.data, gl.GL_DYNAMIC_DRAW)
        return data.nbytes
    if data.nbytes:
        gl.glBufferSubData(target, 0, data.nbytes, data.ctypes.data)
    return capacity


def _attrib(index, size, stride, offset, divisor=0):
    gl = _gl()
    gl.glEnableVertexAttribArray(index)
    gl.glVertexAttribPointer(index, size, gl.GL_FLOAT, False, stride, ctypes.c_void_p(offset))
    if divisor:
        gl.glVertexAttribDivisor(index, divisor)


class InstancedMesh:
    """A shape's vertex/index buffers and its instance buffer (``INSTANCE_FLOATS`` per row)."""

    def __init__(self, vertices, indices):
        gl = _gl()
        self.vao = gl.GLuint()
        gl.glGenVertexArrays(1, ctypes.byref(self.vao))
        gl.glBindVertexArray(self.vao)
        vertices = np.ascontiguousarray(vertices, dtype=np.float32)
        self.vbo = _buffer(gl.GL_ARRAY_BUFFER, vertices, gl.GL_DYNAMIC_DRAW)
        self.vertex_bytes = vertices.nbytes
        stride = 8 * 4
        _attrib(0, 3, stride, 0)
        _attrib(1, 3, stride, 12)
        _attrib(2, 2, stride, 24)
        self.ebo = _buffer(gl.GL_ELEMENT_ARRAY_BUFFER, np.asarray(indices, dtype=np.uint32))
        self.index_count = int(np.asarray(indices).size)
        self.ibo = _buffer(gl.GL_ARRAY_BUFFER, np.zeros((0,), np.float32), gl.GL_DYNAMIC_DRAW)
        self.ibo_capacity = 0
        stride = INSTANCE_FLOATS * 4
        for col in range(4):
            _attrib(3 + col, 4, stride, 16 * col, divisor=1)
        _attrib(7, 3, stride, 64, divisor=1)
        _attrib(8, 3, stride, 76, divisor=1)
        gl.glBindVertexArray(0)
        self.instance_count = 0

    def set_vertices(self, vertices):
        gl = _gl()
        vertices = np.ascontiguousarray(vertices, dtype=np.float32)
        gl.glBindBuffer(gl.GL_ARRAY_BUFFER, self.vbo)
        if vertices.nbytes == self.vertex_bytes:
            gl.glBufferSubData(gl.GL_ARRAY_BUFFER, 0, vertices.nbytes, vertices.ctypes.data)
        else:
            gl.glBufferData(gl.GL_ARRAY_BUFFER, vertices.nbytes, vertices.ctypes.data, gl.GL_DYNAMIC_DRAW)
            self.vertex_bytes = vertices.nbytes

    def set_instances(self, rows):
        self.ibo_capacity = _upload(_gl().GL_ARRAY_BUFFER, self.ibo, rows, self.ibo_capacity)
        self.instance_count = len(rows)

    def draw(self):
        if not self.instance_count or not self.index_count:
            return
        gl = _gl()
        gl.glBindVertexArray(self.vao)
        gl.glDrawElementsInstanced(gl.GL_TRIANGLES, self.index_count, gl.GL_UNSIGNED_INT, None,
                                   self.instance_count)
        gl.glBindVertexArray(0)

    def delete(self):
        gl = _gl()
        gl.glDeleteVertexArrays(1, ctypes.byref(self.vao))
        for buf in (self.vbo, self.ebo, self.ibo):
            gl.glDeleteBuffers(1, ctypes.byref(buf))


class PointQuads:
    """Sphere impostors: one camera-facing quad per point (``POINT_FLOATS`` per point)."""

    def __init__(self):
        gl = _gl()
        self.vao = gl.GLuint()
        gl.glGenVertexArrays(1, ctypes.byref(self.vao))
        gl.glBindVertexArray(self.vao)
        corners = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], np.float32)
        self.vbo = _buffer(gl.GL_ARRAY_BUFFER, corners)
        _attrib(0, 2, 8, 0)
        # indexed: four corners shaded once per point, not six
        self.ebo = _buffer(gl.GL_ELEMENT_ARRAY_BUFFER, np.array([0, 1, 2, 0, 2, 3], np.uint32))
        self.ibo = _buffer(gl.GL_ARRAY_BUFFER, np.zeros((0,), np.float32), gl.GL_DYNAMIC_DRAW)
        self.capacity = 0
        stride = POINT_FLOATS * 4
        _attrib(1, 3, stride, 0, divisor=1)
        _attrib(2, 1, stride, 12, divisor=1)
        _attrib(3, 3, stride, 16, divisor=1)
        gl.glBindVertexArray(0)
        self.count = 0

    def set_points(self, rows):
        self.capacity = _upload(_gl().GL_ARRAY_BUFFER, self.ibo, rows, self.capacity)
        self.count = len(rows)

    def draw(self):
        if not self.count:
            return
        gl = _gl()
        gl.glBindVertexArray(self.vao)
        gl.glDrawElementsInstanced(gl.GL_TRIANGLES, 6, gl.GL_UNSIGNED_INT, None, self.count)
        gl.glBindVertexArray(0)

    def delete(self):
        gl = _gl()
        gl.glDeleteVertexArrays(1, ctypes.byref(self.vao))
        for buf in (self.vbo, self.ebo, self.ibo):
            gl.glDeleteBuffers(1, ctypes.byref(buf))


class LineSet:
    """Coloured GL lines (the ground grid and the axes): rows of position (3) + colour (3)."""

    def __init__(self, rows):
        gl = _gl()
        rows = np.ascontiguousarray(rows, dtype=np.float32)
        self.vao = gl.GLuint()
        gl.glGenVertexArrays(1, ctypes.byref(self.vao))
        gl.glBindVertexArray(self.vao)
        self.vbo = _buffer(gl.GL_ARRAY_BUFFER, rows)
        _attrib(0, 3, 24, 0)
        _attrib(1, 3, 24, 12)
        gl.glBindVertexArray(0)
        self.count = len(rows)

    def draw(self):
        gl = _gl()
        gl.glBindVertexArray(self.vao)
        gl.glDrawArrays(gl.GL_LINES, 0, self.count)
        gl.glBindVertexArray(0)


class Framebuffer:
    """Colour (RGB8) and depth (float) textures of the frame's size."""

    def __init__(self, width, height):
        gl = _gl()
        self.width, self.height = int(width), int(height)
        self.fbo = gl.GLuint()
        gl.glGenFramebuffers(1, ctypes.byref(self.fbo))
        gl.glBindFramebuffer(gl.GL_FRAMEBUFFER, self.fbo)
        self.color = self._texture(gl.GL_RGB8, gl.GL_RGB, gl.GL_UNSIGNED_BYTE)
        gl.glFramebufferTexture2D(gl.GL_FRAMEBUFFER, gl.GL_COLOR_ATTACHMENT0, gl.GL_TEXTURE_2D, self.color, 0)
        self.depth = self._texture(gl.GL_DEPTH_COMPONENT32F, gl.GL_DEPTH_COMPONENT, gl.GL_FLOAT)
        gl.glFramebufferTexture2D(gl.GL_FRAMEBUFFER, gl.GL_DEPTH_ATTACHMENT, gl.GL_TEXTURE_2D, self.depth, 0)
        status = gl.glCheckFramebufferStatus(gl.GL_FRAMEBUFFER)
        gl.glBindFramebuffer(gl.GL_FRAMEBUFFER, 0)
        if status != gl.GL_FRAMEBUFFER_COMPLETE:
            raise RuntimeError(f"off-screen framebuffer incomplete (status 0x{status:x})")

    def _texture(self, internal, fmt, kind):
        gl = _gl()
        tex = gl.GLuint()
        gl.glGenTextures(1, ctypes.byref(tex))
        gl.glBindTexture(gl.GL_TEXTURE_2D, tex)
        gl.glTexImage2D(gl.GL_TEXTURE_2D, 0, internal, self.width, self.height, 0, fmt, kind, None)
        gl.glTexParameteri(gl.GL_TEXTURE_2D, gl.GL_TEXTURE_MIN_FILTER, gl.GL_NEAREST)
        gl.glTexParameteri(gl.GL_TEXTURE_2D, gl.GL_TEXTURE_MAG_FILTER, gl.GL_NEAREST)
        gl.glBindTexture(gl.GL_TEXTURE_2D, 0)
        return tex

    def bind(self):
        _gl().glBindFramebuffer(_gl().GL_FRAMEBUFFER, self.fbo)

    def read(self, depth=False):
        """The frame as a NumPy array, bottom row first (OpenGL's order): (h, w, 3) uint8, or
        (h, w) float32 window depth in [0, 1]."""
        gl = _gl()
        gl.glBindFramebuffer(gl.GL_FRAMEBUFFER, self.fbo)
        gl.glPixelStorei(gl.GL_PACK_ALIGNMENT, 1)
        if depth:
            out = np.empty((self.height, self.width), np.float32)
            gl.glReadPixels(0, 0, self.width, self.height, gl.GL_DEPTH_COMPONENT, gl.GL_FLOAT, out.ctypes.data)
        else:
            out = np.empty((self.height, self.width, 3), np.uint8)
            gl.glReadPixels(0, 0, self.width, self.height, gl.GL_RGB, gl.GL_UNSIGNED_BYTE, out.ctypes.data)
        gl.glBindFramebuffer(gl.GL_FRAMEBUFFER, 0)
        return out

    def delete(self):
        gl = _gl()
        gl.glDeleteFramebuffers(1, ctypes.byref(self.fbo))
        gl.glDeleteTextures(1, ctypes.byref(self.color))
        gl.glDeleteTextures(1, ctypes.byref(self.depth))
