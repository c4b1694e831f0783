"""Loop-invariant code motion for lane-blocked forward bodies (codegen/lanes.py).

A uniform ``for`` loop of a lanes body runs its lane regions once per iteration, so a value the
loop does not change but reads again every iteration costs a gather per lane and iteration:
``pos[j] - pos[i]`` re-reads the thread's own ``pos[i]`` (a stride-3 gather for a vec3) and kept
the n-body loop 7x slower than the same kernel with ``p = pos[i]`` before the loop. Two rewrites,
of the lanes body only (the scalar body is the reference the tests compare it with, bit for bit):

*Local accumulators.* An array parameter ``acc`` whose every use in the loop is an element access
(``acc[i]`` read, ``acc[i] = v``, ``acc[i] += v`` / ``-= v``) at one index tuple that is the
thread's own (own_index.py) and that the loop does not change (not ``acc[m, i]`` in a loop over
``m``), is read once into a local before the loop, updated in the local, and
stored back after it. Exact when no other thread and no other array reaches the element during the
loop: the own index rules out other threads of the launch (through ``acc``); the lanes entry takes
the lanes body only where ``acc``'s bytes overlap no other array parameter's (``wp::data_disjoint``
at run time); kernels holding arrays that are not parameters (views, struct fields, ``mesh_get``)
or struct parameters carrying arrays get no accumulator (they could alias unseen). ``+=`` in the
local performs the atomic's own operation (``wp::own_add_value``: old + v per component).

*Hoisting.* A top-level statement of the loop body that reads nothing the loop writes (nor the loop
index) and computes a pure value (arithmetic and math builtins, constructors, ``select``) moves in
front of the loop; so does an array read (``load``) when nothing in the loop, after the
accumulator rewrite, may write memory (stores, atomics, views, ``@wp.func`` calls that store,
native snippets). The moved statements run in front of the loop only when it runs at least once
(``if (range_continues(start, stop, step))``): the same operations on the same values, once
instead of every iteration, and none where the original ran none (a read out of bounds, an integer
division by zero).
"""

from dataclasses import dataclass, field, replace

from ..lang import ir
from ..lang.translation.grad_of import GradCall
from ..types.array import array as _array_type
from ..types.indexedarray import is_indexed
from .ir_uses import in_place, reads, writes
from ..lang.analysis.walk import statements
from .own_index import _holds_arrays, _indices

# builtin groups whose calls compute a value from their arguments only
PURE_GROUPS = {"Operators", "Scalar Math", "Vector Math", "Matrix Math", "Quaternion Math",
               "Transformations", "Spatial Math"}
PURE_NAMES = {"extract", "select", "where", "cast", "array_shape", "len"}
# builtins that store to memory or hand out a writable alias of an array
STORE_NAMES = {"array_store", "atomic_add", "atomic_sub", "atomic_min", "atomic_max", "atomic_exch",
               "atomic_and", "atomic_or", "atomic_xor", "atomic_cas", "view", "address", "array_ptr",
               "breakpoint"}
STORE_PREFIXES = ("tile_", "volume_store")
# the element accesses an accumulator may have in the loop, and descriptor reads
ACC_ACCESS = {"load", "array_store", "atomic_add", "atomic_sub"}
METADATA = {"array_shape", "len", "array_nonnull"}


class _Builtin:
    """The ``func`` of a statement the rewrite adds (``wp::<cpp>``, no thread context; its
    adjoint ``wp::adj_<cpp>`` when ``differentiable``)."""
    context = False
    replay = None
    input_types = {}
    writes = ()

    def __init__(self, cpp, differentiable=False):
        self.cpp = self.name = cpp
        self.differentiable = differentiable

    def adj_cpp(self):
        return f"adj_{self.cpp}"


def _overload(name, n_args):
    """The registry's overload of the array access ``name`` taking ``n_args`` arguments."""
    from ..lang.builtins.registry import registry
    return next(ov for ov in registry[name].overloads if len(ov.input_types) == n_args)


