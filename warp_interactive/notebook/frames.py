"""Rendered frames in the notebook: a picture, or an animation with play controls.

    renderer.start_recording()            # an OpenGLRenderer keeps its frames
    for i in range(100):
        renderer.begin_frame(i / 30); ...; renderer.end_frame()
    renderer                              # the cell shows the animation (the last frame if none)
    wp.notebook.animation(frames, fps=30) # or any list of frames (Warp arrays, NumPy arrays)
    wp.notebook.show_frame(renderer)      # one picture

The animation is one HTML block: the frames as JPEG data (PNG for one picture), an <img> showing
the first, and a few lines of script for play/pause, a slider and the frame rate. It stays light
(no figure, no video encoder) and is visible in static HTML too (without scripts: the first frame).
"""

import base64
import html
import io
import itertools

import numpy as np

_ids = itertools.count()


def to_rgb8(frame):
    """A frame as (h, w, 3) uint8: Warp or NumPy arrays of RGB floats in [0, 1] or uint8 RGB, a
    single channel (depth; scaled so near is bright), and a renderer (its last frame)."""
    if hasattr(frame, "last_frame"):
        return frame.last_frame()
    if hasattr(frame, "numpy"):
        frame = frame.numpy()
    a = np.asarray(frame)
    if a.ndim == 3 and a.shape[2] == 1:
        a = a[..., 0]
    if a.ndim == 2:   # depth or any scalar image: nearest bright, the far plane black
        finite = a[np.isfinite(a)]
        lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
        a = 1.0 - (a - lo) / (hi - lo) if hi > lo else np.zeros_like(a, dtype=np.float64)
        a = np.repeat(a[..., None], 3, axis=2)
    if a.ndim != 3 or a.shape[2] not in (3, 4):
        raise ValueError(f"a frame is (height, width, 3 or 1), got shape {a.shape}")
    a = a[..., :3]
    if a.dtype != np.uint8:
        a = (np.clip(np.nan_to_num(a.astype(np.float64)), 0.0, 1.0) * 255.0 + 0.5).astype(np.uint8)
    return np.ascontiguousarray(a)


def encode(frame, fmt="PNG", quality=75):
    from PIL import Image
    buf = io.BytesIO()
    Image.fromarray(to_rgb8(frame)).save(buf, format=fmt, quality=quality)
    return buf.getvalue()


class FrameImage:
    """One frame, displayed as a PNG picture."""

    def __init__(self, frame):
        self.image = to_rgb8(frame)

    def _repr_png_(self):
        return encode(self.image, "PNG")

    def __repr__(self):
        h, w, _ = self.image.shape
        return f"<frame {w}x{h}>"


class Animation:
    """Frames played in the notebook at ``fps``, with play/pause, a slider and the frame rate."""

    def __init__(self, frames, fps=30, loop=True):
        if hasattr(frames, "recorded_frames"):
            frames = frames.recorded_frames or [frames.last_frame()]
        self.frames = [to_rgb8(f) for f in frames]
        if not self.frames:
            raise ValueError("an animation needs at least one frame")
        self.fps, self.loop = float(fps), bool(loop)

    def _repr_html_(self):
        return animation_html(self.frames, self.fps, self.loop)

    def __repr__(self):
        h, w, _ = self.frames[0].shape
        return f"<animation of {len(self.frames)} frames {w}x{h} at {self.fps:g} fps>"


def _data_uri(frame, fmt):
    mime = "image/jpeg" if fmt == "JPEG" else "image/png"
    return f"data:{mime};base64," + base64.b64encode(encode(frame, fmt)).decode()


def animation_html(frames, fps=30, loop=True):
    uid = f"wpi-anim-{next(_ids)}-{id(frames) & 0xffff:x}"
    fmt = "PNG" if len(frames) == 1 else "JPEG"
    uris = [_data_uri(f, fmt) for f in frames]
    h, w, _ = frames[0].shape
    first = html.escape(uris[0], quote=True)
    if len(frames) == 1:
        return f"<img src=\"{first}\" width=\"{w}\" height=\"{h}\" alt=\"frame\"/>"
    controls = (
        f"<div id=\"{uid}\" class=\"wpi-animation\" style=\"display:inline-block\">"
        f"<img class=\"wpi-frame\" src=\"{first}\" width=\"{w}\" height=\"{h}\" alt=\"frame 1\"/><br>"
        f"<button class=\"wpi-play\" style=\"width:5em\">play</button> "
        f"<input class=\"wpi-slider\" type=\"range\" min=\"0\" max=\"{len(frames) - 1}\" value=\"0\" "
        f"style=\"width:{max(120, w - 220)}px;vertical-align:middle\"/> "
        f"<span class=\"wpi-label\">1/{len(frames)}</span> "
        f"<input class=\"wpi-fps\" type=\"number\" min=\"1\" max=\"120\" value=\"{fps:g}\" style=\"width:4em\"/> fps"
        f"</div>")
    script = _PLAYER_JS.replace("@UID@", uid).replace("@LOOP@", "true" if loop else "false")
    frames_js = "[" + ",".join(f'"{u}"' for u in uris) + "]"
    return controls + f"<script>{script.replace('@FRAMES@', frames_js)}</script>"


_PLAYER_JS = """
(function() {
  var root = document.getElementById("@UID@");
  if (!root) return;
  var frames = @FRAMES@, loop = @LOOP@, i = 0, timer = null;
  var img = root.querySelector(".wpi-frame"), slider = root.querySelector(".wpi-slider");
  var label = root.querySelector(".wpi-label"), button = root.querySelector(".wpi-play");
  var fps = root.querySelector(".wpi-fps");
  function show(k) {
    i = k; img.src = frames[k]; slider.value = k;
    img.alt = "frame " + (k + 1); label.textContent = (k + 1) + "/" + frames.length;
  }
  function stop() { if (timer) { clearInterval(timer); timer = null; } button.textContent = "play"; }
  function play() {
    stop(); button.textContent = "pause";
    timer = setInterval(function() {
      if (i + 1 < frames.length) { show(i + 1); }
      else if (loop) { show(0); }
      else { stop(); }
    }, 1000 / Math.max(1, Number(fps.value) || 30));
  }
  button.onclick = function() { if (timer) { stop(); } else { play(); } };
  slider.oninput = function() { stop(); show(Number(slider.value)); };
  fps.onchange = function() { if (timer) { play(); } };
  root.wpiShow = show; root.wpiPlay = play;
})();
"""


def animation(frames, fps=30, loop=True):
    """An animation of ``frames`` (a list of frames, or a renderer's recorded frames) to display."""
    return Animation(frames, fps, loop)


def show_frame(frame):
    """One frame (a renderer's last, or an array) to display as a picture."""
    return FrameImage(frame)


def renderer_html(renderer):
    """How an ``OpenGLRenderer`` shows in a cell: its recorded frames as an animation, or its
    last frame."""
    frames = renderer.recorded_frames or [renderer.last_frame()]
    fps = 1.0 / renderer._frame_dt if getattr(renderer, "_frame_dt", 0) else 30
    return animation_html([to_rgb8(f) for f in frames], min(fps, 60.0))


def register_render_formatters(shell):
    """Show renderers in cells (by name: the render package is only imported by the user)."""
    html_formatter = shell.display_formatter.formatters["text/html"]
    html_formatter.for_type_by_name("warp_interactive.render.opengl", "OpenGLRenderer", renderer_html)


def unregister_render_formatters(shell):
    try:
        shell.display_formatter.formatters["text/html"].pop("warp_interactive.render.opengl.OpenGLRenderer")
    except KeyError:
        pass
