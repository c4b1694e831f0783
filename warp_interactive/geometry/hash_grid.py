"""``wp.HashGrid``: points bucketed in a wrapped grid of cells for neighbour queries."""

import numpy as np

from ..runtime.device import get_device
from ..runtime.graph import defer
from ..types import scalars as sc
from ..types.array import array
from ..types.composite import vector
from .descriptors import HashGridDesc, Placement, address, check_device, native

# the native sort takes cell coordinates as floats: dimensions below this keep its keys exact
NATIVE_AXIS_LIMIT = 2 ** 23
# the grid's scalar type -> the point type build() takes
_POINT_TYPES = {sc.float16: vector(3, sc.float16), sc.float32: vector(3, sc.float32),
                sc.float64: vector(3, sc.float64)}


class HashGrid:
    """A hash grid of ``dim_x * dim_y * dim_z`` cells; ``grid.id`` is the kernel handle.

    ``build(points, radius, groups=None)`` sorts the points by cell (cell width = radius) with a
    native parallel radix sort; kernels iterate candidates with ``wp.hash_grid_query`` /
    ``wp.hash_grid_query_next`` and check distances themselves. Points come back in warp-lang's
    order (cells x fastest, then y, then z; increasing point ids within a cell), so sums over
    neighbours round as they do there. ``dtype`` (float16, float32 or float64) is the precision
    of the points and of the queries; cells are binned in float64 for float64 grids and in float32
    otherwise, by the builder and by the queries alike, so both always agree on a point's cell.
    With ``groups`` (one int per point) a query given a group only yields that group's points.
    """

    def __init__(self, dim_x, dim_y, dim_z, device=None, dtype=None):
        self.device = get_device(device)
        self.dtype = _grid_dtype(dtype)
        dims = (int(dim_x), int(dim_y), int(dim_z))
        if min(dims) < 1:
            raise ValueError(f"wp.HashGrid: dimensions must be >= 1, got {dims}")
        if dims[0] * dims[1] * dims[2] >= 2 ** 31:
            raise RuntimeError(f"wp.HashGrid: cell count exceeds supported limit (fewer than 2**31 "
                               f"cells), got {dims}")
        self.dim_x, self.dim_y, self.dim_z = dims
        cells = dims[0] * dims[1] * dims[2]
        self._place = Placement(self.device)
        self._starts = np.zeros(cells, np.int32)
        self._ends = np.zeros(cells, np.int32)
        self._ids = np.zeros(1, np.int32)
        self._keys = np.zeros(1, np.int32)
        self._groups = np.zeros(0, np.int32)
        self.reserved = 0
        self.points = None
        self.groups = None
        put = self._place.put
        self._desc = HashGridDesc(put("ids", self._ids), put("starts", self._starts),
                                  put("ends", self._ends), *dims, 0, 0.0, 0, 0)
        self.id = self._place.publish(self._desc)

    def __del__(self):
        # the device buffers go with the grid (safe on an instance __init__ never reached)
        self.__dict__.pop("_place", None)

    def reserve(self, num_points, with_groups=False):
        """Allocate room for ``num_points`` points ahead of build() (``with_groups``: for a
        grouped build; the group table is sized at build time here, so it needs nothing more)."""
        if num_points > self.reserved:
            self._ids = np.zeros(num_points, np.int32)
            self._keys = np.zeros(num_points, np.int32)
            self.reserved = int(num_points)
            self._desc.point_ids = self._place.put("ids", self._ids)
            self.id = self._place.publish(self._desc)

    def build(self, points, radius, groups=None):
        """Bucket ``points`` (a wp.array of the grid's vec3 type, any shape, strided allowed:
        point i is its i-th element in row-major order) in cells of width ``radius``.

        On a CUDA device the points are copied to the host, sorted there by the native builder
        and the cell ranges and sorted ids uploaded (the id stays the same). Inside a CPU graph
        capture the build is recorded: each ``wp.capture_launch`` rebuilds from the points and
        groups as they are then (the id stays the same, so captured queries see the rebuild)."""
        radius = float(radius)
        if not radius > 0.0:
            raise ValueError(f"HashGrid.build: radius must be > 0, got {radius}")
        check_device("HashGrid", self.device, [("points", points), ("groups", groups)])
        self._check_types(points, groups)
        if not defer(self.device, lambda: self._build(points, radius, groups)):
            self._build(points, radius, groups)

    def _build(self, points, radius, groups):
        binned = _binned(self._point_rows(points), radius)
        n = len(binned)
        if n >= 2 ** 31:
            raise ValueError("HashGrid.build: at most 2**31 - 1 points")
        self.reserve(n)
        self.points = points
        self._sort_by_cell(binned)
        self._set_groups(groups, n)
        self._desc.num_points = n
        self._desc.cell_width = radius
        self._desc.cell_width64 = radius
        for name, host in (("ids", self._ids), ("starts", self._starts), ("ends", self._ends)):
            self._place.put(name, host)
        self.id = self._place.publish(self._desc)

    def _sort_by_cell(self, binned):
        """Point ids sorted by cell key (z * dim_y + y) * dim_x + x, increasing ids within a cell,
        and each cell's [start, end) range: the order queries visit points in (hashgrid.h).
        ``binned``: each point's unwrapped integer cell (x, y, z) as floats (``_binned``)."""
        n, dims = len(binned), (self.dim_x, self.dim_y, self.dim_z)
        if max(dims) < NATIVE_AXIS_LIMIT and _exact_in_float32(binned):
            # the native parallel radix sort bins float coordinates by floor(c / width), wraps
            # them into [0, dim) and keys them (c0 * d1 + c1) * d2 + c2: given the integer cells
            # as (z, y, x) floats (exact in float32 below 2**24), width 1 and the dimensions
            # reversed, its cells and key are the ones above (the wrap done natively, not here)
            zyx = np.ascontiguousarray(binned[:, ::-1], dtype=np.float32)
            native().hash_grid_build(address(zyx), 12, n, 1.0, self.dim_z, self.dim_y, self.dim_x,
                                     address(self._ids), address(self._starts),
                                     address(self._ends), address(self._keys))
            return
        cells = binned.astype(np.int64) % np.array(dims, np.int64)
        keys = (cells[:, 2] * self.dim_y + cells[:, 1]) * self.dim_x + cells[:, 0]
        order = np.argsort(keys, kind="stable")
        self._ids[:n] = order
        self._keys[:n] = keys[order]
        every = np.arange(len(self._starts))
        starts = np.searchsorted(keys[order], every, side="left")
        ends = np.searchsorted(keys[order], every, side="right")
        empty = starts == ends
        starts[empty] = 0           # an empty cell reads [0, 0), as the native builder writes
        ends[empty] = 0
        self._starts[:], self._ends[:] = starts, ends

    def _check_types(self, points, groups):
        want = _POINT_TYPES[self.dtype]
        if not isinstance(points, array) or points.dtype is not want:
            got = getattr(getattr(points, "dtype", None), "__name__", type(points).__name__)
            raise TypeError(f"HashGrid.build: points must be a wp.array of {want.__name__} (the "
                            f"grid's dtype is {self.dtype.__name__}), got {got}")
        if groups is not None and (not isinstance(groups, array) or groups.dtype is not sc.int32):
            got = getattr(getattr(groups, "dtype", None), "__name__", type(groups).__name__)
            raise TypeError(f"HashGrid.build: groups must be a wp.array of int32, got {got}")

    def _point_rows(self, points):
        # a host copy, row-major over any shape and strides, in the precision cells are binned in
        ft = np.float64 if self.dtype is sc.float64 else np.float32
        return np.asarray(points.numpy()).reshape(-1, 3).astype(ft, copy=False)

    def _set_groups(self, groups, n):
        """One group per point (copied: rebuild after changing them), or none."""
        self.groups = groups
        if groups is None:
            self._desc.point_groups = 0
            return
        g = np.ascontiguousarray(np.asarray(groups.numpy()).reshape(-1), dtype=np.int32)
        if len(g) != n:
            raise ValueError(f"HashGrid.build: {len(g)} groups for {n} points (one per point)")
        self._groups = g
        self._desc.point_groups = self._place.put("groups", g)


