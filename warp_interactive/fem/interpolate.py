"""``fem.interpolate``: an integrand evaluated at the nodes of a discrete field, or at
quadrature points."""

from typing import Any

import numpy as np

from . import _api as wp
from .precision import follow_precision

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


# how the values of the elements sharing a node combine (warp-lang's ``reduction``)
_REDUCTIONS = {"weighted_average": 0, "mean": 1, "sum": 2, "max": 3, "min": 4, "first": 5}
_FIRST_PASS = wp.constant(6)      # "first": the smallest element index of each node, then its value


@wp.kernel
def _average(sums: wp.array(dtype=Any), counts: wp.array(dtype=float), out: wp.array(dtype=Any), divide: int):
    i = wp.tid()
    c = counts[i]
    if c > 0.0:
        if divide != 0:
            out[i] = sums[i] / c
        else:
            out[i] = sums[i]


def _node_kernel(call, domain, el_items, S, types, dest_dtype, options, mapper=None):
    """One thread per (element, node): the integrand's value at the node (as its dofs, with a
    dof mapper), combined into the node by the reduction ``mode`` (a launch argument: one
    kernel serves every reduction)."""
    DA, IA, DEST, FS, VS = types
    el = dict(el_items)
    element_index, measure = domain.element_index, domain.element_measure
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
                          sums: wp.array(dtype=ST), counts: wp.array(dtype=float),
                          mode: int, first: wp.array(dtype=int)):
        e, m = wp.tid()
        elt = element_index(idx_arg, e)
        node = node_index(dest, elt, m)
        if mode == _FIRST_PASS:
            wp.atomic_min(first, node, elt)
            return
        if mode == 5 and first[node] != elt:
            return
        s = S(elt, node_coords(m), -1, 0.0, wp.vec2i(-1, -1), wp.vec2i(-1, -1))
        if wp.static(PIOLA == 1):
            v = node_dof(dest.elt, elt, s.element_coords, m, DT(call(s, dom_arg, fields, values)))
        else:
            v = to_dof(DT(call(s, dom_arg, fields, values)))
        if mode == 3:
            wp.atomic_max(sums, node, v)
        elif mode == 4:
            wp.atomic_min(sums, node, v)
        elif mode == 0:
            w = measure(dom_arg, s)
            wp.atomic_add(sums, node, w * v)
            wp.atomic_add(counts, node, w)
            return
        else:
            wp.atomic_add(sums, node, v)
        wp.atomic_add(counts, node, 1.0)
    return wp.kernel(interpolate_nodes, module="unique", **options)


@wp.func
def _same(x: Any):
    return x


@integrand_decorator
def _field_value(s: Sample, field: Field):
    return field(s)


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


def _interpolate_points(integrand, args, domain, quadrature, dim, dest, device, options):
    domain.register_ops()
    FS, fields_v = fields_struct(integrand, args.fields, device)
    VS, values_v = values_struct(integrand, args.values)
    call = K.cached(("call", integrand, tuple(args.kinds.items())), lambda: IntegrandCall(integrand, args.kinds))
    S = sample_type(domain.geometry.scalar_type)
    quad = quadrature if quadrature is not None else RegularQuadrature
    qfuncs = K.quadrature_point_funcs(point_funcs(quad), None, False)
    dest_dtype = dest.dtype if dest is not None else None
    types = (domain.ElementArg, domain.ElementIndexArg, quad.Arg, FS, VS)
    kernel = K.cached(("interp_points", integrand, dest_dtype, dim is not None, K.options_key(options))
                      + qfuncs + types,
                      lambda: _point_kernel(call, domain, qfuncs, S, types, dest_dtype, dim is not None, options))
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
        dest = wp.empty(1, dtype=wp.real, device=device)
    wp.launch(kernel, dim=launch_dim, device=device,
              inputs=[domain.element_arg_value(device), domain.element_index_arg_value(device), qarg,
                      fields_v, values_v, dest])


