"""``wp.HashGrid``: points bucketed in a wrapped grid of cells for neighbour queries."""

import numpy as np

from ..runtime.device import get_device
from .descriptors import HashGridDesc, Placement, address, check_device, native, vec3_rows


class HashGrid:
    """A hash grid of ``dim_x * dim_y * dim_z`` cells; ``grid.id`` is the kernel handle.

    ``build(points, radius)`` sorts the points by cell (cell width = radius) with a native
    parallel radix sort; kernels iterate candidates with ``wp.hash_grid_query`` /
    ``wp.hash_grid_query_next`` and check distances themselves.
    """

    def __init__(self, dim_x, dim_y, dim_z, device=None):
        self.device = get_device(device)
        dims = (int(dim_x), int(dim_y), int(dim_z))
        if min(dims) < 1 or dims[0] * dims[1] * dims[2] >= 2 ** 31:
            raise ValueError(f"wp.HashGrid: dimensions must be >= 1 with fewer than 2**31 cells, "
                             f"got {dims}")
        self.dim_x, self.dim_y, self.dim_z = dims
        cells = dims[0] * dims[1] * dims[2]
        self._place = Placement(self.device)
        self._starts = np.zeros(cells, np.int32)
        self._ends = np.zeros(cells, np.int32)
        self._ids = np.zeros(1, np.int32)
        self._keys = np.zeros(1, np.int32)
        self.reserved = 0
        self.points = None
        put = self._place.put
        self._desc = HashGridDesc(put("ids", self._ids), put("starts", self._starts),
                                  put("ends", self._ends), *dims, 0, 0.0, 0)
        self.id = self._place.publish(self._desc)

    def reserve(self, num_points):
        """Allocate room for ``num_points`` points ahead of build()."""
        if num_points > self.reserved:
            self._ids = np.zeros(num_points, np.int32)
            self._keys = np.zeros(num_points, np.int32)
            self.reserved = int(num_points)
            self._desc.point_ids = self._place.put("ids", self._ids)
            self.id = self._place.publish(self._desc)

    def build(self, points, radius):
        """Bucket ``points`` (wp.array of wp.vec3) in cells of width ``radius``.

        On a CUDA device the points are copied to the host, sorted there by the native builder
        and the cell ranges and sorted ids uploaded (the id stays the same)."""
        radius = float(radius)
        if not radius > 0.0:
            raise ValueError(f"HashGrid.build: radius must be > 0, got {radius}")
        check_device("HashGrid", self.device, [("points", points)])
        p = vec3_rows(points, "points", "HashGrid.build")
        if len(p) >= 2 ** 31:
            raise ValueError("HashGrid.build: at most 2**31 - 1 points")
        self.reserve(len(p))
        self.points = points
        native().hash_grid_build(address(p), 12, len(p), radius, self.dim_x, self.dim_y,
                                 self.dim_z, address(self._ids), address(self._starts),
                                 address(self._ends), address(self._keys))
        self._desc.num_points = len(p)
        self._desc.cell_width = radius
        if self._place.is_cuda:
            for name, host in (("ids", self._ids), ("starts", self._starts), ("ends", self._ends)):
                self._place.put(name, host)
        self.id = self._place.publish(self._desc)
