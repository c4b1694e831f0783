"""``fem.integrate``: integrals of integrands over domains, to scalars, vectors and BSR matrices."""

import numpy as np

from . import _api as wp
from .precision import follow_precision

from ..lang.definitions.generics import type_of_value
from . import dispatch as D
from . import kernels as K
from .domain import Cells
from .field.fields import DiscreteField, TestField, TrialField
from .field.structs import make_struct
from .integrand import Integrand, IntegrandCall
from .quadrature import RegularQuadrature, point_funcs
from .types import Domain, Field, Sample, Sample_f64, sample_type


class _Arguments:
    """An integrand's parameters sorted by what they take."""

    def __init__(self, integrand, fields, values):
        self.kinds, self.fields, self.values = {}, {}, {}
        self.sample_name = self.domain_name = None
        self.test = self.trial = None
        for name, ann in integrand.params().items():
            if ann in (Sample, Sample_f64):
                self.kinds[name], self.sample_name = "sample", name
            elif ann is Domain:
                self.kinds[name], self.domain_name = "domain", name
            elif ann is Field or name in fields:
                if name not in fields:
                    raise ValueError(f"fem.integrate({integrand.name}): no field given for parameter '{name}'")
                self.kinds[name], f = "field", fields[name]
                self.fields[name] = f
                if isinstance(f, TrialField):
                    self.trial = (name, f)
                elif isinstance(f, TestField):
                    self.test = (name, f)
            else:
                if name not in values:
                    raise ValueError(f"fem.integrate({integrand.name}): no value given for parameter '{name}'")
                self.kinds[name] = "value"
                self.values[name] = (ann, values[name])
        extra = (set(fields) | set(values)) - set(self.kinds)
        if extra:
            raise ValueError(f"fem.integrate({integrand.name}): the integrand has no parameter(s) "
                             f"{', '.join(sorted(extra))}")


def values_struct(integrand, values):
    """(struct type, instance) carrying the integrand's plain values."""
    types = {}
    for name, (ann, value) in values.items():
        t = ann if ann is not None else type_of_value(value)
        if t is None:
            raise TypeError(f"fem: cannot pass {value!r} as '{name}' of {integrand.name} (give it a type annotation)")
        types[name] = t
    st = make_struct(f"{integrand.name}_values", types)
    inst = st()
    for name, (_ann, value) in values.items():
        setattr(inst, name, value)
    return st, inst


def fields_struct(integrand, fields, device):
    st = make_struct(f"{integrand.name}_fields", {k: f.EvalArg for k, f in fields.items()})
    inst = st()
    for name, f in fields.items():
        setattr(inst, name, f.eval_arg_value(device))
    return st, inst


def _canonical_scalar(t):
    """output_dtype's scalar type (Python float is float32; a vector type gives its scalars)."""
    t = {float: wp.float32, int: wp.int32}.get(t, t)
    return getattr(t, "_wp_scalar_type_", t)


def _resolve_domain(args, domain, quadrature=None):
    for f in (args.test, args.trial):
        if f is not None:
            if domain is not None and f[1].domain is not domain and type(f[1].domain) is not type(domain):
                raise ValueError("fem.integrate: the domain differs from the test/trial fields' domain")
            return f[1].domain
    if domain is not None:
        return domain
    if quadrature is not None:
        return quadrature.domain
    for f in args.fields.values():
        return f.domain
    raise ValueError("fem.integrate: no domain given and none can be told from the fields")


def _bind_fields(args, domain):
    """Discrete fields evaluated on the integration domain."""
    for name, f in list(args.fields.items()):
        if not isinstance(f, TestField):
            args.fields[name] = f.on(domain)


