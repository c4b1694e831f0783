"""Lane-blocked CPU forward bodies: ``K_forward_lanes(args, dim, base)`` runs the W consecutive
threads ``base .. base+W-1`` of a kernel whose body holds a *uniform* loop (bounds the same for
every thread), so that the compiler can vectorise across threads, which it does not do for
``for i: body(i)`` when the body holds a loop.

The body is split into lane regions: maximal runs of statements that are not uniform. A region
becomes ``for (_l = 0; _l < W; ++_l) { <its statements for thread base+_l> }`` (a loop the
compiler vectorises); uniform loops, uniform ``if``s and uniform statements (constants, integer
arithmetic on kernel arguments...) stay outside, once for all lanes, and a uniform loop's body is
split again. Running region 1 for every lane, then region 2 for every lane... is an interleaving
of independent threads, and each lane performs the same IEEE operations as the scalar body, so
results are bit-identical to it (the CPU build turns off FMA contraction without fast_math).

Storage: a uniform variable is one plain local; a variable that lives in one region only is a
plain local inside that region's lane loop; any other (used in several regions, carried by a
uniform loop, written more than once) keeps one value per lane in ``lane_<name>``: composite and
scalar values as one array per component (the vectorised loop then reads contiguous floats).
Kernels that print or return, and debug builds, keep the scalar body only.
"""

from ..types.tile import is_tile
from ..types.fixedarray import is_fixed
from ..lang import ir
from ..types import composite as comp
from ..types import scalars as sc
from .body import BodyWriter, for_head
from .ir_uses import reads, writes
from ..lang.analysis.walk import statements
from .cpp_types import cpp_type, member
from .lanes_hoist import Planner
from .own_index import OwnIndex

# Calls that may run once for all lanes when their arguments are uniform: side-effect free,
# no thread context, arguments by value.
UNIFORM_CALLS = {"add", "sub", "mul", "div", "floordiv", "mod", "neg", "pos", "min", "max", "abs",
                 "lt", "le", "gt", "ge", "eq", "ne", "bit_and", "bit_or", "bit_xor", "lshift",
                 "rshift", "invert", "cast", "array_shape"}

# helpers shared by every lanes body of a module (emitted once, before the first one)
PRELUDE = """template <typename T, typename S, int N, int W> struct wpi_lanes_soa {
    static_assert(sizeof(T) == sizeof(S) * N, "lane storage: composite layout");
    S c[N][W];
    inline T get(int l) const { S t[N]; for (int k = 0; k < N; ++k) t[k] = c[k][l];
        T v; __builtin_memcpy((void*)&v, t, sizeof(T)); return v; }
    inline void set(int l, const T& v) { S t[N]; __builtin_memcpy(t, (const void*)&v, sizeof(T));
        for (int k = 0; k < N; ++k) c[k][l] = t[k]; }
};
// a lane's copy of a composite value, component by component: GCC does not vectorise a lane loop
// holding an aggregate copy ("more than one data ref in stmt"), it does these scalar moves
template <typename T> inline void wpi_lane_copy(T& d, const T& s) {
    typedef typename wp::components<T>::scalar S;
    for (int k = 0; k < wp::components<T>::n; ++k) ((S*)&d)[k] = ((const S*)&s)[k];
}
template <typename T, typename U> inline void wpi_lane_copy(T& d, const U& s) { d = s; }
template <typename T, int W> struct wpi_lanes_aos {
    T v[W];
    inline T get(int l) const { return v[l]; }
    inline void set(int l, const T& x) { v[l] = x; }
};
"""


def _own_jumps(block):
    """Whether a loop body holds a break/continue of this loop (not of a nested loop)."""
    for st in block.stmts:
        if isinstance(st, (ir.Break, ir.Continue)):
            return True
        if isinstance(st, ir.If) and (_own_jumps(st.body) or (st.orelse and _own_jumps(st.orelse))):
            return True
    return False


def _has_jumps(block):
    return any(isinstance(s, (ir.Break, ir.Continue, ir.Return)) for s in statements(block.stmts))


