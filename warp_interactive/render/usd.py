"""``UsdRenderer``: writes a scene, frame by frame, to a USD stage (usd-core's ``pxr``).

Every ``render_*`` call defines a prim under ``/root`` the first time its name is seen and
writes its changing attributes (transform, points, colours, visibility) as time samples at the
current frame's time code (``begin_frame(t)``: ``round(t * fps)``), so a viewer plays the stage
back as an animation. ``save()`` writes the file.
"""

import numpy as np

from . import _api as wp

from ._deps import import_pxr
from .transforms import axis_index, segment_matrices


def _host(values, dtype=np.float32):
    if isinstance(values, wp.array):
        values = values.numpy()
    return np.asarray(values, dtype=dtype)


def _vec3_array(values):
    _, _, _, _, _, Vt = import_pxr()
    return Vt.Vec3fArray.FromNumpy(np.ascontiguousarray(_host(values).reshape(-1, 3)))


class UsdRenderer:
    """Writes spheres, boxes, capsules, cylinders, cones, planes, meshes, points and lines to a
    USD stage (a file path, or a ``Usd.Stage``), one time sample per frame."""

    def __init__(self, stage, up_axis="Y", fps=60, scaling=1.0):
        Gf, Sdf, Usd, UsdGeom, UsdLux, _ = import_pxr()
        if isinstance(stage, str):
            stage = Usd.Stage.CreateNew(stage)
        elif not isinstance(stage, Usd.Stage):
            raise TypeError(f"UsdRenderer needs a file path or a Usd.Stage, got {type(stage).__name__}")
        self.stage = stage
        self.up_axis = "XYZ"[axis_index(up_axis)]
        self.fps = float(fps)
        self.time = 0.0
        self.root = UsdGeom.Xform.Define(stage, "/root")
        self._kinds = {}         # shape name -> its UsdGeom schema class (for instances)
        self._custom_scale = {}  # shape name -> scale applied on top of an instance's (boxes)
        self.root.ClearXformOpOrder()
        self.root.AddScaleOp().Set(Gf.Vec3d(float(scaling), float(scaling), float(scaling)), 0.0)
        stage.SetDefaultPrim(self.root.GetPrim())
        stage.SetStartTimeCode(0.0)
        stage.SetEndTimeCode(0.0)
        stage.SetFramesPerSecond(self.fps)
        stage.SetTimeCodesPerSecond(self.fps)
        UsdGeom.SetStageUpAxis(stage, getattr(UsdGeom.Tokens, self.up_axis.lower()))
        light = UsdLux.DistantLight.Define(stage, "/distant_light")
        light.AddRotateXYZOp().Set(Gf.Vec3f(-35.0, 45.0, 0.0))
        light.GetIntensityAttr().Set(3000.0)
        dome = UsdLux.DomeLight.Define(stage, "/dome_light")
        dome.GetIntensityAttr().Set(500.0)

    # -- frames --------------------------------------------------------------------------------
    def begin_frame(self, time):
        """Write the following calls at the time code of ``time`` seconds."""
        self.time = round(float(time) * self.fps)
        if self.time > self.stage.GetEndTimeCode():
            self.stage.SetEndTimeCode(self.time)
        if self.time < self.stage.GetStartTimeCode():
            self.stage.SetStartTimeCode(self.time)

    def end_frame(self):
        pass

    def save(self):
        """Write the stage to its file; returns True on success."""
        self.stage.Save()
        return True

    # -- prims and transforms -------------------------------------------------------------------------
    def _path(self, name, parent_body=None, is_template=False):
        root = self.root.GetPath()
        if is_template:
            return root.AppendChild("_template_shapes").AppendChild(name)
        return root.AppendChild(name) if parent_body is None else root.AppendChild(parent_body).AppendChild(name)

    def _xform(self, prim, pos, rot, scale=(1.0, 1.0, 1.0)):
        Gf, _, _, UsdGeom, _, _ = import_pxr()
        xf = UsdGeom.Xformable(prim)
        ops = {op.GetOpName(): op for op in xf.GetOrderedXformOps()}
        if "xformOp:translate" not in ops:
            xf.ClearXformOpOrder()
            ops = {"xformOp:translate": xf.AddTranslateOp(), "xformOp:orient": xf.AddOrientOp(),
                   "xformOp:scale": xf.AddScaleOp()}
        p = [float(x) for x in np.asarray(pos, float).reshape(3)]
        q = [float(x) for x in np.asarray((0, 0, 0, 1) if rot is None else rot, float).reshape(4)]
        s = [float(x) for x in np.asarray(scale, float).reshape(3)]
        ops["xformOp:translate"].Set(Gf.Vec3d(*p), self.time)
        ops["xformOp:orient"].Set(Gf.Quatf(q[3], q[0], q[1], q[2]), self.time)
        ops["xformOp:scale"].Set(Gf.Vec3f(*s), self.time)

    def _finish(self, geom, name, pos, rot, scale, color, is_template, visible):
        Gf = import_pxr()[0]
        if color is not None:
            geom.GetDisplayColorAttr().Set([Gf.Vec3f(*(float(c) for c in np.asarray(color).reshape(-1)[:3]))],
                                           self.time)
        if not is_template:
            self._xform(geom.GetPrim(), pos, rot, scale)
        geom.GetVisibilityAttr().Set("inherited" if visible else "invisible", self.time)

    def _define(self, kind, name, parent_body, is_template):
        path = self._path(name, parent_body, is_template)
        geom = kind.Get(self.stage, path)
        new = not geom
        if new:
            geom = kind.Define(self.stage, path)
        self._kinds[name] = kind
        return geom, new

    def register_body(self, body_name):
        UsdGeom = import_pxr()[3]
        xform = UsdGeom.Xform.Define(self.stage, self.root.GetPath().AppendChild(body_name))
        self._xform(xform.GetPrim(), (0, 0, 0), (0, 0, 0, 1))

    def add_shape_instance(self, name, shape, body, pos, rot, scale=(1.0, 1.0, 1.0), color1=None, color2=None,
                           custom_index=-1, visible=True):
        """An instance named ``name`` of the shape prim ``shape`` (a path a ``render_*`` call returned)."""
        if not visible:
            return
        shape_name = shape.name
        kind = self._kinds[shape_name]
        instance = kind.Define(self.stage, self._path(name, body))
        instance.GetPrim().GetReferences().AddInternalReference(shape)
        custom = self._custom_scale.get(shape_name)
        if custom is not None:
            scale = np.asarray(scale, float) * np.asarray(custom, float)
        self._xform(instance.GetPrim(), pos, rot, scale)

    # -- primitives ---------------------------------------------------------------------------
    def render_sphere(self, name, pos, rot, radius, parent_body=None, is_template=False, color=None, visible=True):
        UsdGeom = import_pxr()[3]
        geom, _ = self._define(UsdGeom.Sphere, name, parent_body, is_template)
        geom.GetRadiusAttr().Set(float(radius), self.time)
        self._finish(geom, name, pos, rot, (1, 1, 1), color, is_template, visible)
        return geom.GetPath()

    def _axial(self, kind, name, pos, rot, radius, half_height, parent_body, is_template, up_axis, color, visible):
        geom, _ = self._define(kind, name, parent_body, is_template)
        geom.GetRadiusAttr().Set(float(radius))
        geom.GetHeightAttr().Set(float(half_height) * 2.0)
        geom.GetAxisAttr().Set("XYZ"[axis_index(up_axis)])
        self._finish(geom, name, pos, rot, (1, 1, 1), color, is_template, visible)
        return geom.GetPath()

    def render_capsule(self, name, pos, rot, radius, half_height, parent_body=None, is_template=False, up_axis=1,
                       color=None, visible=True):
        return self._axial(import_pxr()[3].Capsule, name, pos, rot, radius, half_height, parent_body,
                           is_template, up_axis, color, visible)

    def render_cylinder(self, name, pos, rot, radius, half_height, parent_body=None, is_template=False, up_axis=1,
                        color=None, visible=True):
        return self._axial(import_pxr()[3].Cylinder, name, pos, rot, radius, half_height, parent_body,
                           is_template, up_axis, color, visible)

    def render_cone(self, name, pos, rot, radius, half_height, parent_body=None, is_template=False, up_axis=1,
                    color=None, visible=True):
        return self._axial(import_pxr()[3].Cone, name, pos, rot, radius, half_height, parent_body,
                           is_template, up_axis, color, visible)

    def render_box(self, name, pos, rot, extents, parent_body=None, is_template=False, color=None, visible=True):
        """A box of half ``extents``: a unit cube (size 2) scaled by them."""
        UsdGeom = import_pxr()[3]
        geom, _ = self._define(UsdGeom.Cube, name, parent_body, is_template)
        geom.GetSizeAttr().Set(2.0)
        extents = tuple(float(e) for e in np.asarray(extents).reshape(3))
        self._custom_scale[name] = extents
        self._finish(geom, name, pos, rot, extents, color, is_template, visible)
        return geom.GetPath()

    def render_plane(self, name, pos, rot, width, length, color=(1.0, 1.0, 1.0), color2=None, parent_body=None,
                     is_template=False, u_scaling=1.0, v_scaling=1.0, visible=True):
        """The rectangle [-width, width] x [-length, length] of the XZ plane (a mesh)."""
        UsdGeom = import_pxr()[3]
        geom, new = self._define(UsdGeom.Mesh, name, parent_body, is_template)
        if new:
            w, ln = float(width), float(length)
            geom.GetPointsAttr().Set(_vec3_array([[-w, 0, -ln], [-w, 0, ln], [w, 0, ln], [w, 0, -ln]]))
            geom.GetFaceVertexIndicesAttr().Set([0, 1, 2, 3])
            geom.GetFaceVertexCountsAttr().Set([4])
            geom.GetDoubleSidedAttr().Set(True)
        self._finish(geom, name, pos, rot, (1, 1, 1), color, is_template, visible)
        return geom.GetPath()

    def render_ground(self, size=100.0, plane=None):
        """A square of half size ``size`` through the origin, normal to the up axis (or on the
        plane ``(nx, ny, nz, d)``)."""
        from .transforms import quat_from_axis_angle
        up = np.zeros(3)
        up[axis_index(self.up_axis)] = 1.0
        normal, offset = up, 0.0
        if plane is not None:
            normal = np.asarray(plane[:3], float) / np.linalg.norm(plane[:3])
            offset = float(plane[3])
        y = np.array([0.0, 1.0, 0.0])
        axis = np.cross(y, normal)
        if np.linalg.norm(axis) < 1e-9:
            q = (0.0, 0.0, 0.0, 1.0) if normal @ y > 0 else (1.0, 0.0, 0.0, 0.0)
        else:
            q = quat_from_axis_angle(axis, np.arctan2(np.linalg.norm(axis), normal @ y))
        return self.render_plane("ground", normal * offset, q, size, size, color=(0.7, 0.7, 0.7))

    def render_arrow(self, name, pos, rot, base_radius, base_height, cap_radius=None, cap_height=None,
                     parent_body=None, is_template=False, up_axis=1, color=None, visible=True):
        """A shaft (cylinder) and a head (cone) under one transform, pointing along ``up_axis``."""
        UsdGeom = import_pxr()[3]
        cap_radius = base_radius * 1.8 if cap_radius is None else cap_radius
        cap_height = base_height * 0.18 if cap_height is None else cap_height
        xform, _ = self._define(UsdGeom.Xform, name, parent_body, is_template)
        axis = "XYZ"[axis_index(up_axis)]
        for part, kind, radius, height, start in (("base", UsdGeom.Cylinder, base_radius, base_height, 0.0),
                                                  ("cap", UsdGeom.Cone, cap_radius, cap_height, base_height)):
            geom = kind.Define(self.stage, xform.GetPath().AppendChild(part))
            geom.GetRadiusAttr().Set(float(radius))
            geom.GetHeightAttr().Set(float(height))
            geom.GetAxisAttr().Set(axis)
            offset = np.zeros(3)
            offset[axis_index(up_axis)] = start + 0.5 * height
            self._xform(geom.GetPrim(), offset, (0, 0, 0, 1))
            if color is not None:
                geom.GetDisplayColorAttr().Set([tuple(float(c) for c in color)], self.time)
        if not is_template:
            self._xform(xform.GetPrim(), pos, rot)
        xform.GetVisibilityAttr().Set("inherited" if visible else "invisible", self.time)
        return xform.GetPath()

    def render_ref(self, name, path, pos, rot, scale, color=None):
        """An Xform named ``name`` referencing the USD asset file ``path``, posed each frame."""
        Gf, _, Usd, UsdGeom, _, _ = import_pxr()
        ref_path = self.root.GetPath().AppendChild(name)
        ref = UsdGeom.Xform.Get(self.stage, ref_path)
        if not ref:
            ref = UsdGeom.Xform.Define(self.stage, ref_path)
            ref.GetPrim().GetReferences().AddReference(path)
        self._xform(ref.GetPrim(), pos, rot, (1, 1, 1) if scale is None else scale)
        if color is not None:
            it = iter(Usd.PrimRange(ref.GetPrim()))
            for prim in it:
                if prim.IsA(UsdGeom.Gprim):
                    UsdGeom.Gprim(prim).GetDisplayColorAttr().Set([Gf.Vec3f(*color)], self.time)
                    it.PruneChildren()
        return ref_path

    # -- meshes, points, lines ---------------------------------------------------------------------
    def render_mesh(self, name, points, indices, colors=None, pos=(0.0, 0.0, 0.0), rot=(0.0, 0.0, 0.0, 1.0),
                    scale=(1.0, 1.0, 1.0), update_topology=False, parent_body=None, is_template=False,
                    smooth_shading=True, visible=True):
        """A mesh prim: points every frame, triangles the first time (or with ``update_topology``);
        ``colors`` one RGB colour or one per point."""
        _, Sdf, _, UsdGeom, _, _ = import_pxr()
        if is_template:
            holder = UsdGeom.Scope.Define(self.stage, self._path(name, parent_body, True))
            holder.GetPrim().SetInstanceable(True)
            holder.GetPrim().SetSpecifier(Sdf.SpecifierClass)
            mesh_path, prim_path = holder.GetPath().AppendChild("mesh"), holder.GetPath()
        else:
            mesh_path = prim_path = self._path(name, parent_body)
        mesh = UsdGeom.Mesh.Get(self.stage, mesh_path)
        if not mesh:
            mesh = UsdGeom.Mesh.Define(self.stage, mesh_path)
            one_color = colors is not None and np.asarray(colors).size == 3
            UsdGeom.Primvar(mesh.GetDisplayColorAttr()).SetInterpolation("constant" if one_color else "vertex")
            update_topology = True
        mesh.GetPointsAttr().Set(_vec3_array(points), self.time)
        if update_topology:
            tris = _host(indices, np.int32).reshape(-1, 3)
            mesh.GetFaceVertexIndicesAttr().Set(tris.reshape(-1).tolist(), self.time)
            mesh.GetFaceVertexCountsAttr().Set([3] * len(tris), self.time)
        if colors is not None:
            mesh.GetDisplayColorAttr().Set(_vec3_array(colors), self.time)
        self._kinds[name] = UsdGeom.Mesh
        if not is_template:
            self._xform(mesh.GetPrim(), pos, rot, scale)
        mesh.GetVisibilityAttr().Set("inherited" if visible else "invisible", self.time)
        return prim_path

    def render_points(self, name, points, radius, colors=None, as_spheres=True, visible=True):
        """Points as instanced spheres (``as_spheres``) or a ``UsdGeom.Points`` prim; ``radius``
        and ``colors`` one value or one per point."""
        _, Sdf, _, UsdGeom, _, Vt = import_pxr()
        centers = _host(points).reshape(-1, 3)
        n = len(centers)
        radii = np.broadcast_to(_host(radius).reshape(-1), (n,)) if n else np.zeros(0, np.float32)
        path = self._path(name)
        if as_spheres:
            inst = UsdGeom.PointInstancer.Get(self.stage, path)
            if not inst:
                inst = UsdGeom.PointInstancer.Define(self.stage, path)
                sphere = UsdGeom.Sphere.Define(self.stage, inst.GetPath().AppendChild("sphere"))
                sphere.GetRadiusAttr().Set(1.0)
                inst.CreatePrototypesRel().SetTargets([sphere.GetPath()])
            inst.GetProtoIndicesAttr().Set(Vt.IntArray([0] * n), self.time)
            inst.GetPositionsAttr().Set(_vec3_array(centers), self.time)
            inst.GetScalesAttr().Set(_vec3_array(np.repeat(radii[:, None], 3, axis=1)), self.time)
            if colors is not None:
                c = _host(colors).reshape(-1, 3)
                primvars = UsdGeom.PrimvarsAPI(inst)
                pv = primvars.GetPrimvar("displayColor") or primvars.CreatePrimvar(
                    "displayColor", Sdf.ValueTypeNames.Color3fArray, "constant" if len(c) == 1 else "vertex", 1)
                pv.Set(_vec3_array(c), self.time)
        else:
            inst = UsdGeom.Points.Get(self.stage, path) or UsdGeom.Points.Define(self.stage, path)
            inst.GetPointsAttr().Set(_vec3_array(centers), self.time)
            inst.GetWidthsAttr().Set(Vt.FloatArray.FromNumpy(np.ascontiguousarray(2.0 * radii, np.float32)), self.time)
            if colors is not None:
                c = _host(colors).reshape(-1, 3)
                UsdGeom.Primvar(inst.GetDisplayColorAttr()).SetInterpolation("constant" if len(c) == 1 else "vertex")
                inst.GetDisplayColorAttr().Set(_vec3_array(c), self.time)
        inst.GetVisibilityAttr().Set("inherited" if visible else "invisible", self.time)
        return inst.GetPath()

    def render_line_list(self, name, vertices, indices, color=None, radius=0.01, visible=True):
        v = _host(vertices, np.float64).reshape(-1, 3)
        idx = _host(indices, np.int64).reshape(-1)
        pairs = idx[: len(idx) // 2 * 2].reshape(-1, 2)
        return self._lines(name, v[pairs[:, 0]], v[pairs[:, 1]], color, radius, visible)

    def render_line_strip(self, name, vertices, color=None, radius=0.01, visible=True):
        v = _host(vertices, np.float64).reshape(-1, 3)
        return self._lines(name, v[:-1], v[1:], color, radius, visible)

    def _lines(self, name, starts, ends, color, radius, visible):
        """Segments as instances of a unit-height cylinder, stretched along their length."""
        Gf, _, _, UsdGeom, _, Vt = import_pxr()
        path = self._path(name)
        inst = UsdGeom.PointInstancer.Get(self.stage, path)
        if not inst:
            inst = UsdGeom.PointInstancer.Define(self.stage, path)
            proto = UsdGeom.Cylinder.Define(self.stage, inst.GetPath().AppendChild("segment"))
            proto.GetHeightAttr().Set(1.0)
            proto.GetAxisAttr().Set("Y")
            inst.CreatePrototypesRel().SetTargets([proto.GetPath()])
        proto = UsdGeom.Cylinder.Get(self.stage, inst.GetPath().AppendChild("segment"))
        proto.GetRadiusAttr().Set(float(radius), self.time)
        if color is not None:
            proto.GetDisplayColorAttr().Set([Gf.Vec3f(*(float(c) for c in color))], self.time)
        mats = segment_matrices(starts, ends)
        lengths = np.linalg.norm(np.asarray(ends) - np.asarray(starts), axis=1)
        quats = [Gf.Quath(Gf.Rotation(Gf.Vec3d(0.0, 1.0, 0.0), Gf.Vec3d(*(m[:3, 1] / max(n, 1e-12)).tolist()))
                          .GetQuat()) for m, n in zip(mats, lengths)]
        inst.GetProtoIndicesAttr().Set(Vt.IntArray([0] * len(mats)), self.time)
        inst.GetPositionsAttr().Set(_vec3_array(mats[:, :3, 3]), self.time)
        inst.GetOrientationsAttr().Set(Vt.QuathArray(quats), self.time)
        scales = np.ones((len(mats), 3))
        scales[:, 1] = lengths
        inst.GetScalesAttr().Set(_vec3_array(scales), self.time)
        inst.GetVisibilityAttr().Set("inherited" if visible else "invisible", self.time)
        return inst.GetPath()
