"""The @wp.funcs that evaluate fields at samples, made per space element and value type.

``el`` is a space's element table (space/grid_space.py): how a domain element and its nodes
map to a cell, cell coordinates, cell-local nodes and global nodes. Values are sums over the
cell's nodes of shape-function weights times node values; gradients use the weights'
gradients by element coordinates times the cell's inverse deformation gradient."""

import functools
from typing import Any

from .. import _api as wp

from ..linalg import skew_part
from ..types import Sample, make_free_sample


def _is_vector(dtype):
    return getattr(dtype, "_length_", None) is not None and getattr(dtype, "_kind_", None) == "vector"


@functools.lru_cache(maxsize=None)
def value_makers(dtype, dim, mapper=None):
    """(basis value of component c with weight w, basis gradient of component c, zero value,
    zero gradient) for ``dtype`` values in ``dim`` dimensions; with a dof ``mapper``, component
    ``c`` is the mapped value of the ``c``-th unit dof."""
    GV = wp.vec2 if dim == 2 else wp.vec3
    if mapper is not None and not _is_identity(mapper):
        return _mapped_value_makers(mapper)
    if getattr(dtype, "_kind_", None) == "matrix":
        return _matrix_value_makers(dtype)
    if not _is_vector(dtype):
        @wp.func
        def basis_value(w: float, c: int):
            return w

        @wp.func
        def basis_grad(g: Any, c: int):
            return g

        @wp.func
        def zero_value():
            return wp.real(0.0)

        @wp.func
        def zero_grad():
            return GV(0.0)

        @wp.func
        def node_outer(v: float, g: Any):
            return v * g
    else:
        DT = dtype
        L = dtype._length_
        GM = wp.types.matrix(shape=(L, dim), dtype=wp.float32)

        @wp.func
        def basis_value(w: float, c: int):
            # each entry selected (an unrolled loop of constant indices), not v[c] = w: a store
            # at a run-time index read back as a whole vector stalls the CPU on every call
            v = DT(0.0)
            for i in range(L):
                v[i] = wp.where(i == c, w, 0.0)
            return v

        @wp.func
        def basis_grad(g: Any, c: int):
            return wp.outer(basis_value(1.0, c), g)

        @wp.func
        def zero_value():
            return DT(0.0)

        @wp.func
        def zero_grad():
            return GM(0.0)

        @wp.func
        def node_outer(v: Any, g: Any):
            return wp.outer(v, g)
    return basis_value, basis_grad, zero_value, zero_grad, node_outer


def _is_identity(mapper):
    return mapper.dof_dtype == mapper.value_dtype


@functools.lru_cache(maxsize=None)
def _mapped_value_makers(mapper):
    """Fields of a space with a dof mapper (tensor values from fewer dofs): no gradients."""
    D = mapper.dof_dtype
    to_value = mapper.dof_to_value
    zero_dof, unit_dof = dof_makers(D)

    @wp.func
    def basis_value(w: float, c: int):
        return to_value(unit_dof(w, c))

    @wp.func
    def zero_value():
        return to_value(zero_dof())

    return basis_value, None, zero_value, None, None


@functools.lru_cache(maxsize=None)
def dof_makers(D):
    """zero() and unit(w, c) (component ``c`` set to ``w``) of the node value type ``D``."""
    N = getattr(D, "_length_", 1)

    @wp.func
    def zero():
        return D(0.0)

    if N == 1:
        @wp.func
        def unit(w: float, c: int):
            return D(w)
    else:
        @wp.func
        def unit(w: float, c: int):
            v = D(0.0)
            for i in range(N):
                v[i] = wp.where(i == c, w, 0.0)
            return v
    return zero, unit


def _matrix_value_makers(dtype):
    """Matrix-valued fields (a stress tensor): component ``c`` is entry ``(c // cols, c % cols)``.
    Their gradients (third-order tensors) are not offered."""
    DT = dtype
    R, C = dtype._shape_

    @wp.func
    def basis_value(w: float, c: int):
        v = DT(0.0)
        for i in range(R):
            for j in range(C):
                v[i, j] = wp.where(i * C + j == c, w, 0.0)
        return v

    @wp.func
    def zero_value():
        return DT(0.0)

    return basis_value, None, zero_value, None, None


def _inverse_jacobian(geometry):
    return geometry.cell_inverse_deformation_gradient


@functools.lru_cache(maxsize=None)
def basis_parts(el_items, geometry_cls):
    """weight(f, s, node), world_grad(f, s, node): a basis function's shape weight and its
    gradient in world coordinates (no value component yet) at a sample."""
    el = dict(el_items)
    to_cell, cell_arg, cell_node = el["to_cell"], el["cell_arg"], el["cell_node"]
    weight, weight_gradient = el["weight"], el["weight_gradient"]
    inv_jac = geometry_cls.cell_inverse_deformation_gradient

    @wp.func
    def weight_at(f: Any, s: Any, node: int):
        cell, cc = to_cell(f.elt, s.element_index, s.element_coords)
        return weight(cc, cell_node(f.elt, s.element_index, node))

    @wp.func
    def world_grad_at(f: Any, s: Any, node: int):
        cell, cc = to_cell(f.elt, s.element_index, s.element_coords)
        g = weight_gradient(cc, cell_node(f.elt, s.element_index, node))
        return g * inv_jac(cell_arg(f.elt), make_free_sample(cell, cc))

    return weight_at, world_grad_at


