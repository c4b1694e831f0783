"""fem.ShapeFunction objects (warp.fem.space.shape): their @wp.funcs evaluated in a kernel and
checked with NumPy: Kronecker delta at the nodes, partition of unity, gradients against central
differences of the weights, node and trace quadrature weights exact for linear functions (and,
for Gauss-Lobatto tensor elements, for polynomials of the element's degree)."""

import itertools
import math

import numpy as np
import pytest

import warp_interactive as wp
import warp_interactive.fem as fem
from warp_interactive.fem.space import shape as shapes

P = fem.Polynomial
LGL, GL = P.LOBATTO_GAUSS_LEGENDRE, P.GAUSS_LEGENDRE

# (factory, reference parameters, parameters -> element coordinates, element centroid, side x = 0 centroid)
SQUARE = (2, lambda p: np.stack([p[:, 0], p[:, 1], 0.0 * p[:, 0]], 1), (0.5, 0.5, 0.0), (0.0, 0.5, 0.0))
CUBE = (3, lambda p: p, (0.5, 0.5, 0.5), (0.0, 0.5, 0.5))
TRI = (2, lambda p: np.stack([1.0 - p[:, 0] - p[:, 1], p[:, 0], p[:, 1]], 1), (1 / 3, 1 / 3, 1 / 3), (0.0, 0.5, 0.5))
TET = (3, lambda p: p, (0.25, 0.25, 0.25), (0.0, 1 / 3, 1 / 3))

