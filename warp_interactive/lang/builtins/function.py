"""``wp.sin``, ``wp.tid``...: the package-level names of kernel builtins.

Kept apart from the translator (lang/translation/calls.py, which pulls in the IR): ``import
warp_interactive`` creates one of these per builtin and must stay light."""

from . import special as _special  # noqa: F401  (declares the intrinsics and tile builtins)
from .registry import intrinsics as _intrinsic_records

# name -> handler of each builtin the translator handles itself (its record: registry.intrinsics,
# declared in special.py); the translation and tile modules fill it when they load, so that
# `import warp_interactive` exports wp.tile_* and friends without importing the translator
INTRINSICS = {}
TILE_NAMES = tuple(n for n, r in _intrinsic_records.items() if r.group == _special.TILES)

# How a builtin runs in Python scope (``wp.sin(1.0)`` outside kernels): that launches a kernel,
# so the runtime (runtime/python_scope.py) registers it here at import; lang never imports up.
_python_call = []


def set_python_call(fn):
    _python_call[:] = [fn]


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
        if not _python_call:
            raise RuntimeError(f"wp.{self.key}() outside kernels needs the runtime "
                               "(import warp_interactive)")
        return _python_call[0](self.key, args, kwargs)

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
