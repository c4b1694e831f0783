"""Integration domains: the cells of a geometry, its sides, or its boundary sides.

A domain gives the kernels two structs: ``ElementArg`` (the geometry's cell or side arg,
which integrands receive as their ``fem.Domain`` parameter) and ``ElementIndexArg`` (which
geometry element the domain's i-th element is), and the ``@wp.func``s that read them."""

from typing import Any

import numpy as np

from . import _api as wp
from .precision import FollowsPrecision

from . import operator as op
from .geometry.geometry import measure_ratio_func
from .types import ElementKind


@wp.struct
class CountIndexArg:
    count: int


@wp.struct
class ListIndexArg:
    indices: wp.array(dtype=int)


@wp.func
def _identity_index(arg: CountIndexArg, i: int):
    return i


@wp.func
def _listed_index(arg: ListIndexArg, i: int):
    return arg.indices[i]


@wp.func
def _same_arg(arg: Any):
    return arg


@wp.func
def _side_cells(arg: Any):
    return arg.cell


class GeometryDomain(FollowsPrecision):
    """Elements of a geometry that integrals run over."""

    element_kind = None

    def __init__(self, geometry):
        self.geometry = geometry

    @property
    def dimension(self):
        return self.geometry.cell_dimension - (1 if self.element_kind == ElementKind.SIDE else 0)

    @property
    def name(self):
        return f"{self.geometry.name}_{type(self).__name__}"

    def __str__(self):
        return self.name

    def geometry_element_count(self):
        """The number of the geometry's elements of this domain's kind (its cells or its sides)."""
        g = self.geometry
        return g.cell_count() if self.element_kind == ElementKind.CELL else g.side_count()

    @property
    def ElementArg(self):
        return self.geometry.CellArg if self.element_kind == ElementKind.CELL else self.geometry.SideArg

    def element_arg_value(self, device=None):
        g = self.geometry
        return g.cell_arg_value(device) if self.element_kind == ElementKind.CELL else g.side_arg_value(device)

    @property
    def reference_shape(self):
        """The name of the elements' reference shape ("square", "triangle"...)."""
        g = self.geometry
        return g.reference_cell_shape if self.element_kind == ElementKind.CELL else g.reference_side_shape

    def reference_element(self):
        """The elements' reference element (``fem.Element``)."""
        g = self.geometry
        return g.reference_cell() if self.element_kind == ElementKind.CELL else g.reference_side()

    def _funcs(self, kind):
        prefix = "cell_" if self.element_kind == ElementKind.CELL else "side_"
        return getattr(self.geometry, prefix + kind)

    @property
    def element_position(self):
        return self._funcs("position")

    @property
    def element_measure(self):
        return self._funcs("measure")

    @property
    def element_normal(self):
        return self._funcs("normal")

    @property
    def element_deformation_gradient(self):
        return self._funcs("deformation_gradient")

    # integrands see the domain through its ElementArg: register what operators do with it
    def register_ops(self):
        g = self.geometry
        ops = {"position": self.element_position, "__call__": self.element_position, "normal": self.element_normal,
               "measure": self.element_measure, "deformation_gradient": self.element_deformation_gradient,
               "scalar_type": g.scalar_type,
               "measure_ratio": measure_ratio_func(type(g), self.element_kind == ElementKind.SIDE)}
        if self.element_kind == ElementKind.CELL:
            ops["inverse_deformation_gradient"] = g.cell_inverse_deformation_gradient
            ops["lookup"] = g.cell_lookup
            ops["element_coordinates"] = g.cell_coordinates
            ops["element_closest_point"] = g.cell_closest_point
            ops["cells"] = _same_arg
        else:     # fem.cells(domain): the cells of the geometry, for lookups from sides
            Cells(g).register_ops()
            ops["cells"] = _side_cells
            ops.update(g.side_cell_ops or {})
        op.register(self.ElementArg, {k: v for k, v in ops.items() if v is not None}, f"the domain {self.name}")


