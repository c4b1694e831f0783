"""``%%wp.kernel`` (aliases ``%%kernel``, ``%%wp_kernel``): a cell of kernels is one module.

Every undecorated top-level ``def`` in the cell becomes a ``@wp.kernel``; ``@wp.func`` and
``@wp.struct`` keep their meaning. The cell's kernels go into a new module that is built aside
(right away unless ``--lazy``) and replaces the cell's previous module only if it built: after an
error the names the cell defined, and any ``@wp.func`` it redefined, are put back, so the last
good kernels keep working.
"""

import argparse
import ast
import hashlib
import shlex
import time

from ..errors import CodegenError, CompileError
from .cells import kernel_names, module_name_for, prompt_number, register_source
from .errors import CellError, format_error

MAGIC_NAMES = ("wp.kernel", "kernel", "wp_kernel")
_KERNEL_DECORATOR = "__wpi_cell_kernel__"
_last = {"error": None}


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise CellError(f"%%wp.kernel: {message}\n{self.format_usage().strip()}")


def _parser():
    p = _Parser(prog="%%wp.kernel", add_help=False)
    p.add_argument("--device", default=None, help="build for this device (default: the preferred one)")
    p.add_argument("--lazy", action="store_true", help="build at the first launch instead of now")
    p.add_argument("--quiet", action="store_true", help="no summary line")
    p.add_argument("--show-source", choices=("cpp", "cuda"), default=None,
                   help="display the generated code")
    p.add_argument("--module", default=None, help="the module's name (default: from the kernels)")
    p.add_argument("--full-errors", action="store_true", help="show the whole C++ compiler log")
    p.add_argument("--annotate", action="store_true",
                   help="show the cell with the C++ (forward and adjoint) each line generated")
    return p


def parse_options(line):
    return _parser().parse_args(shlex.split(line or ""))


def register_magics(shell, cells):
    def cell_magic(line, cell):
        return run_kernel_cell(shell, cells, line, cell)
    cell_magic.__doc__ = __doc__ + "\n" + _parser().format_help()
    for name in MAGIC_NAMES:
        shell.register_magic_function(cell_magic, magic_kind="cell", magic_name=name)


def unregister_magics(shell):
    for name in MAGIC_NAMES:
        shell.magics_manager.magics["cell"].pop(name, None)


def last_error():
    """The full text of the last cell build error (the C++ log for a compiler failure)."""
    return _last["error"]


# --- one cell ----------------------------------------------------------------------------------
def run_kernel_cell(shell, cells, line, cell):
    opts = parse_options(line)
    label = f"cell [{prompt_number(shell)}]"
    text = "\n" + cell     # line 1 is the %%wp.kernel line: line numbers match the cell's
    digest = hashlib.sha256(cell.encode()).hexdigest()[:12]
    filename = f"<wp.kernel {label} {digest}>"
    register_source(filename, text, label)
    try:
        tree = ast.parse(text, filename)
    except SyntaxError as e:
        raise _cell_error(e, shell, opts) from None
    except RecursionError:      # Python's parser nests one level per operator of an expression
        e = SyntaxError("the cell nests too deeply for Python's parser: an expression of thousands "
                        "of operators (such as a chain of additions) is one nested tree; split it "
                        "into several statements (partial sums) or loop over the terms",
                        (filename, 1, 0, text.split("\n", 2)[1] if "\n" in text else ""))
        raise _cell_error(e, shell, opts) from None
    names = kernel_names(tree, undecorated_too=True)
    module = _new_module(opts.module or module_name_for(names, cell), shell)
    _mark_kernels(tree)
    saved = _Snapshot(shell.user_ns, tree)
    t0 = time.perf_counter()
    cells.staging = (filename, module)
    shell.user_ns[_KERNEL_DECORATOR] = _kernel_decorator()
    try:
        exec(compile(tree, filename, "exec"), shell.user_ns)
        if not opts.lazy:
            _build(module, opts.device)
    except (CodegenError, CompileError, RecursionError) as e:
        saved.restore()
        raise _cell_error(e, shell, opts) from None
    except BaseException:
        saved.restore()
        raise
    finally:
        cells.staging = None
        shell.user_ns.pop(_KERNEL_DECORATOR, None)
    from ..state import state
    state.replace_module(module)
    _last["error"] = None
    if not opts.quiet:
        print(summary(module, names, opts.lazy, time.perf_counter() - t0))
    if opts.show_source:
        _show_source(module, opts.show_source)
    if opts.annotate:
        _show_annotation(module, cell, label)


