"""Tiled views and reading frames back: mixin of ``OpenGLRenderer``.

Tiled rendering splits the frame into viewports, each showing its own list of instance ids
with its own view and projection (many environments side by side, or several cameras).
``get_pixels`` copies the last frame, whole or cut into tiles, as colour (RGB in [0, 1], or
uint8) or depth (distance along the view axis, in scene units) into a Warp array, top row first.
"""

import numpy as np

from . import _api as wp

from .transforms import perspective


class Frames:
    def _init_tiles(self):
        self._tiled_rendering = False
        self._tile_instances = None
        self._tile_viewports = None
        self._tile_width = self._tile_height = 0
        self._tile_ncols = self._tile_nrows = 0
        self._tile_projection_matrices = None
        self._tile_view_matrices = None

    @property
    def tiled_rendering(self):
        return self._tiled_rendering

    @tiled_rendering.setter
    def tiled_rendering(self, value):
        if value and self._tile_instances is None:
            raise RuntimeError("Tiled rendering must be configured with setup_tiled_rendering() before it can "
                               "be enabled, got no tile instances")
        self._tiled_rendering = bool(value)

    @property
    def num_tiles(self):
        return len(self._tile_instances) if self._tile_instances is not None else 0

    @property
    def tile_width(self):
        return self._tile_width

    @property
    def tile_height(self):
        return self._tile_height

    def setup_tiled_rendering(self, instances, rescale_window=False, tile_width=None, tile_height=None,
                              tile_ncols=None, tile_nrows=None, tile_positions=None, tile_sizes=None,
                              projection_matrices=None, view_matrices=None):
        """Split the frame into tiles: tile ``i`` shows the instances whose ids are in
        ``instances[i]``. Tiles fill a grid (columns first, from the bottom-left corner in OpenGL's
        pixel coordinates) unless ``tile_positions`` and ``tile_sizes`` place them; each tile uses
        the renderer's camera unless given its own (column-major, flat or 4x4) matrices."""
        _check_instance_lists(instances)
        self._tile_instances = instances
        n = len(instances)
        if tile_positions is None or tile_sizes is None:
            if tile_ncols is None or tile_nrows is None:
                tile_ncols = int(np.ceil(np.sqrt(n)))
                tile_nrows = int(np.ceil(n / tile_ncols))
            self._tile_ncols, self._tile_nrows = tile_ncols, tile_nrows
            self._tile_width = tile_width or max(32, self.screen_width // tile_ncols)
            self._tile_height = tile_height or max(32, self.screen_height // tile_nrows)
            self._tile_viewports = [(i * self._tile_width, j * self._tile_height, self._tile_width, self._tile_height)
                                    for i in range(tile_ncols) for j in range(tile_nrows)][:n]
            if rescale_window:
                self._resize(self._tile_width * tile_ncols, self._tile_height * tile_nrows)
        else:
            if len(tile_positions) != n or len(tile_sizes) != n:
                raise ValueError(f"tile_positions and tile_sizes must each contain {n} entries to match instances, "
                                 f"got {len(tile_positions)} positions and {len(tile_sizes)} sizes")
            self._tile_ncols = self._tile_nrows = None
            widths = {int(s[0]) for s in tile_sizes}
            heights = {int(s[1]) for s in tile_sizes}
            self._tile_width = widths.pop() if len(widths) == 1 else None
            self._tile_height = heights.pop() if len(heights) == 1 else None
            self._tile_viewports = [(int(x), int(y), int(w), int(h)) for (x, y), (w, h) in zip(tile_positions, tile_sizes)]
        projection_matrices = projection_matrices or [None] * n
        self._tile_projection_matrices = [None if p is None else np.asarray(p, float).reshape(-1)
                                          for p in projection_matrices]
        self._tile_view_matrices = [None] * n if view_matrices is None else \
            [None if m is None else np.asarray(m, float).reshape(-1) for m in view_matrices]
        self._tiled_rendering = True

    def update_tile(self, tile_id, instances=None, projection_matrix=None, view_matrix=None, tile_size=None,
                    tile_position=None):
        """Change one tile's instances, matrices, size or position."""
        if self._tile_instances is None:
            raise RuntimeError("update_tile() requires setup_tiled_rendering() to be called first, got no tile instances")
        count = len(self._tile_instances)
        if not 0 <= tile_id < count:
            raise IndexError(f"tile_id {tile_id} is out of bounds for {count} {'tile' if count == 1 else 'tiles'}")
        if instances is not None:
            self._tile_instances[tile_id] = instances
        if projection_matrix is not None:
            self._tile_projection_matrices[tile_id] = np.asarray(projection_matrix, float).reshape(-1)
        if view_matrix is not None:
            self._tile_view_matrices[tile_id] = np.asarray(view_matrix, float).reshape(-1)
        x, y, w, h = self._tile_viewports[tile_id]
        if tile_size is not None:
            w, h = tile_size
        if tile_position is not None:
            x, y = tile_position
        self._tile_viewports[tile_id] = (x, y, w, h)

    def _resize(self, width, height):
        self.screen_width, self.screen_height = int(width), int(height)
        if not self.headless:
            self.window.set_size(width, height)
        self.update_projection_matrix()

    def _draw_tiles(self):
        from pyglet import gl
        for i, (x, y, w, h) in enumerate(self._tile_viewports):
            gl.glViewport(x, y, w, h)
            proj = self._tile_projection_matrices[i]
            proj = perspective(self.camera_fov, w / h, self.camera_near_plane, self.camera_far_plane) \
                if proj is None else proj.reshape(4, 4).T
            view = self._tile_view_matrices[i]
            view = self._view if view is None else view.reshape(4, 4).T
            self._draw_view(view, proj, instance_ids=np.asarray(self._tile_instances[i], dtype=np.int64))
        gl.glViewport(0, 0, self.screen_width, self.screen_height)

    def get_pixels(self, target_image, split_up_tiles=True, mode="rgb", use_uint8=False):
        """Copy the last frame into ``target_image``: (height, width, 3) for ``mode="rgb"`` (float
        in [0, 1], or uint8 with ``use_uint8``), (height, width, 1) for ``mode="depth"`` (distance
        along the view axis; the far plane where nothing was drawn); with ``split_up_tiles`` one
        such image per tile, stacked: (num_tiles, tile_height, tile_width, channels).
        Returns True."""
        if mode not in ("rgb", "depth"):
            raise ValueError(f"mode must be 'rgb' or 'depth', got {mode!r}")
        if split_up_tiles:
            self._check_uniform_tiles()
        channels = 3 if mode == "rgb" else 1
        if split_up_tiles:
            expected = (self.num_tiles, self._tile_height, self._tile_width, channels)
        else:
            expected = (self.screen_height, self.screen_width, channels)
        if tuple(target_image.shape) != expected:
            raise ValueError(f"target_image shape must be {expected}, got {tuple(target_image.shape)}")
        self._switch_context()
        frame = self._framebuffer.read(depth=(mode == "depth"))
        if mode == "depth":
            frame = self._linear_depth(frame)[..., None]
        elif not use_uint8:
            frame = frame.astype(np.float32) / 255.0
        if split_up_tiles:
            images = [self._cut_tile(frame, vp) for vp in self._tile_viewports]
            image = np.stack(images)
        else:
            image = frame[::-1]
        dtype = np.uint8 if (use_uint8 and mode == "rgb") else np.float32
        wp.copy(target_image, wp.array(np.ascontiguousarray(image, dtype=dtype), dtype=target_image.dtype,
                                       device=target_image.device))
        return True

    def _check_uniform_tiles(self):
        if self._tile_viewports is None:
            raise RuntimeError("get_pixels() requires setup_tiled_rendering() when split_up_tiles=True, "
                               "got no tile viewports")
        if self._tile_width is None or self._tile_height is None:
            raise RuntimeError("Uniform tile width and height must be configured when split_up_tiles=True, "
                               f"got tile_width={self._tile_width} and tile_height={self._tile_height}")
        sizes = sorted({(vp[2], vp[3]) for vp in self._tile_viewports})
        if sizes != [(self._tile_width, self._tile_height)]:
            raise RuntimeError(f"All tiles must be {self._tile_width}x{self._tile_height} pixels to split them "
                               f"up, got sizes {sizes}")

    def _cut_tile(self, frame, viewport):
        """One tile of a bottom-row-first frame, top row first; outside the frame stays 0."""
        x, y, w, h = viewport
        out = np.zeros((h, w) + frame.shape[2:], frame.dtype)
        x1, y1 = min(x + w, frame.shape[1]), min(y + h, frame.shape[0])
        if x1 > x and y1 > y:
            out[: y1 - y, : x1 - x] = frame[y:y1, x:x1]
        return out[::-1]

    def _linear_depth(self, window_depth):
        """Window depth in [0, 1] -> distance in front of the camera (the projection inverted)."""
        n, f = self.camera_near_plane, self.camera_far_plane
        z_ndc = 2.0 * window_depth.astype(np.float64) - 1.0
        return (2.0 * n * f / (f + n - z_ndc * (f - n))).astype(np.float32)


def _check_instance_lists(instances):
    if not isinstance(instances, list):
        raise TypeError(f"instances must be a list of lists, got {type(instances).__name__}")
    if not instances:
        raise ValueError(f"instances must be non-empty, got {instances!r}")
    for index, item in enumerate(instances):
        if not isinstance(item, list):
            raise TypeError(f"instances elements must be lists, got {type(item).__name__} at index {index}")
