"""Shape functions of one reference element as objects (``fem.ShapeFunction``), as warp-lang
offers them: each ``make_*`` method gives a @wp.func usable in user kernels.

``make_element_inner_weight()(coords, n)`` is node ``n``'s shape function at element coordinates
``coords``; ``make_element_inner_weight_gradient()`` its gradient by the reference parameters
(2 of them on squares and triangles, 3 on cubes and tetrahedra); ``make_node_coords_in_element()(n)``
the node's coordinates; ``make_node_quadrature_weight()(n)`` its weight as a quadrature point
over the element (measure 1); ``make_trace_node_quadrature_weight()(n)`` its weight as a
quadrature point over the element side the node lies on (measure 1; 0 off the sides).

They wrap the functions the spaces of this package evaluate (space/tensor_shape.py, serendipity.py,
tri_space.py, tet_space.py, vector_space.py), so a shape function seen here is the one fields
use. Families without an implementation refuse to be made, naming what is missing."""

from enum import Enum

import numpy as np

from .. import _api as wp

from ..polynomial import Polynomial, quadrature_1d


class ShapeFunction:
    """The shape functions of one reference element (see the module docstring)."""

    ORDER = 0
    NODES_PER_ELEMENT = 0

    class Value(Enum):
        Scalar = 0
        CovariantVector = 1
        ContravariantVector = 2

    value = Value.Scalar

    def __init__(self, name, order, node_count, funcs, trace_weight=None, value=None):
        self._name = name
        self.ORDER = order
        self.NODES_PER_ELEMENT = node_count
        self._weight, self._weight_gradient, self._node_coords, self._node_weight = funcs
        self._trace_weight = trace_weight
        if value is not None:
            self.value = value

    @property
    def name(self):
        """Unique name of the family, degree and point family."""
        return self._name

    def make_element_inner_weight(self):
        return self._weight

    def make_element_outer_weight(self):
        return self._weight

    def make_element_inner_weight_gradient(self):
        return self._weight_gradient

    def make_element_outer_weight_gradient(self):
        return self._weight_gradient

    def make_node_coords_in_element(self):
        return self._node_coords

    def make_node_quadrature_weight(self):
        return self._node_weight

    def make_trace_node_quadrature_weight(self):
        if self._trace_weight is None:
            raise NotImplementedError(f"{type(self).__name__}: trace node quadrature weights are not supported yet")
        return self._trace_weight


def _not_yet(cls_name):
    raise NotImplementedError(f"fem.space.shape.{cls_name} is not supported yet")


def _node_table_func(values, dtype=wp.float32):
    """A @wp.func ``f(n)`` returning ``values[n]`` (a constant vector's entry)."""
    TABLE = wp.types.vector(len(values), dtype)(*[float(v) for v in values])

    @wp.func
    def table(n: int):
        return TABLE[n]
    return table


def _family(family):
    return Polynomial.LOBATTO_GAUSS_LEGENDRE if family is None else family