def _build(module, device_name):
    from ..runtime import timing
    from ..runtime.device import get_device
    device = get_device(device_name)
    module.load(device)
    timing.record_build(device)


def _kernel_decorator():
    from ..lang.definitions.decorators import kernel
    return kernel


def _new_module(name, shell):
    """A fresh module for the cell, with the options of the module it will replace."""
    from ..lang.definitions.module import Module
    from ..state import state
    m = Module(name)
    old = state.modules.get(name)
    if old is not None:
        m.options.update(old.options)
    m.parent = shell.user_ns.get("__name__", "__main__")
    return m


def _mark_kernels(tree):
    """Give every undecorated top-level def the kernel decorator."""
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and not node.decorator_list:
            deco = ast.Name(id=_KERNEL_DECORATOR, ctx=ast.Load())
            ast.copy_location(deco, node)
            node.decorator_list.append(deco)
    ast.fix_missing_locations(tree)


def _cell_error(err, shell, opts):
    full = format_error(err, shell, full=True)
    _last["error"] = full
    return CellError(format_error(err, shell, full=opts.full_errors), detail=full)


def summary(module, names, lazy, seconds):
    kernels = ", ".join(names) or "no kernels"
    if lazy or module.last_build is None:
        return f"wp.kernel {module.name}: {kernels} (lazy: builds at the first launch)"
    h, compiled, _ = module.last_build
    how = "compiled (cache miss)" if compiled else "cache hit"
    return f"wp.kernel {module.name}: {kernels} | {seconds:.3f} s, {how} | hash {h[:8]}"


def _show_source(module, which):
    from ..codegen.target import CPU, CUDA
    src = module.source(CUDA if which == "cuda" else CPU, backward=False)
    try:
        from IPython.display import Code, display
        display(Code(src, language="c++"))
    except ImportError:
        print(src)


def annotation(module, cell, label=""):
    """The annotated view of a cell's module (an object that displays as HTML, prints as text)."""
    from ..codegen.target import CPU
    from .annotate import annotate_html, annotate_text
    from .display_value import Display
    source = module.source(CPU, backward=True)
    paths = module.kernel_paths(CPU, backward=bool(module.option("enable_backward")))
    lines = [""] + cell.splitlines()   # line 1 is the %%wp.kernel line, as in errors
    lines[0] = "%%wp.kernel --annotate"
    title = f"{label}: module {module.name}"
    return Display(annotate_html(lines, source, title, paths), annotate_text(lines, source, paths))


def _show_annotation(module, cell, label):
    view = annotation(module, cell, label)
    _last["annotation"] = view
    try:
        from IPython.display import display
        display(view)
    except ImportError:
        print(repr(view))


class _Snapshot:
    """The user-namespace bindings and @wp.func definitions a cell is about to replace."""

    def __init__(self, ns, tree):
        from ..state import state
        self.ns = ns
        defined = [n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))]
        self.bindings = {n: ns[n] for n in defined if n in ns}
        self.unbound = [n for n in defined if n not in ns]
        module_name = ns.get("__name__", "__main__")
        self.funcs = state.snapshot([(module_name, n) for n in defined])

    def restore(self):
        from ..state import state
        self.ns.update(self.bindings)
        for n in self.unbound:
            self.ns.pop(n, None)
        state.restore(self.funcs)