@follow_precision
def integrate(integrand, domain=None, quadrature=None, fields=None, values=None, accumulate_dtype=wp.float64,
              output_dtype=None, output=None, device=None, temporary_store=None, kernel_options=None,
              assembly=None, add=False, bsr_options=None):
    """The integral of ``integrand`` over ``domain``: a number when it takes no test field, an
    array over the test space's nodes with a test field, a BSR matrix with test and trial."""
    if not isinstance(integrand, Integrand):
        raise ValueError("integrand must be tagged with @warp.fem.integrand decorator")
    fields, values = dict(fields or {}), dict(values or {})
    device = wp.get_device(device)
    output_dtype = _canonical_scalar(output_dtype)
    args = _Arguments(integrand, fields, values)
    domain = _resolve_domain(args, domain, quadrature)
    _bind_fields(args, domain)
    if args.trial is not None and args.test is None:
        raise ValueError("fem.integrate: a trial field needs a test field")
    if assembly not in (None, "generic", "nodal", "dispatch"):
        raise ValueError(f"Invalid assembly strategy'{assembly}'")
    nodal = assembly == "nodal"
    if nodal:
        if quadrature is not None:
            raise ValueError("Cannot specify quadrature for nodal integration")
        if args.test is None:
            raise ValueError("Nodal integration requires specifying a test function")
    elif quadrature is None:
        quadrature = RegularQuadrature(domain, order=sum(f.degree for f in args.fields.values()))
    elif quadrature.domain is not domain and (type(quadrature.domain) is not type(domain)
                                              or quadrature.domain.geometry is not domain.geometry):
        raise ValueError("Incompatible integration and quadrature domain")
    domain.register_ops()
    ctx = _Context(integrand, args, domain, quadrature, nodal, accumulate_dtype, device,
                   K.kernel_args(integrand, kernel_options))
    if args.test is None:
        return ctx.scalar(output_dtype, output, add)
    if args.trial is None:
        return ctx.linear(output_dtype, output, add)
    return ctx.bilinear(output_dtype, output, add, bsr_options, assembly)


def _vectors_view(output, rows, comps):
    """A scalar output array of a vector-valued linear form, seen as ``rows`` vectors (warp-lang's
    layouts: ``(rows * comps,)`` contiguous, or ``(rows, comps)``)."""
    if output.ndim > 2:
        raise RuntimeError("Scalar output arrays of vector-valued linear forms must be one- or two-dimensional, "
                           f"got {output.ndim} dimensions")
    if output.ndim == 2 and output.shape[1] != comps:
        raise RuntimeError(f"Two-dimensional output array: last dimension must be of size {comps} "
                           f"(the test field's dofs per node), got {output.shape[1]}")
    if output.ndim == 1 and output.shape[0] < rows * comps:
        raise RuntimeError(f"Flat output array must have at least {rows * comps} entries, got {output.shape[0]}")
    if not output.is_contiguous:
        raise RuntimeError("Flat output array must be contiguous (it is read as an array of vectors)")
    return wp.array(ptr=output.ptr, shape=(rows,), dtype=wp.types.vector(comps, output.dtype), device=output.device)


def _diagonal_triplets(rows, vals, block_type):
    """A nodal matrix's triplets merged to one per node, as warp-lang builds nodal matrices: its
    ``values`` then hold exactly one block per assembled node (examples index them by node)."""
    r = rows.numpy()
    keep = r >= 0
    r, v = r[keep], vals.numpy()[keep]
    nodes, inverse = np.unique(r, return_inverse=True)
    sums = np.zeros((len(nodes),) + v.shape[1:], dtype=v.dtype)
    np.add.at(sums, inverse, v)
    idx = wp.array(nodes.astype(np.int32), dtype=int, device=rows.device)
    return idx, idx, wp.array(sums, dtype=block_type, device=rows.device)


