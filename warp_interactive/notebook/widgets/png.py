"""A minimal PNG encoder and a perceptual colour map, so heat-maps need no matplotlib."""

import base64
import struct
import zlib

import numpy as np

# viridis, sampled at 9 points (the anchor colours of the published map)
_ANCHORS = np.array([
    [68, 1, 84], [71, 44, 122], [59, 81, 139], [44, 113, 142], [33, 144, 141],
    [39, 173, 129], [92, 200, 99], [170, 220, 50], [253, 231, 37]], dtype=np.float64)


def colormap(t):
    """Values in [0, 1] (NaN allowed) -> uint8 RGB; NaN is drawn grey."""
    t = np.asarray(t, dtype=np.float64)
    nan = ~np.isfinite(t)
    x = np.clip(np.nan_to_num(t), 0.0, 1.0) * (len(_ANCHORS) - 1)
    i = np.minimum(x.astype(np.int64), len(_ANCHORS) - 2)
    f = (x - i)[..., None]
    rgb = _ANCHORS[i] * (1 - f) + _ANCHORS[i + 1] * f
    rgb[nan] = (128, 128, 128)
    return rgb.round().astype(np.uint8)


def _chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def encode_png(rgb):
    """uint8 array (H, W, 3) -> PNG bytes."""
    rgb = np.ascontiguousarray(rgb, dtype=np.uint8)
    h, w, _ = rgb.shape
    raw = b"".join(b"\x00" + rgb[y].tobytes() for y in range(h))   # filter type 0 per row
    header = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(raw, 6))
            + _chunk(b"IEND", b""))


def downsample(values, max_side):
    """A strided view of at most ``max_side`` x ``max_side`` samples (never a full copy)."""
    h, w = values.shape
    sy, sx = max(1, -(-h // max_side)), max(1, -(-w // max_side))
    return values[::sy, ::sx]


def heatmap_png(values, max_side=128, scale_to=256):
    """PNG of a 2-d scalar array, min..max -> colour map, large arrays sampled by stride."""
    v = downsample(values, max_side).astype(np.float64)
    finite = v[np.isfinite(v)]
    lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    t = (v - lo) / (hi - lo) if hi > lo else np.zeros_like(v)
    rgb = colormap(t)
    rep = max(1, scale_to // max(rgb.shape[:2]))      # small arrays: blow up pixels
    rgb = np.repeat(np.repeat(rgb, rep, axis=0), rep, axis=1)
    return encode_png(rgb)


def png_data_uri(png):
    return "data:image/png;base64," + base64.b64encode(png).decode()
