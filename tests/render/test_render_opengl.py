"""OpenGLRenderer, headless: pictures checked against an independent pinhole projection (where a
shape must land, which pixels a mesh must cover, which of two objects is in front)."""

import numpy as np
import pytest

import warp_interactive as wp
from render_helpers import CAM_Z, H, W, centroid, frame, lit, make_renderer, project


@pytest.fixture
def renderer():
    r = make_renderer()
    yield r
    r.close()


@pytest.mark.parametrize("x, y", [(-2.0, 0.0), (2.5, 0.0), (0.0, 1.5), (-1.0, -1.5)])
def test_sphere_lands_where_projected(renderer, x, y):
    renderer.begin_frame(0.0)
    renderer.render_sphere("s", (x, y, 0.0), (0, 0, 0, 1), 0.6, color=(1.0, 0.2, 0.2))
    renderer.end_frame()
    mask = lit(frame(renderer))
    expected = project([(x, y, 0.0)])[0]
    assert np.abs(centroid(mask) - expected).max() < 1.0
    # its area is that of the projected disc (radius r f / d in NDC, to first order)
    f = 1.0 / np.tan(np.radians(22.5))
    r_px = 0.6 / CAM_Z * f * H / 2
    assert mask.sum() == pytest.approx(np.pi * r_px ** 2, rel=0.12)
    # left of centre means the lit pixels are left of the middle column, and so on
    cols = np.nonzero(mask)[1]
    if x < 0:
        assert cols.max() < W / 2
    if x > 0:
        assert cols.min() > W / 2


def _triangle_mask(tri_px, width=W, height=H):
    """Pixels whose centres fall inside a triangle given in pixel coordinates."""
    cx, cy = np.meshgrid(np.arange(width) + 0.5, np.arange(height) + 0.5)
    inside = np.ones_like(cx, bool)
    sign = None
    for i in range(3):
        a, b = tri_px[i], tri_px[(i + 1) % 3]
        edge = (b[0] - a[0]) * (cy - a[1]) - (b[1] - a[1]) * (cx - a[0])
        s = np.sign(edge)
        sign = s if sign is None else sign
        inside &= (s == sign) | (edge == 0)
    return inside


@pytest.mark.parametrize("smooth", [True, False])
def test_mesh_covers_its_projection(renderer, smooth):
    points = np.array([[-3.0, -2.0, 0.0], [3.5, -1.0, -1.0], [0.5, 2.5, 1.0], [-2.5, 2.0, -2.0]], np.float32)
    tris = np.array([[0, 1, 2], [0, 2, 3]], np.int32)
    renderer.begin_frame(0.0)
    renderer.render_mesh("m", points, tris, colors=(0.3, 0.8, 0.3), smooth_shading=smooth)
    renderer.end_frame()
    mask = lit(frame(renderer))
    px = project(points)
    expected = _triangle_mask(px[tris[0]]) | _triangle_mask(px[tris[1]])
    # pixels on the edges may go either way: compare away from them
    disagree = mask ^ expected
    assert disagree.sum() <= 0.04 * expected.sum()
    assert (mask & expected).sum() >= 0.97 * expected.sum()


def test_mesh_points_update_keeps_topology_and_moves_picture(renderer):
    points = np.array([[-1.0, -1.0, 0.0], [1.0, -1.0, 0.0], [0.0, 1.0, 0.0]], np.float32)
    renderer.begin_frame(0.0)
    renderer.render_mesh("m", points, [0, 1, 2], colors=(1, 1, 1))
    renderer.end_frame()
    before = centroid(lit(frame(renderer)))
    renderer.begin_frame(1.0)
    # new points, and indices that would be invalid: ignored without update_topology
    renderer.render_mesh("m", wp.array(points + (2.0, 0.0, 0.0), dtype=wp.vec3), [7, 8, 9], colors=(1, 1, 1))
    renderer.end_frame()
    after = centroid(lit(frame(renderer)))
    shift = project([(2.0, 0.0, 0.0)])[0][0] - project([(0.0, 0.0, 0.0)])[0][0]
    assert after[0] - before[0] == pytest.approx(shift, abs=1.0)
    # update_topology: a different triangle list takes effect
    renderer.begin_frame(2.0)
    renderer.render_mesh("m", np.vstack([points, [[0.0, -3.0, 0.0]]]), [0, 3, 1], update_topology=True)
    renderer.end_frame()
    rows = np.nonzero(lit(frame(renderer)))[0]
    assert rows.min() > project([(0, -1.0, 0)])[0][1] - 1  # only the part below y = -1 is left


