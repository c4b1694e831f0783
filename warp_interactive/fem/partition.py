"""Geometry and space partitions: a subset of a geometry's cells, and the function-space nodes
those cells use, numbered locally.

A geometry partition's sides are those whose inner cell it holds; its frontier sides have one
cell in and one out; boundary sides are partition sides on the geometry's boundary. A space
partition numbers its nodes by category, then by global index (warp-lang's order): nodes of its
cells no frontier side sees, those a frontier side sees (a side sees every node of its two
cells), then, with a halo, the nodes of outside cells next to its frontier: the outer cells of
its sides, then the inner cells of the frontier sides it is the outer cell of. Test and trial fields made on a
space partition give integrals in that local numbering (``space_node_indices()`` maps back)."""

import functools

import numpy as np

from . import _api as wp
from .precision import FollowsPrecision, follow_precision

from .types import ElementKind


@functools.lru_cache(maxsize=None)
def _side_cells_kernel(geometry_cls):
    inner, outer = geometry_cls.side_inner_cell_index, geometry_cls.side_outer_cell_index

    @wp.kernel
    def side_cells(arg: geometry_cls.SideArg, out: wp.array(dtype=wp.vec2i)):
        s = wp.tid()
        out[s] = wp.vec2i(inner(arg, s), outer(arg, s))
    return side_cells


@functools.lru_cache(maxsize=None)
def _cell_nodes_kernel(cell_node_index, CellArg):
    @wp.kernel
    def cell_nodes(arg: CellArg, out: wp.array2d(dtype=int)):
        c, n = wp.tid()
        out[c, n] = cell_node_index(arg, c, n)
    return cell_nodes


def side_cells(geometry):
    """(sides, 2) array: each side's inner and outer cell (the same cell on the boundary)."""
    cached = getattr(geometry, "_side_cells_host", None)
    if cached is None:
        out = wp.empty(geometry.side_count(), dtype=wp.vec2i)
        if geometry.side_count():
            wp.launch(_side_cells_kernel(type(geometry)), dim=geometry.side_count(),
                      inputs=[geometry.side_arg_value(out.device), out], device=out.device)
        cached = geometry._side_cells_host = out.numpy().reshape(-1, 2)
    return cached


def cell_nodes(space):
    """(cells, nodes per cell) array of a space's global node indices (-1: no node there, when
    cells have different node counts, as a point basis's)."""
    if hasattr(space, "host_cell_nodes"):
        return space.host_cell_nodes()
    el = space.element(ElementKind.CELL)
    geo = space.geometry
    n = el["cell_node_count"]
    out = wp.empty((geo.cell_count(), n), dtype=int)
    wp.launch(_cell_nodes_kernel(el["cell_node_index"], type(geo).CellArg), dim=(geo.cell_count(), n),
              inputs=[geo.cell_arg_value(out.device), out], device=out.device)
    return out.numpy()


class GeometryPartition(FollowsPrecision):
    """A subset of ``geometry``'s cells (``host_cell_indices()``, ascending)."""

    def __init__(self, geometry, cells):
        self.geometry = geometry
        self._cells = np.asarray(cells, dtype=np.int32)
        inside = np.zeros(geometry.cell_count(), dtype=bool)
        inside[self._cells] = True
        self._inside = inside
        sc = side_cells(geometry)
        inner_in, outer_in = inside[sc[:, 0]], inside[sc[:, 1]]
        self._sides = np.nonzero(inner_in)[0].astype(np.int32)
        self._boundary = np.nonzero(inner_in & (sc[:, 0] == sc[:, 1]))[0].astype(np.int32)
        self._frontier = np.nonzero(inner_in != outer_in)[0].astype(np.int32)

    @property
    def name(self):
        return f"{self.geometry.name}_{type(self).__name__}{len(self._cells)}"

    def __str__(self):
        return self.name

    def cell_count(self):
        return len(self._cells)

    def side_count(self):
        return len(self._sides)

    def boundary_side_count(self):
        return len(self._boundary)

    def frontier_side_count(self):
        return len(self._frontier)

    def host_cell_indices(self):
        return self._cells

    def host_side_indices(self):
        return self._sides

    def host_boundary_side_indices(self):
        return self._boundary

    def host_frontier_side_indices(self):
        return self._frontier

    def geo_partition_cells(self):
        """The partition's cells (what ``fem.Cells(geometry=partition)`` integrates over)."""
        return self._cells

    def contains_cells(self):
        """Per geometry cell: whether the partition holds it."""
        return self._inside


