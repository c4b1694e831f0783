"""ctypes mirrors of the native descriptors a kernel reads through an id (its address).

One source of truth per struct: native/include/warp_interactive/geometry/{bvh,mesh,hashgrid}.h;
tests/geometry/test_geometry_layout.py compares sizes and offsets with the C++ side.
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
                ("by_slot", ctypes.c_int32), ("num_groups", ctypes.c_int32),
                ("group_ids", ctypes.c_void_p), ("group_roots", ctypes.c_void_p)]


class MeshDesc(ctypes.Structure):
    _fields_ = [("bvh", BvhDesc), ("points", ctypes.c_void_p), ("velocities", ctypes.c_void_p),
                ("indices", ctypes.c_void_p), ("num_points", ctypes.c_int32),
                ("num_tris", ctypes.c_int32), ("support_winding_number", ctypes.c_int32),
                ("pad", ctypes.c_int32), ("winding", ctypes.c_void_p),
                ("points_grad", ctypes.c_void_p), ("velocities_grad", ctypes.c_void_p)]

WN_NODE_BYTES = 80   # native/src/geometry/bvh_build.h WnNode = wp::mesh_wn_node_t


class HashGridDesc(ctypes.Structure):
    _fields_ = [("point_ids", ctypes.c_void_p), ("cell_starts", ctypes.c_void_p),
                ("cell_ends", ctypes.c_void_p), ("dim_x", ctypes.c_int32),
                ("dim_y", ctypes.c_int32), ("dim_z", ctypes.c_int32),
                ("num_points", ctypes.c_int32), ("cell_width", ctypes.c_float),
                ("pad", ctypes.c_int32), ("point_groups", ctypes.c_void_p),
                ("cell_width64", ctypes.c_double)]


def native():
    """The native builders module (imported on first use, keeping `import warp_interactive` fast)."""
    from ..runtime.native import geometry_module
    return geometry_module()


def address(a):
    """The data address of a NumPy array (0 when empty)."""
    return a.ctypes.data if a.size else 0


class Placement:
    """Where a structure's buffers live, so one build path serves every device.

    The structures are built on the host; on the CPU kernels read the host buffers in place, on a
    CUDA device each buffer is uploaded to device memory (runtime/cuda/memory.py) and the
    descriptor holds device addresses. ``put`` returns the address kernels should read,
    ``publish`` the id (the descriptor's address); both keep their memory alive, and re-putting
    a buffer of the same size or re-publishing reuses the memory, so an id never changes.
    """

    def __init__(self, device):
        self.device = device
        self._held = {}

    def put(self, name, host):
        """The kernel-visible address of the contiguous NumPy array ``host`` (0 when empty)."""
        ptr, self._held[name] = self.device.place(host, self._held.get(name))
        return ptr

    def array(self, arr):
        """The address of a user's wp.array as kernels see it (0 when empty)."""
        if arr is None or arr.size == 0:
            return 0
        return int(arr.ptr)

    def publish(self, desc):
        """The id of the ctypes descriptor ``desc``: its host address, or a device copy's."""
        return self.put("desc", desc)


def check_device(name, device, arrays=()):
    """Every input array must live on the structure's device (the reference's rule)."""
    for what, arr in arrays:
        where = getattr(arr, "device", None)   # non-arrays are refused later, with their type
        if where is not None and where != device:
            raise ValueError(f"wp.{name}: {what} is on {where} but the {name} is on {device}; "
                             "all buffers must live on the same device")


def vec3_rows(arr, what, owner):
    """A contiguous (n, 3) float32 NumPy view of a wp.array of vec3 (no copy)."""
    from ..types.array import array
    if not isinstance(arr, array) or arr.dtype is not vec3 or arr.ndim != 1:
        got = f"wp.array(dtype={getattr(arr.dtype, '__name__', arr.dtype)}, ndim={arr.ndim})" \
            if isinstance(arr, array) else type(arr).__name__
        raise TypeError(f"{owner}: {what} must be a 1-d wp.array of wp.vec3, got {got}")
    if arr.shape[0] > 0 and not arr.is_contiguous:
        raise ValueError(f"{owner}: {what} must be contiguous")
    # a view of the user's memory on the CPU, a host copy of a CUDA array
    return np.ascontiguousarray(np.asarray(arr.numpy()).reshape(-1, 3), dtype=np.float32)