# --- analysis ------------------------------------------------------------------------------------
class Analysis:
    """Which variables hold the same value in every lane (``uniform``: ids), which loops and ifs
    are uniform control flow (ids of statements)."""

    def __init__(self, fir):
        self.fir = fir
        self.uniform = {id(v) for v in fir.params} | {id(v) for v in fir.vars}
        self.control = set()
        while self._pass():
            pass

    def _pass(self):
        before = len(self.uniform)
        self.control = set()
        self._walk(self.fir.body, True)
        return len(self.uniform) != before

    def _drop(self, vs):
        for v in vs:
            self.uniform.discard(id(v))

    def _all_uniform(self, vs):
        return all(id(v) in self.uniform for v in vs)

    def _walk(self, block, uctx):
        for st in block.stmts:
            kind = type(st)
            if kind is ir.ForRange:
                uni = uctx and self._all_uniform(reads(st)) and not _own_jumps(st.body)
                if uni:
                    self.control.add(id(st))
                else:
                    self._drop([st.var])
                self._walk(st.body, uni)
            elif kind is ir.If:
                uni = uctx and self._all_uniform(reads(st)) and not _has_jumps(st.body) and \
                    not (st.orelse and _has_jumps(st.orelse))
                if uni:
                    self.control.add(id(st))
                self._walk(st.body, uni)
                if st.orelse:
                    self._walk(st.orelse, uni)
            elif kind is ir.While:
                self._walk(st.cond_block, False)
                self._walk(st.body, False)
            elif not (uctx and self.pure(st) and self._all_uniform(reads(st))):
                self._drop(writes(st))

    @staticmethod
    def pure(st):
        kind = type(st)
        if kind in (ir.Const, ir.Copy, ir.Select, ir.GetField, ir.SetField):
            return True
        if kind is ir.Call:
            f = st.func
            return (not hasattr(f, "function") and not getattr(f, "context", False) and
                    getattr(f, "cpp", None) in UNIFORM_CALLS and isinstance(st.out, ir.Var))
        return False

    def is_uniform_stmt(self, st):
        """A plain statement run once for all lanes (in uniform context)."""
        return self.pure(st) and self._all_uniform(reads(st)) and self._all_uniform(writes(st))


def qualifies(fir):
    """The Analysis when the kernel gets a lanes body, else None: no print or return, its
    parameters never reassigned per thread, and at least one uniform loop."""
    return _check(fir)[0]


def refusal(fir):
    """Why the kernel gets no lanes body (a sentence naming the line), or None when it gets one."""
    return _check(fir)[1]


def _at(st):
    return f" (line {st.lineno})" if getattr(st, "lineno", 0) else ""


def _check(fir):
    """(Analysis or None, the reason for None)."""
    stmts = list(statements(fir.body.stmts))
    first = {}
    for s in stmts:
        first.setdefault(type(s), s)
    if any(is_tile(v.type) for v in fir.vars):
        # tile kernels: one block per thread, their loops are in the tile templates
        return None, "it holds tiles (their loops are in the tile operations)"
    if any(is_fixed(v.type) for v in fir.vars):
        # stack arrays: views point into one lane's copy, which per-lane storage would move
        return None, "it holds a stack array (wp.zeros in a kernel)"
    if any(type(s) is ir.Call and getattr(s.func, "cpp", "").startswith("address_of_") for s in stmts):
        # wp.address_of: a native snippet may write the variable, which the analysis cannot see
        return None, "it takes an address (wp.address_of)"
    if ir.ForRange not in first:
        return None, "it has no range loop" + (" (a while loop varies per thread)" if ir.While in first else "")
    if ir.Print in first:
        return None, "it prints" + _at(first[ir.Print])
    if ir.Return in first:
        return None, "it returns early" + _at(first[ir.Return])
    a = Analysis(fir)
    for p in fir.params:
        if id(p) not in a.uniform:
            st = next((s for s in stmts if any(v is p for v in writes(s))), None)
            return None, f"parameter '{p.name}' is reassigned per thread" + _at(st)
    loops = [s for s in stmts if isinstance(s, ir.ForRange)]
    if any(id(s) in a.control for s in loops):
        return a, None
    return None, loop_refusal(loops[0], a)


