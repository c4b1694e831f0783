"""``wp.notebook.live(array)``: a heat-map that updates in place while a loop of launches runs.

    view = wp.notebook.live(field, title="temperature")
    for step in range(1000):
        wp.launch(diffuse, dim=field.shape, inputs=[field, tmp])
        view.update(f"step {step}")        # redraws at most every `every` seconds
    view.update("done", force=True)

One output area is created and then replaced (IPython's display ids), so a loop of a thousand
launches leaves one picture, not a thousand; redraws are rate-limited, so drawing does not slow
the loop down. ``with wp.notebook.live(field) as view:`` draws once more at the end of the block.

The colours keep their meaning from frame to frame: ``vmin``/``vmax`` fix the limits; those not
given start at the first frame's values and only ever widen (a field that decays fades, where
limits taken anew every frame would show the same picture). ``cmap`` names the colour map.
"""

import html
import time


class LiveView:
    def __init__(self, array, title=None, every=0.25, vmin=None, vmax=None, cmap="viridis"):
        self.array, self.title, self.every = array, title, float(every)
        self.vmin, self.vmax, self.cmap = vmin, vmax, cmap
        self.limits = None            # the colour limits of the last frame
        self.frames = 0               # pictures drawn (the first display included)
        self.skipped = 0              # update() calls that came sooner than `every`
        self._last = 0.0
        self._handle = None

    def _frame_limits(self):
        from .widgets.heatmap_view import colour_limits
        lo, hi = colour_limits(self.array.numpy())
        if self.limits is not None:             # widen only: a colour means one value throughout
            lo, hi = min(lo, self.limits[0]), max(hi, self.limits[1])
        self.limits = (lo if self.vmin is None else float(self.vmin),
                       hi if self.vmax is None else float(self.vmax))
        return self.limits

    def _html(self, note):
        from .widgets.array_view import heatmap_html, is_scalar_2d, summary_html
        if not is_scalar_2d(self.array):
            raise TypeError(f"wp.notebook.live draws 2-d arrays of scalars, got shape "
                            f"{tuple(self.array.shape)} of {self.array.dtype!r}")
        head = f"<b>{html.escape(self.title)}</b> " if self.title else ""
        note = f"<span class='wpi-live-note'>{html.escape(note)}</span>" if note else ""
        lo, hi = self._frame_limits()
        return (f"<div class='wpi-live' style='text-align:left'>{head}{note}<br>"
                f"{summary_html(self.array)}{heatmap_html(self.array, self.cmap, lo, hi)}</div>")

    def _bundle(self, note):
        text = f"live view of a {tuple(self.array.shape)} array" + (f": {note}" if note else "")
        return {"text/html": self._html(note), "text/plain": text}

    def show(self, note=""):
        """Create the output (called by ``live``)."""
        from IPython.display import display
        self._handle = display(self._bundle(note), raw=True, display_id=True)
        self.frames, self._last = 1, time.monotonic()
        return self

    def update(self, note="", force=False):
        """Redraw in place, unless the last picture is younger than ``every`` seconds (then
        nothing is done: call it every iteration). ``frames`` and ``skipped`` count both."""
        now = time.monotonic()
        if not force and now - self._last < self.every:
            self.skipped += 1
            return
        if self._handle is None:
            self.show(note)
            return
        self._handle.update(self._bundle(note), raw=True)
        self.frames, self._last = self.frames + 1, time.monotonic()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.update("done" if exc[0] is None else f"stopped: {exc[0].__name__}", force=True)

    def __repr__(self):
        return f"<wp.notebook.live view of a {tuple(self.array.shape)} array, {self.frames} frames>"


def live(array, title=None, every=0.25, vmin=None, vmax=None, cmap="viridis"):
    """Show ``array`` (2-d, scalar) as a heat-map now, and return the view: ``view.update()``
    redraws it in place, at most every ``every`` seconds. ``vmin``/``vmax``: fixed colour
    limits (default: the first frame's, widened when a later frame goes beyond them);
    ``cmap``: a matplotlib colour map name. An ``OpenGLRenderer`` instead: its frame, redrawn
    as it draws (``live_frames``; the colour arguments do not apply)."""
    if hasattr(array, "frame_listeners"):
        from .live_frames import live_frames
        return live_frames(array, title, every)
    return LiveView(array, title, every, vmin, vmax, cmap).show()
