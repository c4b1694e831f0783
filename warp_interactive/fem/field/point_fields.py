"""Fields of point-basis spaces (space/point_basis.py): values are sums over the sample's cell's
quadrature points ``i`` of ``kernel(d2_i, i, *kernel_values) * dofs[i]``; gradients sum
``kernel_grad(d2_i, i, ...) * grad(d2_i)`` by reference coordinates, then map them to world
coordinates as the polynomial fields do (field/evaluation.py)."""

import functools
from typing import Any

from .. import _api as wp
from ..precision import FollowsPrecision

from .. import operator as op
from ..types import ElementKind, make_free_sample
from . import evaluation as ev
from .fields import _field_ops, _vector_ops
from .structs import make_struct


@functools.lru_cache(maxsize=None)
def cell_nodes_kernel(QA, funcs):
    count, index = funcs

    @wp.kernel
    def cell_nodes(qarg: QA, out: wp.array2d(dtype=int)):
        c, n = wp.tid()
        out[c, n] = wp.where(n < count(qarg, c, c), index(qarg, c, c, n), -1)
    return cell_nodes


@functools.lru_cache(maxsize=None)
def _positions_kernel(geometry_cls, QA, funcs, vec_type):
    count, coords, index = funcs
    position = geometry_cls.cell_position

    @wp.kernel
    def positions(arg: geometry_cls.CellArg, qarg: QA, out: wp.array(dtype=vec_type)):
        c, n = wp.tid()
        if n < count(qarg, c, c):
            out[index(qarg, c, c, n)] = position(arg, make_free_sample(c, coords(qarg, c, c, n)))
    return positions


def point_positions(basis, out=None):
    geo = basis.geometry
    vt = wp.vec2 if geo.dimension == 2 else wp.vec3
    out = wp.empty(basis.node_count(), dtype=vt) if out is None else out
    N = basis.topology.MAX_NODES_PER_ELEMENT
    if geo.cell_count() and N:
        wp.launch(_positions_kernel(type(geo), basis.quadrature.Arg, basis.point_funcs, vt),
                  dim=(geo.cell_count(), N), device=out.device,
                  inputs=[geo.cell_arg_value(out.device), basis.quadrature.arg_value(out.device), out])
    return out


@functools.lru_cache(maxsize=None)
def kernel_caller(kernel, values):
    """call(basis_arg, d2, i): ``kernel(d2, i, basis_arg.a0, ...)`` with ``values`` extra values."""
    if values == 0:
        @wp.func
        def call(b: Any, d2: float, i: int):
            return kernel(d2, i)
    elif values == 1:
        @wp.func
        def call(b: Any, d2: float, i: int):
            return kernel(d2, i, b.a0)
    elif values == 2:
        @wp.func
        def call(b: Any, d2: float, i: int):
            return kernel(d2, i, b.a0, b.a1)
    elif values == 3:
        @wp.func
        def call(b: Any, d2: float, i: int):
            return kernel(d2, i, b.a0, b.a1, b.a2)
    else:
        @wp.func
        def call(b: Any, d2: float, i: int):
            return kernel(d2, i, b.a0, b.a1, b.a2, b.a3)
    return call


@functools.lru_cache(maxsize=None)
def distance_funcs(geometry_cls, world):
    """d2(cell_arg, cell, c, pc) and its gradient by the cell's reference parameters."""
    shape, cdim = geometry_cls.reference_cell_shape, geometry_cls.cell_dimension
    GV = wp.types.vector(cdim, wp.float32)
    OFFSET = 1 if shape == "triangle" else 0     # triangles: barycentric coordinates, parameters (c1, c2)
    if world:
        position, F_of = geometry_cls.cell_position, geometry_cls.cell_deformation_gradient

        @wp.func
        def d2(arg: Any, cell: int, c: wp.vec3, pc: wp.vec3):
            return wp.length_sq(position(arg, make_free_sample(cell, c)) - position(arg, make_free_sample(cell, pc)))

        @wp.func
        def d2_grad(arg: Any, cell: int, c: wp.vec3, pc: wp.vec3):
            dx = position(arg, make_free_sample(cell, c)) - position(arg, make_free_sample(cell, pc))
            return 2.0 * (wp.transpose(F_of(arg, make_free_sample(cell, c))) * dx)
        return d2, d2_grad

    @wp.func
    def delta(c: wp.vec3, pc: wp.vec3):
        d = GV(0.0)
        for k in range(cdim):
            d[k] = c[k + OFFSET] - pc[k + OFFSET]
        return d

    @wp.func
    def d2(arg: Any, cell: int, c: wp.vec3, pc: wp.vec3):
        return wp.length_sq(delta(c, pc))

    @wp.func
    def d2_grad(arg: Any, cell: int, c: wp.vec3, pc: wp.vec3):
        return 2.0 * delta(c, pc)
    return d2, d2_grad


