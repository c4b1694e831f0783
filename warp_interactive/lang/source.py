"""Where a kernel's source comes from: a decorated function, or the text of a notebook cell."""

import ast
import inspect
import linecache
import textwrap
from dataclasses import dataclass, field


@dataclass
class SourceInfo:
    name: str
    filename: str
    first_line: int          # absolute line number of the source's first line
    lines: list              # the source lines (dedented), line 1 = first_line
    text: str
    tree: ast.FunctionDef
    closure: dict = field(default_factory=dict)


def source_of(func):
    """Read, dedent and parse ``func``'s definition."""
    filename = inspect.getsourcefile(func) or func.__code__.co_filename
    try:
        lines, first = inspect.getsourcelines(func)
    except (OSError, TypeError):
        lines = linecache.getlines(func.__code__.co_filename)
        if not lines:
            raise OSError(f"cannot read the source of {func.__qualname__}: define kernels in a file "
                          "or a notebook cell (or use the %%wp.kernel magic)") from None
        first = func.__code__.co_firstlineno
        lines = inspect.getblock(lines[first - 1:])
    text = textwrap.dedent("".join(lines))
    module = ast.parse(text)
    fdef = next(n for n in module.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))
    closure = {}
    if func.__closure__:
        for name, cell in zip(func.__code__.co_freevars, func.__closure__):
            try:
                closure[name] = cell.cell_contents
            except ValueError:
                pass
    return SourceInfo(name=func.__name__, filename=filename, first_line=first,
                      lines=text.splitlines(True), text=text, tree=fdef, closure=closure)
