"""``wp.Bvh``: a bounding volume hierarchy over user boxes, built natively (binned SAH)."""

import numpy as np

from ..runtime.device import get_device
from .descriptors import BvhDesc, address, check_cpu, native, vec3_rows


class Bvh:
    """A BVH over the boxes ``[lowers[i], uppers[i]]`` (wp.array of wp.vec3, kept referenced).

    Pass ``bvh.id`` to kernels and query with ``wp.bvh_query_aabb`` / ``wp.bvh_query_ray`` and
    ``wp.bvh_query_next``. After changing the boxes in place call ``refit()``.
    """

    def __init__(self, lowers, uppers):
        self.device = get_device(lowers.device)
        check_cpu("Bvh", self.device)
        lo = vec3_rows(lowers, "lowers", "wp.Bvh")
        hi = vec3_rows(uppers, "uppers", "wp.Bvh")
        if lo.shape != hi.shape:
            raise ValueError(f"wp.Bvh: lowers and uppers differ in length ({len(lo)} and {len(hi)})")
        self.lowers, self.uppers = lowers, uppers
        self._lo, self._hi = lo, hi
        self._nodes, self._items, self._count = native().bvh_build(address(lo), address(hi), len(lo))
        self._desc = BvhDesc(address(self._nodes), address(self._items), address(lo),
                             address(hi), self._count, len(lo), 0, 0)
        self.id = _address_of(self._desc)

    def refit(self):
        """Recompute the node bounds after the boxes changed (same count, same topology)."""
        if self._count and len(self._lo):
            native().bvh_refit(address(self._nodes), self._count, address(self._items),
                               address(self._lo), address(self._hi))

    def node_bounds(self):
        """(lowers, uppers, left, right) of every node as NumPy arrays (for tests and tools)."""
        raw = self._nodes.view(np.int32).reshape(-1, 8)
        f = raw.view(np.float32)
        return f[:, 0:3], f[:, 4:7], raw[:, 3], raw[:, 7]


def _address_of(desc):
    import ctypes
    return ctypes.addressof(desc)
