"""Fields integrands take: test and trial functions of a space on a domain, and discrete fields
(node values of a space).

Each field passes a struct to kernels (``EvalArg``: the domain's element arg, and the node
values for a discrete field), whose type is registered with the operators' table, so
``u(s)``, ``fem.grad(u, s)``... translate to this field kind's functions."""

from .. import _api as wp
from ..precision import FollowsPrecision

from .. import operator as op
from ..types import ElementKind
from . import at_point
from . import evaluation as ev
from . import piola
from .structs import make_struct


def _el_items(el):
    return tuple(sorted(el.items()))


def _vector_ops(ops, dtype, grad):
    if ev._is_vector(dtype):
        div, sym_grad, curl = ev.vector_ops(grad)
        ops.update(div=div, D=sym_grad, curl=curl)
        if "grad_outer" in ops:
            ops["div_outer"] = ev.vector_ops(ops["grad_outer"])[0]
    return ops


def _field_ops(value, grad, kind, outer=None, grad_outer=None, degree=None):
    """The operator table of a field evaluated by ``value``/``grad`` (its inner side on sides).
    In cells, inner and outer are the same; on sides, ``outer``/``grad_outer`` where known (a
    continuous space's basis functions have the same trace on both sides, not the same
    gradient: then only values have an outer side)."""
    if kind == ElementKind.CELL:
        outer, grad_outer = value, grad
    elif outer is None:
        outer = value
    ops = {"__call__": value, "inner": value, "grad": grad, "outer": outer, "scalar_type": wp.float32,
           "degree": degree}
    if grad_outer is None:
        combos = ev.side_combinations(value, outer, grad, grad)
        ops.update(jump=combos["jump"], average=combos["average"])
    else:
        ops["grad_outer"] = grad_outer
        ops.update(ev.side_combinations(value, outer, grad, grad_outer))
    return ops


class FieldBase(FollowsPrecision):
    """What test, trial and discrete fields have in common: a space and a domain."""

    def __init__(self, space, domain):
        self.space = space
        self.domain = domain
        self.el = space.element(domain.element_kind)

    @property
    def degree(self):
        return self.space.degree

    @property
    def dtype(self):
        return self.space.dtype

    @property
    def geometry(self):
        return self.space.geometry

    @property
    def mapper(self):
        """The space's dof mapper (None: node values are field values)."""
        return getattr(self.space, "dof_mapper", None)

    @property
    def dof_dtype(self):
        dt = getattr(self.space, "dof_dtype", None)
        if dt is not None:
            return dt
        m = self.mapper
        return self.dtype if m is None else m.dof_dtype

    def _struct_name(self, role):
        geo = type(self.space.geometry).__name__
        kind = "Cells" if self.domain.element_kind == ElementKind.CELL else "Sides"
        dt = getattr(self.dtype, "__name__", str(self.dtype))
        fam = str(self.space.family) + getattr(self.space, "struct_tag", "")
        mapped = "" if self.mapper is None else "_" + str(self.mapper).replace(".", "_")
        return f"{role}Q{self.space.degree}{fam}{geo}{kind}_{dt}{mapped}"


class TestField(FieldBase):
    """The test functions of ``space`` on ``domain`` (``fem.make_test``)."""

    role = "test"
    space_partition = None      # a SpacePartition: integrals number the nodes as it does

    def __init__(self, space, domain):
        super().__init__(space, domain)
        self.EvalArg = make_struct(self._struct_name(self.role.capitalize()), {"elt": self.el["ElementArg"]})
        if self.el.get("piola"):
            value, grad = piola.basis_funcs(_el_items(self.el), type(self.geometry), self.role)
            outer = grad_outer = None
        elif self.el.get("two_sided"):
            value, outer, grad, grad_outer = ev.two_sided_basis_funcs(
                self.space.space_key(), _el_items(self.el), self.dtype, type(self.geometry), self.role, self.mapper)
        else:
            value, grad = ev.basis_funcs(self.space.space_key(), _el_items(self.el), self.dtype,
                                         type(self.geometry), self.role, self.mapper)
            outer = grad_outer = None
        ops = _field_ops(value, grad, domain.element_kind, outer, grad_outer, self.degree)
        self._node_ops(ops)
        op.register(self.EvalArg, _vector_ops(ops, self.dtype, grad), f"a {self.role} field")
        self.at = at_point.unchanged()
        if not self.el.get("two_sided") and not self.el.get("piola"):
            self._point_ops()

    def _point_ops(self):
        """``at``: this field at one quadrature point, as integrals' kernels pass it to integrands
        (field/at_point.py), and the operators of what it gives."""
        PS = at_point.point_struct(self.EvalArg.__name__ + "_qp", self.el["ElementArg"], self.geometry.dimension)
        self.at, value, grad = at_point.point_funcs(_el_items(self.el), self.dtype, type(self.geometry),
                                                    self.role, PS, self.mapper)
        ops = _field_ops(value, grad, self.domain.element_kind, None, None, self.degree)
        self._node_ops(ops)
        op.register(PS, _vector_ops(ops, self.dtype, grad), f"a {self.role} field")

    def _node_ops(self, ops):
        if "node_coords" in self.el and not self.el.get("two_sided"):
            ops["at_node"] = ev.dof_node_func(_el_items(self.el), self.role)

    @property
    def name(self):
        return f"{self.role}_{self.space.name}_{self.domain.name}"

    def eval_arg_value(self, device=None):
        a = self.EvalArg()
        a.elt = self.domain.element_arg_value(device)
        return a

    def node_count(self):
        """Nodes of one element of the domain."""
        return self.el["node_count"]

    @property
    def node_dof_count(self):
        """Degrees of freedom per node (the components of the space's values)."""
        return self.space.value_size


