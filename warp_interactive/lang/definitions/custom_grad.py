"""User-written adjoints and replays of ``@wp.func`` functions.

``@wp.func_grad(f)`` replaces f's generated adjoint. The user's function takes f's parameters,
then the adjoint of f's return value, and accumulates into ``wp.adjoint[param]``::

    @wp.func_grad(safe_sqrt)
    def adj_safe_sqrt(x: float, adj_ret: float):
        if x > 0.0:
            wp.adjoint[x] += adj_ret / (2.0 * wp.sqrt(x))

It is translated as an ordinary function that returns the increments of the adjoints (each
``wp.adjoint[p]`` becomes a local that starts at zero); f's adjoint calls it and accumulates.

``@wp.func_replay(f)`` gives the function that stands for f in the forward replay of an adjoint
(same parameters, same return type, no side effects such as atomics); f's adjoint is generated
from it too, so that the replay and the reverse agree.
"""

import ast
import copy
import hashlib

from ...types import composite as comp
from ...types import scalars as sc
from ...errors import CodegenError
from ...types.array import array
from ..builtins.function import BuiltinFunction
from .source import SourceInfo, source_of


class adjoint:
    """``wp.adjoint[x]`` inside a ``@wp.func_grad`` function: the adjoint of parameter ``x``."""

    def __class_getitem__(cls, item):
        raise RuntimeError("wp.adjoint[...] is only meaningful inside a @wp.func_grad function")


def _is_float_valued(t):
    if hasattr(t, "_wp_struct_"):    # a struct's adjoint is a struct of its type (field-wise)
        return True
    s = t if sc.is_scalar(t) else getattr(t, "_wp_scalar_type_", None)
    return s is not None and sc.is_float(s)


def _is_adjoint_ref(node):
    return (isinstance(node, ast.Attribute) and node.attr == "adjoint") or \
        (isinstance(node, ast.Name) and node.id == "adjoint")


class _Rewriter(ast.NodeTransformer):
    """wp.adjoint[p] -> a local; every return -> return the locals."""

    def __init__(self, src, diff_params, all_params, array_params=()):
        self.src, self.diff, self.all, self.arrays = src, diff_params, all_params, array_params

    def error(self, msg, node):
        line = self.src.lines[node.lineno - 1] if node.lineno - 1 < len(self.src.lines) else None
        return CodegenError(msg, self.src.filename, self.src.first_line + node.lineno - 1,
                            node.col_offset, line, self.src.name)

    def visit_Subscript(self, node):
        self.generic_visit(node)
        if not _is_adjoint_ref(node.value):
            return node
        root = node.slice    # a parameter, or a field path in a struct parameter: x.vec
        while isinstance(root, ast.Attribute):
            root = root.value
        name = root.id if isinstance(root, ast.Name) else None
        if name not in self.all:
            raise self.error("wp.adjoint[...] takes the name of a parameter of the function", node)
        if name in self.arrays and node.slice is root:   # the gradient's memory, as an array
            grad = ast.Call(func=ast.Name(id=GRAD_ARRAY, ctx=ast.Load()),
                            args=[ast.Name(id=name, ctx=ast.Load())], keywords=[])
            return ast.copy_location(grad, node)
        if name not in self.diff:
            raise self.error(f"parameter '{name}' is not a float value: it has no adjoint", node)
        local = ast.copy_location(ast.Name(id=_local(name), ctx=ast.Load()), node)
        if node.slice is root:
            local.ctx = node.ctx
            return local
        path = copy.deepcopy(node.slice)      # the same fields of the adjoint local
        inner = path
        while isinstance(inner.value, ast.Attribute):
            inner = inner.value
        inner.value = local
        path.ctx = node.ctx
        return ast.copy_location(path, node)

    def visit_Return(self, node):
        if node.value is not None:
            raise self.error("a @wp.func_grad function accumulates into wp.adjoint[...] and "
                             "returns nothing", node)
        return ast.copy_location(_return_locals(self.diff), node)


GRAD_ARRAY = "_wpi_grad_array"    # the helper's global for the array_grad builtin


def _local(name):
    return f"_wpi_adj_{name}"


