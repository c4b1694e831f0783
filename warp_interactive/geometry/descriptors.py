"""ctypes mirrors of the native descriptors a kernel reads through an id (its address).

One source of truth per struct: native/include/warp_interactive/{bvh,mesh,hashgrid}.h;
tests/test_geometry_layout.py compares sizes and offsets with the C++ side.
"""

import ctypes

import numpy as np

from ..types import scalars as sc
from ..types.composite import vector

vec3 = vector(3, sc.float32)


class BvhDesc(ctypes.Structure):
    _fields_ = [("nodes", ctypes.c_void_p), ("items", ctypes.c_void_p),
                ("lowers", ctypes.c_void_p), ("uppers", ctypes.c_void_p),
                ("num_nodes", ctypes.c_int32), ("num_items", ctypes.c_int32),
                ("by_slot", ctypes.c_int32), ("pad", ctypes.c_int32)]


class MeshDesc(ctypes.Structure):
    _fields_ = [("bvh", BvhDesc), ("points", ctypes.c_void_p), ("velocities", ctypes.c_void_p),
                ("indices", ctypes.c_void_p), ("num_points", ctypes.c_int32),
                ("num_tris", ctypes.c_int32), ("support_winding_number", ctypes.c_int32),
                ("pad", ctypes.c_int32)]


class HashGridDesc(ctypes.Structure):
    _fields_ = [("point_ids", ctypes.c_void_p), ("cell_starts", ctypes.c_void_p),
                ("cell_ends", ctypes.c_void_p), ("dim_x", ctypes.c_int32),
                ("dim_y", ctypes.c_int32), ("dim_z", ctypes.c_int32),
                ("num_points", ctypes.c_int32), ("cell_width", ctypes.c_float),
                ("pad", ctypes.c_int32)]


def native():
    """The native builders module (imported on first use, keeping `import warp_interactive` fast)."""
    from .. import _geometry
    return _geometry


def address(a):
    """The data address of a NumPy array (0 when empty)."""
    return a.ctypes.data if a.size else 0


def check_cpu(name, device):
    if not device.is_cpu:
        raise NotImplementedError(
            f"wp.{name} on {device}: meshes, BVHs, hash grids and volumes are built and queried on "
            "the CPU only in this version; create it with device='cpu' (CUDA support is planned)")


def vec3_rows(arr, what, owner):
    """A contiguous (n, 3) float32 NumPy view of a wp.array of vec3 (no copy)."""
    from ..types.array import array
    if not isinstance(arr, array) or arr.dtype is not vec3 or arr.ndim != 1:
        got = f"wp.array(dtype={getattr(arr.dtype, '__name__', arr.dtype)}, ndim={arr.ndim})" \
            if isinstance(arr, array) else type(arr).__name__
        raise TypeError(f"{owner}: {what} must be a 1-d wp.array of wp.vec3, got {got}")
    if arr.shape[0] > 0 and not arr.is_contiguous:
        raise ValueError(f"{owner}: {what} must be contiguous")
    return np.asarray(arr.numpy()).reshape(-1, 3)