# (name, factory, reference, node count, weights are 1 at their node, trace rule of side x = 0)
CASES = [
    ("Q2_LGL", lambda: shapes.SquareBipolynomialShapeFunctions(2, LGL), SQUARE, 9, True, True),
    ("Q3_GL", lambda: shapes.SquareBipolynomialShapeFunctions(3, GL), SQUARE, 16, True, False),
    ("Q2_cube", lambda: shapes.CubeTripolynomialShapeFunctions(2, LGL), CUBE, 27, True, True),
    ("S2", lambda: shapes.SquareSerendipityShapeFunctions(2, LGL), SQUARE, 8, True, True),
    ("S3", lambda: shapes.SquareSerendipityShapeFunctions(3, LGL), SQUARE, 12, True, True),
    ("P1_tri", lambda: shapes.TrianglePolynomialShapeFunctions(1), TRI, 3, True, True),
    ("P2_tri", lambda: shapes.TrianglePolynomialShapeFunctions(2), TRI, 6, True, True),
    ("P3_tri", lambda: shapes.TrianglePolynomialShapeFunctions(3), TRI, 10, True, True),
    ("P2_tet", lambda: shapes.TetrahedronPolynomialShapeFunctions(2), TET, 10, True, True),
    ("P3_tet", lambda: shapes.TetrahedronPolynomialShapeFunctions(3), TET, 20, True, True),
    ("dP1_tri", lambda: shapes.TriangleNonConformingPolynomialShapeFunctions(1), TRI, 3, True, False),
    ("dP3_tri", lambda: shapes.TriangleNonConformingPolynomialShapeFunctions(3), TRI, 10, True, False),
    ("dP2_tet", lambda: shapes.TetrahedronNonConformingPolynomialShapeFunctions(2), TET, 10, True, False),
    ("dP3_tet", lambda: shapes.TetrahedronNonConformingPolynomialShapeFunctions(3), TET, 20, True, False),
    ("dP2_square", lambda: shapes.SquareNonConformingPolynomialShapeFunctions(2), SQUARE, 6, True, False),
    ("dP3_square", lambda: shapes.SquareNonConformingPolynomialShapeFunctions(3), SQUARE, 10, True, False),
    ("B1_square", lambda: shapes.SquareBSplineShapeFunctions(1), SQUARE, 4, True, False),
    ("B3_square", lambda: shapes.SquareBSplineShapeFunctions(3), SQUARE, 16, False, False),
    ("B2_cube", lambda: shapes.CubeBSplineShapeFunctions(2), CUBE, 27, False, False),
]
COV, CONTRA = fem.ShapeFunction.Value.CovariantVector, fem.ShapeFunction.Value.ContravariantVector
# (name, factory, reference, node count, value kind, unit vectors: (point, direction, length) per
# node, whose dot product with the value times the length is 1: the edge's tangent / side's normal)
_S3 = np.sqrt(3.0)
VECTOR_CASES = [
    ("RT1_cube", lambda: shapes.CubeRaviartThomasShapeFunctions(1), CUBE, 6, CONTRA, None),
    ("N1_cube", lambda: shapes.CubeNedelecFirstKindShapeFunctions(1), CUBE, 12, COV, None),
    ("RT1_square", lambda: shapes.SquareRaviartThomasShapeFunctions(1), SQUARE, 4, CONTRA,
     [((0.0, 0.5), (1, 0), 1), ((1.0, 0.5), (1, 0), 1), ((0.5, 0.0), (0, 1), 1), ((0.5, 1.0), (0, 1), 1)]),
    ("N1_square", lambda: shapes.SquareNedelecFirstKindShapeFunctions(1), SQUARE, 4, COV,
     [((0.5, 0.0), (1, 0), 1), ((0.5, 1.0), (1, 0), 1), ((0.0, 0.5), (0, 1), 1), ((1.0, 0.5), (0, 1), 1)]),
    # triangle: edge/side e opposite vertex e, from vertex e+1 to e+2; RT flux outwards
    ("N1_tri", lambda: shapes.TriangleNedelecFirstKindShapeFunctions(1), TRI, 3, COV,
     [((0.5, 0.5), (-1 / np.sqrt(2), 1 / np.sqrt(2)), np.sqrt(2)), ((0.0, 0.5), (0, -1), 1),
      ((0.5, 0.0), (1, 0), 1)]),
    ("RT1_tri", lambda: shapes.TriangleRaviartThomasShapeFunctions(1), TRI, 3, CONTRA,
     [((0.5, 0.5), (1 / np.sqrt(2), 1 / np.sqrt(2)), np.sqrt(2)), ((0.0, 0.5), (-1, 0), 1),
      ((0.5, 0.0), (0, -1), 1)]),
    # tetrahedron: RT flux outwards through the face opposite each vertex (area x 2: unit flux)
    ("RT1_tet", lambda: shapes.TetrahedronRaviartThomasShapeFunctions(1), TET, 4, CONTRA,
     [((1 / 3, 1 / 3, 1 / 3), (1 / _S3, 1 / _S3, 1 / _S3), _S3 / 2), ((0, 1 / 3, 1 / 3), (-1, 0, 0), 0.5),
      ((1 / 3, 0, 1 / 3), (0, -1, 0), 0.5), ((1 / 3, 1 / 3, 0), (0, 0, -1), 0.5)]),
    ("N1_tet", lambda: shapes.TetrahedronNedelecFirstKindShapeFunctions(1), TET, 6, COV,
     [((0.5, 0, 0), (1, 0, 0), 1), ((0.5, 0.5, 0), (-1 / np.sqrt(2), 1 / np.sqrt(2), 0), np.sqrt(2)),
      ((0, 0.5, 0), (0, -1, 0), 1), ((0, 0, 0.5), (0, 0, 1), 1),
      ((0.5, 0, 0.5), (-1 / np.sqrt(2), 0, 1 / np.sqrt(2)), np.sqrt(2)),
      ((0, 0.5, 0.5), (0, -1 / np.sqrt(2), 1 / np.sqrt(2)), np.sqrt(2))]),
]


def _evaluate(shape, coords, dim, vector=False):
    """weights (points, nodes), gradients (points, nodes, params[, 3]), node coords, node weights,
    trace weights (None when the shape has none)."""
    N = shape.NODES_PER_ELEMENT
    weight, grad = shape.make_element_inner_weight(), shape.make_element_inner_weight_gradient()
    node_coords, node_weight = shape.make_node_coords_in_element(), shape.make_node_quadrature_weight()
    try:
        trace = shape.make_trace_node_quadrature_weight()
    except NotImplementedError:
        trace = None
    has_trace = trace is not None
    trace = trace if has_trace else node_weight
    VT = wp.types.vector(dim, float) if vector else float
    GT = wp.types.matrix(shape=(dim, dim), dtype=float) if vector else wp.types.vector(dim, float)

    @wp.kernel(module="unique")
    def evaluate(c: wp.array(dtype=wp.vec3), w: wp.array2d(dtype=VT), g: wp.array2d(dtype=GT),
                 nc: wp.array(dtype=wp.vec3), nw: wp.array(dtype=float), tw: wp.array(dtype=float)):
        i, n = wp.tid()
        w[i, n] = weight(c[i], n)
        g[i, n] = grad(c[i], n)
        if i == 0:
            nc[n] = node_coords(n)
            nw[n] = node_weight(n)
            tw[n] = trace(n)

    M = coords.shape[0]
    arrays = [wp.array(coords.astype(np.float32), dtype=wp.vec3), wp.empty((M, N), dtype=VT),
              wp.empty((M, N), dtype=GT), wp.empty(N, dtype=wp.vec3), wp.empty(N, dtype=float),
              wp.empty(N, dtype=float)]
    wp.launch(evaluate, dim=(M, N), inputs=arrays, device="cpu")
    out = [a.numpy() for a in arrays[1:]]
    return out[0], out[1], out[2], out[3], out[4] if has_trace else None


