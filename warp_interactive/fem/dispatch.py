"""Bilinear forms assembled by dispatch: the integrand evaluated on unit basis values per
quadrature point, then combined with each node pair's basis values.

A bilinear integrand sees a test (trial) basis function only through its shape weight ``w``
and world gradient ``g`` at the quadrature point, times a unit value component ``c``
(field/at_point.py), and is linear in them. So per (element, quadrature point) the
integrand is evaluated once per pair of "Taylor" inputs (a unit ``w`` or a unit gradient
direction, for test and trial, only those the integrand takes: fem/integrand_scan.py) and
value component pair, weighted by the point's weight and measure, into a work array (the local
kernel); then per (element, test node, trial node) those numbers are contracted with the two
nodes' ``(w, g)`` (the dispatch kernel), giving the same block as evaluating the integrand per
node pair. For Q1 vec3 elasticity in 3-D (gradients only): 81 integrand evaluations per
quadrature point instead of 64 x 9 = 576.

Elements are processed in chunks so the work array stays under ``WORK_BYTES``. Both kernels
of an integral share one module."""

import functools
from typing import Any

import numpy as np

from . import _api as wp
from . import operator as op
from .field import evaluation as ev
from .field.at_point import value_types
from .field.structs import make_struct
from ..state import state
from . import kernels as K
from .integrand_scan import GRAD, VALUE, taylor_needs

WORK_BYTES = 64 << 20

class _Tally:
    """Counts by name; not a dict, so that a float64 twin of this module (fem/precision.py)
    shares it instead of copying it."""

    def __init__(self, *names):
        self._n = dict.fromkeys(names, 0)

    def __getitem__(self, name):
        return self._n[name]

    def __setitem__(self, name, value):
        self._n[name] = value

    def keys(self):
        return self._n.keys()


# assemblies run, by strategy, at either precision (tests read which path an integral took)
counts = _Tally("dispatch", "generic", "nodal")


def _dof_component(role):
    if role == "test":
        @wp.func
        def comp(s: Any):
            return s.test_dof[1]
    else:
        @wp.func
        def comp(s: Any):
            return s.trial_dof[1]
    return comp


@functools.lru_cache(maxsize=None)
def taylor_struct(dtype, dim, role, mapper=None):
    """The struct a test/trial parameter receives in the local kernel: a unit weight/gradient
    direction, and the operators on it (the value component from the sample's dof, through
    the space's dof ``mapper`` if any)."""
    W, GV = value_types(dim)
    tag = getattr(dtype, "__name__", str(dtype))
    if mapper is not None:
        tag += "_" + type(mapper).__name__ + str(getattr(mapper, "DOF_SIZE", ""))
    TPS = make_struct(f"Taylor_{role}_{tag}_{dim}", {"w": W, "g": GV})
    basis_value, basis_grad, _z, _zg, _o = ev.value_makers(dtype, dim, mapper)
    comp = _dof_component(role)

    @wp.func
    def value(p: Any, s: Any):
        return basis_value(p.w, comp(s))

    ops = {"__call__": value, "inner": value, "outer": value, "scalar_type": wp.float32}
    if basis_grad is not None:
        @wp.func
        def grad(p: Any, s: Any):
            return basis_grad(p.g, comp(s))
        ops["grad"] = grad
        if ev._is_vector(dtype):
            ops.update(zip(("div", "D", "curl"), ev.vector_ops(grad)))
    op.register(TPS, ops, f"a {role} field")
    return TPS


@functools.lru_cache(maxsize=None)
def taylor_funcs(dtype, dim, role, mapper, needs, ACC):
    """(count, unit(a) -> struct, coeffs(w, g) -> vector of ``count`` ACC): the Taylor inputs
    of one side (the weight if VALUE is needed, then the gradient's ``dim`` components if GRAD
    is), and a basis function's coordinates on them."""
    TPS = taylor_struct(dtype, dim, role, mapper)
    W, GV = value_types(dim)
    HW, HG = int(VALUE in needs), int(GRAD in needs)
    T = HW + HG * dim
    TV = wp.types.vector(T, ACC)

    @wp.func
    def unit(a: int):
        p = TPS()
        p.w = wp.where(a == 0, W(HW), W(0.0))     # (inputs: the weight first if taken)
        g = GV()
        for i in range(dim):
            g[i] = wp.where(a - HW == i, W(1.0), W(0.0))
        p.g = g
        return p

    if HW and HG:
        @wp.func
        def coeffs(w: Any, g: Any):
            t = TV()
            t[0] = ACC(w)
            for i in range(dim):
                t[1 + i] = ACC(g[i])
            return t
    elif HW:
        @wp.func
        def coeffs(w: Any, g: Any):
            return TV(ACC(w))
    else:
        @wp.func
        def coeffs(w: Any, g: Any):
            t = TV()
            for i in range(dim):
                t[i] = ACC(g[i])
            return t
    return T, unit, coeffs


