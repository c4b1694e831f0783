"""Lane-blocked CPU backward bodies: ``K_backward_lanes(args, dim, base)`` runs the adjoints of W
consecutive threads together, for kernels shaped like the n-body force: straight-line code and
top-level uniform ``for`` loops (codegen/lanes.py's analysis) whose reverse replays from the
state as it is (loop_state.py). Its main gain is in the adjoint of a load at a *uniform* index
(``pos[j]`` in the loop over j, the same element in every lane): the W lanes' adjoints are summed
first and added to the gradient with one atomic instead of W (atomics dominated the backward).

The body is the scalar adjoint (BodyWriter) with every thread-dependent variable and every
adjoint turned into a W-element array: runs of statements that touch them become
``for (_l = 0; _l < W; ++_l)`` lane loops, uniform statements (loop heads, the loop index, trip
counts, the replay's loop heads) run once between them, in program order; each lane performs its thread's operations in
its thread's order, so only the order in which the gradient sums are formed changes.
"""

import re

from ..lang import ir
from .body import BodyWriter
from .cpp_types import cpp_type, member
from . import lanes
from . import loop_state
from .lanes_hoist import hoisted_for_backward

# variables (not functions: wp::adj_add(...), adj_userfunc(...))
_TOKEN = re.compile(r"(?<!::)\b((?:var|adj)_\w+|_snap\d+_\d+|_shadow\d+)\b(?!\s*\()")
_DECL = re.compile(r"^\s+(.+?) (\w+) = \{\};$")
_COPY = re.compile(r"^(\s*)(\w+\[_l\]) = (?:wp::own_value\((?P<own>(?:var_|adj_)\w+\[_l\])\)|"
                   r"((?:var_|adj_|_snap|_shadow)\w+(?:\[_l\])?));(.*)$")
_LOAD = re.compile(r"^(\s*)wp::adj_load\((.*)\);(.*)$")


def _eligible(fir, a, guards=()):
    return refusal_of(fir, a, guards) is None


def _at(st):
    return f" (line {st.lineno})" if getattr(st, "lineno", 0) else ""


def refusal_of(fir, a, guards=()):
    """Why a kernel with a lanes forward body (``a``: its Analysis) gets no lanes backward body,
    or None when it gets one. ``guards``: ids of the top-level ``If``s that guard statements
    moved out of a loop (lanes_hoist.hoisted_for_backward)."""
    if not fir.is_kernel:
        return "not a kernel"
    if fir.calls:
        return f"it calls @wp.func {getattr(fir.calls[0], 'name', '')}".rstrip()
    for st in fir.body.stmts:
        if isinstance(st, ir.ForRange):
            if id(st) not in a.control:
                return "a top-level loop varies per thread" + _at(st)
            if loop_state.needs_exact(st, loop_state.carried(st)):
                return "its loop's reverse needs checkpoints of its state" + _at(st)
            inner = next((x for x in loop_state.walk(st.body) if isinstance(
                x, (ir.ForRange, ir.While, ir.If, ir.Break, ir.Continue, ir.Return))), None)
            if inner is not None:
                return "its loop holds control flow" + _at(inner)
        elif isinstance(st, ir.If) and id(st) in guards:
            continue
        elif isinstance(st, (ir.While, ir.If, ir.Return, ir.Print)):
            return "its top level holds control flow other than uniform loops" + _at(st)
    for st in loop_state.walk(fir.body):
        if loop_state.in_place(st):
            return "it advances a random state" + _at(st)
        if getattr(st.func if isinstance(st, ir.Call) else None, "cpp", "") in ("view", "address"):
            return "it takes an array view or an element's address" + _at(st)
        if isinstance(st, ir.Copy) and id(st.dst) in a.uniform:
            return "a loop carries a value the same for every thread" + _at(st)
    if not all(id(p) in a.uniform for p in fir.params):
        return "a parameter is reassigned per thread"
    return None


def refusal(fir):
    """Why the kernel gets no lanes backward body, or None when it gets one."""
    a = lanes.qualifies(fir)
    if a is None:
        return "no lanes forward body: " + lanes.refusal(fir)
    return refusal_of(fir, a)


class _Lanes:
    def __init__(self, fir, a, w):
        self.w = w
        self.uniform = {v.label for v in fir.vars if id(v) in a.uniform}
        self.uniform |= {p.label for p in fir.params}
        self.uniform |= {p.adj for p in fir.params if _is_array(p)}

    def per_lane(self, name):
        return name not in self.uniform and not name.startswith("_n")

    def sub(self, line, index="[_l]"):
        code, sep, comment = line.partition("  // py:")
        code = _TOKEN.sub(lambda m: m.group(1) + index if self.per_lane(m.group(1)) else m.group(1), code)
        return code + sep + comment

    def is_lane_line(self, line):
        return any(self.per_lane(m.group(1)) for m in _TOKEN.finditer(line.partition("  // py:")[0]))

    def declare(self, line):
        m = _DECL.match(line)
        if m and self.per_lane(m.group(2)):
            return f"    {m.group(1)} {m.group(2)}[{self.w}] = {{}};"
        return line


