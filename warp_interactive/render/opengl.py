"""``OpenGLRenderer``: Warp's real-time renderer, on any machine.

Real OpenGL through pyglet: a window when a display is there; with ``headless=True`` (or no
display) an off-screen EGL context, which on a machine without a GPU is Mesa's software
rasterizer (llvmpipe). Every frame is drawn into an off-screen framebuffer, shown in the window
when there is one and read back by ``get_pixels``; scene data reaches OpenGL through host memory,
so arrays on the CPU device (or any device) need no CUDA/OpenGL interop.
"""

import time

import numpy as np

from . import _api as wp

from . import glres, glsl, meshes
from ._deps import import_pyglet
from .frames import Frames
from .scene import Scene
from .transforms import axis_index, look_at, perspective, pose_matrices, segment_matrices, world_matrix


class OpenGLRenderer(Scene, Frames):
    """Draws spheres, boxes, capsules, cylinders, cones, planes, meshes, points and lines with
    OpenGL, in a window or off-screen (``headless``); ``get_pixels`` copies a frame (colour or
    depth) into a Warp array. Needs ``pyglet`` (``pip install 'warp_interactive[render]'``)."""

    default_num_segments = meshes.SEGMENTS

    def __init__(self, title="Warp", scaling=1.0, fps=60, up_axis="Y", screen_width=1024, screen_height=768,
                 near_plane=1.0, far_plane=100.0, camera_fov=45.0, camera_pos=(0.0, 2.0, 10.0),
                 camera_front=(0.0, 0.0, -1.0), camera_up=(0.0, 1.0, 0.0),
                 background_color=(0.53, 0.8, 0.92), draw_grid=True, draw_sky=True, draw_axis=True,
                 show_info=True, render_wireframe=False, render_depth=False, axis_scale=1.0, vsync=False,
                 headless=None, enable_backface_culling=True, enable_mouse_interaction=True,
                 enable_keyboard_interaction=True, device=None, use_legacy_opengl=None):
        pyglet, self.headless = import_pyglet(headless)
        self._device = wp.get_preferred_device() if device is None else wp.get_device(device)
        self._title = title
        self.window = pyglet.window.Window(width=int(screen_width), height=int(screen_height), caption=title,
                                           resizable=not self.headless, vsync=vsync, visible=not self.headless)
        self.app = pyglet.app
        self._switch_context()
        self.screen_width, self.screen_height = (int(screen_width), int(screen_height)) if self.headless \
            else self.window.get_framebuffer_size()
        self.camera_near_plane, self.camera_far_plane, self.camera_fov = near_plane, far_plane, camera_fov
        self.background_color = tuple(background_color)
        self.draw_grid, self.draw_sky, self.draw_axis, self.axis_scale = draw_grid, draw_sky, draw_axis, axis_scale
        self.show_info, self.render_wireframe, self.render_depth = show_info, render_wireframe, render_depth
        self.enable_backface_culling = enable_backface_culling
        self.enable_mouse_interaction = enable_mouse_interaction
        self.enable_keyboard_interaction = enable_keyboard_interaction
        self.use_legacy_opengl = bool(use_legacy_opengl)
        self._up_axis = axis_index(up_axis)
        self._scaling = float(scaling)
        self._camera_pos = np.asarray(camera_pos, float)
        self._camera_front = np.asarray(camera_front, float)
        self._camera_up = np.asarray(camera_up, float)
        self.render_2d_callbacks, self.render_3d_callbacks = [], []
        self._frame_dt = 1.0 / fps
        self.time = 0.0
        self._start_time = time.time()
        self.clock_time = 0.0
        self._paused = False
        self._has_exit = False
        self.skip_rendering = False
        self.frame_count = 0
        self.frame_listeners = []    # called with the renderer after each frame is drawn
        self._input_processors, self._key_callbacks = [], []
        self.recorded_frames = []    # with start_recording(): RGB uint8 frames, top row first
        self._recording = None
        self._init_scene()
        self._init_tiles()
        self._init_gl()
        self.update_model_matrix()
        self.update_view_matrix()
        self.update_projection_matrix()
        if not self.headless:
            from .window import connect_window
            self._window_state = connect_window(self)

    # -- OpenGL state ---------------------------------------------------------------------------------
    def _switch_context(self):
        self.window.switch_to()

    def _init_gl(self):
        self._shape_program = glres.compile_program(glsl.SHAPE_VS, glsl.SHAPE_FS)
        self._point_program = glres.compile_program(glsl.POINT_VS, glsl.POINT_FS)
        self._line_program = glres.compile_program(glsl.LINE_VS, glsl.LINE_FS)
        self._sky_program = glres.compile_program(glsl.SKY_VS, glsl.SKY_FS)
        self._shape_gl = {}        # shape id -> InstancedMesh
        self._point_gl = {}        # point set name -> PointQuads
        self._line_gl = {}         # radius -> InstancedMesh of a unit cylinder
        self._grid = glres.LineSet(_grid_lines())
        self._axis_mesh = None
        from pyglet import gl
        self._empty_vao = gl.GLuint()
        gl.glGenVertexArrays(1, self._empty_vao)
        self._framebuffer = glres.Framebuffer(self.screen_width, self.screen_height)

    def register_shape(self, geo_hash, vertices, indices, color1=None, color2=None, mesh_source=None):
        """Upload a shape's geometry; returns its shape id (instances refer to it). A user mesh
        passes its ``mesh_source`` (triangles, smooth shading, scale) so that new point positions
        can be turned into vertices later (``update_shape_vertices``)."""
        self._switch_context()
        if color1 is None:
            color1 = self._default_color()
        if color2 is None:
            color2 = tuple(np.clip(np.asarray(color1, float) + 0.25, 0.0, 1.0))
        shape = len(self._shapes)
        self._shapes.append((vertices, indices, tuple(color1), tuple(color2), geo_hash))
        self._shape_geo_hash[geo_hash] = shape
        self._shape_gl[shape] = glres.InstancedMesh(vertices, indices)
        if mesh_source is not None:
            self._mesh_sources[shape] = mesh_source
        return shape

    def deregister_shape(self, shape):
        mesh = self._shape_gl.pop(shape, None)
        if mesh is None:
            return
        self._switch_context()
        mesh.delete()
        self._shape_geo_hash.pop(self._shapes[shape][4], None)
        self._mesh_sources.pop(shape, None)

    def update_shape_vertices(self, shape, points):
        """New positions for a user mesh's points (its triangles kept); normals are recomputed."""
        triangles, smooth, scale = self._mesh_sources[shape]
        points = points.numpy() if isinstance(points, wp.array) else np.asarray(points, np.float32)
        vertices, _ = meshes.mesh_vertices(points, triangles, scale, smooth)
        self._switch_context()
        self._shape_gl[shape].set_vertices(vertices)

    # -- camera ---------------------------------------------------------------------------------
    @staticmethod
    def compute_projection_matrix(fov, aspect_ratio, near_plane, far_plane):
        """A perspective projection as a flat column-major 16-vector (OpenGL's layout)."""
        return perspective(fov, aspect_ratio, near_plane, far_plane).T.reshape(-1)

    def update_projection_matrix(self):
        if self.screen_height:
            self._projection = perspective(self.camera_fov, self.screen_width / self.screen_height,
                                           self.camera_near_plane, self.camera_far_plane)

    def compute_view_matrix(self, cam_pos, cam_front, cam_up):
        """The view matrix (flat column-major) of a camera given in scene coordinates."""
        return self._view_of(cam_pos, cam_front, cam_up).T.reshape(-1)

    def _view_of(self, cam_pos, cam_front, cam_up):
        p = self._world[:3, :3] / self._scaling
        return look_at(p @ np.asarray(cam_pos, float), p @ np.asarray(cam_front, float),
                       p @ np.asarray(cam_up, float))

    def update_view_matrix(self, cam_pos=None, cam_front=None, cam_up=None, stiffness=1.0):
        if cam_pos is not None:
            self._camera_pos = self._camera_pos * (1.0 - stiffness) + np.asarray(cam_pos, float) * stiffness
        if cam_front is not None:
            self._camera_front = self._camera_front * (1.0 - stiffness) + np.asarray(cam_front, float) * stiffness
        if cam_up is not None:
            self._camera_up = self._camera_up * (1.0 - stiffness) + np.asarray(cam_up, float) * stiffness
        self._view = self._view_of(self._camera_pos, self._camera_front, self._camera_up)

    @staticmethod
    def compute_model_matrix(camera_axis, scaling):
        return world_matrix(axis_index(camera_axis), scaling).T.reshape(-1)

    def update_model_matrix(self, model_matrix=None):
        if model_matrix is None:
            self._world = world_matrix(self._up_axis, self._scaling)
        else:
            self._world = np.asarray(model_matrix, float).reshape(4, 4).T

    camera_pos = property(lambda self: self._camera_pos, lambda self, v: self.update_view_matrix(cam_pos=v))
    camera_front = property(lambda self: self._camera_front, lambda self, v: self.update_view_matrix(cam_front=v))
    camera_up = property(lambda self: self._camera_up, lambda self, v: self.update_view_matrix(cam_up=v))

    @property
    def scaling(self):
        return self._scaling

    @scaling.setter
    def scaling(self, value):
        self._scaling = float(value)
        self.update_model_matrix()

    # -- frames ---------------------------------------------------------------------------------
    @property
    def paused(self):
        return self._paused

    @paused.setter
    def paused(self, value):
        self._paused = bool(value)
        self.window.set_caption(f"{self._title} (paused)" if value else self._title)

    @property
    def has_exit(self):
        return self._has_exit

    def is_running(self):
        return not self._has_exit

    def begin_frame(self, t=None):
        """Start a frame at simulation time ``t`` (default: seconds since the renderer started)."""
        self.time = self.clock_time if t is None else t

    def end_frame(self):
        """Draw the frame (into the window, or off-screen when headless)."""
        self.update()
        while self._paused and self.is_running() and not self.headless:
            self.update()

    def update(self):
        self.clock_time = time.time() - self._start_time
        if not self.headless:
            self.window.dispatch_events()
            if self._has_exit:
                return
        if not self.skip_rendering:
            self._draw()
            self.frame_count += 1
            self._record()
            for listener in list(self.frame_listeners):
                listener(self)
            if not self.headless:
                from .window import present
                present(self)

    # -- warp-lang's instance-buffer and input hooks ------------------------------------------------
    @classmethod
    def initialize_gl(cls):
        """Import pyglet's OpenGL bindings (headless when there is no display)."""
        import_pyglet(None)

    def allocate_shape_instances(self):
        """Instance buffers are rebuilt from the instances at the next frame: mark them stale."""
        self._instances_dirty = True

    update_shape_instances = allocate_shape_instances
    update_instance_colors = allocate_shape_instances

    def register_input_processor(self, callback):
        """``callback(key_state)`` each frame in a window (pyglet's KeyStateHandler)."""
        self._input_processors.append(callback)

    def register_key_press_callback(self, callback):
        """``callback(symbol, modifiers)`` on each key press in a window."""
        self._key_callbacks.append(callback)

    # -- frames on the host (notebook displays, videos) -------------------------------------------
    def last_frame(self, mode="rgb"):
        """The last drawn frame as a NumPy array, top row first: (h, w, 3) uint8 RGB, or
        (h, w) float32 depth (distance along the view axis) with ``mode="depth"``."""
        if mode not in ("rgb", "depth"):
            raise ValueError(f"mode must be 'rgb' or 'depth', got {mode!r}")
        self._switch_context()
        frame = self._framebuffer.read(depth=(mode == "depth"))
        if mode == "depth":
            frame = self._linear_depth(frame)
        return np.ascontiguousarray(frame[::-1])

    def start_recording(self, every=1, max_frames=600):
        """Keep a copy of every ``every``-th frame in ``recorded_frames`` (at most ``max_frames``,
        the oldest dropped first): what a notebook shows as an animation."""
        if every < 1 or max_frames < 1:
            raise ValueError(f"every and max_frames must be >= 1, got {every} and {max_frames}")
        self.recorded_frames = []
        self._recording = (int(every), int(max_frames), self.frame_count)

    def stop_recording(self):
        """Stop recording; returns the recorded frames."""
        self._recording = None
        return self.recorded_frames

    def _record(self):
        if self._recording is None:
            return
        every, max_frames, start = self._recording
        if (self.frame_count - 1 - start) % every == 0:
            self.recorded_frames.append(self.last_frame())
            del self.recorded_frames[:-max_frames]

    def save(self):
        """Nothing to save for an on-screen renderer (for API parity with ``UsdRenderer``)."""
        return True

    def clear(self):
        """Release every shape, instance, point set and line set (the renderer stays usable)."""
        self._switch_context()
        for mesh in list(self._shape_gl.values()) + list(self._point_gl.values()) + list(self._line_gl.values()):
            mesh.delete()
        self._shape_gl.clear()
        self._point_gl.clear()
        self._line_gl.clear()
        self._init_scene()

    def close(self):
        """Release everything and close the window / off-screen context."""
        if getattr(self, "window", None) is None:
            return
        self.clear()
        self._framebuffer.delete()
        self.window.close()
        self.window = None
        self._has_exit = True

    # -- drawing --------------------------------------------------------------------------------
    def _instance_rows(self):
        """Per shape: instance ids and their rows (matrix, colours), for the visible instances."""
        if not self._instances_dirty:
            return self._rows_cache
        records = [r for r in self._instances.values() if r[7] and r[2] in self._shape_gl]
        rows_by_shape = {}
        if records:
            ids = np.array([r[0] for r in records])
            shapes = np.array([r[2] for r in records])
            mats = pose_matrices([r[3] for r in records], [r[4] for r in records])
            bodies = [r[1] for r in records]
            if self._body_transforms is not None and any(b is not None for b in bodies):
                body_m = pose_matrices(self._body_transforms)
                for k, b in enumerate(bodies):
                    if b is not None and b < len(body_m):
                        mats[k] = body_m[b] @ mats[k]
            rows = np.empty((len(records), glres.INSTANCE_FLOATS), np.float32)
            rows[:, :16] = mats.transpose(0, 2, 1).reshape(-1, 16)  # column-major
            rows[:, 16:19] = [r[5] for r in records]
            rows[:, 19:22] = [r[6] for r in records]
            for shape in np.unique(shapes):
                sel = shapes == shape
                rows_by_shape[int(shape)] = (ids[sel], rows[sel])
        self._rows_cache = rows_by_shape
        self._instances_dirty = False
        return rows_by_shape

    def _set_common_uniforms(self, view, proj):
        eye = np.linalg.inv(view)[:3, 3]
        light = np.array([0.4, 1.0, 0.6])
        for prog in (self._shape_program, self._point_program):
            prog.use()
            prog.set_mat4("u_world", self._world)
            prog.set_mat4("u_view", view)
            prog.set_mat4("u_proj", proj)
        self._shape_program.use()
        self._shape_program.set_vec3("u_light_dir", light)
        self._shape_program.set_vec3("u_eye", eye)
        self._point_program.use()
        self._point_program.set_float("u_scale", self._scaling)
        self._point_program.set_vec3("u_light_dir_view", view[:3, :3] @ light)

    def _draw_view(self, view, proj, instance_ids=None, decorations=True):
        """Everything into the current viewport: sky, grid, axes, shapes (only ``instance_ids`` if
        given), points and lines."""
        from pyglet import gl
        if decorations and self.draw_sky:
            self._draw_sky(view, proj)
        if decorations and self.draw_grid:
            self._line_program.use()
            self._line_program.set_mat4("u_view", view)
            self._line_program.set_mat4("u_proj", proj)
            self._grid.draw()
        self._set_common_uniforms(view, proj)
        gl.glPolygonMode(gl.GL_FRONT_AND_BACK, gl.GL_LINE if self.render_wireframe else gl.GL_FILL)
        self._shape_program.use()
        for shape, (ids, rows) in self._instance_rows().items():
            if instance_ids is not None:
                rows = rows[np.isin(ids, instance_ids)]
            mesh = self._shape_gl[shape]
            mesh.set_instances(rows)
            mesh.draw()
        self._draw_lines()
        if decorations and self.draw_axis:
            self._draw_axes()
        gl.glPolygonMode(gl.GL_FRONT_AND_BACK, gl.GL_FILL)
        self._point_program.use()
        for name, (rows, visible, _) in self._point_sets.items():
            quads = self._point_gl.get(name)
            if quads is None:
                quads = self._point_gl[name] = glres.PointQuads()
            quads.set_points(rows if visible else rows[:0])
            quads.draw()

    def _draw_sky(self, view, proj):
        from pyglet import gl
        gl.glDisable(gl.GL_DEPTH_TEST)
        self._sky_program.use()
        self._sky_program.set_mat4("u_inv_view_proj", np.linalg.inv(proj @ view))
        horizon = np.asarray(self.background_color, float)
        self._sky_program.set_vec3("u_horizon", horizon)
        self._sky_program.set_vec3("u_zenith", horizon * np.array([0.55, 0.7, 0.9]))
        gl.glBindVertexArray(self._empty_vao)
        gl.glDrawArrays(gl.GL_TRIANGLES, 0, 3)
        gl.glBindVertexArray(0)
        gl.glEnable(gl.GL_DEPTH_TEST)

    def _unit_cylinder(self, radius):
        mesh = self._line_gl.get(radius)
        if mesh is None:
            vertices, indices = meshes.cylinder(radius, 0.5, segments=12)
            mesh = self._line_gl[radius] = glres.InstancedMesh(vertices, indices)
        return mesh

    def _draw_lines(self):
        self._shape_program.use()
        for starts, ends, color, radius, visible in self._line_sets.values():
            if not visible or not len(starts):
                continue
            # the unit cylinder is scaled along its axis only, so the radius stays
            mats = segment_matrices(starts, ends)
            rows = np.empty((len(mats), glres.INSTANCE_FLOATS), np.float32)
            rows[:, :16] = mats.transpose(0, 2, 1).reshape(-1, 16)
            rows[:, 16:19] = color
            rows[:, 19:22] = color
            mesh = self._unit_cylinder(radius)
            mesh.set_instances(rows)
            mesh.draw()

    def _draw_axes(self):
        if self._axis_mesh is None:
            vertices, indices = meshes.arrow(0.02, 0.85, 0.06, 0.15)
            self._axis_mesh = glres.InstancedMesh(vertices, indices)
        s = self.axis_scale
        # arrows along +Y turned onto the scene's X, Y and Z axes (before the up-axis mapping)
        turns = [np.array([[0, 1, 0], [-1, 0, 0], [0, 0, 1]]), np.eye(3), np.array([[1, 0, 0], [0, 0, -1], [0, 1, 0]])]
        rows = np.zeros((3, glres.INSTANCE_FLOATS), np.float32)
        for k, rot in enumerate(turns):
            m = np.eye(4)
            m[:3, :3] = rot * s / self._scaling
            rows[k, :16] = m.T.reshape(-1)
            rows[k, 16 + k] = rows[k, 19 + k] = 1.0
        self._shape_program.use()
        self._axis_mesh.set_instances(rows)
        self._axis_mesh.draw()

    def _draw(self):
        from pyglet import gl
        self._switch_context()
        if self._framebuffer.width != self.screen_width or self._framebuffer.height != self.screen_height:
            self._framebuffer.delete()
            self._framebuffer = glres.Framebuffer(self.screen_width, self.screen_height)
        self._framebuffer.bind()
        gl.glViewport(0, 0, self.screen_width, self.screen_height)
        gl.glClearColor(*self.background_color, 1.0)
        gl.glClear(gl.GL_COLOR_BUFFER_BIT | gl.GL_DEPTH_BUFFER_BIT)
        gl.glEnable(gl.GL_DEPTH_TEST)
        gl.glDepthFunc(gl.GL_LESS)
        if self.enable_backface_culling:
            gl.glEnable(gl.GL_CULL_FACE)
        else:
            gl.glDisable(gl.GL_CULL_FACE)
        if self._tiled_rendering:
            self._draw_tiles()
        else:
            self._draw_view(self._view, self._projection)
        for callback in self.render_3d_callbacks:
            callback()
        gl.glBindFramebuffer(gl.GL_FRAMEBUFFER, 0)


def _grid_lines(half=50, step=1.0):
    """The ground grid in OpenGL's frame (the y = 0 plane)."""
    ticks = np.arange(-half, half + 1) * step
    rows = []
    for t in ticks:
        shade = (0.35, 0.35, 0.35) if t else (0.15, 0.15, 0.15)
        rows += [(t, 0, -half * step, *shade), (t, 0, half * step, *shade),
                 (-half * step, 0, t, *shade), (half * step, 0, t, *shade)]
    return np.array(rows, np.float32)
