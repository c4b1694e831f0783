"""What the OpenGL renderer draws, independent of OpenGL: registered shapes (geometry that may be
instanced), named instances of them (pose, scale, colours, visibility, optional parent body),
point clouds and line sets, and the ``render_*`` calls that create or update them.

A ``render_*`` call with a name seen before updates that instance (its pose, colours...), so a
simulation loop calls the same ``render_*`` lines every frame; geometry is shared between all
instances of equal parameters (one sphere mesh for all spheres of one radius).
"""

import numpy as np

from . import _api as wp

from . import meshes
from .transforms import quat_from_axis_angle

_TAB10 = np.array([
    (31, 119, 180), (255, 127, 14), (44, 160, 44), (214, 39, 40), (148, 103, 189),
    (140, 86, 75), (227, 119, 194), (127, 127, 127), (188, 189, 34), (23, 190, 207)]) / 255.0


def tab10_color(i):
    """Matplotlib's ``tab10`` colour ``i`` (cycling), as an RGB tuple in [0, 1]."""
    return tuple(float(c) for c in _TAB10[int(i) % 10])


def _host(values, dtype=np.float32):
    """A NumPy copy of a Warp array (from any device), a NumPy array or a nested sequence."""
    if isinstance(values, wp.array):
        values = values.numpy()
    return np.asarray(values, dtype=dtype)


def _pose(pos, rot):
    rot = (0.0, 0.0, 0.0, 1.0) if rot is None else rot
    return [float(x) for x in np.asarray(pos, float).reshape(3)] + \
        [float(x) for x in np.asarray(rot, float).reshape(4)]