class Cells(GeometryDomain):
    """Every cell of ``geometry`` (or of a geometry partition: ``PartitionCells``)."""

    element_kind = ElementKind.CELL
    ElementIndexArg = CountIndexArg
    element_index = _identity_index

    def __new__(cls, geometry=None, *args, **kwargs):
        if cls is Cells and hasattr(geometry, "geo_partition_cells"):
            return PartitionCells(geometry)
        return super().__new__(cls, geometry, *args, **kwargs)

    def element_count(self):
        return self.geometry.cell_count()

    def host_element_indices(self):
        return np.arange(self.element_count(), dtype=np.int32)

    def element_index_arg_value(self, device=None):
        a = CountIndexArg()
        a.count = self.element_count()
        return a


class Sides(GeometryDomain):
    """Every side of ``geometry`` (interior and boundary)."""

    element_kind = ElementKind.SIDE
    ElementIndexArg = CountIndexArg
    element_index = _identity_index

    def element_count(self):
        return self.geometry.side_count()

    def host_element_indices(self):
        return np.arange(self.element_count(), dtype=np.int32)

    def element_index_arg_value(self, device=None):
        a = CountIndexArg()
        a.count = self.element_count()
        return a


class _ListedDomain(GeometryDomain):
    """A domain of listed geometry elements (``host_element_indices()``)."""

    ElementIndexArg = ListIndexArg
    element_index = _listed_index

    def __init__(self, geometry):
        super().__init__(geometry)
        self._indices = {}

    def element_count(self):
        return len(self.host_element_indices())

    def element_index_arg_value(self, device=None):
        device = wp.get_device(device)
        arr = self._indices.get(device.alias)
        if arr is None:
            arr = wp.array(np.asarray(self.host_element_indices(), dtype=np.int32), dtype=int, device=device)
            self._indices[device.alias] = arr
        a = ListIndexArg()
        a.indices = arr
        return a


class BoundarySides(_ListedDomain):
    """The sides of ``geometry`` on its boundary."""

    element_kind = ElementKind.SIDE

    def element_count(self):
        return self.geometry.boundary_side_count()

    def host_element_indices(self):
        return self.geometry.boundary_side_indices()


class Subdomain(_ListedDomain):
    """The elements of ``domain`` whose ``element_mask`` entry (one per element of ``domain``)
    is non-zero, or those of ``element_indices`` (indices into ``domain``'s elements). The mask
    is read when the subdomain is made."""

    def __init__(self, domain, element_mask=None, element_indices=None, temporary_store=None):
        super().__init__(domain.geometry)
        if (element_mask is None) == (element_indices is None):
            raise ValueError("fem.Subdomain: give exactly one of element_mask and element_indices")
        self.parent = domain
        self.element_kind = domain.element_kind
        parent = np.asarray(domain.host_element_indices(), dtype=np.int32)
        if element_mask is not None:
            mask = np.asarray(element_mask.numpy() if hasattr(element_mask, "numpy") else element_mask)
            if mask.shape[0] != len(parent):
                raise ValueError(f"fem.Subdomain: the mask has {mask.shape[0]} entries, the domain "
                                 f"{len(parent)} elements")
            self._host = parent[mask != 0]
        else:
            idx = np.asarray(element_indices.numpy() if hasattr(element_indices, "numpy") else element_indices)
            self._host = parent[idx.astype(np.int64)]

    def host_element_indices(self):
        return self._host

    @property
    def name(self):
        return f"{self.parent.name}_Subdomain{len(self._host)}"


class PartitionCells(_ListedDomain):
    """The cells of a geometry partition (``fem.Cells(geometry=partition)``)."""

    element_kind = ElementKind.CELL

    def __init__(self, partition):
        super().__init__(partition.geometry)
        self.geometry_partition = partition

    def host_element_indices(self):
        return self.geometry_partition.host_cell_indices()

    @property
    def name(self):
        return f"{self.geometry_partition.name}_Cells"
