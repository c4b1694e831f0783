"""Replay statements an adjoint does not need.

An adjoint body replays the forward before its reverse, so that every adjoint call finds the
primal values it reads. Some adjoints read none of an argument's value: a tile store's adjoint
reads the array's gradient, not the tile it stored; a tile FFT, transpose or gather is linear,
its adjoint transforms the incoming adjoint alone. A tile computed only to feed such arguments
need not be computed again in the replay: in a row FFT kernel (``t = tile_load(x, ...)``,
``tile_fft(t)``, ``tile_store(y, t, ...)``) the backward replayed one load and one FFT per row
for nothing. The reverse is unchanged; the skipped statement's variable keeps its declared
(zero) value, which nothing reads.
"""

from ..lang import ir
from ..lang.analysis.walk import statements
from .ir_uses import reads

# builtin -> the argument positions whose values its adjoint does not read
_ADJOINT_FREE = {"tile_store": (1,), "tile_fft": (0,), "tile_ifft": (0,), "tile_gather": (0,)}
# builtins that a replay leaves out anyway (they write memory): their arguments are not read there
_NOT_REPLAYED = ("tile_store",)
# builtins without side effects whose replay may be left out when their result is unused
_PURE = ("tile_load", "tile_fft", "tile_ifft", "tile_gather")


def _builtin(st):
    """The C++ name of ``st``'s builtin (None for other statements and user functions)."""
    if type(st) is not ir.Call or hasattr(st.func, "function"):
        return None
    return getattr(st.func, "cpp", None)


def dead_replays(body):
    """The ids of the statements of ``body`` (an ir.Block) whose replay an adjoint can leave out:
    pure tile builtins whose result no adjoint reads and no kept replay reads. Reaches a fixed
    point (a load feeding an FFT feeding a store: both)."""
    stmts = list(statements(body))
    uses = {}       # id(var) -> [(statement, position)] of every read
    for st in stmts:
        args = st.args if type(st) is ir.Call else None
        for v in reads(st, every_kind=True):
            pos = [i for i, a in enumerate(args) if a is v] if args is not None else [None]
            uses.setdefault(id(v), []).extend((st, i) for i in pos)
    candidates = [st for st in stmts if _builtin(st) in _PURE and isinstance(st.out, ir.Var)]
    dead = set()
    changed = True
    while changed:
        changed = False
        for st in candidates:
            if id(st) in dead:
                continue
            if all(_value_free(user, i, dead) for user, i in uses.get(id(st.out), ())):
                dead.add(id(st))
                changed = True
    return dead


def _value_free(user, i, dead):
    """Whether the read of argument ``i`` of statement ``user`` needs no value: neither its
    adjoint nor its replay (skipped, or left out as dead) reads it."""
    name = _builtin(user)
    return i in _ADJOINT_FREE.get(name, ()) and (name in _NOT_REPLAYED or id(user) in dead)
