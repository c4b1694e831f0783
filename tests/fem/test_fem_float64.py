"""float64 geometries (``Grid2D(..., scalar_type=wp.float64)``, meshes of ``vec2d``/``vec3d``
positions): the scalar type reaches spaces, fields, quadratures, integrals, interpolation and
lookups. The meshes sit at x0 = 1 + 2^-30, exact in float64 and 1.0 in float32, so a float32
step anywhere shows. References: closed-form integrals of polynomials (exact to quadrature
order), NumPy sums over the nodes, and the same problems at float32 (equal to float32
rounding)."""

import numpy as np
import pytest

import warp_interactive as wp
import warp_interactive.fem as fem

X0 = 1.0 + 2.0 ** -30
RES = 2


def _lattice(dim, res=RES):
    x = np.linspace(0.0, 1.0, res + 1)
    grids = np.meshgrid(*([x] * dim), indexing="ij")
    pos = np.stack([g.ravel() for g in grids], axis=1)
    pos[:, 0] += X0
    return pos


def make_geometry(name, scalar):
    """``name`` covering [X0, X0 + 1] x [0, 1](^2) at ``scalar`` precision."""
    f64 = scalar is wp.float64
    v2, v3 = (wp.vec2d, wp.vec3d) if f64 else (wp.vec2, wp.vec3)
    if name in ("Grid2D", "Grid3D"):
        d = 2 if name == "Grid2D" else 3
        V = v2 if d == 2 else v3
        cls = fem.Grid2D if d == 2 else fem.Grid3D
        res = wp.vec2i(RES) if d == 2 else wp.vec3i(RES)
        return cls(res, bounds_lo=V(X0, *([0.0] * (d - 1))), bounds_hi=V(X0 + 1.0, *([1.0] * (d - 1))),
                   scalar_type=scalar)
    if name in ("Trimesh2D", "Quadmesh2D", "Trimesh3D", "Quadmesh3D"):
        pos = _lattice(2)
        cells = fem.utils.grid_to_tris(RES, RES) if name.startswith("Tri") else fem.utils.grid_to_quads(RES, RES)
        if name.endswith("3D"):      # the same square as a surface in 3-D (the plane z = 0)
            pos = np.hstack([pos, np.zeros((len(pos), 1))])
        V = v3 if name.endswith("3D") else v2
        cls = fem.Trimesh2D if name.startswith("Tri") else fem.Quadmesh2D
        return cls(wp.array(cells, dtype=int), wp.array(pos, dtype=V), build_bvh=True)
    pos = _lattice(3)
    cells = fem.utils.grid_to_tets(RES, RES, RES) if name == "Tetmesh" else fem.utils.grid_to_hexes(RES, RES, RES)
    cls = fem.Tetmesh if name == "Tetmesh" else fem.Hexmesh
    return cls(wp.array(cells, dtype=int), wp.array(pos, dtype=v3), build_bvh=True)


GEOMETRIES = ["Grid2D", "Grid3D", "Trimesh2D", "Quadmesh2D", "Trimesh3D", "Quadmesh3D", "Tetmesh", "Hexmesh"]
DIM3 = {"Grid3D", "Tetmesh", "Hexmesh"}


@fem.integrand
def cubic(s: fem.Sample, domain: fem.Domain):
    x = domain(s)
    return x[0] * x[0] * x[1]


@fem.integrand
def one(s: fem.Sample, domain: fem.Domain):
    return fem.scalar_type(domain)(1.0)


@fem.integrand
def coordinate_x(s: fem.Sample, domain: fem.Domain):
    return domain(s)[0]


@fem.integrand
def value_and_slope(s: fem.Sample, u: fem.Field):
    return u(s) + fem.grad(u, s)[0]


@fem.integrand
def mass(s: fem.Sample, u: fem.Field, v: fem.Field):
    return u(s) * v(s)


@fem.integrand
def diffusion(s: fem.Sample, u: fem.Field, v: fem.Field):
    return wp.dot(fem.grad(u, s), fem.grad(v, s))


CUBIC = ((X0 + 1.0) ** 3 - X0 ** 3) / 3.0 * 0.5      # int x^2 y over [X0, X0+1] x [0, 1] (x [0, 1])


@pytest.mark.parametrize("name", GEOMETRIES)
def test_float64_geometry_integrates_a_cubic_exactly(name):
    geo = make_geometry(name, wp.float64)
    assert geo.scalar_type is wp.float64
    domain = fem.Cells(geo)
    value = fem.integrate(cubic, quadrature=fem.RegularQuadrature(domain, order=3))
    assert isinstance(value, np.float64)
    assert value == pytest.approx(CUBIC, rel=1e-13, abs=0.0)
    # the perimeter / surface of the unit square / cube
    boundary = fem.integrate(one, domain=fem.BoundarySides(geo))
    assert boundary == pytest.approx(6.0 if name in DIM3 else 4.0, rel=1e-13)


@pytest.mark.parametrize("name", ["Grid2D", "Tetmesh"])
def test_float32_geometry_rounds_the_offset(name):
    # the same integral at float32: within float32 rounding of the float64 one, and unable to
    # see the 2^-30 offset (a float64 result equal to this one would mean a float32 step)
    v32 = fem.integrate(coordinate_x, domain=fem.Cells(make_geometry(name, wp.float32)))
    v64 = fem.integrate(coordinate_x, domain=fem.Cells(make_geometry(name, wp.float64)))
    assert v64 == pytest.approx(X0 + 0.5, rel=1e-14, abs=0.0)
    assert abs(float(v32) - v64) < 1e-6 * v64
    assert float(v32) != float(v64)


