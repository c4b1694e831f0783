"""Function spaces: ``make_polynomial_space`` and the space types."""

from .grid_space import GridPolynomialSpace
from .shape import ElementBasis


def make_polynomial_space(geo, dtype=float, dof_mapper=None, degree=1, element_basis=None,
                          discontinuous=False, family=None):
    """The continuous Lagrange space of ``degree`` on ``geo`` holding ``dtype`` values."""
    from ..geometry import Grid2D, Grid3D, Trimesh2D
    if dof_mapper is not None:
        raise NotImplementedError("fem.make_polynomial_space: dof mappers are not supported yet")
    if discontinuous:
        raise NotImplementedError("fem.make_polynomial_space: discontinuous spaces are not supported yet")
    if element_basis not in (None, ElementBasis.LAGRANGE):
        raise NotImplementedError(f"fem.make_polynomial_space: {element_basis} elements are not supported yet")
    if isinstance(geo, Trimesh2D):
        from .tri_space import TrianglePolynomialSpace
        return TrianglePolynomialSpace(geo, degree, dtype)
    if not isinstance(geo, (Grid2D, Grid3D)):
        raise NotImplementedError(f"fem.make_polynomial_space: no spaces on {type(geo).__name__} yet")
    return GridPolynomialSpace(geo, degree, dtype, family)


__all__ = ["ElementBasis", "GridPolynomialSpace", "make_polynomial_space"]