@follow_precision
def interpolate(integrand, dest=None, at=None, dim=None, fields=None, values=None,
                reduction="weighted_average",
                device=None, kernel_options=None, dest_space=None, temporary_store=None, bsr_options=None):
    """Evaluate ``integrand`` (or a field) at the nodes of ``dest`` (a discrete field: its node
    values become the integrand's values, combined over the elements sharing a node by
    ``reduction``: "weighted_average" by the elements' measures at the node, "mean", "sum",
    "max", "min" or "first" (the element of smallest index); a
    ``FieldRestriction``: only the nodes of its domain's elements), at the
    points of a quadrature ``at`` (into the array ``dest``, by point index, or nowhere), at
    one point of each element of a domain ``at``, or at ``dim`` samples in no element."""
    if not isinstance(integrand, Integrand) and hasattr(integrand, "eval_arg_value"):
        fields, values, integrand = {"field": integrand}, {}, _field_value
    if not isinstance(integrand, Integrand):
        raise ValueError("integrand must be tagged with @warp.fem.integrand decorator")
    fields, values = dict(fields or {}), dict(values or {})
    device = wp.get_device(device)
    options = K.kernel_args(integrand, kernel_options)
    args = _Arguments(integrand, fields, values)
    if isinstance(dest, FieldRestriction):     # the nodes of the restriction's elements
        dest, at = dest.field, dest.domain
    if isinstance(at, Quadrature) or (at is not None and not isinstance(dest, DiscreteField)):
        quadrature = at if isinstance(at, Quadrature) else (None if dim is not None else RegularQuadrature(at, 0))
        where = at.domain if isinstance(at, Quadrature) else at
        _bind_fields(args, where)
        _interpolate_points(integrand, args, where, quadrature, dim, dest, device, options)
        return dest
    if not isinstance(dest, DiscreteField):
        raise NotImplementedError("fem.interpolate: give a discrete field as dest, or a quadrature or domain as at")
    if dest.space_partition is not None:
        raise NotImplementedError("fem.interpolate: into a field on a space partition is not supported yet; "
                                  "interpolate into a field of the whole space")
    domain = at if at is not None else Cells(dest.geometry)
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
    kernel = K.cached(("interp_nodes", integrand, dest.dtype, mapper, el_items, K.options_key(options)) + types,
                      lambda: _node_kernel(call, domain, el_items, S, types, dest.dtype, options, mapper))
    n = dest.space.node_count()
    mode = _reduction_mode(reduction)
    # the sums carry the gradient from the node values back to the integrand's fields
    sums = _initial_sums(n, dest.dof_dtype, mode, device, dest.dof_values.requires_grad)
    counts = wp.zeros(n, dtype=wp.real, device=device)
    n_first = n if mode == _REDUCTIONS["first"] else 0
    first = wp.array(np.full(n_first, np.iinfo(np.int32).max), dtype=int, device=device)
    inputs = [domain.element_arg_value(device), domain.element_index_arg_value(device),
              target.eval_arg_value(device), fields_v, values_v, sums, counts]
    dim = (domain.element_count(), target.el["node_count"])
    if mode == _REDUCTIONS["first"]:
        wp.launch(kernel, dim=dim, device=device, inputs=inputs + [int(_FIRST_PASS), first])
    wp.launch(kernel, dim=dim, device=device, inputs=inputs + [mode, first])
    wp.launch(_average, dim=n, inputs=[sums, counts, dest.dof_values, int(mode <= 1)], device=device)
    return dest


def _reduction_mode(reduction):
    if reduction not in _REDUCTIONS:
        raise ValueError(f"fem.interpolate: reduction must be one of {', '.join(map(repr, _REDUCTIONS))}, "
                         f"got {reduction!r}")
    return _REDUCTIONS[reduction]


def _initial_sums(n, dtype, mode, device, requires_grad):
    """Zeros, or for max / min the lowest / highest value, so the first value replaces them."""
    if mode not in (3, 4):
        return wp.zeros(n, dtype=dtype, device=device, requires_grad=requires_grad)
    shape = getattr(dtype, "_shape_", ())
    big = np.finfo(wp.dtype_to_numpy(getattr(dtype, "_wp_scalar_type_", dtype))).max
    return wp.array(np.full((n,) + tuple(shape), -big if mode == 3 else big), dtype=dtype, device=device)
