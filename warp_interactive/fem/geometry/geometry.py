"""What every geometry offers the domains, spaces and fields built on it.

A geometry is a Python object holding its arrays plus the ``@wp.func``s that compute, for a
sample in one of its cells or sides, positions, deformation gradients, measures and normals,
and the cells on either side of a side. Its ``CellArg``/``SideArg`` structs carry what those
functions read; domains pass them to integrands."""

import functools
from enum import IntEnum
from typing import Any

from .. import _api as wp

from ..precision import FollowsPrecision
from ..types import make_free_sample
from .lookup import element_closest_point_func, element_coordinates_func
from .side_queries import element_measure, element_normal, side_cell_ops


class Element(IntEnum):
    """Reference element shapes (``fem.Element``; values as warp-lang's)."""

    LINE_SEGMENT = 1
    SQUARE = 2
    CUBE = 3
    TRIANGLE = 4
    TETRAHEDRON = 5

    @property
    def prototype(self):
        """The reference element's quadratures and measures (warp-lang's prototype classes)."""
        return _Prototype(_SHAPES[self])


class _Prototype:
    _DIMENSIONS = {"segment": 1, "square": 2, "triangle": 2, "cube": 3, "tetrahedron": 3}
    _MEASURES = {"segment": 1.0, "square": 1.0, "triangle": 0.5, "cube": 1.0, "tetrahedron": 1.0 / 6.0}

    def __init__(self, shape):
        self.shape = shape
        self.dimension = self._DIMENSIONS[shape]

    def measure(self):
        return self._MEASURES[self.shape]

    def instantiate_quadrature(self, order, family):
        """(points as 3-tuples of element coordinates, weights summing to 1) of the rule
        RegularQuadrature uses on this element."""
        from ..quadrature import reference_rule
        points, weights = reference_rule(self.shape, order, family)
        return [tuple(float(c) for c in p) for p in points], [float(w) for w in weights]

    def center(self):
        return self.instantiate_quadrature(0, None)[0][0]


_ELEMENTS = {"segment": Element.LINE_SEGMENT, "square": Element.SQUARE, "cube": Element.CUBE,
             "triangle": Element.TRIANGLE, "tetrahedron": Element.TETRAHEDRON}
_SHAPES = {e: name for name, e in _ELEMENTS.items()}


class Geometry(FollowsPrecision):
    dimension = None
    cell_dimension = None
    reference_cell_shape = reference_side_shape = None

    # the measure / unit normal spanned by a deformation gradient (integrands call them as
    # ``fem.Geometry._element_measure(F)``, as in warp-lang)
    _element_measure = element_measure
    _element_normal = element_normal

    @classmethod
    def _wants_float64(cls, args, kwargs):
        """float64 geometries: ``scalar_type=wp.float64``, or vertex positions of float64 vectors
        (and anything made from float64 objects: a field deforming a geometry)."""
        for a in list(args) + list(kwargs.values()):
            dtype = getattr(a, "dtype", None) if isinstance(a, wp.array) else None
            if a is wp.float64 or getattr(dtype, "_wp_scalar_type_", dtype) is wp.float64:
                return True
        return super()._wants_float64(args, kwargs)

    def _queries(self, make):
        # abstract bases (DeformedGeometry before it is made for a field) have no cells to query;
        # every concrete geometry builds its queries, and a failure there is a bug, not "unsupported"
        if self.reference_cell_shape not in _ELEMENTS:
            return None
        return make(type(self))

    @property
    def cell_coordinates(self):
        """``fem.element_coordinates`` on cells (None where not supported)."""
        return self._queries(element_coordinates_func)

    @property
    def cell_closest_point(self):
        """``fem.element_closest_point`` on cells (None where not supported)."""
        return self._queries(element_closest_point_func)

    @property
    def side_cell_ops(self):
        """``fem.to_inner_cell``/``to_outer_cell``/``to_cell_side`` and side coordinates."""
        return self._queries(side_cell_ops)

    def reference_cell(self):
        """The reference element of the cells (``fem.Element``)."""
        return _ELEMENTS[self.reference_cell_shape]

    def reference_side(self):
        """The reference element of the sides (``fem.Element``)."""
        return _ELEMENTS[self.reference_side_shape]

    def cell_count(self):
        raise NotImplementedError

    def side_count(self):
        raise NotImplementedError

    def boundary_side_count(self):
        return len(self.boundary_side_indices())

    def __str__(self):
        return self.name


@functools.lru_cache(maxsize=None)
def measure_ratio_func(geometry_cls, sides):
    """``fem.measure_ratio``: 1 in cells; on a side, its measure over the smaller measure of the
    cells on either side (what penalty terms scale with)."""
    if not sides:
        @wp.func
        def cell_measure_ratio(arg: geometry_cls.CellArg, s: Any):
            return 1.0
        return cell_measure_ratio
    inner, outer = geometry_cls.side_inner_cell_index, geometry_cls.side_outer_cell_index
    inner_coords, outer_coords = geometry_cls.side_inner_cell_coords, geometry_cls.side_outer_cell_coords
    side_measure, cell_measure = geometry_cls.side_measure, geometry_cls.cell_measure

    @wp.func
    def side_measure_ratio(arg: geometry_cls.SideArg, s: Any):
        e = s.element_index
        m_in = cell_measure(arg.cell, make_free_sample(inner(arg, e), inner_coords(arg, e, s.element_coords)))
        m_out = cell_measure(arg.cell, make_free_sample(outer(arg, e), outer_coords(arg, e, s.element_coords)))
        return side_measure(arg, s) / wp.min(m_in, m_out)
    return side_measure_ratio