class WholeGeometryPartition(GeometryPartition):
    """Every cell of ``geometry``."""

    def __init__(self, geometry):
        super().__init__(geometry, np.arange(geometry.cell_count()))


class ExplicitGeometryPartition(GeometryPartition):
    """The cells of ``geometry`` whose ``cell_mask`` entry is non-zero."""

    def __init__(self, geometry, cell_mask, max_cell_count=-1, max_side_count=-1, temporary_store=None):
        mask = cell_mask.numpy() if hasattr(cell_mask, "numpy") else np.asarray(cell_mask)
        if mask.shape[0] != geometry.cell_count():
            raise ValueError(f"the cell mask has {mask.shape[0]} entries, the geometry {geometry.cell_count()} cells")
        super().__init__(geometry, np.nonzero(mask)[0])


class LinearGeometryPartition(GeometryPartition):
    """Partition ``partition_rank`` of ``partition_count`` runs of consecutive cells of equal size."""

    def __init__(self, geometry, partition_rank, partition_count, device=None, temporary_store=None):
        n = geometry.cell_count()
        begin = (n * partition_rank) // partition_count
        end = (n * (partition_rank + 1)) // partition_count
        super().__init__(geometry, np.arange(begin, end))


class SpacePartition(FollowsPrecision):
    """The nodes of ``space_topology`` (a space) used by ``geo_partition``'s cells, in local order."""

    def __init__(self, space_topology, geo_partition, with_halo=True):
        self.space_topology = space_topology
        self.geo_partition = geo_partition
        nodes = cell_nodes(space_topology)
        cat = self._categories(nodes, geo_partition, with_halo, space_topology.node_count())
        order = np.argsort(cat, kind="stable")
        self._owned_interior = int(np.count_nonzero(cat == 0))
        self._owned = int(np.count_nonzero(cat <= 1))
        self._indices_host = order[cat[order] < 4].astype(np.int32)
        to_local = np.full(space_topology.node_count(), -1, dtype=np.int32)
        to_local[self._indices_host] = np.arange(len(self._indices_host), dtype=np.int32)
        self._to_local_host = to_local
        self._arrays = {}

    @staticmethod
    def _categories(nodes, part, with_halo, node_count):
        """0 only partition cells use it, 1 a frontier side sees it, 2/3 a halo node, 4 unused.
        A side sees every node of its two cells (warp-lang's side traces, continuous or DG)."""
        cat = np.full(node_count + 1, 4, dtype=np.int32)     # entry -1: the absent nodes, dropped below
        inside = part.contains_cells()
        cat[nodes[inside].ravel()] = 0
        if not with_halo:
            return cat[:-1]
        sides = side_cells(part.geometry)
        ours = sides[part.host_side_indices()]
        seen = nodes[ours.ravel()].ravel()                 # the outer cells of our sides: local halo
        cat[seen[cat[seen] == 4]] = 2
        frontier = nodes[sides[part.host_frontier_side_indices()].ravel()].ravel()
        cat[frontier[cat[frontier] == 4]] = 3             # the inner cells of the others
        cat[frontier[cat[frontier] == 0]] = 1
        return cat[:-1]

    def node_count(self):
        return len(self._indices_host)

    def owned_node_count(self):
        return self._owned

    def interior_node_count(self):
        return self._owned_interior

    def _array(self, key, host, device):
        device = wp.get_device(device)
        arr = self._arrays.get((key, device.alias))
        if arr is None:
            arr = self._arrays[(key, device.alias)] = wp.array(host, dtype=int, device=device)
        return arr

    def space_node_indices(self, device=None):
        """Per local node: its index in the whole space."""
        return self._array("indices", self._indices_host, device)

    def space_to_partition(self, device=None):
        """Per node of the whole space: its local index, or -1."""
        return self._array("to_local", self._to_local_host, device)

    @property
    def name(self):
        return f"{self.geo_partition.name}_{self.space_topology.name}_Partition"


