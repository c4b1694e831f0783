"""``wp.Bvh``: a bounding volume hierarchy over user boxes, built natively (binned SAH)."""

import numpy as np

from ..runtime.device import get_device
from .descriptors import BvhDesc, Placement, address, check_device, native, vec3_rows
from .groups import build_tree, check_constructor


class Bvh:
    """A BVH over the boxes ``[lowers[i], uppers[i]]`` (wp.array of wp.vec3, kept referenced).

    ``groups`` (a wp.array of int32, one per box) builds one subtree per group:
    ``wp.bvh_get_group_root(id, g)`` gives its root for the queries' ``root`` argument.
    ``constructor`` / ``leaf_size`` are accepted for the reference's signature; the native
    binned-SAH builder (leaves of up to 4 boxes) is always used.

    Pass ``bvh.id`` to kernels and query with ``wp.bvh_query_aabb`` / ``wp.bvh_query_ray`` and
    ``wp.bvh_query_next``. After changing the boxes in place call ``refit()``. On a CUDA device
    the tree is built on the host and uploaded; kernels read the boxes in device memory.
    """

    def __init__(self, lowers, uppers, constructor=None, groups=None, leaf_size=1):
        self.device = get_device(lowers.device)
        check_device("Bvh", self.device, [("uppers", uppers), ("groups", groups)])
        check_constructor(constructor, "wp.Bvh")
        lo = vec3_rows(lowers, "lowers", "wp.Bvh")
        hi = vec3_rows(uppers, "uppers", "wp.Bvh")
        if lo.shape != hi.shape:
            raise ValueError(f"wp.Bvh: lowers and uppers differ in length ({len(lo)} and {len(hi)})")
        self.lowers, self.uppers = lowers, uppers
        self._lo, self._hi = lo, hi
        self._place = Placement(self.device)
        self.groups = groups
        self._nodes, self._items, self._count, table = build_tree(self._place, lo, hi, groups, "wp.Bvh")
        where = self._place.array
        self._desc = BvhDesc(self._place.put("nodes", self._nodes), self._place.put("items", self._items),
                             where(lowers), where(uppers), self._count, len(lo), 0, *table)
        self.id = self._place.publish(self._desc)

    def refit(self):
        """Recompute the node bounds after the boxes changed (same count, same topology).

        On a CUDA device the boxes are copied to the host, refitted there and the nodes uploaded."""
        self._lo = vec3_rows(self.lowers, "lowers", "Bvh.refit")
        self._hi = vec3_rows(self.uppers, "uppers", "Bvh.refit")
        if self._count and len(self._lo):
            native().bvh_refit(address(self._nodes), self._count, address(self._items),
                               address(self._lo), address(self._hi))
            self._place.put("nodes", self._nodes)

    def node_bounds(self):
        """(lowers, uppers, left, right) of every node as NumPy arrays (for tests and tools)."""
        raw = self._nodes.view(np.int32).reshape(-1, 8)
        f = raw.view(np.float32)
        return f[:, 0:3], f[:, 4:7], raw[:, 3], raw[:, 7]