def _return_locals(names):
    if not names:     # only array adjoints: the function adds into their memory itself
        return ast.Return(value=None)
    elts = [ast.Name(id=_local(n), ctx=ast.Load()) for n in names]
    return ast.Return(value=elts[0] if len(elts) == 1 else ast.Tuple(elts=elts, ctx=ast.Load()))


class HelperOverload:
    """A translated helper function (a custom grad or replay) emitted beside its function."""

    forward_only = True

    def __init__(self, name, cpp, src, arg_types, py_globals, max_unroll):
        self.name, self.cpp, self.src, self.arg_types = name, cpp, src, arg_types
        self.py_globals, self.max_unroll = py_globals, max_unroll
        self._ir = None

    @property
    def ir(self):
        if self._ir is None:
            from ..translation.translator import Translator
            tr = Translator(self.src, self.py_globals, self.max_unroll)
            self._ir = tr.translate(self.cpp, self.arg_types, is_kernel=False)
        return self._ir


def _tag(src, types):
    h = hashlib.sha256((src.text + repr([getattr(t, "__name__", t) for t in types])).encode())
    return h.hexdigest()[:8]


def make_replay(fov, py_func):
    src = source_of(py_func)
    cpp = f"{fov.cpp}_replay_{_tag(src, fov.arg_types.values())}"
    return HelperOverload(f"{fov.name} (replay)", cpp, src, dict(fov.arg_types), py_func.__globals__,
                          fov.function.max_unroll())


def make_grad(fov, py_func):
    """The helper for ``fov``'s custom adjoint; its diff_params say which adjoints it returns."""
    src = source_of(py_func)
    names = [a.arg for a in src.tree.args.args]
    n = len(fov.arg_types)
    rets = fov.return_types()
    if len(names) != n + len(rets):
        raise CodegenError(
            f"@wp.func_grad({fov.name}) function must take {fov.name}'s {n} parameters and then "
            f"the adjoint of each of its {len(rets)} return value(s): {n + len(rets)} parameters, "
            f"got {len(names)}", src.filename, src.first_line, None, None, src.name)
    arg_types = dict(zip(names, list(fov.arg_types.values()) + list(rets)))
    diff = [nm for nm, t in zip(names[:n], fov.arg_types.values()) if _is_float_valued(t)]
    arrays = [nm for nm, t in zip(names[:n], fov.arg_types.values()) if isinstance(t, array)]
    if not diff and not arrays:
        raise CodegenError(f"{fov.name} has no float parameter to give a gradient to",
                           src.filename, src.first_line, None, None, src.name)
    tree = _rewrite(src, diff, names[:n], arg_types, arrays)
    text = src.text + "\n# custom adjoint"
    rsrc = SourceInfo(name=src.name, filename=src.filename, first_line=src.first_line,
                      lines=src.lines, text=text, tree=tree, closure=src.closure)
    py_globals = dict(py_func.__globals__)
    py_globals[GRAD_ARRAY] = BuiltinFunction("array_grad")
    for nm in diff:
        py_globals[f"_wpi_T_{nm}"] = arg_types[nm]
    cpp = f"{fov.cpp}_grad_{_tag(src, arg_types.values())}"
    helper = HelperOverload(f"{fov.name} (grad)", cpp, rsrc, arg_types, py_globals,
                            fov.function.max_unroll())
    helper.diff_params = diff
    helper.diff_types = [arg_types[nm] for nm in diff]
    return helper


def _rewrite(src, diff, params, arg_types, arrays=()):
    tree = _Rewriter(src, diff, params, arrays).visit(copy.deepcopy(src.tree))
    first = tree.body[0]
    inits = []
    for nm in diff:
        t = arg_types[nm]
        zero = f"_wpi_T_{nm}()" if comp.is_composite(t) or hasattr(t, "_wp_struct_") else f"_wpi_T_{nm}(0.0)"
        inits.append(ast.parse(f"{_local(nm)} = {zero}").body[0])
    tail = _return_locals(diff)
    for stmt in inits + [tail]:
        ast.copy_location(stmt, first)
        ast.fix_missing_locations(stmt)
    tree.body = inits + tree.body + [tail]
    last = tree.body[-2]
    ast.copy_location(tail, last)
    for node in ast.walk(tail):
        ast.copy_location(node, last)
    return tree
