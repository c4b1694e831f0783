"""fem.PointBasisSpace: nodes at quadrature points with radial kernel shape functions, checked
against brute force in NumPy (the kernel summed over each cell's points, averaged over the cells
sharing a grid node as interpolation does)."""

import numpy as np
import pytest

import warp_interactive as wp
import warp_interactive.fem as fem

RADIUS = 0.3


@wp.func
def gaussian(squared_dist: float, point_index: int, radius: float):
    return wp.exp(-squared_dist / (radius * radius))


@wp.func
def gaussian_grad(squared_dist: float, point_index: int, radius: float):
    return -wp.exp(-squared_dist / (radius * radius)) / (radius * radius)


@wp.func
def indexed(squared_dist: float, point_index: int):
    return float(point_index + 1)


@wp.func
def bad_kernel(squared_dist: int, point_index: int):
    return float(squared_dist)


@fem.integrand
def grad_of(s: fem.Sample, p: fem.Field):
    return fem.grad(p, s)


def _np_gauss(d2):
    return np.exp(-d2 / RADIUS ** 2)


def _quadratures(geo, kind):
    domain = fem.Cells(geo)
    if kind == "regular":
        return fem.RegularQuadrature(domain, order=2, family=fem.Polynomial.GAUSS_LEGENDRE)
    rng = np.random.default_rng(3)
    pts = rng.uniform(0.02, 0.98, size=(13, geo.dimension))
    return fem.PicQuadrature(domain, positions=wp.array(pts, dtype=wp.vec2 if geo.dimension == 2 else wp.vec3))


def _geometry(dim):
    return fem.Grid2D(res=wp.vec2i(3, 2)) if dim == 2 else fem.Grid3D(res=wp.vec3i(2, 2, 1))


def _cell_points(basis, geo):
    """Per cell, the node indices of its points (host_cell_nodes without the -1 padding)."""
    table = basis.topology.host_cell_nodes()
    return [row[row >= 0] for row in table]


@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("kind", ["regular", "pic"])
def test_dirac_basis_reproduces_dofs_at_its_points(dim, kind):
    """With the default (Dirac) kernel, the field at quadrature point i is dofs[i]."""
    geo = _geometry(dim)
    quadrature = _quadratures(geo, kind)
    basis = fem.PointBasisSpace(quadrature)
    field = fem.make_collocated_function_space(basis).make_field()
    n = basis.node_count()
    assert n == quadrature.total_point_count()
    values = np.random.default_rng(1).normal(size=n).astype(np.float32)
    field.dof_values = values
    out = wp.zeros(n, dtype=float)
    fem.interpolate(field, at=quadrature, dest=out)
    np.testing.assert_allclose(out.numpy(), values, rtol=1e-6)
    # every point is in exactly one cell's node list, and the cells' points are the quadrature's
    cells = _cell_points(basis, geo)
    np.testing.assert_array_equal(np.sort(np.concatenate(cells)), np.arange(n))