def layout(comps, counts_, node_counts):
    """(K, R): integrand values per quadrature point, and the work array's numbers per point:
    those K (Taylor pair (a, b) major, value components (c, d) minor), then per test node m
    ``M[m, b, cd] = sum_a tv_m[a] * L[a, b, cd]`` (tv_m: the node's basis function on the test
    Taylor inputs), then each trial node's coordinates on the UT trial inputs."""
    TT, UT = counts_
    CD = comps[0] * comps[1]
    K = TT * UT * CD
    return K, K + node_counts[0] * UT * CD + node_counts[1] * UT


def local_kernel(call, domain, qfuncs, S, ACC, LT, taylor, comps, counts_, node_counts, types, options=None):
    """One thread per (element of the chunk, quadrature point): into ``work[i, q * R:(q + 1) * R]``
    the integrand on every pair of Taylor inputs (a, b) and value components (c, d), times the
    point's weight and measure, at ``((a * UT + b) * TC + c) * UC + d``; then the Taylor
    coordinates of each test and trial node's basis function at the point."""
    DA, IA, QA, TA, UA, FS, VS = types
    element_index, measure = domain.element_index, domain.element_measure
    qp_count, qp_coords, qp_weight, qp_index = qfuncs
    (test_unit, test_at, test_coeffs), (trial_unit, trial_at, trial_coeffs) = taylor
    UC = comps[1]
    CD = comps[0] * comps[1]
    TT, UT = counts_
    TN, UN = node_counts
    K, R = layout(comps, counts_, node_counts)

    def integrate_local(dom_arg: DA, idx_arg: IA, qp_arg: QA, test_arg: TA, trial_arg: UA, fields: FS,
                        values: VS, e0: int, work: wp.array2d(dtype=LT), entries: int, tn: int, un: int):
        i, q = wp.tid()
        e = e0 + i
        elt = element_index(idx_arg, e)
        if q >= qp_count(qp_arg, e, elt):
            return
        w = qp_weight(qp_arg, e, elt, q)
        x = qp_coords(qp_arg, e, elt, q)
        qi = qp_index(qp_arg, e, elt, q)
        wm = ACC(w * measure(dom_arg, S(elt, x, qi, w, wp.vec2i(-1, -1), wp.vec2i(-1, -1))))
        base = q * R
        # entries (= K) given at launch: a run-time bound, so the integrand is inlined once
        for j in range(entries):
            ab = j // CD
            cd = j - ab * CD
            a = ab // UT
            c = cd // UC
            s = S(elt, x, qi, w, wp.vec2i(a, c), wp.vec2i(ab - a * UT, cd - c * UC))
            val = call(s, dom_arg, fields, values, test_unit(a), trial_unit(ab - a * UT))
            work[i, base + j] = LT(wm * ACC(val))
        # node counts given at launch (tn = TN, un = UN): run-time bounds, so the node loops
        # and the basis evaluations in them are not unrolled (a Hexmesh Q1 vec3 module unrolled
        # them into ~700 KB of CUDA that NVRTC did not compile in 10 minutes)
        for m in range(tn):
            pv = test_at(test_arg, S(elt, x, qi, w, wp.vec2i(m, 0), wp.vec2i(-1, -1)), m)
            tv = test_coeffs(pv.w, pv.g)
            for j in range(UT * CD):      # (b, cd)
                acc = ACC(0.0)
                for a in range(TT):
                    acc += tv[a] * ACC(work[i, base + a * UT * CD + j])
                work[i, base + K + m * UT * CD + j] = LT(acc)
        for n in range(un):
            pu = trial_at(trial_arg, S(elt, x, qi, w, wp.vec2i(-1, -1), wp.vec2i(n, 0)), n)
            tu = trial_coeffs(pu.w, pu.g)
            for b in range(UT):
                work[i, base + K + TN * UT * CD + n * UT + b] = LT(tu[b])
    # never recorded on a tape (plan() keeps taped integrals on the generic kernel): no adjoint
    module_options = (options or {}).get("module_options")     # max_unroll etc. of kernel_options
    return wp.kernel(integrate_local, module="unique", enable_backward=False, module_options=module_options)


