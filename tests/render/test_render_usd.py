"""UsdRenderer: stages read back with pxr, one time sample per frame."""

import numpy as np
import pytest

import warp_interactive as wp
from render_helpers import need


@pytest.fixture
def stage_path(tmp_path):
    need("pxr")
    return str(tmp_path / "scene.usda")


def _open(path):
    from pxr import Usd
    return Usd.Stage.Open(path)


def test_frames_become_time_samples(stage_path):
    import warp_interactive.render as wr
    r = wr.UsdRenderer(stage_path, fps=30, up_axis="Z")
    r.render_ground()
    n_frames = 4
    for f in range(n_frames):
        r.begin_frame(f / 30.0)
        pts = np.array([[0.0, 0.0, f], [1.0, 0.0, f], [0.0, 1.0, f]], np.float32)
        r.render_points("pts", wp.array(pts, dtype=wp.vec3), radius=0.1, colors=(1.0, 0.0, 0.0))
        r.render_sphere("ball", (f, 0.0, 0.0), (0, 0, 0, 1), 0.5, color=(0, 1, 0))
        r.render_mesh("tri", pts + 5.0, [0, 1, 2], colors=(0.2, 0.2, 0.9))
        r.end_frame()
    assert r.save()

    from pxr import UsdGeom
    stage = _open(stage_path)
    assert UsdGeom.GetStageUpAxis(stage) == "Z"
    assert (stage.GetStartTimeCode(), stage.GetEndTimeCode()) == (0.0, n_frames - 1)
    assert stage.GetFramesPerSecond() == 30.0
    inst = UsdGeom.PointInstancer(stage.GetPrimAtPath("/root/pts"))
    positions = inst.GetPositionsAttr()
    assert positions.GetTimeSamples() == list(range(n_frames))
    for f in range(n_frames):
        np.testing.assert_allclose(np.array(positions.Get(f))[:, 2], f)
    np.testing.assert_allclose(np.array(inst.GetScalesAttr().Get(0)), 0.1)
    ball = stage.GetPrimAtPath("/root/ball")
    assert UsdGeom.Sphere(ball).GetRadiusAttr().Get(2) == pytest.approx(0.5)
    for f in range(n_frames):
        m = UsdGeom.Xformable(ball).ComputeLocalToWorldTransform(f)
        np.testing.assert_allclose(list(m.ExtractTranslation()), [f, 0, 0], atol=1e-6)
    mesh = UsdGeom.Mesh(stage.GetPrimAtPath("/root/tri"))
    assert list(mesh.GetFaceVertexIndicesAttr().Get(0)) == [0, 1, 2]
    assert list(mesh.GetFaceVertexCountsAttr().Get(0)) == [3]
    np.testing.assert_allclose(np.array(mesh.GetPointsAttr().Get(3))[:, 2], 8.0)
    assert stage.GetPrimAtPath("/root/ground").IsValid()


@pytest.mark.parametrize("method, kwargs, schema, attrs", [
    ("render_capsule", dict(radius=0.3, half_height=0.8, up_axis=2), "Capsule", dict(radius=0.3, height=1.6, axis="Z")),
    ("render_cylinder", dict(radius=0.4, half_height=0.5), "Cylinder", dict(radius=0.4, height=1.0, axis="Y")),
    ("render_cone", dict(radius=0.2, half_height=1.0, up_axis=0), "Cone", dict(radius=0.2, height=2.0, axis="X")),
    ("render_box", dict(extents=(0.5, 1.0, 1.5)), "Cube", dict(size=2.0)),
])
def test_primitives(stage_path, method, kwargs, schema, attrs):
    import warp_interactive.render as wr
    from pxr import UsdGeom
    r = wr.UsdRenderer(stage_path)
    r.begin_frame(0.0)
    q = wp.quat_from_axis_angle(wp.vec3(0.0, 1.0, 0.0), 0.3)
    path = getattr(r, method)("shape", (1.0, 2.0, 3.0), tuple(q), color=(0.5, 0.5, 0.5), **kwargs)
    r.save()
    stage = _open(stage_path)   # the stage must outlive its prims
    prim = stage.GetPrimAtPath(str(path))
    geom = getattr(UsdGeom, schema)(prim)
    for name, value in attrs.items():
        got = getattr(geom, f"Get{name[0].upper()}{name[1:]}Attr")().Get(0)
        assert got == (pytest.approx(value) if isinstance(value, float) else value)
    m = UsdGeom.Xformable(prim).ComputeLocalToWorldTransform(0)
    np.testing.assert_allclose(list(m.ExtractTranslation()), [1, 2, 3], atol=1e-6)
    if method == "render_box":   # half extents become the scale of the size-2 cube
        rot_scale = np.array([[m[i][j] for j in range(3)] for i in range(3)])
        np.testing.assert_allclose(np.linalg.norm(rot_scale, axis=1), [0.5, 1.0, 1.5], atol=1e-5)


def test_lines_span_their_segments(stage_path):
    import warp_interactive.render as wr
    from pxr import UsdGeom
    r = wr.UsdRenderer(stage_path)
    r.begin_frame(0.0)
    v = np.array([[0, 0, 0], [0, 0, 2], [3, 0, 2]], float)
    r.render_line_strip("strip", v, color=(1, 0, 0), radius=0.05)
    r.save()
    stage = _open(stage_path)
    inst = UsdGeom.PointInstancer(stage.GetPrimAtPath("/root/strip"))
    xforms = inst.ComputeInstanceTransformsAtTime(0, 0)
    for k, m in enumerate(xforms):
        lo = np.array(m.Transform((0, -0.5, 0)))
        hi = np.array(m.Transform((0, 0.5, 0)))
        np.testing.assert_allclose(lo, v[k], atol=1e-3)
        np.testing.assert_allclose(hi, v[k + 1], atol=1e-3)


def test_templates_and_instances(stage_path):
    import warp_interactive.render as wr
    from pxr import UsdGeom
    r = wr.UsdRenderer(stage_path)
    r.begin_frame(0.0)
    shape = r.render_sphere("proto", (0, 0, 0), (0, 0, 0, 1), 0.25, is_template=True)
    r.add_shape_instance("a", shape, None, (1.0, 0.0, 0.0), (0, 0, 0, 1))
    r.add_shape_instance("b", shape, None, (0.0, 4.0, 0.0), (0, 0, 0, 1))
    r.save()
    stage = _open(stage_path)
    for name, pos in (("a", (1, 0, 0)), ("b", (0, 4, 0))):
        prim = stage.GetPrimAtPath(f"/root/{name}")
        assert UsdGeom.Sphere(prim).GetRadiusAttr().Get(0) == pytest.approx(0.25)  # through the reference
        m = UsdGeom.Xformable(prim).ComputeLocalToWorldTransform(0)
        np.testing.assert_allclose(list(m.ExtractTranslation()), pos, atol=1e-6)


def test_stage_argument_checked():
    need("pxr")
    import warp_interactive.render as wr
    with pytest.raises(TypeError, match="file path or a Usd.Stage, got int"):
        wr.UsdRenderer(3)
