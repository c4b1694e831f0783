"""What a @wp.func's body refers to, as a comparable key.

Two definitions with the same name and text translate alike exactly when the names their body
reads (globals, closure cells) hold the same values. The C++ name of a function is numbered by
this key (func._unique_cpp): twins that read different values get different names (one unit
holding both must run each body), twins that read the same values share one name, so
two modules built from identical source hash alike (warp-lang's test_static_function_hash).
"""

import types

from ...types.composite import Composite
from ...types.scalars import Scalar

_PLAIN = (bool, int, str, bytes, type(None))
_in_progress = set()     # functions whose key is being computed (mutual references)


def referenced_names(code):
    """Every global name the code (and the code nested in it) reads."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= referenced_names(const)
    return names


def definition_key(py_func):
    """The values of what ``py_func``'s body reads: its globals by name, then its closure."""
    if py_func in _in_progress:
        return ("cycle", py_func.__qualname__)
    _in_progress.add(py_func)
    try:
        scope = py_func.__globals__
        reads = tuple((name, value_key(scope[name]) if name in scope else ("unbound",))
                      for name in sorted(referenced_names(py_func.__code__)))
        cells = tuple(_cell_key(cell) for cell in py_func.__closure__ or ())
        return reads, cells
    finally:
        _in_progress.discard(py_func)


def _cell_key(cell):
    try:
        return value_key(cell.cell_contents)
    except ValueError:            # an empty cell (a name assigned after the def)
        return ("empty", id(cell))


def value_key(value):
    """Equal keys for values that a kernel body sees as the same thing; otherwise identity."""
    if isinstance(value, _PLAIN):
        return (type(value).__name__, value)
    if isinstance(value, float):  # repr: -0.0 and nan compare as themselves
        return ("float", repr(value))
    if isinstance(value, Scalar):
        return (type(value).__name__, repr(value.value))
    if isinstance(value, Composite):
        return (id(type(value)), bytes(value))
    if isinstance(value, types.ModuleType):
        return ("module", value.__name__)
    if isinstance(value, (tuple, list)):
        return (type(value).__name__, tuple(value_key(v) for v in value))
    if getattr(value, "_wp_function_", False) and hasattr(value, "overloads"):
        return _function_key(value)
    return ("id", id(value))


def _function_key(function):
    """A user function: its name, and each definition's types, text and what it reads."""
    from ..annotations import type_key
    defs = [(tuple(type_key(t) for t in o.arg_types.values()), o.src, o.py_func)
            for o in function.overloads]
    defs += [("generic", src, py) for py, src in function.generics]
    return ("func", function.key, tuple((sig, src.text, definition_key(py)) for sig, src, py in defs))
