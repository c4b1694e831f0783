"""Moving samples between sides and cells (``fem.to_inner_cell``, ``fem.to_outer_cell``,
``fem.to_cell_side``), side coordinates of world positions (``fem.element_coordinates`` on
sides), and ``fem.Geometry._element_measure`` / ``_element_normal`` on every geometry: the
side and cell maps must agree on world positions, round trips must give the coordinates back,
and the measures spanned by the deformation gradients must add up to the sides' total measure
computed in NumPy from the vertex positions (straight sides) or agree with ``fem.measure``
(the bilinear faces of a distorted hex mesh)."""

import numpy as np
import pytest

import warp_interactive as wp
import warp_interactive.fem as fem

from tests.fem.test_fem_lookup import make_mesh


@fem.integrand(kernel_options={"enable_backward": False})
def side_checks(s: fem.Sample, domain: fem.Domain, ref_measure: float, err: wp.array(dtype=float),
                total: wp.array(dtype=float)):
    cells = fem.cells(domain)
    inner_s = fem.to_inner_cell(domain, s)
    outer_s = fem.to_outer_cell(domain, s)
    x = domain(s)
    wp.atomic_max(err, 0, wp.length(cells(inner_s) - x))
    wp.atomic_max(err, 1, wp.length(cells(outer_s) - x))
    back_in = fem.to_cell_side(domain, inner_s, s.element_index)
    back_out = fem.to_cell_side(domain, outer_s, s.element_index)
    wp.atomic_max(err, 2, wp.max(wp.length(back_in.element_coords - s.element_coords),
                                 wp.length(back_out.element_coords - s.element_coords)))
    wp.atomic_max(err, 3, wp.length(fem.element_coordinates(domain, s.element_index, x) - s.element_coords))
    F = fem.deformation_gradient(domain, s)
    area = fem.measure(domain, s)
    wp.atomic_max(err, 4, wp.abs(fem.Geometry._element_measure(F) * ref_measure - area))
    wp.atomic_add(total, 0, area * s.qp_weight)


@fem.integrand(kernel_options={"enable_backward": False})
def normal_checks(s: fem.Sample, domain: fem.Domain, err: wp.array(dtype=float)):
    F = fem.deformation_gradient(domain, s)
    n = fem.Geometry._element_normal(F)
    wp.atomic_max(err, 0, wp.length(n - fem.normal(domain, s)))
    wp.atomic_max(err, 1, 1.0 - wp.abs(wp.dot(n, fem.normal(domain, s))))


def _side_total_numpy(kind, cells, pos):
    """Sum over unique facets of their measures (segments' lengths, triangles' areas)."""
    if kind == "tri":
        facets = {tuple(sorted(e)) for c in cells for e in ((c[0], c[1]), (c[1], c[2]), (c[2], c[0]))}
        return sum(np.linalg.norm(pos[a] - pos[b]) for a, b in facets)
    facets = {tuple(sorted(c[[i for i in range(4) if i != k]])) for c in cells for k in range(4)}
    return sum(0.5 * np.linalg.norm(np.cross(pos[b] - pos[a], pos[c] - pos[a])) for a, b, c in facets)


def _grid(kind):
    if kind == "grid2":
        return fem.Grid2D(res=wp.vec2i(3, 2), bounds_lo=wp.vec2(0.5, -1.0), bounds_hi=wp.vec2(2.0, 1.0))
    return fem.Grid3D(res=wp.vec3i(2, 3, 2), bounds_lo=wp.vec3(0.0, 1.0, 0.0), bounds_hi=wp.vec3(1.0, 2.5, 0.5))


def _grid_side_total(geo):
    lo, hi, res = np.array(geo.bounds_lo), np.array(geo.bounds_hi), np.array(geo.res)
    h = (hi - lo) / res
    d = len(res)
    total = 0.0
    for axis in range(d):
        others = [a for a in range(d) if a != axis]
        count = (res[axis] + 1) * np.prod(res[others])
        total += count * np.prod(h[others])
    return total


@pytest.mark.parametrize("kind", ["grid2", "grid3", "tri", "quad", "tet", "hex"])
def test_side_cell_moves_coordinates_and_measures(kind):
    if kind.startswith("grid"):
        geo = _grid(kind)
        want_total = _grid_side_total(geo)
    else:
        geo, cells, pos = make_mesh(kind, res=3)
        want_total = _side_total_numpy(kind, cells, pos) if kind in ("tri", "tet") else None
    err = wp.zeros(5, dtype=float)
    total = wp.zeros(1, dtype=float)
    quadrature = fem.RegularQuadrature(fem.Sides(geo), order=2)
    fem.interpolate(side_checks, at=quadrature,
                    values={"ref_measure": geo.reference_side().prototype.measure(), "err": err, "total": total})
    e = err.numpy()
    np.testing.assert_array_less(e[:4], 2e-5)
    np.testing.assert_array_less(e[4], 2e-6)
    if want_total is not None:
        np.testing.assert_allclose(total.numpy()[0], want_total, rtol=2e-6)
    nerr = wp.zeros(2, dtype=float)
    fem.interpolate(normal_checks, at=quadrature, values={"err": nerr})
    # grid sides' coordinates run along +axis whichever way the normal points (warp-lang flips
    # some, so that its tangent always turns into the normal): there they are parallel only
    assert nerr.numpy()[1 if kind.startswith("grid") else 0] < 2e-6


def test_side_coordinates_of_points_off_the_side_are_their_projections():
    """On a straight side, element_coordinates gives the orthogonal projection's coordinates
    (the Gauss-Newton step is a least-squares solve), checked against NumPy."""
    geo, cells, pos = make_mesh("tet", res=2)

    @fem.integrand(kernel_options={"enable_backward": False})
    def off_side(s: fem.Sample, domain: fem.Domain, offset: wp.vec3, out: wp.array(dtype=wp.vec3),
                 xs: wp.array(dtype=wp.vec3)):
        if s.element_index == 0 and s.qp_index == 0:
            out[0] = fem.element_coordinates(domain, 0, domain(s) + offset)
            xs[0] = domain(s)

    out = wp.zeros(1, dtype=wp.vec3)
    xs = wp.zeros(1, dtype=wp.vec3)
    offset = np.array([0.3, -0.2, 0.1], dtype=np.float32)
    fem.interpolate(off_side, at=fem.RegularQuadrature(fem.Sides(geo), order=1),
                    values={"offset": wp.vec3(*offset), "out": out, "xs": xs})
    face = geo.face_vertex_indices.numpy()[0] if hasattr(geo, "face_vertex_indices") else None
    p = pos[face]
    F = np.stack([p[1] - p[0], p[2] - p[0]], axis=1)
    target = xs.numpy()[0].astype(np.float64) + offset
    params = np.linalg.lstsq(F, target - p[0], rcond=None)[0]
    np.testing.assert_allclose(out.numpy()[0], [1.0 - params.sum(), params[0], params[1]], atol=2e-6)
