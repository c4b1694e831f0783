"""Evaluation of fields of vector-valued (Raviart-Thomas, Nedelec) spaces: each node's shape
function is a reference vector ``weight(coords, n)`` mapped to world space by the space's
Piola map (``el["value_map"]``), times the node's scalar dof; gradients are the mapped
reference gradients times the cell's inverse deformation gradient (the map is taken as
constant over the cell, as warp-lang does)."""

import functools
from typing import Any

from .. import _api as wp

from ..types import make_free_sample
from .evaluation import _dof_of


@functools.lru_cache(maxsize=None)
def basis_funcs(el_items, geometry_cls, dof):
    """value(f, s), grad(f, s) of the test or trial basis function the sample's dof names."""
    el = dict(el_items)
    to_cell, cell_arg, cell_node = el["to_cell"], el["cell_arg"], el["cell_node"]
    weight, weight_gradient, value_map = el["weight"], el["weight_gradient"], el["value_map"]
    inv_jac = geometry_cls.cell_inverse_deformation_gradient
    get_dof = _dof_of(dof)

    @wp.func
    def value(f: Any, s: Any):
        d = get_dof(s)
        cell, cc = to_cell(f.elt, s.element_index, s.element_coords)
        n = cell_node(f.elt, s.element_index, d[0])
        return value_map(cell_arg(f.elt), cell, cc) * weight(cc, n)

    @wp.func
    def grad(f: Any, s: Any):
        d = get_dof(s)
        cell, cc = to_cell(f.elt, s.element_index, s.element_coords)
        n = cell_node(f.elt, s.element_index, d[0])
        ca = cell_arg(f.elt)
        return value_map(ca, cell, cc) * weight_gradient(cc, n) * inv_jac(ca, make_free_sample(cell, cc))

    return value, grad


@functools.lru_cache(maxsize=None)
def discrete_funcs(el_items, geometry_cls, side="to_cell"):
    """value(f, s), grad(f, s) of a discrete field (scalar dofs ``f.dofs``)."""
    el = dict(el_items)
    to_cell, cell_arg = el[side], el["cell_arg"]
    weight, weight_gradient, value_map = el["weight"], el["weight_gradient"], el["value_map"]
    node_index = el["cell_node_index"]
    NODES = el["cell_node_count"]
    inv_jac = geometry_cls.cell_inverse_deformation_gradient

    @wp.func
    def value(f: Any, s: Any):
        cell, cc = to_cell(f.elt, s.element_index, s.element_coords)
        ca = cell_arg(f.elt)
        w = wp.vec3(0.0)
        for n in range(NODES):
            w += f.dofs[node_index(ca, cell, n)] * weight(cc, n)
        return value_map(ca, cell, cc) * w

    @wp.func
    def grad(f: Any, s: Any):
        cell, cc = to_cell(f.elt, s.element_index, s.element_coords)
        ca = cell_arg(f.elt)
        g = wp.mat33(0.0)
        for n in range(NODES):
            g += f.dofs[node_index(ca, cell, n)] * weight_gradient(cc, n)
        return value_map(ca, cell, cc) * g * inv_jac(ca, make_free_sample(cell, cc))

    return value, grad


@functools.lru_cache(maxsize=None)
def to_dof_func(el_items):
    """to_dof(elt_arg, element, coords, m, value): the dof of node ``m`` of the element that
    ``value`` (a world vector at the node) gives: the pulled-back vector's component along the
    node's reference direction (its shape function at the node)."""
    el = dict(el_items)
    to_cell, cell_arg, cell_node = el["to_cell"], el["cell_arg"], el["cell_node"]
    weight, inverse_map = el["weight"], el["inverse_map"]

    @wp.func
    def to_dof(elt_arg: Any, element: int, coords: wp.vec3, m: int, value: Any):
        cell, cc = to_cell(elt_arg, element, coords)
        n = cell_node(elt_arg, element, m)
        return wp.dot(inverse_map(cell_arg(elt_arg), cell, cc) * value, weight(cc, n))

    return to_dof
