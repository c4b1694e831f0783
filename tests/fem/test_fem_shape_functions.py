"""fem.ShapeFunction objects (warp.fem.space.shape): their @wp.funcs evaluated in a kernel and
checked with NumPy: Kronecker delta at the nodes, partition of unity, gradients against central
differences of the weights, node and trace quadrature weights exact for linear functions (and,
for Gauss-Lobatto tensor elements, for polynomials of the element's degree)."""

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

CASES = [
    ("Q2_LGL", lambda: shapes.SquareBipolynomialShapeFunctions(2, LGL), SQUARE, 9),
    ("Q3_GL", lambda: shapes.SquareBipolynomialShapeFunctions(3, GL), SQUARE, 16),
    ("Q2_cube", lambda: shapes.CubeTripolynomialShapeFunctions(2, LGL), CUBE, 27),
    ("S2", lambda: shapes.SquareSerendipityShapeFunctions(2, LGL), SQUARE, 8),
    ("S3", lambda: shapes.SquareSerendipityShapeFunctions(3, LGL), SQUARE, 12),
    ("P1_tri", lambda: shapes.TrianglePolynomialShapeFunctions(1), TRI, 3),
    ("P2_tri", lambda: shapes.TrianglePolynomialShapeFunctions(2), TRI, 6),
    ("P2_tet", lambda: shapes.TetrahedronPolynomialShapeFunctions(2), TET, 10),
    ("P3_tet", lambda: shapes.TetrahedronPolynomialShapeFunctions(3), TET, 20),
]
VECTOR_CASES = [
    ("RT1_cube", lambda: shapes.CubeRaviartThomasShapeFunctions(1), 6, fem.ShapeFunction.Value.ContravariantVector),
    ("N1_cube", lambda: shapes.CubeNedelecFirstKindShapeFunctions(1), 12, fem.ShapeFunction.Value.CovariantVector),
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
    VT = wp.vec3 if vector else float
    GT = wp.mat33 if vector else wp.types.vector(dim, float)

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


@pytest.mark.parametrize("name,make,ref,nodes", CASES, ids=[c[0] for c in CASES])
def test_scalar_shape_functions(name, make, ref, nodes):
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
    w_nodes = _evaluate(shape, nc.astype(np.float64), dim)[0]
    np.testing.assert_allclose(w_nodes, np.eye(nodes), atol=2e-5)
    # node quadrature: exact for constants and linear functions
    assert nw.sum() == pytest.approx(1.0, abs=1e-5)
    np.testing.assert_allclose(nw @ nc, centroid, atol=1e-5)
    if tw is not None:      # trace rule of side x = 0: only its nodes, exact for linear functions
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


@pytest.mark.parametrize("name,make,nodes,value", VECTOR_CASES, ids=[c[0] for c in VECTOR_CASES])
def test_vector_shape_functions(name, make, nodes, value):
    """RT / Nedelec: gradients against central differences of the weights."""
    shape = make()
    assert shape.NODES_PER_ELEMENT == nodes and shape.value == value
    p = _params(8, 3, None)
    h = 1.0e-2
    shifted = [p] + [p + s * h * np.eye(3)[k] for k in range(3) for s in (1.0, -1.0)]
    w, g, _nc, _nw, _tw = _evaluate(shape, np.concatenate(shifted), 3, vector=True)
    M = p.shape[0]
    fd = np.stack([(w[M * (1 + 2 * k):M * (2 + 2 * k)] - w[M * (2 + 2 * k):M * (3 + 2 * k)]) / (2 * h)
                   for k in range(3)], axis=-1)
    np.testing.assert_allclose(g[:M], fd, atol=2e-3)


@pytest.mark.parametrize("cls", ["SquareBSplineShapeFunctions", "TriangleRaviartThomasShapeFunctions",
                                 "CubeSerendipityShapeFunctions"])
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