def test_depth_orders_two_objects(renderer):
    # a far blue box and a near red sphere overlapping at the image centre
    renderer.begin_frame(0.0)
    renderer.render_box("far", (0.0, 0.0, -5.0), (0, 0, 0, 1), (2.0, 2.0, 0.5), color=(0, 0, 1))
    renderer.render_sphere("near", (0.5, 0.0, 2.0), (0, 0, 0, 1), 0.8, color=(1, 0, 0))
    renderer.end_frame()
    depth = frame(renderer, mode="depth")[..., 0]
    rgb = frame(renderer)
    c = project([(0.5, 0.0, 2.0)])[0].astype(int)
    b = project([(-1.5, 1.5, -4.5)])[0].astype(int)
    assert depth[c[1], c[0]] == pytest.approx(CAM_Z - 2.0 - 0.8, abs=0.05)   # the sphere's front
    assert depth[b[1], b[0]] == pytest.approx(CAM_Z + 5.0 - 0.5, abs=0.05)   # the box's front face
    assert rgb[c[1], c[0], 0] > rgb[c[1], c[0], 2]
    assert rgb[b[1], b[0], 2] > rgb[b[1], b[0], 0]
    # nothing drawn: the far plane
    assert depth[2, 2] == pytest.approx(100.0, rel=1e-3)
    # draw order does not matter: the same picture with the calls swapped
    other = make_renderer()
    other.begin_frame(0.0)
    other.render_sphere("near", (0.5, 0.0, 2.0), (0, 0, 0, 1), 0.8, color=(1, 0, 0))
    other.render_box("far", (0.0, 0.0, -5.0), (0, 0, 0, 1), (2.0, 2.0, 0.5), color=(0, 0, 1))
    other.end_frame()
    np.testing.assert_allclose(frame(other, mode="depth")[..., 0], depth, atol=1e-4)
    other.close()


def test_instances_appear_where_their_transforms_put_them(renderer):
    spots = [(-3.0, 1.5, 0.0), (0.0, -1.0, 1.0), (2.5, 1.0, -1.0)]
    renderer.begin_frame(0.0)
    renderer.render_box("proto", spots[0], (0, 0, 0, 1), (0.3, 0.3, 0.3), color=(1, 1, 0))
    for i, pos in enumerate(spots[1:]):
        q = wp.quat_from_axis_angle(wp.vec3(0.0, 0.0, 1.0), 0.5 * i)
        renderer.render_ref(f"copy{i}", "proto", pos, tuple(q), None)
    renderer.end_frame()
    mask = lit(frame(renderer))
    assert renderer.num_shapes == 1 and renderer.num_instances == 3
    for pos in spots:
        col, row = project([pos])[0].astype(int)
        assert mask[row - 1:row + 2, col - 1:col + 2].all(), pos
    # and nothing in between
    col, row = project([(-1.5, 0.25, 0.0)])[0].astype(int)
    assert not mask[row, col]
    # a moved instance moves in the next frame
    renderer.begin_frame(1.0)
    renderer.render_ref("copy0", "proto", (0.0, -1.0, -3.0), (0, 0, 0, 1), None)
    renderer.end_frame()
    mask = lit(frame(renderer))
    col, row = project([(0.0, -1.0, 1.0)])[0].astype(int)
    assert not mask[row, col]
    col, row = project([(0.0, -1.0, -3.0)])[0].astype(int)
    assert mask[row, col]


