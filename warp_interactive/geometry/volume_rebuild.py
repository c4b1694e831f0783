"""Rebuildable volumes: a grid buffer reserved once for a capacity of voxels and tree nodes, into
which ``Volume.rebuild`` writes a new topology in place, so ``volume.id`` (the address kernels
read) stays the same across rebuilds.

A rebuild that would exceed a capacity sets the matching ``Volume.REBUILD_*`` flag in the status
array and leaves an empty grid (no active voxel), never a truncated one."""

import collections
import warnings

import numpy as np

from . import nanovdb as nv

SUCCESS = 0
LEAF_CAPACITY_EXCEEDED = 1 << 0
LOWER_CAPACITY_EXCEEDED = 1 << 1
UPPER_CAPACITY_EXCEEDED = 1 << 2
VOXEL_CAPACITY_EXCEEDED = 1 << 3
INVALID_INPUT = 1 << 4

RebuildInfo = collections.namedtuple(
    "RebuildInfo", "kind max_voxel_count max_leaf_node_count max_lower_node_count max_upper_node_count")
NOT_REBUILDABLE = RebuildInfo(None, 0, 0, 0, 0)


def capacity(value, default, name):
    """A capacity argument (``default`` when None): a positive integer that fits in uint32."""
    c = default if value is None else value
    try:
        c = int(c)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be an integer") from None
    if c <= 0:
        raise ValueError(f"{name} must be positive, got {c}")
    if c >= 2 ** 32:
        raise ValueError(f"{name} must fit in uint32, got {c}")
    return c


def check_status(status, device):
    """``status`` as given, after checking it is a uint32 wp.array of at least one entry on
    ``device`` (RuntimeError otherwise); None stays None."""
    if status is None:
        return None
    from ..types import scalars as sc
    if getattr(status, "dtype", None) is not sc.uint32 or not hasattr(status, "ptr") or status.size < 1:
        raise RuntimeError("status must be a Warp array with dtype uint32 and at least one element")
    if status.device != device:
        raise RuntimeError(f"status must be on device {device}")
    return status


def masked_points(points, point_mask):
    """The (N, 3) host rows of ``points`` whose ``point_mask`` entry (int32, one per point) is not
    zero; all rows without a mask."""
    p = points.numpy() if hasattr(points, "numpy") else np.asarray(points)
    p = np.asarray(p).reshape(-1, 3)
    if point_mask is None:
        return p
    from ..types import scalars as sc
    if getattr(point_mask, "dtype", None) is not sc.int32 or point_mask.ndim != 1:
        raise RuntimeError("point_mask must be a contiguous 1D Warp array with dtype int32")
    if point_mask.shape[0] < len(p):
        raise RuntimeError(f"point_mask must have at least {len(p)} entries")
    return p[np.asarray(point_mask.numpy())[:len(p)] != 0]


def grid_bytes(grid_type, leaves, lowers, uppers):
    """The size of a grid buffer with these node counts (nanovdb.build_grid's layout)."""
    L = nv.layout(grid_type)
    return (nv.GRID + nv.TREE + L["root"] + uppers * (L["tile"] + L["up_size"]) + lowers * L["lo_size"]
            + leaves * L["leaf_size"])


def node_counts(origins):
    """(lower, upper) internal node counts of leaves at ``origins`` (N, 3)."""
    o = np.asarray(origins, np.int64).reshape(-1, 3)
    return len(np.unique(o >> 7, axis=0)), len(np.unique(o >> 12, axis=0))


def overflow_flags(info, voxels, leaves, lowers, uppers):
    flags = 0
    flags |= VOXEL_CAPACITY_EXCEEDED if voxels > info.max_voxel_count else 0
    flags |= LEAF_CAPACITY_EXCEEDED if leaves > info.max_leaf_node_count else 0
    flags |= LOWER_CAPACITY_EXCEEDED if lowers > info.max_lower_node_count else 0
    flags |= UPPER_CAPACITY_EXCEEDED if uppers > info.max_upper_node_count else 0
    return flags


def report(status, flags, what):
    """Write ``flags`` to ``status`` (when given); without a status array, warn on a failure."""
    if status is not None:
        from ..types import scalars as sc
        from ..types.array import array
        status.assign(array(np.array([flags] * status.size, np.uint32), dtype=sc.uint32, device=status.device))
    elif flags:
        warnings.warn(f"{what}: the new topology exceeds the volume's reserved capacity (status flags "
                      f"{flags:#x}); the volume is left empty. Pass a status array to check rebuilds.",
                      RuntimeWarning, stacklevel=3)
