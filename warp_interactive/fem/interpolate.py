"""``fem.interpolate``: an integrand evaluated at the nodes of a discrete field, or at
quadrature points."""

from typing import Any

from . import _api as wp

from . import kernels as K
from .domain import Cells
from .field import piola
from .field.fields import DiscreteField
from .field.restriction import FieldRestriction
from .integrand import Integrand, IntegrandCall
from .integrand import integrand as integrand_decorator
from .integrate import _Arguments, _bind_fields, fields_struct, values_struct
from .quadrature import Quadrature, RegularQuadrature, point_funcs
from .types import Field, Sample, sample_type


@wp.kernel
def _average(sums: wp.array(dtype=Any), counts: wp.array(dtype=float), out: wp.array(dtype=Any)):
    i = wp.tid()
    c = counts[i]
    if c > 0.0:
        out[i] = sums[i] / c


def _node_kernel(call, domain, el_items, S, types, dest_dtype, mapper=None):
    """One thread per (element, node): the integrand's value at the node, summed into the
    node (as its dofs, with a dof mapper) and counted."""
    DA, IA, DEST, FS, VS = types
    el = dict(el_items)
    element_index = domain.element_index
    node_coords, NODES = el["node_coords"], el["node_count"]
    node_index = K.node_index_func(el_items)
    DT = dest_dtype
    to_dof = _same if mapper is None else mapper.value_to_dof
    ST = dest_dtype if mapper is None else mapper.dof_dtype
    PIOLA = int("piola" in el)
    node_dof = piola.to_dof_func(el_items) if PIOLA else None
    if PIOLA:
        ST = wp.float32

    def interpolate_nodes(dom_arg: DA, idx_arg: IA, dest: DEST, fields: FS, values: VS,
                          sums: wp.array(dtype=ST), counts: wp.array(dtype=float)):
        e, m = wp.tid()
        elt = element_index(idx_arg, e)
        s = S(elt, node_coords(m), -1, 0.0, wp.vec2i(-1, -1), wp.vec2i(-1, -1))
        if wp.static(PIOLA == 1):
            v = node_dof(dest.elt, elt, s.element_coords, m, DT(call(s, dom_arg, fields, values)))
        else:
            v = to_dof(DT(call(s, dom_arg, fields, values)))
        node = node_index(dest, elt, m)
        wp.atomic_add(sums, node, v)
        wp.atomic_add(counts, node, 1.0)
    return wp.kernel(interpolate_nodes, module="unique")


@wp.func
def _same(x: Any):
    return x


@integrand_decorator
def _field_value(s: Sample, field: Field):
    return field(s)


def _kernel_options(integrand):
    """The ``wp.kernel`` options an integrand's ``kernel_options`` set (``enable_backward``)."""
    opts = getattr(integrand, "kernel_options", {}) or {}
    return {"enable_backward": bool(opts["enable_backward"])} if "enable_backward" in opts else {}


def _point_kernel(call, domain, qfuncs, S, types, dest_dtype, count, options):
    """One thread per quadrature point (``count`` False) or per sample index (``count`` True:
    samples in no element, ``s.qp_index`` the thread's index); the value goes to ``dest[qp_index]``
    (or nowhere when ``dest_dtype`` is None)."""
    DA, IA, QA, FS, VS = types
    element_index = domain.element_index
    qp_count, qp_coords, qp_weight, qp_index = qfuncs
    DT = dest_dtype if dest_dtype is not None else float
    STORE = int(dest_dtype is not None)
    COUNT = int(count)

    def interpolate_points(dom_arg: DA, idx_arg: IA, qp_arg: QA, fields: FS, values: VS,
                           dest: wp.array(dtype=DT)):
        e, q = wp.tid()
        if COUNT == 1:
            s = S(-1, wp.vec3(0.0), e, 0.0, wp.vec2i(-1, -1), wp.vec2i(-1, -1))
        else:
            elt = element_index(idx_arg, e)
            if q >= qp_count(qp_arg, e, elt):     # elements with fewer points than the most (particles)
                return
            s = S(elt, qp_coords(qp_arg, e, elt, q), qp_index(qp_arg, e, elt, q), qp_weight(qp_arg, e, elt, q),
                  wp.vec2i(-1, -1), wp.vec2i(-1, -1))
        if wp.static(STORE == 1):
            dest[s.qp_index] = DT(call(s, dom_arg, fields, values))
        else:
            call(s, dom_arg, fields, values)
    return wp.kernel(interpolate_points, module="unique", **options)


