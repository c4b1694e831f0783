"""A NumPy reference of texture sampling, from the documented rules (texel i centred at i + 0.5;
wrap/mirror periodic, clamp to the edge texel, border reads 0; 8/16-bit integers normalized,
32-bit integers numeric; mip levels halve each axis and blend linearly in the level of detail)."""

import numpy as np

WRAP, CLAMP, MIRROR, BORDER = 0, 1, 2, 3


def decode(values):
    v = np.asarray(values)
    if v.dtype in (np.uint8, np.uint16):
        return v.astype(np.float64) / np.iinfo(v.dtype).max
    if v.dtype in (np.int8, np.int16):
        return np.maximum(v.astype(np.float64) / np.iinfo(v.dtype).max, -1.0)
    return v.astype(np.float64)


def address(i, n, mode):
    if mode == WRAP:
        return i % n
    if mode == CLAMP:
        return min(max(i, 0), n - 1)
    if mode == MIRROR:
        m = i % (2 * n)
        return 2 * n - m - 1 if m >= n else m
    return i   # border: out of range reads 0


def fetch(texels, idx, modes):
    """texels: (..spatial reversed.., channels) float64; idx per axis (u first)."""
    dims = texels.shape[:-1][::-1]
    at = []
    for i, n, mode in zip(idx, dims, modes):
        j = address(i, n, mode)
        if j < 0 or j >= n:
            return np.zeros(texels.shape[-1])
        at.append(j)
    return texels[tuple(reversed(at))]


def sample_level(texels, coord, modes, linear, normalized, base):
    dims = texels.shape[:-1][::-1]
    if not linear:
        idx = []
        for c, n, b, mode in zip(coord, dims, base, modes):
            t = c * n if normalized else c * n / b
            if mode in (CLAMP, BORDER):
                t = min(max(t, -1.0), float(n))
            idx.append(int(np.floor(t)))
        return fetch(texels, idx, modes)
    lo, frac = [], []
    for c, n, b, mode in zip(coord, dims, base, modes):
        t = (c if normalized else c / b) * n - 0.5
        if mode == CLAMP:
            t = min(max(t, 0.0), n - 1.0)
        lo.append(int(np.floor(t)))
        frac.append(t - np.floor(t))
    out = np.zeros(texels.shape[-1])
    for corner in range(1 << len(coord)):
        w, idx = 1.0, []
        for a in range(len(coord)):
            hi = (corner >> a) & 1
            idx.append(lo[a] + hi)
            w *= frac[a] if hi else 1.0 - frac[a]
        out += w * fetch(texels, idx, modes)
    return out


def mip_chain(data, ndim):
    """The levels of the full chain from ``data`` (spatial axes first, reversed; channels last)."""
    levels = [np.asarray(data)]
    while max(levels[-1].shape[:ndim]) > 1:
        cur = levels[-1].astype(np.float64)
        for axis in range(ndim):
            n = cur.shape[axis]
            m = max(1, n // 2)
            if m != n:
                cur = 0.5 * (np.take(cur, 2 * np.arange(m), axis) +
                             np.take(cur, np.minimum(2 * np.arange(m) + 1, n - 1), axis))
        if np.issubdtype(data.dtype, np.integer):
            info = np.iinfo(data.dtype)
            cur = np.clip(np.rint(cur), info.min, info.max)
        levels.append(cur.astype(data.dtype))
    return levels


def sample(levels, coord, modes, linear, normalized, lod=-1.0, mip_linear=True):
    """``levels``: decoded float64 texels per level, shaped (..reversed spatial.., channels)."""
    base = levels[0].shape[:-1][::-1]
    top = len(levels) - 1
    lod = min(max(lod, 0.0), float(top))
    if len(levels) == 1 or not mip_linear:
        return sample_level(levels[min(int(np.floor(lod + 0.5)), top)], coord, modes, linear, normalized, base)
    l0 = int(np.floor(lod))
    l1 = min(l0 + 1, top)
    f = lod - l0
    v0 = sample_level(levels[l0], coord, modes, linear, normalized, base)
    if l1 == l0 or f == 0.0:
        return v0
    return v0 * (1 - f) + sample_level(levels[l1], coord, modes, linear, normalized, base) * f
