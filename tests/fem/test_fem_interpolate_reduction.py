"""``fem.interpolate(..., dest=field, reduction=...)``: how the values of the elements sharing a
node combine, against a NumPy loop over a mesh of rectangles of different sizes (so that
"weighted_average", warp-lang's default, differs from "mean")."""

import numpy as np
import pytest

import warp_interactive as wp
import warp_interactive.fem as fem

XS = np.array([0.0, 0.1, 0.4, 1.0])      # three columns of widths 0.1, 0.3, 0.6
YS = np.array([0.0, 0.5, 2.0])           # two rows of heights 0.5, 1.5


@fem.integrand
def cell_value(s: fem.Sample):
    return float(3 * s.element_index % 5) - 1.5


def _mesh():
    X, Y = np.meshgrid(XS, YS, indexing="ij")
    pos = np.stack([X.ravel(), Y.ravel()], 1)
    quads = fem.utils.grid_to_quads(len(XS) - 1, len(YS) - 1)
    return fem.Quadmesh2D(wp.array(quads, dtype=int), wp.array(pos, dtype=wp.vec2)), pos, quads


def _expected(reduction, pos, quads):
    value = (3 * np.arange(len(quads)) % 5) - 1.5
    corners = pos[quads]
    area = np.ptp(corners[..., 0], axis=1) * np.ptp(corners[..., 1], axis=1)
    out = np.zeros(len(pos))
    for node in range(len(pos)):
        cells = [c for c in range(len(quads)) if node in quads[c]]
        v, w = value[cells], area[cells]
        out[node] = {"weighted_average": (v * w).sum() / w.sum(), "mean": v.mean(), "sum": v.sum(),
                     "max": v.max(), "min": v.min(), "first": v[0]}[reduction]
    return out


@pytest.mark.parametrize("reduction", ["weighted_average", "mean", "sum", "max", "min", "first"])
def test_interpolate_reduction_matches_numpy(reduction):
    geo, pos, quads = _mesh()
    field = fem.make_polynomial_space(geo, degree=1).make_field()
    field.dof_values.fill_(123.0)
    fem.interpolate(cell_value, dest=field, reduction=reduction)
    np.testing.assert_allclose(field.dof_values.numpy(), _expected(reduction, pos, quads), rtol=1e-6)


def test_default_reduction_is_weighted_average():
    geo, pos, quads = _mesh()
    field = fem.make_polynomial_space(geo, degree=1).make_field()
    fem.interpolate(cell_value, dest=field)
    np.testing.assert_allclose(field.dof_values.numpy(), _expected("weighted_average", pos, quads), rtol=1e-6)
    assert not np.allclose(_expected("weighted_average", pos, quads), _expected("mean", pos, quads))


def test_unknown_reduction_is_refused():
    geo, _pos, _quads = _mesh()
    field = fem.make_polynomial_space(geo, degree=1).make_field()
    with pytest.raises(ValueError, match="reduction must be one of 'weighted_average'.*got 'median'"):
        fem.interpolate(cell_value, dest=field, reduction="median")


def test_interpolate_takes_warp_lang_1_19_arguments():
    geo, _pos, _quads = _mesh()
    field = fem.make_polynomial_space(geo, degree=1).make_field()
    with pytest.raises(TypeError, match="unexpected keyword argument 'domain'"):
        fem.interpolate(cell_value, dest=field, domain=fem.Cells(geo))
    with pytest.raises(TypeError, match="unexpected keyword argument 'quadrature'"):
        fem.interpolate(cell_value, dest=field, quadrature=fem.RegularQuadrature(fem.Cells(geo), order=1))
    fem.interpolate(cell_value, dest=field, at=fem.Cells(geo))      # the domain goes as ``at``
