"""Function spaces: ``make_polynomial_space`` and the space types."""

from ..precision import FollowsPrecision, follow_precision
from .grid_space import GridPolynomialSpace
from .dof_mapper import DofMapper, IdentityMapper, SkewSymmetricTensorMapper, SymmetricTensorMapper
from .tensor_shape import ElementBasis
from .shape_functions import ShapeFunction, make_element_shape_function
from .space_base import FunctionSpace
from .point_basis import PointBasisSpace, PointFunctionSpace, UnstructuredPointTopology


@follow_precision
def make_polynomial_space(geo, dtype=float, dof_mapper=None, degree=1, element_basis=None,
                          discontinuous=False, family=None):
    """The Lagrange space of ``degree`` on ``geo`` holding ``dtype`` values (continuous, or with
    ``discontinuous=True`` its DG version: nodes of their own in every cell)."""
    from ..geometry import Grid2D, Grid3D, Hexmesh, Nanogrid, Quadmesh2D, Tetmesh, Trimesh2D
    from ..geometry.deformed import DeformedGeometry
    if isinstance(geo, DeformedGeometry):
        from .deformed_space import DeformedSpace
        return DeformedSpace(make_polynomial_space(geo.base, dtype, dof_mapper, degree, element_basis,
                                                   discontinuous, family), geo)
    if dof_mapper is not None:
        return _mapped(make_polynomial_space(geo, dof_mapper.value_dtype, None, degree, element_basis,
                                             discontinuous, family), dof_mapper)
    if degree == 0:      # piecewise constants: discontinuous whatever ``discontinuous`` says
        from .dg_space import piecewise_constant_space
        return piecewise_constant_space(geo, dtype)
    if discontinuous:
        from .dg_space import DiscontinuousSpace
        return DiscontinuousSpace(make_polynomial_space(geo, dtype, None, degree, element_basis, False, family))
    if element_basis == ElementBasis.BSPLINE:
        if not isinstance(geo, (Grid2D, Grid3D)):
            raise NotImplementedError(f"fem.make_polynomial_space: B-spline spaces on {type(geo).__name__} "
                                      "are not supported yet (grids only)")
        from .bspline_space import BSplineGridSpace
        return BSplineGridSpace(geo, degree, dtype)
    if element_basis == ElementBasis.SERENDIPITY and isinstance(geo, Grid2D):
        from .serendipity import SerendipityGridSpace
        return SerendipityGridSpace(geo, degree, dtype, family)
    if element_basis in (ElementBasis.RAVIART_THOMAS, ElementBasis.NEDELEC_FIRST_KIND) and isinstance(geo, Grid3D):
        from .vector_space import N1, RT, VectorBasisSpace
        kind = RT if element_basis == ElementBasis.RAVIART_THOMAS else N1
        return VectorBasisSpace(geo, kind, degree, None if dtype is float else dtype)
    if element_basis not in (None, ElementBasis.LAGRANGE):
        raise NotImplementedError(f"fem.make_polynomial_space: {element_basis} elements are not supported yet")
    if isinstance(geo, Trimesh2D):
        from .tri_space import TrianglePolynomialSpace
        return TrianglePolynomialSpace(geo, degree, dtype)
    if isinstance(geo, Tetmesh):
        from .tet_space import TetPolynomialSpace
        return TetPolynomialSpace(geo, degree, dtype)
    if isinstance(geo, Hexmesh):
        from .hex_space import HexPolynomialSpace
        return HexPolynomialSpace(geo, degree, dtype, family)
    if isinstance(geo, Nanogrid):
        from .nanogrid_space import NanogridPolynomialSpace
        return NanogridPolynomialSpace(geo, degree, dtype, family)
    if isinstance(geo, Quadmesh2D):
        from .quad_space import QuadPolynomialSpace
        return QuadPolynomialSpace(geo, degree, dtype, family)
    if not isinstance(geo, (Grid2D, Grid3D)):
        raise NotImplementedError(f"fem.make_polynomial_space: no spaces on {type(geo).__name__} yet")
    return GridPolynomialSpace(geo, degree, dtype, family)


def _mapped(space, dof_mapper):
    """``space`` storing ``dof_mapper.dof_dtype`` values at its nodes (an identity mapper leaves
    it as it is)."""
    if dof_mapper.dof_dtype != dof_mapper.value_dtype:
        space.dof_mapper = dof_mapper
    return space


class BasisSpace(FollowsPrecision):
    """The shape functions and nodes of a polynomial space, without a value type
    (``make_polynomial_basis_space``); ``make_collocated_function_space`` gives them one."""

    def __init__(self, geo, degree, element_basis, discontinuous, family):
        self.geometry = geo
        self.degree = degree
        self.element_basis = element_basis
        self.discontinuous = discontinuous
        self.family = family
        self._scalar = make_polynomial_space(geo, float, None, degree, element_basis, discontinuous, family)

    @property
    def name(self):
        return f"{self._scalar.name}_basis"

    @property
    def topology(self):
        """The node numbering (the scalar space, its own topology)."""
        return self._scalar

    def node_count(self):
        return self._scalar.node_count()

    def node_positions(self, out=None):
        return self._scalar.node_positions(out)


@follow_precision
def make_polynomial_basis_space(geo, degree=1, element_basis=None, discontinuous=False, family=None):
    """The nodes and shape functions of the Lagrange space of ``degree`` on ``geo``."""
    return BasisSpace(geo, degree, element_basis, discontinuous, family)


@follow_precision
def make_collocated_function_space(basis_space, dtype=float, dof_mapper=None):
    """The space of ``dtype`` values at the nodes of ``basis_space``."""
    b = basis_space
    if isinstance(b, PointBasisSpace):
        if dof_mapper is not None:
            raise NotImplementedError("dof mappers on point bases are not supported yet")
        return PointFunctionSpace(b, dtype)
    return make_polynomial_space(b.geometry, dtype, dof_mapper, b.degree, b.element_basis, b.discontinuous, b.family)


__all__ = ["BasisSpace", "FunctionSpace", "PointBasisSpace", "UnstructuredPointTopology", "ShapeFunction",
           "make_element_shape_function", "DofMapper", "ElementBasis", "IdentityMapper", "SkewSymmetricTensorMapper",
           "SymmetricTensorMapper", "GridPolynomialSpace", "make_collocated_function_space",
           "make_polynomial_basis_space", "make_polynomial_space"]
