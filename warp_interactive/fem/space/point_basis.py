"""``fem.PointBasisSpace``: nodes at the points of a quadrature, each with a radial kernel as
its shape function (particle-in-cell, meshless discretisations).

Node ``i`` is quadrature point ``i`` (its ``point_index``). In a cell, the nodes are the cell's
quadrature points (at most ``max_nodes_per_element``); node ``i``'s shape function at
coordinates ``c`` of the cell is ``kernel_func(d2, i, *kernel_values)``, ``d2`` the squared
distance from ``c`` to the point, in reference coordinates (``distance_space="reference"``) or
world coordinates (``"world"``). Its gradient is ``kernel_grad_func(d2, i, ...)`` times the
gradient of ``d2`` (zero without a ``kernel_grad_func``). The default kernel is a Dirac: 1 within
1e-3 of the point (reference distance), 0 elsewhere.

Evaluating fields of these spaces is in field/point_fields.py; the kernel and its values are
passed to kernels in a ``BasisArg`` struct (``kernel_values``, set at any time)."""

import itertools

from .. import _api as wp

from ..field.structs import make_struct
from ..types import ElementKind
from .space_base import FunctionSpace

_MAX_KERNEL_VALUES = 4
_TYPE_NAMES = {float: "float32", int: "int32", bool: "bool"}


def _type_name(t):
    return _TYPE_NAMES.get(t, getattr(t, "__name__", str(t)))


def _warp_type(t):
    return {float: wp.float32, int: wp.int32}.get(t, t)


@wp.func
def _dirac_kernel(squared_distance: float, point_index: int, squared_radius: float):
    return wp.where(squared_distance < squared_radius, 1.0, 0.0)


_tokens = {}
_token_counter = itertools.count()


def _token(key):
    """A short name per distinct (kernel, gradient, quadrature funcs, distance space, nodes per
    element, geometry type): the struct types of fields made with different ones must differ
    (each carries the operators of its own evaluation functions)."""
    t = _tokens.get(key)
    if t is None:
        t = _tokens[key] = f"Pt{next(_token_counter)}"
    return t


class UnstructuredPointTopology:
    """The node numbering of a point basis: node ``i`` is quadrature point ``i``; a cell's nodes
    are its quadrature points."""

    def __init__(self, quadrature, max_nodes_per_element=-1):
        if max_nodes_per_element < 0:
            max_nodes_per_element = quadrature.max_points_per_element()
            if max_nodes_per_element is None:
                raise ValueError("Quadrature must define a maximum number of points per element")
        domain = quadrature.domain
        if domain.element_kind != ElementKind.CELL or domain.element_count() != domain.geometry.cell_count():
            raise ValueError("Point topology may only be defined on quadrature domains that span the whole "
                             "geometry partition")
        self.quadrature = quadrature
        self.geometry = domain.geometry
        self.MAX_NODES_PER_ELEMENT = int(max_nodes_per_element)

    @property
    def name(self):
        return f"PointTopology_{self.quadrature.name}"

    @property
    def topology(self):
        return self

    def node_count(self):
        return self.quadrature.total_point_count()

    def host_cell_nodes(self):
        """(cells, max nodes per element) array of node indices, -1 past a cell's points."""
        from ..field.point_fields import cell_nodes_kernel
        q = self.quadrature
        funcs = (q.point_count, q.point_index)
        out = wp.empty((self.geometry.cell_count(), self.MAX_NODES_PER_ELEMENT), dtype=int)
        if out.size:
            wp.launch(cell_nodes_kernel(q.Arg, funcs), dim=out.shape,
                      inputs=[q.arg_value(out.device), out], device=out.device)
        return out.numpy()