@pytest.mark.parametrize("distance_space", ["world", "reference"])
@pytest.mark.parametrize("dtype", [float, wp.vec2])
def test_rbf_field_values_and_gradients_at_grid_nodes(distance_space, dtype):
    """Interpolated onto a Q1 space: per grid node, the mean over its cells of the kernel sum."""
    geo = fem.Grid2D(res=wp.vec2i(3, 2), bounds_hi=wp.vec2(1.5, 1.0))    # cells 0.5 x 0.5
    quadrature = _quadratures(geo, "pic")
    basis = fem.PointBasisSpace(quadrature, kernel_func=gaussian, kernel_grad_func=gaussian_grad,
                                kernel_values={"radius": RADIUS}, distance_space=distance_space)
    field = fem.make_collocated_function_space(basis, dtype=dtype).make_field()
    n = basis.node_count()
    comps = 1 if dtype is float else 2
    dofs = np.random.default_rng(2).normal(size=(n, comps)).astype(np.float32)
    field.dof_values = dofs[:, 0] if dtype is float else dofs
    Q1 = fem.make_polynomial_space(geo, dtype=dtype)
    dest = Q1.make_field()
    fem.interpolate(field, dest=dest)
    points = basis.node_positions().numpy()
    nodes = Q1.node_positions().numpy()
    cells = _cell_points(basis, geo)
    scale = 1.0 if distance_space == "world" else 1.0 / 0.5      # reference coordinates: per cell size
    expected = np.zeros((len(nodes), comps))
    grads = np.zeros((len(nodes), comps, 2))
    for k, x in enumerate(nodes):
        centres = [(0.5 * (c // 2 + 0.5), 0.5 * (c % 2 + 0.5)) for c in range(geo.cell_count())]
        adjacent = [c for c, m in enumerate(centres) if np.all(np.abs(x - np.array(m)) <= 0.25 + 1e-6)]
        for c in adjacent:
            for p in cells[c]:
                dx = (x - points[p]) * scale
                d2 = dx @ dx
                expected[k] += _np_gauss(d2) * dofs[p] / len(adjacent)
                # d(kernel)/dx = kernel'(d2) * 2 dx * scale (reference gradient mapped to world)
                grads[k] += np.outer(dofs[p], -_np_gauss(d2) / RADIUS ** 2 * 2.0 * dx * scale) / len(adjacent)
    got = dest.dof_values.numpy().reshape(len(nodes), comps)
    np.testing.assert_allclose(got, expected, rtol=2e-5, atol=1e-6)
    gdest = fem.make_polynomial_space(geo, dtype=wp.vec2 if dtype is float else wp.mat22).make_field()
    fem.interpolate(grad_of, fields={"p": field}, dest=gdest)
    np.testing.assert_allclose(gdest.dof_values.numpy().reshape(len(nodes), comps, 2), grads, rtol=2e-5, atol=1e-5)


def test_no_gradient_kernel_gives_zero_gradients():
    geo = fem.Grid2D(res=wp.vec2i(2))
    basis = fem.PointBasisSpace(_quadratures(geo, "regular"), kernel_func=gaussian, kernel_values={"radius": 1.0})
    field = fem.make_collocated_function_space(basis).make_field()
    field.dof_values.fill_(1.0)
    dest = fem.make_polynomial_space(geo, dtype=wp.vec2).make_field()
    fem.interpolate(grad_of, fields={"p": field}, dest=dest)
    np.testing.assert_array_equal(dest.dof_values.numpy(), 0.0)


def test_kernels_with_the_same_layout_stay_apart():
    """Two bases of different kernels: each field evaluates its own (the point index kernel
    gives sum over the cell's points of (i + 1) * dofs[i])."""
    geo = fem.Grid2D(res=wp.vec2i(1))
    q = fem.RegularQuadrature(fem.Cells(geo), order=2)
    a = fem.make_collocated_function_space(fem.PointBasisSpace(q, kernel_func=indexed)).make_field()
    b = fem.make_collocated_function_space(fem.PointBasisSpace(q, kernel_func=gaussian,
                                                               kernel_values={"radius": 1e6})).make_field()
    a.dof_values.fill_(1.0)
    b.dof_values.fill_(1.0)
    dest = fem.make_polynomial_space(geo, degree=0).make_field()
    fem.interpolate(a, dest=dest)
    assert dest.dof_values.numpy()[0] == pytest.approx(1 + 2 + 3 + 4)
    fem.interpolate(b, dest=dest)
    assert dest.dof_values.numpy()[0] == pytest.approx(4.0, rel=1e-6)


def test_kernel_values_can_change():
    geo = fem.Grid2D(res=wp.vec2i(1))
    q = fem.RegularQuadrature(fem.Cells(geo), order=0)      # one point, at the centre
    basis = fem.PointBasisSpace(q, kernel_func=gaussian, kernel_values={"radius": 1.0}, distance_space="world")
    field = fem.make_collocated_function_space(basis).make_field()
    field.dof_values.fill_(1.0)
    dest = fem.make_polynomial_space(geo).make_field()
    for radius in (1.0, 0.5):
        basis.kernel_values = {"radius": radius}
        fem.interpolate(field, dest=dest)
        np.testing.assert_allclose(dest.dof_values.numpy(), np.exp(-0.5 / radius ** 2), rtol=1e-6)


def test_errors():
    geo = fem.Grid2D(res=wp.vec2i(1))
    q = fem.RegularQuadrature(fem.Cells(geo), order=0)
    with pytest.raises(TypeError, match=r"Radial kernel 'bad_kernel' argument types must be \(float32, int32\), "
                                        r"got \(int32, int32\)"):
        fem.PointBasisSpace(q, kernel_func=bad_kernel)
    with pytest.raises(ValueError, match="no kernel value given for radius"):
        fem.PointBasisSpace(q, kernel_func=gaussian)
    with pytest.raises(ValueError, match="whole geometry partition"):
        fem.PointBasisSpace(fem.RegularQuadrature(fem.BoundarySides(geo), order=0))
    with pytest.raises(ValueError, match="distance_space"):
        fem.PointBasisSpace(q, distance_space="physical")


@pytest.mark.parametrize("rank", [0, 1])
def test_space_partition_of_points(rank):
    """A partition of a point topology holds the points of its cells (brute force by cell)."""
    geo = fem.Grid2D(res=wp.vec2i(3, 2))
    basis = fem.PointBasisSpace(_quadratures(geo, "pic"))
    part = fem.LinearGeometryPartition(geo, rank, 2)
    sp = fem.make_space_partition(basis.topology, part, with_halo=False)
    cells = _cell_points(basis, geo)
    expected = np.sort(np.concatenate([cells[c] for c in part.host_cell_indices()]))
    np.testing.assert_array_equal(np.sort(sp.space_node_indices().numpy()), expected)


def test_test_fields_are_refused_plainly():
    geo = fem.Grid2D(res=wp.vec2i(1))
    space = fem.make_collocated_function_space(fem.PointBasisSpace(fem.RegularQuadrature(fem.Cells(geo), order=0)))
    with pytest.raises(NotImplementedError, match="test and trial fields of point bases"):
        fem.make_test(space)


def test_space_restriction_of_points():
    """Restricted to a partition's cells: each point once, listed with its cell and slot."""
    geo = fem.Grid2D(res=wp.vec2i(3, 2))
    basis = fem.PointBasisSpace(_quadratures(geo, "pic"))
    part = fem.LinearGeometryPartition(geo, 1, 2)
    restriction = fem.make_space_restriction(space_topology=basis.topology, domain=fem.Cells(part))
    cells = _cell_points(basis, geo)
    ours = part.host_cell_indices()
    expected = sorted((c, k) for e, c in enumerate(ours) for k in range(len(cells[c])))
    assert restriction.node_count() == len(expected)
    rows = restriction.node_element_indices().numpy()
    got = sorted((ours[e], k) for e, k in rows)
    assert got == expected
