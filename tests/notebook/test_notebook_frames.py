"""Rendered frames in the notebook: a renderer or a list of frames as an animation with play
controls, one frame as a picture, and a live view that follows a renderer in place."""

import base64
import io
import re

import numpy as np
import pytest

import warp_interactive as wp
from notebook_helpers import KernelDriver, ipython  # noqa: F401  (fixture)
from render_helpers import make_renderer, need


def _decode(uri_or_bytes):
    from PIL import Image
    data = uri_or_bytes
    if isinstance(data, str):
        data = base64.b64decode(data.split(",", 1)[1])
    return np.asarray(Image.open(io.BytesIO(data)).convert("RGB"))


def _frames(n, h=24, w=32):
    """Frames with a white square moving right by 4 pixels per frame."""
    out = []
    for k in range(n):
        f = np.zeros((h, w, 3), np.float32)
        f[8:16, 4 * k:4 * k + 8] = 1.0
        out.append(f)
    return out


def test_animation_html_holds_every_frame_with_controls():
    from warp_interactive.notebook.frames import Animation
    frames = _frames(5)
    frames[1] = wp.array(frames[1], dtype=float)        # Warp arrays and NumPy arrays alike
    page = Animation(frames, fps=12)._repr_html_()
    uris = re.findall(r'"(data:image/jpeg;base64,[^"]+)"', page)
    # the <img> shows the first frame (static HTML without scripts shows that) + 5 in the script
    assert len(uris) == 6
    for k, uri in enumerate(uris[1:]):
        img = _decode(uri)
        cols = np.nonzero(img[12].astype(int).sum(-1) > 380)[0]
        assert cols.min() == pytest.approx(4 * k, abs=1) and cols.max() == pytest.approx(4 * k + 7, abs=1)
    assert uris[0] == uris[1]
    for control in ('class="wpi-play"', 'type="range"', 'max="4"', 'value="12"', "setInterval"):
        assert control in page


@pytest.mark.parametrize("frame, expected_first_pixel", [
    (np.full((4, 6, 3), 0.5, np.float32), (128, 128, 128)),
    (np.full((4, 6, 3), 7, np.uint8), (7, 7, 7)),
    (np.linspace(1.0, 5.0, 24, dtype=np.float32).reshape(4, 6, 1), (255, 255, 255)),   # depth: near bright
])
def test_show_frame_png(frame, expected_first_pixel):
    img = _decode(wp.notebook.show_frame(frame)._repr_png_())
    assert img.shape == (4, 6, 3)
    assert tuple(img[0, 0]) == expected_first_pixel
    if frame.shape[-1] == 1:
        assert tuple(img[-1, -1]) == (0, 0, 0)   # the farthest is black


def test_bad_frame_shape():
    with pytest.raises(ValueError, match=r"a frame is \(height, width, 3 or 1\), got shape \(4, 6, 2\)"):
        wp.notebook.show_frame(np.zeros((4, 6, 2)))
    with pytest.raises(ValueError, match="at least one frame"):
        wp.notebook.animation([])


def _spinning(renderer, n):
    for k in range(n):
        renderer.begin_frame(k / 30)
        renderer.render_sphere("s", (-2.0 + k, 0.0, 0.0), (0, 0, 0, 1), 0.7, color=(1, 0.3, 0.2))
        renderer.end_frame()


