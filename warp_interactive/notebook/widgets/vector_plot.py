"""Arrays of vec2/vec3 as pictures: a 1-d array as points (a vec3 array in 3-d), a 2-d array
(a field of vectors over a grid) as arrows in array indices (row 0 at the top, as a heat-map; x
along the columns, y along the rows), coloured by length (vec3 fields: by the z part,
their x/y parts drawn as arrows)."""

import numpy as np

MAX_POINTS = 4096       # points drawn at most (every k-th beyond)
MAX_ARROWS = 32         # arrows per side of a field at most


def vector_length(a):
    """2 or 3 for arrays of vec2/vec3 (any scalar type) with one or two dimensions, else None."""
    from ...types.composite import is_vector
    if a.ndim not in (1, 2) or a.size == 0 or not is_vector(a.dtype):
        return None
    n = a.dtype._length_
    return n if n in (2, 3) else None


def vector_png(values, title=None):
    """PNG bytes of ``values`` (NumPy, shape (n, 2|3) or (rows, cols, 2|3))."""
    from .plots import png_bytes
    v = np.asarray(values, dtype=np.float64)
    fig = _points(v, title) if v.ndim == 2 else _arrows(v, title)
    return png_bytes(fig)


def _points(v, title):
    from .plots import _figure
    step = max(1, -(-len(v) // MAX_POINTS))
    p = v[::step]
    fig = _figure(4.6, 4.0)
    if p.shape[1] == 3:
        ax = fig.add_subplot(projection="3d")
        ax.scatter(p[:, 0], p[:, 1], p[:, 2], s=6, c=np.arange(len(p)), cmap="viridis", depthshade=False)
        ax.set_zlabel("z", fontsize=8)
    else:
        ax = fig.add_subplot()
        ax.scatter(p[:, 0], p[:, 1], s=6, c=np.arange(len(p)), cmap="viridis")
        ax.set_aspect("equal", adjustable="datalim")
    ax.set_xlabel("x", fontsize=8)
    ax.set_ylabel("y", fontsize=8)
    ax.tick_params(labelsize=7)
    _title(fig, title, step, "point")
    return fig


def _arrows(v, title):
    from .plots import _figure
    rows, cols = v.shape[:2]
    sy, sx = (max(1, -(-n // MAX_ARROWS)) for n in (rows, cols))
    f = v[::sy, ::sx]
    jj, ii = np.meshgrid(np.arange(0, cols, sx), np.arange(0, rows, sy))
    colour = f[..., 2] if f.shape[-1] == 3 else np.hypot(f[..., 0], f[..., 1])
    fig = _figure(4.8, 4.2)
    ax = fig.add_subplot()
    q = ax.quiver(jj, ii, f[..., 0], f[..., 1], colour, cmap="viridis", angles="xy", pivot="mid")
    ax.set_xlim(-0.5 * sx, cols - 0.5 * sx)
    ax.set_ylim(rows - 0.5 * sy, -0.5 * sy)            # row 0 at the top, as a heat-map
    ax.set_aspect("equal")
    ax.tick_params(labelsize=7)
    fig.colorbar(q, ax=ax, shrink=0.8, label="z" if f.shape[-1] == 3 else "length").ax.tick_params(labelsize=7)
    _title(fig, title, max(sy, sx), "arrow")
    return fig


def _title(fig, title, step, what):
    note = f" (one {what} in {step})" if step > 1 else ""
    if title or note:
        fig.suptitle(f"{title or ''}{note}", fontsize=9)