@pytest.mark.parametrize("shape", ["capsule", "cylinder", "cone", "arrow"])
def test_axial_shapes_span_their_height(renderer, shape):
    renderer.begin_frame(0.0)
    kw = dict(radius=0.5, half_height=1.5) if shape != "arrow" else dict(base_radius=0.3, base_height=2.0,
                                                                          cap_radius=0.5, cap_height=1.0)
    getattr(renderer, f"render_{shape}")(shape, (0.0, 0.0, 0.0), (0, 0, 0, 1), color=(1, 1, 1), **kw)
    renderer.end_frame()
    rows = np.nonzero(lit(frame(renderer)))[0]
    # top and bottom along Y (the arrow runs from 0 to 3, the others from -1.5 (-2 capsule) to ...)
    top, bottom = {"capsule": (2.0, -2.0), "cylinder": (1.5, -1.5), "cone": (1.5, -1.5), "arrow": (3.0, 0.0)}[shape]
    # the nearest silhouette point can be in front of the axis by the radius: allow for it
    assert rows.min() == pytest.approx(project([(0, top, 0)])[0][1], abs=3.0)
    assert rows.max() == pytest.approx(project([(0, bottom, 0)])[0][1], abs=3.0)


def test_points_are_spheres_with_their_depth(renderer):
    centers = np.array([[-2.0, 0.0, 0.0], [2.0, 1.0, 3.0]], np.float32)
    renderer.begin_frame(0.0)
    renderer.render_points("pts", wp.array(centers, dtype=wp.vec3), radius=[0.5, 0.25], colors=(0.2, 0.9, 0.2))
    renderer.end_frame()
    depth = frame(renderer, mode="depth")[..., 0]
    mask = lit(frame(renderer))
    for (x, y, z), r in zip(centers, (0.5, 0.25)):
        col, row = project([(x, y, z)])[0].astype(int)
        assert depth[row, col] == pytest.approx(CAM_Z - z - r, abs=0.03)
    # two blobs, each a disc of the projected radius
    left = mask[:, : W // 2].sum()
    f = 1.0 / np.tan(np.radians(22.5))
    assert left == pytest.approx(np.pi * (0.5 / CAM_Z * f * H / 2) ** 2, rel=0.15)


def test_line_strip_lights_the_segment(renderer):
    renderer.begin_frame(0.0)
    renderer.render_line_strip("l", [(-3.0, -1.0, 0.0), (3.0, 1.0, 0.0)], color=(1, 1, 1), radius=0.08)
    renderer.render_line_list("ll", np.array([(-3.0, 2.0, 0.0), (3.0, 2.0, 0.0)]), [0, 1], color=(1, 0, 0),
                              radius=0.08)
    renderer.end_frame()
    mask = lit(frame(renderer))
    for t in np.linspace(0.1, 0.9, 7):
        col, row = project([(-3.0 + 6.0 * t, -1.0 + 2.0 * t, 0.0)])[0].astype(int)
        assert mask[row - 1:row + 2, col - 1:col + 2].any()
        col, row = project([(-3.0 + 6.0 * t, 2.0, 0.0)])[0].astype(int)
        assert mask[row - 1:row + 2, col].any()
    col, row = project([(0.0, -1.5, 0.0)])[0].astype(int)
    assert not mask[row, col]


def test_tiles_show_their_own_instances():
    r = make_renderer(screen_width=W * 2, screen_height=H)
    r.begin_frame(0.0)
    a = r.add_shape_instance("a", r.render_sphere("tmpl", (0, 0, 0), (0, 0, 0, 1), 0.7, is_template=True),
                             None, (-2.0, 0.0, 0.0), (0, 0, 0, 1), color1=(1, 0, 0))
    b = r.render_box("b", (2.0, 0.0, 0.0), (0, 0, 0, 1), (0.6, 0.6, 0.6), color=(0, 0, 1))
    ids = {name: rec[0] for name, rec in r._instances.items()}
    assert a == ids["a"]
    r.setup_tiled_rendering([[ids["a"]], [ids["b"]]])
    r.end_frame()
    assert (r.num_tiles, r.tile_width, r.tile_height) == (2, W, H)
    tiles = wp.zeros((2, H, W, 3), dtype=float)
    r.get_pixels(tiles, split_up_tiles=True)
    t = tiles.numpy()
    # tile 0: only the red sphere, left of centre; tile 1: only the blue box, right of centre
    assert centroid(lit(t[0]))[0] == pytest.approx(project([(-2.0, 0, 0)])[0][0], abs=1.0)
    assert not (t[0][..., 2] > t[0][..., 0] + 0.1).any()   # no blue box here (white highlights aside)
    assert centroid(lit(t[1]))[0] == pytest.approx(project([(2.0, 0, 0)])[0][0], abs=1.0)
    assert not (t[1][..., 0] > t[1][..., 2] + 0.1).any()
    assert b == r._shape_geo_hash[("box", (0.6, 0.6, 0.6))]
    r.close()


def test_uint8_and_float_agree(renderer):
    renderer.begin_frame(0.0)
    renderer.render_sphere("s", (0, 0, 0), (0, 0, 0, 1), 1.0, color=(0.9, 0.5, 0.1))
    renderer.end_frame()
    u8 = wp.zeros((H, W, 3), dtype=wp.uint8)
    renderer.get_pixels(u8, split_up_tiles=False, use_uint8=True)
    np.testing.assert_allclose(u8.numpy() / 255.0, frame(renderer), atol=1e-6)


def test_up_axis_z_puts_height_up():
    r = make_renderer(up_axis="Z", camera_pos=(0.0, -CAM_Z, 0.0), camera_front=(0.0, 1.0, 0.0),
                      camera_up=(0.0, 0.0, 1.0))
    r.begin_frame(0.0)
    r.render_sphere("s", (0.0, 0.0, 2.0), (0, 0, 0, 1), 0.5, color=(1, 1, 1))
    r.end_frame()
    # seen from -Y with Z up, z = 2 is where y = 2 is for the default camera
    assert centroid(lit(frame(r)))[1] == pytest.approx(project([(0.0, 2.0, 0.0)])[0][1], abs=1.0)
    r.close()


def test_clear_removes_everything(renderer):
    renderer.begin_frame(0.0)
    renderer.render_sphere("s", (0, 0, 0), (0, 0, 0, 1), 1.0)
    renderer.render_points("p", [(1.0, 1.0, 1.0)], 0.2)
    renderer.end_frame()
    assert lit(frame(renderer)).any()
    renderer.clear()
    renderer.begin_frame(1.0)
    renderer.end_frame()
    assert not lit(frame(renderer)).any()
    assert renderer.num_instances == 0


def test_decorations_draw_sky_grid_and_ground():
    r = make_renderer(draw_sky=True, draw_grid=True, draw_axis=True, background_color=(0.53, 0.8, 0.92),
                      camera_pos=(0.0, 3.0, 10.0), camera_front=(0.0, -0.3, -1.0))
    r.begin_frame(0.0)
    r.render_ground()
    r.end_frame()
    img = frame(r)
    # sky above the horizon is bluish, the ground below is grey (r close to b)
    assert img[2, W // 2, 2] > img[2, W // 2, 0]
    bottom = img[H - 3, W // 2]
    assert abs(bottom[0] - bottom[2]) < 0.1 and bottom.sum() > 0.3
    r.close()


@pytest.mark.parametrize("shape, mode, message", [
    ((H, W, 3), "depth", "target_image shape must be (120, 160, 1)"),
    ((H, W, 1), "rgb", "target_image shape must be (120, 160, 3)"),
    ((H, W, 3), "normals", "mode must be 'rgb' or 'depth'"),
])
def test_get_pixels_errors(renderer, shape, mode, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        renderer.get_pixels(wp.zeros(shape, dtype=float), split_up_tiles=False, mode=mode)


def test_split_up_tiles_needs_tiles(renderer):
    with pytest.raises(RuntimeError, match=r"requires setup_tiled_rendering\(\)"):
        renderer.get_pixels(wp.zeros((H, W, 3), dtype=float))


@pytest.mark.parametrize("indices, bad", [([0, 1, 3], "3"), ([0, -1, 2], "-1"), ([0, 1, 2, 0], None)])
def test_render_mesh_index_errors(renderer, indices, bad):
    pts = np.zeros((3, 3), np.float32)
    with pytest.raises(ValueError) as err:
        renderer.render_mesh("m", pts, indices)
    if bad is None:
        assert "multiple of 3" in str(err.value)
    else:
        assert "[0, 3)" in str(err.value) and bad in str(err.value)


def test_render_ref_to_unknown_path(renderer):
    with pytest.raises(KeyError, match="no instance named 'nothing'"):
        renderer.render_ref("x", "nothing", (0, 0, 0), (0, 0, 0, 1), None)


WINDOW_SCRIPT = """
import numpy as np, warp_interactive as wp, warp_interactive.render as wr
r = wr.OpenGLRenderer(screen_width=160, screen_height=120, draw_grid=False, draw_sky=False, draw_axis=False,
                      background_color=(0, 0, 0), camera_pos=(0, 0, 10))
pressed = []
r.register_key_press_callback(lambda symbol, modifiers: pressed.append(symbol))
r.register_input_processor(lambda keys: pressed.append("keys"))
r.begin_frame(0.0)
r.render_sphere("s", (-2, 0, 0), (0, 0, 0, 1), 0.6, color=(1, 0, 0))
r.end_frame()
assert pressed == ["keys"], pressed
px = wp.zeros((r.screen_height, r.screen_width, 3), dtype=float)
r.get_pixels(px, split_up_tiles=False)
np.save({path!r}, px.numpy())
print(r.headless, r.is_running())
r.close()
"""


def test_window_mode_on_a_display(tmp_path):
    """With a display (Xvfb here), the renderer opens a window (not headless) and draws the same
    picture as off-screen."""
    import os
    import shutil
    import subprocess
    import sys
    from render_helpers import REQUIRED
    if shutil.which("xvfb-run") is None:
        if REQUIRED:
            pytest.fail("xvfb-run is not installed (scripts/test.sh installs xvfb)")
        pytest.skip("xvfb-run is not installed")
    out = tmp_path / "frame.npy"
    env = dict(os.environ)
    env.pop("DISPLAY", None)
    proc = subprocess.run(["xvfb-run", "-a", sys.executable, "-c", WINDOW_SCRIPT.format(path=str(out))],
                          capture_output=True, text=True, timeout=240, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split() == ["False", "True"]
    r = make_renderer()
    r.begin_frame(0.0)
    r.render_sphere("s", (-2, 0, 0), (0, 0, 0, 1), 0.6, color=(1, 0, 0))
    r.end_frame()
    np.testing.assert_allclose(np.load(out), frame(r), atol=2 / 255)
    r.close()


def test_instance_updates_show_after_a_stale_mark(renderer):
    """warp-lang's update_shape_instances()/update_instance_colors() after changing instances:
    the next frame shows the change (here: a colour)."""
    renderer.begin_frame(0.0)
    renderer.render_box("b", (0, 0, 0), (0, 0, 0, 1), (1.0, 1.0, 1.0), color=(1, 0, 0))
    renderer.end_frame()
    assert frame(renderer)[H // 2, W // 2, 0] > 0.3
    renderer.update_shape_instance("b", color1=(0, 0, 1), color2=(0, 0, 1))
    renderer.update_instance_colors()
    renderer.update_shape_instances()
    renderer.begin_frame(1.0)
    renderer.end_frame()
    centre = frame(renderer)[H // 2, W // 2]
    assert centre[2] > 0.3 and centre[0] < 0.2
