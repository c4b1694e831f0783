"""``wp.static(expr)``: a Python expression evaluated once, when the kernel is translated.

Its value replaces the call: a number or warp value becomes a constant of the generated code (so
it is part of the module hash: another value, another binary), a @wp.func or builtin becomes the
function called, a bool decides an ``if`` at translation time (the other branch is not
generated), an int bounds a ``range`` that unrolls. The expression sees the kernel's globals and
closure and the kernel's compile-time constants (variables assigned a literal, loop variables of
unrolled loops); ``len(v)`` of a kernel vector/matrix/array variable is its static length.
Errors point at the user's line."""

import ast
import copy
import enum

from ...types import composite as comp
from ...types import scalars as sc
from ...types.array import array
from ...types.tile import is_tile
from .. import ir
from ..ir import PyValue


def static(expr):
    """In Python scope ``wp.static(x)`` is ``x``; in kernels see the module docstring."""
    return expr


def is_static_call(node):
    """Syntactically ``wp.static(...)`` / ``static(...)`` (no IR is emitted to find out)."""
    if not isinstance(node, ast.Call):
        return False
    f = node.func
    return (isinstance(f, ast.Attribute) and f.attr == "static") or \
        (isinstance(f, ast.Name) and f.id == "static")


def mentions_static(nodes, name=None):
    """True if a wp.static() call in ``nodes`` (statements) uses ``name`` (any name if None)."""
    for stmt in nodes:
        for node in ast.walk(stmt):
            if is_static_call(node) and (name is None or any(
                    isinstance(n, ast.Name) and n.id == name for n in ast.walk(node))):
                return True
    return False


class _StaticLengths(ast.NodeTransformer):
    """``len(x)`` of a kernel variable with a static length -> that length."""

    def __init__(self, symbols):
        self.symbols = symbols

    def visit_Call(self, node):
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id == "len" and len(node.args) == 1 \
                and isinstance(node.args[0], ast.Name):
            v = self.symbols.get(node.args[0].id)
            if isinstance(v, tuple) and not (v and isinstance(v[0], str)):
                return ast.copy_location(ast.Constant(len(v)), node)     # a tuple's length
            t = getattr(v, "type", None)
            if comp.is_composite(t):
                return ast.copy_location(ast.Constant(t._shape_[0] if t._kind_ == "matrix"
                                                      else t._length_), node)
            if is_tile(t):      # a tile's first dimension, as len() of a tile gives in warp-lang
                return ast.copy_location(ast.Constant(t.shape[0]), node)
        return node


def position(node):
    return (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)


def pre_resolve(src, py_globals):
    """The ``wp.static(expr)`` calls of a kernel or function that can be evaluated when it is
    declared (as the reference does): those whose names are none of the function's own
    (parameters, assigned names, loop variables), evaluated once now with its globals and
    closure. Returns {position: value}; the others (and any that fail here, so that their
    error points at the user's line) are evaluated when the kernel is translated."""
    # without the word "static" in its text, only a global or closure name bound to wp.static
    # could call it: a reload of a module of 100 kernels then walks no syntax tree
    if "static" not in src.text and not any(v is static for v in py_globals.values()) and \
            not any(v is static for v in src.closure.values()):
        return {}
    env = dict(py_globals)
    env.update(src.closure)
    local = _local_names(src.tree)
    found = {}
    for node in _static_calls(src.tree, env, local):
        names = {n.id for n in ast.walk(node.args[0]) if isinstance(n, ast.Name)}
        if names & local:
            continue
        try:
            expr = ast.fix_missing_locations(ast.Expression(copy.deepcopy(node.args[0])))
            value = eval(compile(expr, src.filename, "eval"), env)
        except Exception:
            continue
        if isinstance(value, (enum.IntEnum, enum.IntFlag)):
            value = int(value)
        if unsupported(value) is None:
            found[position(node)] = value
    return found


