"""Where a kernel's source comes from: a decorated function, or the text of a notebook cell."""

import ast
import inspect
import linecache
import textwrap
from collections.abc import Mapping
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
    statics: dict = field(default_factory=dict)   # wp.static() values known at declaration


def source_of(func):
    """Read, dedent and parse ``func``'s definition."""
    filename = inspect.getsourcefile(func) or func.__code__.co_filename
    found = _block_by_indentation(func, filename)
    if found is not None:
        return _info(func, filename, *found)
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
    module = parse_text(text, filename, first)
    fdef = next(n for n in module.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))
    return _info(func, filename, first, text, fdef)


def _info(func, filename, first, text, fdef):
    closure = ClosureView(func.__code__.co_freevars, func.__closure__ or ())
    return SourceInfo(name=func.__name__, filename=filename, first_line=first,
                      lines=text.splitlines(True), text=text, tree=fdef, closure=closure)


class ClosureView(Mapping):
    """A function's closure by name: each cell's value when the function is declared (a
    kernel defined in a loop keeps that iteration's values); a cell still empty then
    (``k = wp.kernel(f); X = ...`` in one factory) is read when it is looked up, so the kernel
    sees the value it has by translation time, as in warp-lang (falling back to the global of
    that name would be a silently wrong value). An empty cell is no entry."""

    def __init__(self, names, cells):
        self._values, self._late = {}, {}
        for name, cell in zip(names, cells):
            try:
                self._values[name] = cell.cell_contents
            except ValueError:         # empty now: read at translation
                self._late[name] = cell

    def __getitem__(self, name):
        if name in self._values:
            return self._values[name]
        try:
            return self._late[name].cell_contents
        except (KeyError, ValueError):
            raise KeyError(name) from None

    def __iter__(self):
        yield from self._values
        yield from (name for name in self._late if name in self)

    def __len__(self):
        return sum(1 for _ in self)

    def __contains__(self, name):
        try:
            self[name]
            return True
        except KeyError:
            return False


_CLOSERS = (")", "]", "}")


def _block_by_indentation(func, filename):
    """(first line, dedented text, FunctionDef) of ``func``'s definition found by indentation:
    the block ends before the first code line indented no deeper than its first (decorator)
    line. ``inspect.getsourcelines`` tokenises the block instead, which was most of the cost of
    defining a kernel (a module of 100 kernels: ~30 ms of a reload). The text must parse to
    exactly one definition of that name, else None (the caller asks inspect): a block cut short
    inside brackets, a string or a continuation line leaves an incomplete statement, which
    does not parse."""
    linecache.checkcache(filename)
    lines = linecache.getlines(filename, func.__globals__)
    first = func.__code__.co_firstlineno
    if not lines or first > len(lines):
        return None
    head = lines[first - 1]
    indent = len(head) - len(head.lstrip())
    seen_def, last = head.strip().startswith(("def ", "async def ")), first
    for n in range(first, len(lines)):    # 0-based index of the line after ``first``
        line = lines[n]
        code = line.strip()
        if not code or code.startswith("#"):
            continue
        depth = len(line) - len(line.lstrip())
        if seen_def and depth <= indent and not code.startswith(_CLOSERS):
            break
        seen_def = seen_def or code.startswith(("def ", "async def "))
        last = n + 1
    if not seen_def:
        return None
    text = textwrap.dedent("".join(lines[first - 1:last]))
    try:
        body = _parse(text)
    except SyntaxError:
        return None
    if len(body) != 1 or not isinstance(body[0], (ast.FunctionDef, ast.AsyncFunctionDef)) \
            or body[0].name != func.__name__:
        return None
    return first, text, body[0]


_PARSED = {}          # dedented text -> its statements (the trees are never modified: the
_PARSED_MAX = 4096    # translator and wp.static's rewrites work on copies)


def _parse(text):
    """``ast.parse(text).body``, remembered by text: reloading a module of 100 kernels after
    editing one parses the one."""
    body = _PARSED.get(text)
    if body is None:
        body = ast.parse(text).body
        if len(_PARSED) >= _PARSED_MAX:
            _PARSED.clear()
        _PARSED[text] = body
    return body


def parse_text(text, filename, first_line=1):
    """``ast.parse``, with a RecursionError (an expression of thousands of operators: Python's
    parser nests one level per operator) said in the user's terms."""
    try:
        return ast.parse(text)
    except RecursionError:
        from ...errors import CodegenError
        raise CodegenError(
            "this code nests too deeply for Python's parser: an expression of thousands of "
            "operators (such as a chain of additions) is one nested tree; split it into several "
            "statements (partial sums) or loop over the terms", filename, first_line, None, None,
            None) from None
