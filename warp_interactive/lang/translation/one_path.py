"""A name first assigned on one path of an ``if`` only (``if a: y = 1 elif b: y = 2``, no else).

warp-lang 1.19 keeps such a name after the ``if``: it holds the value of the path that ran. When
that path did not run, warp-lang reads the variable's storage, which (measured on its CPU build)
is: the value of a literal constant (its constants are declared at the top of the function, so
after ``if a: c = 7.0 elif b: c = 8.0`` with neither true, ``c`` is 8.0); zeros for vectors,
matrices, structs and tiles (zero-initialised declarations); and whatever the register last held
for computed scalars (undefined: another thread's value, or the untaken branch's expression).

Here the join is an SSA ``Select`` of the path's value and a default made before the read: the
literal itself for a literal constant (warp-lang's value), the type's zero for everything else
(warp-lang's value for composites and tiles; a defined value where warp-lang's is undefined).
Values with no zero (arrays, tuples, tile stacks, queries) keep the one-path build error, and so
does a name first assigned inside a loop with a run-time trip count (warp-lang's storage keeps an
earlier iteration's value there; unrolled loops translate each iteration in turn, as Python runs
them)."""

from ...types import composite as comp
from ...types import scalars as sc
from ...types.tile import is_tile
from .. import ir
from ..builtins.registry import type_name
from .scope import Conflict


def _zeroable(t):
    return sc.is_scalar(t) or comp.is_composite(t) or is_tile(t) or hasattr(t, "_wp_struct_")


def join(tr, name, cond, value, assigned_when_true, node):
    """The value ``name`` has after the ``if`` when only the path taken when ``cond`` is
    ``assigned_when_true`` assigned it (``value``): a Var, or a Conflict to report on a read."""
    if getattr(value, "tile_view_of", None) is not None:     # (a copy would drop its writes to the tile)
        return Conflict(
            f"variable '{name}' is a view of a tile on one path only through the if at line "
            f"{tr.scope.lineno_of(node)}; assign it before the if (or on both paths)")
    if not isinstance(value, ir.Var) or not _zeroable(value.type):
        return Conflict(
            f"variable '{name}' is assigned only on one path through the if at line "
            f"{tr.scope.lineno_of(node)}, and a {_kind(value)} has no value for the other path; "
            f"assign it before the if (or on both paths)")
    if tr.scope.loop_carried:
        # in a dynamic loop warp-lang reads the value an earlier iteration left (undefined before
        # the first): no SSA value here holds it, so the name must exist before the loop
        return Conflict(
            f"variable '{name}' is assigned only on one path through the if at line "
            f"{tr.scope.lineno_of(node)} inside a loop, where it would keep an earlier iteration's "
            f"value; assign it before the loop")
    scope = tr.scope
    if value.constant is not None and (sc.is_scalar(value.type) or comp.is_composite(value.type)):
        # a literal: warp-lang's declared constant, the same value whichever path ran
        out = scope.const(value.constant, value.type, literal=value.literal)
        out.bound_literal, out.name = value.bound_literal, name
        return out
    default = scope.new_var(value.type)
    scope.emit(ir.Const(out=default, value=None))         # the type's zero
    out = scope.new_var(value.type, name=name)
    taken, other = (value, default) if assigned_when_true else (default, value)
    scope.emit(ir.Select(out=out, cond=cond, if_true=taken, if_false=other))
    return out


def _kind(value):
    if isinstance(value, tuple):
        return "tuple"
    if isinstance(value, ir.Var):
        return f"value of type {type_name(value.type)}"
    return "value of this kind"
