"""A ``BsrMatrix`` in a notebook: shape, block shape, stored blocks, type and device, and a
sparsity picture (which blocks are stored; a large matrix is binned, a bin is darker the more
blocks it holds). Only the row offsets and columns are read; the picture is a small grey PNG
written here (zlib), so no plotting library is imported."""

import html
import struct
import zlib

import numpy as np

from .widgets.plots import data_uri

MAX_PIXELS = 256      # bins per side of the picture


def occupancy(A, bins=MAX_PIXELS):
    """Counts of stored active blocks per (row bin, column bin), at most ``bins`` per side."""
    nrow, ncol = A.nrow, A.ncol
    rb, cb = max(1, min(bins, nrow)), max(1, min(bins, ncol))
    grid = np.zeros((rb, cb), dtype=np.int64)
    if nrow == 0 or ncol == 0 or A.nnz == 0:
        return grid
    off = A.offsets.numpy()[: nrow + 1].astype(np.int64)
    counts = np.diff(off)
    if A.row_counts is not None:
        counts = np.minimum(counts, A.row_counts.numpy()[:nrow])
    rows = np.repeat(np.arange(nrow), counts)
    idx = np.concatenate([np.arange(off[r], off[r] + counts[r]) for r in np.flatnonzero(counts)]) \
        if counts.any() else np.zeros(0, np.int64)
    cols = A.columns.numpy()[idx] if idx.size else idx
    keep = (cols >= 0) & (cols < ncol)
    np.add.at(grid, (rows[keep] * rb // nrow, cols[keep] * cb // ncol), 1)
    return grid


def grey_png(grid):
    """A grey-scale PNG of ``grid`` (0: white, the maximum: black)."""
    h, w = grid.shape
    top = grid.max() or 1
    pixels = (255 - np.where(grid > 0, 64 + 191 * grid / top, 0)).astype(np.uint8)
    raw = b"".join(b"\x00" + pixels[r].tobytes() for r in range(h))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def _type_name(t):
    return getattr(t, "__name__", str(t))


def bsr_matrix_html(A):
    """One self-contained HTML block for a BsrMatrix."""
    rows, cols = A.shape
    br, bc = A.block_shape
    nnz = A.nnz_sync() if A.row_counts is None else int(A.row_counts.numpy()[: A.nrow].sum())
    density = nnz / max(1, A.nrow * A.ncol)
    layout = "compact" if A.row_counts is None else "padded"
    head = (f"<b>BsrMatrix</b> {rows}&times;{cols} &middot; blocks {br}&times;{bc} "
            f"({A.nrow}&times;{A.ncol} of them) &middot; {nnz} stored ({density:.3g} of the blocks) &middot; "
            f"{html.escape(_type_name(A.values.dtype))} &middot; {html.escape(str(A.device))} &middot; {layout}")
    grid = occupancy(A)
    scale = max(1, 256 // max(grid.shape))
    w, h = grid.shape[1] * scale, grid.shape[0] * scale
    binned = "" if grid.shape == (A.nrow, A.ncol) else (
        f"<div style='font-size:80%'>each pixel: about {A.nrow / grid.shape[0]:.3g}&times;"
        f"{A.ncol / grid.shape[1]:.3g} blocks</div>")
    img = (f"<img class='wpi-sparsity' src='{data_uri(grey_png(grid))}' width='{w}' height='{h}' "
           f"alt='sparsity of a {A.nrow}x{A.ncol} block matrix' "
           "style='image-rendering:pixelated;border:1px solid #ccc'/>")
    return f"<div class='wpi-bsr'><div>{head}</div>{img}{binned}</div>"