@dataclass
class LoopPlan:
    body: ir.Block                                  # the loop body, rewritten
    pre: list = field(default_factory=list)         # statements run once before the loop
    post: list = field(default_factory=list)        # statements run once after it
    accumulators: list = field(default_factory=list)  # array parameters kept in locals
    body_vars: list = field(default_factory=list)     # variables the rewrite creates in the body


def _builtin_name(f):
    if hasattr(f, "function") or isinstance(f, GradCall):
        return None
    return getattr(f, "cpp", None)


def may_write_memory(stmts, memo=None):
    """Whether ``stmts`` (nested blocks and called @wp.funcs included) may store to memory."""
    memo = {} if memo is None else memo
    for st in statements(stmts):
        if not isinstance(st, ir.Call):
            continue
        f = st.func
        if isinstance(f, GradCall):
            return True             # an adjoint call adds to array gradients
        if hasattr(f, "function"):
            if getattr(f.function, "native", None) is not None or _func_writes(f, memo):
                return True
            continue
        name = getattr(f, "cpp", "") or ""
        if name in STORE_NAMES or name.startswith(STORE_PREFIXES):
            return True
    return False


def _func_writes(f, memo):
    callee = getattr(f, "ir", None)
    if callee is None:
        return True
    if id(callee) not in memo:
        memo[id(callee)] = True      # a recursive call: assume the worst until known
        memo[id(callee)] = may_write_memory(callee.body.stmts, memo)
    return memo[id(callee)]


def _pure(st):
    """A statement whose result depends on its arguments only (no memory, no thread context)."""
    if isinstance(st, (ir.Const, ir.GetField, ir.SetField, ir.Select)):
        return True
    if not isinstance(st, ir.Call) or not isinstance(st.out, ir.Var) or in_place(st):
        return False
    f = st.func
    name = _builtin_name(f)
    if name is None or getattr(f, "context", False) or getattr(f, "writes", ()):
        return False
    group = getattr(f, "group", "")
    if group in PURE_GROUPS or getattr(f, "name", "") in PURE_NAMES:
        return True
    # constructors: wp.vec3(...), wp.mat33(...), wp.quat(...)
    return group == "Other" and name.startswith("wp::") and "_t<" in name


def _is_load(st):
    return isinstance(st, ir.Call) and _builtin_name(st.func) == "load" and isinstance(st.out, ir.Var)