def _tensor_trace_weights(dim, degree, family):
    """Per node of the tensor element: the product of the 1-D weights of its other axes if its
    first index is 0 (it lies on the side x = 0), else 0."""
    _x, w = quadrature_1d(degree + 1, family)
    K = degree + 1
    out = []
    for n in range(K ** dim):
        idx = [(n // K ** (dim - 1 - a)) % K for a in range(dim)]
        out.append(float(np.prod([w[i] for i in idx[1:]])) if idx[0] == 0 else 0.0)
    return out


class SquareBipolynomialShapeFunctions(ShapeFunction):
    def __init__(self, degree, family=None):
        from .tensor_shape import tensor_shape
        family = _family(family)
        trace = _node_table_func(_tensor_trace_weights(2, degree, family)) if family in (
            Polynomial.LOBATTO_GAUSS_LEGENDRE, Polynomial.EQUISPACED_CLOSED) else None
        super().__init__(f"Square_Q{degree}_{family}", degree, (degree + 1) ** 2, tensor_shape(2, degree, family),
                         trace)


class CubeTripolynomialShapeFunctions(ShapeFunction):
    def __init__(self, degree, family=None):
        from .tensor_shape import tensor_shape
        family = _family(family)
        trace = _node_table_func(_tensor_trace_weights(3, degree, family)) if family in (
            Polynomial.LOBATTO_GAUSS_LEGENDRE, Polynomial.EQUISPACED_CLOSED) else None
        super().__init__(f"Cube_Q{degree}_{family}", degree, (degree + 1) ** 3, tensor_shape(3, degree, family), trace)


class SquareSerendipityShapeFunctions(ShapeFunction):
    def __init__(self, degree, family=None):
        from .serendipity import _node_ij, serendipity_shape
        if degree not in (2, 3):
            raise NotImplementedError("serendipity shape functions exist for degrees 2 and 3")
        family = _family(family)
        _x, w = quadrature_1d(degree + 1, family)
        trace = [float(w[j]) if i == 0 else 0.0 for i, j in (_node_ij(degree, n) for n in range(4 * degree))]
        super().__init__(f"Square_S{degree}_{family}", degree, 4 * degree, serendipity_shape(degree, family),
                         _node_table_func(trace))


# weights of the closed Newton-Cotes rules on a segment (equispaced nodes, measure 1)
_SEGMENT_NEWTON_COTES = {1: (0.5, 0.5), 2: (1.0 / 6.0, 2.0 / 3.0, 1.0 / 6.0), 3: (0.125, 0.375, 0.375, 0.125)}


class TrianglePolynomialShapeFunctions(ShapeFunction):
    def __init__(self, degree):
        from .shape_families import lattice, lattice_shape
        from .tri_space import tri_shape
        if degree not in (1, 2, 3):
            raise NotImplementedError("triangle Lagrange shape functions exist for degrees 1 to 3")
        # side c0 = 0: the nodes with no weight on vertex 0, at equispaced points along it
        nc = _SEGMENT_NEWTON_COTES[degree]
        trace = [nc[a[2]] if a[0] == 0 else 0.0 for a in lattice(2, degree)]
        funcs = tri_shape(degree) if degree < 3 else lattice_shape(2, degree)
        super().__init__(f"Tri_P{degree}", degree, len(trace), funcs, _node_table_func(trace))


# the non-conforming simplex elements: P_k on the simplex shrunk by these factors about its
# centroid (nodes inside the element; higher degrees shrink less, so values and gradients at
# coordinates outside the element, which lookups and tests evaluate, stay moderate in float32)
_NONCONFORMING_SHRINK = {1: 0.5, 2: 0.75, 3: 0.8}


def _nonconforming(dim, degree, name):
    from .shape_families import lattice, lattice_shape
    if degree not in (1, 2, 3):
        raise NotImplementedError(f"{name}: degrees 1 to 3")
    n = len(lattice(dim, degree))
    return n, lattice_shape(dim, degree, _NONCONFORMING_SHRINK[degree]), _node_table_func([0.0] * n)


class TriangleNonConformingPolynomialShapeFunctions(ShapeFunction):
    def __init__(self, degree):
        n, funcs, trace = _nonconforming(2, degree, type(self).__name__)
        super().__init__(f"Tri_dP{degree}", degree, n, funcs, trace)


class TetrahedronNonConformingPolynomialShapeFunctions(ShapeFunction):
    def __init__(self, degree):
        n, funcs, trace = _nonconforming(3, degree, type(self).__name__)
        super().__init__(f"Tet_dP{degree}", degree, n, funcs, trace)


class SquareNonConformingPolynomialShapeFunctions(ShapeFunction):
    def __init__(self, degree):
        from .shape_families import lattice, square_nonconforming_shape
        if degree not in (1, 2, 3):
            raise NotImplementedError(f"{type(self).__name__}: degrees 1 to 3")
        n = len(lattice(2, degree))
        super().__init__(f"Square_dP{degree}", degree, n, square_nonconforming_shape(degree),
                         _node_table_func([0.0] * n))


def _whitney(cls, dim, kind, degree, value):
    from .shape_families import whitney_shape
    if degree != 1:
        raise NotImplementedError(f"{cls.__name__}: degree 1 only")
    n = {(2, "N1"): 3, (2, "RT"): 3, (3, "N1"): 6, (3, "RT"): 4}[(dim, kind)]
    return dict(name=f"{'Tri' if dim == 2 else 'Tet'}_{kind}1", order=1, node_count=n,
                funcs=whitney_shape(dim, kind), value=value)


_COV, _CONTRA = ShapeFunction.Value.CovariantVector, ShapeFunction.Value.ContravariantVector


class TriangleNedelecFirstKindShapeFunctions(ShapeFunction):
    def __init__(self, degree=1):
        super().__init__(**_whitney(type(self), 2, "N1", degree, _COV))


class TriangleRaviartThomasShapeFunctions(ShapeFunction):
    def __init__(self, degree=1):
        super().__init__(**_whitney(type(self), 2, "RT", degree, _CONTRA))


class TetrahedronNedelecFirstKindShapeFunctions(ShapeFunction):
    def __init__(self, degree=1):
        super().__init__(**_whitney(type(self), 3, "N1", degree, _COV))


class TetrahedronRaviartThomasShapeFunctions(ShapeFunction):
    def __init__(self, degree=1):
        super().__init__(**_whitney(type(self), 3, "RT", degree, _CONTRA))


class SquareRaviartThomasShapeFunctions(ShapeFunction):
    def __init__(self, degree=1):
        from .shape_families import square_vector_shape
        if degree != 1:
            raise NotImplementedError(f"{type(self).__name__}: degree 1 only")
        super().__init__("Square_RT1", 1, 4, square_vector_shape("RT"), value=_CONTRA)


class SquareNedelecFirstKindShapeFunctions(ShapeFunction):
    def __init__(self, degree=1):
        from .shape_families import square_vector_shape
        if degree != 1:
            raise NotImplementedError(f"{type(self).__name__}: degree 1 only")
        super().__init__("Square_N1", 1, 4, square_vector_shape("N1"), value=_COV)


def _bspline(cls, dim, degree):
    from .shape_families import bspline_shape
    if degree not in (1, 2, 3):
        raise NotImplementedError(f"{cls.__name__}: degrees 1 to 3")
    return dict(name=f"{'Square' if dim == 2 else 'Cube'}_B{degree}", order=degree,
                node_count=(degree + 1) ** dim, funcs=bspline_shape(dim, degree))


class SquareBSplineShapeFunctions(ShapeFunction):
    def __init__(self, degree):
        super().__init__(**_bspline(type(self), 2, degree))


class CubeBSplineShapeFunctions(ShapeFunction):
    def __init__(self, degree):
        super().__init__(**_bspline(type(self), 3, degree))


def _tet_face_trace_weights(degree):
    """Per tet node: its weight in the closed nodal rule of face x = 0 (lattice a[1] == 0),
    by node kind on that face (vertex, edge, centre)."""
    from .tet_space import TRI_NODAL_WEIGHTS, node_count_per_cell
    from ..geometry.tetmesh import TET_EDGES
    k = degree
    W = TRI_NODAL_WEIGHTS[k]
    out = []
    for n in range(node_count_per_cell(k)):
        if n < 4:
            out.append(W[0] if n != 1 else 0.0)
        elif n < 4 + 6 * (k - 1):
            a, b = TET_EDGES[(n - 4) // max(k - 1, 1)]
            out.append(W[1] if 1 not in (a, b) else 0.0)
        else:
            out.append(W[2] if n - 4 - 6 * (k - 1) == 1 else 0.0)
    return out


class TetrahedronPolynomialShapeFunctions(ShapeFunction):
    def __init__(self, degree):
        from .tet_space import node_count_per_cell, simplex_shape
        if degree not in (1, 2, 3):
            raise NotImplementedError("tetrahedron Lagrange shape functions exist for degrees 1 to 3")
        super().__init__(f"Tet_P{degree}", degree, node_count_per_cell(degree), simplex_shape(degree),
                         _node_table_func(_tet_face_trace_weights(degree)))


class CubeRaviartThomasShapeFunctions(ShapeFunction):
    def __init__(self, degree=1):
        from .vector_space import RT, _SHAPES
        if degree != 1:
            raise NotImplementedError("Raviart-Thomas shape functions exist for degree 1")
        s = _SHAPES[RT]
        super().__init__("Cube_RT1", 1, s[0], s[1:5], value=ShapeFunction.Value.ContravariantVector)


class CubeNedelecFirstKindShapeFunctions(ShapeFunction):
    def __init__(self, degree=1):
        from .vector_space import N1, _SHAPES
        if degree != 1:
            raise NotImplementedError("Nedelec shape functions exist for degree 1")
        s = _SHAPES[N1]
        super().__init__("Cube_N1", 1, s[0], s[1:5], value=ShapeFunction.Value.CovariantVector)


def _missing(cls_name):
    def __init__(self, *args, **kwargs):
        _not_yet(cls_name)
    return type(cls_name, (ShapeFunction,), {"__init__": __init__, "__doc__": f"Not supported yet: {cls_name}."})


# warp-lang's other families, named so code importing them loads; making one says it is missing
CubeSerendipityShapeFunctions = _missing("CubeSerendipityShapeFunctions")
CubeNonConformingPolynomialShapeFunctions = _missing("CubeNonConformingPolynomialShapeFunctions")


_LAGRANGE = {"square": SquareBipolynomialShapeFunctions, "cube": CubeTripolynomialShapeFunctions}
_SIMPLEX = {"triangle": TrianglePolynomialShapeFunctions, "tetrahedron": TetrahedronPolynomialShapeFunctions}


def make_element_shape_function(element, degree, element_basis=None, family=None):
    """The shape functions of ``degree`` on the reference ``element`` (``fem.Element``)."""
    from ..geometry.geometry import Element
    from .tensor_shape import ElementBasis
    shape = {Element.SQUARE: "square", Element.CUBE: "cube", Element.TRIANGLE: "triangle",
             Element.TETRAHEDRON: "tetrahedron"}.get(element)
    basis = ElementBasis.LAGRANGE if element_basis is None else element_basis
    if basis == ElementBasis.LAGRANGE and shape in _LAGRANGE:
        return _LAGRANGE[shape](degree, family)
    if basis == ElementBasis.LAGRANGE and shape in _SIMPLEX:
        return _SIMPLEX[shape](degree)
    if basis == ElementBasis.SERENDIPITY and shape == "square":
        return SquareSerendipityShapeFunctions(degree, family)
    if shape == "cube" and basis == ElementBasis.RAVIART_THOMAS:
        return CubeRaviartThomasShapeFunctions(degree)
    if shape == "cube" and basis == ElementBasis.NEDELEC_FIRST_KIND:
        return CubeNedelecFirstKindShapeFunctions(degree)
    raise NotImplementedError(f"fem.make_element_shape_function: {basis} shape functions on {element} "
                              "are not supported yet")
