"""``wp.notebook.live(renderer)``: the renderer's frame, redrawn in place while a loop runs.

    with wp.notebook.live(renderer) as view:
        for i in range(300):
            example.step()
            renderer.begin_frame(i / 60); ...; renderer.end_frame()   # the view follows

The view listens to the renderer's frames and replaces one output area (IPython's display
ids) at most every ``every`` seconds, so drawing does not slow the loop down.
"""

import base64
import time

from .frames import FrameImage


class LiveFrames:
    def __init__(self, renderer, title=None, every=0.25):
        self.renderer, self.title, self.every = renderer, title, float(every)
        self.frames = 0     # pictures drawn
        self.skipped = 0    # renderer frames that came sooner than `every`
        self._last = 0.0
        self._handle = None

    def _bundle(self, note):
        image = FrameImage(self.renderer.last_frame())
        text = "live view of a renderer" + (f": {note}" if note else "")
        # raw bundles carry PNG as base64 text, as Jupyter's messages do
        return {"image/png": base64.b64encode(image._repr_png_()).decode(), "text/plain": text}

    def show(self, note=""):
        from IPython.display import display
        self._handle = display(self._bundle(note), raw=True, display_id=True)
        self.frames, self._last = 1, time.monotonic()
        self.renderer.frame_listeners.append(self._on_frame)
        return self

    def _on_frame(self, renderer):
        self.update()

    def update(self, note="", force=False):
        """Redraw now, unless the last picture is younger than ``every`` seconds."""
        now = time.monotonic()
        if not force and now - self._last < self.every:
            self.skipped += 1
            return
        self._handle.update(self._bundle(note), raw=True)
        self.frames, self._last = self.frames + 1, time.monotonic()

    def close(self):
        """Stop following the renderer (the last picture stays)."""
        if self._on_frame in self.renderer.frame_listeners:
            self.renderer.frame_listeners.remove(self._on_frame)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.update(force=True)
        self.close()

    def __repr__(self):
        return f"<wp.notebook.live view of a renderer, {self.frames} frames>"


def live_frames(renderer, title=None, every=0.25):
    return LiveFrames(renderer, title, every).show()