def dispatch_kernel(module, domain, qfuncs, ACC, LT, node_funcs, setters, block_type, comps, counts_,
                    node_counts, types):
    """One thread per (element of the chunk, test node, trial node): the block of the node pair,
    summed over quadrature points from the work array."""
    DA, IA, QA, TA, UA = types
    element_index = domain.element_index
    qp_count = qfuncs[0]
    test_node, trial_node = node_funcs
    set_entry, zero_block = setters
    TC, UC = comps
    TT, UT = counts_
    CD = TC * UC
    SUMS = wp.types.vector(CD, ACC)
    TN, UN = node_counts
    K, R = layout(comps, counts_, node_counts)

    def integrate_dispatch(dom_arg: DA, idx_arg: IA, qp_arg: QA, test_arg: TA, trial_arg: UA, e0: int,
                           work: wp.array2d(dtype=LT), rows: wp.array(dtype=int), cols: wp.array(dtype=int),
                           vals: wp.array(dtype=block_type)):
        i, m, n = wp.tid()
        e = e0 + i
        elt = element_index(idx_arg, e)
        sums = SUMS(ACC(0.0))
        for q in range(qp_count(qp_arg, e, elt)):
            base = q * R
            mrow = base + K + m * UT * CD
            for b in range(UT):
                tu = ACC(work[i, base + K + TN * UT * CD + n * UT + b])
                for j in range(CD):
                    sums[j] += tu * ACC(work[i, mrow + b * CD + j])
        block = zero_block()
        for c in range(TC):
            for d in range(UC):
                block = set_entry(block, c, d, sums[c * UC + d])
        t = (e * TN + m) * UN + n
        rows[t] = test_node(test_arg, elt, m)
        cols[t] = trial_node(trial_arg, elt, n)
        vals[t] = block
    return wp.kernel(integrate_dispatch, module=module, enable_backward=False)


def chunk_size(elements, row_bytes):
    """Elements per chunk: the work array under WORK_BYTES (at least one element)."""
    return int(max(1, min(elements, WORK_BYTES // max(1, row_bytes))))


def element_chunks(elements, per_chunk):
    for e0 in range(0, elements, per_chunk):
        yield e0, min(per_chunk, elements - e0)


def scalar_bytes(t):
    return np.dtype(wp.dtype_to_numpy(t)).itemsize


def plan(ctx, assembly):
    """(test needs, trial needs) when the integral ``ctx`` (integrate.py) may be assembled by
    dispatch, else None: the generic kernel for ``assembly="generic"``, nodal assembly, an
    integral recorded on a tape (its adjoint is the generic kernel's), fields without point
    values (two-sided, other kinds), and integrands the scan refuses."""
    if assembly == "generic" or ctx.nodal or state.tapes:
        return None
    args = ctx.args
    (tn, test), (un, trial) = args.test, args.trial
    if getattr(test.at, "taylor", None) is None or getattr(trial.at, "taylor", None) is None:
        return None
    callables = [n for n, k in args.kinds.items() if k in ("field", "domain") and n not in (tn, un)]
    needs = taylor_needs(ctx.integrand, args.sample_name, tn, un, callables)
    if needs is None or not needs[0] or not needs[1]:
        return None
    return needs


def _kernels(ctx, needs, test, trial, block_type, setters, node_funcs, node_counts):
    ACC, LT = ctx.ACC, ctx.domain.geometry.scalar_type
    taylor, counts_ = [], []
    for field, need in ((test, needs[0]), (trial, needs[1])):
        dtype, dim, role, mapper = field.at.taylor
        T, unit, coeffs = taylor_funcs(dtype, dim, role, mapper, need, ACC)
        taylor.append((unit, field.at, coeffs))
        counts_.append(T)
    comps = (test.space.value_size, trial.space.value_size)
    dom = (ctx.domain.ElementArg, ctx.domain.ElementIndexArg, ctx.QA, test.EvalArg, trial.EvalArg)

    def make():
        local = local_kernel(ctx.call, ctx.domain, ctx.qfuncs, ctx.S, ACC, LT, taylor, comps, tuple(counts_),
                             node_counts, dom + (ctx.FS, ctx.VS), ctx.options)
        disp = dispatch_kernel(local.module, ctx.domain, ctx.qfuncs, ACC, LT, node_funcs, setters, block_type,
                               comps, tuple(counts_), node_counts, dom)
        return local, disp
    key = ("dispatch", needs, test.EvalArg, trial.EvalArg, test.at, trial.at, block_type, node_counts) + ctx.base_key
    return K.cached(key, make) + layout(comps, counts_, node_counts) + (LT,)


def assemble(ctx, needs, test, trial, block_type, setters, node_funcs, node_counts, triplets):
    """Fill ``triplets`` (rows, cols, vals: one block per element, test node, trial node) by
    the local and dispatch kernels, element chunk by chunk."""
    local, disp, entries, per_point, LT = _kernels(ctx, needs, test, trial, block_type, setters, node_funcs,
                                                   node_counts)
    qmax = ctx.quadrature.max_points_per_element()
    elements = ctx.domain.element_count()
    per = chunk_size(elements, qmax * per_point * scalar_bytes(LT))
    work = wp.empty((per, max(1, qmax * per_point)), dtype=LT, device=ctx.device)
    common = [ctx.dom_arg, ctx.idx_arg, ctx.qarg, test.eval_arg_value(ctx.device), trial.eval_arg_value(ctx.device)]
    for e0, count in element_chunks(elements, per):
        if qmax > 0:
            wp.launch(local, dim=(count, qmax), inputs=common + [ctx.fields, ctx.values, e0, work, entries]
                      + list(node_counts), device=ctx.device)
        wp.launch(disp, dim=(count,) + tuple(node_counts), inputs=common + [e0, work] + list(triplets),
                  device=ctx.device)