@follow_precision
def make_space_partition(space_topology, geometry_partition=None, with_halo=True, max_node_count=-1, device=None,
                         temporary_store=None):
    """The nodes of ``space_topology`` (``space.topology``) used by ``geometry_partition``'s cells
    (all of them when no partition is given); warp-lang 1.19's signature (its ``space=`` is
    gone)."""
    topo = getattr(space_topology, "topology", space_topology)
    if geometry_partition is None:
        geometry_partition = WholeGeometryPartition(topo.geometry)
    return SpacePartition(topo, geometry_partition, with_halo=with_halo)


class SpaceRestriction(FollowsPrecision):
    """The nodes of ``space_partition`` that the elements of ``domain`` (cells) use:
    ``node_partition_indices()`` (ascending partition indices) and, per restricted node, the
    elements holding it (``partition_element_offsets()``, ``node_element_indices()``: domain
    element index and node index in the element, as warp-lang orders them)."""

    def __init__(self, space_partition, domain, device=None, temporary_store=None):
        from .types import ElementKind
        if domain.element_kind != ElementKind.CELL:
            raise NotImplementedError("fem.make_space_restriction: restrictions to sides are not supported yet")
        if domain.geometry is not space_partition.space_topology.geometry:
            raise ValueError("Incompatible space and domain geometries")
        self.space_partition = space_partition
        self.space_topology = space_partition.space_topology
        self.domain = domain
        self._device = device
        self.rebuild()

    def rebuild(self, device=None, temporary_store=None):
        """Recompute the restricted nodes (after the partition or domain changed)."""
        listed = getattr(self.domain, "host_element_indices", None)
        cells = np.asarray(listed() if listed is not None else np.arange(self.domain.geometry.cell_count()),
                           dtype=np.int64)
        nodes = cell_nodes(self.space_topology)[cells]                        # (elements, nodes)
        # -1: no node in that slot (cells of a point basis hold different numbers of points)
        local = np.where(nodes >= 0, self.space_partition._to_local_host[nodes], -1)
        element, in_element = np.nonzero(local >= 0)
        flat = local[element, in_element]
        order = np.lexsort((in_element, element, flat))
        self._indices, counts = np.unique(flat, return_counts=True)
        self._offsets = np.zeros(self.space_partition.node_count() + 1, dtype=np.int32)
        np.add.at(self._offsets, flat + 1, 1)
        self._offsets = np.cumsum(self._offsets).astype(np.int32)
        self._elements = element[order].astype(np.int32)
        self._in_element = in_element[order].astype(np.int32)

    def node_count(self):
        return len(self._indices)

    def node_count_sync(self):
        return self.node_count()

    def _array(self, host, device):
        return wp.array(host.astype(np.int32), dtype=int, device=device if device is not None else self._device)

    def node_partition_indices(self, device=None):
        """The partition index of each restricted node, ascending."""
        return self._array(self._indices, device)

    def partition_element_offsets(self, device=None):
        """Per partition node (and one past the last), where its elements start."""
        return self._array(self._offsets, device)

    def node_element_indices(self, device=None):
        """(domain element index, node index in that element) rows, grouped by node."""
        return self._array(np.stack([self._elements, self._in_element], axis=1), device)

    def total_node_element_count(self):
        return len(self._elements)


@follow_precision
def make_space_restriction(space_partition=None, domain=None, space_topology=None, device=None,
                           temporary_store=None):
    """``space_partition`` (a partition of ``space_topology`` over the domain's geometry
    partition when left out) restricted to the cells of ``domain`` (those of the partition's
    geometry partition when left out)."""
    from .domain import Cells
    if space_partition is None:
        if space_topology is None:
            raise ValueError("One of `space_partition` or `space_topology` must be provided")
        topo = getattr(space_topology, "topology", space_topology)
        if domain is None:
            domain = Cells(topo.geometry)
        space_partition = make_space_partition(topo, getattr(domain, "geometry_partition", None))
    elif domain is None:
        domain = Cells(space_partition.geo_partition)
    return SpaceRestriction(space_partition, domain, device=device, temporary_store=temporary_store)
