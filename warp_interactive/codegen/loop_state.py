"""Which dynamic loops need their per-iteration state in the reverse pass.

The reverse of a dynamic loop replays each iteration before reversing it. When the loop state
(variables the loop writes that live outside it) only flows through operations whose adjoints do
not read it (``s += f(x)``, ``s = s * 0.5 + t``, a vector or struct assembled from it...), the
replay may run from any state: the reverse is exact with the state as it is, and costs one replay
per iteration. Otherwise (``s = s * x``, ``s = f(s)``, an index or a branch computed from the
state) the loop is *exact-state*: its replay keeps checkpoints of the state (body.py) and the
reverse restarts each iteration from the nearest one."""

from ..lang import ir
from ..types import scalars as sc
from .ir_uses import in_place, reads, var_list as _var_list, writes
from ..lang.analysis.walk import statements

# adjoints that read none of their arguments' values (which arguments' values are read: indices)
LINEAR = {"add", "sub", "neg", "pos", "vec_t", "mat_t", "quat_t", "transform_t", "spatial_vector",
          "matrix_from_rows", "matrix_from_cols", "spatial_top", "spatial_bottom",
          "own_value", "own_add_value", "own_sub_value"}    # an element kept in a local (lanes_hoist.py)
SCALED = {"mul", "div"}                    # linear in the state when the other factor is a constant
STORES = {"array_store", "atomic_add", "atomic_sub"}   # the stored value's adjoint reads no value
EXTRACT = {"extract"}                      # the component's adjoint needs only the index
ASSIGN = {"assign"}                        # v with a component replaced: needs only the index
K_SLOTS = 64                               # checkpoints per exact-state loop (see body.py)


walk = statements     # over an ir.Block


def inputs(st):
    return reads(st, every_kind=True)


outputs = writes


def _no_gradient(v):
    """A folded literal, or an integer/bool: nothing flows back into it."""
    return v.constant is not None or (sc.is_scalar(v.type) and not sc.is_float(v.type))


def _value_needed(st, tainted):
    """Whether the reverse of ``st`` reads the value of a tainted (state-derived) input."""
    kind = type(st)
    if not any(id(v) in tainted for v in inputs(st)):
        return False
    if kind in (ir.Copy, ir.GetField, ir.SetField, ir.Return, ir.Print):
        return False
    if kind is ir.Select:
        return id(st.cond) in tainted
    if kind is not ir.Call or hasattr(st.func, "function"):
        return True         # branches, loop bounds, @wp.func calls: the value matters
    name = getattr(st.func, "cpp", "").split("<")[0].replace("wp::", "")   # constructors: templates
    if name in LINEAR:
        return False
    if name in SCALED:      # s * c, c * s, s / c with c a constant: the adjoint reads only c
        a, b = st.args
        if id(a) in tainted and id(b) not in tainted:
            return not _no_gradient(b)
        return not (name == "mul" and id(b) in tainted and id(a) not in tainted and _no_gradient(a))
    if name in STORES:      # the stored value is free; the array and indices are not
        return any(id(v) in tainted for v in st.args[:-1])
    if name in EXTRACT:     # the composite is free; the indices are not
        return any(id(v) in tainted for v in st.args[1:])
    if name in ASSIGN:
        return any(id(v) in tainted for v in st.args[1:-1])
    return True


def carried(loop):
    """Variables the loop writes (by Copy, or in place) that live outside it: its state."""
    blocks = [loop.body] + ([loop.cond_block] if isinstance(loop, ir.While) else [])
    stmts = [st for b in blocks for st in walk(b)]
    defined = set()
    for st in stmts:
        if not isinstance(st, ir.Copy):
            out = st.var if isinstance(st, ir.ForRange) else getattr(st, "out", None)
            defined |= {id(v) for v in (out if isinstance(out, list) else _var_list([out]))}
    state = {}
    for st in stmts:
        for v in ([st.dst] if isinstance(st, ir.Copy) else in_place(st)):
            if id(v) not in defined:
                state.setdefault(id(v), v)
    return list(state.values())


def needs_exact(loop, state):
    """Whether the reverse of ``loop`` (ForRange or While) must restore each iteration's
    state: the state is used where its value matters, or advanced in place (random states)."""
    if isinstance(loop, ir.While):
        return True         # its condition reads the state (or the loop never ends)
    if any(in_place(st) for st in walk(loop.body)):
        return True
    tainted = {id(v) for v in state}
    stmts = list(walk(loop.body))
    _propagate(stmts, tainted)
    return any(_value_needed(st, tainted) for st in stmts)


def _own_break(block):
    for st in block.stmts:
        if isinstance(st, ir.Break):
            return True
        if isinstance(st, ir.If) and (_own_break(st.body) or (st.orelse and _own_break(st.orelse))):
            return True
    return False


def replay_skippable(loop, rest):
    """Whether the adjoint's forward replay may skip a top-level ``for`` loop, counting its
    iterations instead: its reverse replays each iteration from the state as it is (not
    exact-state), no break or return decides its trip count, and nothing after it (``rest``,
    the statements that follow in its block) needs the value of anything the loop computed."""
    if not isinstance(loop, ir.ForRange) or needs_exact(loop, carried(loop)) or \
            _own_break(loop.body) or any(isinstance(st, ir.Return) for st in walk(loop.body)):
        return False
    tainted = {id(loop.var)} | {id(v) for v in carried(loop)}
    for st in walk(loop.body):
        tainted |= {id(v) for v in outputs(st)}
    stmts = [x for st in rest for x in walk(ir.Block([st]))]
    _propagate(stmts, tainted)
    return not any(_value_needed(st, tainted) for st in stmts)


def _propagate(stmts, tainted):
    """Taint every output of a statement reading a tainted variable (to a fixed point: a loop
    may carry a value back to its earlier statements)."""
    changed = True
    while changed:
        changed = False
        for st in stmts:
            if any(id(v) in tainted for v in inputs(st)):
                for v in outputs(st):
                    if id(v) not in tainted:
                        tainted.add(id(v))
                        changed = True
