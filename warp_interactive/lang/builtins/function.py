"""``wp.sin``, ``wp.tid``...: the package-level names of kernel builtins.

Kept apart from the translator (lang/translation/calls.py, which pulls in the IR): ``import
warp_interactive`` creates one of these per builtin and must stay light."""

from ... import hooks
from . import special as _special  # noqa: F401  (declares the intrinsics and tile builtins)
from .registry import intrinsics as _intrinsic_records

# name -> handler of each builtin the translator handles itself (its record: registry.intrinsics,
# declared in special.py); the translation and tile modules fill it when they load, so that
# `import warp_interactive` exports wp.tile_* and friends without importing the translator
INTRINSICS = {}


class TileOps:
    """What translation asks of the tile package beyond its builtins' calls, by role; lang/tiles/
    fills every slot when it loads (translation imports the package for that), so translation
    names no tile module and the tile package never reaches up into translation."""

    SLOTS = {
        "operator": "(tr, op, args) -> value: an operator with a tile operand (tiles/arith.py)",
        "read": "(tr, tile, node) -> value: a subscript of a tile (tiles/index.py)",
        "write": "(tr, tile, target, value) -> tile: a write through a subscript (tiles/index.py)",
        "check_augassign": "(tr, tile, target): refuse an augmented write it cannot do (tiles/index.py)",
        "struct_element_op": "(tr, op, current, value): `t[i].f op= v` on a tile of structs (tiles/index.py)",
        "is_struct": "(dtype) -> bool: a struct element type (tiles/core.py)",
        "bind_tile": "(tr, name, value, additive=False): bind a tile variable (tiles/core.py)",
        "merge_lanes": "(tr, old, new, mode=0) -> tile: every lane's write in a block (tiles/core.py)",
        "check_stack_budget": "(tr, variables): the block stack's size limit (tiles/core.py)",
        "refs_start": "(tr, params): tile parameters are references (tiles/refs.py)",
        "refs_rebound": "(tr, name): a parameter name bound to a new local value (tiles/refs.py)",
        "refs_on_return": "(tr, stmt): a return also returns the written references (tiles/refs.py)",
        "refs_finish": "(tr, body, params) -> ref_outs (tiles/refs.py)",
        "refs_assigned": "(tr, name, value): a name was assigned (a wp.ref[T] parameter's write: tiles/refs.py)",
        "refs_is_value": "(overload, position) -> bool: a wp.ref[T] parameter, not a tile (tiles/refs.py)",
    }

    def fill(self, **handlers):
        for name, fn in handlers.items():
            if name not in self.SLOTS:
                raise KeyError(f"TileOps has no slot {name!r}")
            setattr(self, name, fn)

    def __getattr__(self, name):
        if name in self.SLOTS:
            raise RuntimeError(f"tile_ops.{name} is not filled: import warp_interactive.lang.tiles first")
        raise AttributeError(name)


tile_ops = TileOps()
TILE_NAMES = tuple(n for n, r in _intrinsic_records.items() if r.group == _special.TILES)

def intrinsic_doc(name):
    rec = _intrinsic_records.get(name)
    return rec.doc if rec else ""


def intrinsic_names():
    return sorted(set(_intrinsic_records) | set(INTRINSICS))


class BuiltinFunction:
    """What ``wp.<name>`` is for a kernel builtin: kernels translate calls to it by ``key``."""

    def __init__(self, key, doc=""):
        self.key = key
        self.__name__ = key
        self.__doc__ = doc

    def __call__(self, *args, **kwargs):
        # in Python scope (``wp.sin(1.0)``) a builtin launches a kernel: the runtime's job, reached
        # through hooks.py (runtime/python_scope.py)
        return hooks.python_call(self.key, args, kwargs)

    def __repr__(self):
        return f"<builtin wp.{self.key}>"


class _TileBuiltin(BuiltinFunction):
    """``wp.tile``: the builtin in kernels, and ``wp.tile[dtype, M, N]`` the tile type in
    annotations (warp-lang's ``wp.tile`` is both)."""

    def __getitem__(self, params):
        from ...types.tile import tile_subscript
        return tile_subscript(params)


class _TileStackBuiltin(BuiltinFunction):
    """``wp.tile_stack``: a stack in kernels; outside them (a @wp.func parameter's annotation,
    ``s: wp.tile_stack(capacity=8, dtype=int)``) the stack's type."""

    def __call__(self, capacity, dtype):
        from ...types.tile import tile_stack_type
        return tile_stack_type(dtype, capacity)


def make_builtin(key, doc=""):
    """The ``wp.<key>`` object of a kernel builtin."""
    cls = {"tile": _TileBuiltin, "tile_stack": _TileStackBuiltin}.get(key, BuiltinFunction)
    return cls(key, doc)
