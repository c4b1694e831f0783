"""``warp.fem``: finite elements written as integrands.

Geometries (``Grid2D``, ``Grid3D``), integration domains (``Cells``, ``Sides``,
``BoundarySides``), quadratures, polynomial function spaces, test/trial/discrete fields,
``@fem.integrand`` functions with operators (``grad``, ``div``, ``normal``...), and
``integrate`` / ``interpolate``. Integrands are translated by the package's own pipeline
(lang: generic ``@wp.func``s whose operators are resolved by the types of their arguments);
each integral's kernel is a module of its own, so editing an integrand rebuilds only what uses
it. Imported on demand: ``import warp_interactive.fem as fem``."""

from . import operator as _op
from .precision import follow_precision
from .domain import BoundarySides, Cells, GeometryDomain, PartitionCells, Sides, Subdomain
from .field import (DiscreteField, FieldRestriction, ImplicitField, NonconformingField, TestField, TrialField,
                    UniformField, make_restriction)
from .geometry import (AdaptiveNanogrid, Element, Geometry, Grid2D, Grid3D, Hexmesh, Nanogrid, Quadmesh2D,
                       Quadmesh3D, Tetmesh, Trimesh2D, Trimesh3D)
from .integrand import Integrand, integrand
from .adaptivity import adaptive_nanogrid_from_field, adaptive_nanogrid_from_hierarchy
from .integrate import integrate
from .interpolate import interpolate
from .dirichlet import normalize_dirichlet_projector, project_linear_system, project_system_matrix, project_system_rhs
from .polynomial import Polynomial
from .partition import (ExplicitGeometryPartition, GeometryPartition, LinearGeometryPartition, SpacePartition,
                        SpaceRestriction, WholeGeometryPartition, make_space_partition, make_space_restriction)
from .pic_quadrature import PicQuadrature
from .quadrature import ExplicitQuadrature, NodalQuadrature, Quadrature, RegularQuadrature
from .space import (BasisSpace, DofMapper, ElementBasis, FunctionSpace, IdentityMapper, PointBasisSpace,
                    ShapeFunction, SkewSymmetricTensorMapper, SymmetricTensorMapper, make_collocated_function_space,
                    make_element_shape_function, make_polynomial_basis_space, make_polynomial_space)
from .cache import Temporary, TemporaryStore, borrow_temporary, borrow_temporary_like, set_default_temporary_store
from .types import (NULL_DOF_INDEX, NULL_ELEMENT_INDEX, NULL_NODE_INDEX, NULL_QP_INDEX, OUTSIDE, Coords, Coords_f64,
                    DofIndex, Domain, ElementIndex, ElementKind, Field, NodeIndex, QuadraturePointIndex, Sample,
                    Sample_f64, make_free_sample)
from . import cache, linalg, utils  # noqa: F401

FieldLike = (DiscreteField, TestField, TrialField, UniformField, ImplicitField, NonconformingField)


def _partitioned(field_cls, space, space_restriction, space_partition, domain, what):
    """A test/trial field on ``domain`` (the cells of the space partition's geometry partition,
    or of the space's geometry, when left out), numbering its nodes as the space partition does
    (one is made for a domain over a geometry partition)."""
    if space_restriction is not None:      # its domain and space partition
        domain, space_partition = space_restriction.domain, space_restriction.space_partition
    if domain is None:
        domain = Cells(space_partition.geo_partition if space_partition is not None else space.geometry)
    if space_partition is None and getattr(domain, "geometry_partition", None) is not None:
        space_partition = make_space_partition(space, domain.geometry_partition)
    field = field_cls(space, domain)
    field.space_partition = space_partition
    return field


@follow_precision
def make_test(space, space_restriction=None, space_partition=None, domain=None, device=None):
    """The test functions of ``space`` on ``domain`` (its cells when left out)."""
    return _partitioned(TestField, space, space_restriction, space_partition, domain, "make_test")


@follow_precision
def make_trial(space, space_restriction=None, space_partition=None, domain=None, device=None):
    """The trial functions of ``space`` on ``domain`` (its cells when left out)."""
    return _partitioned(TrialField, space, space_restriction, space_partition, domain, "make_trial")


@follow_precision
def make_discrete_field(space, space_partition=None):
    return space.make_field(space_partition)


globals().update(_op.OPERATORS)
