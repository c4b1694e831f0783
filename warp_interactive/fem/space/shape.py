"""``warp.fem.space.shape``: the element bases and the shape functions as objects
(shape_functions.py), under warp-lang's names."""

from .tensor_shape import ElementBasis, lagrange_1d, tensor_shape  # noqa: F401
from .shape_functions import (CubeBSplineShapeFunctions, CubeNedelecFirstKindShapeFunctions,  # noqa: F401
                              CubeNonConformingPolynomialShapeFunctions, CubeRaviartThomasShapeFunctions,
                              CubeSerendipityShapeFunctions, CubeTripolynomialShapeFunctions, ShapeFunction,
                              SquareBipolynomialShapeFunctions, SquareBSplineShapeFunctions,
                              SquareNedelecFirstKindShapeFunctions, SquareNonConformingPolynomialShapeFunctions,
                              SquareRaviartThomasShapeFunctions, SquareSerendipityShapeFunctions,
                              TetrahedronNedelecFirstKindShapeFunctions,
                              TetrahedronNonConformingPolynomialShapeFunctions, TetrahedronPolynomialShapeFunctions,
                              TetrahedronRaviartThomasShapeFunctions, TriangleNedelecFirstKindShapeFunctions,
                              TriangleNonConformingPolynomialShapeFunctions, TrianglePolynomialShapeFunctions,
                              TriangleRaviartThomasShapeFunctions, make_element_shape_function)
