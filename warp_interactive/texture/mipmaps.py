"""Mip chains: each level's shape (halving every axis, down to 1) and its texels (the 2x box
filter of the level above, averaged in float64; integers rounded and clipped), the
reference's rules."""

import math

import numpy as np

MAX_LEVELS = 16


def mip_shapes(size, ndim, num_mip_levels):
    """``(width, height, depth)`` of every level; 0 levels asks for the full chain."""
    if num_mip_levels < 0:
        raise ValueError("num_mip_levels must be >= 0")
    full = int(math.floor(math.log2(max(max(size[:ndim]), 1)))) + 1
    if num_mip_levels == 0:
        num_mip_levels = full
    elif num_mip_levels > full:
        raise ValueError(f"num_mip_levels ({num_mip_levels}) exceeds the maximum for base dimensions "
                         f"{tuple(size[:ndim])} ({full})")
    if num_mip_levels > MAX_LEVELS:
        raise ValueError(f"num_mip_levels ({num_mip_levels}) exceeds the maximum supported mip "
                         f"levels ({MAX_LEVELS})")
    shapes, dims = [], list(size)
    for _ in range(num_mip_levels):
        shapes.append(tuple(d if a < ndim else 1 for a, d in enumerate(dims)))
        dims = [max(1, d // 2) for d in dims]
    return shapes


def _halve(values, axis, src, dst):
    if src == dst:
        return values
    even = np.take(values, np.arange(dst) * 2, axis=axis)
    odd = np.take(values, np.minimum(np.arange(dst) * 2 + 1, src - 1), axis=axis)
    return (even + odd) * 0.5


def generate_chain(base, ndim, shapes):
    """Every level's texels (NumPy arrays shaped like ``base``'s levels) from the base level."""
    info = np.iinfo(base.dtype) if np.issubdtype(base.dtype, np.integer) else None
    levels = [base]
    for level in range(1, len(shapes)):
        current = levels[-1].astype(np.float64)
        # NumPy axes: 1D (W, [C]), 2D (H, W, [C]), 3D (D, H, W, [C]); width is the last spatial axis
        for k in range(ndim):
            current = _halve(current, ndim - 1 - k, shapes[level - 1][k], shapes[level][k])
        if info is not None:
            current = np.clip(np.rint(current), info.min, info.max)
        levels.append(current.astype(base.dtype))
    return levels