class Planner:
    """Plans the rewrite of each uniform loop of one kernel's lanes body."""

    def __init__(self, fir, own, analysis):
        self.fir, self.own, self.a = fir, own, analysis
        self.control = analysis.control
        self.memo = {}
        self.keep = []              # rewritten statements (their ids are keys of ``control``)
        self.next_id = max([v.id for v in fir.vars] + [0]) + 1
        self.new_vars = []          # the accumulators' locals
        self.accumulated = []       # their array parameters
        self.moved = []             # statements moved in front of their loop
        stmts = list(statements(fir.body.stmts))
        self.reassigned = {id(v) for st in stmts for v in writes(st)}
        self.alias_free = fir.is_kernel and not any(isinstance(v.type, _array_type) for v in fir.vars) \
            and not any(not isinstance(p.type, _array_type) and _holds_arrays(p.type) for p in fir.params)

    def plan(self, loop, accumulate=True):
        plan = LoopPlan(loop.body)
        for param, index in (self._accumulators(loop) if accumulate else ()):
            self._accumulate(plan, param, index)
        self._hoist(plan, loop)
        return plan

    # --- local accumulators --------------------------------------------------------------------
    def _accumulators(self, loop):
        if not self.alias_free:
            return []
        found = []
        for p in self.fir.params:
            if not isinstance(p.type, _array_type) or is_indexed(p.type) or id(p) in self.reassigned:
                continue
            index = self._own_access(loop, p)
            if index is not None:
                found.append((p, index))
        return found

    def _own_access(self, loop, p):
        """The index tuple of every access to ``p`` in ``loop`` when all are own-index reads,
        stores and ``+=``/``-=`` of the element type at that one tuple, at least one a write."""
        index, wrote = None, False
        for st in statements(loop.body.stmts):
            used = [v for v in reads(st, every_kind=True) if v is p]
            if not used:
                continue
            name = _builtin_name(st.func) if isinstance(st, ir.Call) else None
            if name in METADATA:
                continue
            if name not in ACC_ACCESS or st.args[0] is not p or len(used) != 1:
                return None
            idx = tuple(_indices(st, name))
            if index is None:
                index = idx
            elif len(idx) != len(index) or any(a is not b for a, b in zip(idx, index)):
                return None
            if name != "load":
                wrote = True
                if st.args[-1].type != p.type.dtype:
                    return None
            elif st.out is None or st.out.type != p.type.dtype:
                return None
        if not wrote or not index or not self.own.is_own(index):
            return None
        # the element must be the same one every iteration: an index the loop changes (its own
        # variable, `b[m, i]` in `for m in range(...)`) names another element each time
        varying = {id(getattr(loop, "var", None))} | {id(v) for st in statements(loop.body.stmts)
                                                      for v in writes(st)}
        if any(id(v) in varying for v in index):
            return None
        return index

    def _accumulate(self, plan, p, index):
        local = ir.Var(self.next_id, p.type.dtype)
        self.next_id += 1
        self.new_vars.append(local)
        # a read of the local is a call (not a Copy) so that its result may stay a plain local of
        # its lane region (lanes._storage keeps every Copy target per lane); an update writes a
        # new value copied into the local (the loop state, as the translator writes a `+=`)
        read = _Builtin("own_value", True)

        def rewrite(st):
            if not isinstance(st, ir.Call) or not st.args or st.args[0] is not p:
                return [st]
            name = _builtin_name(st.func)
            if name == "load":
                return [ir.Call(st.lineno, out=st.out, func=read, args=[local])]
            if name == "array_store":
                return [ir.Copy(st.lineno, dst=local, src=st.args[-1])]
            if name in ("atomic_add", "atomic_sub"):
                old = [ir.Call(st.lineno, out=st.out, func=read, args=[local])] \
                    if isinstance(st.out, ir.Var) else []
                op = _Builtin("own_add_value" if name == "atomic_add" else "own_sub_value", True)
                new = ir.Var(self.next_id, p.type.dtype)
                self.next_id += 1
                self.new_vars.append(new)
                plan.body_vars.append(new)
                return old + [ir.Call(st.lineno, out=new, func=op, args=[local, st.args[-1]]),
                              ir.Copy(st.lineno, dst=local, src=new)]
            return [st]

        plan.body = self._rewrite(plan.body, rewrite)
        plan.pre.append(ir.Call(out=local, func=_overload("load", len(index) + 1), args=[p, *index]))
        plan.post.append(ir.Call(out=None, func=_overload("array_store", len(index) + 2),
                                 args=[p, *index, local]))
        plan.accumulators.append(p)
        self.accumulated.append(p)

    def _rewrite(self, block, fn):
        """A copy of ``block`` with every statement ``s`` (at any depth) replaced by ``fn(s)``;
        copied uniform loops and ifs stay uniform control."""
        out = []
        for st in block.stmts:
            subs = {k: self._rewrite(getattr(st, k), fn) for k in ("body", "orelse", "cond_block")
                    if isinstance(getattr(st, k, None), ir.Block)}
            if subs:
                new = replace(st, **subs)
                self.keep.append(new)
                if id(st) in self.control:
                    self.control.add(id(new))
                out.append(new)
            else:
                out += fn(st)
        return ir.Block(out)

    # --- hoisting ------------------------------------------------------------------------------
    def _hoist(self, plan, loop):
        body = plan.body.stmts
        varying = {id(loop.var)} | {id(v) for st in statements(body) for v in writes(st)}
        count = {}
        for st in statements(body):
            for v in writes(st):
                count[id(v)] = count.get(id(v), 0) + 1
        memory = not may_write_memory(body, self.memo)
        kept, read_before = [], set()
        for st in body:
            outs = writes(st)
            # uniform statements run once per iteration anyway, and constants left in place
            # stay known to the compiler
            movable = (_pure(st) or (memory and _is_load(st))) and not self.a.is_uniform_stmt(st) and \
                not any(id(v) in varying for v in reads(st)) and \
                all(count.get(id(v)) == 1 and id(v) not in read_before for v in outs)
            if movable:
                plan.pre.append(st)
                self.moved.append(st)
                varying -= {id(v) for v in outs}
            else:
                kept.append(st)
                read_before |= {id(v) for s in statements([st]) for v in reads(s)}
        plan.body = ir.Block(kept)


