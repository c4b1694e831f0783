"""Build-time checks that turn invalid programs into errors at the user's line: signatures the
language has no meaning for, functions that can end without returning their value, return
annotations, recursion. Each works on the function's AST or on the translator's state."""

import ast

from ...types import scalars as sc
from ...types.array import array
from ...types.dtypes import scalar_of
from ..builtins.registry import type_name
from ..ir import PyValue

SHADOW_REFUSED = frozenset({"range"})   # a for loop's `range(...)` is read from the syntax


class RecursiveFunction(Exception):
    """A @wp.func reached itself while being translated (raised by FuncOverload.ir)."""


def always_exits(stmts):
    """True if running ``stmts`` always ends in return, break or continue."""
    for s in stmts or ():
        if isinstance(s, (ast.Return, ast.Break, ast.Continue)):
            return True
        if isinstance(s, ast.If) and s.orelse and always_exits(s.body) and always_exits(s.orelse):
            return True
    return False


def always_returns(stmts):
    for s in stmts or ():
        if isinstance(s, ast.Return):
            return True
        if isinstance(s, ast.If) and s.orelse and always_returns(s.body) and always_returns(s.orelse):
            return True
    return False


def check_signature(scope, fn, is_kernel):
    what = "kernels" if is_kernel else "@wp.func functions"
    if isinstance(fn, ast.AsyncFunctionDef):
        raise scope.error(f"async def is not supported for {what}", fn)
    for arg, stars in ((fn.args.vararg, "*"), (fn.args.kwarg, "**")):
        if arg is not None:
            raise scope.error(f"{what} cannot take {stars}{arg.arg}: every parameter needs a "
                              f"name and a type annotation", fn)
    for node in ast.walk(fn):
        name = node.id if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) else \
            node.arg if isinstance(node, ast.arg) else None
        if name in SHADOW_REFUSED:
            raise scope.error(f"'{name}' cannot be used as a variable name in {what}: "
                              f"for loops read '{name}(...)' as the builtin", node)


def declared_return(tr, fn):
    """The types a @wp.func's ``-> T`` annotation declares ([] for ``-> None``), or None when
    it has none or one this check does not interpret (tuples of types)."""
    if fn.returns is None:
        return None
    from ..annotations import canonical_type, is_concrete
    from ...types.tuple_type import TupleType
    try:
        v = tr.eval(fn.returns)
        if not isinstance(v, PyValue):
            return None
        if v.obj is None:
            return []
        t = canonical_type(v.obj)
    except Exception:
        return None
    if isinstance(t, TupleType):     # -> tuple[int, float]: two results
        return list(t.types) if is_concrete(t) else None
    return [t] if is_concrete(t) else None


_UNKNOWN = object()


def _python_annotation(tr, node):
    """The annotation's value as Python computes it where the function was defined, or _UNKNOWN."""
    import ast
    from ...types.annotation_text import resolve_annotation
    try:
        return resolve_annotation(ast.unparse(node), tr.py_globals, dict(tr.src.closure))
    except Exception:
        return _UNKNOWN


def check_returns(tr, fn):
    """A function that returns a value must return one on every path."""
    declared = getattr(tr, "declared_return", None)
    types = tr.return_types or declared
    if types and not always_returns(fn.body):
        last = fn.body[-1] if fn.body else fn
        names = ", ".join(type_name(t) for t in types)
        raise tr.scope.error(f"function '{fn.name}' returns {names}, but it can reach its end "
                             f"without a return (add one for every path)", last)


def slot_augassign_error(tr, node, value):
    """The error for ``a[i].x *= v`` (any operator but += and -=) on a component of an array
    element, as warp-lang 1.19 words it: the adjoint would replay the load after the store and
    read the new value (a silently wrong gradient), so kernels with backward code refuse it.
    None when ``node`` is no such statement. Raised only where the adjoint is generated."""
    if isinstance(node.op, (ast.Add, ast.Sub)) or not isinstance(node.target, (ast.Attribute, ast.Subscript)):
        return None
    root, depth = node.target, 0
    while isinstance(root, (ast.Attribute, ast.Subscript)):
        root, depth = root.value, depth + 1
    var = tr.scope.symbols.get(root.id) if isinstance(root, ast.Name) else None
    scalar = scalar_of(getattr(value, "type", None))
    if depth < 2 or not isinstance(getattr(var, "type", None), array) or scalar is None or \
            not sc.is_float(scalar):
        return None
    return tr.scope.error(
        f"In function '{tr.src.name}': Differentiable composite slot augmented assignments with this "
        "operator are not supported with backward code generation enabled. Write the result to a "
        "separate array, or use enable_backward=False for forward-only code.", node)


def fixed_as_array(tr, types):
    """A stack array (wp.zeros in the function) returned where the annotation says ``wp.array``
    would point at memory that ends with the function: refused, in warp-lang's words."""
    from ...types.array import array
    from ...types.fixedarray import is_fixed
    from ...types.introspection import type_repr
    returns = tr.src.tree.returns
    if returns is None or not any(is_fixed(t) for t in types):
        return
    d = _python_annotation(tr, returns)     # wp.array2d[int] is Python's to evaluate
    for t in types:
        if is_fixed(t) and isinstance(d, array) and not is_fixed(d):
            raise tr.scope.error(f"The function `{tr.src.name}` returns a fixed-size array whereas it "
                                 f"has its return type annotated as `Array[{type_repr(d.dtype)}]`.")
