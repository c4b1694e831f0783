"""Tiles passed to a ``@wp.func`` by reference, as in warp-lang 1.19.

warp-lang passes tile arguments (register and shared storage alike) by reference: a function
that writes into a tile parameter in place (``t += u``, ``t[i, j] = x``, ``wp.tile_assign(t, ...)``,
``wp.tile_matmul(a, b, t)``, a stack push, a write into a view of ``t``...) changes the caller's
tile. Tiles are SSA values here, so such a function returns the parameter's final value as an
extra, hidden result (copy-in, copy-out), and the call rebinds the argument's name to it
(``builtins_tile.bind_tile``: a view argument writes through to its tile, and a caller that is
itself a function passes the write on to its own caller). Within one thread of a block this is
the same as a reference: nothing else runs between the copy in and the copy out.

A plain rebinding (``t = t * 2.0``) makes the name a new local value, as in warp-lang: later
in-place writes to it no longer reach the caller (decided in source order).
"""

from ...types.tile import TileStack, is_tile
from .. import ir
from ..builtins.function import tile_ops


def _hidden(name):
    return f"{name}@ref"     # not a Python identifier: no user name can collide


def _by_reference(t):
    return is_tile(t) or isinstance(t, TileStack)


def start(tr, params):
    """Called before a function body: its tile parameters are references, and its ``wp.ref[T]``
    parameters (``tr.ref_params``), for which a plain assignment is a write too."""
    st = tr.tile_state
    values = getattr(tr, "ref_params", ())
    st.refs = {p.name: p for p in params if _by_reference(p.type) or p.name in values}
    st.values = {p.name for p in params if p.name in values}
    st.written, st.dead, st.returns = set(), set(), []
    for name, p in st.refs.items():
        tr.scope.symbols[_hidden(name)] = p


def is_hidden(name):
    return name.endswith("@ref")


def written(tr, name, value):
    """``name`` was written in place (its new value is ``value``)."""
    st = tr.tile_state
    if name not in st.refs or name in st.dead:
        return
    st.written.add(name)
    tr.scope.bind(_hidden(name), value)    # a copy: a later rebinding of name must not change it


def rebound(tr, name):
    """``name`` was given a new value by a plain assignment: no longer the caller's tile (a
    ``wp.ref[T]`` parameter: the new value is the caller's, see ``assigned``)."""
    st = tr.tile_state
    if name in st.refs and name not in getattr(st, "values", ()):
        st.dead.add(name)


def assigned(tr, name, value):
    """After ``name = value``: a ``wp.ref[T]`` parameter's new value goes back to the caller."""
    if name in getattr(tr.tile_state, "values", ()):
        written(tr, name, value)


def is_value_ref(ov, pos):
    """Whether parameter ``pos`` of overload ``ov`` is a ``wp.ref[T]`` (not a tile)."""
    return list(ov.arg_types)[pos] in getattr(ov, "ref_params", ())


def on_return(tr, stmt):
    st = tr.tile_state
    if st.refs:
        st.returns.append((stmt, {n: tr.scope.symbols[_hidden(n)] for n in st.refs}))


def finish(tr, body, params):
    """After the body: the written parameters' final values become extra results of every
    return (and of the end of the body). Returns the written parameters' positions."""
    st = tr.tile_state
    refs = st.refs
    if not refs or not st.written:
        return []
    names = [n for n in refs if n in st.written]
    user_types = list(tr.return_types or [])
    for stmt, snap in st.returns:
        stmt.values = list(stmt.values) + [snap[n] for n in names]
    if not (body.stmts and isinstance(body.stmts[-1], ir.Return)):
        # the end of the body: the user's results (if any) are never read here (a function
        # with results returns them explicitly; falling off the end gives zero values)
        values = [tr.scope.new_var(t) for t in user_types]
        values += [tr.scope.symbols[_hidden(n)] for n in names]
        body.stmts.append(ir.Return(values=values, lineno=tr.scope.lineno))
    tr.return_types = user_types + [refs[n].type for n in names]
    order = [p.name for p in params]
    return [order.index(n) for n in names]


tile_ops.fill(refs_start=start, refs_rebound=rebound, refs_on_return=on_return, refs_finish=finish,
              refs_assigned=assigned, refs_is_value=is_value_ref)