def test_renderer_records_and_displays_as_animation(ipython):  # noqa: F811
    need("PIL")
    r = make_renderer()
    r.start_recording(every=2, max_frames=2)
    _spinning(r, 5)                          # frames 0, 2, 4 recorded; the last two kept
    assert len(r.recorded_frames) == 2
    pixels = wp.zeros((r.screen_height, r.screen_width, 3), dtype=wp.uint8)
    r.get_pixels(pixels, split_up_tiles=False, use_uint8=True)
    np.testing.assert_array_equal(r.recorded_frames[-1], pixels.numpy())
    page = ipython.shell.display_formatter.format(r)[0]["text/html"]
    assert 'class="wpi-play"' in page and 'max="1"' in page
    r.stop_recording()
    r.recorded_frames.clear()
    # nothing recorded: the last frame as a picture (PNG: lossless)
    page = ipython.shell.display_formatter.format(r)[0]["text/html"]
    uri = re.search(r'src="(data:image/png;base64,[^"]+)"', page).group(1)
    np.testing.assert_array_equal(_decode(uri), pixels.numpy())
    r.close()


def test_live_view_follows_a_renderer_in_place():
    """A loop of 20 frames under a live view: one output area, redrawn in place (rate-limited),
    the last picture being the renderer's last frame."""
    need("pyglet")
    kernel = KernelDriver()
    try:
        kernel.ok("import warp_interactive as wp, numpy as np\nimport sys\nsys.path.insert(0, 'tests/support')\n"
                  "from render_helpers import make_renderer\nr = make_renderer()")
        out, err, rich = kernel.run(
            "with wp.notebook.live(r, every=3600) as view:\n"
            "    for k in range(20):\n"
            "        r.begin_frame(k / 30)\n"
            "        r.render_sphere('s', (-2.0 + 0.2 * k, 0.0, 0.0), (0, 0, 0, 1), 0.7)\n"
            "        r.end_frame()\n"
            "print(view.frames, view.skipped, len(r.frame_listeners))\n"
            "import base64; last = base64.b64encode(wp.notebook.show_frame(r)._repr_png_()).decode()\n"
            "print(last)")
        assert err is None, err
        assert len(rich) == 1 and "image/png" in rich[0]          # one output area
        assert len(kernel.last_updates) == 1                       # 20 skipped, 1 forced at the end
        frames, skipped, listeners, last = out.split()
        assert (frames, skipped, listeners) == ("2", "20", "0")
        final = kernel.last_updates[0]["data"]["image/png"]
        np.testing.assert_array_equal(_decode(base64.b64decode(final)), _decode(base64.b64decode(last)))
    finally:
        kernel.close()


def test_static_html_shows_animation_and_picture():
    """nbconvert's HTML of a saved notebook: the animation's first frame and its player script,
    and a single frame's PNG, are all in the page."""
    nbconvert = pytest.importorskip("nbconvert")
    import nbformat
    from warp_interactive.notebook.frames import Animation
    anim = Animation(_frames(3))._repr_html_()
    png = base64.b64encode(wp.notebook.show_frame(_frames(1)[0])._repr_png_()).decode()
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("frames")
    cell.outputs = [nbformat.v4.new_output("display_data", data={"text/html": anim, "text/plain": "anim"}),
                    nbformat.v4.new_output("display_data", data={"image/png": png, "text/plain": "frame"})]
    nb.cells.append(cell)
    body, _ = nbconvert.HTMLExporter().from_notebook_node(nb)
    tag = re.search(r'<img[^>]*class="wpi-frame"[^>]*>', body)    # (attributes may be reordered)
    first = re.search(r'src="(data:image/jpeg;base64,[^"]+)"', tag.group(0))
    assert _decode(first.group(1)).shape == (24, 32, 3)
    assert "setInterval" in body and 'class="wpi-play"' in body
    assert f"data:image/png;base64,{png}" in body


def test_usd_imports_in_a_kernel_after_the_package():
    """Regression: with the package loaded, a cell importing pxr hung the kernel for good (the
    output-capture thread's dlopen waited on the import's dlopen, which waited for the GIL)."""
    need("pxr")
    kernel = KernelDriver()
    try:
        kernel.ok("import warp_interactive as wp")
        out = kernel.ok("from pxr import Usd\nprint(Usd.Stage.CreateInMemory().GetRootLayer() is not None)")
        assert out.strip() == "True"
    finally:
        kernel.close()