def _params(coords, dim, to_coords):
    rng = np.random.default_rng(7)
    return rng.uniform(0.1, 0.6, size=(coords, dim))


@pytest.mark.parametrize("name,make,ref,nodes,unity,has_trace", CASES, ids=[c[0] for c in CASES])
def test_scalar_shape_functions(name, make, ref, nodes, unity, has_trace):
    dim, to_coords, centroid, side_centroid = ref
    shape = make()
    assert shape.NODES_PER_ELEMENT == nodes and shape.value == fem.ShapeFunction.Value.Scalar
    p = _params(12, dim, to_coords)
    h = 1.0e-2
    shifted = [p] + [p + s * h * np.eye(dim)[k] for k in range(dim) for s in (1.0, -1.0)]
    w, g, nc, nw, tw = _evaluate(shape, to_coords(np.concatenate(shifted)), dim)
    M = p.shape[0]
    np.testing.assert_allclose(w[:M].sum(axis=1), 1.0, atol=2e-5)                       # partition of unity
    fd = np.stack([(w[M * (1 + 2 * k):M * (2 + 2 * k)] - w[M * (2 + 2 * k):M * (3 + 2 * k)]) / (2 * h)
                   for k in range(dim)], axis=-1)
    np.testing.assert_allclose(g[:M], fd, atol=2e-3 * max(1.0, np.abs(fd).max()))    # gradients
    # Kronecker delta at the nodes: evaluate again at the node coordinates
    if unity:
        w_nodes = _evaluate(shape, nc.astype(np.float64), dim)[0]
        np.testing.assert_allclose(w_nodes, np.eye(nodes), atol=2e-5)
    # node quadrature: exact for constants and linear functions
    assert nw.sum() == pytest.approx(1.0, abs=1e-5)
    np.testing.assert_allclose(nw @ nc, centroid, atol=1e-5)
    assert (tw is not None and tw.any()) == has_trace
    if has_trace:           # trace rule of side x = 0: only its nodes, exact for linear functions
        on_side = np.abs(nc[:, 0]) < 1e-6
        assert np.all(tw[~on_side] == 0.0)
        assert tw.sum() == pytest.approx(1.0, abs=1e-5)
        np.testing.assert_allclose(tw @ nc, side_centroid, atol=1e-5)


@pytest.mark.parametrize("degree,family", [(2, LGL), (3, LGL), (3, GL)])
def test_tensor_node_quadrature_exact_to_degree(degree, family):
    """Q_k's node weights integrate x^a y^b (a, b <= k) exactly: a Gauss(-Lobatto) rule per axis."""
    shape = shapes.SquareBipolynomialShapeFunctions(degree, family)
    _w, _g, nc, nw, _tw = _evaluate(shape, np.array([[0.5, 0.5, 0.0]]), 2)
    for a in range(degree + 1):
        for b in range(degree + 1):
            assert nw @ (nc[:, 0] ** a * nc[:, 1] ** b) == pytest.approx(1.0 / ((a + 1) * (b + 1)), abs=2e-6)