# (a few light pairs, not all: each builds four kernels, and CI compiles every kernel once more
# with NVRTC, where a float64 Q2 hexahedron bilinear form takes minutes)
@pytest.mark.parametrize("name, degree", [("Grid3D", 1), ("Trimesh2D", 2), ("Hexmesh", 1), ("Quadmesh3D", 1)])
def test_float64_spaces_interpolate_and_assemble(name, degree):
    geo = make_geometry(name, wp.float64)
    space = fem.make_polynomial_space(geo, degree=degree)
    assert space.dtype is wp.float64
    u = space.make_field()
    assert u.dof_values.dtype is wp.float64
    fem.interpolate(coordinate_x, dest=u)
    nodes = space.node_positions().numpy()
    np.testing.assert_array_equal(u.dof_values.numpy(), nodes[:, 0])      # exact: x at each node
    # int (x + dx/dx) = X0 + 1/2 + 1
    total = fem.integrate(value_and_slope, fields={"u": u})
    assert total == pytest.approx(X0 + 1.5, rel=1e-13, abs=0.0)
    domain = fem.Cells(geo)
    fields = {"u": fem.make_trial(space, domain=domain), "v": fem.make_test(space, domain=domain)}
    M = fem.integrate(mass, fields=fields)
    K = fem.integrate(diffusion, fields=fields)
    assert M.scalar_type is wp.float64 and K.scalar_type is wp.float64
    m = M.values.numpy()[:M.nnz_sync()]
    assert m.sum() == pytest.approx(1.0, rel=1e-13)       # sum of phi_i phi_j = 1 over the volume
    ones = wp.array(np.ones(K.nrow), dtype=wp.float64)
    row_sums = wp.zeros(K.nrow, dtype=wp.float64)
    wp.sparse.bsr_mv(K, ones, row_sums)
    np.testing.assert_allclose(row_sums.numpy(), 0.0, atol=1e-12)


@fem.integrand
def locate_2d(s: fem.Sample, domain: fem.Domain, points: wp.array(dtype=wp.vec2d), out: wp.array(dtype=wp.vec2d)):
    out[s.qp_index] = domain(fem.lookup(domain, points[s.qp_index]))


@fem.integrand
def locate_3d(s: fem.Sample, domain: fem.Domain, points: wp.array(dtype=wp.vec3d), out: wp.array(dtype=wp.vec3d)):
    out[s.qp_index] = domain(fem.lookup(domain, points[s.qp_index]))


@pytest.mark.parametrize("name", ["Trimesh2D", "Tetmesh", "Grid3D"])
def test_float64_lookup_finds_points_to_double_precision(name):
    geo = make_geometry(name, wp.float64)
    dim = 3 if name in DIM3 else 2
    rng = np.random.default_rng(7)
    pts = rng.uniform(0.05, 0.95, size=(16, dim))
    pts[:, 0] += X0
    V = wp.vec3d if dim == 3 else wp.vec2d
    points = wp.array(pts, dtype=V)
    out = wp.zeros(len(pts), dtype=V)
    fem.interpolate(locate_3d if dim == 3 else locate_2d, dim=len(pts), at=fem.Cells(geo),
                    values={"points": points, "out": out})
    np.testing.assert_allclose(out.numpy(), pts, rtol=0.0, atol=1e-12)


def test_float64_errors_name_what_is_missing():
    with pytest.raises(TypeError, match="scalar_type must be wp.float32 or wp.float64"):
        fem.Grid2D(wp.vec2i(2), scalar_type=wp.float16)
    geo = make_geometry("Grid2D", wp.float64)
    with pytest.raises(NotImplementedError, match="PicQuadrature: float64 geometries"):
        fem.PicQuadrature(fem.Cells(geo), wp.array(np.full((3, 2), 0.5), dtype=wp.vec2d))


def test_float32_and_float64_objects_are_apart():
    g32, g64 = make_geometry("Grid2D", wp.float32), make_geometry("Grid2D", wp.float64)
    assert isinstance(g64, fem.Grid2D) and isinstance(g64, fem.Geometry)
    assert g32.scalar_type is wp.float32 and g64.scalar_type is wp.float64
    assert g32.CellArg is not g64.CellArg
    s32 = fem.make_polynomial_space(g32, degree=1)
    s64 = fem.make_polynomial_space(g64, degree=1)
    assert s32.dtype is wp.float32 and s64.dtype is wp.float64
    assert isinstance(fem.Cells(g64), fem.Cells) and isinstance(fem.make_test(s64), fem.TestField)
    # a float32 space keeps working after the float64 one was made (no shared cache entry)
    assert s32.make_field().dof_values.dtype is wp.float32


@pytest.mark.parametrize("first", [wp.float32, wp.float64])
def test_kernels_made_at_one_precision_do_not_serve_the_other(first):
    # the same integrand interpolated at both precisions, in either order: each kernel is made
    # for its own sample type (a float32 kernel copied into the float64 code's cache would
    # build float32 samples there)
    for scalar in (first, wp.float64 if first is wp.float32 else wp.float32):
        u = fem.make_polynomial_space(make_geometry("Grid3D", scalar), degree=1).make_field()
        fem.interpolate(coordinate_x, dest=u)
        assert u.dof_values.dtype is scalar
        x = u.space.node_positions().numpy()[:, 0]
        np.testing.assert_array_equal(u.dof_values.numpy(), x)
        assert (float(x.min()) == X0) == (scalar is wp.float64)
