"""IR statements -> C++ lines. Each statement kind writes its forward form, its replay form
(the forward pass re-run inside the adjoint, without side effects on memory or output) and its
reverse form side by side, in one place."""

from ..lang import ir
from ..lang.analysis.walk import statements
from ..lang.translation.grad_of import GradCall
from ..lang.builtins.print_format import split_format
from ..types import composite as comp
from ..types import scalars as sc
from ..types.array import array
from ..types.indexedarray import is_indexed
from ..types.fixedarray import is_fixed
from ..types.tile import is_tile
from .cpp_types import c_string, cpp_type, field, literal
from .own_index import OwnIndex
from .native_func import replay_name
from .ir_uses import writes
from . import loop_state
from . import replay_prune
from . import polls

CONTEXT_ARGS = "_idx, _dim"          # what a builtin flagged `context` receives first
# debug mode: a run-time tile index or window offset outside the tile is recorded like an array's
# (release builds read zeros / drop writes for it: tile.h)
_TILE_INDEX_CHECKS = {"tile_index": "check_tile_index", "tile_index_offset": "check_tile_index",
                      "tile_window_offset": "check_tile_window"}
_FROM_RESULT = ("sqrt", "exp")     # builtins whose adjoint reads their result: adj_<name>_of
# The replays of stores and atomics that repeat them on a stack array (WPI_ARRAY_LOCAL, core.h);
# a function holding no wp.fixedarray gets the plain ones (nothing stored, the value read), as
# the arrays it can reach (its parameters, their views) already hold what its forward wrote
_PLAIN_REPLAY = {"array_store_local": "", "atomic_cas_local": "atomic_cas_replay",
                 **{f"atomic_{op}_local": "atomic_replay"
                    for op in ("add", "sub", "min", "max", "exch", "and", "or", "xor")}}
BOUNDS_CHECKED = {"load", "view", "array_store", "atomic_add", "atomic_sub", "atomic_min",
                  "atomic_max", "atomic_cas", "atomic_exch", "address"}


def _is_user_call(func):
    return hasattr(func, "function")


def _native_replay(callee):
    return callee is not None and callee.native is not None and callee.native.replay_snippet is not None