def loop_refusal(st, a):
    """Why the range loop ``st`` is not uniform control flow."""
    at = f" at line {st.lineno}" if st.lineno else ""
    if _own_jumps(st.body):
        return f"the loop{at} breaks or continues per thread"
    if not a._all_uniform(reads(st)):
        return f"the bounds of the loop{at} differ per thread"
    return f"the loop{at} is inside per-thread control flow"


# --- regions -------------------------------------------------------------------------------------
class _Region:
    def __init__(self):
        self.stmts = []
        self.hoisted = []     # uniform statements moved in front of the region's lane loop

    def read_vars(self):
        return {id(v) for s in statements(self.stmts) for v in reads(s)}


def _layout(block, a, out, planner):
    """``block`` as a list of items: ("uniform", stmt), ("loop", stmt, body, before, after),
    ("if", stmt, body, orelse) (sub-layouts) and ("region", _Region). A uniform loop's body is
    the planner's rewrite (lanes_hoist.py); ``before``/``after`` lay out what it runs once around
    the loop. ``out`` collects every region, in order."""
    items, region = [], None
    for st in block.stmts:
        if id(st) in a.control:
            region = None
            if isinstance(st, ir.ForRange):
                plan = planner.plan(st)
                pre = _layout(ir.Block(plan.pre), a, out, planner)
                items.append(("loop", st, _layout(plan.body, a, out, planner), pre,
                              _layout(ir.Block(plan.post), a, out, planner)))
            else:
                orelse = _layout(st.orelse, a, out, planner) if st.orelse else []
                items.append(("if", st, _layout(st.body, a, out, planner), orelse))
        elif a.is_uniform_stmt(st):
            # in front of the open region if that region does not read what it writes yet
            if region is not None and not ({id(v) for v in writes(st)} & region.read_vars()):
                region.hoisted.append(st)
            else:
                region = None
                items.append(("uniform", st))
        else:
            if region is None:
                region = _Region()
                out.append(region)
                items.append(("region", region))
            region.stmts.append(st)
    return items


def _storage(fir, a, regions):
    """id(var) -> "local" (a plain local of its one region) or "lane" (one value per lane), for
    the non-uniform variables; and, per region, the vars it touches."""
    where, writers, copied, touched = {}, {}, set(), []
    for n, r in enumerate(regions):
        seen = {}
        for st in statements(r.stmts):
            for v in reads(st) + writes(st):
                if id(v) not in a.uniform:
                    seen.setdefault(id(v), v)
            for v in writes(st):
                writers[id(v)] = writers.get(id(v), 0) + 1
            if isinstance(st, ir.Copy):
                copied.add(id(st.dst))
        for key in seen:
            where.setdefault(key, set()).add(n)
        touched.append(seen)
    kind = {}
    for key, places in where.items():
        single = len(places) == 1 and writers.get(key, 0) <= 1 and key not in copied
        kind[key] = "local" if single else "lane"
    return kind, touched


def lane_type(t, w):
    """The C++ type holding one value of type ``t`` per lane."""
    ct = cpp_type(t)
    if sc.is_scalar(t):
        return f"wpi_lanes_soa<{ct}, {ct}, 1, {w}>"
    if comp.is_composite(t):
        return f"wpi_lanes_soa<{ct}, {t._wp_scalar_type_._cpp}, {t._length_}, {w}>"
    return f"wpi_lanes_aos<{ct}, {w}>"


