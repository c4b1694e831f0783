"""The kernels of integrals and interpolations, made per combination of integrand, domain,
quadrature and field kinds (closures over their @wp.funcs; each its own module, so editing one
integrand rebuilds only its kernels).

Launch shapes: a scalar integral runs one thread per element; a linear form one per (element,
test node); a bilinear form one per (element, test node, trial node), each writing one triplet
(block) of the matrix. Per quadrature point, the test/trial basis functions are evaluated once
(field/at_point.py) and the integrand once per block entry (component pair). With ``nodal``
assembly the quadrature points are the test nodes, each weighted by its nodal weight."""

import functools
from typing import Any

from . import _api as wp
from .precision import Cache

_kernels = Cache()


def cached(key, make):
    k = _kernels.get(key)
    if k is None:
        k = _kernels[key] = make()
    return k


@functools.lru_cache(maxsize=None)
def node_index_func(el_items):
    el = dict(el_items)
    if "element_node_index" in el:     # nodes not all in one cell (two-sided DG sides)
        element_node_index = el["element_node_index"]

        @wp.func
        def node_index(f: Any, element: int, m: int):
            return element_node_index(f.elt, element, m)
        return node_index
    cell_node_index, cell_arg = el["cell_node_index"], el["cell_arg"]
    element_cell, cell_node = el["element_cell"], el["cell_node"]

    @wp.func
    def node_index(f: Any, element: int, m: int):
        return cell_node_index(cell_arg(f.elt), element_cell(f.elt, element), cell_node(f.elt, element, m))
    return node_index


@functools.lru_cache(maxsize=None)
def quadrature_point_funcs(quad_funcs, el_items, nodal):
    """count(qarg, e, elt), coords/weight/index(qarg, e, elt, q) (e the domain's element, elt the
    geometry's): the
    quadrature's (``quad_funcs``, those four), or, for nodal assembly, the test element's nodes."""
    if not nodal:
        return quad_funcs
    el = dict(el_items)
    node_coords, node_weight = el["node_coords"], el["node_weight"]
    N = el["node_count"]

    @wp.func
    def count(qarg: Any, e: int, elt: int):
        return N

    @wp.func
    def coords(qarg: Any, e: int, elt: int, q: int):
        return node_coords(q)

    @wp.func
    def weight(qarg: Any, e: int, elt: int, q: int):
        return node_weight(q)

    @wp.func
    def index(qarg: Any, e: int, elt: int, q: int):
        return -1
    return count, coords, weight, index


@functools.lru_cache(maxsize=None)
def accumulator(out_dtype, components, ACC):
    """(vector type of ``components`` ACC sums, add(out, node, sums)): adds the sums, cast to
    ``out_dtype``, to out[node]."""
    SUMS = wp.types.vector(components, ACC)
    if components == 1:
        S = out_dtype

        @wp.func
        def add(out: Any, node: int, sums: Any):
            wp.atomic_add(out, node, S(sums[0]))
    else:
        V = out_dtype
        S = out_dtype._wp_scalar_type_

        @wp.func
        def add(out: Any, node: int, sums: Any):
            v = V(S(0.0))
            for c in range(components):
                v[c] = S(sums[c])
            wp.atomic_add(out, node, v)
    return SUMS, add


@functools.lru_cache(maxsize=None)
def block_setters(block_type):
    if getattr(block_type, "_kind_", None) == "matrix":
        S = block_type._wp_scalar_type_

        @wp.func
        def set_entry(b: Any, c: int, d: int, value: Any):
            r = b
            r[c, d] = S(value)
            return r

        @wp.func
        def zero_block():
            return block_type(S(0.0))
    else:
        @wp.func
        def set_entry(b: Any, c: int, d: int, value: Any):
            return block_type(value)

        @wp.func
        def zero_block():
            return block_type(0.0)
    return set_entry, zero_block


@wp.kernel
def gather_add(src: wp.array(dtype=Any), indices: wp.array(dtype=int), dest: wp.array(dtype=Any)):
    i = wp.tid()
    dest[i] = dest[i] + src[indices[i]]


@wp.kernel
def remap_indices(index: wp.array(dtype=int), to_local: wp.array(dtype=int)):
    i = wp.tid()
    if index[i] >= 0:
        index[i] = to_local[index[i]]


@wp.kernel
def add_cast(src: wp.array(dtype=Any), dest: wp.array(dtype=Any)):
    i = wp.tid()
    dest[i] = dest[i] + type(dest[i])(src[i])


def kernel_args(integrand, kernel_options=None):
    """``wp.kernel``'s arguments for an integral's or interpolation's kernel: the integrand's
    ``kernel_options`` updated by the call's (``enable_backward``; the others, such as
    ``max_unroll``, are module options: an unknown name is an error, as for ``wp.kernel``)."""
    opts = {**(getattr(integrand, "kernel_options", None) or {}), **(kernel_options or {})}
    out = {}
    if "enable_backward" in opts:
        out["enable_backward"] = bool(opts.pop("enable_backward"))
    if opts:
        out["module_options"] = opts
    return out


def options_key(options):
    return tuple(sorted((k, repr(v)) for k, v in options.items()))