@pytest.mark.parametrize("name,make,ref,nodes,value,units", VECTOR_CASES, ids=[c[0] for c in VECTOR_CASES])
def test_vector_shape_functions(name, make, ref, nodes, value, units):
    """RT / Nedelec: gradients against central differences of the weights; each node's value has
    unit circulation along its edge (N1) or flux through its side (RT); the gradients of
    simplex N1 are antisymmetric (pure curl), those of simplex RT multiples of the identity."""
    dim, to_coords = ref[0], ref[1]
    shape = make()
    assert shape.NODES_PER_ELEMENT == nodes and shape.value == value
    p = _params(8, dim, None)
    h = 1.0e-2
    shifted = [p] + [p + s * h * np.eye(dim)[k] for k in range(dim) for s in (1.0, -1.0)]
    w, g, _nc, _nw, _tw = _evaluate(shape, to_coords(np.concatenate(shifted)), dim, vector=True)
    M = p.shape[0]
    fd = np.stack([(w[M * (1 + 2 * k):M * (2 + 2 * k)] - w[M * (2 + 2 * k):M * (3 + 2 * k)]) / (2 * h)
                   for k in range(dim)], axis=-1)
    np.testing.assert_allclose(g[:M], fd, atol=2e-3)
    if ref in (TRI, TET):
        sym = 0.5 * (g + np.swapaxes(g, -1, -2))
        if value == COV:
            np.testing.assert_allclose(sym, 0.0, atol=1e-6)
        else:
            np.testing.assert_allclose(g - g[..., :1, :1] * np.eye(dim), 0.0, atol=1e-6)
    if units is not None:
        pts = np.array([u[0] for u in units], dtype=float)
        wu = _evaluate(shape, to_coords(pts), dim, vector=True)[0]
        for n, (_x, direction, length) in enumerate(units):
            assert wu[n, n] @ np.array(direction) * length == pytest.approx(1.0, abs=1e-5)


def _simplex_moment(exps):
    """Mean of prod x_i^a_i over the reference simplex: d! prod a_i! / (sum a + d)!."""
    d = len(exps)
    return float(math.factorial(d) * np.prod([math.factorial(a) for a in exps]) / math.factorial(sum(exps) + d))


@pytest.mark.parametrize("name,make,dim,degree,space", [
    ("P3_tri", lambda: shapes.TrianglePolynomialShapeFunctions(3), 2, 3, "simplex"),
    ("dP2_tri", lambda: shapes.TriangleNonConformingPolynomialShapeFunctions(2), 2, 2, "simplex"),
    ("dP3_tet", lambda: shapes.TetrahedronNonConformingPolynomialShapeFunctions(3), 3, 3, "simplex"),
    ("dP3_square", lambda: shapes.SquareNonConformingPolynomialShapeFunctions(3), 2, 3, "square"),
    ("B3_square", lambda: shapes.SquareBSplineShapeFunctions(3), 2, 1, "square"),
])
def test_node_quadrature_exact(name, make, dim, degree, space):
    """Node weights integrate the monomials the shape functions reproduce (degree <= k for
    Lagrange bases, <= 1 for B-splines at their control points) exactly."""
    shape = make()
    _w, _g, nc, nw, _tw = _evaluate(shape, np.full((1, 3), 0.25), dim)
    x = nc[:, 1:3] if (space == "simplex" and dim == 2) else nc[:, :dim]
    for exps in itertools.product(range(degree + 1), repeat=dim):
        if sum(exps) > degree:
            continue
        ref = _simplex_moment(exps) if space == "simplex" else float(np.prod([1.0 / (a + 1) for a in exps]))
        assert nw @ np.prod(x ** np.array(exps), axis=1) == pytest.approx(ref, abs=2e-6), exps


@pytest.mark.parametrize("cls", ["CubeSerendipityShapeFunctions", "CubeNonConformingPolynomialShapeFunctions"])
def test_missing_families_say_so(cls):
    with pytest.raises(NotImplementedError, match=cls):
        getattr(shapes, cls)(degree=1)


@pytest.mark.parametrize("element,degree,basis,expected", [
    (fem.Element.SQUARE, 2, None, "SquareBipolynomialShapeFunctions"),
    (fem.Element.TETRAHEDRON, 3, None, "TetrahedronPolynomialShapeFunctions"),
    (fem.Element.SQUARE, 3, fem.ElementBasis.SERENDIPITY, "SquareSerendipityShapeFunctions"),
    (fem.Element.CUBE, 1, fem.ElementBasis.RAVIART_THOMAS, "CubeRaviartThomasShapeFunctions"),
])
def test_make_element_shape_function(element, degree, basis, expected):
    shape = fem.make_element_shape_function(element, degree, element_basis=basis)
    assert type(shape).__name__ == expected and isinstance(shape, fem.ShapeFunction)


def test_spaces_are_function_spaces():
    geo = fem.Grid2D(res=wp.vec2i(2))
    for space in (fem.make_polynomial_space(geo, degree=2), fem.make_polynomial_space(geo, degree=0),
                  fem.make_polynomial_space(geo, degree=1, discontinuous=True)):
        assert isinstance(space, fem.FunctionSpace)
