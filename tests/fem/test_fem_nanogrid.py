"""``fem.Nanogrid`` (the active voxels of a ``wp.Volume`` as cells) against brute force over
the voxel set in NumPy: vertex, face, boundary-face and edge counts; each side's position,
normal, measure and inner/outer cells; integrals of monomials exact to quadrature order
(summed voxel by voxel in closed form) and the divergence theorem on the boundary; point
lookups (the voxel holding the point, else the closest voxel); spaces holding their
polynomials; the L2 convergence order of a Poisson solve."""

import math

import numpy as np
import pytest

import warp_interactive as wp
import warp_interactive.fem as fem
from warp_interactive.fem.geometry import nanogrid as ng

from tests.fem.test_fem_assembly import diffusion, mass, to_scipy
from tests.fem.test_fem_meshes import poisson3_l2_error

VOXEL = (0.3, 0.25, 0.2)
ORIGIN = (0.1, -0.2, 0.3)


def voxel_set(case):
    """(n, 3) int voxel coordinates of a test case."""
    rng = np.random.default_rng(7)
    if case == "random":
        return np.unique(rng.integers(0, 7, size=(120, 3)), axis=0)
    if case == "negative":      # across the sign change and several upper nodes
        pts = np.unique(rng.integers(-6, 5, size=(150, 3)), axis=0)
        return np.concatenate([pts, [[-5000, 3, 2], [-5000, 3, 3], [4100, -9, 0]]])
    if case == "box":
        return np.stack(np.meshgrid(np.arange(3), np.arange(4), np.arange(2), indexing="ij"), -1).reshape(-1, 3)
    # an L-shaped block: a 4^3 box without one 2^3 corner
    box = np.stack(np.meshgrid(*[np.arange(4)] * 3, indexing="ij"), -1).reshape(-1, 3)
    return box[~np.all(box >= 2, axis=1)]


def make_grid(voxels, voxel_size=VOXEL, origin=ORIGIN):
    vol = wp.Volume.allocate_by_voxels(wp.array(np.asarray(voxels, np.int32), dtype=wp.vec3i),
                                       voxel_size=voxel_size, translation=wp.vec3(*origin))
    return fem.Nanogrid(vol)


def brute_topology(cells):
    """Sets of vertex ijk, faces (axis, ijk of the + cell), boundary faces and edges (axis, lower ijk)."""
    cells = [tuple(c) for c in np.asarray(cells).tolist()]
    cell_set = set(cells)
    verts, faces, edges = set(), set(), set()
    for c in cells:
        for n in range(8):
            verts.add((c[0] + (n >> 2 & 1), c[1] + (n >> 1 & 1), c[2] + (n & 1)))
        for a in range(3):
            for d in (0, 1):
                f = list(c)
                f[a] += d
                faces.add((a, tuple(f)))
            for b in (0, 1):
                for e in (0, 1):
                    g = list(c)
                    g[(a + 1) % 3] += b
                    g[(a + 2) % 3] += e
                    edges.add((a, tuple(g)))
    boundary = set()
    for a, f in faces:
        minus = list(f)
        minus[a] -= 1
        if (f in cell_set) != (tuple(minus) in cell_set):
            boundary.add((a, f))
    return verts, faces, boundary, edges


