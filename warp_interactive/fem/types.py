"""The value types integrands see: samples, coordinates, indices, and the argument tags."""

from enum import IntEnum

from . import _api as wp

Coords = wp.vec3
Coords_f64 = wp.vec3d
ElementIndex = int
QuadraturePointIndex = int
NodeIndex = int
DofIndex = wp.vec2i

OUTSIDE = -1.0e8
NULL_ELEMENT_INDEX = wp.constant(-1)
NULL_QP_INDEX = wp.constant(-1)
NULL_NODE_INDEX = wp.constant((1 << 31) - 1)   # sorts after every real node
NULL_DOF_INDEX = wp.constant(DofIndex(-1, -1))


class ElementKind(IntEnum):
    """Whether a domain's elements are the geometry's cells or its sides."""

    CELL = 0
    SIDE = 1


@wp.struct
class Sample:
    """A point where integrands are evaluated: its element and coordinates there, the
    quadrature point it is (index, weight), and the test/trial degree of freedom being
    assembled (node index in the element, component)."""

    element_index: int
    element_coords: wp.vec3
    qp_index: int
    qp_weight: float
    test_dof: wp.vec2i
    trial_dof: wp.vec2i


@wp.struct
class Sample_f64:
    """:class:`Sample` at double precision."""

    element_index: int
    element_coords: wp.vec3d
    qp_index: int
    qp_weight: wp.float64
    test_dof: wp.vec2i
    trial_dof: wp.vec2i


@wp.struct
class NodeElementIndex:
    domain_element_index: int
    node_index_in_element: int


@wp.func
def make_free_sample(element_index: int, element_coords: wp.vec3):
    """A sample at ``element_coords`` of an element, tied to no quadrature point or dof."""
    return Sample(element_index, element_coords, -1, 0.0, wp.vec2i(-1, -1), wp.vec2i(-1, -1))


@wp.func
def make_free_sample(element_index: int, element_coords: wp.vec3d):  # noqa: F811  (the float64 overload)
    """A sample at ``element_coords`` of an element, tied to no quadrature point or dof."""
    return Sample_f64(element_index, element_coords, -1, wp.float64(0.0), wp.vec2i(-1, -1), wp.vec2i(-1, -1))


@wp.func
def get_node_index_in_element(dof: wp.vec2i):
    return dof[0]


@wp.func
def get_node_coord(dof: wp.vec2i):
    return dof[1]


def sample_type(scalar_type):
    return Sample_f64 if scalar_type == wp.float64 else Sample


def coords_type(scalar_type):
    return Coords_f64 if scalar_type == wp.float64 else Coords


class Field:
    """Tag of integrand parameters that take fields (test, trial, discrete...)."""


class Domain:
    """Tag of the integrand parameter that takes the integration domain."""