def _static_calls(tree, env, local):
    """The outermost calls of ``wp.static`` (under any name bound to it) in ``tree``."""
    todo = list(reversed(tree.body))     # a stack: source order (side effects run in order)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords and \
                _names_static(node.func, env, local):
            yield node
            continue
        todo.extend(reversed(list(ast.iter_child_nodes(node))))


def _names_static(f, env, local):
    if isinstance(f, ast.Name):
        return f.id not in local and env.get(f.id) is static
    if isinstance(f, ast.Attribute) and f.attr == "static" and isinstance(f.value, ast.Name):
        return f.value.id not in local and getattr(env.get(f.value.id), "static", None) is static
    return False


def _local_names(fdef):
    """A function's parameters and the names its body binds (outside wp.static calls)."""
    out = {a.arg for a in fdef.args.args + fdef.args.kwonlyargs}
    for node in ast.walk(fdef):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            out.add(node.id)
    return out


def evaluate(tr, node):
    """The value of ``wp.static(expr)`` at ``node`` (a PyValue), or a CodegenError at it."""
    pre = tr.src.statics.get(position(node), _MISSING) if tr.src.statics else _MISSING
    if pre is not _MISSING:
        return PyValue(pre)
    if len(node.args) != 1 or node.keywords:
        raise tr.scope.error("wp.static() takes exactly one argument", node)
    env = dict(tr.py_globals)
    env.update(tr.src.closure)      # the closure shadows globals, as in Python
    env.update({k: v.constant for k, v in tr.scope.symbols.items()
                if isinstance(v, ir.Var) and v.constant is not None and not v.literal})
    env.update({k: v.obj for k, v in tr.scope.symbols.items() if isinstance(v, PyValue)})
    expr = _StaticLengths(tr.scope.symbols).visit(copy.deepcopy(node.args[0]))
    code = compile(ast.fix_missing_locations(ast.Expression(expr)), tr.src.filename, "eval")
    try:
        value = eval(code, env)
    except NameError as e:
        raise tr.scope.error(f"Error evaluating static expression: {e}. Make sure all variables "
                             "used in the static expression are constant.", node) from None
    except Exception as e:
        raise tr.scope.error(f"Error evaluating static expression: {e}", node) from None
    if isinstance(value, (enum.IntEnum, enum.IntFlag)):
        value = int(value)
    problem = unsupported(value)
    if problem:
        raise tr.scope.error(f"Static expression returns an unsupported value: {problem}", node)
    return PyValue(value)


_MISSING = object()


def unsupported(value):
    """Why ``value`` cannot stand in a kernel (None if it can)."""
    from ..builtins.function import BuiltinFunction
    if value is None:
        return "None is returned"
    if isinstance(value, array):
        return "a Warp array cannot be created inside Warp kernels"
    if isinstance(value, (bool, int, float, str, sc.Scalar, comp.Composite, BuiltinFunction, type)) \
            or getattr(value, "_wp_function_", False) or getattr(value, "_wp_kernel_", False):
        return None
    if isinstance(value, range):        # as warp-lang: a constant range() loop unrolls by itself
        return ("a range cannot stand in a kernel: loop with a plain range(...) (a constant range "
                "unrolls when short, or when its body reads wp.static() of the loop variable)")
    if isinstance(value, (list, tuple)):
        return next((p for p in (unsupported(v) for v in value) if p), None)
    st = getattr(type(value), "_wp_struct_", None)
    if st is not None:
        return _struct_problem(value, st.name, ())
    return f"value of type {type(value)} cannot be constructed inside Warp kernels"


def _struct_problem(value, top, path):
    for name in type(value)._wp_struct_.fields:
        field = getattr(value, name)
        if getattr(type(field), "_wp_struct_", None) is not None:
            problem = _struct_problem(field, top, path + (name,))
        else:
            problem = unsupported(field)
            if problem:
                problem = (f"the returned Warp struct contains a data type that cannot be "
                           f"constructed inside Warp kernels: {problem} at "
                           f"{'.'.join((top,) + path)}")
        if problem:
            return problem
    return None