class BodyWriter:
    """Writes one function's forward, replay and reverse C++ from its IR."""

    def __init__(self, fir, debug=False, func_name="", functions=None):
        """``functions``: the ModuleIR's CalleeIRs by C++ name (the user functions ``fir`` calls)."""
        self.fir = fir
        self.functions = functions or {}
        self.debug = debug
        self.func_name = func_name
        self.return_labels = 0
        self.loop_depth = 0     # returns inside dynamic loops leave the adjoint (no labels)
        self.in_kernel = fir.is_kernel
        self.local_arrays = any(is_fixed(v.type) for v in fir.vars)    # holds a wp.fixedarray
        self.own = OwnIndex(fir)    # array accesses at the thread's own index (plain adjoints)
        self.own_arrays = self.own.own_arrays(fir)   # whose read adjoints may be plain (own_index.py)
        self.own_adds = self.own.own_adds(fir)       # whose `+=` may be plain adds (own_index.py)
        self._marked_file = False
        # adjoint bookkeeping of dynamic loops (declared at the top of the adjoint function)
        self.extra_decls = []   # trip counters, loop-state snapshots, copy shadows
        self.ids = {}           # id(stmt) -> small number, for names of the above
        self.exact = {}         # id(loop) -> whether it keeps checkpoints of its state
        self.counted = set()    # top-level loops the replay only counts (loop_state.py)
        self.dead = set()       # statements the replay leaves out (replay_prune.py)
        self.jump = None        # break/continue -> label, while replaying a loop being reversed
        self.labels = {}        # the same map, read by the reverse of that loop body
        self.ret_target = None  # outermost loop of the replay being written: a return in it
        self.ret_loops = set()  # jumps to the reverse of that loop (labels _retloop_<L>)
        self.ticks = False      # whether a loop polls for Ctrl-C (codegen/polls.py)
        self._polls_memo = {}   # user function -> whether its calls may return early
        self._single_defs = None    # ids of variables one statement writes (_from_result)
        self.tid_coords = False     # wp.tid() components are the body's parameters _t<k> (tid_rows.py)

    def adjoint(self, block, ind):
        """Declarations, forward replay and reverse of ``block`` (an adjoint function body)."""
        # a loop that stores into a stack array (wp.zeros in this function) must be replayed:
        # the replay makes the array afresh, and what follows reads what the loop stored there
        self.counted = set() if self.local_arrays else {id(st) for i, st in enumerate(block.stmts)
                                            if loop_state.replay_skippable(st, block.stmts[i + 1:])}
        self.dead = replay_prune.dead_replays(block)
        body = self.forward(block, ind, replay=True) + self.reverse(block, ind)
        return self.extra_decls + body

    def prologue(self):
        """Lines a forward function needs before its body: the poll counter of its loops (an
        adjoint gets it from ``adjoint()``, with its other declarations)."""
        return [self._m(polls.TICKS)] if self.ticks else []

    def loop_poll(self, p, replay=False):
        """The first line of a dynamic loop's body (``p``: the loop's indentation)."""
        self._declare_ticks()
        return f"{p}    if ({self._m(polls.LOOP_STOP)}) {self._fail(replay)}"

    def _declare_ticks(self):
        self.ticks = True
        if self._m(polls.TICKS) not in self.extra_decls:
            self.extra_decls.insert(0, self._m(polls.TICKS))

    def _m(self, macro):
        return polls.spelling(macro, self.in_kernel)

    def range_poll(self, p, replay=False):
        """(first line of a range loop's body, line after the loop): the loop ends through its
        condition (``for_head(..., poll=True)``) and the function returns after it, so the loop
        keeps one exit."""
        self.loop_poll(p, replay)   # declares the counter and the flag
        return f"{p}    {self._m(polls.LOOP_POLL)}", f"{p}if ({polls.STOPPED}) {self._fail(replay)}"

    def _call_poll(self, s, p, replay):
        """After a call of a user function that may have returned early on an interrupt."""
        if _is_user_call(s.func) and polls.calls_poll(s.func.cpp, self.functions, self._polls_memo):
            self._declare_ticks()
            return [f"{p}if ({self._m(polls.CALL_STOP)}) {self._fail(replay)}"]
        return []

    def _polling_call(self, s):
        return (isinstance(s, ir.Call) and _is_user_call(s.func) and
                polls.calls_poll(s.func.cpp, self.functions, self._polls_memo))

    def _num(self, s):
        return self.ids.setdefault(id(s), len(self.ids))

    def _declare(self, ctype, name):
        line = f"    {ctype} {name} = {{}};"
        if line not in self.extra_decls:
            self.extra_decls.append(line)
        return name

    # --- helpers --------------------------------------------------------------------------
    @staticmethod
    def callee(func, template=""):
        if _is_user_call(func):
            return func.cpp
        name = func.cpp if "::" in func.cpp else f"wp::{func.cpp}"
        return name + template

    @staticmethod
    def adj_callee(func, template=""):
        if _is_user_call(func):
            return f"adj_{func.cpp}"
        return f"wp::{func.adj_cpp()}{template}"

    def call_args(self, stmt):
        args = [a.label for a in stmt.args]
        if getattr(stmt.func, "context", False):
            return CONTEXT_ARGS + (", " + ", ".join(args) if args else "")
        return ", ".join(args)

    # --- forward ------------------------------------------------------------------------------
    def forward(self, block, ind, replay=False):
        out = []
        for s in block.stmts:
            lines = self._fwd(s, ind, replay)
            if lines and s.lineno:
                lines[0] += self._line_marker(s.lineno)
            out += lines
        return out

    def _line_marker(self, lineno):
        """``// py:FILE:LINE`` (file on a writer's first marker): maps compiler errors on the
        generated code back to the user's Python line (compiler/nvrtc.py reads them)."""
        if self._marked_file:
            return f"  // py:{lineno}"
        self._marked_file = True
        return f"  // py:{self.fir.filename}:{lineno}"

    def _fwd(self, s, ind, replay):
        p = "    " * ind
        kind = type(s)
        if kind is ir.Call:
            return [] if replay and id(s) in self.dead else self._fwd_call(s, p, replay)
        if kind is ir.Const:
            return [f"{p}{s.out.label} = {literal(s.value, s.out.type)};"]
        if kind is ir.Copy:
            if replay and self.loop_depth:
                return [f"{p}{self._shadow(s)} = {s.dst.label};", f"{p}{s.dst.label} = {s.src.label};"]
            return [f"{p}{s.dst.label} = {s.src.label};"]
        if kind is ir.Select:
            return [f"{p}{s.out.label} = {s.cond.label} ? {s.if_true.label} : {s.if_false.label};"]
        if kind is ir.GetField:
            return [f"{p}{s.out.label} = {s.src.label}.{field(s.src.type, s.field)};"]
        if kind is ir.SetField:
            return [f"{p}{s.out.label} = {s.src.label};", f"{p}{s.out.label}.{field(s.out.type, s.field)} = {s.value.label};"]
        if kind is ir.If:
            return self._fwd_if(s, ind, replay)
        if kind is ir.ForRange:
            head = for_head(s, p, poll=True)
            pre, count = self._trip_count(s, p, replay)
            if replay and id(s) in self.counted:     # its reverse needs only the trip count
                return pre[:-1] + [f"{p}_n{self._num(s)} = wp::range_count({s.start.label}, "
                                   f"{s.stop.label}, {s.step.label});"]
            first, after = self.range_poll(p, replay)
            body = self._loop_body(s.body, ind + 1, replay, s)
            short = [] if replay else polls.short_copy(s, body, p, self._polling_call)
            return (pre + short + [head, first] + self._checkpoint(s, p, replay) + count + body +
                    [f"{p}}}", after])
        if kind is ir.While:
            pre, count = self._trip_count(s, p, replay)
            return (pre + [f"{p}while (true) {{", self.loop_poll(p, replay)] +
                    self._checkpoint(s, p, replay) +
                    self._loop_body(s.cond_block, ind + 1, replay, s) +
                    [f"{p}    if (!{s.cond.label}) break;"] + count +
                    self._loop_body(s.body, ind + 1, replay, s) + [f"{p}}}"])
        if kind in (ir.Break, ir.Continue):
            if replay and self.jump is not None:
                label = self.jump[id(s)] = f"_jump_{self._num(s)}"
                return [f"{p}goto {label};"]
            return [f"{p}{'break' if kind is ir.Break else 'continue'};"]
        if kind is ir.Return:
            return self._fwd_return(s, p, replay)
        if kind is ir.Print:   # also in the adjoint's replay: the reference prints there too
            return [f"{p}{'if (wp::block_lane() == 0) ' if s.block_once else ''}{self._printf(s)}"]
        raise TypeError(f"codegen: unknown statement {kind.__name__}")

    def _loop_body(self, block, ind, replay, loop):
        """A nested loop's own break/continue stay plain C++ (only the loop being reversed jumps);
        a return inside it, in a replay, jumps to the reverse of the outermost such loop."""
        saved = self.jump, self.ret_target
        self.jump = None
        if replay and self.ret_target is None:
            self.ret_target = loop
        try:
            return self._in_loop(self.forward, block, ind, replay)
        finally:
            self.jump, self.ret_target = saved

    def _trip_count(self, s, p, replay):
        """In the replay, a dynamic loop counts its iterations (the reverse runs exactly those,
        also after a break) and keeps the loop state it started from (while loops restart from it)."""
        if not replay:
            return [], []
        num = self._num(s)
        n = self._declare("int64_t", f"_n{num}")
        pre = [f"{p}{snap} = {v.label};" for v, snap in self._snapshots(s)]
        if self._exact(s):
            pre += [f"{p}{self._declare('int64_t', f'_c{num}')} = 1;",
                    f"{p}{self._declare('int64_t', f'_cn{num}')} = 0;"]
        return pre + [f"{p}{n} = 0;"], [f"{p}    {n} += 1;"]

    def _snapshots(self, s):
        out = []
        for m, v in enumerate(loop_state.carried(s)):
            out.append((v, self._declare(cpp_type(v.type), f"_snap{self._num(s)}_{m}")))
        return out

    def _exact(self, s):
        """Whether loop ``s`` keeps checkpoints of its state for its reverse (loop_state.py)."""
        if id(s) not in self.exact:
            self.exact[id(s)] = loop_state.needs_exact(s, loop_state.carried(s))
        return self.exact[id(s)]

    def _slots(self, s):
        """(state var, its checkpoint array) per state variable of an exact-state loop."""
        out = []
        for m, v in enumerate(loop_state.carried(s)):
            line = f"    {cpp_type(v.type)} _ck{self._num(s)}_{m}[{loop_state.K_SLOTS}];"
            if line not in self.extra_decls:
                self.extra_decls.append(line)
            out.append((v, f"_ck{self._num(s)}_{m}"))
        return out

    def _checkpoint(self, s, p, replay):
        """At the top of each replayed iteration of an exact-state loop: the state at every
        _c-th iteration goes to the next slot; when the K slots are full, every other one is
        dropped and _c doubles (so slot j always holds iteration j * _c's state)."""
        if not replay or not self._exact(s):
            return []
        num, k, q = self._num(s), loop_state.K_SLOTS, f"{p}    "
        n, c, cn, t = f"_n{num}", f"_c{num}", f"_cn{num}", f"_t{num}"
        slots = self._slots(s)
        thin = [f"{q}        {a}[{t}] = {a}[2 * {t}];" for _, a in slots]
        keep = [f"{q}        {a}[{cn}] = {v.label};" for v, a in slots]
        return ([f"{q}if ({n} % {c} == 0) {{", f"{q}    if ({cn} == {k}) {{",
                 f"{q}        for (int64_t {t} = 0; {t} < {k // 2}; ++{t}) {{"] + thin +
                [f"{q}        }}", f"{q}        {cn} = {k // 2};", f"{q}        {c} *= 2;",
                 f"{q}    }}", f"{q}    if ({n} % {c} == 0) {{"] + keep +
                [f"{q}        {cn} += 1;", f"{q}    }}", f"{q}}}"])

    def _restart(self, s, p, k):
        """The reverse of iteration ``k`` of an exact-state loop starts from the checkpoint at
        or before it; returns (lines, first iteration to replay up to k)."""
        num = self._num(s)
        lines = [f"{p}{v.label} = {a}[{k} / _c{num}];" for v, a in self._slots(s)]
        return lines, f"({k} / _c{num}) * _c{num}"

    def _shadow(self, s):
        """A loop-state copy keeps the value it overwrites, for its reverse to put back."""
        return self._declare(cpp_type(s.dst.type), f"_shadow{self._num(s)}")

    def _in_loop(self, fn, *args):
        self.loop_depth += 1
        try:
            return fn(*args)
        finally:
            self.loop_depth -= 1

    def _fwd_if(self, s, ind, replay):
        p = "    " * ind
        out = [f"{p}if ({s.cond.label}) {{"] + self.forward(s.body, ind + 1, replay)
        if s.orelse.stmts:
            out += [f"{p}}} else {{"] + self.forward(s.orelse, ind + 1, replay)
        return out + [f"{p}}}"]

    def _fwd_call(self, s, p, replay):
        func = s.func
        if isinstance(func, GradCall):
            return self._fwd_grad_of(s, p)
        if func.cpp == "kernel_assert" and not _is_user_call(func):    # `assert`: debug builds only
            return [] if replay or not self.debug else [
                f"{p}if (!({s.args[0].label})) {{ wp::record_assert_error({c_string(func.text)}, "
                f"{c_string(self.func_name)}, {s.lineno}); {self._fail(replay)} }}"]
        lines = self._bounds_check(s, p, replay) if self.debug else []
        if self.tid_coords and func.cpp == "tid_nd" and not _is_user_call(func):
            return lines + [f"{p}{s.out.label} = _t{s.args[0].constant};"]
        name = self.callee(func, s.template)
        callee = self.functions.get(func.cpp) if _is_user_call(func) else None
        if replay and callee is not None and callee.replay:
            name = callee.replay            # @wp.func_replay: no side effects in the replay
        elif replay and _native_replay(callee):
            name = replay_name(func.cpp)    # wp.func_native(replay_snippet=...)
        if (not replay and func.cpp in ("atomic_add", "atomic_sub") and not _is_user_call(func)
                and id(s.args[0]) in self.own_adds):
            name = f"wp::{func.cpp}_own"    # no other thread updates that element
        if replay and not _is_user_call(func):
            rp = getattr(func, "replay", None)
            if rp in _PLAIN_REPLAY and not self.local_arrays:
                rp = _PLAIN_REPLAY[rp]      # no stack array here: memory keeps what the forward wrote
            if rp == "":
                return lines
            if rp:
                name = f"wp::{rp}{s.template}"
        args = self.call_args(s)
        after = self._call_poll(s, p, replay)
        if isinstance(s.out, list):
            outs = ", ".join(v.label for v in s.out)
            return lines + [f"{p}{name}({args}{', ' if args else ''}{outs});"] + after
        if s.out is None:
            return lines + [f"{p}{name}({args});"] + after
        return lines + [f"{p}{s.out.label} = {name}({args});"] + after

    def _fwd_grad_of(self, s, p):
        """``wp.grad(f)(args)``: f's adjoint run with an output adjoint of one; the argument
        adjoints it accumulates (from zero) are the results."""
        outs = s.out if isinstance(s.out, list) else [s.out]
        g = s.func
        adj_args = [f"{p}{o.label} = {{}};" for o in outs]
        args = ", ".join([a.label for a in s.args] + [o.label for o in outs] +
                         [f"{cpp_type(g.ret_type)}(1)"])
        return adj_args + [f"{p}{self.adj_callee(g.target, g.template)}({args});"]

    def _bounds_check(self, s, p, replay=False):
        cpp = getattr(s.func, "cpp", None)
        if cpp in _TILE_INDEX_CHECKS and s.args[0].constant is None:   # a run-time tile index
            return [f"{p}if (!wp::{_TILE_INDEX_CHECKS[cpp]}({s.args[0].label}, {s.args[1].label}, "
                    f"{c_string(self.func_name)}, {s.lineno})) {self._fail(replay)}"]
        if cpp in ("extract", "assign") and not _is_user_call(s.func) and s.args:
            return self._component_check(s, p, replay)
        if cpp not in BOUNDS_CHECKED or not s.args:
            return []
        arr = s.args[0]
        if not isinstance(arr.type, array):
            return []
        n_idx = len(s.args) - 1 - (1 if s.func.cpp not in ("load", "view", "address") else 0)
        idx = ", ".join(a.label for a in s.args[1:1 + n_idx])
        return [f'{p}if (!wp::check_bounds({arr.label}, {c_string(arr.name or "array")}, '
                f'{c_string(self.func_name)}, {s.lineno}, {idx})) {self._fail(replay)}']

    def _fail(self, replay):
        # the replay runs inside the adjoint function, which returns void
        if replay or self.in_kernel or not self.fir.return_types or len(self.fir.return_types) > 1:
            return "return;"
        return f"return {cpp_type(self.fir.return_types[0])}{{}};"

    def _component_check(self, s, p, replay):
        """Debug mode: a vector/matrix index known only at run time is checked like an array's
        (constant ones are checked at build time, lang/translation/expressions.py)."""
        v = s.args[0]
        dims = getattr(v.type, "_shape_", None)
        if not comp.is_composite(v.type) or not dims:
            return []
        n_idx = len(s.args) - 1 - (1 if s.func.cpp == "assign" else 0)
        what = c_string(f"{v.name or 'value'} ({getattr(v.type, '__name__', 'vector')})")
        return [f"{p}if (!wp::check_component({i.label}, {n}, {what}, {c_string(self.func_name)}, "
                f"{s.lineno})) {self._fail(replay)}"
                for i, n in zip(s.args[1:1 + n_idx], dims) if i.constant is None]

    def _fwd_return(self, s, p, replay):
        if replay and self.loop_depth:
            if self.jump is not None:       # in the loop being reversed: to its place in the reverse
                label = self.jump[id(s)] = f"_jump_{self._num(s)}"
                return [f"{p}goto {label};"]
            if self.ret_target is not None:  # the reverse starts at the loop it leaves
                num = self._num(self.ret_target)
                self.ret_loops.add(num)
                return [f"{p}goto _retloop_{num};"]
            return [f"{p}return;"]
        if replay:
            self.return_labels += 1
            return [f"{p}goto {self._label(self.return_labels)};"]
        if not s.values:
            return [f"{p}return;"]
        if len(s.values) == 1:
            return [f"{p}return {s.values[0].label};"]
        sets = [f"{p}ret_{i} = {v.label};" for i, v in enumerate(s.values)]
        return sets + [f"{p}return;"]

    @staticmethod
    def _label(k):
        return f"label_ret_{k}"

    def _printf(self, s, adjoint=False):
        """One printf call (several when the values have over 32 components: device printf's limit)."""
        args = []
        for v in s.args:
            args += _printf_args(v.adj if adjoint else v.label, v.type)
        calls = []
        for piece, n in split_format(s.adj_fmt if adjoint else s.fmt):
            tail = (", " + ", ".join(args[:n])) if n else ""
            calls.append(f"wp::printf({c_string(piece)}{tail});")
            args = args[n:]
        return " ".join(calls)

    # --- reverse ------------------------------------------------------------------------------
    def reverse(self, block, ind):
        """Reverse statements of ``block`` (in reverse order). Must run after forward(replay)."""
        out = []
        for s in reversed(block.stmts):
            out += self._rev(s, ind)
        return out

    def _rev(self, s, ind):
        p = "    " * ind
        kind = type(s)
        if kind is ir.Call:
            return self._rev_call(s, p)
        if kind is ir.Copy:
            out = [f"{p}wp::adj_copy({s.src.adj}, {s.dst.adj});"]
            if self.loop_depth:
                out.append(f"{p}{s.dst.label} = {self._shadow(s)};")
            return out
        if kind in (ir.Break, ir.Continue):
            label = self.labels.get(id(s))
            return [f"{p}{label}:;"] if label else []
        if kind is ir.Select:
            return [f"{p}wp::adj_select({s.cond.label}, {s.if_true.adj}, {s.if_false.adj}, {s.out.adj});"]
        if kind is ir.GetField:
            return [f"{p}{_accum(s.out.type)}({s.src.adj}.{field(s.src.type, s.field)}, {s.out.adj});"]
        if kind is ir.SetField:
            return [f"{p}{_accum(s.value.type)}({s.value.adj}, {s.out.adj}.{field(s.out.type, s.field)});",
                    f"{p}{s.out.adj}.{field(s.out.type, s.field)} = {{}};",
                    f"{p}{_accum(s.src.type)}({s.src.adj}, {s.out.adj});"]
        if kind is ir.If:
            out = [f"{p}if ({s.cond.label}) {{"] + self.reverse(s.body, ind + 1)
            if s.orelse.stmts:
                out += [f"{p}}} else {{"] + self.reverse(s.orelse, ind + 1)
            return out + [f"{p}}}"]
        if kind is ir.ForRange:
            return self._rev_for(s, ind)
        if kind is ir.While:
            return self._rev_while(s, ind)
        if kind is ir.Return:
            return self._rev_return(s, p)
        if kind is ir.Print and s.adj_fmt:
            return [f"{p}{'if (wp::block_lane() == 0) ' if s.block_once else ''}"
                    f"{self._printf(s, adjoint=True)}"]   # print() shows the adjoints, as the reference
        return []  # Const, Print: nothing flows back

    def _rev_call(self, s, p):
        func = s.func
        if not getattr(func, "differentiable", False):
            return []
        if isinstance(s.out, list):
            # a @wp.func returning several values, or a builtin's result and out-parameters
            # (its adjoint takes the adjoints of the result, then of each written argument)
            if not _is_user_call(func) and not getattr(func, "writes", ()):
                return []
            adj_outs = ", ".join(v.adj for v in s.out)
        else:
            adj_outs = s.out.adj if s.out is not None else ""
        args = self.call_args(s)
        adj_args = ", ".join(a.adj for a in s.args)
        callee = self.adj_callee(func, s.template)
        if self._from_result(s):    # the adjoint from the forward result (scalar.h: adj_*_of)
            args, callee = s.out.label, f"wp::adj_{func.cpp}_of"
        parts = [x for x in (args, adj_args, adj_outs) if x]
        if func.cpp == "array_store" and not _is_user_call(func) and self.own.is_own(s.args[1:-1]) \
                and not is_indexed(s.args[0].type):   # an index array may repeat an index
            callee = "wp::adj_array_store_own"   # no other thread stores there: no atomic take
        if func.cpp == "load" and not _is_user_call(func) and id(s.args[0]) in self.own_arrays:
            # `_own`: the entry found no other parameter's gradient overlapping (own_index.py)
            return [f"{p}{callee}({', '.join(parts)}, _own);"]
        return [f"{p}{callee}({', '.join(parts)});"] + self._call_poll(s, p, True)

    def _from_result(self, s):
        """Whether the adjoint of builtin call ``s`` (sqrt, exp of a float scalar) may read its
        result's variable instead of recomputing it: that variable is written by ``s`` alone, so
        wherever the reverse of ``s`` runs (after its replay) it holds exactly f(argument)."""
        if s.func.cpp not in _FROM_RESULT or _is_user_call(s.func) or len(s.args) != 1 or \
                isinstance(s.out, list) or s.out is None or not sc.is_float(s.out.type):
            return False
        if self._single_defs is None:
            counts = {}
            for st in statements(self.fir.body.stmts):
                outs = writes(st) + [st.args[k] for k in getattr(getattr(st, "func", None), "writes", ())
                                     if isinstance(st, ir.Call) and k < len(st.args)]
                for v in outs:
                    counts[id(v)] = counts.get(id(v), 0) + 1
            self._single_defs = {k for k, n in counts.items() if n == 1}
        return id(s.out) in self._single_defs and all(s.out is not p for p in self.fir.params)

    def _rev_for(self, s, ind):
        """A dynamic loop runs backwards over the iterations the replay counted; each iteration
        replays its forward body first. From the loop state as it is, when the state is used
        linearly (loop_state.py: the reverse reads no state value); otherwise from the state the
        iteration began with: restarted from the checkpoint at or before it, replaying the
        iterations in between (at most _c - 1; none while the loop ran at most K iterations)."""
        p = "    " * ind
        num = self._num(s)
        n, k, j = f"_n{num}", f"_k{num}", f"_j{num}"
        first_k, after_k = self.range_poll(p, True)
        stop = f" && !{polls.STOPPED}"
        head = [f"{p}for (int64_t {k} = {n} - 1; {k} >= 0{stop}; --{k}) {{", first_k]
        if self._exact(s):
            lines, first = self._restart(s, p + "    ", k)
            first_j, after_j = self.range_poll(p + "    ", True)
            head += lines + [f"{p}    for (int64_t {j} = {first}; {j} < {k}{stop}; ++{j}) {{", first_j,
                             f"{p}        {s.var.label} = {s.start.label} + decltype({s.var.label})({j}) * {s.step.label};"]
            head += self._loop_body(s.body, ind + 2, True, s) + [f"{p}    }}", after_j]
        head += [f"{p}    {s.var.label} = {s.start.label} + decltype({s.var.label})({k}) * {s.step.label};"]
        # each iteration's temporaries are new values: their adjoints start from zero
        head += [f"{p}    {v.adj} = {{}};" for v in s.body_vars]
        restore = [f"{p}{v.label} = {snap};" for v, snap in self._snapshots(s)]
        body = self._reverse_iteration(s.body, ind + 1)
        return self._ret_label(s, p) + head + body + [f"{p}}}", after_k] + restore

    def _ret_label(self, s, p):
        """Where a replay that returned inside this loop continues: at the loop's reverse."""
        num = self._num(s)
        return [f"{p}_retloop_{num}:;"] if num in self.ret_loops else []

    def _rev_while(self, s, ind):
        """A while loop has no index to recompute an iteration from: iteration k's state is
        recomputed from the checkpoint at or before it (always an exact-state loop)."""
        p = "    " * ind
        num = self._num(s)
        n, k, j = f"_n{num}", f"_k{num}", f"_j{num}"
        restore, first = self._restart(s, p + "    ", k)
        first_k, after_k = self.range_poll(p, True)
        first_j, after_j = self.range_poll(p + "    ", True)
        stop = f" && !{polls.STOPPED}"
        out = [f"{p}for (int64_t {k} = {n} - 1; {k} >= 0{stop}; --{k}) {{", first_k] + restore
        out += [f"{p}    for (int64_t {j} = {first}; {j} < {k}{stop}; ++{j}) {{", first_j]
        out += self._loop_body(s.cond_block, ind + 2, True, s) + self._loop_body(s.body, ind + 2, True, s)
        out += [f"{p}    }}", after_j] + self._loop_body(s.cond_block, ind + 1, True, s)
        out += [f"{p}    {v.adj} = {{}};" for v in _defined_vars(s.body)]
        out += self._reverse_iteration(s.body, ind + 1) + [f"{p}}}", after_k]
        return self._ret_label(s, p) + out

    def _reverse_iteration(self, body, ind):
        """One iteration: replay (break/continue jump to their place in the reverse), reverse."""
        saved = self.jump, self.labels, self.ret_target
        self.jump, self.ret_target = {}, None
        try:
            lines = self._in_loop(self.forward, body, ind, True)
            self.labels, self.jump = self.jump, None
            return lines + self._in_loop(self.reverse, body, ind)
        finally:
            self.jump, self.labels, self.ret_target = saved

    def _rev_return(self, s, p):
        if self.loop_depth:     # reached by the jump of the replay that returned here, if any
            label = self.labels.get(id(s))
            if label is None:
                return []
            out = [f"{p}{label}:;"]
        else:
            out = [f"{p}{self._label(self.return_labels)}:;"]
            self.return_labels -= 1
        if not self.in_kernel:
            for v, adj_ret in zip(s.values, adj_ret_names(len(s.values))):
                out.append(f"{p}{_accum(v.type)}({v.adj}, {adj_ret});")
        return out


