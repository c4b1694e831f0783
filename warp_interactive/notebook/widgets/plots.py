"""Pictures drawn with matplotlib: heat-maps (the array's aspect, a colour bar, index axes) and
horizontal bar charts (timings), as PNG bytes or ``data:`` URIs for HTML.

matplotlib is imported here only, when a picture is drawn: importing the package, or showing an
array without a picture, never pays for it. Figures are made with ``matplotlib.figure.Figure``
and the Agg canvas directly, not ``pyplot``: no global figure state, no backend selection, and
nothing is shown twice by the inline backend.
"""

import base64
import io

import numpy as np

MAX_SAMPLES = 512        # a heat-map samples larger arrays by stride to at most this per side
HEATMAP_INCHES = 4.0     # the image's longer side
COLOUR_BAR_MIN = 1.0     # inches
DPI = 100


def _figure(width_in, height_in):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    fig = Figure(figsize=(width_in, height_in), dpi=DPI)
    FigureCanvasAgg(fig)
    return fig


def png_bytes(fig):
    """The figure as a true-colour PNG. (Not reduced to a 256-colour palette: the quantiser
    spends its palette on the text's anti-aliasing too, and a smooth field then shows rings.)"""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI)
    return buf.getvalue()


def data_uri(png):
    return "data:image/png;base64," + base64.b64encode(png).decode()


def strides_for(shape, max_samples=MAX_SAMPLES):
    """Per-axis sampling strides that bring ``shape`` to at most ``max_samples`` per side."""
    return tuple(max(1, -(-n // max_samples)) for n in shape)


def image_size(rows, cols, longer=HEATMAP_INCHES):
    """(width, height) in inches of the image area: the array's aspect, the longer side fixed
    (a very thin array keeps its aspect; its short side is at least 2 pixels)."""
    if cols >= rows:
        return longer, max(longer * rows / cols, 2.0 / DPI)
    return max(longer * cols / rows, 2.0 / DPI), longer


def heatmap_figure(values, title=None, cmap="viridis", vmin=None, vmax=None):
    """A Figure of a 2-d array: pixels square (the array's aspect), axes in array indices
    (row 0 at the top, as printed), a colour bar; NaN/Inf drawn grey. ``vmin``/``vmax``: the
    colour limits (default: the values' own)."""
    import matplotlib
    import matplotlib.ticker
    rows, cols = values.shape
    sy, sx = strides_for(values.shape)
    v = np.ma.masked_invalid(np.asarray(values[::sy, ::sx], dtype=np.float64))
    w, h = image_size(rows, cols)
    bar_h = max(h, COLOUR_BAR_MIN)       # a thin array's colour bar still has room for ticks
    margin_l, margin_r, margin_b, margin_t = 0.7, 1.1, 0.5, 0.35 if title else 0.15
    fig = _figure(w + margin_l + margin_r, bar_h + margin_b + margin_t)
    fw, fh = fig.get_size_inches()
    ax = fig.add_axes((margin_l / fw, (margin_b + (bar_h - h) / 2) / fh, w / fw, h / fh))
    colours = matplotlib.colormaps[cmap].with_extremes(bad="#888888")
    image = ax.imshow(v, cmap=colours, interpolation="nearest", aspect="equal", vmin=vmin, vmax=vmax,
                      extent=(-0.5, cols - 0.5, rows - 0.5, -0.5))
    ax.tick_params(labelsize=8)
    ax.yaxis.set_major_locator(matplotlib.ticker.MaxNLocator(max(1, int(h * 3)), integer=True))
    ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(max(1, int(w * 1.5)), integer=True))
    if title:
        fig.suptitle(title, fontsize=9, y=1 - 0.05 / fh, va="top")
    cax = fig.add_axes(((margin_l + w + 0.15) / fw, margin_b / fh, 0.15 / fw, bar_h / fh))
    fig.colorbar(image, cax=cax).ax.tick_params(labelsize=8)
    return fig


def heatmap_png(values, title=None, cmap="viridis", vmin=None, vmax=None):
    return heatmap_picture(values, title, cmap, vmin, vmax)[0]


def heatmap_picture(values, title=None, cmap="viridis", vmin=None, vmax=None):
    """(PNG bytes, image area) of the heat-map; the image area is (left, top, right, bottom) as
    fractions of the picture, top down (where a pointer over the picture finds the array)."""
    fig = heatmap_figure(values, title, cmap, vmin, vmax)
    png = png_bytes(fig)
    box = fig.axes[0].get_position()         # as drawn (the equal aspect applied)
    return png, (box.x0, 1.0 - box.y1, box.x1, 1.0 - box.y0)


def colour_table(cmap="viridis"):
    """The colour map's 256 colours as RGB bytes (what a page draws a slice with)."""
    import matplotlib
    rgba = matplotlib.colormaps[cmap](np.linspace(0.0, 1.0, 256))
    return (np.round(rgba[:, :3] * 255).astype(np.uint8)).tobytes()


def bar_chart_figure(rows, unit="ms", title=None):
    """Horizontal bars of ``total`` for rows (label, count, total), largest on top; the label
    column is as wide as the longest label."""
    rows = sorted(rows, key=lambda r: -r[2])[:30]
    labels = [_short(r[0]) for r in rows]
    totals = [r[2] for r in rows]
    label_in, bars_in, right_in = 0.25 + 0.07 * max([len(lb) for lb in labels] + [4]), 4.0, 0.9
    width, height = label_in + bars_in + right_in, 0.75 + 0.28 * max(len(rows), 1)
    fig = _figure(width, height)
    ax = fig.add_axes((label_in / width, 0.5 / height, bars_in / width, (height - 0.7) / height))
    bars = ax.barh(range(len(rows)), totals, color="#4c78a8")
    ax.set_yticks(range(len(rows)), labels=labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel(unit, fontsize=8)
    ax.tick_params(axis="x", labelsize=8)
    ax.bar_label(bars, labels=[f"{t:.3g} {unit}" for t in totals], fontsize=7, padding=2)
    ax.set_xlim(0, (max(totals) if totals else 1.0) * 1.25 or 1.0)
    ax.spines[["top", "right"]].set_visible(False)
    if title:
        ax.set_title(title, fontsize=9)
    return fig


def _short(label, n=44):
    return label if len(label) <= n else label[:n - 1] + "…"


def bar_chart_png(rows, unit="ms", title=None):
    return png_bytes(bar_chart_figure(rows, unit, title))
