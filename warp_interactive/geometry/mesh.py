"""``wp.Mesh``: a triangle mesh with a natively built BVH over its triangles."""

import numpy as np

from ..runtime.device import get_device
from ..types import scalars as sc
from ..types.array import array
from .descriptors import (WN_NODE_BYTES, BvhDesc, MeshDesc, Placement, address, check_device,
                          native, vec3_rows)
from .groups import build_tree, check_constructor


class Mesh:
    """A triangle mesh for kernel queries: ``mesh.id`` is a uint64 handle.

    points: wp.array of wp.vec3; indices: wp.array of int32 (3 per triangle, flat or (n, 3));
    velocities: optional wp.array of wp.vec3 (one per point). The arrays stay referenced and are
    read in place: after moving points call ``refit()``. groups: optional wp.array of int32, one
    per triangle: one BVH subtree per group (``wp.mesh_get_group_root``). bvh_constructor and
    bvh_leaf_size are accepted for the reference's signature; the native SAH builder is used.
    """

    def __init__(self, points, indices, velocities=None, support_winding_number=False,
                 bvh_constructor=None, bvh_leaf_size=None, groups=None):
        self.device = get_device(points.device)
        check_device("Mesh", self.device, [("indices", indices), ("velocities", velocities),
                                           ("groups", groups)])
        check_constructor(bvh_constructor, "wp.Mesh")
        self.groups = groups
        self.points, self.indices, self.velocities = points, indices, velocities
        self.support_winding_number = bool(support_winding_number)
        self._place = Placement(self.device)
        self._p = vec3_rows(points, "points", "wp.Mesh")
        self._i = _indices(indices, len(self._p))
        self._v = vec3_rows(velocities, "velocities", "wp.Mesh") if velocities is not None else None
        if self._v is not None and len(self._v) != len(self._p):
            raise ValueError(f"wp.Mesh: {len(self._v)} velocities for {len(self._p)} points")
        n = len(self._i) // 3
        self._lo = np.empty((n, 3), np.float32)
        self._hi = np.empty((n, 3), np.float32)
        self._items = None
        self._bounds()   # by triangle for the build, then in leaf-slot order for queries/refits
        self._nodes, self._items, self._count, table = build_tree(
            self._place, self._lo, self._hi, groups, "wp.Mesh")
        self._bounds()
        put = self._place.put
        bvh = BvhDesc(put("nodes", self._nodes), put("items", self._items), put("lo", self._lo),
                      put("hi", self._hi), self._count, n, 1, *table)
        # kernels read the user's arrays in place (on a GPU: their device memory)
        where = self._place.array
        self._wn = np.zeros(self._count * WN_NODE_BYTES if n and support_winding_number else 0, np.uint8)
        self._winding()
        self._desc = MeshDesc(bvh, where(points), where(velocities), where(indices),
                              len(self._p), n, int(self.support_winding_number), 0,
                              put("winding", self._wn), where(_grad(points)), where(_grad(velocities)))
        self.id = self._place.publish(self._desc)

    def _winding(self):
        """Per-node data of the fast winding number (only with support_winding_number)."""
        if self._wn.size:
            native().winding_data(address(self._nodes), self._count, address(self._items),
                                  address(self._p), address(self._i), address(self._wn))

    def _bounds(self):
        slots = address(self._items) if self._items is not None else 0
        native().triangle_bounds(address(self._p), address(self._i), len(self._lo),
                                 address(self._lo), address(self._hi), slots)

    def refit(self):
        """Update the BVH after the points moved (the topology must stay the same).

        On a CUDA device the points are copied to the host, the tree is refitted there by the
        native code, and the node and triangle bounds are uploaded again (one round trip)."""
        self._p = vec3_rows(self.points, "points", "Mesh.refit")
        self._bounds()
        if len(self._lo):
            native().bvh_refit(address(self._nodes), self._count, address(self._items),
                               address(self._lo), address(self._hi), True)
            self._winding()
        for name, host in (("nodes", self._nodes), ("lo", self._lo), ("hi", self._hi),
                           ("winding", self._wn)):
            self._place.put(name, host)


def _grad(arr):
    """The gradient array of ``arr`` (wp.mesh_get(id).points in a kernel accumulates into it,
    as warp-lang), or None."""
    return getattr(arr, "grad", None) if arr is not None else None


def _indices(indices, num_points):
    if not isinstance(indices, array) or indices.dtype is not sc.int32:
        got = getattr(getattr(indices, "dtype", None), "__name__", type(indices).__name__)
        raise TypeError(f"wp.Mesh: indices must be a wp.array of int32, got {got}")
    if indices.size > 0 and not indices.is_contiguous:
        raise ValueError("wp.Mesh: indices must be contiguous")
    flat = np.ascontiguousarray(np.asarray(indices.numpy()).reshape(-1))
    if len(flat) % 3:
        raise ValueError(f"wp.Mesh: indices holds {len(flat)} entries, not a multiple of 3 "
                         f"(3 per triangle)")
    if len(flat) and (flat.min() < 0 or flat.max() >= num_points):
        raise ValueError(f"wp.Mesh: indices must lie in [0, {num_points}), got "
                         f"[{flat.min()}, {flat.max()}]")
    return flat
