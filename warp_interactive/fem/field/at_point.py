"""Test and trial functions evaluated once per quadrature point.

An integral's kernel assembles a block of ``test components x trial components`` entries per
pair of nodes and quadrature point, calling the integrand once per entry; each call evaluates
the test and trial basis functions again (``u(s)``, ``grad``, ``div``, ``D``... each once). So
the kernel evaluates the two nodes' shape weights and world gradients once per quadrature
point (``at(f, s, node)``) into a struct of their own type, which the integrand receives in
place of the test/trial field: its operators pick the component the sample's dof names from
these values. A sample other than the one they were taken at (another element, coordinates or
node: an integrand that moves the sample) is evaluated from scratch, as without the cache, so
the values are the same bits either way.

Two-sided elements (DG spaces on sides) keep the plain field (``at`` returns it unchanged)."""

import functools
from typing import Any

from .. import _api as wp

from .evaluation import _dof_of, basis_parts, value_makers
from .structs import make_struct


def value_types(dim):
    """The types of a basis function's shape weight and world gradient at a point."""
    return wp.float32, (wp.vec2 if dim == 2 else wp.vec3)


@functools.lru_cache(maxsize=None)
def point_struct(name, element_arg, dim):
    """The struct an integrand receives for a test/trial field at one quadrature point."""
    W, GV = value_types(dim)
    return make_struct(name, {"elt": element_arg, "element": int, "node": int, "coords": wp.vec3,
                              "w": W, "g": GV})


@wp.func
def _same_point(f: Any, s: Any, node: int):
    return f


def unchanged():
    """``at`` of a field evaluated without the cache."""
    return _same_point


@functools.lru_cache(maxsize=None)
def point_funcs(el_items, dtype, geometry_cls, dof, PS, mapper=None):
    """at(f, s, node) -> PS, and value(p, s), grad(p, s) of the basis function from ``PS``."""
    basis_value, basis_grad, _z, _zg, _o = value_makers(dtype, geometry_cls.dimension, mapper)
    weight_at, world_grad_at = basis_parts(el_items, geometry_cls)
    get_dof = _dof_of(dof)

    @wp.func
    def at(f: Any, s: Any, node: int):
        p = PS()
        p.elt = f.elt
        p.element = s.element_index
        p.node = node
        p.coords = s.element_coords
        p.w = weight_at(f, s, node)
        p.g = world_grad_at(f, s, node)
        return p

    @wp.func
    def taken_at(p: Any, s: Any, node: int):
        c = s.element_coords
        return (s.element_index == p.element and node == p.node and c[0] == p.coords[0]
                and c[1] == p.coords[1] and c[2] == p.coords[2])

    @wp.func
    def value(p: Any, s: Any):
        d = get_dof(s)
        if taken_at(p, s, d[0]):
            return basis_value(p.w, d[1])
        return basis_value(weight_at(p, s, d[0]), d[1])

    @wp.func
    def grad(p: Any, s: Any):
        d = get_dof(s)
        if taken_at(p, s, d[0]):
            return basis_grad(p.g, d[1])
        return basis_grad(world_grad_at(p, s, d[0]), d[1])

    # what the bilinear dispatch assembly (fem/dispatch.py) needs to evaluate integrands on unit
    # weights/gradients instead: a field whose ``at`` lacks this is assembled the generic way
    at.taylor = (dtype, geometry_cls.dimension, dof, mapper)
    return at, value, grad