def for_head(s, p, poll=False):
    """The C++ header of a ``range`` loop (``s`` an ir.ForRange), opening its block; ``poll``:
    it also ends on Ctrl-C (BodyWriter.range_poll)."""
    stop = f" && !{polls.STOPPED}" if poll else ""
    return (f"{p}for ({s.var.label} = {s.start.label}; wp::range_continues({s.var.label}, "
            f"{s.stop.label}, {s.step.label}){stop}; {s.var.label} += {s.step.label}) {{")


def adj_ret_names(n):
    """The adjoint parameters of a function's results: ``adj_ret``, or one per value."""
    return ["adj_ret"] if n == 1 else [f"adj_ret_{i}" for i in range(n)]


def _outs(st):
    if isinstance(st, ir.ForRange):
        return [st.var]
    out = getattr(st, "out", None)
    if isinstance(out, list):
        return out
    return [out] if isinstance(out, ir.Var) else []


def _defined_vars(block):
    """Variables a block computes (not counting copies into loop state)."""
    seen = {}
    for st in statements(block):
        for v in _outs(st):
            seen.setdefault(id(v), v)
    return list(seen.values())


def _accum(t):
    """A struct's adj_accum is generated beside it, outside namespace wp."""
    return "adj_accum" if hasattr(t, "_wp_struct_") else "wp::adj_accum"


def _printf_args(expr, t):
    """The printf arguments of a value, matching lang/builtins/print_format.py's format of its type."""
    if sc.is_scalar(t):
        if sc.is_float(t):
            return [f"double(float({expr}))" if t.size < 8 else f"double({expr})"]
        if t is sc.bool_:
            return [f'(({expr}) ? "True" : "False")']
        if t.size == 8:
            return [f"({'long long' if t._kind == 'int' else 'unsigned long long'})({expr})"]
        return [f"({'int' if t._kind == 'int' else 'unsigned'})({expr})"]
    if comp.is_composite(t):
        return [a for i in range(t._length_)
                for a in _printf_args(f"wp::flat_component({expr}, {i})", t._wp_scalar_type_)]
    if is_tile(t) and sc.is_scalar(t.dtype):    # row-major elements
        return [a for i in range(t.size) for a in _printf_args(f"{expr}.data[{i}]", t.dtype)]
    return []   # structs, arrays: a placeholder text, no arguments
