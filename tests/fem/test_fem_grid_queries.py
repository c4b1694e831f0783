"""Grid lookups with a distance and a cell filter against a NumPy brute force, and grid sides
oriented as warp-lang's (the normal is the side's tangent turned clockwise, so
``fem.Geometry._element_normal(F)`` equals ``fem.normal``), with side and cell positions that
agree."""

import numpy as np
import pytest

import warp_interactive as wp
import warp_interactive.fem as fem


@fem.integrand
def lookup_2d(s: fem.Sample, domain: fem.Domain, points: wp.array(dtype=wp.vec2), keep: wp.array(dtype=int),
              max_dist: float, cells: wp.array(dtype=int), found: wp.array(dtype=wp.vec2)):
    i = s.qp_index
    r = fem.lookup(domain, points[i], max_dist, keep, 1)
    cells[i] = r.element_index
    if r.element_index != fem.NULL_ELEMENT_INDEX:
        found[i] = domain(r)


@fem.integrand
def lookup_3d(s: fem.Sample, domain: fem.Domain, points: wp.array(dtype=wp.vec3), keep: wp.array(dtype=int),
              max_dist: float, cells: wp.array(dtype=int), found: wp.array(dtype=wp.vec3)):
    i = s.qp_index
    r = fem.lookup(domain, points[i], max_dist, keep, 1)
    cells[i] = r.element_index
    if r.element_index != fem.NULL_ELEMENT_INDEX:
        found[i] = domain(r)


def brute_force(points, lo, size, res, keep, max_dist):
    """(cell, closest point) by warp-lang's rule: the cell holding the clamped point if kept,
    else the closest kept cell (box distance) when within max(0.5, ceil(max_dist / h)) * h of
    the point (the search box's last half-width), else none."""
    res = np.asarray(res)
    h = size.min()
    idx = np.stack(np.meshgrid(*[np.arange(r) for r in res], indexing="ij"), -1).reshape(-1, len(res))
    flat = np.ravel_multi_index(idx.T, res)
    cell_lo = lo + idx * size
    reach = h * max(0.5, np.ceil(max_dist / h))
    out = []
    for p in points:
        home = np.minimum(np.floor(np.clip((p - lo) / size, 0, res)), res - 1).astype(int)
        home_flat = np.ravel_multi_index(home, res)
        if keep[home_flat]:
            out.append((home_flat, np.clip(p, lo, lo + res * size)))
            continue
        closest = np.clip(p, cell_lo, cell_lo + size)
        d = np.linalg.norm(closest - p, axis=1)
        d[~keep[flat]] = np.inf
        k = int(np.argmin(d))
        out.append((int(flat[k]), closest[k]) if d[k] <= reach else (-1, None))
    return out


@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("max_dist", [0.0, 0.3, 10.0])
def test_filtered_grid_lookup_matches_brute_force(dim, max_dist):
    rng = np.random.default_rng(dim * 10 + int(max_dist * 10))
    res = (5, 3) if dim == 2 else (4, 3, 2)
    lo = np.array([0.5, -1.0, 0.25][:dim])
    hi = lo + np.array([2.0, 1.2, 0.7][:dim])
    V = wp.vec2 if dim == 2 else wp.vec3
    geo = (fem.Grid2D if dim == 2 else fem.Grid3D)(wp.types.vector(dim, int)(*res), bounds_lo=V(*lo), bounds_hi=V(*hi))
    size = (hi - lo) / np.array(res)
    keep = (rng.random(int(np.prod(res))) < 0.3).astype(np.int32)
    keep[0] = 1
    points = rng.uniform(lo - 0.3, hi + 0.3, size=(64, dim)).astype(np.float32)
    n = len(points)
    cells = wp.zeros(n, dtype=int)
    found = wp.zeros(n, dtype=V)
    fem.interpolate(lookup_2d if dim == 2 else lookup_3d, dim=n, at=fem.Cells(geo),
                    values={"points": wp.array(points, dtype=V), "keep": wp.array(keep, dtype=int),
                            "max_dist": max_dist, "cells": cells, "found": found})
    expected = brute_force(points.astype(np.float64), lo, size, res, keep.astype(bool), max_dist)
    got_cells, got_pos = cells.numpy(), found.numpy()
    for i, (cell, pos) in enumerate(expected):
        assert got_cells[i] == cell, (i, points[i])
        if cell >= 0:
            np.testing.assert_allclose(got_pos[i], pos, atol=2e-6)


@fem.integrand
def side_frames(s: fem.Sample, domain: fem.Domain, normals: wp.array(dtype=wp.vec2),
                crossed: wp.array(dtype=wp.vec2), gaps: wp.array(dtype=float)):
    i = s.qp_index
    normals[i] = fem.normal(domain, s)
    crossed[i] = fem.Geometry._element_normal(fem.deformation_gradient(domain, s))
    cells = fem.cells(domain)
    x = domain(s)
    inner = cells(fem.to_inner_cell(domain, s))
    outer = cells(fem.to_outer_cell(domain, s))
    gaps[i] = wp.max(wp.length(inner - x), wp.length(outer - x))


def test_grid2d_sides_are_oriented_as_warp_lang():
    geo = fem.Grid2D(wp.vec2i(3, 2), bounds_lo=wp.vec2(-1.0, 0.0), bounds_hi=wp.vec2(2.0, 0.5))
    quadrature = fem.RegularQuadrature(fem.Sides(geo), order=2)
    n = quadrature.total_point_count()
    normals, crossed, gaps = wp.zeros(n, dtype=wp.vec2), wp.zeros(n, dtype=wp.vec2), wp.zeros(n, dtype=float)
    fem.interpolate(side_frames, at=quadrature, values={"normals": normals, "crossed": crossed, "gaps": gaps})
    np.testing.assert_allclose(crossed.numpy(), normals.numpy(), atol=1e-6)
    np.testing.assert_allclose(gaps.numpy(), 0.0, atol=1e-6)
    # the boundary normals point outwards: -x at x = -1, +y at y = 0.5
    sides = np.repeat(np.arange(geo.side_count()), n // geo.side_count())
    nrm = normals.numpy()
    x_sides = sides < 4 * 2
    assert {tuple(v) for v in nrm[x_sides & (sides < 2)]} == {(-1.0, 0.0)}
    assert {tuple(v) for v in nrm[~x_sides & (sides >= geo.side_count() - 3)]} == {(0.0, 1.0)}
