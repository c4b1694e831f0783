"""Plain Python functions (lambdas, defs) as ``@wp.func`` functions: the body is re-read from the
source file and compiled again as generated text (registered with ``linecache``, so that it is
translated like any other function). ``wp.map`` and ``wp.utils.create_warp_function`` use it."""

import ast
import hashlib
import inspect
import itertools
import linecache
import textwrap

from ..lang.definitions.decorators import func as wp_func
from ..runtime.module import get_module

_counter = itertools.count()


def python_function_as_func(func, name="_wp_map_fn", module=None, what="wp.map"):
    """``func`` (a lambda or a def) as a generic @wp.func named ``name``: its body re-read from
    its source, its globals and closure values as the function's globals. The Function carries
    the generated text as ``_wp_map_source``."""
    params = list(func.__code__.co_varnames[:func.__code__.co_argcount])
    body = lambda_body(func, what) if func.__name__ == "<lambda>" else None
    if body is not None:
        text = f"def {name}({', '.join(params)}):\n    return {body}\n"
    else:
        text = textwrap.dedent(inspect.getsource(func))
        tree = ast.parse(text).body[0]
        tree.decorator_list, tree.name = [], name
        text = ast.unparse(tree) + "\n"
    namespace = dict(func.__globals__)
    for free, cell in zip(func.__code__.co_freevars, func.__closure__ or ()):
        namespace[free] = cell.cell_contents
    py = exec_generated(text, namespace, name)
    fn = wp_func(py, module=module)
    fn._wp_map_source = text
    return fn


def lambda_body(func, what="wp.map"):
    """The text of a lambda's body expression, found in its source file: the statement that holds
    it is parsed and the lambda taken whose parameters and body column match the code object's."""
    code = func.__code__
    lines = linecache.getlines(code.co_filename, func.__globals__)
    first = code.co_firstlineno
    if not lines:
        raise TypeError(f"{what}: the source of {func.__qualname__} cannot be read")
    cols = [p[2] for p in code.co_positions() if p[0] == first and p[2] is not None]
    params = list(code.co_varnames[:code.co_argcount])
    for end in range(first, min(len(lines), first + 200) + 1):
        chunk = "".join(lines[first - 1:end])
        text = textwrap.dedent(chunk)
        shift = len(chunk) - len(chunk.lstrip()) - (len(text) - len(text.lstrip()))
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        found = [n for n in ast.walk(tree) if isinstance(n, ast.Lambda) and n.lineno == 1
                 and [a.arg for a in n.args.args] == params]
        if len(found) > 1 and cols:
            near = [n for n in found if n.body.col_offset + shift in cols]
            found = near or found
        if found:
            return ast.unparse(found[0].body)
    raise TypeError(f"{what}: the lambda of {func.__qualname__} could not be found in its source")


def exec_generated(text, namespace, name):
    """Run generated source registered in linecache (kernels and functions read their text)."""
    filename = f"<wp.map {next(_counter)} {hashlib.sha256(text.encode()).hexdigest()[:12]}>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    namespace.setdefault("__name__", "warp_interactive.mapping_generated")
    exec(compile(text, filename, "exec"), namespace)
    return namespace[name]


def create_warp_function(func):
    """A Warp function made from the Python function ``func`` (a def or a lambda), generic in
    all its parameters, and the module it belongs to: ``(wp.Function, wp.Module)``.

    As warp-lang: the function's key is its qualified name (``.``, spaces -> ``_``; a lambda's:
    ``func_`` and a hash of its body) and its module ``map_<key>``."""
    if not inspect.isfunction(func):
        raise TypeError(f"create_warp_function: expected a Python function, got {type(func).__name__}")
    if func.__name__ == "<lambda>":
        body = lambda_body(func, "create_warp_function")
        key = f"func_{hashlib.sha256(body.encode('utf-8')).hexdigest()[:16]}"
    else:
        key = func.__qualname__.replace(".", "_").replace(" ", "_").replace("<", "").replace(">", "_")
    module = f"map_{key}"
    return python_function_as_func(func, name=key, module=module, what="create_warp_function"), get_module(module)
