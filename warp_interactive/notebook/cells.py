"""Which module a kernel defined in a notebook cell belongs to.

Every cell gets its own module, named after the kernels it defines (``__cell__saxpy`` or
``__cell__init+step``), so editing one cell rebuilds one cell's kernels and not every kernel of
the notebook. The name depends only on the kernel names, so re-running an edited cell replaces
the kernels of the same module.
"""

import ast
import hashlib
import linecache

CELL_PREFIX = "__cell__"
_labels = {}      # source filename -> "cell [7]" for the %%wp.kernel cells of this session


def is_kernel_decorator(node):
    """``@wp.kernel``, ``@kernel``, ``@wp.kernel(...)``."""
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr == "kernel"
    return isinstance(node, ast.Name) and node.id == "kernel"


def kernel_names(tree, undecorated_too=False):
    """Top-level kernel definitions of a parsed cell, in order."""
    out = []
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef):
            continue
        if any(is_kernel_decorator(d) for d in node.decorator_list) or \
                (undecorated_too and not node.decorator_list):
            out.append(node.name)
    return out


def module_name_for(names, text):
    if names:
        return CELL_PREFIX + "+".join(names)
    return CELL_PREFIX + hashlib.sha256(text.encode()).hexdigest()[:8]


def register_source(filename, text, label):
    """Make ``text`` readable by ``inspect`` (kernels read their source) under ``filename``."""
    lines = text.splitlines(True)
    linecache.cache[filename] = (len(text), None, lines, filename)
    _labels[filename] = label


def prompt_number(shell):
    """The number of the prompt (``In [N]``) of the cell running now.

    ``shell.execution_count`` is not it: IPython >= 8 already counts the next cell while one
    runs (and older versions did not). The number IPython compiled the running cell under is:
    the cell's code object has a file name that ``shell.compile`` maps to its prompt number,
    and that code is on the call stack below us.
    """
    import sys
    fmap = getattr(getattr(shell, "compile", None), "_filename_map", {}) or {}
    frame = sys._getframe(1)
    while frame is not None:
        n = fmap.get(frame.f_code.co_filename)
        if n is not None:
            return n
        frame = frame.f_back
    return shell.execution_count    # run outside a cell (a test calling the magic directly)


def label_of(filename, shell=None):
    """A readable name for a source file: "cell [7]" for notebook cells, else the file name."""
    if filename in _labels:
        return _labels[filename]
    fmap = getattr(getattr(shell, "compile", None), "_filename_map", {}) if shell else {}
    if filename in fmap:
        return f"cell [{fmap[filename]}]"
    return filename


class CellModules:
    """The hook ``lang.definitions.decorators`` calls for every ``@wp.kernel``: the cell's own module for a
    kernel defined in the notebook's namespace, else None (the usual per-Python-module rule)."""

    def __init__(self, shell):
        self.shell = shell
        self.staging = None     # (filename, Module) while a %%wp.kernel cell executes
        self._names = {}        # cell filename -> module name
        self.own_modules = set()   # the names of the modules made here (not by the magic)
        self.defined = []       # (module name, kernel name) defined by decorator in this cell

    def __call__(self, fn):
        code = getattr(fn, "__code__", None)
        if code is None:
            return None
        if self.staging is not None and code.co_filename == self.staging[0]:
            return self.staging[1]
        if fn.__module__ != "__main__" or fn.__globals__ is not self.shell.user_ns:
            return None
        from ..runtime.module import get_module
        m = get_module(self.name_for_file(code.co_filename))
        m.parent = "__main__"
        self.own_modules.add(m.name)
        self.defined.append((m.name, fn.__name__))
        return m

    def name_for_file(self, filename):
        name = self._names.get(filename)
        if name is None:
            text = "".join(linecache.getlines(filename))
            try:
                names = kernel_names(ast.parse(text))
            except SyntaxError:
                names = []
            name = self._names[filename] = module_name_for(names, text or filename)
        return name