class _Context:
    """One integral's launch arguments and kernel choices."""

    def __init__(self, integrand, args, domain, quadrature, nodal, accumulate_dtype, device, options):
        self.integrand, self.args, self.domain, self.nodal = integrand, args, domain, nodal
        self.device = device
        self.ACC = accumulate_dtype
        self.S = sample_type(domain.geometry.scalar_type)
        self.FS, self.fields = fields_struct(integrand, args.fields, device)
        self.VS, self.values = values_struct(integrand, args.values)
        kinds = dict(args.kinds)
        for role, f in (("test", args.test), ("trial", args.trial)):
            if f is not None:
                kinds[f[0]] = role
        self.call = K.cached(("call", integrand, tuple(kinds.items())), lambda: IntegrandCall(integrand, kinds))
        self.quadrature = quadrature
        test_el = args.test[1].el if args.test is not None else None
        self.el_items = tuple(sorted(test_el.items())) if test_el is not None else None
        qfuncs = point_funcs(quadrature if quadrature is not None else RegularQuadrature)
        self.qfuncs = K.quadrature_point_funcs(qfuncs, self.el_items, nodal)
        self.QA = quadrature.Arg if quadrature is not None else RegularQuadrature.Arg
        self.qarg = quadrature.arg_value(device) if quadrature is not None else RegularQuadrature.Arg()
        self.dom_arg = domain.element_arg_value(device)
        self.idx_arg = domain.element_index_arg_value(device)
        self.options = options
        self.base_key = (integrand, domain.ElementArg, domain.ElementIndexArg, self.QA, self.qfuncs,
                         self.FS, self.VS, self.S, self.ACC, K.options_key(options))

    def _launch(self, kernel, dim, extra):
        wp.launch(kernel, dim=dim, inputs=[self.dom_arg, self.idx_arg, self.qarg] + extra, device=self.device)

    def scalar(self, output_dtype, output, add):
        types = (self.domain.ElementArg, self.domain.ElementIndexArg, self.QA, self.FS, self.VS)
        kernel = K.cached(("scalar",) + self.base_key, lambda: K.scalar_kernel(
            self.call, self.domain, self.qfuncs, self.S, self.ACC, types, self.options))
        direct = output is not None and output.dtype == self.ACC
        if direct and not add:
            output.zero_()
        acc = output if direct else wp.zeros(1, dtype=self.ACC, device=self.device,
                                             requires_grad=output is not None and output.requires_grad)
        self._launch(kernel, self.domain.element_count(), [self.fields, self.values, acc])
        if direct:
            return output
        if output is not None:     # cast into it (a kernel: a recording tape follows it)
            if not add:
                output.zero_()
            wp.launch(K.add_cast, dim=1, inputs=[acc, output], device=self.device)
            return output
        out_t = output_dtype or self.domain.geometry.scalar_type
        # a NumPy scalar, as warp-lang's (NumPy functions take it; float64 keeps its precision)
        return wp.dtype_to_numpy(out_t).type(acc.numpy()[0])

    def linear(self, output_dtype, output, add):
        test = self.args.test[1]
        space = test.space
        part = test.space_partition
        rows = part.node_count() if part is not None else space.node_count()
        comps = space.value_size
        scalar = output_dtype or self.domain.geometry.scalar_type
        out_dtype = scalar if comps == 1 else wp.types.vector(comps, scalar)
        given = output
        if output is not None:
            if comps > 1 and getattr(output.dtype, "_kind_", None) is None:
                output = _vectors_view(output, rows, comps)
            if output.shape[0] < rows:     # (atomics by node index would run past its end)
                raise RuntimeError(f"Output array must have at least {rows} rows")
            out_dtype = output.dtype
            if not add:
                output.zero_()
        else:
            output = given = wp.zeros(rows, dtype=out_dtype, device=self.device)
        if part is None:
            self._linear(test, comps, out_dtype, output)
            return given
        # sums by global node, then the partition's nodes gathered from them
        full = wp.zeros(space.node_count(), dtype=out_dtype, device=self.device, requires_grad=output.requires_grad)
        self._linear(test, comps, out_dtype, full)
        wp.launch(K.gather_add, dim=rows, inputs=[full, part.space_node_indices(self.device), output],
                  device=self.device)
        return given

    def _linear(self, test, comps, out_dtype, output):
        test_node = K.node_index_func(self.el_items)
        adder = K.accumulator(out_dtype, comps, self.ACC)
        types = (self.domain.ElementArg, self.domain.ElementIndexArg, self.QA, test.EvalArg, self.FS, self.VS)
        kernel = K.cached(("linear", test.EvalArg, test.at, out_dtype) + self.base_key, lambda: K.linear_kernel(
            self.call, self.domain, self.qfuncs, self.S, self.ACC, test_node, test.at, adder, comps, out_dtype,
            types, self.nodal, self.options))
        dim = (self.domain.element_count(), test.node_count())
        self._launch(kernel, dim, [test.eval_arg_value(self.device), self.fields, self.values, output, comps])
        return output

    def bilinear(self, output_dtype, output, add, bsr_options, assembly=None):
        from .assembly import matrix_from_triplets
        test, trial = self.args.test[1], self.args.trial[1]
        if self.nodal and test.space is not trial.space and test.space.name != trial.space.name:
            raise ValueError("Bilinear nodal integration requires test and trial to be defined on the same function space")
        tc, uc = test.space.value_size, trial.space.value_size
        scalar = output_dtype or (output.scalar_type if output is not None else self.domain.geometry.scalar_type)
        block_type = scalar if (tc, uc) == (1, 1) else wp.types.matrix(shape=(tc, uc), dtype=scalar)
        setters = K.block_setters(block_type)
        node_funcs = (K.node_index_func(self.el_items), K.node_index_func(tuple(sorted(trial.el.items()))))
        counts = (test.node_count(), trial.node_count())
        dim = (self.domain.element_count(), counts[0], 1 if self.nodal else counts[1])
        n = dim[0] * dim[1] * dim[2]
        rows = wp.empty(n, dtype=int, device=self.device)
        cols = wp.empty(n, dtype=int, device=self.device)
        vals = wp.empty(n, dtype=block_type, device=self.device)
        needs = D.plan(self, assembly)
        if needs is not None:
            D.assemble(self, needs, test, trial, block_type, setters, node_funcs, counts, (rows, cols, vals))
            D.counts["dispatch"] += 1
        else:
            kernel = self._bilinear_kernel(test, trial, block_type, setters, node_funcs, counts)
            self._launch(kernel, dim, [test.eval_arg_value(self.device), trial.eval_arg_value(self.device),
                                       self.fields, self.values, rows, cols, vals, tc * uc])
            D.counts["nodal" if self.nodal else "generic"] += 1
        shape = []
        for field, index in ((test, rows), (trial, cols)):
            part = field.space_partition
            if part is not None:     # global node indices to the partition's (-1: dropped)
                wp.launch(K.remap_indices, dim=n, inputs=[index, part.space_to_partition(self.device)],
                          device=self.device)
            shape.append(part.node_count() if part is not None else field.space.node_count())
        if self.nodal:
            rows, cols, vals = _diagonal_triplets(rows, vals, block_type)
        return matrix_from_triplets(shape[0], shape[1], rows, cols, vals, block_type, output, add, bsr_options)

    def _bilinear_kernel(self, test, trial, block_type, setters, node_funcs, counts):
        """The generic kernel: the integrand evaluated per (element, test node, trial node)."""
        types = (self.domain.ElementArg, self.domain.ElementIndexArg, self.QA, test.EvalArg, trial.EvalArg,
                 self.FS, self.VS)
        comps = (test.space.value_size, trial.space.value_size)
        return K.cached(("bilinear", test.EvalArg, trial.EvalArg, test.at, trial.at, block_type, counts)
                        + self.base_key,
                        lambda: K.bilinear_kernel(self.call, self.domain, self.qfuncs, self.S, self.ACC,
                                                  node_funcs, (test.at, trial.at), setters, block_type, comps,
                                                  self.nodal, counts, types, self.options))
