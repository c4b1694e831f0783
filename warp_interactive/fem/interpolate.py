"""``fem.interpolate``: an integrand evaluated at the nodes of a discrete field, or at
quadrature points."""

from typing import Any

from . import _api as wp

from . import kernels as K
from .domain import Cells
from .field.fields import DiscreteField
from .integrand import Integrand, IntegrandCall
from .integrate import _Arguments, _bind_fields, fields_struct, values_struct
from .types import sample_type


@wp.kernel
def _average(sums: wp.array(dtype=Any), counts: wp.array(dtype=float), out: wp.array(dtype=Any)):
    i = wp.tid()
    c = counts[i]
    if c > 0.0:
        out[i] = sums[i] / c


def _node_kernel(call, domain, el_items, S, types, dest_dtype):
    DA, IA, DEST, FS, VS = types
    el = dict(el_items)
    element_index = domain.element_index
    node_coords, NODES = el["node_coords"], el["node_count"]
    node_index = K.node_index_func(el_items)
    DT = dest_dtype

    def interpolate_nodes(dom_arg: DA, idx_arg: IA, dest: DEST, fields: FS, values: VS,
                          sums: wp.array(dtype=dest_dtype), counts: wp.array(dtype=float)):
        e, m = wp.tid()
        elt = element_index(idx_arg, e)
        s = S(elt, node_coords(m), -1, 0.0, wp.vec2i(-1, -1), wp.vec2i(-1, -1))
        v = DT(call(s, dom_arg, fields, values))
        node = node_index(dest, elt, m)
        wp.atomic_add(sums, node, v)
        wp.atomic_add(counts, node, 1.0)
    return wp.kernel(interpolate_nodes, module="unique")


def interpolate(integrand, dest=None, at=None, dim=0, domain=None, fields=None, values=None, reduction="sum",
                device=None, kernel_options=None):
    """Evaluate ``integrand`` at the nodes of ``dest`` (a discrete field: its node values
    become the integrand's values, averaged over the elements sharing a node)."""
    if not isinstance(integrand, Integrand):
        raise ValueError("integrand must be tagged with @warp.fem.integrand decorator")
    if at is not None or not isinstance(dest, DiscreteField):
        raise NotImplementedError("fem.interpolate: only interpolation to the nodes of a discrete field is supported yet")
    fields, values = dict(fields or {}), dict(values or {})
    device = wp.get_device(device)
    args = _Arguments(integrand, fields, values)
    domain = domain if domain is not None else Cells(dest.geometry)
    _bind_fields(args, domain)
    domain.register_ops()
    FS, fields_v = fields_struct(integrand, args.fields, device)
    VS, values_v = values_struct(integrand, args.values)
    call = K.cached(("call", integrand, tuple(args.kinds.items())), lambda: IntegrandCall(integrand, args.kinds))
    target = dest.on(domain)
    el_items = tuple(sorted(target.el.items()))
    S = sample_type(domain.geometry.scalar_type)
    types = (domain.ElementArg, domain.ElementIndexArg, target.EvalArg, FS, VS)
    kernel = K.cached(("interp_nodes", integrand, dest.dtype, el_items) + types,
                      lambda: _node_kernel(call, domain, el_items, S, types, dest.dtype))
    n = dest.space.node_count()
    sums = wp.zeros(n, dtype=dest.dtype, device=device)
    counts = wp.zeros(n, dtype=float, device=device)
    wp.launch(kernel, dim=(domain.element_count(), target.el["node_count"]), device=device,
              inputs=[domain.element_arg_value(device), domain.element_index_arg_value(device),
                      target.eval_arg_value(device), fields_v, values_v, sums, counts])
    wp.launch(_average, dim=n, inputs=[sums, counts, dest.dof_values], device=device)
    return dest