class Scene:
    """Mixin of ``OpenGLRenderer``: the scene's bookkeeping and the ``render_*`` API. Subclasses
    provide ``register_shape``/``deregister_shape`` (the geometry's GPU side) and
    ``update_shape_vertices``."""

    def _init_scene(self):
        self._shapes = []            # shape id -> (vertices, indices, color1, color2, geo_hash)
        self._shape_geo_hash = {}    # geo_hash -> shape id
        self._mesh_sources = {}      # shape id -> (triangles, smooth, scale): a user mesh's topology
        self._instances = {}         # name -> (id, body, shape, pose[7], scale, color1, color2, visible)
        self._instance_names = []    # instance id -> name (None once removed)
        self._instance_custom_ids = {}
        self._body_name = {}         # body name -> body id
        self._body_transforms = None  # (n, 7) host copy of the last update_body_transforms
        self._point_sets = {}        # name -> [rows (n, 7): centre, radius, colour; visible]
        self._line_sets = {}         # name -> [starts, ends, colour, radius, visible]
        self._instances_dirty = True

    # -- shapes and instances --------------------------------------------------------------
    def _default_color(self):
        return tab10_color(len(self._shape_geo_hash))

    def _resolve_body_id(self, body):
        if body is None or isinstance(body, (int, np.integer)):
            return body
        return self._body_name[body]

    def register_body(self, name):
        """A body instances can be attached to (``parent_body``); its pose comes from
        ``update_body_transforms``. Returns the body id."""
        if name not in self._body_name:
            self._body_name[name] = len(self._body_name)
        return self._body_name[name]

    def update_body_transforms(self, body_tf):
        """Poses of all bodies: a ``wp.array`` of ``wp.transform`` (or an (n, 7) array)."""
        self._body_transforms = _host(body_tf, np.float64).reshape(-1, 7)
        self._instances_dirty = True

    def add_shape_instance(self, name, shape, body, pos, rot, scale=(1.0, 1.0, 1.0), color1=None,
                           color2=None, custom_index=-1, visible=True):
        """Add an instance of a registered shape; returns its instance id (the ids that tiled
        rendering's instance lists name)."""
        given = color1
        if color1 is None:
            color1 = self._shapes[shape][2]
        if color2 is None:
            color2 = self._shapes[shape][3] if given is None else given
        old = self._instances.get(name)
        instance = len(self._instance_names) if old is None else old[0]
        if old is None:
            self._instance_names.append(name)
        self._instances[name] = (instance, self._resolve_body_id(body), shape, _pose(pos, rot),
                                 tuple(np.asarray(scale, float).reshape(3)), tuple(color1),
                                 tuple(color2), bool(visible))
        self._instance_custom_ids[instance] = custom_index
        self._instances_dirty = True
        return instance

    def update_shape_instance(self, name, pos=None, rot=None, color1=None, color2=None, scale=None,
                              visible=None):
        """Update an existing instance; returns False when there is none of that name."""
        if name not in self._instances:
            return False
        inst, body, shape, pose, old_scale, c1, c2, vis = self._instances[name]
        if pos is not None:
            pose = _pose(pos, pose[3:]) if rot is None else _pose(pos, rot)
        elif rot is not None:
            pose = _pose(pose[:3], rot)
        self._instances[name] = (
            inst, body, shape, pose,
            old_scale if scale is None else tuple(np.asarray(scale, float).reshape(3)),
            c1 if color1 is None else tuple(np.asarray(color1, float).reshape(3)),
            c2 if color2 is None else tuple(np.asarray(color2, float).reshape(3)),
            vis if visible is None else bool(visible))
        self._instances_dirty = True
        return True

    def remove_shape_instance(self, name):
        if name in self._instances:
            self._instance_names[self._instances.pop(name)[0]] = None
            self._instances_dirty = True

    @property
    def num_shapes(self):
        return len(self._shape_geo_hash)

    @property
    def num_instances(self):
        return len(self._instances)

    def _shape(self, name, geo_hash, build, pos, rot, color, parent_body, is_template, visible,
               scale=(1.0, 1.0, 1.0)):
        """The common path of the primitive ``render_*`` calls."""
        shape = self._shape_geo_hash.get(geo_hash)
        if shape is not None and self.update_shape_instance(name, pos, rot, color1=color, color2=color,
                                                            visible=visible):
            return shape
        if shape is None:
            vertices, indices = build()
            shape = self.register_shape(geo_hash, vertices, indices, color1=color, color2=color)
        if not is_template:
            self.add_shape_instance(name, shape, parent_body, pos, rot, scale, color1=color, color2=color,
                                    visible=visible)
        return shape

    # -- primitives ---------------------------------------------------------------------------
    def render_sphere(self, name, pos, rot, radius, parent_body=None, is_template=False, color=None,
                      visible=True):
        return self._shape(name, ("sphere", float(radius)), lambda: meshes.sphere(radius), pos, rot,
                           color, parent_body, is_template, visible)

    def render_box(self, name, pos, rot, extents, parent_body=None, is_template=False, color=None,
                   visible=True):
        ext = tuple(float(e) for e in np.asarray(extents).reshape(3))
        return self._shape(name, ("box", ext), lambda: meshes.box(ext), pos, rot, color, parent_body,
                           is_template, visible)

    def render_capsule(self, name, pos, rot, radius, half_height, parent_body=None, is_template=False,
                       up_axis=1, color=None, visible=True):
        return self._shape(name, ("capsule", float(radius), float(half_height), up_axis),
                           lambda: meshes.capsule(radius, half_height, up_axis), pos, rot, color,
                           parent_body, is_template, visible)

    def render_cylinder(self, name, pos, rot, radius, half_height, parent_body=None, is_template=False,
                        up_axis=1, color=None, visible=True):
        return self._shape(name, ("cylinder", float(radius), float(half_height), up_axis),
                           lambda: meshes.cylinder(radius, half_height, up_axis), pos, rot, color,
                           parent_body, is_template, visible)

    def render_cone(self, name, pos, rot, radius, half_height, parent_body=None, is_template=False,
                    up_axis=1, color=None, visible=True):
        return self._shape(name, ("cone", float(radius), float(half_height), up_axis),
                           lambda: meshes.cone(radius, half_height, up_axis), pos, rot, color,
                           parent_body, is_template, visible)

    def render_arrow(self, name, pos, rot, base_radius, base_height, cap_radius=None, cap_height=None,
                     parent_body=None, is_template=False, up_axis=1, color=None, visible=True):
        key = ("arrow", base_radius, base_height, cap_radius, cap_height, up_axis)
        return self._shape(name, key, lambda: meshes.arrow(base_radius, base_height, cap_radius, cap_height,
                                                           up_axis), pos, rot, color, parent_body,
                           is_template, visible)

    def render_plane(self, name, pos, rot, width, length, color=(1.0, 1.0, 1.0), color2=None,
                     parent_body=None, is_template=False, u_scaling=1.0, v_scaling=1.0, visible=True):
        key = ("plane", float(width), float(length), u_scaling, v_scaling)
        shape = self._shape_geo_hash.get(key)
        if shape is not None and self.update_shape_instance(name, pos, rot, visible=visible):
            return shape
        if shape is None:
            vertices, indices = meshes.plane(width, length, u_scaling, v_scaling)
            shape = self.register_shape(key, vertices, indices, color1=color, color2=color2)
        if not is_template:
            self.add_shape_instance(name, shape, parent_body, pos, rot, visible=visible)
        return shape

    def render_ground(self, size=1000.0, plane=None):
        """A checkered ground plane through the origin, normal to the up axis, or the plane
        ``(nx, ny, nz, d)`` (points x with n.x = d)."""
        up = np.zeros(3)
        up[self._up_axis] = 1.0
        normal, offset = up, 0.0
        if plane is not None:
            normal = np.asarray(plane[:3], float)
            normal = normal / np.linalg.norm(normal)
            offset = float(plane[3])
        # the plane mesh faces +Y; turn +Y onto the normal
        y = np.array([0.0, 1.0, 0.0])
        axis = np.cross(y, normal)
        angle = np.arctan2(np.linalg.norm(axis), float(np.dot(y, normal)))
        q = (0.0, 0.0, 0.0, 1.0) if np.linalg.norm(axis) < 1e-9 else quat_from_axis_angle(axis, angle)
        if np.linalg.norm(axis) < 1e-9 and np.dot(y, normal) < 0:
            q = (1.0, 0.0, 0.0, 0.0)  # half a turn about X: +Y onto -Y
        return self.render_plane("ground", normal * offset, q, size, size, (0.78, 0.78, 0.78),
                                 color2=(0.59, 0.59, 0.59))

    def render_ref(self, name, path, pos, rot, scale, color=None):
        """An instance named ``name`` of the shape that the instance named ``path`` shows."""
        if name in self._instances:
            self.update_shape_instance(name, pos, rot, color1=color, color2=color, scale=scale)
            return
        if path not in self._instances:
            raise KeyError(f"render_ref: no instance named {path!r} to reference "
                           f"(instances: {sorted(self._instances)[:10]})")
        _, body, shape, _, original_scale, c1, c2, _ = self._instances[path]
        if color is not None:
            c1 = c2 = color
        self.add_shape_instance(name, shape, body, pos, rot, original_scale if scale is None else scale, c1, c2)

    # -- meshes ---------------------------------------------------------------------------------
    def render_mesh(self, name, points, indices, colors=None, pos=(0.0, 0.0, 0.0), rot=(0.0, 0.0, 0.0, 1.0),
                    scale=(1.0, 1.0, 1.0), update_topology=False, parent_body=None, is_template=False,
                    smooth_shading=True, visible=True):
        """Create or update a triangle mesh. A name seen before keeps its triangles (``indices``
        is ignored) unless ``update_topology``; the points are uploaded each call."""
        if colors is not None:
            colors = tuple(np.asarray(colors, np.float32).reshape(-1)[:3])
        points = _host(points, np.float32).reshape(-1, 3)
        point_count = len(points)
        if not update_topology and name in self._instances:
            shape = self._instances[name][2]
            self.update_shape_instance(name, pos, rot, color1=colors, color2=colors, scale=scale, visible=visible)
            self.update_shape_vertices(shape, points)
            return shape
        triangles = _checked_triangles(indices, point_count)
        geo_hash = ("mesh", points.tobytes(), triangles.tobytes(), bool(smooth_shading))
        shape = self._instances[name][2] if name in self._instances else self._shape_geo_hash.get(geo_hash)
        if not update_topology and shape is not None:
            self.update_shape_vertices(shape, points)
            if not is_template:
                self.add_shape_instance(name, shape, parent_body, pos, rot, scale, colors, colors, visible=visible)
            return shape
        if shape is not None:
            self.deregister_shape(shape)
        self.remove_shape_instance(name)
        vertices, gfx_indices = meshes.mesh_vertices(points, triangles, scale, smooth_shading)
        source = (triangles, bool(smooth_shading), tuple(np.asarray(scale, float).reshape(3)))
        shape = self.register_shape(geo_hash, vertices, gfx_indices, mesh_source=source)
        if not is_template:
            self.add_shape_instance(name, shape, parent_body, pos, rot, scale, colors, colors, visible=visible)
        return shape

    # -- point clouds and lines --------------------------------------------------------------------
    def render_points(self, name, points, radius, colors=None, as_spheres=True, visible=True):
        """Points drawn as shaded spheres of ``radius`` (one value or one per point); ``colors``
        one RGB colour or one per point (default: a colour of its own)."""
        centers = _host(points, np.float32).reshape(-1, 3)
        n = len(centers)
        old = self._point_sets.get(name)
        rows = np.empty((n, 7), np.float32)
        rows[:, 0:3] = centers
        rows[:, 3] = _host(radius, np.float32).reshape(-1) if not np.isscalar(radius) else radius
        if colors is None:
            rows[:, 4:7] = old[2] if old is not None else self._default_color()
            color = rows[0, 4:7].copy() if n else self._default_color()
        else:
            c = _host(colors, np.float32)
            rows[:, 4:7] = c.reshape(-1, 3) if c.size != 3 else c.reshape(3)
            color = rows[0, 4:7].copy() if n else c.reshape(-1)[:3]
        self._point_sets[name] = [rows, bool(visible), color]

    def render_line_list(self, name, vertices, indices, color=None, radius=0.01, visible=True):
        """Segments between ``vertices[indices[2i]]`` and ``vertices[indices[2i+1]]``, drawn as
        cylinders of ``radius``."""
        v = _host(vertices, np.float64).reshape(-1, 3)
        idx = _host(indices, np.int64).reshape(-1)
        pairs = idx[: len(idx) // 2 * 2].reshape(-1, 2)
        self._set_lines(name, v[pairs[:, 0]], v[pairs[:, 1]], color, radius, visible)

    def render_line_strip(self, name, vertices, color=None, radius=0.01, visible=True):
        """Segments joining consecutive ``vertices``."""
        v = _host(vertices, np.float64).reshape(-1, 3)
        self._set_lines(name, v[:-1], v[1:], color, radius, visible)

    def _set_lines(self, name, starts, ends, color, radius, visible):
        if color is None or np.asarray(color, dtype=object).ndim > 1:
            old = self._line_sets.get(name)
            color = old[2] if old is not None else self._default_color()
        self._line_sets[name] = [starts, ends, tuple(np.asarray(color, float).reshape(3)), float(radius),
                                 bool(visible)]


def _checked_triangles(indices, point_count):
    """Triangle indices as an (n, 3) int32 array, refusing any index outside the points (or
    beyond int32, the index type of meshes) before anything is built from them."""
    source = np.array(indices, copy=True)
    limit = min(point_count, np.iinfo(np.int32).max + 1)
    if source.size:
        if source.dtype.kind not in "iu":
            if source.dtype == object or not np.all(np.mod(source, 1) == 0):
                raise ValueError(f"Mesh indices must be integers, got dtype {source.dtype}")
        low, high = source.min(), source.max()
        if not (low >= 0 and high < limit):
            raise ValueError(f"Mesh indices must be in the range [0, {limit}), "
                             f"but found an index range of [{low}, {high}]")
        if source.size % 3:
            raise ValueError(f"Mesh indices must group into triangles: got {source.size} indices, "
                             "not a multiple of 3")
    return np.asarray(source, dtype=np.int32).reshape(-1, 3)