# --- emission ------------------------------------------------------------------------------------
class LanesWriter:
    def __init__(self, fir, a, w, key, functions):
        self.fir, self.a, self.w = fir, a, w
        self.regions = []
        self.planner = Planner(fir, OwnIndex(fir), a)
        self.items = _layout(fir.body, a, self.regions, self.planner)
        self.guards = 0
        self.kind, self.touched = _storage(fir, a, self.regions)
        self.body = BodyWriter(fir, False, key, functions)
        self.region_index = {id(r): n for n, r in enumerate(self.regions)}

    def declarations(self):
        out = []
        for v in list(self.fir.vars) + self.planner.new_vars:
            if id(v) in self.a.uniform:
                out.append(f"    {cpp_type(v.type)} {v.label} = {{}};")
            elif self.kind.get(id(v)) == "lane":
                out.append(f"    {lane_type(v.type, self.w)} lane_{v.label} = {{}};")
        return out

    def emit(self, items, ind):
        p = "    " * ind
        out = []
        for item in items:
            tag, st = item[0], item[1]
            if tag == "uniform":
                out += self.body.forward(ir.Block([st]), ind)
            elif tag == "loop":
                out += self._loop(item, ind)
            elif tag == "if":
                out += [f"{p}if ({st.cond.label}) {{"] + self.emit(item[2], ind + 1)
                if item[3]:
                    out += [f"{p}}} else {{"] + self.emit(item[3], ind + 1)
                out.append(f"{p}}}")
            else:
                out += self._region(st, ind)
        return out

    def _loop(self, item, ind):
        """A uniform loop; what the planner moved out of it runs only when it runs at least once
        (the loop's own first test, evaluated once)."""
        p = "    " * ind
        st, body, pre, post = item[1:]
        first, after = self.body.range_poll(p)
        out, guard = [], None
        if pre or post:
            guard = f"_runs{self.guards}"
            self.guards += 1
            out += [f"{p}{st.var.label} = {st.start.label};",
                    f"{p}const bool {guard} = wp::range_continues({st.var.label}, {st.stop.label}, "
                    f"{st.step.label});"]
        if pre:
            out += [f"{p}if ({guard}) {{"] + self.emit(pre, ind + 1) + [f"{p}}}"]
        out += [for_head(st, p, poll=True), first] + self.emit(body, ind + 1) + [f"{p}}}"]
        if post:
            out += [f"{p}if ({guard}) {{"] + self.emit(post, ind + 1) + [f"{p}}}"]
        return out + [after]

    def _region(self, r, ind):
        p, q = "    " * ind, "    " * (ind + 1)
        out = self.body.forward(ir.Block(list(r.hoisted)), ind)
        out += [f"{p}#pragma GCC ivdep", f"{p}for (int _l = 0; _l < {self.w}; ++_l) {{",
                f"{q}const int64_t _idx = _base + _l;"]
        seen = self.touched[self.region_index[id(r)]]
        written = {id(v) for s in statements(r.stmts) for v in writes(s)}
        stores = []
        for key, v in seen.items():
            if self.kind[key] == "local":
                out.append(f"{q}{cpp_type(v.type)} {v.label} = {{}};")
            else:
                out.append(f"{q}{cpp_type(v.type)} {v.label} = lane_{v.label}.get(_l);")
                if key in written:
                    stores.append(f"{q}lane_{v.label}.set(_l, {v.label});")
        out += self.body.forward(ir.Block(r.stmts), ind + 1)
        return out + stores + [f"{p}}}"]


def lanes_body(fir, fname, target, key, args_type, functions):
    """(the C++ of ``fname`` (W threads from ``_base``), the array parameters it keeps elements
    of in locals across a loop: the entry runs it only where they overlap no other array), or
    None when the kernel does not qualify; ``functions``: the ModuleIR's CalleeIRs by C++ name
    (the user functions the kernel calls)."""
    a = qualifies(fir)
    if a is None:
        return None
    lw = LanesWriter(fir, a, target.lanes, key, functions)
    sig = (f"{target.func_qualifier} void {fname}(const {args_type}& _args, "
           f"const wp::launch_bounds_t& _dim, int64_t _base)")
    lines = [sig + " {"]
    lines += [f"    {cpp_type(p.type)} {p.label} = _args.{member(p.name)};" for p in fir.params]
    lines += lw.declarations()
    body = lw.emit(lw.items, 1)
    lines += lw.body.prologue() + body
    lines.append("}")
    accumulated = {id(p) for p in lw.planner.accumulated}
    return "\n".join(lines), [p for p in fir.params if id(p) in accumulated]