class TrialField(TestField):
    """The trial functions of ``space`` on ``domain`` (``fem.make_trial``)."""

    role = "trial"


class DiscreteField(FieldBase):
    """A field given by its values at the nodes of ``space`` (``space.make_field()``).
    ``dof_values`` is the array of node values; on a domain other than the cells (sides),
    ``field.trace()`` or passing it to an integral over sides evaluates it from the inner cell."""

    def __init__(self, space, dof_values=None, domain=None, space_partition=None):
        from ..domain import Cells
        super().__init__(space, domain if domain is not None else Cells(space.geometry))
        self._partition = space_partition
        part = space_partition is not None
        if part and self.el.get("piola"):
            raise NotImplementedError("fem: fields of Raviart-Thomas/Nedelec spaces on a space partition")
        if dof_values is None:
            count = space_partition.node_count() if part else space.node_count()
            dof_values = wp.zeros(count, dtype=self.dof_dtype)
        self._dof_values = dof_values
        members = {"elt": self.el["ElementArg"], "dofs": wp.array(dtype=self.dof_dtype)}
        if part:       # space node -> partition node (-1 outside)
            members["to_local"] = wp.array(dtype=int)
        self.EvalArg = make_struct(self._struct_name("DiscretePart" if part else "Discrete"), members)
        value, grad, outer, grad_outer = self._eval_funcs(part)
        ops = _field_ops(value, grad, self.domain.element_kind, outer, grad_outer, self.degree)
        if "node_coords" in self.el:
            ops["node_count"], ops["at_node"] = ev.node_funcs(_el_items(self.el))
        if self.domain.element_kind == ElementKind.CELL:
            ops["cells"] = ev.same_field
        else:
            cells = DiscreteField(space, dof_values, Cells(space.geometry), space_partition)
            ops["cells"] = ev.to_cells_func(self.el["cell_arg"], cells.EvalArg, part)
        op.register(self.EvalArg, _vector_ops(ops, self.dtype, grad), "a discrete field")

    def _eval_funcs(self, part):
        """value, grad (and on sides with an outer cell, its value and grad)."""
        items, geo_cls, key = _el_items(self.el), type(self.geometry), self.space.space_key()
        if self.el.get("piola"):
            value, grad = piola.discrete_funcs(items, geo_cls)
        else:
            value, grad = ev.discrete_funcs(key, items, self.dtype, geo_cls, mapper=self.mapper, partitioned=part)
        outer = grad_outer = None
        if "to_outer_cell" in self.el:
            if self.el.get("piola"):
                outer, grad_outer = piola.discrete_funcs(items, geo_cls, "to_outer_cell")
            else:
                outer, grad_outer = ev.discrete_funcs(key, items, self.dtype, geo_cls, "to_outer_cell", self.mapper,
                                                      part)
        return value, grad, outer, grad_outer

    @property
    def name(self):
        if self._partition is not None:
            return f"discrete_{self._partition.name}"
        return f"discrete_{self.space.name}"

    @property
    def space_partition(self):
        """The space partition whose nodes ``dof_values`` holds (None: the whole space)."""
        return self._partition

    @property
    def dof_values(self):
        return self._dof_values

    @dof_values.setter
    def dof_values(self, values):
        """Node values: a wp.array, or anything wp.array converts (a NumPy array of
        ``(node_count, *dof_shape)``), placed on the device of the current values."""
        if not isinstance(values, wp.array):
            values = wp.array(values, dtype=self.dof_dtype, device=self._dof_values.device)
        elif values.dtype != self.dof_dtype:
            values = wp.array(values.numpy(), dtype=self.dof_dtype, device=values.device)
        self._dof_values = values

    def eval_arg_value(self, device=None):
        a = self.EvalArg()
        a.elt = self.domain.element_arg_value(device)
        a.dofs = self._dof_values
        if self._partition is not None:
            a.to_local = self._partition.space_to_partition(self._dof_values.device)
        return a

    def make_deformed_geometry(self, relative=True):
        """The geometry deformed by this (vector) field: points moved to its values, or by them
        with ``relative=True``."""
        from ..geometry.deformed import make_deformed_geometry
        return make_deformed_geometry(self, relative)

    def trace(self):
        from ..domain import BoundarySides
        return self.on(BoundarySides(self.geometry))

    def on(self, domain):
        """This field, evaluated on ``domain`` (same node values)."""
        if domain.element_kind == self.domain.element_kind and domain.geometry is self.geometry:
            return self
        return DiscreteField(self.space, self._dof_values, domain, self._partition)