class PointBasisSpace:
    """Nodes at the points of ``quadrature`` with radial kernel shape functions (see the module
    docstring); ``make_collocated_function_space`` gives it a value type."""

    def __init__(self, quadrature, kernel_func=None, kernel_grad_func=None, kernel_values=None,
                 distance_space="reference", max_nodes_per_element=-1, use_evaluation_point_index=False):
        if distance_space not in ("reference", "world"):
            raise ValueError(f"distance_space must be 'reference' or 'world', got {distance_space!r}")
        if use_evaluation_point_index:
            raise NotImplementedError("PointBasisSpace: use_evaluation_point_index is not supported yet")
        if kernel_func is None:
            kernel_func, kernel_grad_func = _dirac_kernel, None
            kernel_values = {"squared_radius": 1.0e-6}
        self.quadrature = quadrature
        self.kernel_func, self.kernel_grad_func = kernel_func, kernel_grad_func
        self.distance_space = distance_space
        self.geometry = quadrature.domain.geometry
        self.ORDER = 0
        self._topology = UnstructuredPointTopology(quadrature, max_nodes_per_element)
        self._value_names, value_types = self._check_kernel()
        q = quadrature
        self.point_funcs = (q.point_count, q.point_coords, q.point_index)
        self.token = _token((kernel_func, kernel_grad_func, self.point_funcs, distance_space,
                             self._topology.MAX_NODES_PER_ELEMENT, type(self.geometry)))
        self.BasisArg = make_struct(f"PointBasis{self.token}Arg", {
            "q": quadrature.Arg,
            **{f"a{i}": t for i, t in enumerate(value_types)}})
        self.kernel_values = kernel_values or {}

    def _check_kernel(self):
        """The names and types of the kernel's extra parameters; the first two must be the
        squared distance (a float) and the point index (an int)."""
        f = self.kernel_func
        py = getattr(f, "func", f)
        names = list(py.__code__.co_varnames[:py.__code__.co_argcount])
        ann = [getattr(py, "__annotations__", {}).get(n) for n in names]
        scalar = self.geometry.scalar_type
        ok = len(names) >= 2 and _warp_type(ann[0]) in (wp.float32, scalar) and _warp_type(ann[1]) == wp.int32
        if not ok:
            got = ", ".join(_type_name(a) if a is not None else "unavailable" for a in (ann + [None, None])[:2])
            expected = " or ".join(dict.fromkeys(("float32", _type_name(scalar))))
            raise TypeError(f"Radial kernel '{py.__name__}' argument types must be ({expected}, int32), got ({got})")
        if len(names) - 2 > _MAX_KERNEL_VALUES:
            raise NotImplementedError(f"PointBasisSpace: at most {_MAX_KERNEL_VALUES} kernel values")
        return names[2:], [_warp_type(a) for a in ann[2:]]

    @property
    def kernel_values(self):
        return self._kernel_values

    @kernel_values.setter
    def kernel_values(self, values):
        missing = [n for n in self._value_names if n not in values]
        if missing:
            raise ValueError(f"PointBasisSpace: no kernel value given for {', '.join(missing)}")
        self._kernel_values = dict(values)

    @property
    def name(self):
        return f"{self._topology.name}_{self.token}_{self.distance_space}"

    @property
    def topology(self):
        return self._topology

    @property
    def value(self):
        from .shape_functions import ShapeFunction
        return ShapeFunction.Value.Scalar

    def node_count(self):
        return self._topology.node_count()

    def basis_arg_value(self, device=None):
        a = self.BasisArg()
        a.q = self.quadrature.arg_value(device)
        for i, n in enumerate(self._value_names):
            setattr(a, f"a{i}", self._kernel_values[n])
        return a

    def node_positions(self, out=None):
        """World positions of the nodes (the quadrature points)."""
        from ..field.point_fields import point_positions
        return point_positions(self, out)


class PointFunctionSpace(FunctionSpace):
    """``dtype`` values at the nodes of a ``PointBasisSpace``."""

    dof_mapper = None
    family = None
    degree = 0

    def __init__(self, basis, dtype=float):
        self.basis = basis
        self.geometry = basis.geometry
        self.dtype = wp.float32 if dtype is float else dtype
        self.dim = self.geometry.dimension
        self.struct_tag = basis.token

    @property
    def name(self):
        return f"{self.basis.name}_{getattr(self.dtype, '__name__', self.dtype)}"

    @property
    def topology(self):
        return self.basis.topology

    @property
    def value_size(self):
        return getattr(self.dtype, "_length_", 1)

    @property
    def dof_dtype(self):
        return self.dtype

    def node_count(self):
        return self.basis.node_count()

    def space_key(self):
        return ("point", self.basis.name)

    def node_positions(self, out=None):
        return self.basis.node_positions(out)

    def element(self, element_kind):
        raise NotImplementedError("fem: test and trial fields of point bases are not supported yet "
                                  "(discrete fields are: space.make_field())")

    def make_field(self, space_partition=None):
        from ..field.point_fields import PointDiscreteField
        if space_partition is not None:
            raise NotImplementedError("fields of point bases on space partitions are not supported yet")
        return PointDiscreteField(self)