def _interpolate_points(integrand, args, domain, quadrature, dim, dest, device):
    domain.register_ops()
    FS, fields_v = fields_struct(integrand, args.fields, device)
    VS, values_v = values_struct(integrand, args.values)
    call = K.cached(("call", integrand, tuple(args.kinds.items())), lambda: IntegrandCall(integrand, args.kinds))
    S = sample_type(domain.geometry.scalar_type)
    quad = quadrature if quadrature is not None else RegularQuadrature
    qfuncs = K.quadrature_point_funcs(point_funcs(quad), None, False)
    dest_dtype = dest.dtype if dest is not None else None
    types = (domain.ElementArg, domain.ElementIndexArg, quad.Arg, FS, VS)
    kernel = K.cached(("interp_points", integrand, dest_dtype, dim is not None) + qfuncs + types,
                      lambda: _point_kernel(call, domain, qfuncs, S, types, dest_dtype, dim is not None,
                                            _kernel_options(integrand)))
    if dim is not None:
        launch_dim, qarg = (dim, 1), RegularQuadrature.Arg()
        rows = dim
    else:
        launch_dim = (domain.element_count(), quadrature.max_points_per_element())
        qarg = quadrature.arg_value(device)
        rows = quadrature.total_point_count()
    if dest is not None and (not isinstance(dest, wp.array) or dest.shape[0] != rows):
        # (the kernel stores by point index: a shorter array would be written past its end)
        raise ValueError(f"dest must be a warp array with {rows} rows")
    if dest is None:
        dest = wp.empty(1, dtype=float, device=device)
    wp.launch(kernel, dim=launch_dim, device=device,
              inputs=[domain.element_arg_value(device), domain.element_index_arg_value(device), qarg,
                      fields_v, values_v, dest])


def interpolate(integrand, dest=None, at=None, dim=None, domain=None, fields=None, values=None, reduction="sum",
                device=None, kernel_options=None, dest_space=None, temporary_store=None, bsr_options=None):
    """Evaluate ``integrand`` (or a field) at the nodes of ``dest`` (a discrete field: its node
    values become the integrand's values, averaged over the elements sharing a node; a
    ``FieldRestriction``: only the nodes of its domain's elements), at the
    points of a quadrature ``at`` (into the array ``dest``, by point index, or nowhere), at
    one point of each element of a domain ``at``, or at ``dim`` samples in no element."""
    if not isinstance(integrand, Integrand) and hasattr(integrand, "eval_arg_value"):
        fields, values, integrand = {"field": integrand}, {}, _field_value
    if not isinstance(integrand, Integrand):
        raise ValueError("integrand must be tagged with @warp.fem.integrand decorator")
    fields, values = dict(fields or {}), dict(values or {})
    device = wp.get_device(device)
    args = _Arguments(integrand, fields, values)
    if isinstance(dest, FieldRestriction):     # the nodes of the restriction's elements
        dest, at = dest.field, dest.domain
    if isinstance(at, Quadrature) or (at is not None and not isinstance(dest, DiscreteField)):
        quadrature = at if isinstance(at, Quadrature) else (None if dim is not None else RegularQuadrature(at, 0))
        where = at.domain if isinstance(at, Quadrature) else at
        _bind_fields(args, where)
        _interpolate_points(integrand, args, where, quadrature, dim, dest, device)
        return dest
    if not isinstance(dest, DiscreteField):
        raise NotImplementedError("fem.interpolate: give a discrete field as dest, or a quadrature or domain as at")
    domain = at if at is not None else (domain if domain is not None else Cells(dest.geometry))
    _bind_fields(args, domain)
    domain.register_ops()
    FS, fields_v = fields_struct(integrand, args.fields, device)
    VS, values_v = values_struct(integrand, args.values)
    call = K.cached(("call", integrand, tuple(args.kinds.items())), lambda: IntegrandCall(integrand, args.kinds))
    target = dest.on(domain)
    el_items = tuple(sorted(target.el.items()))
    S = sample_type(domain.geometry.scalar_type)
    types = (domain.ElementArg, domain.ElementIndexArg, target.EvalArg, FS, VS)
    mapper = dest.mapper
    kernel = K.cached(("interp_nodes", integrand, dest.dtype, mapper, el_items) + types,
                      lambda: _node_kernel(call, domain, el_items, S, types, dest.dtype, mapper))
    n = dest.space.node_count()
    # the sums carry the gradient from the node values back to the integrand's fields
    sums = wp.zeros(n, dtype=dest.dof_dtype, device=device, requires_grad=dest.dof_values.requires_grad)
    counts = wp.zeros(n, dtype=float, device=device)
    wp.launch(kernel, dim=(domain.element_count(), target.el["node_count"]), device=device,
              inputs=[domain.element_arg_value(device), domain.element_index_arg_value(device),
                      target.eval_arg_value(device), fields_v, values_v, sums, counts])
    wp.launch(_average, dim=n, inputs=[sums, counts, dest.dof_values], device=device)
    return dest