def _is_array(p):
    return type(p.type).__name__ == "array"


def _uniform_load(line, lw):
    """(indent, args) of an ``adj_load`` whose array and indices are uniform, else None."""
    m = _LOAD.match(line)
    if not m:
        return None
    args = [x.strip() for x in m.group(2).split(",")]
    if args[-1] == "_own":
        return None    # an own-index read (never uniform)
    n_idx = (len(args) - 3) // 2
    if any(lw.per_lane(x) for x in args[:1 + n_idx]):
        return None
    return m.group(1), args, n_idx


def _reduced_load(found, lw, ctype):
    """One gradient update for the W lanes' adjoints of a load at a uniform index."""
    ind, args, n_idx = found
    ret = args[-1]
    adj_idx = [f"{x}[0]" if lw.per_lane(x) else x for x in args[2 + n_idx:-1]]
    call = ", ".join(args[:2 + n_idx] + adj_idx + ["_r"])
    return [f"{ind}{{", f"{ind}    {ctype} _r = {ret}[0];",
            f"{ind}    for (int _l = 1; _l < {lw.w}; ++_l) _r = wp::add(_r, {ret}[_l]);",
            f"{ind}    wp::adj_load({call});", f"{ind}}}"]


def _lane_copy(line):
    """``x[_l] = y[_l];`` (a loop's shadow, snapshot or carried copy; ``wp::own_value(y[_l])``, an
    own element's local) as a component-wise copy: an aggregate copy keeps GCC from vectorising
    the whole lane loop (n-body backward: 2.3x; the array-accumulator form: 16-byte vectors)."""
    m = _COPY.match(line)
    if m is None:
        return line
    return f"{m.group(1)}wpi_lane_copy({m.group(2)}, {m.group('own') or m.group(4)});{m.group(5)}"


def _emit(lines, lw, types):
    out, open_ind = [], None

    def close():
        nonlocal open_ind
        if open_ind is not None:
            out.append(f"{open_ind}}}")
            open_ind = None

    for line in lines:
        ind = line[:len(line) - len(line.lstrip())]
        found = _uniform_load(line, lw)
        if found is not None and lw.per_lane(found[1][-1]):
            close()
            out += _reduced_load(found, lw, types[found[1][-1]])
        elif lw.is_lane_line(line) and not line.rstrip().endswith(("{", "}")):
            if open_ind != ind:
                close()
                out += [f"{ind}#pragma GCC ivdep", f"{ind}for (int _l = 0; _l < {lw.w}; ++_l) {{",
                        f"{ind}    const int64_t _idx = _base + _l;"]
                open_ind = ind
            out.append("    " + _lane_copy(lw.sub(line)))
        else:
            close()
            out.append(line)
    close()
    return out


def lanes_backward_body(fir, fname, target, key, args_type, functions):
    """(the C++ of ``fname`` (W threads' adjoints from ``_base``), the array parameters whose
    own element it keeps in a local across a loop: the entry runs it only where their gradients
    overlap no other array's), or None when not eligible."""
    a = lanes.qualifies(fir)
    if a is None or not target.lanes or not _eligible(fir, a):
        return None
    fir, guards, accumulated = hoisted_for_backward(fir, a)
    bw = BodyWriter(fir, False, key, functions)
    body = bw.adjoint(fir.body, 1)
    if not _eligible(fir, a, guards):
        return None
    lw = _Lanes(fir, a, target.lanes)
    types = {v.adj: cpp_type(v.type) for v in list(fir.vars) + list(fir.params)}
    # `_own`: the entry found no other array parameter's gradient overlapping an own-index
    # array's (own_index.py): their read adjoints are plain adds
    sig = (f"{target.func_qualifier} void {fname}(const {args_type}& _args, "
           f"const wp::launch_bounds_t& _dim, int64_t _base, bool _own)")
    lines = [sig + " {"]
    for p in fir.params:
        lines.append(f"    {cpp_type(p.type)} {p.label} = _args.{member(p.name)};")
        lines.append(lw.declare(f"    {cpp_type(p.type)} {p.adj} = {{}};"))
    for v in fir.vars:
        lines += [lw.declare(f"    {cpp_type(v.type)} {v.label} = {{}};"),
                  lw.declare(f"    {cpp_type(v.type)} {v.adj} = {{}};")]
    n_decl = len(bw.extra_decls)
    lines += [lw.declare(x) for x in body[:n_decl]]
    lines += _emit(body[n_decl:], lw, types)
    return "\n".join(lines + ["}"]), accumulated