# --- backward ------------------------------------------------------------------------------------
def hoisted_for_backward(fir, a):
    """(a copy of ``fir`` for the lanes backward body (lanes_backward.py), the ids of its guard
    ``If``s, the array parameters it keeps elements of in locals). Its top-level uniform loops
    have their loop-invariant statements and their accumulators' reads in front, under
    ``if (range_continues(start, stop, step))``, and the accumulators' stores after them under
    the same flag. Statements moved in front leave the loop's ``body_vars``: their adjoints sum
    over the iterations and reach the gradient once after the reverse loop (``pos[i]`` read in an
    n-body loop: one atomic add per thread instead of one per iteration). An accumulator is kept
    only where the loop's reverse reads no value of it (not exact-state, loop_state.py): the
    adjoint's replay reads an element as memory holds it after the forward, a local holds the
    loop's values, and only where no value is read are the two the same gradient. ``a`` (the
    lanes Analysis) learns the new loops and the guards' flags."""
    from ..types import scalars as sc
    from .loop_state import carried, needs_exact
    from .own_index import OwnIndex
    stmts, guards, accumulated = [], set(), []
    planner = Planner(fir, OwnIndex(fir), a)
    for st in fir.body.stmts:
        if not (isinstance(st, ir.ForRange) and id(st) in a.control):
            stmts.append(st)
            continue
        kept = len(planner.new_vars)
        plan = planner.plan(st, accumulate=True)
        probe = replace(st, body=plan.body)
        if plan.accumulators and needs_exact(probe, carried(probe)):
            del planner.new_vars[kept:]
            plan = planner.plan(st, accumulate=False)
        if not plan.pre:
            stmts.append(st)
            continue
        moved = {id(v) for s in plan.pre for v in writes(s)}
        loop = replace(st, body=plan.body,
                       body_vars=[v for v in st.body_vars if id(v) not in moved] + plan.body_vars)
        flag = ir.Var(planner.next_id, sc.bool_)
        planner.next_id += 1
        planner.new_vars.append(flag)
        a.uniform.add(id(flag))
        a.control.add(id(loop))
        new = [ir.Call(st.lineno, out=flag, func=_Builtin("range_continues"), args=[st.start, st.stop, st.step]),
               ir.If(st.lineno, cond=flag, body=ir.Block(plan.pre), orelse=ir.Block()), loop]
        if plan.post:
            new.append(ir.If(st.lineno, cond=flag, body=ir.Block(plan.post), orelse=ir.Block()))
        guards |= {id(x) for x in new if isinstance(x, ir.If)}
        planner.keep += new
        stmts += new
        accumulated += plan.accumulators
    if not guards:
        return fir, guards, []
    out = replace(fir, body=ir.Block(stmts), vars=list(fir.vars) + planner.new_vars)
    out._keep = planner.keep        # the ids in ``guards`` and ``a.control`` stay theirs
    return out, guards, accumulated