def _binned(rows, radius):
    """Each point's unwrapped cell (x, y, z) as integer-valued floats, binned exactly as the
    kernels' queries bin (hashgrid.h hash_grid_unwrapped): floor(x * (1 / width)) in float64 for
    float64 grids and in float32 otherwise; clamped to +-1e9 cells (keeps far points finite),
    NaN in cell 0. The wrap into [0, dim) comes with the sort (``_sort_by_cell``)."""
    ft = rows.dtype.type
    q = np.multiply(rows, ft(1.0) / ft(radius))
    with np.errstate(invalid="ignore", over="ignore"):
        np.floor(q, out=q)
        np.clip(q, ft(-1.0e9), ft(1.0e9), out=q)
    nan = np.isnan(q)
    if nan.any():
        q[nan] = 0
    return q


def _exact_in_float32(binned):
    """Whether every cell coordinate is an integer float32 holds exactly (|c| < 2**24)."""
    return binned.size == 0 or (float(binned.min()) > -2.0 ** 24 and float(binned.max()) < 2.0 ** 24)


def _grid_dtype(dtype):
    t = sc.float32 if dtype is None else sc.canonical_scalar(dtype)
    if t not in _POINT_TYPES:
        raise TypeError(f"wp.HashGrid: dtype must be float16, float32 or float64, got "
                        f"{getattr(dtype, '__name__', dtype)}")
    return t