@wp.kernel
def side_queries(arg: ng.NanogridSideArg, pos: wp.array(dtype=wp.vec3), nor: wp.array(dtype=wp.vec3),
                 meas: wp.array(dtype=float), cells: wp.array(dtype=wp.vec2i), coords: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    s = fem.make_free_sample(i, wp.vec3(0.25, 0.75, 0.0))
    pos[i] = ng.nanogrid_side_position(arg, s)
    nor[i] = ng.nanogrid_side_normal(arg, s)
    meas[i] = ng.nanogrid_side_measure(arg, s)
    inner = ng.nanogrid_side_inner_cell_index(arg, i)
    outer = ng.nanogrid_side_outer_cell_index(arg, i)
    cells[i] = wp.vec2i(inner, outer)
    # the same point seen from the inner cell
    coords[i] = ng.nanogrid_cell_position(arg.cell, fem.make_free_sample(
        inner, ng.nanogrid_side_inner_cell_coords(arg, i, s.element_coords)))


def _side_point(axis, has_minus):
    """Where side coordinates (0.25, 0.75) sit relative to the face's + cell corner: along
    axes axis+1, axis+2 (axis+2, axis+1 on a face without a - cell: the tangents swap so the
    normal u x v points out of the inner cell)."""
    c = np.zeros(3)
    flip = 0 if has_minus else 1
    c[(axis + 1 + flip) % 3], c[(axis + 2 - flip) % 3] = 0.25, 0.75
    return c


def world(ijk_corner):
    """World position of index-space corner coordinates (voxel ijk spans [ijk, ijk + 1])."""
    return np.asarray(ORIGIN) + (np.asarray(ijk_corner, np.float64) - 0.5) * np.asarray(VOXEL)


@pytest.mark.parametrize("case", ["random", "negative", "box", "L"])
def test_topology_against_brute_force(case):
    cells = voxel_set(case)
    geo = make_grid(cells)
    verts, faces, boundary, edges = brute_topology(cells)
    assert (geo.cell_count(), geo.vertex_count(), geo.side_count(), geo.boundary_side_count(), geo.edge_count()) \
        == (len(cells), len(verts), len(faces), len(boundary), len(edges))
    grid_cells = geo.cell_ijk.numpy()
    assert {tuple(c) for c in grid_cells.tolist()} == {tuple(c) for c in cells.tolist()}

    n = geo.side_count()
    out = [wp.empty(n, dtype=t) for t in (wp.vec3, wp.vec3, float, wp.vec2i, wp.vec3)]
    wp.launch(side_queries, dim=n, inputs=[geo.side_arg_value()] + out)
    pos, nor, meas, inout, via_cell = (a.numpy() for a in out)
    index_of = {tuple(c): i for i, c in enumerate(grid_cells.tolist())}
    seen, bd = set(), set(geo.boundary_side_indices().tolist())
    for s in range(n):
        axis = int(np.argmax(np.abs(nor[s])))
        # the face's + cell ijk: the face lies on the plane ijk[axis] - 0.5 in voxel index space
        uvw = (pos[s] - np.asarray(ORIGIN)) / np.asarray(VOXEL) + 0.5
        # (float32 positions 5000 voxels out are good to ~1e-3 voxel: off-plane coordinates sit at
        # 0.25 / 0.75 of the voxel, far from the rounding)
        f = np.floor(uvw + 0.01).astype(int)
        f[axis] = int(np.round(uvw[axis]))
        seen.add((axis, tuple(f)))
        minus = f.copy()
        minus[axis] -= 1
        has_p, has_m = tuple(f) in index_of, tuple(minus) in index_of
        inner = index_of[tuple(minus)] if has_m else index_of[tuple(f)]
        outer = index_of[tuple(f)] if has_p else index_of[tuple(minus)]
        assert tuple(inout[s]) == (inner, outer)
        assert (s in bd) == (not (has_p and has_m))
        # unit normal along the axis, out of the inner cell
        expect = np.zeros(3)
        expect[axis] = 1.0 if has_m else -1.0
        np.testing.assert_allclose(nor[s], expect, atol=1e-6)
        np.testing.assert_allclose(meas[s], np.prod(VOXEL) / VOXEL[axis], rtol=1e-6)
        np.testing.assert_allclose(via_cell[s], pos[s], rtol=1e-6, atol=1e-5)
        np.testing.assert_allclose(uvw[axis], f[axis], rtol=1e-6, atol=1e-4)
        np.testing.assert_allclose(uvw - f, _side_point(axis, has_m), atol=2e-3)
    assert seen == faces


@fem.integrand
def monomial(s: fem.Sample, domain: fem.Domain, a: int, b: int, c: int):
    x = fem.position(domain, s)
    return wp.pow(x[0], float(a)) * wp.pow(x[1], float(b)) * wp.pow(x[2], float(c))


@fem.integrand
def x_dot_n(s: fem.Sample, domain: fem.Domain):
    return wp.dot(fem.position(domain, s), fem.normal(domain, s))


@pytest.mark.parametrize("a,b,c", [(0, 0, 0), (2, 1, 0), (1, 3, 2), (0, 0, 5)])
def test_integrals_of_monomials_are_exact(a, b, c):
    cells = voxel_set("negative")[:-3]
    geo = make_grid(cells)
    q = fem.RegularQuadrature(fem.Cells(geo), order=a + b + c)
    value = float(fem.integrate(monomial, quadrature=q, values={"a": a, "b": b, "c": c}))
    lo = world(cells)
    hi = lo + np.asarray(VOXEL)

    def prim(k, axis):
        return (hi[:, axis] ** (k + 1) - lo[:, axis] ** (k + 1)) / (k + 1)
    expect = float(np.sum(prim(a, 0) * prim(b, 1) * prim(c, 2)))
    assert value == pytest.approx(expect, rel=2e-5, abs=1e-6)
    # divergence theorem: the boundary integral of x . n is 3 |volume|
    flux = float(fem.integrate(x_dot_n, domain=fem.BoundarySides(geo)))
    assert flux == pytest.approx(3.0 * len(cells) * np.prod(VOXEL), rel=1e-5)


@wp.kernel
def lookup_points(arg: ng.NanogridCellArg, pts: wp.array(dtype=wp.vec3), max_dist: float,
                  cells: wp.array(dtype=int), coords: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    s = ng.nanogrid_cell_lookup(arg, pts[i], max_dist)
    cells[i] = s.element_index
    coords[i] = s.element_coords


@wp.kernel
def lookup_filtered(arg: ng.NanogridCellArg, pts: wp.array(dtype=wp.vec3), keep: wp.array(dtype=int),
                    cells: wp.array(dtype=int)):
    i = wp.tid()
    cells[i] = ng.nanogrid_cell_lookup(arg, pts[i], 2.0, keep, 1).element_index


def _closest_voxel_distances(cells, p):
    lo = world(cells)
    hi = lo + np.asarray(VOXEL)
    d = np.maximum(np.maximum(lo[None] - p[:, None], 0.0), p[:, None] - hi[None])
    return np.sqrt((d ** 2).sum(axis=2))                                 # (points, cells)


@pytest.mark.parametrize("case", ["random", "negative"])
def test_lookup_against_brute_force(case):
    cells = voxel_set(case)
    cells = cells[np.all(np.abs(cells) < 100, axis=1)]     # a compact set: the search box grows to max_dist
    geo = make_grid(cells)
    grid_cells = geo.cell_ijk.numpy()
    rng = np.random.default_rng(3)
    lo, hi = world(grid_cells).min(0) - 0.5, world(grid_cells).max(0) + 1.0
    p = lo + (hi - lo) * rng.random((300, 3))
    dist = _closest_voxel_distances(grid_cells, p)
    out_cells, out_coords = wp.empty(len(p), dtype=int), wp.empty(len(p), dtype=wp.vec3)
    pts = wp.array(p.astype(np.float32), dtype=wp.vec3)
    wp.launch(lookup_points, dim=len(p), inputs=[geo.cell_arg_value(), pts, 2.0, out_cells, out_coords])
    got, coords = out_cells.numpy(), out_coords.numpy()
    best = dist.min(axis=1)
    np.testing.assert_allclose(dist[np.arange(len(p)), got], best, atol=1e-5)
    inside = best == 0.0
    expect_coords = (p - world(grid_cells[got])) / np.asarray(VOXEL)
    np.testing.assert_allclose(coords[inside], expect_coords[inside], atol=1e-4)
    assert inside.any() and (~inside).any()
    # without a search radius, points outside every voxel find nothing
    wp.launch(lookup_points, dim=len(p), inputs=[geo.cell_arg_value(), pts, 0.0, out_cells, out_coords])
    far = best > 0.6 * max(VOXEL)
    assert (out_cells.numpy()[far] == fem.NULL_ELEMENT_INDEX).all()
    # a filter: only the cells flagged 1
    keep = (np.arange(len(grid_cells)) % 3 == 0).astype(np.int32)
    wp.launch(lookup_filtered, dim=len(p), inputs=[geo.cell_arg_value(), pts, wp.array(keep, dtype=int), out_cells])
    got = out_cells.numpy()
    assert (keep[got] == 1).all()
    np.testing.assert_allclose(dist[np.arange(len(p)), got], dist[:, keep == 1].min(axis=1), atol=1e-5)


@fem.integrand
def poly_k(s: fem.Sample, domain: fem.Domain, k: int):
    x = fem.position(domain, s)
    return wp.pow(x[0], float(k)) - 2.0 * wp.pow(x[1], float(k)) * x[2] + x[1] * x[0]


@fem.integrand
def poly_error(s: fem.Sample, domain: fem.Domain, u: fem.Field, k: int):
    e = u(s) - poly_k(s, domain, k)
    return e * e


@fem.integrand
def jump_squared(s: fem.Sample, u: fem.Field):
    j = fem.jump(u, s)
    return j * j


@pytest.mark.parametrize("degree,discontinuous", [(1, False), (2, False), (3, False), (2, True), (0, True)])
def test_spaces_hold_their_polynomials(degree, discontinuous):
    cells = voxel_set("L")
    geo = make_grid(cells)
    space = fem.make_polynomial_space(geo, degree=degree, discontinuous=discontinuous)
    verts, faces, _bd, edges = brute_topology(cells)
    e = degree - 1
    expect_nodes = (len(cells) * (degree + 1) ** 3 if discontinuous else
                    len(verts) + len(edges) * e + len(faces) * e * e + len(cells) * e ** 3)
    assert space.node_count() == (len(cells) if degree == 0 else expect_nodes)
    u = space.make_field()
    k = degree       # x^k - 2 y^k z + x y lies in Q_k
    fem.interpolate(poly_k, dest=u, values={"k": k})
    q = fem.RegularQuadrature(fem.Cells(geo), order=2 * degree + 2)
    if degree >= 1:
        assert float(fem.integrate(poly_error, quadrature=q, fields={"u": u}, values={"k": k})) < 1e-10
    if not discontinuous:   # continuous: no jumps across interior faces
        assert float(fem.integrate(jump_squared, domain=fem.Sides(geo), fields={"u": u})) < 1e-10
    # every node position maps back to the node's value
    x = space.node_positions().numpy().astype(np.float64)
    vals = x[:, 0] ** k - 2.0 * x[:, 1] ** k * x[:, 2] + x[:, 1] * x[:, 0]
    if degree >= 1:
        np.testing.assert_allclose(u.dof_values.numpy(), vals, atol=1e-4)


@pytest.mark.parametrize("degree", [1, 2])
def test_mass_matrix_symmetric_and_sums_to_the_volume(degree):
    geo = make_grid(voxel_set("L"))
    space = fem.make_polynomial_space(geo, degree=degree)
    fields = {"u": fem.make_trial(space), "v": fem.make_test(space)}
    M = to_scipy(fem.integrate(mass, fields=fields))
    K = to_scipy(fem.integrate(diffusion, fields=fields, values={"nu": 1.0}))
    volume = geo.cell_count() * np.prod(VOXEL)
    assert abs(M - M.T).max() < 1e-5 * abs(M).max()
    assert M.sum() == pytest.approx(volume, rel=1e-5)
    np.testing.assert_allclose(K @ np.ones(K.shape[0]), 0.0, atol=1e-3)


def unit_cube_grid(res):
    box = np.stack(np.meshgrid(*[np.arange(res)] * 3, indexing="ij"), -1).reshape(-1, 3)
    h = 1.0 / res
    return make_grid(box, voxel_size=h, origin=(0.5 * h,) * 3)


@pytest.mark.parametrize("degree,rate", [(1, 2.0), (2, 3.0)])
def test_poisson_converges_at_the_expected_order(degree, rate):
    resolutions = (3, 6)
    errors = [poisson3_l2_error(unit_cube_grid(r), degree) for r in resolutions]
    got = math.log(errors[0] / errors[1]) / math.log(resolutions[1] / resolutions[0])
    assert got == pytest.approx(rate, abs=0.35), (errors, got)


def test_rejects_what_is_not_supported():
    vol = wp.Volume.allocate_by_voxels(wp.array(np.zeros((1, 3), np.int32), dtype=wp.vec3i), voxel_size=1.0)
    with pytest.raises(NotImplementedError, match="float32"):
        fem.Nanogrid(vol, scalar_type=wp.float64)
    with pytest.raises(NotImplementedError, match="degree 1 to 3"):
        fem.make_polynomial_space(fem.Nanogrid(vol), degree=4)


@wp.func
def voxel_index_at(x: wp.vec3, volume: wp.uint64):
    uvw = wp.volume_world_to_index(volume, x)
    return float(wp.volume_lookup_index(volume, int(wp.round(uvw[0])), int(wp.round(uvw[1])), int(wp.round(uvw[2]))))


@fem.integrand
def implicit_value(s: fem.Sample, f: fem.Field):
    return f(s)


@fem.integrand
def generalized_mass(s: fem.Sample, u: fem.Field, v: fem.Field):
    return fem.linalg.generalized_inner(u(s), v(s))


def test_implicit_field_takes_a_volume_id_and_generalized_inner():
    """An ImplicitField value typed wp.uint64 by its function (a volume id, which overflows an
    int32) reaches the function intact: the field reads each cell's own voxel index; and
    fem.linalg.generalized_inner is dot for vectors, a product for scalars."""
    cells = voxel_set("L")
    geo = make_grid(cells)
    vol = geo.cell_grid
    assert vol.id >= 2 ** 31
    f = fem.ImplicitField(domain=fem.Cells(geo), func=voxel_index_at, values={"volume": vol.id})
    got = float(fem.integrate(implicit_value, domain=fem.Cells(geo), fields={"f": f}))
    n = geo.cell_count()
    assert got == pytest.approx(np.prod(VOXEL) * n * (n - 1) / 2, rel=1e-5)
    for dtype, comps in ((float, 1), (wp.vec3, 3)):
        space = fem.make_polynomial_space(geo, degree=1, dtype=dtype)
        M = to_scipy(fem.integrate(generalized_mass, fields={"u": fem.make_trial(space), "v": fem.make_test(space)},
                                   output_dtype=float))
        assert M.sum() == pytest.approx(comps * n * np.prod(VOXEL), rel=1e-5)