@functools.lru_cache(maxsize=None)
def basis_funcs(el_key, el_items, dtype, geometry_cls, dof, mapper=None):
    """value(f, s), grad(f, s) of the test (``dof == "test"``) or trial basis function that the
    sample's dof index names."""
    basis_value, basis_grad, _z, _zg, _o = value_makers(dtype, geometry_cls.dimension, mapper)
    weight_at, world_grad_at = basis_parts(el_items, geometry_cls)
    get_dof = _dof_of(dof)

    @wp.func
    def value(f: Any, s: Any):
        d = get_dof(s)
        return basis_value(weight_at(f, s, d[0]), d[1])

    @wp.func
    def grad(f: Any, s: Any):
        d = get_dof(s)
        return basis_grad(world_grad_at(f, s, d[0]), d[1])

    return value, grad


@functools.lru_cache(maxsize=None)
def dof_reader(dof_dtype, partitioned):
    """read(f, node): the value of a space node. On a space partition ``f.dofs`` holds the
    partition's nodes only, ``f.to_local`` maps space nodes to them, and nodes outside the
    partition read zero (as warp-lang's partitioned fields)."""
    if not partitioned:
        @wp.func
        def read(f: Any, node: int):
            return f.dofs[node]
        return read
    zero = dof_makers(dof_dtype)[0]

    @wp.func
    def read(f: Any, node: int):  # noqa: F811
        local = f.to_local[node]
        if local < 0:
            return zero()
        return f.dofs[local]
    return read


@functools.lru_cache(maxsize=None)
def discrete_funcs(el_key, el_items, dtype, geometry_cls, side="to_cell", mapper=None, partitioned=False):
    """value(f, s), grad(f, s) of a discrete field (node values ``f.dofs``, through
    ``dof_reader``); on sides, from the inner cell (``side="to_cell"``) or the outer one
    (``"to_outer_cell"``). With a dof ``mapper``, the node values are summed, then mapped
    (both maps are linear)."""
    el = dict(el_items)
    read = dof_reader(dtype if mapper is None else mapper.dof_dtype, partitioned)
    dim = geometry_cls.dimension
    _bv, _bg, zero_value, _zg, node_outer = value_makers(dtype, dim)
    # the gradient is summed by element coordinates (cell_dimension of them: 2 on a surface in
    # 3-D), then mapped to world coordinates
    zero_ref_grad = value_makers(dtype, geometry_cls.cell_dimension)[3]
    to_cell, cell_arg = el[side], el["cell_arg"]
    weight, weight_gradient = el["weight"], el["weight_gradient"]
    node_index = el["cell_node_index"]
    NODES = el["cell_node_count"]
    inv_jac = geometry_cls.cell_inverse_deformation_gradient

    @wp.func
    def value(f: Any, s: Any):
        cell, cc = to_cell(f.elt, s.element_index, s.element_coords)
        ca = cell_arg(f.elt)
        r = zero_value()
        for n in range(NODES):
            r += weight(cc, n) * read(f, node_index(ca, cell, n))
        return r

    if mapper is not None and not _is_identity(mapper):
        zero_dof = dof_makers(mapper.dof_dtype)[0]
        to_value = mapper.dof_to_value

        @wp.func
        def value(f: Any, s: Any):  # noqa: F811
            cell, cc = to_cell(f.elt, s.element_index, s.element_coords)
            ca = cell_arg(f.elt)
            r = zero_dof()
            for n in range(NODES):
                r += weight(cc, n) * read(f, node_index(ca, cell, n))
            return to_value(r)

    @wp.func
    def grad(f: Any, s: Any):
        cell, cc = to_cell(f.elt, s.element_index, s.element_coords)
        ca = cell_arg(f.elt)
        g = zero_ref_grad()
        for n in range(NODES):
            g += node_outer(read(f, node_index(ca, cell, n)), weight_gradient(cc, n))
        return g * inv_jac(ca, make_free_sample(cell, cc))

    return value, grad


@functools.lru_cache(maxsize=None)
def vector_ops(grad):
    """div, D (symmetric gradient) and curl from a vector field's ``grad``."""
    @wp.func
    def div(f: Any, s: Any):
        return wp.trace(grad(f, s))

    @wp.func
    def sym_grad(f: Any, s: Any):
        g = grad(f, s)
        return 0.5 * (g + wp.transpose(g))

    @wp.func
    def curl(f: Any, s: Any):
        return skew_part(grad(f, s))

    return div, sym_grad, curl