def scalar_kernel(call, domain, qfuncs, S, ACC, types, options=None):
    DA, IA, QA, FS, VS = types
    element_index, measure = domain.element_index, domain.element_measure
    qp_count, qp_coords, qp_weight, qp_index = qfuncs

    def integrate_scalar(dom_arg: DA, idx_arg: IA, qp_arg: QA, fields: FS, values: VS,
                         out: wp.array(dtype=ACC)):
        e = wp.tid()
        elt = element_index(idx_arg, e)
        acc = ACC(0.0)
        for q in range(qp_count(qp_arg, e, elt)):
            w = qp_weight(qp_arg, e, elt, q)
            s = S(elt, qp_coords(qp_arg, e, elt, q), qp_index(qp_arg, e, elt, q), w, wp.vec2i(-1, -1), wp.vec2i(-1, -1))
            acc += ACC(w * measure(dom_arg, s)) * ACC(call(s, dom_arg, fields, values))
        wp.atomic_add(out, 0, acc)
    return wp.kernel(integrate_scalar, module="unique", **(options or {}))


def linear_kernel(call, domain, qfuncs, S, ACC, test_node, test_at, adder, comps, out_dtype, types, nodal=False,
                  options=None):
    DA, IA, QA, TA, FS, VS = types
    element_index, measure = domain.element_index, domain.element_measure
    qp_count, qp_coords, qp_weight, qp_index = qfuncs
    SUMS, add = adder
    NODAL = int(nodal)      # nodal assembly: a point's index is its node's (as warp-lang's)

    def integrate_linear(dom_arg: DA, idx_arg: IA, qp_arg: QA, test_arg: TA, fields: FS, values: VS,
                         out: wp.array(dtype=out_dtype), components: int):
        e, m = wp.tid()
        elt = element_index(idx_arg, e)
        sums = SUMS(ACC(0.0))
        for q in range(qp_count(qp_arg, e, elt)):
            w = qp_weight(qp_arg, e, elt, q)
            x = qp_coords(qp_arg, e, elt, q)
            qi = wp.where(NODAL == 1, test_node(test_arg, elt, q), qp_index(qp_arg, e, elt, q))
            s0 = S(elt, x, qi, w, wp.vec2i(m, 0), wp.vec2i(-1, -1))
            v = test_at(test_arg, s0, m)
            wm = ACC(w * measure(dom_arg, s0))
            for c in range(components):     # a run-time bound: the integrand is inlined once
                s = S(elt, x, qi, w, wp.vec2i(m, c), wp.vec2i(-1, -1))
                sums[c] += wm * ACC(call(s, dom_arg, fields, values, v))
        add(out, test_node(test_arg, elt, m), sums)
    return wp.kernel(integrate_linear, module="unique", **(options or {}))


def bilinear_kernel(call, domain, qfuncs, S, ACC, node_funcs, at_funcs, setters, block_type,
                    comps, nodal, node_counts, types, options=None):
    DA, IA, QA, TA, UA, FS, VS = types
    element_index, measure = domain.element_index, domain.element_measure
    qp_count, qp_coords, qp_weight, qp_index = qfuncs
    test_node, trial_node = node_funcs
    test_at, trial_at = at_funcs
    set_entry, zero_block = setters
    TC, UC = comps
    SUMS = wp.types.vector(TC * UC, ACC)
    NODAL = int(nodal)
    TN = node_counts[0]
    UN = 1 if nodal else node_counts[1]

    def integrate_bilinear(dom_arg: DA, idx_arg: IA, qp_arg: QA, test_arg: TA, trial_arg: UA,
                           fields: FS, values: VS, rows: wp.array(dtype=int), cols: wp.array(dtype=int),
                           vals: wp.array(dtype=block_type), entries: int):
        e, m, k = wp.tid()
        n = wp.where(NODAL == 1, m, k)
        elt = element_index(idx_arg, e)
        sums = SUMS(ACC(0.0))
        for q in range(wp.where(NODAL == 1, 1, qp_count(qp_arg, e, elt))):
            p = wp.where(NODAL == 1, m, q)
            w = qp_weight(qp_arg, e, elt, p)
            x = qp_coords(qp_arg, e, elt, p)
            qi = wp.where(NODAL == 1, test_node(test_arg, elt, m), qp_index(qp_arg, e, elt, p))
            s0 = S(elt, x, qi, w, wp.vec2i(m, 0), wp.vec2i(n, 0))
            v = test_at(test_arg, s0, m)
            u = trial_at(trial_arg, s0, n)
            wm = ACC(w * measure(dom_arg, s0))
            # entries: TC * UC given at launch, so the loop has a run-time bound and the
            # integrand is translated (inlined) once, not once per block entry
            for j in range(entries):
                c = j // UC
                s = S(elt, x, qi, w, wp.vec2i(m, c), wp.vec2i(n, j - c * UC))
                sums[j] += wm * ACC(call(s, dom_arg, fields, values, v, u))
        block = zero_block()
        for c in range(TC):
            for d in range(UC):
                block = set_entry(block, c, d, sums[c * UC + d])
        i = (e * TN + m) * UN + k
        rows[i] = test_node(test_arg, elt, m)
        cols[i] = trial_node(trial_arg, elt, n)
        vals[i] = block
    return wp.kernel(integrate_bilinear, module="unique", **(options or {}))
