"""Operators that move samples between sides and cells, and the side-level queries:
``fem.to_inner_cell``, ``fem.to_outer_cell``, ``fem.to_cell_side``, ``fem.element_coordinates``
on a sides domain, and ``Geometry._element_measure`` / ``_element_normal`` (the measure and
unit normal that a deformation gradient spans).

A side's coordinates of a world position are found by Gauss-Newton steps with the side's
deformation gradient (a tangent vector, or a 3 x 2 matrix of tangents): exact in one step on
straight sides, a few on the bilinear faces of hexes. ``to_cell_side`` maps a cell sample that
lies on a side through its world position, so it serves every geometry alike."""

import functools
from typing import Any

from .. import _api as wp
from ..types import make_free_sample
from .lookup import reference_maps

_ITERATIONS = 8
_STEP_EPS = float(2.0 ** -40)

_mat32 = wp.types.matrix((3, 2), wp.float32)


@wp.func
def element_measure(F: wp.vec2):
    return wp.length(F)


@wp.func
def element_measure(F: wp.vec3):  # noqa: F811
    return wp.length(F)


@wp.func
def element_measure(F: wp.mat22):  # noqa: F811
    return wp.abs(wp.determinant(F))


@wp.func
def element_measure(F: wp.mat33):  # noqa: F811
    return wp.abs(wp.determinant(F))


@wp.func
def element_measure(F: _mat32):  # noqa: F811
    return wp.length(wp.cross(wp.vec3(F[0, 0], F[1, 0], F[2, 0]), wp.vec3(F[0, 1], F[1, 1], F[2, 1])))


@wp.func
def element_normal(F: wp.vec2):
    return wp.normalize(wp.vec2(F[1], -F[0]))


@wp.func
def element_normal(F: _mat32):  # noqa: F811
    return wp.normalize(wp.cross(wp.vec3(F[0, 0], F[1, 0], F[2, 0]), wp.vec3(F[0, 1], F[1, 1], F[2, 1])))


@functools.lru_cache(maxsize=None)
def side_coordinates_func(geo_cls):
    """``fem.element_coordinates(sides, side, pos)``: the side's coordinates of the point of its
    (extended) side closest to ``pos``."""
    position, grad = geo_cls.side_position, geo_cls.side_deformation_gradient
    if geo_cls.reference_side_shape == "segment":
        @wp.func
        def segment_coordinates(arg: geo_cls.SideArg, side: int, pos: Any):
            t = wp.real(0.5)
            for _k in range(_ITERATIONS):
                s = make_free_sample(side, wp.vec3(t, 0.0, 0.0))
                F = grad(arg, s)
                dt = wp.dot(F, pos - position(arg, s)) / wp.dot(F, F)
                t = t + dt
                if dt * dt < _STEP_EPS:
                    break
            return wp.vec3(t, 0.0, 0.0)
        return segment_coordinates

    _P, _to_params, to_coords, _project, center = reference_maps(geo_cls.reference_side_shape)

    @wp.func
    def face_coordinates(arg: geo_cls.SideArg, side: int, pos: Any):
        p = center
        for _k in range(_ITERATIONS):
            s = make_free_sample(side, to_coords(p))
            F = grad(arg, s)
            Ft = wp.transpose(F)
            dp = wp.inverse(Ft * F) * (Ft * (pos - position(arg, s)))
            p = p + dp
            if wp.length_sq(dp) < _STEP_EPS:
                break
        return to_coords(p)
    return face_coordinates


@functools.lru_cache(maxsize=None)
def side_cell_ops(geo_cls):
    """{operator name: func} of the side-to-cell and cell-to-side moves."""
    inner, outer = geo_cls.side_inner_cell_index, geo_cls.side_outer_cell_index
    inner_coords, outer_coords = geo_cls.side_inner_cell_coords, geo_cls.side_outer_cell_coords
    cell_position = geo_cls.cell_position
    coordinates = side_coordinates_func(geo_cls)

    @wp.func
    def to_inner_cell(arg: geo_cls.SideArg, s: Any):
        e = s.element_index
        return make_free_sample(inner(arg, e), inner_coords(arg, e, s.element_coords))

    @wp.func
    def to_outer_cell(arg: geo_cls.SideArg, s: Any):
        e = s.element_index
        return make_free_sample(outer(arg, e), outer_coords(arg, e, s.element_coords))

    @wp.func
    def to_cell_side(arg: geo_cls.SideArg, cell_s: Any, side: int):
        return make_free_sample(side, coordinates(arg, side, cell_position(arg.cell, cell_s)))
    return {"to_inner_cell": to_inner_cell, "to_outer_cell": to_outer_cell, "to_cell_side": to_cell_side,
            "element_coordinates": coordinates}