@functools.lru_cache(maxsize=None)
def _dof_of(dof):
    """The sample's test or trial dof (node in the element, component)."""
    if dof == "test":
        @wp.func
        def get(s: Any):
            return s.test_dof
    else:
        @wp.func
        def get(s: Any):
            return s.trial_dof
    return get


@functools.lru_cache(maxsize=None)
def two_sided_basis_funcs(el_key, el_items, dtype, geometry_cls, dof, mapper=None):
    """inner value, outer value, inner gradient, outer gradient of a test/trial basis function
    on a two-sided element (nodes ``[0, N)`` in the inner cell, ``[N, 2N)`` in the outer one):
    a function is zero on the side it has no node on."""
    el = dict(el_items)
    N = el["two_sided"]
    basis_value, basis_grad, zero_value, zero_grad, _o = value_makers(dtype, geometry_cls.dimension, mapper)
    to_inner, to_outer, cell_arg = el["to_cell"], el["to_outer_cell"], el["cell_arg"]
    weight, weight_gradient = el["weight"], el["weight_gradient"]
    inv_jac = geometry_cls.cell_inverse_deformation_gradient
    get_dof = _dof_of(dof)

    @wp.func
    def grad_in_cell(f: Any, cell: int, cc: wp.vec3, n: int, c: int):
        g = weight_gradient(cc, n) * inv_jac(cell_arg(f.elt), make_free_sample(cell, cc))
        return basis_grad(g, c)

    @wp.func
    def inner(f: Any, s: Any):
        d = get_dof(s)
        if d[0] >= N:
            return zero_value()
        cell, cc = to_inner(f.elt, s.element_index, s.element_coords)
        return basis_value(weight(cc, d[0]), d[1])

    @wp.func
    def outer(f: Any, s: Any):
        d = get_dof(s)
        if d[0] < N:
            return zero_value()
        cell, cc = to_outer(f.elt, s.element_index, s.element_coords)
        return basis_value(weight(cc, d[0] - N), d[1])

    @wp.func
    def grad_inner(f: Any, s: Any):
        d = get_dof(s)
        if d[0] >= N:
            return zero_grad()
        cell, cc = to_inner(f.elt, s.element_index, s.element_coords)
        return grad_in_cell(f, cell, cc, d[0], d[1])

    @wp.func
    def grad_outer(f: Any, s: Any):
        d = get_dof(s)
        if d[0] < N:
            return zero_grad()
        cell, cc = to_outer(f.elt, s.element_index, s.element_coords)
        return grad_in_cell(f, cell, cc, d[0] - N, d[1])

    return inner, outer, grad_inner, grad_outer


@functools.lru_cache(maxsize=None)
def side_combinations(inner, outer, grad_inner, grad_outer):
    """jump (inner - outer), average, and their gradient versions, as warp-lang defines them."""
    @wp.func
    def jump(f: Any, s: Any):
        return inner(f, s) - outer(f, s)

    @wp.func
    def average(f: Any, s: Any):
        return 0.5 * (inner(f, s) + outer(f, s))

    @wp.func
    def grad_jump(f: Any, s: Any):
        return grad_inner(f, s) - grad_outer(f, s)

    @wp.func
    def grad_average(f: Any, s: Any):
        return 0.5 * (grad_inner(f, s) + grad_outer(f, s))

    return dict(jump=jump, average=average, grad_jump=grad_jump, grad_average=grad_average)


@functools.lru_cache(maxsize=None)
def node_funcs(el_items):
    """node_count(f, s) and at_node(f, s, k): the nodes of the sample's element, and the sample
    moved to node ``k`` of it (the same element, the node's coordinates)."""
    el = dict(el_items)
    node_coords, NODES = el["node_coords"], el["node_count"]

    @wp.func
    def node_count(f: Any, s: Any):
        return NODES

    @wp.func
    def at_node(f: Any, s: Any, k: int):
        return Sample(s.element_index, node_coords(k), -1, 0.0, s.test_dof, s.trial_dof)

    return node_count, at_node


@functools.lru_cache(maxsize=None)
def dof_node_func(el_items, dof):
    """at_node(f, s) of a test or trial field: the sample moved to the node of the dof being
    evaluated (its dofs kept, so the basis function reads 1 there)."""
    node_coords = dict(el_items)["node_coords"]
    get_dof = _dof_of(dof)

    @wp.func
    def at_node(f: Any, s: Any):
        return Sample(s.element_index, node_coords(get_dof(s)[0]), s.qp_index, s.qp_weight, s.test_dof,
                      s.trial_dof)
    return at_node


@functools.lru_cache(maxsize=None)
def to_cells_func(cell_arg, cells_eval_arg, partitioned=False):
    """``fem.cells(f)`` of a discrete field on sides: the same node values, seen from cells."""
    CA = cells_eval_arg

    @wp.func
    def to_cells(f: Any):
        return CA(cell_arg(f.elt), f.dofs)

    if partitioned:
        @wp.func
        def to_cells(f: Any):  # noqa: F811
            return CA(cell_arg(f.elt), f.dofs, f.to_local)
    return to_cells


@wp.func
def same_field(f: Any):
    return f