@functools.lru_cache(maxsize=None)
def discrete_funcs(geometry_cls, dtype, point_funcs, N, kernels, world):
    """value(f, s), grad(f, s) of a discrete field of a point basis (see the module docstring);
    ``kernels``: (kernel, gradient kernel or None, number of kernel values)."""
    count, coords, index = point_funcs
    kernel, kernel_grad, nvalues = kernels
    call = kernel_caller(kernel, nvalues)
    d2, d2_grad = distance_funcs(geometry_cls, world)
    _bv, _bg, zero_value, zero_grad, node_outer = ev.value_makers(dtype, geometry_cls.dimension)
    zero_ref_grad = ev.value_makers(dtype, geometry_cls.cell_dimension)[3]
    inv_jac = geometry_cls.cell_inverse_deformation_gradient

    @wp.func
    def value(f: Any, s: Any):
        cell = s.element_index
        r = zero_value()
        for n in range(wp.min(N, count(f.basis.q, cell, cell))):
            pc = coords(f.basis.q, cell, cell, n)
            i = index(f.basis.q, cell, cell, n)
            r += call(f.basis, d2(f.elt, cell, s.element_coords, pc), i) * f.dofs[i]
        return r

    if kernel_grad is None:
        @wp.func
        def grad(f: Any, s: Any):
            return zero_grad()
        return value, grad
    call_grad = kernel_caller(kernel_grad, nvalues)

    @wp.func
    def grad(f: Any, s: Any):       # noqa: F811
        cell = s.element_index
        c = s.element_coords
        g = zero_ref_grad()
        for n in range(wp.min(N, count(f.basis.q, cell, cell))):
            pc = coords(f.basis.q, cell, cell, n)
            i = index(f.basis.q, cell, cell, n)
            w = call_grad(f.basis, d2(f.elt, cell, c, pc), i) * d2_grad(f.elt, cell, c, pc)
            g += node_outer(f.dofs[i], w)
        return g * inv_jac(f.elt, make_free_sample(cell, c))
    return value, grad


class PointDiscreteField(FollowsPrecision):
    """Node values of a point-basis space (``space.make_field()``), evaluated in its cells."""

    space_partition = None
    mapper = None

    def __init__(self, space, dof_values=None):
        from ..domain import Cells
        self.space = space
        self.domain = Cells(space.geometry)
        self._dof_values = dof_values if dof_values is not None else wp.zeros(space.node_count(), dtype=space.dtype)
        basis = space.basis
        geo = space.geometry
        dt = getattr(space.dtype, "__name__", str(space.dtype))
        self.EvalArg = make_struct(f"DiscretePoint{basis.token}{type(geo).__name__}_{dt}",
                                   {"elt": type(geo).CellArg, "basis": basis.BasisArg,
                                    "dofs": wp.array(dtype=space.dtype)})
        kernels = (basis.kernel_func, basis.kernel_grad_func, len(basis._value_names))
        value, grad = discrete_funcs(type(geo), space.dtype, basis.point_funcs, basis.topology.MAX_NODES_PER_ELEMENT,
                                     kernels, basis.distance_space == "world")
        ops = _field_ops(value, grad, ElementKind.CELL, None, None, 0)
        ops["cells"] = ev.same_field
        op.register(self.EvalArg, _vector_ops(ops, space.dtype, grad), "a discrete field of a point basis")

    @property
    def name(self):
        return f"discrete_{self.space.name}"

    @property
    def geometry(self):
        return self.space.geometry

    @property
    def dtype(self):
        return self.space.dtype

    @property
    def dof_dtype(self):
        return self.space.dtype

    @property
    def degree(self):
        return 0

    @property
    def dof_values(self):
        return self._dof_values

    @dof_values.setter
    def dof_values(self, values):
        if not isinstance(values, wp.array):
            values = wp.array(values, dtype=self.dtype, device=self._dof_values.device)
        self._dof_values = values

    def eval_arg_value(self, device=None):
        a = self.EvalArg()
        a.elt = self.domain.element_arg_value(device)
        a.basis = self.space.basis.basis_arg_value(device)
        a.dofs = self._dof_values
        return a

    def on(self, domain):
        if domain.element_kind == ElementKind.CELL and domain.geometry is self.geometry:
            return self
        raise NotImplementedError("fields of point bases are evaluated on their geometry's cells only, so far")
